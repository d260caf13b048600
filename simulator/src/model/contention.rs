//! `bus`, `inlink`, `outlink`: PSINS's resource-contention models. Each message needs one
//! server of a resource group (a global bus, an incoming link of its destination node, an
//! outgoing link of its source node) for its serialisation time S/B, and starts at the
//! earliest time one is free:
//!
//! start = max(ready, min free_at over the group);  free_at := start + S/B;
//! delivery = start + L + S/B.
//!
//! Messages arrive in non-decreasing `ready` order, so first-free list scheduling is the
//! earliest-start schedule.

use super::{analytic_collective, CollCall, NetCtx, NetMsg, NetworkModel, UsageTrack};
use crate::units::Ps;
use psins_machine::{Link, Machine};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    Bus,
    InLink,
    OutLink,
}

pub struct Contention {
    kind: Resource,
    link: Link,
    /// Servers per group; group g owns `free_at[g*per .. (g+1)*per]`.
    per: usize,
    free_at: Vec<Ps>,
    machine: Machine,
    busy_ps: u128,
    delayed: u64,
    delay_ps: u128,
    /// With a timeline: each server's busy intervals as (time, +1 / −1), until taken.
    usage: Option<Vec<(Ps, i64)>>,
}

/// The model of `kind` with `per` servers in each group.
pub fn build(m: &Machine, kind: Resource, per: u32) -> Box<dyn NetworkModel> {
    let groups = match kind {
        Resource::Bus => 1,
        Resource::InLink | Resource::OutLink => m.nodes,
    };
    let total = groups as usize * per as usize;
    Box::new(Contention {
        kind,
        link: m.inter,
        per: per as usize,
        free_at: vec![0; total],
        machine: m.clone(),
        busy_ps: 0,
        delayed: 0,
        delay_ps: 0,
        usage: None,
    })
}

impl NetworkModel for Contention {
    fn name(&self) -> &'static str {
        match self.kind {
            Resource::Bus => "bus",
            Resource::InLink => "inlink",
            Resource::OutLink => "outlink",
        }
    }

    #[inline]
    fn send(&mut self, msg: &NetMsg, _ctx: &mut NetCtx) -> Option<Ps> {
        let group = match self.kind {
            Resource::Bus => 0,
            Resource::InLink => msg.dst_node as usize,
            Resource::OutLink => msg.src_node as usize,
        };
        let servers = &mut self.free_at[group * self.per..(group + 1) * self.per];
        // The first server with the smallest free time (ties to the lowest index: deterministic).
        let (mut best, mut best_at) = (0, servers[0]);
        for (i, &f) in servers.iter().enumerate().skip(1) {
            if f < best_at {
                best = i;
                best_at = f;
            }
        }
        let start = msg.ready.max(best_at);
        let transfer = self.link.transfer(msg.bytes);
        servers[best] = start + transfer;
        self.busy_ps += transfer as u128;
        // A server's intervals do not overlap, so the number of intervals around a time is
        // the number of busy servers then.
        if let Some(u) = &mut self.usage {
            u.extend([(start, 1), (start + transfer, -1)]);
        }
        if start > msg.ready {
            self.delayed += 1;
            self.delay_ps += (start - msg.ready) as u128;
        }
        Some(start + self.link.wire_latency(msg.bytes) + transfer)
    }

    fn collective(&mut self, c: &CollCall) -> Ps {
        analytic_collective(&self.machine, c)
    }

    fn track_usage(&mut self) -> Option<UsageTrack> {
        self.usage = Some(Vec::new());
        Some(UsageTrack::count(match self.kind {
            Resource::Bus => "busy buses",
            Resource::InLink => "busy incoming links",
            Resource::OutLink => "busy outgoing links",
        }))
    }

    fn take_usage(&mut self, out: &mut dyn FnMut(Ps, i64)) {
        for (at, d) in self.usage.iter_mut().flat_map(|u| u.drain(..)) {
            out(at, d);
        }
    }

    fn stats(&self) -> Vec<(String, serde_json::Value)> {
        vec![
            ("servers".into(), (self.free_at.len() as u64).into()),
            ("busy_s".into(), (self.busy_ps as f64 / 1e12).into()),
            ("delayed_messages".into(), self.delayed.into()),
            ("contention_delay_s".into(), (self.delay_ps as f64 / 1e12).into()),
        ]
    }
}
