//! Allgather and allgatherv (coll/base, picked by coll/tuned's fixed rules). Apart from the
//! linear/default algorithms (gather or gatherv, then bcast) every one is a sequence of
//! `ompi_coll_base_sendrecv` calls, one `SendRecv` each. In place changes only local
//! copies, except where noted.

use super::decision;
use crate::steps::sendrecv;
use crate::{Coll, CollArgs, ExpandError, Step};

/// `ompi_coll_tuned_allgather_intra_do_this`: 1 linear, 2 bruck, 3 recursive doubling,
/// 4 ring, 5 neighbor exchange, 6 two_proc (no extra arguments: segsize and fan-out 0).
pub(super) fn allgather(a: &CollArgs, alg: u8, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let name = super::name(decision::ALLGATHER_NAMES, alg);
    let p = a.size as u64;
    let b = a.recv_bytes;
    match alg {
        1 => linear(a, out)?,
        2 => bruck(a, |_| b, out),
        // Recursive doubling falls back to Bruck when P is not a power of two.
        3 if p.is_power_of_two() => recursive_doubling(a, b, out),
        3 => bruck(a, |_| b, out),
        4 => ring(a, |_| b, out),
        // Neighbor exchange falls back to the ring when P is odd.
        5 if p.is_multiple_of(2) => neighbor(a, |_| b, out),
        5 => ring(a, |_| b, out),
        6 => {
            // ompi_coll_base_allgather_intra_two_procs (coll_base_allgather.c; picked for
            // P = 2 only): one sendrecv with the other rank; in place it sends its block of
            // the receive buffer, otherwise the send buffer.
            let other = (a.rank ^ 1) as u64 % p;
            let sb = if a.in_place { b } else { a.send_bytes };
            sendrecv(out, other, sb, other, b);
        }
        _ => return Err(ExpandError::Unsupported { coll: a.coll }),
    }
    Ok(name)
}

/// `ompi_coll_base_allgather_intra_basic_linear` (coll_base_allgather.c): gather to rank 0
/// then bcast of all P blocks from rank 0, through the communicator's collectives. In place,
/// rank 0 gathers in place and the others send their block of the receive buffer.
fn linear(a: &CollArgs, out: &mut Vec<Step>) -> Result<(), ExpandError> {
    let root0 = a.rank == 0;
    let gather = CollArgs {
        coll: Coll::Gather,
        root: 0,
        send_bytes: if a.in_place && !root0 { a.recv_bytes } else { a.send_bytes },
        recv_bytes: a.recv_bytes,
        in_place: a.in_place && root0,
        ..*a
    };
    super::append(&gather, out)?;
    let whole = a.recv_bytes.saturating_mul(a.size as u64);
    let bcast = CollArgs { coll: Coll::Bcast, root: 0, send_bytes: whole, recv_bytes: whole, in_place: false, ..*a };
    super::append(&bcast, out)?;
    Ok(())
}

/// `ompi_coll_base_allgather_intra_bruck` / `ompi_coll_base_allgatherv_intra_bruck`: at
/// distance d = 1, 2, 4, … < P a sendrecv to rank−d of the blocks of ranks rank…rank+n−1 and
/// from rank+d of those of rank+d…rank+d+n−1, n = d while d ≤ P/2, else P − d.
fn bruck(a: &CollArgs, block: impl Fn(u64) -> u64, out: &mut Vec<Step>) {
    let (p, r) = (a.size as u64, a.rank as u64);
    let mut d = 1u64;
    while d < p {
        let n = if d <= p / 2 { d } else { p - d };
        let from = (r + d) % p;
        let sb = (0..n).map(|i| block((r + i) % p)).fold(0u64, u64::saturating_add);
        let rb = (0..n).map(|i| block((from + i) % p)).fold(0u64, u64::saturating_add);
        sendrecv(out, (r + p - d) % p, sb, from, rb);
        d <<= 1;
    }
}

/// `ompi_coll_base_allgather_intra_recursivedoubling` (coll_base_allgather.c; P a power of
/// two): at distance d = 1, 2, 4, … a sendrecv of d blocks each way with rank XOR d.
fn recursive_doubling(a: &CollArgs, b: u64, out: &mut Vec<Step>) {
    let (p, r) = (a.size as u64, a.rank as u64);
    let mut d = 1u64;
    while d < p {
        let bytes = d.saturating_mul(b);
        sendrecv(out, r ^ d, bytes, r ^ d, bytes);
        d <<= 1;
    }
}

