//! The flow-level network: every message is one flow along the fabric's oblivious route
//! ([`crate::fabric::path`]), its node's injection and ejection ports included, and the
//! flows in progress share every link max-min fairly ([`crate::maxmin`]). Rates are
//! recomputed whenever a flow starts or ends. A message of S bytes over h links with rate
//! r throughout is delivered (h+1)·R + h cycles (the head's zero-load latency) after its
//! last byte has gone, so alone it takes (h+1)·R + h + 8·S/W cycles — the packet model's
//! zero-load time without the rounding of packets to whole phits. No buffers, no packets:
//! for runs too large for packets.

use std::collections::HashMap;

use crate::fabric::{path, Fabric};
use crate::maxmin::max_min;
use crate::params::RouterConfig;

/// Bytes left below which a flow counts as done (rounding of rates × times).
const DONE: f64 = 1e-6;

struct Flow {
    user: u64,
    left: f64,
    links: Vec<u32>,
    rate: f64,
    /// Cycles from the last byte leaving to delivery.
    latency: f64,
}

pub struct FluidNetwork<F: Fabric> {
    fabric: F,
    cfg: RouterConfig,
    /// Bytes a link (and an injection or ejection port) moves per cycle: W / 8.
    link_bytes: f64,
    flows: Vec<Flow>,
    paths: HashMap<(u32, u32), Vec<u32>>,
    /// Cycles simulated so far (fractional: flows end between cycles).
    now: f64,
    flows_done: u64,
    bytes_done: f64,
}

impl<F: Fabric> FluidNetwork<F> {
    pub fn new(fabric: F, cfg: RouterConfig) -> FluidNetwork<F> {
        let link_bytes = cfg.link_bits_per_cycle as f64 / 8.0;
        FluidNetwork {
            fabric,
            cfg,
            link_bytes,
            flows: Vec::new(),
            paths: HashMap::new(),
            now: 0.0,
            flows_done: 0,
            bytes_done: 0.0,
        }
    }

    pub fn router_config(&self) -> &RouterConfig {
        &self.cfg
    }

    pub fn nodes(&self) -> usize {
        self.fabric.nodes()
    }

    /// Flows delivered and their bytes so far.
    pub fn totals(&self) -> (u64, f64) {
        (self.flows_done, self.bytes_done)
    }

    /// A message of `bytes` from node src to node dst starting at `cycle` (not before the
    /// time already reached); `user` comes back with its delivery. Deliveries of flows that
    /// ended before `cycle` are appended to `done` first.
    pub fn inject(
        &mut self,
        user: u64,
        src: u32,
        dst: u32,
        bytes: u64,
        cycle: f64,
        done: &mut Vec<(u64, f64)>,
    ) -> Result<(), String> {
        let nodes = self.fabric.nodes() as u32;
        if src >= nodes || dst >= nodes {
            return Err(format!("message {user}: node {src}→{dst} out of range (the network has {nodes} nodes)"));
        }
        self.advance_to(cycle, done);
        let fabric = &self.fabric;
        let route = self.paths.entry((src, dst)).or_insert_with(|| path(fabric, src, dst));
        let h = route.len() as f64;
        let extra = (fabric.routers() * fabric.ports()) as u32;
        let mut links = route.clone();
        // The source's injection port and the destination's ejection port.
        links.push(extra + src);
        links.push(extra + nodes + dst);
        let r = self.cfg.router_delay_cycles as f64;
        self.flows.push(Flow { user, left: bytes as f64, links, rate: 0.0, latency: (h + 1.0) * r + h });
        self.reshare();
        Ok(())
    }

    /// The next cycle (fractional) at which a flow's last byte leaves, if any flow is on.
    pub fn next_end(&self) -> Option<f64> {
        self.flows.iter().map(|f| self.now + f.left / f.rate).min_by(f64::total_cmp)
    }

    /// Runs to `cycle`, appending (user, delivery cycle) of every flow whose last byte left
    /// by then (its delivery may be later: the head latency is added).
    pub fn advance_to(&mut self, cycle: f64, done: &mut Vec<(u64, f64)>) {
        while let Some(end) = self.next_end().filter(|&t| t <= cycle) {
            self.progress(end);
            let mut i = 0;
            while i < self.flows.len() {
                if self.flows[i].left <= DONE * self.flows[i].rate.max(1.0) {
                    let f = self.flows.swap_remove(i);
                    done.push((f.user, end + f.latency));
                    self.flows_done += 1;
                } else {
                    i += 1;
                }
            }
            self.reshare();
        }
        if cycle > self.now {
            self.progress(cycle);
        }
    }

    fn progress(&mut self, t: f64) {
        let dt = t - self.now;
        for f in &mut self.flows {
            let moved = (f.rate * dt).min(f.left);
            f.left -= moved;
            self.bytes_done += moved;
        }
        self.now = t;
    }

    fn reshare(&mut self) {
        let links: Vec<&[u32]> = self.flows.iter().map(|f| f.links.as_slice()).collect();
        let cap = self.link_bytes;
        let rates = max_min(|_| cap, &links);
        for (f, r) in self.flows.iter_mut().zip(rates) {
            f.rate = r;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fattree::FatTreeFabric;
    use crate::FatTreeConfig;

    fn tree() -> FluidNetwork<FatTreeFabric> {
        let cfg = FatTreeConfig::k_ary_n_tree(4, 2);
        FluidNetwork::new(FatTreeFabric::new(cfg.clone()).unwrap(), cfg.router)
    }

    fn run(net: &mut FluidNetwork<FatTreeFabric>, msgs: &[(u64, u32, u32, u64, f64)]) -> Vec<(u64, f64)> {
        let mut done = Vec::new();
        for &(id, s, d, b, t) in msgs {
            net.inject(id, s, d, b, t, &mut done).unwrap();
        }
        net.advance_to(f64::MAX / 4.0, &mut done);
        done.sort_by_key(|d| d.0);
        done
    }

    #[test]
    fn a_lone_flow_takes_the_head_latency_plus_its_bytes_over_the_link() {
        // 4-ary 2-tree, W = 32 (4 bytes per cycle), R = 1: node 0 → node 5 crosses 4 links,
        // so 5·1 + 4 + 1000/4 = 259 cycles after it starts at 10.
        let mut net = tree();
        assert_eq!(run(&mut net, &[(1, 0, 5, 1000, 10.0)]), vec![(1, 269.0)]);
    }

    #[test]
    fn two_flows_from_one_node_share_its_injection_port() {
        // Both leave node 0: each gets 2 bytes per cycle, 400 bytes take 200 cycles.
        let mut net = tree();
        let done = run(&mut net, &[(1, 0, 1, 400, 0.0), (2, 0, 2, 400, 0.0)]);
        assert_eq!(done, vec![(1, 200.0 + 5.0), (2, 200.0 + 5.0)]);
    }

    #[test]
    fn a_departure_gives_the_survivor_the_whole_link() {
        // 200 and 600 bytes from node 0: both at 2 B/cycle until the short one ends at
        // cycle 100, then the long one at 4 B/cycle: its last 400 bytes take 100 more
        // cycles, ending at 200. Head latencies: 2 links (5 cycles), 4 links (9).
        let mut net = tree();
        let done = run(&mut net, &[(1, 0, 1, 200, 0.0), (2, 0, 6, 600, 0.0)]);
        assert_eq!(done, vec![(1, 100.0 + 5.0), (2, 200.0 + 9.0)]);
    }
}
