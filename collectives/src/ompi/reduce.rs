//! Open MPI's reduce and allreduce (`coll_base_reduce.c`, `coll_base_allreduce.c`). The
//! fixed rules pass no segment size and no request limit, so tree reductions move whole
//! vectors and leaves send with one blocking send.

use super::bcast;
use super::topo::{self, Tree};
use super::{append, decision, name};
use crate::reduce::element_bytes;
use crate::steps::{irecv, isend, recv, send, sendrecv, waitall};
use crate::tree::floor_pow2;
use crate::{CollArgs, ExpandError, Step};
use psins_formats::Coll;

pub(super) fn reduce(a: &CollArgs, alg: u8, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let (p, r, root, n) = (a.size as u64, a.rank as u64, a.root as u64, a.send_bytes);
    match alg {
        1 => linear(p, r, root, n, out),
        2 | 3 => generic(&topo::chain(p, r, root), r == root, n, out),
        4 => generic(&topo::kary(2, p, r, root), r == root, n, out),
        5 => generic(&topo::in_order_bmtree(p, r, root), r == root, n, out),
        6 => in_order_binary(p, r, root, n, out),
        7 => redscat_gather(a, element_bytes(a)?, out),
        _ => return Err(ExpandError::Unsupported { coll: a.coll }),
    }
    Ok(name(decision::REDUCE_NAMES, alg))
}

pub(super) fn allreduce(a: &CollArgs, alg: u8, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let (p, r, n) = (a.size as u64, a.rank as u64, a.send_bytes);
    match alg {
        1 => basic_linear(p, r, n, out),
        2 => {
            // Through the communicator's own reduce and bcast, i.e. the fixed rules again.
            append(&CollArgs { coll: Coll::Reduce, root: 0, in_place: a.in_place && r == 0, ..*a }, out)?;
            append(&CollArgs { coll: Coll::Bcast, root: 0, ..*a }, out)?;
        }
        3 => recursive_doubling(p, r, n, out),
        // With no segment size the segmented ring is the ring.
        4 | 5 => ring(p, r, a.count, element_bytes(a)?, out),
        6 => redscat_allgather(a, element_bytes(a)?, out),
        _ => return Err(ExpandError::Unsupported { coll: a.coll }),
    }
    Ok(name(decision::ALLREDUCE_NAMES, alg))
}

/// `ompi_coll_base_reduce_intra_basic_linear`: the others send their vector to the root,
/// which receives from rank P − 1 down to rank 0.
fn linear(p: u64, r: u64, root: u64, n: u64, out: &mut Vec<Step>) {
    if r != root {
        send(out, root, n);
        return;
    }
    (0..p).rev().filter(|&i| i != r).for_each(|i| recv(out, i, n));
}

/// `ompi_coll_base_reduce_generic` with one segment: receive every child's vector (Open MPI
/// keeps two receives posted, waiting for each child's before posting the next child's;
/// nothing is sent before the last arrives, so all are posted here and waited for
/// together), then send the result to the parent.
fn generic(t: &Tree, is_root: bool, n: u64, out: &mut Vec<Step>) {
    match t.next() {
        [] => {}
        [only] => recv(out, *only as u64, n),
        children => {
            children.iter().for_each(|&c| irecv(out, c as u64, n));
            waitall(out);
        }
    }
    if !is_root {
        if let Some(parent) = t.prev {
            send(out, parent, n);
        }
    }
}

/// `ompi_coll_base_reduce_intra_in_order_binary`: the generic reduction on the in-order
/// binary tree rooted at P − 1, which then sends the result to the root.
fn in_order_binary(p: u64, r: u64, root: u64, n: u64, out: &mut Vec<Step>) {
    let io_root = p - 1;
    generic(&topo::in_order_bintree(p, r), r == io_root, n, out);
    if io_root != root {
        if r == root {
            recv(out, io_root, n);
        } else if r == io_root {
            send(out, root, n);
        }
    }
}

/// Largest power of two ≤ p, and its exponent (`opal_hibit`).
fn pof2(p: u64) -> (u64, u32) {
    let pof2 = floor_pow2(p);
    (pof2, pof2.trailing_zeros())
}

/// One rank's blocks in a recursive halving over `pof2` ranks (Rabenseifner): per step, the
/// element offset and count it sends and those it receives.
struct Halving {
    sindex: [u64; 64],
    scount: [u64; 64],
    rindex: [u64; 64],
    rcount: [u64; 64],
}

/// The rank a virtual rank of the halving is: the survivors of the fold below 2·rem are the
/// odd ones (allreduce) or even ones (reduce), the others keep their place after them.
pub(super) fn real_rank(vd: u64, rem: u64, odd: bool) -> u64 {
    if vd < rem {
        vd * 2 + u64::from(odd)
    } else {
        vd + rem
    }
}

