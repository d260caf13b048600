//! A node's memory as a shared resource (`[machine] memory_bandwidth`, docs/models.md, *A
//! node's memory*). Every message the engine replays between two ranks of a node is a copy
//! through the node's memory (a rank's message to itself is its sender's CPU time, `[self]`,
//! and is not one; an analytically costed collective sends none through the engine). A
//! copy moves at most at its `[intra]` band's bandwidth; copies in flight together share the
//! node's memory bandwidth max-min fairly: none gets more than its band's bandwidth, and what
//! one cannot use goes to the others. Each copy's rate changes whenever a copy on its node
//! starts or ends; the message is delivered its band's latency after its last byte. Alone, a
//! copy whose band is no faster than the node takes exactly `latency + bytes / bandwidth`.
//!
//! Only nodes with copies in flight have state, so a million-node machine costs nothing until
//! its messages stay on a node.

use crate::model::MsgId;
use crate::units::Ps;
use std::collections::HashMap;

/// One copy in flight.
#[derive(Clone, Copy, Debug)]
struct Copy {
    id: MsgId,
    /// Bytes still to move.
    left: f64,
    /// Its band's bandwidth, bytes per picosecond: the most it may move at.
    cap: f64,
    /// Bytes per picosecond it moves at now.
    rate: f64,
    /// Its band's latency, added after its last byte.
    latency: Ps,
}

#[derive(Default, Debug)]
struct Node {
    copies: Vec<Copy>,
    /// When `left` was last brought up to date.
    last: Ps,
    /// The time of the node's pending event (the first copy to end); stale events, pushed
    /// before a later start changed the rates, carry another time and are ignored.
    next: Ps,
}

/// The copies in flight on every node.
#[derive(Debug)]
pub(super) struct Memory {
    /// Bytes per picosecond a node's copies share.
    capacity: f64,
    nodes: HashMap<u32, Node>,
    /// Scratch for the fair share (indices ordered by cap).
    order: Vec<usize>,
}

/// A copy whose remaining bytes need less than this many picoseconds is over.
const DONE_PS: f64 = 0.5;

impl Memory {
    /// `bytes_per_s`: `[machine] memory_bandwidth`.
    pub fn new(bytes_per_s: f64) -> Memory {
        Memory { capacity: bytes_per_s / 1e12, nodes: HashMap::new(), order: Vec::new() }
    }

    /// Copy `id` of `bytes` starts on `node` at `now`, at most at `transfer` picoseconds for
    /// its bytes (its band's bandwidth), delivered `latency` after its last byte. Returns the
    /// time of the node's next event, for the caller to queue ([`Memory::on_event`]).
    pub fn start(&mut self, node: u32, id: MsgId, bytes: u64, transfer: Ps, latency: Ps, now: Ps) -> Ps {
        let cap = if transfer == 0 { f64::INFINITY } else { bytes as f64 / transfer as f64 };
        let n = self.nodes.entry(node).or_default();
        advance(n, now);
        n.copies.push(Copy { id, left: bytes as f64, cap, rate: 0.0, latency });
        share(n, self.capacity, &mut self.order);
        n.next = next_end(n);
        n.next
    }

    /// The node's event at `at`: the copies whose last byte is out by then end, each
    /// delivered at `at` + its latency (pushed to `delivered`). Returns the next event's time,
    /// if copies remain; nothing for a stale event.
    pub fn on_event(&mut self, node: u32, at: Ps, delivered: &mut Vec<(MsgId, Ps)>) -> Option<Ps> {
        let n = self.nodes.get_mut(&node)?;
        if n.next != at {
            return None;
        }
        advance(n, at);
        n.copies.retain(|c| {
            let over = c.left <= c.rate * DONE_PS || c.cap.is_infinite();
            if over {
                delivered.push((c.id, at.saturating_add(c.latency)));
            }
            !over
        });
        if n.copies.is_empty() {
            self.nodes.remove(&node);
            return None;
        }
        share(n, self.capacity, &mut self.order);
        n.next = next_end(n);
        Some(n.next)
    }
}

/// Moves every copy of `n` on to `now` at its current rate.
fn advance(n: &mut Node, now: Ps) {
    let dt = now.saturating_sub(n.last) as f64;
    if dt > 0.0 {
        for c in &mut n.copies {
            c.left = (c.left - c.rate * dt).max(0.0);
        }
    }
    n.last = now;
}

