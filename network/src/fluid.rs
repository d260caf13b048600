//! The flow-level network: every message is one flow along its graph's route
//! ([`FlowGraph::route`]: a fabric's oblivious route with the node's injection and ejection
//! ports, or the flat cluster's up link, backbone and down link), and the flows in progress
//! share every link max-min fairly ([`crate::maxmin`]). A flow is delivered its route's
//! latency after its last byte has gone; on a fabric a message of S bytes over h links with
//! rate r throughout takes (h+1)·R + h + 8·S/W cycles — the packet model's zero-load time
//! without the rounding of packets to whole phits. No buffers, no packets: for runs too
//! large for packets.
//!
//! **Incremental**, as SimGrid's lmm: a solve re-solves only the connected components of
//! links and flows (links sharing a flow, flows sharing a link) that arrivals and departures
//! touched; every other flow keeps its rate, which max-min fairness leaves unchanged there. A
//! flow keeps its bytes left at the time its rate last changed and its end time sits in a
//! heap, so nothing is done per event for flows whose rate stays (SimGrid's lazy update).
//! **Once per instant**, as SimGrid solves once before time advances: arrivals and
//! departures only mark their links; the solve runs in [`FluidNetwork::advance_to`], before
//! time moves on (the caller advances to the same instant to solve it), so
//! the thousands of flows a stencil starts at one instant cost one solve, not one each.
//! Rates hold between instants only, so the result is the same as solving at every arrival.
//!
//! **Latency first** ([`FluidNetwork::latency_first`], SimGrid's CM02 order): a flow waits
//! its route's latency before it takes bandwidth, and is delivered when its last byte has
//! gone. Alone it takes the same time; under contention the flows meet later.
//! **Latency-weighted** ([`FluidNetwork::latency_weighted`], CM02's sharing penalty): a
//! flow's weight in the sharing is 1 / its route's latency, so where flows meet, one with a
//! route twice as long gets half the rate of the other.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::error::MessageError;
use crate::graph::FlowGraph;
use crate::maxmin::Share;
use crate::sharing::Sharing;

/// Bytes left below which a flow counts as done (rounding of rates × times).
const DONE: f64 = 1e-6;

/// Aligned to a cache line: a flow is reached at random (the heap's top, a solve's changes),
/// and its fields are read together.
#[derive(Default)]
#[repr(align(64))]
struct Flow {
    user: u64,
    bytes: f64,
    /// Bytes left at `since`, when its rate last changed.
    left: f64,
    since: f64,
    /// Time units from the last byte leaving to delivery.
    latency: f64,
    /// Bumped at every rate change and when the flow ends: an end in the heap with another
    /// version is stale.
    version: u32,
}

/// A flow's end as a heap key: the time's bits above the slot and the version. End times
/// are never negative or NaN, and the bits of such floats order as the floats do, so keys
/// order as (time, slot, version) tuples with the time's total order would, for one integer
/// compare.
#[inline]
fn end_key(time: f64, f: u32, version: u32) -> u128 {
    // -0.0 (never made, but its bits would sort last) is 0.
    let bits = if time == 0.0 { 0 } else { time.to_bits() };
    u128::from(bits) << 64 | u128::from(f) << 32 | u128::from(version)
}

#[inline]
fn end_of(key: u128) -> (f64, u32, u32) {
    (f64::from_bits((key >> 64) as u64), (key >> 32) as u32, key as u32)
}

pub struct FluidNetwork<G: FlowGraph> {
    graph: G,
    sharing: Sharing,
    /// By the sharing's flow slot.
    flows: Vec<Flow>,
    /// (end time, slot, version) as one key ([`end_key`]), earliest first; the top is always
    /// current.
    ends: BinaryHeap<Reverse<u128>>,
    /// The route being added (routes are not kept: a million ranks' partners would cost more
    /// memory than their flows, and a fat-tree route is a few steps to compute).
    route: Vec<u32>,
    /// Time simulated so far (fractional: flows end between cycles).
    now: f64,
    flows_done: u64,
    bytes_done: f64,
    changed: Vec<(u32, f64)>,
    latency_first: bool,
    latency_weighted: bool,
    /// Latency-first flows waiting to take bandwidth: (start, index into `waiting`).
    starts: BinaryHeap<Reverse<(Share, u32)>>,
    waiting: Vec<(u64, u32, u32, u64)>,
    free_waiting: Vec<u32>,
    /// Solves run (each of the components touched since the one before).
    solves: u64,
}

