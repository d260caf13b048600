//! A node's memory as a shared resource (`[machine] memory_bandwidth`, or an `[[intra.band]]`'s
//! own, docs/models.md, *A node's memory*). Every message the engine replays between two
//! ranks of a node is a copy through the node's memory (a rank's message to itself is its
//! sender's CPU time, `[self]`, and is not one; an analytically costed collective sends none
//! through the engine). A copy moves at most at its `[intra]` band's bandwidth; copies in
//! flight together share the node's memory max-min fairly: none gets more than its band's
//! bandwidth, and what one cannot use goes to the others. What they share is the memory's
//! time: a copy whose size's node bandwidth is C moving at r takes r/C of it (so copies of
//! one band share C). Each copy's rate changes whenever a copy on its node starts or ends;
//! the message is delivered its band's latency after its last byte. Alone, a copy whose band
//! is no faster than the node takes exactly `latency + bytes / bandwidth`.
//!
//! A band with `serial_receive` is copied out by its receiving rank one message at a time:
//! such a copy waits, without taking any of the memory, until the receiver's copy of that kind
//! before it has ended (first started, first copied), as one thread copying its incoming
//! messages in turn does.
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
    /// The node's copy bandwidth for its size, bytes per picosecond (infinite: it shares
    /// nothing).
    node: f64,
    /// Its band's latency, added after its last byte.
    latency: Ps,
    /// The receiving rank, when its band's copies are made one at a time by it.
    serial_to: Option<u32>,
}

#[derive(Default, Debug)]
struct Node {
    copies: Vec<Copy>,
    /// Copies waiting for their receiver to end the one it is making, in the order they came.
    waiting: Vec<Copy>,
    /// When `left` was last brought up to date.
    last: Ps,
    /// The time of the node's pending event (the first copy to end); stale events, pushed
    /// before a later start changed the rates, carry another time and are ignored.
    next: Ps,
}

/// The copies in flight on every node.
#[derive(Debug)]
pub(super) struct Memory {
    /// The node's copy bandwidth, bytes per picosecond, for copies whose band sets none
    /// (infinite: they share nothing).
    capacity: f64,
    nodes: HashMap<u32, Node>,
    /// Scratch for the fair share (indices ordered by cap).
    order: Vec<usize>,
    /// Scratch: the receivers whose serial copy has just ended.
    freed: Vec<u32>,
}

/// A copy whose remaining bytes need less than this many picoseconds is over.
const DONE_PS: f64 = 0.5;

impl Memory {
    /// `bytes_per_s`: `[machine] memory_bandwidth` (none: only the copies whose band sets its
    /// own share the node).
    pub fn new(bytes_per_s: Option<f64>) -> Memory {
        Memory {
            capacity: bytes_per_s.map_or(f64::INFINITY, |b| b / 1e12),
            nodes: HashMap::new(),
            order: Vec::new(),
            freed: Vec::new(),
        }
    }

