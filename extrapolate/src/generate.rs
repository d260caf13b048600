//! A rank's records at any rank count, from the template and the values of its slots.

use crate::shape;
use crate::template::{SlotId, Template};
use crate::topo::Grid;
use psins_formats::{Op, Record, ANY_SOURCE, ANY_TAG, NO_RANK, PROC_NULL};

/// The sizes and times of each slot.
pub trait Values {
    /// Slot `id`'s sizes at rank `me` of `g`.
    fn params(&self, t: &Template, id: SlotId, g: &Grid, me: u32) -> [u64; shape::MAX_PARAMS];
    /// A collective's sizes at its root, where they differ from the other ranks'.
    fn root_params(&self, t: &Template, id: SlotId) -> Option<[u64; shape::MAX_PARAMS]>;
    /// Rank `me`'s burst before slot `id`, at iteration `k` of the loop the slot is in (0
    /// outside loops).
    fn gap(&self, t: &Template, id: SlotId, me: u32, k: u32) -> u64;
    fn dur(&self, t: &Template, id: SlotId) -> u64;
    /// Requests a wait passes beyond those it completes.
    fn extra(&self, t: &Template, id: SlotId) -> u64;
    /// The iterations of the loop whose first call is slot `id`.
    fn trips(&self, t: &Template, id: SlotId) -> u32;
}

/// The values one trace of the series had (the most common over its ranks): what the
/// template regenerates that trace with when it is checked.
pub struct Observed(pub usize);

impl Values for Observed {
    fn params(&self, t: &Template, id: SlotId, _: &Grid, _: u32) -> [u64; shape::MAX_PARAMS] {
        let s = &t.slots[id].seen[self.0];
        std::array::from_fn(|k| crate::template::Seen::mode(&s.values[k]).0)
    }
    fn root_params(&self, t: &Template, id: SlotId) -> Option<[u64; shape::MAX_PARAMS]> {
        let s = &t.slots[id].seen[self.0];
        (!s.root_values[0].is_empty())
            .then(|| std::array::from_fn(|k| crate::template::Seen::mode(&s.root_values[k]).0))
    }
    fn gap(&self, _: &Template, _: SlotId, _: u32, _: u32) -> u64 {
        0
    }
    fn dur(&self, _: &Template, _: SlotId) -> u64 {
        0
    }
    fn extra(&self, t: &Template, id: SlotId) -> u64 {
        crate::template::Seen::mode(&t.slots[id].seen[self.0].extra).0
    }
    fn trips(&self, t: &Template, id: SlotId) -> u32 {
        crate::template::Seen::mode(&t.slots[id].seen[self.0].trips).0 as u32
    }
}

/// Rank `me`'s program on `g` (no expansion steps), appended to `out`, with each record's
/// slot appended to `ids` when given.
pub fn program(
    t: &Template,
    g: &Grid,
    me: u32,
    v: &impl Values,
    out: &mut Vec<Record>,
    mut ids: Option<&mut Vec<SlotId>>,
) {
    let mut c = Cursor::default();
    let mut rec = Record::default();
    while let Some(id) = c.next(t, g, me, v, &mut rec) {
        out.push(rec.clone());
        if let Some(ids) = ids.as_deref_mut() {
            ids.push(id);
        }
    }
}

/// Whether slot `id` receives from MPI_ANY_SOURCE.
fn wildcard(t: &Template, id: u32) -> bool {
    matches!(t.slots[id as usize].shape, Op::Irecv { .. })
        && t.slots[id as usize].forms[0] == crate::template::Form::Fixed(ANY_SOURCE)
}

