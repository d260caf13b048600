//! MPI_Bcast: `MPIR_Bcast_intra_binomial`, `MPIR_Bcast_intra_scatter_recursive_doubling_allgather`
//! and `MPIR_Bcast_intra_scatter_ring_allgather` (bcast/*.c, with the scatter phase of
//! bcast_utils.c's `MPII_Scatter_for_bcast`).

use crate::steps::{recv, send};
use crate::tree::{is_pow2, recursive_doubling, ring, Binomial, Level, Rel};
use crate::{CollArgs, Step, Thresholds, NOOP};

/// `send_bytes` is the whole message, the same on every rank.
pub(crate) fn expand(a: &CollArgs, th: &Thresholds, out: &mut Vec<Step>) -> &'static str {
    let (p, n) = (a.size as u64, a.send_bytes);
    if n == 0 {
        return NOOP; // every bcast algorithm returns before communicating
    }
    let rel = Rel::new(a.size, a.root);
    let me = rel.rel(a.rank as u64);
    if p < th.bcast_min_procs || n <= th.bcast_short_msg_size {
        binomial(rel, me, n, out);
        "bcast_binomial"
    } else if is_pow2(p) && n <= th.bcast_long_msg_size {
        let blocks = ScatterBlocks::new(n, p);
        scatter(rel, me, blocks, out);
        let exchange = |lv: Level| (blocks.range(lv.my_root, lv.mask), blocks.range(lv.dst_root, lv.mask));
        let forward = |lv: Level| blocks.range(lv.dst_root, lv.mask);
        recursive_doubling(p, me, out, |v| rel.abs(v), exchange, forward);
        "bcast_scatter_recursive_doubling_allgather"
    } else {
        let blocks = ScatterBlocks::new(n, p);
        scatter(rel, me, blocks, out);
        ring(p, a.rank as u64, out, |j| blocks.range(rel.rel(j), 1));
        "bcast_scatter_ring_allgather"
    }
}

fn binomial(rel: Rel, me: u64, n: u64, out: &mut Vec<Step>) {
    let tree = Binomial::new(rel.size);
    if let Some(parent) = tree.parent(me) {
        recv(out, rel.abs(parent), n);
    }
    for (child, _) in tree.children_desc(me) {
        send(out, rel.abs(child), n);
    }
}

/// The message cut into P blocks of ⌈n/P⌉ bytes, block i going to relative rank i; the
/// last blocks are short or empty when P does not divide n.
#[derive(Clone, Copy)]
struct ScatterBlocks {
    n: u64,
    block: u64,
}

impl ScatterBlocks {
    fn new(n: u64, p: u64) -> ScatterBlocks {
        ScatterBlocks { n, block: n.div_ceil(p) }
    }

    /// Bytes held by the `len` blocks starting at relative rank `first`.
    fn range(&self, first: u64, len: u64) -> u64 {
        let at = |i: u64| (self.block as u128 * i as u128).min(self.n as u128);
        (at(first + len) - at(first)) as u64
    }
}

/// `MPII_Scatter_for_bcast`: a binomial scatter in which each rank receives the data of its
/// subtree's blocks (whatever of it exists) and hands the upper part on to each child;
/// empty messages are not sent.
fn scatter(rel: Rel, me: u64, blocks: ScatterBlocks, out: &mut Vec<Step>) {
    let tree = Binomial::new(rel.size);
    let mut have = match tree.parent(me) {
        None => blocks.n,
        Some(parent) => {
            let got = blocks.range(me, me - parent);
            if got > 0 {
                recv(out, rel.abs(parent), got);
            }
            got
        }
    };
    for (child, mask) in tree.children_desc(me) {
        // What lies beyond the `mask` blocks this rank keeps belongs to the child's subtree.
        let keep = blocks.block.saturating_mul(mask);
        if have > keep {
            send(out, rel.abs(child), have - keep);
            have = keep;
        }
    }
}