impl<G: FlowGraph> FluidNetwork<G> {
    pub fn new(graph: G) -> FluidNetwork<G> {
        let capacity = (0..graph.links() as u32).map(|l| graph.capacity(l)).collect();
        FluidNetwork {
            graph,
            sharing: Sharing::new(capacity),
            flows: Vec::new(),
            ends: BinaryHeap::new(),
            route: Vec::new(),
            now: 0.0,
            flows_done: 0,
            bytes_done: 0.0,
            changed: Vec::new(),
            latency_first: false,
            latency_weighted: false,
            starts: BinaryHeap::new(),
            waiting: Vec::new(),
            free_waiting: Vec::new(),
            solves: 0,
        }
    }

    /// Each flow waits its route's latency before it takes bandwidth and is delivered when
    /// its last byte has gone (SimGrid's order), instead of taking bandwidth at once and
    /// being delivered the latency later.
    pub fn latency_first(mut self, on: bool) -> Self {
        self.latency_first = on;
        self
    }

    /// The graph's time units per second.
    pub fn units_per_second(&self) -> f64 {
        self.graph.units_per_second()
    }

    pub fn nodes(&self) -> usize {
        self.graph.nodes()
    }

    /// Flows delivered and their bytes so far.
    pub fn totals(&self) -> (u64, f64) {
        (self.flows_done, self.bytes_done)
    }

    /// Links carrying at least one flow now.
    pub fn busy_links(&self) -> usize {
        self.sharing.busy_links()
    }

    /// Max-min solves so far: one per instant at which flows arrived or left.
    pub fn solves(&self) -> u64 {
        self.solves
    }

    /// A message of `bytes` from node src to node dst starting at `time` (not before the
    /// time already reached); `user` comes back with its delivery. Deliveries of flows that
    /// ended before `time` are appended to `done` first.
    pub fn inject(
        &mut self,
        user: u64,
        src: u32,
        dst: u32,
        bytes: u64,
        time: f64,
        done: &mut Vec<(u64, f64)>,
    ) -> Result<(), MessageError> {
        let nodes = self.graph.nodes() as u32;
        if src >= nodes || dst >= nodes {
            return Err(MessageError::Node { msg: user, src, dst, nodes });
        }
        if time > self.now {
            self.advance_to(time, done);
        }
        if self.latency_first {
            let latency = self.route(src, dst);
            let w = (user, src, dst, bytes);
            let i = match self.free_waiting.pop() {
                Some(i) => {
                    self.waiting[i as usize] = w;
                    i
                }
                None => {
                    self.waiting.push(w);
                    self.waiting.len() as u32 - 1
                }
            };
            self.starts.push(Reverse((Share(self.now + latency), i)));
            return Ok(());
        }
        self.start(user, src, dst, bytes);
        Ok(())
    }

    /// Each flow's weight in the sharing is 1 / its route's latency (SimGrid's CM02 penalty).
    pub fn latency_weighted(mut self, on: bool) -> Self {
        self.latency_weighted = on;
        self
    }

    /// The route from src to dst into `self.route`; its latency.
    fn route(&mut self, src: u32, dst: u32) -> f64 {
        self.route.clear();
        self.graph.route(src, dst, &mut self.route)
    }

    /// The flow takes bandwidth from now.
    fn start(&mut self, user: u64, src: u32, dst: u32, bytes: u64) {
        let mut latency = self.route(src, dst);
        let weight = if self.latency_weighted && latency > 0.0 { 1.0 / latency } else { 1.0 };
        if self.latency_first {
            latency = 0.0;
        }
        let f = self.sharing.add_weighted(&self.route, weight) as usize;
        if f == self.flows.len() {
            self.flows.push(Flow::default());
        }
        let flow = &mut self.flows[f];
        let version = flow.version.wrapping_add(1);
        let bytes = bytes as f64;
        *flow = Flow { user, bytes, left: bytes, since: self.now, latency, version };
    }

    /// Flows arrived or left since the last solve: [`FluidNetwork::next_end`] waits for an
    /// [`FluidNetwork::advance_to`].
    pub fn unsettled(&self) -> bool {
        self.sharing.unsolved()
    }

    /// The next time (fractional) at which a flow's last byte leaves or a latency-first flow
    /// starts taking bandwidth, if any. Only when not [`FluidNetwork::unsettled`].
    pub fn next_end(&self) -> Option<f64> {
        debug_assert!(!self.unsettled(), "next_end before settle");
        let end = self.ends.peek().map(|&Reverse(k)| end_of(k).0);
        let start = self.starts.peek().map(|Reverse((Share(t), _))| *t);
        match (end, start) {
            (Some(e), Some(s)) => Some(e.min(s)),
            (e, s) => e.or(s),
        }
    }

