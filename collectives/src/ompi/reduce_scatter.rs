//! Open MPI's reduce_scatter and reduce_scatter_block (`coll_base_reduce_scatter.c`,
//! `coll_base_reduce_scatter_block.c`). `counts` are the P result blocks in bytes and
//! `recv_bytes` the block of reduce_scatter_block. The C code counts elements; every message
//! here is a sum of whole blocks (or, for the power-of-two butterfly, the vector halved
//! again and again, which stays whole elements), so the byte sizes are the element counts
//! times the element size. Only the reduce the two linear algorithms call and the
//! `INT_MAX`-element switch need the element count itself ([`elements`]).

use super::reduce::{real_rank, ring_pass};
use super::{append, decision, name};
use crate::blocks::Blocks;
use crate::steps::{irecv, recv, send, sendrecv, waitall};
use crate::tree::floor_pow2;
use crate::{Coll, CollArgs, ExpandError, Step};

/// Open MPI's `int` element counts: above this many elements the linear
/// reduce_scatter_block reduces block by block.
const INT_MAX: u64 = i32::MAX as u64;

/// The element count of a `bytes`-byte vector: the record's `count` when it divides the bytes
/// into whole elements (and, for `per` > 1, into `per` equal blocks of whole elements);
/// otherwise the record carries no usable count and 1-byte elements are assumed.
fn elements(bytes: u64, count: u64, per: u64) -> u64 {
    if count > 0 && bytes.is_multiple_of(count) && count.is_multiple_of(per) {
        count
    } else {
        bytes
    }
}

pub(super) fn reduce_scatter(a: &CollArgs, alg: u8, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let (p, r) = (a.size as u64, a.rank as u64);
    let c = a.counts;
    match alg {
        1 => non_overlapping(a, out)?,
        2 => recursive_halving(p, r, Blocks::PerRank(c), out),
        3 => rs_ring(p, r, c, out),
        4 => butterfly(p, r, Blocks::PerRank(c), out),
        _ => return Err(ExpandError::Unsupported { coll: a.coll }),
    }
    Ok(name(decision::REDUCE_SCATTER_NAMES, alg))
}

pub(super) fn reduce_scatter_block(a: &CollArgs, alg: u8, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let (p, r, b) = (a.size as u64, a.rank as u64, a.recv_bytes);
    let total = b.checked_mul(p).ok_or(ExpandError::Overflow { coll: a.coll })?;
    let elems = elements(total, a.count, p);
    match alg {
        1 => rsb_linear(a, out)?,
        // More than INT_MAX elements: the algorithm hands over to the linear one.
        2 if elems > INT_MAX => rsb_linear(a, out)?,
        2 => rsb_recursive_doubling(p, r, b, out),
        3 if !a.op_commutative => rsb_linear(a, out)?,
        3 => recursive_halving(p, r, Blocks::Uniform { size: p, bytes: b }, out),
        4 if p.is_power_of_two() => rsb_butterfly_pof2(p, r, total, out),
        // Equal blocks: the reduce_scatter butterfly's steps (the C code is the same algorithm).
        4 => butterfly(p, r, Blocks::Uniform { size: p, bytes: b }, out),
        _ => return Err(ExpandError::Unsupported { coll: a.coll }),
    }
    Ok(name(decision::REDUCE_SCATTER_BLOCK_NAMES, alg))
}

/// `ompi_coll_base_reduce_scatter_intra_nonoverlapping`: a reduce of the whole vector to
/// rank 0, then a scatterv of the blocks from rank 0, both through the communicator's
/// collectives (coll/tuned's reduce, coll/basic's scatterv). In place counts at rank 0 only.
fn non_overlapping(a: &CollArgs, out: &mut Vec<Step>) -> Result<(), ExpandError> {
    let total: u64 = a.counts.iter().sum();
    let root_in_place = a.in_place && a.rank == 0;
    let reduce = CollArgs {
        coll: Coll::Reduce,
        root: 0,
        send_bytes: total,
        recv_bytes: total,
        counts: &[],
        count: elements(total, a.count, 1),
        in_place: root_in_place,
        ..*a
    };
    append(&reduce, out)?;
    let scatterv = CollArgs {
        coll: Coll::Scatterv,
        root: 0,
        send_bytes: 0,
        recv_bytes: if root_in_place { 0 } else { a.counts[a.rank as usize] },
        count: 0,
        in_place: root_in_place,
        ..*a
    };
    append(&scatterv, out)?;
    Ok(())
}

/// The first communicator rank whose block belongs to group block `i` (blocks below `rem`
/// hold two ranks' blocks).
fn first_block(i: u64, rem: u64) -> u64 {
    if i < rem {
        2 * i
    } else {
        i + rem
    }
}

/// `ompi_mirror_perm`: the lowest `nbits` bits of `x` reversed.
fn mirror(x: u64, nbits: u32) -> u64 {
    if nbits == 0 {
        0
    } else {
        x.reverse_bits() >> (64 - nbits)
    }
}

