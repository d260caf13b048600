//! Alltoall, alltoallv (coll/base, picked by coll/tuned's fixed rules) and alltoallw
//! (coll/basic). Every algorithm sends `MPI_IN_PLACE` calls to the same left/right exchange
//! of the base (or basic) module's in-place function, [`inplace_exchange`].

use super::decision;
use crate::steps::{irecv, isend, send, sendrecv, waitall};
use crate::{CollArgs, ExpandError, Step};

/// `ompi_coll_tuned_alltoall_intra_do_this`: 1 linear, 2 pairwise, 3 modified Bruck,
/// 4 linear_sync (max_requests = `ompi_coll_tuned_alltoall_max_requests`, default 0 in
/// coll_tuned_component.c), 5 two_proc. All five hand `MPI_IN_PLACE` to
/// `mca_coll_base_alltoall_intra_basic_inplace`.
pub(super) fn alltoall(a: &CollArgs, alg: u8, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let name = super::name(decision::ALLTOALL_NAMES, alg);
    if a.in_place {
        // The MPI layer has already returned for an empty block (`sends_nothing`).
        let b = a.recv_bytes;
        inplace_exchange(a, |_| b, out);
        return Ok(name);
    }
    match alg {
        1 | 4 => linear(a, out),
        2 => pairwise(a, out),
        3 => bruck(a, out),
        5 => two_procs(a, out),
        _ => return Err(ExpandError::Unsupported { coll: a.coll }),
    }
    Ok(name)
}

/// `ompi_coll_base_alltoall_intra_basic_linear` and, with max_requests 0 (every request
/// at once, the fixed rules' value), `ompi_coll_base_alltoall_intra_linear_sync`
/// (coll_base_alltoall.c): the own block is copied locally, then the rank posts receives
/// from rank+1, rank+2, … and sends to rank−1, rank−2, … and waits for all of them.
fn linear(a: &CollArgs, out: &mut Vec<Step>) {
    let (p, r) = (a.size as u64, a.rank as u64);
    for d in 1..p {
        irecv(out, (r + d) % p, a.recv_bytes);
    }
    for d in 1..p {
        isend(out, (r + p - d) % p, a.send_bytes);
    }
    waitall(out);
}

/// `ompi_coll_base_alltoall_intra_pairwise` (coll_base_alltoall.c): at step s = 1…P−1 a
/// sendrecv to rank+s and from rank−s; step P is the rank with itself, a local copy.
fn pairwise(a: &CollArgs, out: &mut Vec<Step>) {
    let (p, r) = (a.size as u64, a.rank as u64);
    for s in 1..p {
        sendrecv(out, (r + s) % p, a.send_bytes, (r + p - s) % p, a.recv_bytes);
    }
}

/// `ompi_coll_base_alltoall_intra_bruck` (coll_base_alltoall.c): after a local rotation, at
/// each distance d = 1, 2, 4, … < P a sendrecv to rank+d and from rank−d of the blocks whose
/// index has bit d set. Both halves use the send type's indexed datatype, so both carry
/// that many send blocks.
fn bruck(a: &CollArgs, out: &mut Vec<Step>) {
    let (p, r) = (a.size as u64, a.rank as u64);
    let mut d = 1u64;
    while d < p {
        // Indices 1..P with bit d set (index 0 never has it).
        let k = (p / (2 * d)) * d + (p % (2 * d)).saturating_sub(d);
        let bytes = k.saturating_mul(a.send_bytes);
        sendrecv(out, (r + d) % p, bytes, (r + p - d) % p, bytes);
        d <<= 1;
    }
}

/// `ompi_coll_base_alltoall_intra_two_procs` (coll_base_alltoall.c; the rules pick it for
/// P = 2 only): one sendrecv with the other rank, then the local copy.
fn two_procs(a: &CollArgs, out: &mut Vec<Step>) {
    let other = (a.rank ^ 1) as u64 % a.size as u64;
    sendrecv(out, other, a.send_bytes, other, a.recv_bytes);
}