    /// Runs to `time`, appending (user, delivery time) of every flow whose last byte left
    /// by then (its delivery may be later: the route's latency is added). Solves first at
    /// every instant whose arrivals or departures are not solved yet.
    pub fn advance_to(&mut self, time: f64, done: &mut Vec<(u64, f64)>) {
        loop {
            self.solve();
            let Some(end) = self.next_end().filter(|&t| t <= time) else { break };
            self.now = self.now.max(end);
            // Starts before ends at the same time: every start due now joins the solve.
            let mut started = false;
            while let Some(&Reverse((Share(t), i))) = self.starts.peek() {
                if t > end {
                    break;
                }
                self.starts.pop();
                self.free_waiting.push(i);
                let (user, src, dst, bytes) = self.waiting[i as usize];
                self.start(user, src, dst, bytes);
                started = true;
            }
            if started {
                continue;
            }
            // Every flow with (almost) nothing left now ends now.
            while let Some(&Reverse(k)) = self.ends.peek() {
                let (t, f, version) = end_of(k);
                if !self.current(f, version) {
                    self.ends.pop();
                    continue;
                }
                let rate = self.sharing.rate(f);
                if (t - end) * rate > DONE * rate.max(1.0) {
                    break;
                }
                self.ends.pop();
                let flow = &mut self.flows[f as usize];
                flow.version = flow.version.wrapping_add(1);
                done.push((flow.user, end + flow.latency));
                self.flows_done += 1;
                self.bytes_done += flow.bytes;
                self.sharing.remove(f);
            }
        }
        self.now = self.now.max(time);
    }

    /// The end is the flow's latest (its version is bumped when it ends, so a slot freed or
    /// reused has none in the heap).
    fn current(&self, f: u32, version: u32) -> bool {
        self.flows[f as usize].version == version
    }

