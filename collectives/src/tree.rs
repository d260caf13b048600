//! Communication shapes shared by several algorithms: root-relative numbering, MPICH's
//! binomial tree, its fold to a power of two, its recursive-doubling exchange (with the
//! non-power-of-two forwarding patch) and its ring.

use crate::steps::{recv, send, sendrecv};
use crate::Step;

/// Largest power of two ≤ `n` (MPICH's `comm->coll.pof2`); `n` ≥ 1.
pub(crate) fn floor_pow2(n: u64) -> u64 {
    1 << (63 - n.max(1).leading_zeros())
}

pub(crate) fn is_pow2(n: u64) -> bool {
    n.is_power_of_two()
}

/// Lowest set bit; for 0 (the tree root) the span covering every rank.
fn lowbit_or(x: u64, root_span: u64) -> u64 {
    if x == 0 {
        root_span
    } else {
        x & x.wrapping_neg()
    }
}

/// Ranks renumbered so that `root` becomes 0, as MPICH's rooted algorithms do.
#[derive(Clone, Copy)]
pub(crate) struct Rel {
    pub size: u64,
    pub root: u64,
}

impl Rel {
    pub fn new(size: u32, root: u32) -> Rel {
        Rel { size: size as u64, root: root as u64 }
    }
    pub fn rel(&self, rank: u64) -> u64 {
        (rank + self.size - self.root) % self.size
    }
    pub fn abs(&self, rel: u64) -> u64 {
        (rel + self.root) % self.size
    }
}

/// MPICH's binomial tree over relative ranks: the parent of `v` is `v` minus its lowest set
/// bit, its children are `v + m` for the powers of two `m` below that bit.
#[derive(Clone, Copy)]
pub(crate) struct Binomial {
    size: u64,
}

impl Binomial {
    pub fn new(size: u64) -> Binomial {
        Binomial { size }
    }

    fn span(&self, v: u64) -> u64 {
        lowbit_or(v, self.size.next_power_of_two())
    }

    pub fn parent(&self, v: u64) -> Option<u64> {
        (v != 0).then(|| v - self.span(v))
    }

    /// Ranks in `v`'s subtree (including `v`).
    pub fn subtree(&self, v: u64) -> u64 {
        self.span(v).min(self.size - v)
    }

    /// `v`'s children from the farthest (largest mask) to the nearest: bcast/scatter order.
    pub fn children_desc(&self, v: u64) -> impl Iterator<Item = (u64, u64)> {
        let (size, bits) = (self.size, self.span(v).trailing_zeros());
        (0..bits).rev().map(move |b| (v + (1 << b), 1u64 << b)).filter(move |&(c, _)| c < size)
    }

    /// `v`'s children from the nearest to the farthest: reduce/gather order.
    pub fn children_asc(&self, v: u64) -> impl Iterator<Item = u64> {
        let (size, bits) = (self.size, self.span(v).trailing_zeros());
        (0..bits).map(move |b| v + (1 << b)).filter(move |&c| c < size)
    }
}

/// MPICH's reduction to a power of two for reductions on P = pof2 + rem ranks: among the
/// first 2·rem ranks, one rank of each pair (2i, 2i+1) hands its data to the other before
/// the power-of-two phase and gets the result back after it.
#[derive(Clone, Copy)]
pub(crate) struct Fold {
    pub pof2: u64,
    pub rem: u64,
    /// Allreduce and reduce_scatter keep the odd rank of a pair; Rabenseifner's reduce keeps
    /// the even one.
    odd_survives: bool,
}

impl Fold {
    pub fn new(size: u64, odd_survives: bool) -> Fold {
        let pof2 = floor_pow2(size);
        Fold { pof2, rem: size - pof2, odd_survives }
    }

    fn in_pair(&self, rank: u64) -> bool {
        rank < 2 * self.rem
    }

    fn survives(&self, rank: u64) -> bool {
        !self.in_pair(rank) || (rank % 2 == 1) == self.odd_survives
    }

    fn partner(&self, rank: u64) -> u64 {
        rank ^ 1
    }

    /// Rank within the power-of-two phase, or `None` for ranks that sit it out.
    pub fn newrank(&self, rank: u64) -> Option<u64> {
        if self.in_pair(rank) {
            self.survives(rank).then_some(rank / 2)
        } else {
            Some(rank - self.rem)
        }
    }

