//! Messages as flow arrows and the in-flight counter.
//!
//! A message's arrow starts in the call that sent it and ends in the call that completed its
//! receive. Both ends are only known when those calls close (their slices, and so a time
//! strictly inside them, are written then), and they close in either order; so each flow
//! waits in a slot until both ends are bound, and the pair of events is written at once.
//! A flow whose ends were not both written (a rank not selected, a slice outside the window,
//! a deadlock before the receive) is dropped whole: every arrow in the file has both ends.
//! (The measured run's messages are paired before anything is written, psins_formats::
//! messages: their arrows come whole, through `Timeline::arrow`, with only an id from here.)
//!
//! The counter goes up when a message is posted and down when its last byte arrives. Arrivals
//! are known ahead of their time (the model says when), so they wait in a heap and are
//! written once the replay passes them: the counter's events come in time order.

use psins_units::Ps;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Not bound yet / bound to a slice that was not written.
const OPEN: Ps = Ps::MAX;
const DROPPED: Ps = Ps::MAX - 1;
/// Slot index marker in `Flows::pending`: the receiving end.
const FINISH: u32 = 1 << 31;
/// `by_msg` entry for a message without a flow.
const NONE: u32 = u32::MAX;

#[derive(Clone, Copy)]
pub struct Flow {
    pub src: u32,
    pub dst: u32,
    pub start: Ps,
    pub finish: Ps,
}

#[derive(Default)]
pub struct Flows {
    slots: Vec<Flow>,
    free: Vec<u32>,
    /// Engine message id → slot (message ids are reused, slots outlive them).
    by_msg: Vec<u32>,
    /// Per rank: ends waiting for the rank's next call slice (slot, | FINISH for receives).
    pending: Vec<Vec<u32>>,
    /// Flow ids handed out (the file's `id`s: one per message, never reused).
    next_id: u64,
    /// Per slot, its flow id.
    ids: Vec<u64>,
    in_flight: (u64, u64),
    arrivals: BinaryHeap<Reverse<(Ps, u64)>>,
}

impl Flows {
    /// Message `msg` posted by `src` for `dst`; `flow`: both ranks are shown.
    pub fn send(&mut self, msg: u32, src: u32, dst: u32, flow: bool) {
        if self.by_msg.len() <= msg as usize {
            self.by_msg.resize(msg as usize + 1, NONE);
        }
        if !flow {
            self.by_msg[msg as usize] = NONE;
            return;
        }
        let f = Flow { src, dst, start: OPEN, finish: OPEN };
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = f;
                self.ids[s as usize] = self.next_id;
                s
            }
            None => {
                self.slots.push(f);
                self.ids.push(self.next_id);
                (self.slots.len() - 1) as u32
            }
        };
        self.next_id += 1;
        self.by_msg[msg as usize] = slot;
        self.pend(src, slot);
    }

    /// A flow id for a message whose ends the caller knows (the measured run's).
    pub fn new_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id - 1
    }

    /// Message `msg`'s receive completed on `dst`.
    pub fn received(&mut self, msg: u32, dst: u32) {
        if let Some(&slot) = self.by_msg.get(msg as usize).filter(|&&s| s != NONE) {
            self.by_msg[msg as usize] = NONE;
            self.pend(dst, slot | FINISH);
        }
    }

    fn pend(&mut self, rank: u32, v: u32) {
        if self.pending.len() <= rank as usize {
            self.pending.resize_with(rank as usize + 1, Vec::new);
        }
        self.pending[rank as usize].push(v);
    }

    /// Binds `rank`'s waiting ends to a slice of the rank at `at` (None: not written), calling
    /// `emit(id, flow)` for each flow that now has both ends written.
    pub fn bind(&mut self, rank: u32, at: Option<Ps>, mut emit: impl FnMut(u64, &Flow)) {
        let Some(p) = self.pending.get_mut(rank as usize) else { return };
        if p.is_empty() {
            return;
        }
        let at = at.unwrap_or(DROPPED);
        for v in p.drain(..) {
            let slot = (v & !FINISH) as usize;
            let f = &mut self.slots[slot];
            if v & FINISH != 0 {
                f.finish = at;
            } else {
                f.start = at;
            }
            if f.start != OPEN && f.finish != OPEN {
                if f.start != DROPPED && f.finish != DROPPED {
                    emit(self.ids[slot], f);
                }
                self.free.push(slot as u32);
            }
        }
    }

    /// A message of `bytes` posted at `now` (its arrival comes later, by [`Flows::delivered`]).
    /// `emit(time, (messages, bytes))` writes the counter: the arrivals up to `now`, then
    /// the post.
    pub fn posted(&mut self, now: Ps, bytes: u64, mut emit: impl FnMut(Ps, (u64, u64))) {
        self.drain_arrivals(now, &mut emit);
        self.in_flight.0 += 1;
        self.in_flight.1 += bytes;
        emit(now, self.in_flight);
    }

    /// A message of `bytes` has its last byte arrive at `at`, known ahead of that time: the
    /// counter goes down when the replay passes it ([`Flows::drain_arrivals`]).
    pub fn delivered(&mut self, at: Ps, bytes: u64) {
        self.arrivals.push(Reverse((at, bytes)));
    }

    /// Writes the arrivals up to `now` (all of them: `Ps::MAX`).
    pub fn drain_arrivals(&mut self, now: Ps, emit: &mut impl FnMut(Ps, (u64, u64))) {
        while let Some(&Reverse((at, bytes))) = self.arrivals.peek() {
            if at > now {
                break;
            }
            self.arrivals.pop();
            self.in_flight.0 -= 1;
            self.in_flight.1 -= bytes;
            emit(at, self.in_flight);
        }
    }
}
