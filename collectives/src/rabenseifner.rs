//! The reduce-scatter phase and the block bookkeeping shared by Rabenseifner's reduce
//! (reduce_intra_reduce_scatter_gather.c) and allreduce
//! (allreduce_intra_reduce_scatter_allgather.c).
//!
//! The vector of `count` elements is cut into pof2 blocks, the first `count % pof2` one
//! element longer. Recursive halving leaves each of the pof2 surviving ranks with one
//! reduced block; the second phase (allgather or gather to the root) retraces the halving
//! in reverse. MPICH tracks the block range of each step with three indices that carry over
//! between the phases, so this module keeps them in the same form.

use crate::steps::sendrecv;
use crate::tree::Fold;
use crate::Step;

/// Block sizes in bytes: block i has `q + (i < r)` elements of `elem` bytes.
#[derive(Clone, Copy)]
pub(crate) struct Split {
    pub pof2: u64,
    q: u64,
    r: u64,
    elem: u64,
}

impl Split {
    pub fn new(count: u64, elem: u64, pof2: u64) -> Split {
        Split { pof2, q: count / pof2, r: count % pof2, elem }
    }

    /// Bytes of blocks `a..b`.
    pub fn bytes(&self, a: u64, b: u64) -> u64 {
        if a >= b {
            return 0;
        }
        let elems = self.q * (b - a) + (b.min(self.r) - a.min(self.r));
        elems.saturating_mul(self.elem)
    }
}

/// MPICH's `send_idx`, `recv_idx`, `last_idx`.
#[derive(Clone, Copy, Default)]
pub(crate) struct Idx {
    pub send: u64,
    pub recv: u64,
    pub last: u64,
}

impl Idx {
    /// Index update of one step of the second phase (partner `newdst` at distance `mask`);
    /// returns the (send, receive) bytes of that step.
    pub fn unwind(&mut self, s: &Split, newrank: u64, newdst: u64, mask: u64) -> (u64, u64) {
        let half = s.pof2 / (mask * 2);
        if newrank < newdst {
            if mask != s.pof2 / 2 {
                self.last += half;
            }
            self.recv = self.send + half;
            (s.bytes(self.send, self.recv), s.bytes(self.recv, self.last))
        } else {
            self.recv = self.send.saturating_sub(half);
            (s.bytes(self.send, self.last), s.bytes(self.recv, self.send))
        }
    }

    /// The update that follows each completed step of the second phase.
    pub fn after(&mut self, newrank: u64, newdst: u64) {
        if newrank > newdst {
            self.send = self.recv;
        }
    }
}

/// Recursive halving among the pof2 survivors of `fold` (distance 1 first): at each step the
/// rank keeps half of its current block range and sends the other half to its partner.
pub(crate) fn reduce_scatter_phase(s: &Split, fold: &Fold, newrank: u64, out: &mut Vec<Step>) -> Idx {
    let mut idx = Idx { send: 0, recv: 0, last: s.pof2 };
    let mut mask = 1;
    while mask < s.pof2 {
        let newdst = newrank ^ mask;
        let half = s.pof2 / (mask * 2);
        let (send_bytes, recv_bytes) = if newrank < newdst {
            idx.send = idx.recv + half;
            (s.bytes(idx.send, idx.last), s.bytes(idx.recv, idx.send))
        } else {
            idx.recv = idx.send + half;
            (s.bytes(idx.send, idx.recv), s.bytes(idx.recv, idx.last))
        };
        let dst = fold.real(newdst);
        sendrecv(out, dst, send_bytes, dst, recv_bytes);
        idx.send = idx.recv;
        mask <<= 1;
        if mask < s.pof2 {
            idx.last = idx.recv + s.pof2 / mask;
        }
    }
    idx
}