    /// Re-solves the components touched since the last solve, if any; every flow whose rate
    /// changed banks its progress at the old rate and gets a new end.
    fn solve(&mut self) {
        if !self.sharing.unsolved() {
            return;
        }
        self.solves += 1;
        let mut changed = std::mem::take(&mut self.changed);
        changed.clear();
        self.sharing.solve(&mut changed);
        for &(f, old) in &changed {
            let rate = self.sharing.rate(f);
            let flow = &mut self.flows[f as usize];
            if old > 0.0 {
                flow.left = (flow.left - old * (self.now - flow.since)).max(0.0);
            }
            flow.since = self.now;
            flow.version = flow.version.wrapping_add(1);
            let end = if rate > 0.0 { self.now + flow.left / rate } else { f64::INFINITY };
            self.ends.push(Reverse(end_key(end, f, flow.version)));
        }
        self.changed = changed;
        // Keep the top current, so that next_end can read it.
        while let Some(&Reverse(k)) = self.ends.peek() {
            let (_, f, version) = end_of(k);
            if self.current(f, version) {
                break;
            }
            self.ends.pop();
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::fattree::FatTreeFabric;
    use crate::graph::{Cluster, FabricGraph};
    use crate::FatTreeConfig;

    fn tree() -> FluidNetwork<FabricGraph<FatTreeFabric>> {
        let cfg = FatTreeConfig::k_ary_n_tree(4, 2);
        FluidNetwork::new(FabricGraph::new(FatTreeFabric::new(cfg.clone()).unwrap(), cfg.router))
    }

    fn run<G: FlowGraph>(net: &mut FluidNetwork<G>, msgs: &[(u64, u32, u32, u64, f64)]) -> Vec<(u64, f64)> {
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

    /// A flat cluster of 8 nodes, links of 1 GB/s, latency 1 µs; times in ps.
    fn cluster(backbone: Option<f64>) -> FluidNetwork<Cluster> {
        FluidNetwork::new(Cluster::new(8, 1e9, backbone, 1e6))
    }

    fn near(got: &[(u64, f64)], want: &[(u64, f64)]) {
        assert_eq!(got.len(), want.len(), "{got:?}");
        for (g, w) in got.iter().zip(want) {
            assert!(g.0 == w.0 && (g.1 - w.1).abs() <= 1e-9 * w.1, "{got:?} vs {want:?}");
        }
    }

    #[test]
    fn cluster_flows_share_only_the_down_link_they_have_in_common() {
        // 0→2 and 1→2 share node 2's down link: 0.5 GB/s each, 1000 B take 2 µs, + 1 µs.
        // 3→4 has its own links: 1 µs + 1 µs.
        let mut net = cluster(None);
        let done = run(&mut net, &[(1, 0, 2, 1000, 0.0), (2, 1, 2, 1000, 0.0), (3, 3, 4, 1000, 0.0)]);
        near(&done, &[(1, 3e6), (2, 3e6), (3, 2e6)]);
        // Two flows out of node 0 share its up link the same way.
        let done = run(&mut cluster(None), &[(1, 0, 1, 1000, 0.0), (2, 0, 2, 1000, 0.0)]);
        near(&done, &[(1, 3e6), (2, 3e6)]);
    }

    #[test]
    fn a_cluster_backbone_bounds_every_flow_through_it() {
        // Backbone 1.2 GB/s, three flows on private links: 0.4 GB/s each, 1200 B in 3 µs.
        let msgs = [(1, 0, 1, 1200, 0.0), (2, 2, 3, 1200, 0.0), (3, 4, 5, 1200, 0.0)];
        near(&run(&mut cluster(Some(1.2e9)), &msgs), &[(1, 4e6), (2, 4e6), (3, 4e6)]);
    }

    #[test]
    fn on_the_cluster_a_departure_hands_its_share_on() {
        // Backbone 2 GB/s. A 0→1 (500 B) and C 4→1 (1500 B) share node 1's down link at
        // 0.5 GB/s; B 2→3 (3000 B) gets the backbone's remaining 1 GB/s. A ends at 1 µs:
        // then B and C split the backbone, 1 GB/s each (their own links allow as much): C's
        // last 1000 B end at 2 µs, B's 2000 B at 3 µs. Deliveries 1 µs later.
        let msgs = [(1, 0, 1, 500, 0.0), (2, 2, 3, 3000, 0.0), (3, 4, 1, 1500, 0.0)];
        near(&run(&mut cluster(Some(2e9)), &msgs), &[(1, 2e6), (2, 4e6), (3, 3e6)]);
    }

    #[test]
    fn a_late_arrival_slows_only_the_flows_it_meets() {
        // 0→1 (2000 B) and 2→3 (1000 B) start alone at 1 GB/s; at 0.5 µs 4→1 arrives on node
        // 1's down link: 0→1 drops to 0.5 GB/s for its last 1500 B, as does 4→1 (1000 B);
        // both then run at 0.5 GB/s until 4→1 ends at 2.5 µs (0→1 has 500 B left), which
        // then goes at 1 GB/s and ends at 3 µs. 2→3 is not touched: it ends at 1 µs.
        let msgs = [(1, 0, 1, 2000, 0.0), (2, 2, 3, 1000, 0.0), (3, 4, 1, 1000, 0.5e6)];
        near(&run(&mut cluster(None), &msgs), &[(1, 4e6), (2, 2e6), (3, 3.5e6)]);
    }

    #[test]
    fn flows_arriving_at_one_instant_cost_one_solve() {
        // 16 flows, every node to the next, all at cycle 0, 400 B: each alone on its
        // injection and ejection port (4 B/cycle), so 100 cycles + the head latency (5 in a
        // leaf, 9 across); one solve for the 16 arrivals, one for their 16 departures at 100.
        let mut net = tree();
        let msgs: Vec<_> = (0..16).map(|n| (n as u64, n, (n + 1) % 16, 400, 0.0)).collect();
        let done = run(&mut net, &msgs);
        let want: Vec<_> = (0..16).map(|n| (n as u64, if n % 4 == 3 { 109.0 } else { 105.0 })).collect();
        assert_eq!(done, want);
        assert_eq!(net.solves(), 2);
        // A flow of no bytes ends at its instant's solve: delivered after its latency alone.
        let mut net = tree();
        assert_eq!(run(&mut net, &[(1, 0, 1, 0, 7.0), (2, 0, 1, 400, 7.0)]), vec![(1, 12.0), (2, 112.0)]);
        assert_eq!(net.solves(), 3);
    }

    #[test]
    fn latency_first_flows_meet_later() {
        // Node 0 → 1 (same leaf: 2 links, latency 3R + 2 = 5) and 4 → 1 (4 links, 9), 400 B
        // each at cycle 0, sharing node 1's links (4 B/cycle). Latency after: 2 B/cycle each
        // from 0, both last bytes at 200, delivered 205 and 209. Latency first: 0 → 1 takes
        // bandwidth from 5 alone (16 B by 9), then both at 2 B/cycle: its 384 B end at 201;
        // 4 → 1 has 16 B left then, alone at 4 B/cycle: ends (is delivered) at 205.
        let msgs = [(1, 0, 1, 400, 0.0), (2, 4, 1, 400, 0.0)];
        assert_eq!(run(&mut tree(), &msgs), vec![(1, 205.0), (2, 209.0)]);
        assert_eq!(run(&mut tree().latency_first(true), &msgs), vec![(1, 201.0), (2, 205.0)]);
    }
}