/// `ompi_coll_tuned_alltoallv_intra_do_this`: 1 basic_linear, 2 pairwise; both hand
/// `MPI_IN_PLACE` to `mca_coll_base_alltoallv_intra_basic_inplace`.
pub(super) fn alltoallv(a: &CollArgs, alg: u8, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let name = super::name(decision::ALLTOALLV_NAMES, alg);
    let p = a.size as usize;
    let (sc, rc) = split_counts(a.counts, p);
    if a.in_place {
        // That function returns early when every block from a peer is empty; the exchange
        // below skips empty blocks, so it pushes nothing then either.
        inplace_exchange(a, |peer| rc.get(peer as usize).copied().unwrap_or(0), out);
        return Ok(name);
    }
    let (pu, r) = (p as u64, a.rank as u64);
    if alg == 1 {
        // ompi_coll_base_alltoallv_intra_basic_linear (coll_base_alltoallv.c): the own block
        // is copied locally; receives from every other rank in rank order, then sends to
        // every other rank in rank order (empty ones too), then one wait for all.
        for i in (0..pu).filter(|&i| i != r) {
            irecv(out, i, rc.get(i as usize).copied().unwrap_or(0));
        }
        for i in (0..pu).filter(|&i| i != r) {
            isend(out, i, sc.get(i as usize).copied().unwrap_or(0));
        }
        waitall(out);
    } else {
        // ompi_coll_base_alltoallv_intra_pairwise (coll_base_alltoallv.c): step 0 is the
        // local copy; at step s = 1…P−1 a sendrecv to rank+s and from rank−s, empty blocks
        // included.
        for s in 1..pu {
            let (to, from) = ((r + s) % pu, (r + pu - s) % pu);
            let sb = sc.get(to as usize).copied().unwrap_or(0);
            let rb = rc.get(from as usize).copied().unwrap_or(0);
            sendrecv(out, to, sb, from, rb);
        }
    }
    Ok(name)
}

/// `mca_coll_basic_alltoallw_intra` (coll/basic, coll_basic_alltoallw.c; coll/tuned has no
/// alltoallw): the own block is copied locally; receives from every other rank whose block
/// is non-empty in rank order, then the non-empty sends in rank order, then one wait for
/// all. In place: `mca_coll_basic_alltoallw_intra_inplace`, the same exchange as alltoallv's.
pub(super) fn alltoallw(a: &CollArgs, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let name = "ompi_alltoallw_basic_linear";
    let p = a.size as usize;
    let (sc, rc) = split_counts(a.counts, p);
    if a.in_place {
        inplace_exchange(a, |peer| rc.get(peer as usize).copied().unwrap_or(0), out);
        return Ok(name);
    }
    let r = a.rank as usize;
    for (i, &b) in rc.iter().enumerate().filter(|&(i, &b)| i != r && b != 0) {
        irecv(out, i as u64, b);
    }
    for (i, &b) in sc.iter().enumerate().filter(|&(i, &b)| i != r && b != 0) {
        isend(out, i as u64, b);
    }
    waitall(out);
    Ok(name)
}

/// The P send counts and the P receive counts of alltoallv/w (shorter if `counts` is).
fn split_counts(counts: &[u64], p: usize) -> (&[u64], &[u64]) {
    let (sc, rest) = counts.split_at(p.min(counts.len()));
    (sc, &rest[..p.min(rest.len())])
}

/// `mca_coll_base_alltoall_intra_basic_inplace` (coll_base_alltoall.c),
/// `mca_coll_base_alltoallv_intra_basic_inplace` (coll_base_alltoallv.c) and
/// `mca_coll_basic_alltoallw_intra_inplace` (coll_basic_alltoallw.c): for i = 1…⌊P/2⌋, with
/// right = rank+i and left = rank−i, the rank posts a receive from the right, sends the
/// left its block, waits, posts a receive from the left, sends the right its (packed)
/// block and waits; blocks of `bytes(peer)` = 0 are skipped (alltoall's never are), and
/// the left half is skipped when left = right.
///
/// Each "receive posted, one blocking send, wait for that receive" is the pattern of
/// `ompi_coll_base_sendrecv`, so it is one `SendRecv`. With the right block empty, the
/// send to the left has nothing posted before it (a `Send`) and the receive from the left
/// is waited for alone (`IRecv`, `WaitAll`).
fn inplace_exchange(a: &CollArgs, bytes: impl Fn(u64) -> u64, out: &mut Vec<Step>) {
    let (p, r) = (a.size as u64, a.rank as u64);
    for i in 1..=p / 2 {
        let (right, left) = ((r + i) % p, (r + p - i) % p);
        let rb = bytes(right);
        let lb = if left == right { 0 } else { bytes(left) };
        match (rb != 0, lb != 0) {
            (true, true) => {
                sendrecv(out, left, lb, right, rb);
                sendrecv(out, right, rb, left, lb);
            }
            (true, false) => sendrecv(out, right, rb, right, rb),
            (false, true) => {
                send(out, left, lb);
                irecv(out, left, lb);
                waitall(out);
            }
            (false, false) => {}
        }
    }
}