/// The fold of Rabenseifner's reduce and allreduce for ranks below 2·rem: an odd rank swaps
/// halves with the even one below it and sends it its reduced second half; returns this
/// rank's virtual rank, `None` for the odd ones, which sit the halving out.
fn fold(r: u64, rem: u64, count: u64, elem: u64, out: &mut Vec<Step>) -> Option<u64> {
    if r >= 2 * rem {
        return Some(r - rem);
    }
    let (lhalf, rhalf) = (count / 2, count - count / 2);
    if !r.is_multiple_of(2) {
        sendrecv(out, r - 1, lhalf * elem, r - 1, rhalf * elem);
        send(out, r - 1, rhalf * elem);
        None
    } else {
        sendrecv(out, r + 1, rhalf * elem, r + 1, lhalf * elem);
        recv(out, r + 1, rhalf * elem);
        Some(r / 2)
    }
}

/// The recursive halving (reduce-scatter) phase over the `pof2` survivors, distance 1 first.
fn halve(r: u64, v: u64, rem: u64, steps: u32, (count, elem): (u64, u64), out: &mut Vec<Step>) -> Halving {
    let mut h = Halving { sindex: [0; 64], scount: [0; 64], rindex: [0; 64], rcount: [0; 64] };
    let mut wsize = count;
    for step in 0..steps as usize {
        let dest = real_rank(v ^ (1 << step), rem, false);
        if r < dest {
            h.rcount[step] = wsize / 2;
            h.scount[step] = wsize - h.rcount[step];
            h.sindex[step] = h.rindex[step] + h.rcount[step];
        } else {
            h.scount[step] = wsize / 2;
            h.rcount[step] = wsize - h.scount[step];
            h.rindex[step] = h.sindex[step] + h.scount[step];
        }
        sendrecv(out, dest, h.scount[step] * elem, dest, h.rcount[step] * elem);
        if step + 1 < steps as usize {
            h.rindex[step + 1] = h.rindex[step];
            h.sindex[step + 1] = h.rindex[step];
            wsize = h.rcount[step];
        }
    }
    h
}

/// `ompi_coll_base_reduce_intra_redscat_gather`: Rabenseifner's reduce — fold to a power of
/// two, recursive halving, then a binomial gather of the blocks to the root. Fewer elements
/// than that power of two, or a non-commutative op: the linear reduce.
fn redscat_gather(a: &CollArgs, elem: u64, out: &mut Vec<Step>) {
    let (p, r, root, n) = (a.size as u64, a.rank as u64, a.root as u64, a.send_bytes);
    let (pof2, steps) = pof2(p);
    let count = a.count;
    if pof2 < 2 || count < pof2 || !a.op_commutative {
        linear(p, r, root, n, out);
        return;
    }
    let rem = p - pof2;
    let mut vrank = fold(r, rem, count, elem, out);
    let mut h = vrank.map(|v| halve(r, v, rem, steps, (count, elem), out));
    // A root that sat the halving out takes virtual rank 0's place, whose last block it
    // receives; virtual rank 0 (rank 0) then leaves.
    let (odd_root, vroot) = virtual_root(root, rem);
    if odd_root {
        if r == root {
            let mut hr = Halving { sindex: [0; 64], scount: [0; 64], rindex: [0; 64], rcount: [0; 64] };
            let mut wsize = count;
            for step in 0..steps as usize {
                hr.rcount[step] = wsize / 2;
                hr.scount[step] = wsize - hr.rcount[step];
                hr.sindex[step] = hr.rcount[step];
                wsize /= 2;
            }
            recv(out, 0, hr.rcount[steps as usize - 1] * elem);
            vrank = Some(0);
            h = Some(hr);
        } else if vrank == Some(0) {
            let last = h.as_ref().map_or(0, |h| h.rcount[steps as usize - 1]);
            send(out, root, last * elem);
            vrank = None;
        }
    }
    let (Some(v), Some(h)) = (vrank, h) else { return };
    // Binomial gather retracing the halving, the largest distance first.
    let mut step = steps as usize;
    let mut mask = pof2 >> 1;
    while mask > 0 {
        step -= 1;
        let vd = v ^ mask;
        let dest = if vd == 0 && odd_root { root } else { real_rank(vd, rem, false) };
        if vd >> step << step == vroot >> step << step {
            send(out, dest, h.rcount[step] * elem);
            break;
        }
        recv(out, dest, h.scount[step] * elem);
        mask >>= 1;
    }
}

/// `ompi_coll_base_allreduce_intra_basic_linear`: the linear reduce to rank 0, then the
/// linear broadcast from it.
fn basic_linear(p: u64, r: u64, n: u64, out: &mut Vec<Step>) {
    linear(p, r, 0, n, out);
    bcast::linear(p, r, 0, n, out);
}

