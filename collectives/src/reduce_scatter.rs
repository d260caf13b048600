//! MPI_Reduce_scatter and MPI_Reduce_scatter_block: recursive halving, pairwise,
//! noncommutative (recursive halving over bit-reversed blocks) and recursive doubling
//! (reduce_scatter/*.c; the _block files are the same algorithms with one block size).

use crate::blocks::{saturate, Blocks};
use crate::steps::{exchange_nonempty, sendrecv};
use crate::tree::{is_pow2, recursive_doubling, Fold, Level};
use crate::{CollArgs, ExpandError, Step, Thresholds, NOOP};

struct Names {
    halving: &'static str,
    pairwise: &'static str,
    noncommutative: &'static str,
    doubling: &'static str,
}

const RS: Names = Names {
    halving: "reduce_scatter_recursive_halving",
    pairwise: "reduce_scatter_pairwise",
    noncommutative: "reduce_scatter_noncommutative",
    doubling: "reduce_scatter_recursive_doubling",
};

const RSB: Names = Names {
    halving: "reduce_scatter_block_recursive_halving",
    pairwise: "reduce_scatter_block_pairwise",
    noncommutative: "reduce_scatter_block_noncommutative",
    doubling: "reduce_scatter_block_recursive_doubling",
};

/// `counts` holds the bytes of each rank's result block.
pub(crate) fn expand_reduce_scatter(
    a: &CollArgs,
    th: &Thresholds,
    out: &mut Vec<Step>,
) -> Result<&'static str, ExpandError> {
    let blocks = Blocks::PerRank(a.counts);
    Ok(run(a, &blocks, th.reduce_scatter_long_msg_size, &RS, out))
}

/// `recv_bytes` is every rank's result block.
pub(crate) fn expand_reduce_scatter_block(a: &CollArgs, th: &Thresholds, out: &mut Vec<Step>) -> &'static str {
    if a.recv_bytes == 0 {
        return NOOP; // MPI_Reduce_scatter_block returns before selecting
    }
    let blocks = Blocks::Uniform { size: a.size as u64, bytes: a.recv_bytes };
    run(a, &blocks, th.reduce_scatter_block_long_msg_size, &RSB, out)
}

fn run(a: &CollArgs, blocks: &Blocks, long: u64, names: &Names, out: &mut Vec<Step>) -> &'static str {
    let (p, r, total) = (a.size as u64, a.rank as u64, blocks.total());
    let noncommutative = !a.op_commutative && blocks.regular() && is_pow2(p);
    // Only the noncommutative algorithm lacks the early return for empty reductions.
    if total == 0 && !noncommutative {
        return NOOP;
    }
    if a.op_commutative {
        if total < long {
            halving(blocks, r, out);
            names.halving
        } else {
            pairwise(blocks, r, out);
            names.pairwise
        }
    } else if noncommutative {
        noncommutative_halving(p, r, total, out);
        names.noncommutative
    } else {
        doubling(blocks, r, out);
        names.doubling
    }
}

/// Fold to pof2 ranks (the even rank of each leading pair hands the whole vector to the odd
/// one), halve the vector pof2 ways with partners at distance pof2/2 first, then the odd
/// rank returns its partner's block. Empty transfers are skipped.
fn halving(blocks: &Blocks, r: u64, out: &mut Vec<Step>) {
    let fold = Fold::new(blocks.len(), true);
    fold.pre(r, blocks.total(), out);
    if let Some(newrank) = fold.newrank(r) {
        // Survivor i carries the blocks of the ranks it stands for.
        let new_block = |i: u64| {
            let old = fold.real(i);
            if old < 2 * fold.rem {
                blocks.get(old).saturating_add(blocks.get(old - 1))
            } else {
                blocks.get(old)
            }
        };
        let range = |a: u64, b: u64| (a..b).map(new_block).fold(0, u64::saturating_add);
        let (mut send_idx, mut recv_idx, mut last_idx) = (0, 0, fold.pof2);
        let mut mask = fold.pof2 >> 1;
        while mask > 0 {
            let newdst = newrank ^ mask;
            let (s, rb) = if newrank < newdst {
                send_idx = recv_idx + mask;
                (range(send_idx, last_idx), range(recv_idx, send_idx))
            } else {
                recv_idx = send_idx + mask;
                (range(send_idx, recv_idx), range(recv_idx, last_idx))
            };
            let dst = fold.real(newdst);
            exchange_nonempty(out, dst, s, dst, rb);
            send_idx = recv_idx;
            last_idx = recv_idx + mask;
            mask >>= 1;
        }
    }
    // The survivor returns the leaver's block; the leaver receives its own.
    fold.post(r, blocks.get(r & !1), true, out);
}

/// P−1 sendrecvs: send r+i its block, receive my block's contribution from r−i.
fn pairwise(blocks: &Blocks, r: u64, out: &mut Vec<Step>) {
    let p = blocks.len();
    for i in 1..p {
        let (to, from) = ((r + i) % p, (r + p - i) % p);
        sendrecv(out, to, blocks.get(to), from, blocks.get(r));
    }
}

/// Powers of two with equal blocks: log2 P sendrecvs with r XOR 1, r XOR 2, …, exchanging
/// half of the remaining vector each time.
fn noncommutative_halving(p: u64, r: u64, total: u64, out: &mut Vec<Step>) {
    let steps = p.trailing_zeros();
    for k in 0..steps {
        let bytes = saturate(total as u128 >> (k + 1));
        let peer = r ^ (1 << k);
        sendrecv(out, peer, bytes, peer, bytes);
    }
}

/// Recursive doubling: at each level send everything but my subtree's blocks and receive
/// everything but the partner subtree's; non-powers of two forward within the subtree.
fn doubling(blocks: &Blocks, r: u64, out: &mut Vec<Step>) {
    let total = blocks.total();
    let outside = |root: u64, mask: u64| total - blocks.sum(root, root + mask);
    let exchange = |lv: Level| (outside(lv.my_root, lv.mask), outside(lv.dst_root, lv.mask));
    let forward = |lv: Level| outside(lv.dst_root, lv.mask);
    recursive_doubling(blocks.len(), r, out, |v| v, exchange, forward);
}
