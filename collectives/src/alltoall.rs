//! MPI_Alltoall (`MPIR_Alltoall_intra_{brucks,scattered,pairwise,pairwise_sendrecv_replace}`)
//! and MPI_Alltoallv/w (`..._intra_scattered`, `..._intra_pairwise_sendrecv_replace`).

use crate::steps::{irecv, isend, sendrecv, waitall};
use crate::{CollArgs, Step, Thresholds, NOOP};

/// `send_bytes`/`recv_bytes` are the blocks for ONE peer.
pub(crate) fn expand_alltoall(a: &CollArgs, th: &Thresholds, out: &mut Vec<Step>) -> &'static str {
    let (p, r) = (a.size as u64, a.rank as u64);
    let (s, rb) = (a.send_bytes, a.recv_bytes);
    if rb == 0 {
        return NOOP; // MPI_Alltoall returns before selecting
    }
    if a.in_place {
        sendrecv_replace(p, out, |_| rb);
        return "alltoall_pairwise_sendrecv_replace";
    }
    let small_comm = p < th.alltoall_min_procs;
    if !small_comm && s <= th.alltoall_short_msg_size {
        bruck(p, r, rb, out);
        "alltoall_brucks"
    } else if s <= th.alltoall_medium_msg_size {
        scattered(p, r, th.alltoall_throttle, out, false, |_| s, |_| rb);
        "alltoall_scattered"
    } else {
        pairwise(p, r, s, rb, out);
        "alltoall_pairwise"
    }
}

/// `counts` = P send counts then P receive counts, by peer.
pub(crate) fn expand_alltoallv(a: &CollArgs, th: &Thresholds, out: &mut Vec<Step>) -> &'static str {
    let (p, r) = (a.size as u64, a.rank as u64);
    let (sends, recvs) = a.counts.split_at(a.size as usize);
    let w = a.coll == crate::Coll::Alltoallw;
    if a.in_place {
        sendrecv_replace(p, out, |peer| recvs[peer as usize]);
        return if w { "alltoallw_pairwise_sendrecv_replace" } else { "alltoallv_pairwise_sendrecv_replace" };
    }
    scattered(p, r, th.alltoall_throttle, out, true, |peer| sends[peer as usize], |peer| recvs[peer as usize]);
    if w {
        "alltoallw_scattered"
    } else {
        "alltoallv_scattered"
    }
}

/// In place: every pair (i, j), i ≤ j, swaps its blocks with one sendrecv_replace, pairs in
/// lexicographic order, so rank r meets 0, 1, …, P−1 — itself too: the loop's pair (r, r)
/// is a real `MPIC_Sendrecv_replace` with the calling rank, through the device. No block
/// is skipped, empty ones included (the v/w loops test no count).
fn sendrecv_replace(p: u64, out: &mut Vec<Step>, bytes: impl Fn(u64) -> u64) {
    for peer in 0..p {
        sendrecv(out, peer, bytes(peer), peer, bytes(peer));
    }
}

/// Scattered (`alltoall_intra_scattered.c` and its v/w twins): distances 0..P in batches of
/// `throttle` (`MPIR_CVAR_ALLTOALL_THROTTLE`; 0 = one batch); each batch posts a receive
/// from r+d for each of its distances, then a send to r−d for each, then waits for all.
/// The block for itself (d = 0, in the first batch) is a real message too: MPICH posts an
/// `MPIC_Irecv` from and an `MPIC_Isend` to the calling rank, which go through the device
/// (only a size-1 communicator takes ch4's self shortcut). So with P ≤ throttle the one
/// batch has P receives and P sends, the first of each with itself, and with P = 40 and the
/// default 32 the batches hold distances 0..=31 and 32..=39. `skip_empty`: the v/w
/// variants post nothing for an empty block, their own included.
fn scattered(
    p: u64,
    r: u64,
    throttle: u64,
    out: &mut Vec<Step>,
    skip_empty: bool,
    send_bytes: impl Fn(u64) -> u64,
    recv_bytes: impl Fn(u64) -> u64,
) {
    let batch = if throttle == 0 { p } else { throttle };
    let mut first = 0;
    while first < p {
        let last = first.saturating_add(batch).min(p);
        for d in first..last {
            let (from, rb) = ((r + d) % p, recv_bytes((r + d) % p));
            if !(skip_empty && rb == 0) {
                irecv(out, from, rb);
            }
        }
        for d in first..last {
            let (to, s) = ((r + p - d) % p, send_bytes((r + p - d) % p));
            if !(skip_empty && s == 0) {
                isend(out, to, s);
            }
        }
        waitall(out);
        first = last;
    }
}

/// Pairwise exchange: P−1 sendrecvs, with partner r XOR i on powers of two and otherwise
/// sending to r+i while receiving from r−i.
fn pairwise(p: u64, r: u64, s: u64, rb: u64, out: &mut Vec<Step>) {
    for i in 1..p {
        let (to, from) = if p.is_power_of_two() { (r ^ i, r ^ i) } else { ((r + i) % p, (r + p - i) % p) };
        sendrecv(out, to, s, from, rb);
    }
}

/// Bruck: ⌈log2 P⌉ steps; at distance 2^k every block whose (rotated) index has bit k set
/// moves to r + 2^k, and as many arrive from r − 2^k.
fn bruck(p: u64, r: u64, block: u64, out: &mut Vec<Step>) {
    let mut dist = 1;
    while dist < p {
        let bytes = ones_at_bit(p - 1, dist).saturating_mul(block);
        sendrecv(out, (r + dist) % p, bytes, (r + p - dist) % p, bytes);
        dist *= 2;
    }
}

/// How many of 1..=n have the bit `bit` (a power of two) set.
pub(crate) fn ones_at_bit(n: u64, bit: u64) -> u64 {
    let period = 2 * bit;
    let full = (n + 1) / period * bit;
    full + ((n + 1) % period).saturating_sub(bit)
}