/// One exchange of a recursive halving: post the receive, send, wait for the receive; empty
/// halves are skipped. With both halves this is a send-receive (the blocking send completes
/// while the receive is the only request outstanding, and the wait is for it): `SendRecv`.
fn halving_exchange(out: &mut Vec<Step>, peer: u64, send_bytes: u64, recv_bytes: u64) {
    match (send_bytes > 0, recv_bytes > 0) {
        (true, true) => sendrecv(out, peer, send_bytes, peer, recv_bytes),
        (true, false) => send(out, peer, send_bytes),
        (false, true) => {
            irecv(out, peer, recv_bytes);
            waitall(out);
        }
        (false, false) => {}
    }
}

/// The fold to a power of two of the halving and butterfly algorithms: each even rank below
/// `2·rem` sends its whole vector (`total` bytes) to the odd one above and leaves; returns this
/// rank's rank among the survivors, `None` for a rank that left.
fn fold(r: u64, rem: u64, total: u64, out: &mut Vec<Step>) -> Option<u64> {
    if r >= 2 * rem {
        return Some(r - rem);
    }
    if r.is_multiple_of(2) {
        send(out, r + 1, total);
        None
    } else {
        recv(out, r - 1, total);
        Some(r / 2)
    }
}

/// `ompi_coll_base_reduce_scatter_intra_basic_recursivehalving`, and the
/// reduce_scatter_block one (commutative ops; equal blocks: the C code is the same algorithm):
/// the first `2·rem` ranks fold pairwise (even sends its vector to odd), the pof2 survivors
/// halve the vector over group blocks (a folded pair's two blocks count as one; the block
/// variant's `ompi_range_sum`), largest distance first, empty halves skipped, and each odd
/// folded rank finally sends its even neighbour that neighbour's block.
fn recursive_halving(p: u64, r: u64, c: Blocks, out: &mut Vec<Step>) {
    let total = c.sum(0, p);
    let pof2 = floor_pow2(p);
    let rem = p - pof2;
    let v = fold(r, rem, total, out);
    if let Some(v) = v {
        // Bytes of group blocks [lo, hi).
        let blocks = |lo: u64, hi: u64| c.sum(first_block(lo, rem), first_block(hi, rem));
        let (mut send_index, mut recv_index, mut last_index) = (0, 0, pof2);
        let mut mask = pof2 >> 1;
        while mask > 0 {
            let vpeer = v ^ mask;
            let peer = real_rank(vpeer, rem, true);
            let (send_bytes, recv_bytes) = if v < vpeer {
                send_index = recv_index + mask;
                (blocks(send_index, last_index), blocks(recv_index, send_index))
            } else {
                recv_index = send_index + mask;
                (blocks(send_index, recv_index), blocks(recv_index, last_index))
            };
            halving_exchange(out, peer, send_bytes, recv_bytes);
            send_index = recv_index;
            last_index = recv_index + mask;
            mask >>= 1;
        }
    }
    if r < 2 * rem {
        if r.is_multiple_of(2) {
            if c.get(r) > 0 {
                recv(out, r + 1, c.get(r));
            }
        } else if c.get(r - 1) > 0 {
            send(out, r - 1, c.get(r - 1));
        }
    }
}

/// `ompi_coll_base_reduce_scatter_intra_ring`: P − 1 steps around the ring; at step k a rank
/// sends block r − k (reduced with what it received) to r + 1 while the next block arrives
/// from r − 1, the last one being its own.
fn rs_ring(p: u64, r: u64, c: &[u64], out: &mut Vec<Step>) {
    let (right, left) = ((r + 1) % p, (r + p - 1) % p);
    let block = |i: u64| c[(i % p) as usize];
    // Each receive is posted for the largest block; the message is the block the left
    // neighbour sends, r − 1 − k at step k.
    ring_pass(out, (left, right), p, |k| block(r + 2 * p - 1 - k), |k| block(r + p - k));
}

