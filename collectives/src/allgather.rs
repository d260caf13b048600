//! MPI_Allgather and MPI_Allgatherv: recursive doubling, Bruck and ring
//! (allgather/allgather_intra_*.c, allgatherv/allgatherv_intra_*.c).

use crate::blocks::{saturate, Blocks};
use crate::steps::{exchange_nonempty, sendrecv};
use crate::tree::{is_pow2, recursive_doubling, ring, Level};
use crate::{CollArgs, ExpandError, Step, Thresholds, NOOP};

/// `recv_bytes` is one rank's block (what MPICH sizes everything by).
pub(crate) fn expand_allgather(a: &CollArgs, th: &Thresholds, out: &mut Vec<Step>) -> &'static str {
    let (p, b) = (a.size as u64, a.recv_bytes);
    if b == 0 || (a.send_bytes == 0 && !a.in_place) {
        return NOOP; // MPI_Allgather returns before selecting
    }
    let blocks = Blocks::Uniform { size: p, bytes: b };
    let total = saturate(b as u128 * p as u128);
    match select(p, total, th.allgather_long_msg_size, th.allgather_short_msg_size) {
        Algo::RecursiveDoubling => {
            doubling(&blocks, a.rank as u64, out);
            "allgather_recursive_doubling"
        }
        Algo::Bruck => {
            bruck(&blocks, a.rank as u64, out);
            "allgather_brucks"
        }
        Algo::Ring => {
            ring(p, a.rank as u64, out, |_| b);
            "allgather_ring"
        }
    }
}

/// `counts` holds every rank's block.
pub(crate) fn expand_allgatherv(
    a: &CollArgs,
    th: &Thresholds,
    out: &mut Vec<Step>,
) -> Result<&'static str, ExpandError> {
    let blocks = Blocks::PerRank(a.counts);
    let (p, r, total) = (a.size as u64, a.rank as u64, blocks.total());
    if total == 0 {
        return Ok(NOOP); // every allgatherv algorithm returns before communicating
    }
    Ok(match select(p, total, th.allgatherv_long_msg_size, th.allgatherv_short_msg_size) {
        Algo::RecursiveDoubling => {
            doubling(&blocks, r, out);
            "allgatherv_recursive_doubling"
        }
        Algo::Bruck => {
            bruck(&blocks, r, out);
            "allgatherv_brucks"
        }
        Algo::Ring => {
            ring_pipelined(&blocks, r, th.allgatherv_pipeline_msg_size, out);
            "allgatherv_ring"
        }
    })
}

enum Algo {
    RecursiveDoubling,
    Bruck,
    Ring,
}

fn select(p: u64, total: u64, long: u64, short: u64) -> Algo {
    if is_pow2(p) {
        if total < long {
            Algo::RecursiveDoubling
        } else {
            Algo::Ring
        }
    } else if total < short {
        Algo::Bruck
    } else {
        Algo::Ring
    }
}

/// Each level swaps the blocks of the two aligned subtrees (selected for powers of two only).
fn doubling(blocks: &Blocks, rank: u64, out: &mut Vec<Step>) {
    let exchange =
        |lv: Level| (blocks.sum(lv.my_root, lv.my_root + lv.mask), blocks.sum(lv.dst_root, lv.dst_root + lv.mask));
    let forward = |lv: Level| blocks.sum(lv.dst_root, lv.dst_root + lv.mask);
    recursive_doubling(blocks.len(), rank, out, |v| v, exchange, forward);
}

/// Bruck: at distance 1, 2, 4, … send everything gathered so far (the blocks of ranks
/// r, r+1, …) to r − distance and receive as much from r + distance; a last step sends the
/// first P − pof2 blocks.
fn bruck(blocks: &Blocks, r: u64, out: &mut Vec<Step>) {
    let p = blocks.len();
    let mut dist = 1;
    while dist <= p / 2 {
        let (src, dst) = ((r + dist) % p, (r + p - dist) % p);
        sendrecv(out, dst, blocks.cyclic(r, dist), src, blocks.cyclic(src, dist));
        dist *= 2;
    }
    let rem = p - dist;
    if rem > 0 {
        let (src, dst) = ((r + dist) % p, (r + p - dist) % p);
        sendrecv(out, dst, blocks.cyclic(r, rem), src, blocks.cyclic(src, rem));
    }
}

/// Allgatherv's ring: blocks travel rightwards as in the plain ring, but cut into chunks of
/// at most `pipeline` bytes when some block exceeds it, and empty transfers are skipped.
/// MPICH chunks by `pipeline / extent` elements; in bytes that is exact for types whose
/// extent divides the pipeline size (every power-of-two-sized type).
fn ring_pipelined(blocks: &Blocks, r: u64, pipeline: u64, out: &mut Vec<Step>) {
    let p = blocks.len();
    let (left, right) = ((r + p - 1) % p, (r + 1) % p);
    let largest = (0..p).map(|i| blocks.get(i)).max().unwrap_or(0);
    let chunk = if pipeline > 0 && largest > pipeline { pipeline } else { largest };
    let total = blocks.total();
    let (mut to_send, mut to_recv) = (total - blocks.get(right), total - blocks.get(r));
    let (mut sidx, mut ridx, mut soff, mut roff) = (r, left, 0, 0);
    while to_send > 0 || to_recv > 0 {
        let send_now = if to_send > 0 { (blocks.get(sidx) - soff).min(chunk) } else { 0 };
        let recv_now = if to_recv > 0 { (blocks.get(ridx) - roff).min(chunk) } else { 0 };
        exchange_nonempty(out, right, send_now, left, recv_now);
        (to_send, to_recv) = (to_send - send_now, to_recv - recv_now);
        (soff, roff) = (soff + send_now, roff + recv_now);
        if soff == blocks.get(sidx) {
            (soff, sidx) = (0, (sidx + p - 1) % p);
        }
        if roff == blocks.get(ridx) {
            (roff, ridx) = (0, (ridx + p - 1) % p);
        }
    }
}
