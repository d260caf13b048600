//! Processing one cycle's events: heads becoming free to leave, routers waking up,
//! packets finishing their ejection.

use crate::fabric::Fabric;
use crate::network::{Network, Node, EV_HEAD, EV_ID, EV_WAKE, INPUT_BITS};

impl<F: Fabric> Network<F> {
    /// Runs cycle c: its events first, then every router they woke.
    pub(crate) fn process_cycle(&mut self, c: u64, delivered: &mut Vec<(u64, u64)>) {
        let mut events = std::mem::take(&mut self.events);
        let mut wakes = std::mem::take(&mut self.wakes);
        self.cal.take(c, &mut events);
        wakes.clear();
        for &ev in &events {
            let id = ev & EV_ID;
            match ev & !EV_ID {
                EV_HEAD => self.head_may_go(id, c, &mut wakes),
                EV_WAKE => self.wake(id as u32, c, &mut wakes),
                _ => self.deliver(id as u32, c, delivered),
            }
        }
        // The routers decide in the order of the events that woke them. That order does not
        // change what moves when. A router reads only its own inputs and outputs and the
        // occupancy of the VCs it alone feeds, which a downstream router's decision this
        // cycle leaves as it is (a packet leaving holds its slot until its tail is out), and
        // every move lands a cycle ahead or more; so each router decides as if it were
        // alone. What the order can change is how a refused router learns when room appears
        // behind an output: a packet that left there earlier in the cycle shows as a tail
        // time (`room_refusal`), one that leaves after the refusal as a credit wake-up
        // (`pop_head`). Both wake it at the first cycle a tail is out, so it asks again
        // at the earliest cycle it could move (this used to fail: only the first departure
        // after a refusal woke the router, and with packets of unequal lengths a shorter
        // one leaving another lane later is out sooner). Only the order of the trace, of
        // same-cycle deliveries and of packet serial numbers follows the evaluation order
        // (tests: `any_order_moves_every_packet_as_asking_every_cycle_does`).
        #[cfg(test)]
        let (reverse, exhaustive) = check::modes();
        #[cfg(test)]
        if reverse {
            wakes.reverse();
        }
        match self.vcs {
            1 => self.eval_routers::<1>(&wakes, c),
            2 => self.eval_routers::<2>(&wakes, c),
            3 => self.eval_routers::<3>(&wakes, c),
            _ => self.eval_routers::<4>(&wakes, c),
        }
        #[cfg(test)]
        if exhaustive {
            // The reference the scheduling is checked against: every blocked packet asks
            // again every cycle.
            for r in 0..self.node.len() {
                if self.node[r].parked != 0 {
                    self.cal.push(self.now, c + 1, EV_WAKE | r as u64);
                }
            }
        }
        self.events = events;
        self.wakes = wakes;
    }

    /// Router r's blocked packets may be able to go: they ask again, and those refused
    /// again say anew what they wait for (so the credit waits end here).
    fn wake(&mut self, r: u32, c: u64, wakes: &mut Vec<u32>) {
        let node = &mut self.node[r as usize];
        node.eligible |= node.parked;
        node.parked = 0;
        self.credit_waiters -= u64::from(node.credit_wait != 0);
        node.credit_wait = 0;
        to_evaluate(node, r, c, wakes);
    }

    /// The head of an input may be free to leave. A VC's head event is exact (scheduled
    /// for the cycle its head becomes free); a source queue's can be stale (a message
    /// queued in front of another), so that one is checked.
    fn head_may_go(&mut self, id: u64, c: u64, wakes: &mut Vec<u32>) {
        let (r, input) = split_input_id(id);
        debug_assert!(input == self.inj_input() || self.head_eligible(r, input, c));
        if input != self.inj_input() || self.head_eligible(r, input, c) {
            let node = &mut self.node[r as usize];
            node.eligible |= 1 << input;
            to_evaluate(node, r, c, wakes);
        }
    }

    /// Whether input `input` of r has a packet at its head free to leave at cycle c.
    pub(crate) fn head_eligible(&self, r: u32, input: usize, c: u64) -> bool {
        if input == self.inj_input() {
            let node = &self.node[r as usize];
            return node.inj_ready <= c && node.inj_free_at <= c;
        }
        let vc = self.input_vc(r, input);
        let state = self.vc[vc];
        state.len > 0 && state.free_at <= c && self.pk[state.head].ready <= c
    }

    /// Packet p's tail has left the ejection port; if it was its message's last, the
    /// message is delivered.
    fn deliver(&mut self, p: u32, c: u64, delivered: &mut Vec<(u64, u64)>) {
        let pk = self.pk[p];
        let counters = &mut self.counters;
        counters.packets_delivered += 1;
        counters.latency.record(c - pk.born);
        counters.blocked_cycles += pk.blocked;
        counters.source_queue_cycles += pk.source_wait;
        counters.delivered_hops += pk.hops as u64;
        self.pk.free(p);
        self.in_network -= 1;
        let msg = &mut self.ms[pk.msg];
        msg.undelivered -= 1;
        if msg.undelivered == 0 {
            delivered.push((msg.user, c));
            self.ms.free(pk.msg);
            self.counters.messages_delivered += 1;
        }
    }
}