/// How a wait reports request `req` of slot `c` complete: a receive with its source (a rank
/// of its communicator), tag and size as generated; a send or a collective with none.
#[allow(clippy::too_many_arguments)]
fn completion(t: &Template, g: &Grid, me: u32, v: &impl Values, c: SlotId, req: u32, peer: i32, tag: i32) -> [i64; 4] {
    match (t.slots[c].shape, peer) {
        (Op::Irecv { .. }, PROC_NULL) => [req as i64, PROC_NULL as i64, ANY_TAG as i64, 0],
        (Op::Irecv { comm, .. }, peer) => {
            let peer = match crate::comms::class(comm) {
                Some(mask) if peer >= 0 => crate::comms::rank_in(g, mask, peer as u32) as i32,
                _ => peer,
            };
            [req as i64, peer as i64, tag as i64, v.params(t, c, g, me)[0] as i64]
        }
        _ => [req as i64, NO_RANK as i64, 0, 0],
    }
}

/// Where one rank is in its program: what a replay streaming the program keeps per rank
/// (a position, a pending burst, the requests in flight).
#[derive(Clone, Debug, Default)]
pub struct Cursor {
    /// The next slot's position in the template's order.
    pos: u32,
    instance: u32,
    /// The bursts of the slots skipped since the last call.
    pending: u64,
    /// The requests in flight: the slot that started each, its id, and a receive's peer and tag.
    live: Vec<(u32, u32, i32, i32)>,
    /// The loop being run: its first and past-the-end positions in the template's order
    /// (`end` 0: none), its iteration and trip count.
    start: u32,
    end: u32,
    k: u32,
    trips: u32,
    /// Request ids in use, bit k for id k + 1; past 64, the ids freed (a min-heap) below
    /// `next_high`, the first never used.
    used: u64,
    freed_high: std::collections::BinaryHeap<std::cmp::Reverse<u32>>,
    next_high: u32,
    pub done: bool,
}

impl Cursor {
    fn take_id(&mut self) -> u32 {
        if self.used != u64::MAX {
            let k = (!self.used).trailing_zeros();
            self.used |= 1 << k;
            return k + 1;
        }
        if let Some(std::cmp::Reverse(id)) = self.freed_high.pop() {
            return id;
        }
        self.next_high = self.next_high.max(65);
        self.next_high += 1;
        self.next_high - 1
    }

    fn free_id(&mut self, id: u32) {
        if (1..=64).contains(&id) {
            self.used &= !(1u64 << (id - 1));
        } else {
            self.freed_high.push(std::cmp::Reverse(id));
        }
    }