/// Max-min fair rates: in order of cap, each copy takes its cap or an equal part of what is
/// left, whichever is smaller.
fn share(n: &mut Node, capacity: f64, order: &mut Vec<usize>) {
    order.clear();
    order.extend(0..n.copies.len());
    order.sort_by(|&a, &b| n.copies[a].cap.total_cmp(&n.copies[b].cap));
    let (mut left, mut count) = (capacity, n.copies.len() as f64);
    for &i in order.iter() {
        let c = &mut n.copies[i];
        c.rate = c.cap.min(left / count);
        left -= c.rate;
        count -= 1.0;
    }
}

/// When the first copy of `n` ends at the current rates.
fn next_end(n: &Node) -> Ps {
    let soonest = n
        .copies
        .iter()
        .map(|c| if c.cap.is_infinite() || c.left <= 0.0 { 0.0 } else { c.left / c.rate })
        .fold(f64::INFINITY, f64::min);
    // A float past u64 saturates in the cast; the engine's queue refuses times past its
    // limit with the overflow error, so the sum only has to not wrap.
    n.last.saturating_add((soonest + 0.5) as Ps)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the node's events to the end; returns each copy's delivery.
    fn drain(m: &mut Memory, node: u32, mut next: Ps) -> Vec<(MsgId, Ps)> {
        let mut out = Vec::new();
        while let Some(t) = m.on_event(node, next, &mut out) {
            next = t;
        }
        out
    }

    #[test]
    fn a_copy_alone_takes_its_band_time() {
        let mut m = Memory::new(10e9);
        // 1 MB at 5 GB/s: 200 µs, plus 1 µs of latency.
        let next = m.start(0, 7, 1_000_000, 200_000_000, 1_000_000, 0);
        assert_eq!(drain(&mut m, 0, next), vec![(7, 201_000_000)]);
    }

    /// Two opposite copies of 1 MB, capped at 8 GB/s each, on a node of 10 GB/s: each moves
    /// at 5 GB/s, 200 µs; alone one would take 125 µs.
    #[test]
    fn two_copies_share_the_node() {
        let mut m = Memory::new(10e9);
        m.start(0, 1, 1_000_000, 125_000_000, 0, 0);
        let next = m.start(0, 2, 1_000_000, 125_000_000, 0, 0);
        let mut d = drain(&mut m, 0, next);
        d.sort();
        assert_eq!(d, vec![(1, 200_000_000), (2, 200_000_000)]);
    }

    /// A copy that starts while another is half done: the first moves 0.5 MB alone at 8 GB/s
    /// (62.5 µs), then both at 5 GB/s; the first's last 0.5 MB take 100 µs (it ends at
    /// 162.5 µs), the second then has 0.5 MB left, alone again at 8 GB/s: 62.5 µs more.
    #[test]
    fn rates_change_when_copies_start_and_end() {
        let mut m = Memory::new(10e9);
        m.start(0, 1, 1_000_000, 125_000_000, 0, 0);
        let next = m.start(0, 2, 1_000_000, 125_000_000, 0, 62_500_000);
        assert_eq!(next, 162_500_000);
        let d = drain(&mut m, 0, next);
        assert_eq!(d, vec![(1, 162_500_000), (2, 225_000_000)]);
    }

    /// What a capped copy cannot use goes to the others: 2 GB/s and 8 GB/s copies on 8 GB/s.
    #[test]
    fn a_slow_copy_leaves_the_rest_to_the_others() {
        let mut m = Memory::new(8e9);
        m.start(0, 1, 200_000, 100_000_000, 0, 0); // 2 GB/s
        let next = m.start(0, 2, 600_000, 75_000_000, 0, 0); // 8 GB/s alone
                                                             // Rates 2 and 6 GB/s: both end at 100 µs.
        let mut d = drain(&mut m, 0, next);
        d.sort();
        assert_eq!(d, vec![(1, 100_000_000), (2, 100_000_000)]);
    }

    #[test]
    fn a_stale_event_is_ignored() {
        let mut m = Memory::new(10e9);
        let first = m.start(0, 1, 1_000_000, 125_000_000, 0, 0);
        let second = m.start(0, 2, 1_000_000, 125_000_000, 0, 0);
        let mut out = Vec::new();
        assert_ne!(first, second);
        assert_eq!(m.on_event(0, first, &mut out), None);
        assert!(out.is_empty());
        assert_eq!(m.nodes[&0].copies.len(), 2);
    }
}