    /// The real rank playing `newrank`.
    pub fn real(&self, newrank: u64) -> u64 {
        if newrank < self.rem {
            2 * newrank + u64::from(self.odd_survives)
        } else {
            newrank + self.rem
        }
    }

    /// Before the power-of-two phase: the leaver sends its `bytes`, the survivor receives.
    pub fn pre(&self, rank: u64, bytes: u64, out: &mut Vec<Step>) {
        if self.in_pair(rank) {
            if self.survives(rank) {
                recv(out, self.partner(rank), bytes);
            } else {
                send(out, self.partner(rank), bytes);
            }
        }
    }

    /// After it: the survivor sends the leaver its result. `skip_empty`: no message for 0 bytes.
    pub fn post(&self, rank: u64, bytes: u64, skip_empty: bool, out: &mut Vec<Step>) {
        if !self.in_pair(rank) || (skip_empty && bytes == 0) {
            return;
        }
        if self.survives(rank) {
            send(out, self.partner(rank), bytes);
        } else {
            recv(out, self.partner(rank), bytes);
        }
    }
}

/// One recursive-doubling level as seen by a rank: the aligned subtree of `mask` ranks the
/// rank belongs to and the partner's.
#[derive(Clone, Copy)]
pub(crate) struct Level {
    pub mask: u64,
    pub my_root: u64,
    pub dst_root: u64,
}

/// MPICH's recursive-doubling exchange over `size` ranks numbered `0..size` (`me` in that
/// numbering; `abs` maps to real ranks). At each level the rank swaps with `me ^ mask`
/// (`exchange` gives the send and receive bytes). Where the partner's subtree is cut short by
/// a non-power-of-two size, ranks that did receive forward that data, within their own
/// subtree, to those whose partner does not exist (`forward` gives its bytes).
pub(crate) fn recursive_doubling(
    size: u64,
    me: u64,
    out: &mut Vec<Step>,
    abs: impl Fn(u64) -> u64,
    exchange: impl Fn(Level) -> (u64, u64),
    forward: impl Fn(Level) -> u64,
) {
    let mut level = 0;
    while (1u64 << level) < size {
        let mask = 1u64 << level;
        let dst = me ^ mask;
        let lv = Level { mask, my_root: me >> level << level, dst_root: dst >> level << level };
        if dst < size {
            let (s, r) = exchange(lv);
            sendrecv(out, abs(dst), s, abs(dst), r);
        }
        if lv.dst_root + mask > size {
            forward_within_subtree(size, me, lv, level, out, &abs, forward(lv));
        }
        level += 1;
    }
}

/// The non-power-of-two patch of [`recursive_doubling`]: only the first `size - my_root -
/// mask` ranks of this subtree received at this level; they pass the data on by halves.
fn forward_within_subtree(
    size: u64,
    me: u64,
    lv: Level,
    level: u32,
    out: &mut Vec<Step>,
    abs: &impl Fn(u64) -> u64,
    bytes: u64,
) {
    // May be negative: then the whole partner subtree is missing and nobody forwards.
    let completed = size as i128 - lv.my_root as i128 - lv.mask as i128;
    let me_i = me as i128;
    for k in (0..level).rev() {
        let dst = me ^ (1u64 << k);
        let boundary = ((me >> (k + 1)) << (k + 1)) as i128 + completed;
        let dst_i = dst as i128;
        if dst > me && me_i < boundary && dst_i >= boundary {
            send(out, abs(dst), bytes);
        } else if dst < me && dst_i < boundary && me_i >= boundary {
            recv(out, abs(dst), bytes);
        }
    }
}

/// MPICH's ring allgather: P−1 steps, each sending the block received last (starting with
/// our own) to the right and receiving the next one from the left. `block(j)` is the size of
/// rank `j`'s block.
pub(crate) fn ring(size: u64, rank: u64, out: &mut Vec<Step>, block: impl Fn(u64) -> u64) {
    let left = (rank + size - 1) % size;
    let right = (rank + 1) % size;
    let mut j = rank;
    for _ in 1..size {
        let jnext = (j + size - 1) % size;
        sendrecv(out, right, block(j), left, block(jnext));
        j = jnext;
    }
}