/// `ompi_coll_base_allreduce_intra_recursivedoubling`: even ranks below 2·rem hand their
/// vector to the odd rank above and get the result back at the end; the others exchange
/// whole vectors at distance 1, 2, 4, … of their new rank.
fn recursive_doubling(p: u64, r: u64, n: u64, out: &mut Vec<Step>) {
    let adj = floor_pow2(p);
    let extra = p - adj;
    let newrank = if r < 2 * extra {
        if r.is_multiple_of(2) {
            send(out, r + 1, n);
            None
        } else {
            recv(out, r - 1, n);
            Some(r >> 1)
        }
    } else {
        Some(r - extra)
    };
    if let Some(nr) = newrank {
        let mut d = 1;
        while d < adj {
            let remote = real_rank(nr ^ d, extra, true);
            sendrecv(out, remote, n, remote, n);
            d <<= 1;
        }
    }
    if r < 2 * extra {
        if r.is_multiple_of(2) {
            recv(out, r + 1, n);
        } else {
            send(out, r - 1, n);
        }
    }
}

/// `ompi_coll_base_allreduce_intra_ring`: the vector in P blocks (the first count mod P one
/// element longer); P − 1 steps pass to the right the block just reduced, then P − 1
/// sendrecvs pass the finished blocks round. Fewer elements than ranks: recursive doubling.
fn ring(p: u64, r: u64, count: u64, elem: u64, out: &mut Vec<Step>) {
    if count < p {
        recursive_doubling(p, r, count * elem, out);
        return;
    }
    let (early, late, split) = (count.div_ceil(p), count / p, count % p);
    let block = |b: u64| if b < split { early } else { late } * elem;
    let (right, left) = ((r + 1) % p, (r + p - 1) % p);
    ring_pass(out, (left, right), p, |k| block((r + p - k) % p), |k| block((r + p - k + 1) % p));
    for k in 0..p - 1 {
        let recv_block = (r + p - k) % p;
        let send_block = (r + 1 + p - k) % p;
        sendrecv(out, right, block(send_block), left, block(recv_block));
    }
}

/// The reducing pass of Open MPI's rings (allreduce, reduce_scatter): P − 1 steps, at step k
/// (from 1) a receive of `recv(k)` bytes from the left and a send of `send(k)` bytes to the
/// right, the block reduced last.
///
/// Open MPI keeps the next block's receive posted while it waits for the previous one and
/// sends that one on; the send needs the block, so each step here waits for the receive and
/// the send before it, then posts its receive and its send (Open MPI's posting order).
pub(super) fn ring_pass(
    out: &mut Vec<Step>,
    (left, right): (u64, u64),
    p: u64,
    recv: impl Fn(u64) -> u64,
    send: impl Fn(u64) -> u64,
) {
    for k in 1..p {
        if k > 1 {
            waitall(out);
        }
        irecv(out, left, recv(k));
        isend(out, right, send(k));
    }
    waitall(out);
}

/// `ompi_coll_base_allreduce_intra_redscat_allgather`: Rabenseifner's allreduce — fold to a
/// power of two, recursive halving, recursive doubling back, unfold. Fewer elements than
/// that power of two, or a non-commutative op: the linear allreduce.
fn redscat_allgather(a: &CollArgs, elem: u64, out: &mut Vec<Step>) {
    let (p, r, n) = (a.size as u64, a.rank as u64, a.send_bytes);
    let (pof2, steps) = pof2(p);
    let count = a.count;
    if count < pof2 || !a.op_commutative {
        basic_linear(p, r, n, out);
        return;
    }
    let rem = p - pof2;
    if let Some(v) = fold(r, rem, count, elem, out) {
        let h = halve(r, v, rem, steps, (count, elem), out);
        for step in (0..steps as usize).rev() {
            let dest = real_rank(v ^ (1 << step), rem, false);
            sendrecv(out, dest, h.rcount[step] * elem, dest, h.scount[step] * elem);
        }
    }
    if r < 2 * rem {
        if r % 2 != 0 {
            recv(out, r - 1, n);
        } else {
            send(out, r + 1, n);
        }
    }
}

/// Where the root stands in Rabenseifner's power-of-two group once the first `2·rem` ranks
/// have folded in pairs: whether it dropped out (an odd rank of a pair, whose virtual rank 0
/// then hands it the result) and its virtual rank.
pub(crate) fn virtual_root(root: u64, rem: u64) -> (bool, u64) {
    if root >= 2 * rem {
        (false, root - rem)
    } else if !root.is_multiple_of(2) {
        (true, 0)
    } else {
        (false, root / 2)
    }
}