    /// The rank's next record into `rec`, and its slot; `None` at the end of the program. A
    /// slot's gap is the computation since the slot before it in the template: a rank that
    /// skips slots computes their gaps before its next call.
    pub fn next(&mut self, t: &Template, g: &Grid, me: u32, v: &impl Values, rec: &mut Record) -> Option<SlotId> {
        while (self.pos as usize) < t.order.len() {
            let here = self.pos;
            let id = t.order[here as usize];
            if let Some((len, 0)) = t.slots[id].lp {
                if self.end == 0 {
                    (self.start, self.end, self.k, self.trips) = (here, here + len as u32, 0, v.trips(t, id));
                    if self.trips == 0 {
                        self.pos = self.end;
                        self.end = 0;
                        continue;
                    }
                }
            }
            let k = self.k;
            self.pos += 1;
            if self.end != 0 && self.pos == self.end {
                if self.k + 1 < self.trips {
                    self.k += 1;
                    self.pos = self.start;
                } else {
                    self.end = 0;
                }
            }
            if !t.exists(id, g, me) {
                if t.carries_gap(id, g, me) {
                    self.pending += v.gap(t, id, me, k);
                }
                continue;
            }
            let slot = &t.slots[id];
            let mut op = slot.shape;
            let mut peers = [0i32; shape::MAX_PEERS];
            let mut missing = false;
            for (form, p) in slot.forms.iter().zip(peers.iter_mut()).take(slot.npeers) {
                match form.resolve_at(g, me, k, self.trips) {
                    Some(x) => *p = x,
                    None => missing = true,
                }
            }
            if missing {
                self.pending += v.gap(t, id, me, k);
                continue;
            }
            shape::set_peers(&mut op, peers);
            // Tags counting down are kept as the last iteration's.
            let phase = if slot.tag_step < 0 { self.trips.saturating_sub(k + 1) } else { k };
            shape::shift_tags(&mut op, slot.tag_step.abs() * phase as i32);
            shape::set_params(&mut op, v.params(t, id, g, me));
            let at_root = crate::comms::is_root(g, me, &op);
            if at_root {
                if let Some(p) = v.root_params(t, id) {
                    shape::set_params(&mut op, p);
                }
            }
            rec.list.clear();
            if let Op::Coll { coll, comm, .. } = op {
                if shape::evened(coll) {
                    let (size, _) = crate::comms::size_and_rank(g, me, comm);
                    shape::even(&mut op, size, at_root, &mut rec.list);
                }
            }
            if let Op::Coll { instance, .. } = &mut op {
                self.instance += 1;
                *instance = self.instance;
            }
            let starts = matches!(op, Op::Isend { .. } | Op::Irecv { .. } | Op::OtherReq { .. })
                || matches!(slot.shape, Op::Coll { flags, .. } if flags & psins_formats::CollFlags::NONBLOCKING != 0);
            if starts {
                // The smallest id not in use, as consolidation numbers them.
                let req = self.take_id();
                shape::set_request(&mut op, req);
                // A receive from MPI_ANY_SOURCE completes from a neighbour: the j-th in flight
                // from the j-th of the rank's neighbours by rank (which sender's message comes
                // first is the run's timing; the traces are read in that order, crate::comms).
                let mut from = peers[0];
                if wildcard(t, id as u32) {
                    let j = self.live.iter().filter(|l| wildcard(t, l.0)).count();
                    if let Some(&q) = t.neighbours(g, me).get(j) {
                        from = q as i32;
                    }
                }
                self.live.push((id as u32, req, from, shape::tags(&op).0[0]));
            }
            if let Op::Wait { count, func } = &mut op {
                let mut done = 0u32;
                // MPI_Waitany and MPI_Testany complete one request: the lowest id in flight of
                // those the slot's calls completed in the traces (which one a call completes is
                // the run's timing; the traces were read with their completions in that order,
                // crate::comms). Every other wait completes all it was seen to complete.
                let one = matches!(func, psins_formats::WaitFn::Waitany | psins_formats::WaitFn::Testany);
                let mine = |l: &(u32, u32, i32, i32)| slot.completes.contains(&(l.0 as usize));
                loop {
                    let at = if one {
                        if done > 0 {
                            break;
                        }
                        self.live.iter().enumerate().filter(|(_, l)| mine(l)).min_by_key(|(_, l)| l.1).map(|(i, _)| i)
                    } else {
                        // Every request in flight that the slot's calls complete (each
                        // iteration's, when it is in a loop the wait follows), slot by slot.
                        slot.completes.iter().find_map(|&c| self.live.iter().position(|l| l.0 as usize == c))
                    };
                    let Some(at) = at else { break };
                    let (c, req, peer, tag) = self.live.remove(at);
                    self.free_id(req);
                    rec.list.extend_from_slice(&completion(t, g, me, v, c as usize, req, peer, tag));
                    done += 1;
                }
                if done == 0 && !slot.completes.is_empty() {
                    self.pending += v.gap(t, id, me, k);
                    continue;
                }
                if slot.drain && self.live.iter().any(mine) {
                    self.pos = here;
                }
                *count = done + v.extra(t, id) as u32;
            }
            rec.gap_ns = std::mem::take(&mut self.pending) + v.gap(t, id, me, k);
            rec.dur_ns = v.dur(t, id);
            rec.op = op;
            return Some(id);
        }
        self.done = true;
        None
    }
}

#[cfg(test)]
mod tests {
    /// What a streamed replay keeps per rank (docs/simulator.md, *Extrapolated runs*).
    #[test]
    fn a_cursor_is_under_a_hundred_bytes() {
        assert!(size_of::<super::Cursor>() < 100, "{}", size_of::<super::Cursor>());
    }
}
