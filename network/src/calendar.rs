//! A timing wheel of events keyed by cycle, with a heap for events beyond its horizon.
//!
//! Almost every event the network schedules lies a packet's link time or a router delay
//! ahead, so a small wheel of per-cycle buckets holds them with O(1) insertion and no
//! per-event allocation; the rare far-future event (an injection announced early) waits
//! in the heap and joins its cycle when that cycle is processed.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub struct Calendar {
    buckets: Vec<Vec<u64>>,
    mask: u64,
    /// Events in `buckets` (not counting the heap).
    in_wheel: usize,
    far: BinaryHeap<Reverse<(u64, u64)>>,
}

impl Calendar {
    /// A wheel covering at least `horizon` cycles ahead.
    pub fn new(horizon: u64) -> Calendar {
        let size = horizon.clamp(64, 1 << 16).next_power_of_two();
        Calendar {
            buckets: (0..size).map(|_| Vec::new()).collect(),
            mask: size - 1,
            in_wheel: 0,
            far: BinaryHeap::new(),
        }
    }

    /// Schedules `ev` at cycle `at`; `now` is the earliest cycle not yet processed and
    /// `at ≥ now`.
    #[inline]
    pub fn push(&mut self, now: u64, at: u64, ev: u64) {
        debug_assert!(at >= now);
        if at - now <= self.mask {
            self.buckets[(at & self.mask) as usize].push(ev);
            self.in_wheel += 1;
        } else {
            self.far.push(Reverse((at, ev)));
        }
    }

    /// The earliest cycle ≥ `now` holding an event.
    pub fn next_time(&self, now: u64) -> Option<u64> {
        let far = self.far.peek().map(|Reverse((t, _))| *t);
        if self.in_wheel == 0 {
            return far;
        }
        let mut wheel = None;
        for t in now..=now + self.mask {
            if !self.buckets[(t & self.mask) as usize].is_empty() {
                wheel = Some(t);
                break;
            }
        }
        match (wheel, far) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Moves cycle `at`'s events into `out` (emptied first); the two vectors trade places,
    /// so both keep their capacity.
    pub fn take(&mut self, at: u64, out: &mut Vec<u64>) {
        out.clear();
        let bucket = &mut self.buckets[(at & self.mask) as usize];
        self.in_wheel -= bucket.len();
        std::mem::swap(bucket, out);
        while let Some(&Reverse((t, ev))) = self.far.peek() {
            if t > at {
                break;
            }
            out.push(ev);
            self.far.pop();
        }
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.in_wheel == 0 && self.far.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_and_far_events_come_out_at_their_cycle() {
        let mut c = Calendar::new(8);
        c.push(0, 5, 1);
        c.push(0, 1000, 2);
        assert_eq!(c.next_time(0), Some(5));
        let mut out = Vec::new();
        c.take(5, &mut out);
        assert_eq!(out, vec![1]);
        assert_eq!(c.next_time(6), Some(1000));
        c.take(1000, &mut out);
        assert_eq!(out, vec![2]);
        assert!(c.is_empty());
    }
}
