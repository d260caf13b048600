//! The event queue, ordered by (time, sequence number). The sequence number breaks ties in
//! insertion order, which is what makes replays bit-for-bit repeatable.
//!
//! It is a radix heap: simulated time never goes backwards, so an event can be filed by the
//! highest bit in which its time differs from the last time popped, and only the lowest
//! non-empty bucket is ever re-sorted. Pushes are O(1), pops amortised O(log of the time
//! span) — cheaper than a binary heap, whose operations were the engine's largest cost.
//! Events due exactly at the last popped time wait in a FIFO, sorted by sequence number when
//! they are moved there, so ties pop in insertion order.

use crate::units::Ps;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    /// Execute task's current record (its CPU burst is over).
    Exec(u32),
    /// A blocked task's awaited requests are complete.
    Resume(u32),
    /// A rendezvous message's data starts moving.
    Inject(u32),
    /// A network model's own event.
    Model(u32),
    /// A phase of one of the task's nonblocking collectives may be over (nbc.rs).
    Schedule(u32),
    /// The first of a node's copies in flight may be over (memory.rs).
    Memory(u32),
}

#[derive(Clone, Copy)]
struct Entry {
    at: Ps,
    seq: u64,
    ev: Ev,
}

pub struct Queue {
    /// Bucket 0 is `now`; bucket i > 0 holds times whose highest bit differing from `last`
    /// is bit i − 1.
    now: VecDeque<Entry>,
    buckets: Vec<Vec<Entry>>,
    /// Smallest time in each bucket (valid while the bucket is non-empty).
    bucket_min: [Ps; 65],
    /// Bit b set: bucket b (≥ 1) is non-empty.
    mask: u128,
    last: Ps,
    seq: u64,
    pub pushed: u64,
    /// An event was filed past [`MAX_TIME`] or before the last time popped (a time sum that
    /// wrapped around): the engine turns it into an error naming the record.
    pub overflowed: bool,
}

/// The latest time a replay may reach: 2^63 ps, about 106 days. Any time sum of values below it
/// fits in a u64, so a sum past it, or one that wrapped (and so lies before `last`), shows
/// that some duration overflowed; one compare per push finds both.
pub const MAX_TIME: Ps = 1 << 63;

/// The most events [`Queue::peek_next`] scans in a bucket.
const PEEK_SCAN: usize = 16;

impl Default for Queue {
    fn default() -> Self {
        Queue {
            now: VecDeque::new(),
            buckets: (0..65).map(|_| Vec::new()).collect(),
            bucket_min: [Ps::MAX; 65],
            mask: 0,
            last: 0,
            seq: 0,
            pushed: 0,
            overflowed: false,
        }
    }
}

#[inline]
fn bucket(last: Ps, at: Ps) -> usize {
    (64 - (at ^ last).leading_zeros()) as usize
}

impl Queue {
    /// Files `ev` at time `at` (never before the last time popped). Out of line: one copy
    /// for the engine's many callers on the replay's path, not one inlined into each (less
    /// code per record).
    #[inline(never)]
    pub fn push(&mut self, at: Ps, ev: Ev) {
        // One wrapping subtraction covers both at < last and at > MAX_TIME (as last ≤ MAX_TIME).
        if at.wrapping_sub(self.last) > MAX_TIME - self.last {
            self.overflowed = true;
        }
        let at = at.max(self.last);
        self.seq += 1;
        self.pushed += 1;
        self.file(Entry { at, seq: self.seq, ev });
    }

    #[inline]
    fn file(&mut self, e: Entry) {
        match bucket(self.last, e.at) {
            0 => self.now.push_back(e),
            b => {
                if self.mask & (1 << b) == 0 {
                    self.mask |= 1 << b;
                    self.bucket_min[b] = e.at;
                } else {
                    self.bucket_min[b] = self.bucket_min[b].min(e.at);
                }
                self.buckets[b].push(e);
            }
        }
    }

