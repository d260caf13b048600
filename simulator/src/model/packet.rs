//! The packet-level networks of `psins-network` (`torus`, docs/torus.md; `fattree`,
//! docs/fattree.md; `dragonfly`, docs/dragonfly.md), driven as a co-simulation: one adapter for every fabric of the engine. The network keeps its own
//! clock in router cycles; the engine sees it only through one pending event at a time, at
//! the next cycle where anything can happen.
//!
//! - `send` injects the message at the first cycle at or after its ready time and answers
//!   `None`;
//! - `on_event` simulates every cycle up to now, reports each delivered message at its
//!   cycle, and arms the next event;
//! - the watchdog's deadlock becomes `ctx.fail` (exit code 4);
//! - a message of more than `max_message_packets` packets never gets here: the engine
//!   refuses it at its record (`max_message_bytes`).
//!
//! A message whose data is ready at the very instant of a cycle the network has already
//! simulated (typically a reply sent the moment a delivery completes, when the delivery's
//! event ran first) enters the network one cycle later: the network never goes back.
//!
//! With a timeline, the three models' counter track is their busy links (links_busy.rs);
//! without one, `on_event` costs one test more.

use super::links_busy::{self, LinksBusy};
use super::{analytic_collective, CollCall, MsgId, NetCtx, NetMsg, NetworkModel, UsageTrack};
use crate::units::Ps;
use psins_machine::{CollMode, Machine};
use psins_network::{Fabric, Network, NetworkStats, RouterConfig};
use serde_json::Value;

pub struct PacketModel<F: Fabric> {
    name: &'static str,
    net: Network<F>,
    /// The report's one-line description of the design, and the name of its per-class
    /// link utilisation (`dim_utilisation` on a torus).
    design: String,
    classes: &'static str,
    /// For analytic collectives, when the machine file asks for them.
    machine: Machine,
    /// Cycle of the earliest model event the engine holds. Events are never cancelled, so
    /// one is scheduled only when it is earlier than this; later ones fire and find
    /// nothing to do.
    armed: Option<u64>,
    done: Vec<(u64, u64)>,
    /// With a timeline: the busy links' windows.
    usage: Option<LinksBusy>,
}

impl<F: Fabric> PacketModel<F> {
    pub fn boxed(
        name: &'static str,
        net: Network<F>,
        m: &Machine,
        design: String,
        classes: &'static str,
    ) -> Box<dyn NetworkModel>
    where
        F: 'static,
    {
        Box::new(PacketModel {
            name,
            net,
            design,
            classes,
            machine: m.clone(),
            armed: None,
            done: Vec::new(),
            usage: None,
        })
    }

    fn cfg(&self) -> &RouterConfig {
        self.net.router_config()
    }

    /// Schedules an engine event for the network's next activity unless one is pending
    /// no later.
    fn arm(&mut self, ctx: &mut NetCtx) {
        let Some(next) = self.net.next_activity() else { return };
        if self.armed.is_some_and(|a| a <= next) {
            return;
        }
        let at = self.cfg().cycles_to_ps(next).max(ctx.now);
        self.armed = Some(self.cfg().ps_to_cycle(at));
        ctx.schedule(at, 0);
    }
}

impl<F: Fabric> NetworkModel for PacketModel<F> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn max_message_bytes(&self) -> u64 {
        self.cfg().max_message_bytes()
    }

    fn refuse_message(&self, bytes: u64) -> String {
        self.cfg().check_message(bytes).err().map(|e| e.to_string()).unwrap_or_default()
    }

    fn send(&mut self, msg: &NetMsg, ctx: &mut NetCtx) -> Option<Ps> {
        let cycle = self.cfg().ps_to_cycle(msg.ready);
        let id = msg.id as u64;
        if let Err(e) = self.net.try_inject(id, msg.src_node, msg.dst_node, msg.bytes, cycle) {
            ctx.fail(e.to_string());
            return None;
        }
        self.arm(ctx);
        None
    }

    fn on_event(&mut self, _token: u32, ctx: &mut NetCtx) {
        let cycle = self.cfg().ps_to_cycle(ctx.now);
        if self.armed == Some(cycle) {
            self.armed = None;
        }
        let result = match &mut self.usage {
            None => self.net.advance_to(cycle, &mut self.done),
            Some(u) => u.advance(&mut self.net, cycle, &mut self.done),
        };
        for &(id, at) in &self.done {
            ctx.deliver(id as MsgId, self.net.router_config().cycles_to_ps(at));
        }
        self.done.clear();
        match result {
            Ok(()) => self.arm(ctx),
            Err(d) => ctx.fail(d.to_string()),
        }
    }

    fn track_usage(&mut self) -> Option<UsageTrack> {
        let u = LinksBusy::new(self.cfg());
        let track = UsageTrack { name: links_busy::TRACK, per: u.window };
        self.usage = Some(u);
        Some(track)
    }

    fn take_usage(&mut self, out: &mut dyn FnMut(Ps, i64)) {
        for (at, d) in self.usage.iter_mut().flat_map(|u| u.changes.drain(..)) {
            out(at, d);
        }
    }

    fn close_usage(&mut self) {
        if let Some(u) = &mut self.usage {
            u.close(&self.net);
        }
    }

    fn collective(&mut self, c: &CollCall) -> Ps {
        analytic_collective(&self.machine, c)
    }

    /// A packet network is only meaningful with the collectives' real messages.
    fn preferred_collectives(&self) -> CollMode {
        CollMode::Expanded
    }

    fn stats(&self) -> Vec<(String, Value)> {
        stats_pairs(&self.design, self.classes, &self.net.stats())
    }
}

/// Rounded for the table: the JSON gets the same values, which are far below the model's
/// accuracy anyway.
fn round(x: f64, digits: i32) -> Value {
    let s = 10f64.powi(digits);
    ((x * s).round() / s).into()
}

fn stats_pairs(design: &str, classes: &str, s: &NetworkStats) -> Vec<(String, Value)> {
    let per_packet = |x: u64| if s.packets_delivered == 0 { 0.0 } else { x as f64 / s.packets_delivered as f64 };
    let dims: Vec<Value> = s.dim_utilisation.iter().map(|&u| round(u, 6)).collect();
    let pairs: Vec<(&str, Value)> = vec![
        ("design", design.into()),
        ("cycles", s.cycles.into()),
        ("messages", s.messages_delivered.into()),
        ("packets", s.packets_delivered.into()),
        ("packet_hops", s.packet_hops.into()),
        ("avg_latency_cycles", round(s.avg_latency, 2)),
        ("p99_latency_cycles", s.p99_latency.into()),
        ("max_latency_cycles", s.max_latency.into()),
        ("avg_hops", round(s.avg_hops, 3)),
        (classes, Value::Array(dims)),
        ("max_link_utilisation", round(s.max_link_utilisation, 6)),
        ("blocked_cycles", s.blocked_cycles.into()),
        ("blocked_per_packet", round(per_packet(s.blocked_cycles), 2)),
        ("source_queue_cycles", s.source_queue_cycles.into()),
    ];
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}
