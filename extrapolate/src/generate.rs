//! A rank's records at any rank count, from the template and the values of its slots.

use crate::shape;
use crate::template::{SlotId, Template};
use crate::topo::Grid;
use psins_formats::{Op, Record, ANY_TAG, NO_RANK, PROC_NULL};

/// The sizes and times of each slot.
pub trait Values {
    fn params(&self, t: &Template, id: SlotId) -> [u64; shape::MAX_PARAMS];
    fn gap(&self, t: &Template, id: SlotId) -> u64;
    fn dur(&self, t: &Template, id: SlotId) -> u64;
    /// Requests a wait passes beyond those it completes.
    fn extra(&self, t: &Template, id: SlotId) -> u64;
}

/// The values one trace of the series had (the most common over its ranks): what the
/// template regenerates that trace with when it is checked.
pub struct Observed(pub usize);

impl Values for Observed {
    fn params(&self, t: &Template, id: SlotId) -> [u64; shape::MAX_PARAMS] {
        let s = &t.slots[id].seen[self.0];
        std::array::from_fn(|k| crate::template::Seen::mode(&s.values[k]).0)
    }
    fn gap(&self, _: &Template, _: SlotId) -> u64 {
        0
    }
    fn dur(&self, _: &Template, _: SlotId) -> u64 {
        0
    }
    fn extra(&self, t: &Template, id: SlotId) -> u64 {
        crate::template::Seen::mode(&t.slots[id].seen[self.0].extra).0
    }
}

/// Rank `me`'s program on `g` (no expansion steps), appended to `out`, with each record's
/// slot appended to `ids` when given. A slot's gap is the computation since the slot before
/// it in the template: a rank that skips slots computes their gaps before its next call.
pub fn program(
    t: &Template,
    g: &Grid,
    me: u32,
    v: &impl Values,
    out: &mut Vec<Record>,
    mut ids: Option<&mut Vec<SlotId>>,
) {
    let mut live: Vec<(SlotId, u32)> = Vec::new();
    let mut used: Vec<bool> = vec![false];
    let mut instance = 0u32;
    let mut pending = 0u64;
    for &id in &t.order {
        if !t.exists(id, g, me) {
            pending += v.gap(t, id);
            continue;
        }
        let slot = &t.slots[id];
        let mut op = slot.shape;
        let mut peers = [0i32; shape::MAX_PEERS];
        let mut missing = false;
        for (k, p) in peers.iter_mut().enumerate().take(slot.npeers) {
            match slot.forms[k].resolve(g, me) {
                Some(x) => *p = x,
                None => missing = true,
            }
        }
        if missing {
            pending += v.gap(t, id);
            continue;
        }
        shape::set_peers(&mut op, peers);
        shape::set_params(&mut op, v.params(t, id));
        let mut list = Vec::new();
        if let Op::Coll { .. } = op {
            instance += 1;
            if let Op::Coll { instance: i, .. } = &mut op {
                *i = instance;
            }
        }
        let starts = matches!(op, Op::Isend { .. } | Op::Irecv { .. } | Op::OtherReq { .. })
            || matches!(slot.shape, Op::Coll { flags, .. } if flags & psins_formats::CollFlags::NONBLOCKING != 0);
        if starts {
            // The smallest id not in use, as consolidation numbers them.
            let free = (1..used.len()).find(|&k| !used[k]).unwrap_or(used.len());
            if free == used.len() {
                used.push(false);
            }
            used[free] = true;
            shape::set_request(&mut op, free as u32);
            live.push((id, free as u32));
        }
        if let Op::Wait { count, .. } = &mut op {
            let mut done = 0u32;
            for &c in &slot.completes {
                let Some(at) = live.iter().position(|&(s, _)| s == c) else { continue };
                let (_, req) = live.remove(at);
                used[req as usize] = false;
                let mut from = Op::Finalize;
                // The starting record as generated: its peer, tag and size.
                let cs = &t.slots[c];
                if let Op::Irecv { tag, .. } = cs.shape {
                    let peer = cs.forms[0].resolve(g, me).unwrap_or(PROC_NULL);
                    let bytes = v.params(t, c)[0];
                    from = Op::Irecv { peer, tag, bytes, comm: 0, req };
                }
                match from {
                    Op::Irecv { peer: PROC_NULL, .. } => {
                        list.extend_from_slice(&[req as i64, PROC_NULL as i64, ANY_TAG as i64, 0])
                    }
                    Op::Irecv { peer, tag, bytes, .. } => {
                        list.extend_from_slice(&[req as i64, peer as i64, tag as i64, bytes as i64])
                    }
                    _ => list.extend_from_slice(&[req as i64, NO_RANK as i64, 0, 0]),
                }
                done += 1;
            }
            if done == 0 && !slot.completes.is_empty() {
                pending += v.gap(t, id);
                continue;
            }
            *count = done + v.extra(t, id) as u32;
        }
        let gap = std::mem::take(&mut pending) + v.gap(t, id);
        out.push(Record { gap_ns: gap, dur_ns: v.dur(t, id), op, list });
        if let Some(ids) = ids.as_deref_mut() {
            ids.push(id);
        }
    }
}
