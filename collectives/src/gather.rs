//! MPI_Gather and MPI_Scatter (`MPIR_Gather_intra_binomial`, `MPIR_Scatter_intra_binomial`)
//! and their v variants (`MPIR_Gatherv_allcomm_linear`, `MPIR_Scatterv_allcomm_linear`).

use crate::steps::{irecv, isend, recv, send, waitall};
use crate::tree::{Binomial, Rel};
use crate::{CollArgs, Step, NOOP};

/// Per-rank block: MPICH reads the receive side at the root of a gather (the send side of a
/// scatter) and the other side elsewhere.
fn block_bytes(a: &CollArgs, root_side: u64, other_side: u64) -> u64 {
    if a.rank == a.root {
        root_side
    } else {
        other_side
    }
}

/// Binomial gather: each rank receives its children's subtrees, nearest child first, then
/// sends its whole subtree's blocks to its parent.
pub(crate) fn expand_gather(a: &CollArgs, out: &mut Vec<Step>) -> &'static str {
    let n = block_bytes(a, a.recv_bytes, a.send_bytes);
    if n == 0 {
        return NOOP; // MPI_Gather returns before selecting
    }
    let rel = Rel::new(a.size, a.root);
    let tree = Binomial::new(rel.size);
    let me = rel.rel(a.rank as u64);
    for child in tree.children_asc(me) {
        recv(out, rel.abs(child), tree.subtree(child).saturating_mul(n));
    }
    if let Some(parent) = tree.parent(me) {
        send(out, rel.abs(parent), tree.subtree(me).saturating_mul(n));
    }
    "gather_binomial"
}

/// Binomial scatter: the mirror image of the gather, farthest child first.
pub(crate) fn expand_scatter(a: &CollArgs, out: &mut Vec<Step>) -> &'static str {
    let n = block_bytes(a, a.send_bytes, a.recv_bytes);
    if n == 0 {
        return NOOP; // MPI_Scatter returns before selecting
    }
    let rel = Rel::new(a.size, a.root);
    let tree = Binomial::new(rel.size);
    let me = rel.rel(a.rank as u64);
    if let Some(parent) = tree.parent(me) {
        recv(out, rel.abs(parent), tree.subtree(me).saturating_mul(n));
    }
    for (child, _) in tree.children_desc(me) {
        send(out, rel.abs(child), tree.subtree(child).saturating_mul(n));
    }
    "scatter_binomial"
}

/// Linear gatherv (`gatherv_allcomm_linear.c`): the root posts a receive from every other
/// rank with a non-empty block, in rank order, and waits for all; the others send theirs
/// (MPICH uses a synchronous send from 32 ranks on, `MPIR_CVAR_GATHERV_INTER_SSEND_MIN_PROCS`,
/// which a step cannot express).
pub(crate) fn expand_gatherv(a: &CollArgs, out: &mut Vec<Step>) -> &'static str {
    linear(a, out, a.send_bytes, irecv, send);
    "gatherv_linear"
}

/// Linear scatterv (`scatterv_allcomm_linear.c`): the root posts a send to every other rank
/// with a non-empty block and waits for all; the others receive theirs.
pub(crate) fn expand_scatterv(a: &CollArgs, out: &mut Vec<Step>) -> &'static str {
    linear(a, out, a.recv_bytes, isend, recv);
    "scatterv_linear"
}

/// The root posts `at_root` with each other rank whose count is non-zero, in rank order,
/// then waits for the batch; the other ranks do `elsewhere` with the root if their own
/// block is non-empty.
fn linear(
    a: &CollArgs,
    out: &mut Vec<Step>,
    own_bytes: u64,
    at_root: fn(&mut Vec<Step>, u64, u64),
    elsewhere: fn(&mut Vec<Step>, u64, u64),
) {
    if a.rank == a.root {
        for (peer, &bytes) in a.counts.iter().enumerate() {
            if bytes > 0 && peer as u32 != a.root {
                at_root(out, peer as u64, bytes);
            }
        }
        waitall(out);
    } else if own_bytes > 0 {
        elsewhere(out, a.root as u64, own_bytes);
    }
}
