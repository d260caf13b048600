//! The network model's resource-use counter (e.g. busy buses), where the model has one
//! (psins-sim's `NetworkModel::track_usage`).
//!
//! A model knows when a resource will be busy as it schedules a message, ahead of that time,
//! so its changes come as (time, +1 / −1) pairs in the future. As the in-flight counter's
//! arrivals, they wait in a heap and are written once the replay passes them, the changes
//! at one time summed into one event: the counter's events come in time order and each
//! value is the count over [its time, the next event's). A sampling model (the packet
//! models' mean over a window) hands a window's value over once it is known, behind the
//! replay's time but after every change it handed over before: the order holds.

use crate::UsageTrack;
use psins_units::Ps;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub struct Usage {
    /// The counter's track, from the model: its name, and the changes' unit (1/`per` of
    /// the value shown).
    pub track: UsageTrack,
    changes: BinaryHeap<Reverse<(Ps, i64)>>,
    value: i64,
}

impl Usage {
    pub fn new(track: UsageTrack) -> Usage {
        Usage { track, changes: BinaryHeap::new(), value: 0 }
    }

    pub fn change(&mut self, at: Ps, delta: i64) {
        self.changes.push(Reverse((at, delta)));
    }

    /// Writes the changes before `now` (all of them: `Ps::MAX`) as `emit(time, value)`, one
    /// per time. Not those at `now`: more may come at that time, and a time has one event.
    pub fn drain(&mut self, now: Ps, emit: &mut impl FnMut(Ps, u64)) {
        while let Some(&Reverse((at, _))) = self.changes.peek() {
            if at >= now {
                break;
            }
            while let Some(&Reverse((t, d))) = self.changes.peek() {
                if t != at {
                    break;
                }
                self.changes.pop();
                self.value += d;
            }
            emit(at, self.value.max(0) as u64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two intervals [0, 10) and [10, 20) on one server and [5, 10) on another: the counts
    /// 1, 2, 1 (at 10 one ends as the other begins), 0.
    #[test]
    fn changes_at_one_time_are_one_event() {
        let mut u = Usage::new(UsageTrack::count("busy"));
        for (a, b) in [(0, 10), (10, 20), (5, 10)] {
            u.change(a, 1);
            u.change(b, -1);
        }
        let mut got = Vec::new();
        u.drain(7, &mut |t, v| got.push((t, v)));
        assert_eq!(got, [(0, 1), (5, 2)]);
        u.drain(10, &mut |t, v| got.push((t, v)));
        assert_eq!(got, [(0, 1), (5, 2)], "changes at 10 may still come");
        u.drain(Ps::MAX, &mut |t, v| got.push((t, v)));
        assert_eq!(got, [(0, 1), (5, 2), (10, 1), (20, 0)]);
    }
}