/// Lists router r for evaluation at cycle c, once however many events it had.
#[inline]
fn to_evaluate<H>(node: &mut Node<H>, r: u32, c: u64, wakes: &mut Vec<u32>) {
    if node.last_eval != c {
        node.last_eval = c;
        wakes.push(r);
    }
}

#[inline]
fn split_input_id(id: u64) -> (u32, usize) {
    ((id >> INPUT_BITS) as u32, (id & ((1 << INPUT_BITS) - 1)) as usize)
}

/// Test-only switches for checking the scheduling: reverse the routers' evaluation order,
/// and wake every blocked router every cycle (the exhaustive reference).
#[cfg(test)]
pub(crate) mod check {
    use std::cell::Cell;

    thread_local! {
        static MODES: Cell<(bool, bool)> = const { Cell::new((false, false)) };
    }

    pub fn modes() -> (bool, bool) {
        MODES.with(Cell::get)
    }

    pub fn set(reverse: bool, exhaustive: bool) {
        MODES.with(|m| m.set((reverse, exhaustive)));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::check;
    use crate::synth::Rng;
    use crate::{Hop, Routing, Torus, TorusConfig, TorusStats};

    type Run = (Vec<(u64, u64)>, Vec<Hop>, TorusStats);

    /// Runs messages (src, dst, bytes, cycle) to the end; deliveries and hops in an order
    /// that does not depend on the order routers were evaluated in.
    fn run(c: &TorusConfig, msgs: &[(u32, u32, u64, u64)], reverse: bool, exhaustive: bool) -> Run {
        check::set(reverse, exhaustive);
        let mut net = Torus::new(c.clone()).unwrap();
        net.enable_path_trace();
        for (i, &(src, dst, bytes, at)) in msgs.iter().enumerate() {
            net.inject(i as u64, src, dst, bytes, at);
        }
        let mut done = Vec::new();
        while let Some(t) = net.next_activity() {
            net.advance_to(t, &mut done).unwrap_or_else(|d| panic!("{c:?}: {d}"));
        }
        check::set(false, false);
        done.sort_unstable();
        // Packet serial numbers are given in evaluation order: number packets by message
        // and position in it instead.
        let mut hops = net.take_trace();
        let mut serials: Vec<(u64, u64)> = hops.iter().map(|h| (h.msg, h.packet)).collect();
        serials.sort_unstable();
        serials.dedup();
        let mut nth = HashMap::new();
        for (i, &(msg, serial)) in serials.iter().enumerate() {
            let first = serials.partition_point(|&(m, _)| m < msg);
            nth.insert(serial, (i - first) as u64);
        }
        for h in &mut hops {
            h.packet = nth[&h.packet];
        }
        hops.sort_unstable_by_key(|h| (h.msg, h.packet, h.cycle));
        (done, hops, net.stats())
    }

    /// Every packet moves at the same cycle whether routers decide in the events' order,
    /// in the reverse order, or every blocked packet asks again every cycle: no blocked
    /// packet is forgotten for a cycle it could have moved in. Messages of many lengths
    /// (packets of unequal lengths) and small buffers make the wake-ups matter.
    #[test]
    fn any_order_moves_every_packet_as_asking_every_cycle_does() {
        let mut rng = Rng::new(7);
        let mut below = |n: u64| rng.next_u64() % n;
        for case in 0..60 {
            let dims = match below(4) {
                0 => vec![4 + below(5) as u32],
                1 => vec![2 + below(4) as u32, 2 + below(4) as u32],
                2 => vec![3, 2, 3],
                _ => vec![4, 4],
            };
            let c = TorusConfig {
                dims,
                mesh: below(6) == 0,
                vcs: 1 + below(4) as u32,
                routing: if below(2) == 0 { Routing::Dor } else { Routing::Adaptive },
                buffer_packets: 2 + below(3) as u32,
                packet_bytes: [16, 64, 100][below(3) as usize],
                link_bits_per_cycle: [8, 32, 64][below(3) as usize],
                router_delay_cycles: below(4) as u32,
                ..TorusConfig::default()
            };
            let nodes = c.nodes() as u64;
            let (count, span) = (20 + below(200), 1 + below(300));
            let msgs: Vec<_> = (0..count)
                .map(|_| {
                    let bytes = match below(4) {
                        0 => below(8),
                        1 => below(600),
                        _ => below(200),
                    };
                    (below(nodes) as u32, below(nodes) as u32, bytes, below(span))
                })
                .collect();
            let reference = run(&c, &msgs, false, true);
            assert!(run(&c, &msgs, true, true) == reference, "case {case}: the reference depends on the order");
            assert!(run(&c, &msgs, false, false) == reference, "case {case}, events' order: {c:?}");
            assert!(run(&c, &msgs, true, false) == reference, "case {case}, reverse order: {c:?}");
        }
    }
}