    /// Copy `id` of `bytes` starts on `node` at `now`, at most at `transfer` picoseconds for
    /// its bytes (its band's bandwidth), delivered `latency` after its last byte; `band_memory`
    /// is its band's node copy bandwidth in bytes per second, if it sets one; `serial_to` its
    /// receiving rank if its band's copies are made one at a time. Returns the time of the
    /// node's next event, for the caller to queue ([`Memory::on_event`]); none when the copy
    /// waits for its receiver (the node's next event stays).
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        &mut self,
        node: u32,
        id: MsgId,
        bytes: u64,
        (transfer, latency): (Ps, Ps),
        band_memory: Option<f64>,
        serial_to: Option<u32>,
        now: Ps,
    ) -> Option<Ps> {
        let cap = if transfer == 0 { f64::INFINITY } else { bytes as f64 / transfer as f64 };
        let shared = band_memory.map_or(self.capacity, |b| b / 1e12);
        let n = self.nodes.entry(node).or_default();
        let copy = Copy { id, left: bytes as f64, cap, rate: 0.0, node: shared, latency, serial_to };
        if serial_to.is_some() && n.copies.iter().any(|c| c.serial_to == serial_to) {
            n.waiting.push(copy);
            return None;
        }
        advance(n, now);
        n.copies.push(copy);
        share(n, &mut self.order);
        n.next = next_end(n);
        Some(n.next)
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
        let freed = &mut self.freed;
        n.copies.retain(|c| {
            let over = c.left <= c.rate * DONE_PS || c.cap.is_infinite();
            if over {
                delivered.push((c.id, at.saturating_add(c.latency)));
                freed.extend(c.serial_to);
            }
            !over
        });
        // Each receiver freed starts the first copy waiting for it.
        for d in freed.drain(..) {
            if let Some(i) = n.waiting.iter().position(|c| c.serial_to == Some(d)) {
                let c = n.waiting.remove(i);
                n.copies.push(c);
            }
        }
        if n.copies.is_empty() {
            self.nodes.remove(&node);
            return None;
        }
        share(n, &mut self.order);
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

/// Max-min fair shares of the node's memory time: a copy moving at r with node bandwidth C
/// takes r/C of it. In order of the share each needs at its cap, each copy takes that or an
/// equal part of what is left, whichever is smaller. With one C for every copy these are
/// max-min fair rates out of C.
fn share(n: &mut Node, order: &mut Vec<usize>) {
    let need = |c: &Copy| if c.node.is_infinite() { 0.0 } else { c.cap / c.node };
    order.clear();
    order.extend(0..n.copies.len());
    order.sort_by(|&a, &b| need(&n.copies[a]).total_cmp(&need(&n.copies[b])));
    let (mut left, mut count) = (1.0f64, n.copies.len() as f64);
    for &i in order.iter() {
        let c = &mut n.copies[i];
        let fair = left / count;
        let (rate, used) = if need(c) <= fair { (c.cap, need(c)) } else { (fair * c.node, fair) };
        c.rate = rate;
        left -= used;
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

    /// Two copies of 1 MB into rank 1, whose band's copies it makes one at a time, at 5 GB/s
    /// (200 µs each) with 1 µs of latency, on a node that does not limit them: the first is
    /// delivered at 201 µs, the second starts when the first's last byte is out (200 µs) and
    /// is delivered at 401 µs; a copy into rank 2 started with them runs beside them.
    #[test]
    fn a_receiver_copies_its_serial_messages_one_at_a_time() {
        let mut m = Memory::new(None);
        let band = (200_000_000, 1_000_000);
        assert!(m.start(0, 1, 1_000_000, band, None, Some(1), 0).is_some());
        assert_eq!(m.start(0, 2, 1_000_000, band, None, Some(1), 0), None, "waits for the first");
        let next = m.start(0, 3, 1_000_000, band, None, Some(2), 0).unwrap();
        let mut d = drain(&mut m, 0, next);
        d.sort();
        assert_eq!(d, vec![(1, 201_000_000), (2, 401_000_000), (3, 201_000_000)]);
        // Not serial: side by side.
        let mut m = Memory::new(None);
        m.start(0, 1, 1_000_000, band, None, None, 0).unwrap();
        let next = m.start(0, 2, 1_000_000, band, None, None, 0).unwrap();
        assert_eq!(drain(&mut m, 0, next), vec![(1, 201_000_000), (2, 201_000_000)]);
    }

    #[test]
    fn a_copy_alone_takes_its_band_time() {
        let mut m = Memory::new(Some(10e9));
        // 1 MB at 5 GB/s: 200 µs, plus 1 µs of latency.
        let next = m.start(0, 7, 1_000_000, (200_000_000, 1_000_000), None, None, 0).unwrap();
        assert_eq!(drain(&mut m, 0, next), vec![(7, 201_000_000)]);
    }

    /// Two opposite copies of 1 MB, capped at 8 GB/s each, on a node of 10 GB/s: each moves
    /// at 5 GB/s, 200 µs; alone one would take 125 µs.
    #[test]
    fn two_copies_share_the_node() {
        let mut m = Memory::new(Some(10e9));
        m.start(0, 1, 1_000_000, (125_000_000, 0), None, None, 0).unwrap();
        let next = m.start(0, 2, 1_000_000, (125_000_000, 0), None, None, 0).unwrap();
        let mut d = drain(&mut m, 0, next);
        d.sort();
        assert_eq!(d, vec![(1, 200_000_000), (2, 200_000_000)]);
    }

    /// A copy that starts while another is half done: the first moves 0.5 MB alone at 8 GB/s
    /// (62.5 µs), then both at 5 GB/s; the first's last 0.5 MB take 100 µs (it ends at
    /// 162.5 µs), the second then has 0.5 MB left, alone again at 8 GB/s: 62.5 µs more.
    #[test]
    fn rates_change_when_copies_start_and_end() {
        let mut m = Memory::new(Some(10e9));
        m.start(0, 1, 1_000_000, (125_000_000, 0), None, None, 0).unwrap();
        let next = m.start(0, 2, 1_000_000, (125_000_000, 0), None, None, 62_500_000).unwrap();
        assert_eq!(next, 162_500_000);
        let d = drain(&mut m, 0, next);
        assert_eq!(d, vec![(1, 162_500_000), (2, 225_000_000)]);
    }

    /// What a capped copy cannot use goes to the others: 2 GB/s and 8 GB/s copies on 8 GB/s.
    #[test]
    fn a_slow_copy_leaves_the_rest_to_the_others() {
        let mut m = Memory::new(Some(8e9));
        m.start(0, 1, 200_000, (100_000_000, 0), None, None, 0).unwrap(); // 2 GB/s
        let next = m.start(0, 2, 600_000, (75_000_000, 0), None, None, 0).unwrap(); // 8 GB/s alone
                                                                                    // Rates 2 and 6 GB/s: both end at 100 µs.
        let mut d = drain(&mut m, 0, next);
        d.sort();
        assert_eq!(d, vec![(1, 100_000_000), (2, 100_000_000)]);
    }

    /// Copies of two bands with node bandwidths of their own share the memory's time: a
    /// 1 MB copy of a band at 10 GB/s and one of a band at 5 GB/s, each capped at 8 GB/s,
    /// take half of it each, 5 and 2.5 GB/s: the first ends at 200 µs, and the second, with
    /// 0.5 MB left, then moves alone at min(8, 5) GB/s: 100 µs more.
    #[test]
    fn copies_of_bands_with_their_own_bandwidth_share_the_memorys_time() {
        let mut m = Memory::new(None);
        m.start(0, 1, 1_000_000, (125_000_000, 0), Some(10e9), None, 0).unwrap();
        let next = m.start(0, 2, 1_000_000, (125_000_000, 0), Some(5e9), None, 0).unwrap();
        assert_eq!(drain(&mut m, 0, next), vec![(1, 200_000_000), (2, 300_000_000)]);
        // A copy of a band that sets none, with no machine-wide figure, shares nothing.
        let mut m = Memory::new(None);
        m.start(0, 1, 1_000_000, (125_000_000, 0), None, None, 0).unwrap();
        let next = m.start(0, 2, 1_000_000, (125_000_000, 0), Some(10e9), None, 0).unwrap();
        let mut d = drain(&mut m, 0, next);
        d.sort();
        assert_eq!(d, vec![(1, 125_000_000), (2, 125_000_000)]);
    }

    #[test]
    fn a_stale_event_is_ignored() {
        let mut m = Memory::new(Some(10e9));
        let first = m.start(0, 1, 1_000_000, (125_000_000, 0), None, None, 0).unwrap();
        let second = m.start(0, 2, 1_000_000, (125_000_000, 0), None, None, 0).unwrap();
        let mut out = Vec::new();
        assert_ne!(first, second);
        assert_eq!(m.on_event(0, first, &mut out), None);
        assert!(out.is_empty());
        assert_eq!(m.nodes[&0].copies.len(), 2);
    }
}