    /// Lowest non-empty bucket above 0.
    #[inline]
    fn lowest(&self) -> Option<usize> {
        (self.mask != 0).then(|| self.mask.trailing_zeros() as usize)
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(Ps, Ev)> {
        if self.now.is_empty() && !self.refill() {
            return None;
        }
        let e = self.now.pop_front().expect("refilled");
        Some((e.at, e.ev))
    }

    /// Moves the lowest non-empty bucket down, so that `now` holds the earliest events.
    #[cold]
    fn refill(&mut self) -> bool {
        let Some(b) = self.lowest() else { return false };
        let items = std::mem::take(&mut self.buckets[b]);
        self.mask &= !(1 << b);
        self.last = self.bucket_min[b];
        for e in &items {
            self.file(*e);
        }
        // Give the emptied vector back so its capacity is reused.
        let mut items = items;
        items.clear();
        if self.buckets[b].is_empty() {
            self.buckets[b] = items;
        }
        self.now.make_contiguous().sort_unstable_by_key(|e| e.seq);
        true
    }

    /// The event `pop` will return next unless an earlier one is pushed first: the front of
    /// `now`, else the earliest of the lowest bucket when that holds at most [`PEEK_SCAN`]
    /// events (`None` past that). The engine prefetches its task's state with it: a trace's
    /// ranks rarely share a time, so `now` is mostly empty between pops.
    #[inline]
    pub fn peek_next(&self) -> Option<Ev> {
        if let Some(e) = self.now.front() {
            return Some(e.ev);
        }
        let items = &self.buckets[self.lowest()?];
        if items.len() > PEEK_SCAN {
            return None;
        }
        items.iter().min_by_key(|e| (e.at, e.seq)).map(|e| e.ev)
    }

    /// Time of the earliest queued event (`Ps::MAX` when empty).
    #[inline]
    pub fn min_time(&self) -> Ps {
        if !self.now.is_empty() {
            self.last
        } else {
            self.lowest().map_or(Ps::MAX, |b| self.bucket_min[b])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = Queue::default();
        q.push(5, Ev::Exec(1));
        q.push(3, Ev::Model(u32::MAX));
        q.push(5, Ev::Resume(0));
        q.push(3, Ev::Inject(7));
        assert_eq!(q.min_time(), 3);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(3, Ev::Model(u32::MAX)), (3, Ev::Inject(7)), (5, Ev::Exec(1)), (5, Ev::Resume(0))]);
    }

    proptest::proptest! {
        /// Against a sorted list: same order for any interleaving of pushes and pops that
        /// never schedules into the past.
        #[test]
        fn matches_a_sorted_reference(ops in proptest::collection::vec((0u64..1000, proptest::bool::ANY), 1..300)) {
            let mut q = Queue::default();
            let mut reference: Vec<(Ps, u64)> = Vec::new();
            let (mut now, mut id) = (0, 0u32);
            for (delta, pop) in ops {
                if pop {
                    reference.sort();
                    let want = if reference.is_empty() { None } else { Some(reference.remove(0)) };
                    let got = q.pop();
                    proptest::prop_assert_eq!(got.map(|(t, e)| (t, match e { Ev::Exec(i) => i as u64, _ => u64::MAX })), want);
                    if let Some((t, _)) = got { now = t; }
                } else {
                    q.push(now + delta, Ev::Exec(id));
                    reference.push((now + delta, id as u64));
                    id += 1;
                }
                let want_min = reference.iter().map(|r| r.0).min().unwrap_or(Ps::MAX);
                proptest::prop_assert_eq!(q.min_time(), want_min);
                // What peek_next names is what the next pop returns.
                if let Some(Ev::Exec(i)) = q.peek_next() {
                    let first = reference.iter().min().map(|r| r.1);
                    proptest::prop_assert_eq!(Some(i as u64), first);
                }
            }
        }
    }
}