/// `ompi_coll_base_allgather_intra_ring` / `ompi_coll_base_allgatherv_intra_ring`: at step
/// i = 0…P−2 a sendrecv of block rank−i to rank+1 and of block rank−i−1 from rank−1.
fn ring(a: &CollArgs, block: impl Fn(u64) -> u64, out: &mut Vec<Step>) {
    let (p, r) = (a.size as u64, a.rank as u64);
    let (to, from) = ((r + 1) % p, (r + p - 1) % p);
    for i in 0..p - 1 {
        sendrecv(out, to, block((r + p - i) % p), from, block((r + 2 * p - i - 1) % p));
    }
}

/// `ompi_coll_base_allgather_intra_neighborexchange` /
/// `ompi_coll_base_allgatherv_intra_neighborexchange` (P even): a first sendrecv of the own
/// block with neighbor 0 (rank+1 for even ranks, rank−1 for odd), then for i = 1…P/2−1 a
/// sendrecv of two blocks with neighbor i mod 2: the pair received in the previous step
/// goes out, the pair starting at the block moved ±2 from the last one of that parity comes in.
fn neighbor(a: &CollArgs, block: impl Fn(u64) -> u64, out: &mut Vec<Step>) {
    let (p, r) = (a.size as u64, a.rank as u64);
    let even = r.is_multiple_of(2);
    let (up, down) = ((r + 1) % p, (r + p - 1) % p);
    // Neighbours, start of the next pair to receive and its step (as +step mod P) per parity.
    let nb = if even { [up, down] } else { [down, up] };
    let mut recv_from = if even { [r, r] } else { [down, down] };
    let offset = if even { [2, p - 2] } else { [p - 2, 2] };
    sendrecv(out, nb[0], block(r), nb[0], block(nb[0]));
    let mut send_from = if even { r } else { recv_from[0] };
    let pair = |first: u64| block(first).saturating_add(block((first + 1) % p));
    for i in 1..p / 2 {
        let k = (i % 2) as usize;
        recv_from[k] = (recv_from[k] + offset[k]) % p;
        sendrecv(out, nb[k], pair(send_from), nb[k], pair(recv_from[k]));
        send_from = recv_from[k];
    }
}

/// `ompi_coll_tuned_allgatherv_intra_do_this`: 1 default, 2 bruck, 3 ring, 4 neighbor
/// exchange, 5 two_proc (no extra arguments). Blocks are `counts`; the rank's own send is
/// its count (what the MPI call's send count must equal; in place it is that block).
pub(super) fn allgatherv(a: &CollArgs, alg: u8, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let name = super::name(decision::ALLGATHERV_NAMES, alg);
    let p = a.size as u64;
    let block = |i: u64| a.counts.get(i as usize).copied().unwrap_or(0);
    match alg {
        1 => {
            // ompi_coll_base_allgatherv_intra_basic_default (coll_base_allgatherv.c): gatherv
            // to rank 0 (in place, each rank passes its block of the receive buffer as the
            // send buffer, so rank 0's gatherv is not in place either), then a bcast from
            // rank 0 of one indexed datatype covering every block.
            let own = block(a.rank as u64);
            let gatherv =
                CollArgs { coll: Coll::Gatherv, root: 0, send_bytes: own, recv_bytes: own, in_place: false, ..*a };
            super::append(&gatherv, out)?;
            let whole = a.counts.iter().fold(0u64, |s, &c| s.saturating_add(c));
            let bcast =
                CollArgs { coll: Coll::Bcast, root: 0, send_bytes: whole, recv_bytes: whole, in_place: false, ..*a };
            super::append(&bcast, out)?;
        }
        2 => bruck(a, block, out),
        3 => ring(a, block, out),
        4 if p.is_multiple_of(2) => neighbor(a, block, out),
        // Neighbor exchange falls back to the ring when P is odd.
        4 => ring(a, block, out),
        5 => {
            // ompi_coll_base_allgatherv_intra_two_procs (coll_base_allgatherv.c; P = 2 only):
            // one sendrecv of the own block for the other rank's.
            let other = (a.rank ^ 1) as u64 % p;
            sendrecv(out, other, block(a.rank as u64), other, block(other));
        }
        _ => return Err(ExpandError::Unsupported { coll: a.coll }),
    }
    Ok(name)
}