/// `ompi_coll_base_reduce_scatter_intra_butterfly`, and the reduce_scatter_block one for P
/// not a power of two: the first `2·rem` ranks fold pairwise; the pof2 survivors run a
/// butterfly with distances 1, 2, 4, …, each round swapping half of the group blocks still
/// held (sendrecv, empty halves included); then each survivor sends its results to the rank
/// of its mirrored group rank (first the folded even rank's block, then the odd's), receiving
/// its own from there.
fn butterfly(p: u64, r: u64, c: Blocks, out: &mut Vec<Step>) {
    let total = c.total();
    let pof2 = floor_pow2(p);
    let rem = p - pof2;
    let log2 = pof2.trailing_zeros();
    let v = fold(r, rem, total, out);
    let Some(v) = v else {
        // An excluded (even) rank r: the C code mirrors (r + 1) / 2, which is r / 2.
        let peer = real_rank(mirror(r / 2, log2), rem, true);
        recv(out, peer, c.get(r));
        return;
    };
    // Bytes of group blocks [lo, lo + n).
    let blocks = |lo: u64, n: u64| c.sum(first_block(lo, rem), first_block(lo + n, rem));
    let (mut nblocks, mut send_index, mut recv_index) = (pof2, 0, 0);
    let mut mask = 1;
    while mask < pof2 {
        let peer = real_rank(v ^ mask, rem, true);
        nblocks /= 2;
        if v & mask == 0 {
            send_index += nblocks;
        } else {
            recv_index += nblocks;
        }
        sendrecv(out, peer, blocks(send_index, nblocks), peer, blocks(recv_index, nblocks));
        send_index = recv_index;
        mask <<= 1;
    }
    let vpeer = mirror(v, log2);
    let peer = real_rank(vpeer, rem, true);
    let mut index = first_block(send_index, rem);
    if vpeer < rem {
        send(out, peer - 1, c.get(index));
        index += 1;
    }
    if vpeer != v {
        sendrecv(out, peer, c.get(index), peer, c.get(r));
    }
}

/// `ompi_coll_base_reduce_scatter_block_basic_linear`: a reduce of the whole vector to rank 0
/// and a scatter of its blocks, through the communicator's collectives; above `INT_MAX`
/// elements, one reduce per block, each followed by rank 0 sending that block to its rank.
/// The reduce is never in place (in place the C code passes the receive buffer).
fn rsb_linear(a: &CollArgs, out: &mut Vec<Step>) -> Result<(), ExpandError> {
    let (p, r, b) = (a.size as u64, a.rank as u64, a.recv_bytes);
    let total = b.checked_mul(p).ok_or(ExpandError::Overflow { coll: a.coll })?;
    let elems = elements(total, a.count, p);
    let reduce = CollArgs { coll: Coll::Reduce, root: 0, counts: &[], in_place: false, ..*a };
    if elems > INT_MAX {
        for i in 0..p {
            append(&CollArgs { send_bytes: b, recv_bytes: b, count: elems / p, ..reduce }, out)?;
            if r == 0 && i != 0 {
                send(out, i, b);
            } else if r != 0 && i == r {
                recv(out, 0, b);
            }
        }
    } else {
        append(&CollArgs { send_bytes: total, recv_bytes: total, count: elems, ..reduce }, out)?;
        let scatter = CollArgs { coll: Coll::Scatter, send_bytes: b, recv_bytes: b, count: 0, ..reduce };
        append(&scatter, out)?;
    }
    Ok(())
}

/// `ompi_coll_base_reduce_scatter_block_intra_recursivedoubling`: at distance 1, 2, 4, … a
/// rank sendrecvs with rank XOR distance everything but the blocks of its own aligned
/// subtree (receiving everything but the partner subtree's); where the partner subtree is
/// cut off by P, the ranks that exchanged forward what they received to those without a
/// partner, by recursive halving inside the subtree.
fn rsb_recursive_doubling(p: u64, r: u64, b: u64, out: &mut Vec<Step>) {
    // Blocks outside the subtree of `mask` ranks starting at `root`.
    let outside = |root: u64, mask: u64| b * (root + p.saturating_sub(root + mask));
    let mut mask = 1;
    while mask < p {
        let remote = r ^ mask;
        let (tree_root, remote_root) = (r / mask * mask, remote / mask * mask);
        let recv_bytes = outside(remote_root, mask);
        if remote < p {
            sendrecv(out, remote, outside(tree_root, mask), remote, recv_bytes);
        }
        if remote_root + mask > p {
            // Ranks of this subtree that hold data; negative (−1) for a rank whose own
            // subtree is cut off by P, which then neither sends nor receives.
            let with_data = p as i64 - (tree_root + mask) as i64;
            let mut h = mask >> 1;
            while h > 0 {
                let q = r ^ h;
                let edge = (r / (2 * h) * (2 * h)) as i64 + with_data;
                let (qi, ri) = (q as i64, r as i64);
                if q > r && ri < edge && qi >= edge {
                    send(out, q, recv_bytes);
                } else if q < r && qi < edge && ri >= edge {
                    recv(out, q, recv_bytes);
                }
                h >>= 1;
            }
        }
        mask <<= 1;
    }
}

/// `ompi_coll_base_reduce_scatter_block_intra_butterfly_pof2`: at distance 1, 2, 4, … a rank
/// sendrecvs half of the part of the (mirror-permuted) vector it still holds with rank XOR
/// distance.
fn rsb_butterfly_pof2(p: u64, r: u64, total: u64, out: &mut Vec<Step>) {
    let mut half = total;
    let mut mask = 1;
    while mask < p {
        half /= 2;
        sendrecv(out, r ^ mask, half, r ^ mask, half);
        mask <<= 1;
    }
}
