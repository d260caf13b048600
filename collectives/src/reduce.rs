//! MPI_Reduce (`MPIR_Reduce_intra_binomial`, `MPIR_Reduce_intra_reduce_scatter_gather`) and
//! MPI_Allreduce (`MPIR_Allreduce_intra_recursive_doubling`,
//! `MPIR_Allreduce_intra_reduce_scatter_allgather`), reduce/*.c and allreduce/*.c.

use crate::rabenseifner::{reduce_scatter_phase, Idx, Split};
use crate::steps::{recv, send, sendrecv};
use crate::tree::{floor_pow2, Binomial, Fold, Rel};
use crate::{CollArgs, ExpandError, Step, Thresholds, NOOP};

/// Element size of a reduction whose vector is `send_bytes` = `count` elements.
pub(crate) fn element_bytes(a: &CollArgs) -> Result<u64, ExpandError> {
    let (bytes, count) = (a.send_bytes, a.count);
    match bytes.checked_div(count) {
        None if bytes == 0 => Ok(0),
        Some(elem) if elem * count == bytes => Ok(elem),
        _ => Err(ExpandError::CountMismatch { coll: a.coll, bytes, count }),
    }
}

/// Whether MPICH's table sends this reduction to its Rabenseifner variant.
fn rabenseifner_selected(a: &CollArgs, short_msg_size: u64) -> bool {
    a.send_bytes > short_msg_size && a.op_builtin && a.count >= floor_pow2(a.size as u64)
}

pub(crate) fn expand_reduce(a: &CollArgs, th: &Thresholds, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let elem = element_bytes(a)?;
    if a.count == 0 {
        return Ok(NOOP); // MPI_Reduce returns before selecting when count is 0
    }
    if rabenseifner_selected(a, th.reduce_short_msg_size) {
        reduce_scatter_gather(a, elem, out);
        Ok("reduce_reduce_scatter_gather")
    } else {
        reduce_binomial(a, out);
        Ok("reduce_binomial")
    }
}

pub(crate) fn expand_allreduce(
    a: &CollArgs,
    th: &Thresholds,
    out: &mut Vec<Step>,
) -> Result<&'static str, ExpandError> {
    let elem = element_bytes(a)?;
    let fold = Fold::new(a.size as u64, true);
    let (r, n) = (a.rank as u64, a.send_bytes);
    fold.pre(r, n, out);
    let name = if rabenseifner_selected(a, th.allreduce_short_msg_size) {
        if let Some(newrank) = fold.newrank(r) {
            let split = Split::new(a.count, elem, fold.pof2);
            let idx = reduce_scatter_phase(&split, &fold, newrank, out);
            allgather_phase(&split, &fold, newrank, idx, out);
        }
        "allreduce_reduce_scatter_allgather"
    } else {
        if let Some(newrank) = fold.newrank(r) {
            let mut mask = 1;
            while mask < fold.pof2 {
                let dst = fold.real(newrank ^ mask);
                sendrecv(out, dst, n, dst, n);
                mask <<= 1;
            }
        }
        "allreduce_recursive_doubling"
    };
    fold.post(r, n, false, out);
    Ok(name)
}

/// The reverse of the halving: recursive doubling that brings every block to every survivor.
fn allgather_phase(s: &Split, fold: &Fold, newrank: u64, mut idx: Idx, out: &mut Vec<Step>) {
    let mut mask = s.pof2 / 2;
    while mask > 0 {
        let newdst = newrank ^ mask;
        let (send_bytes, recv_bytes) = idx.unwind(s, newrank, newdst, mask);
        let dst = fold.real(newdst);
        sendrecv(out, dst, send_bytes, dst, recv_bytes);
        idx.after(newrank, newdst);
        mask >>= 1;
    }
}

/// Binomial tree towards the root, children nearest first. A non-commutative op is reduced
/// in rank order along a tree rooted at 0, whose result then travels to the real root.
fn reduce_binomial(a: &CollArgs, out: &mut Vec<Step>) {
    let n = a.send_bytes;
    let tree_root = if a.op_commutative { a.root } else { 0 };
    let rel = Rel::new(a.size, tree_root);
    let tree = Binomial::new(rel.size);
    let me = rel.rel(a.rank as u64);
    for child in tree.children_asc(me) {
        recv(out, rel.abs(child), n);
    }
    if let Some(parent) = tree.parent(me) {
        send(out, rel.abs(parent), n);
    }
    if !a.op_commutative && a.root != 0 {
        if a.rank == 0 {
            send(out, a.root as u64, n);
        } else if a.rank == a.root {
            recv(out, 0, n);
        }
    }
}

/// Rabenseifner's reduce: fold to pof2 ranks (odd ranks hand over to the even neighbour),
/// recursive halving, then a binomial gather of the blocks to the root. A root that sat out
/// the fold gets block 0 from new rank 0 and takes its place in the gather.
fn reduce_scatter_gather(a: &CollArgs, elem: u64, out: &mut Vec<Step>) {
    let (r, root) = (a.rank as u64, a.root as u64);
    let fold = Fold::new(a.size as u64, false);
    let split = Split::new(a.count, elem, fold.pof2);
    fold.pre(r, a.send_bytes, out);
    let mut newrank = fold.newrank(r);
    let mut idx = Idx::default();
    if let Some(nr) = newrank {
        idx = reduce_scatter_phase(&split, &fold, nr, out);
    }
    let (root_sat_out, newroot) = match fold.newrank(root) {
        Some(nr) => (false, nr),
        None => (true, 0),
    };
    if root_sat_out {
        if r == root {
            recv(out, 0, split.bytes(0, 1));
            newrank = Some(0);
            idx = Idx { send: 0, recv: 0, last: 2 };
        } else if newrank == Some(0) {
            send(out, root, split.bytes(0, 1));
            newrank = None;
        }
    }
    if let Some(nr) = newrank {
        let real = |newdst: u64| {
            if newdst == 0 && root_sat_out {
                root
            } else {
                fold.real(newdst)
            }
        };
        gather_phase(&split, nr, newroot, idx, out, real);
    }
}

/// Binomial gather retracing the halving: at each level, a rank in the half that does not
/// hold the root sends its range and stops; the other receives its partner's range.
fn gather_phase(s: &Split, newrank: u64, newroot: u64, mut idx: Idx, out: &mut Vec<Step>, real: impl Fn(u64) -> u64) {
    let mut mask = s.pof2 / 2;
    while mask > 0 {
        let newdst = newrank ^ mask;
        let (send_bytes, recv_bytes) = idx.unwind(s, newrank, newdst, mask);
        let level = mask.trailing_zeros();
        if newdst >> level == newroot >> level {
            send(out, real(newdst), send_bytes);
            return;
        }
        recv(out, real(newdst), recv_bytes);
        idx.after(newrank, newdst);
        mask >>= 1;
    }
}
