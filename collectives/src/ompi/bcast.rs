//! Open MPI's broadcasts (`coll_base_bcast.c`). The fixed rules pass no segment size, so
//! every tree broadcast moves the whole message in one piece.

use super::topo::{self, Tree};
use super::{decision, name};
use crate::steps::{isend, recv, send, sendrecv, waitall};
use crate::{CollArgs, ExpandError, Step};

/// The radix coll/tuned gives the k-nomial broadcast (`coll_tuned_bcast_knomial_radix`).
const KNOMIAL_RADIX: u64 = 4;

/// Bytes of one element: the message over its element count, or 1 when the record gives no
/// count (a trace written without one: sizes are then exact only where blocks are whole).
fn elem_size(bytes: u64, count: u64) -> u64 {
    if count > 0 && bytes.is_multiple_of(count) {
        (bytes / count).max(1)
    } else {
        1
    }
}

pub(super) fn bcast(a: &CollArgs, alg: u8, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let (p, r, root, n) = (a.size as u64, a.rank as u64, a.root as u64, a.send_bytes);
    match alg {
        1 => linear(p, r, root, n, out),
        2 | 3 => generic(&topo::chain(p, r, root), n, out),
        4 => split_bintree(p, r, root, n, elem_size(n, a.count), out),
        5 => generic(&topo::kary(2, p, r, root), n, out),
        6 => generic(&topo::bmtree(p, r, root), n, out),
        7 => generic(&topo::kmtree(p, r, root, KNOMIAL_RADIX), n, out),
        8 => scatter_allgather(p, r, root, n, elem_size(n, a.count), out),
        _ => return Err(ExpandError::Unsupported { coll: a.coll }),
    }
    Ok(name(decision::BCAST_NAMES, alg))
}

/// `ompi_coll_base_bcast_intra_basic_linear`: the root posts a send to every other rank and
/// waits for all; the others receive.
pub(super) fn linear(p: u64, r: u64, root: u64, n: u64, out: &mut Vec<Step>) {
    if r != root {
        recv(out, root, n);
        return;
    }
    (0..p).filter(|&i| i != root).for_each(|i| isend(out, i, n));
    waitall(out);
}

/// `ompi_coll_base_bcast_intra_generic` with one segment (chain, pipeline, binary, binomial
/// and k-nomial trees): receive from the parent, then post a send to every child and wait
/// for all of them.
fn generic(t: &Tree, n: u64, out: &mut Vec<Step>) {
    if let Some(parent) = t.prev {
        recv(out, parent, n);
    }
    if !t.next().is_empty() {
        t.next().iter().for_each(|&c| isend(out, c as u64, n));
        waitall(out);
    }
}

/// `ompi_coll_base_bcast_intra_split_bintree` with one segment per half: the root sends the
/// first half (⌈count/2⌉ elements) down its left subtree and the second half down its
/// right one, then each rank swaps halves with its twin in the other subtree (the last rank
/// of an even-sized communicator gets its missing half from the root). Fewer than two
/// elements: the chain broadcast.
fn split_bintree(p: u64, r: u64, root: u64, n: u64, elem: u64, out: &mut Vec<Step>) {
    let count = n / elem;
    let halves = [count.div_ceil(2) * elem, count / 2 * elem];
    if halves[0] == 0 || halves[1] == 0 {
        generic(&topo::chain(p, r, root), n, out);
        return;
    }
    let t = topo::kary(2, p, r, root);
    let lr = (((r + p - root) % p + 1) % 2) as usize;
    if r == root {
        for (i, &c) in t.next().iter().take(2).enumerate() {
            send(out, c as u64, halves[i]);
        }
    } else {
        recv(out, t.prev.expect("a non-root rank has a parent"), halves[lr]);
        t.next().iter().for_each(|&c| send(out, c as u64, halves[lr]));
    }
    let pair = if lr == 0 { (r + 1) % p } else { (r + p - 1) % p };
    if !p.is_multiple_of(2) {
        if r != root {
            sendrecv(out, pair, halves[lr], pair, halves[1 - lr]);
        }
    } else if r == root {
        send(out, (root + p - 1) % p, halves[1]);
    } else if r == (root + p - 1) % p {
        recv(out, root, halves[1]);
    } else {
        sendrecv(out, pair, halves[lr], pair, halves[1 - lr]);
    }
}

/// `ompi_coll_base_bcast_intra_scatter_allgather`: a binomial scatter of ⌈count/P⌉-element
/// blocks, then a recursive-doubling allgather, where a group whose partner group is
/// incomplete passes on what its members with partners received (recursive halving).
/// Fewer elements than ranks: the linear broadcast.
fn scatter_allgather(p: u64, r: u64, root: u64, n: u64, elem: u64, out: &mut Vec<Step>) {
    let count = n / elem;
    if count < p {
        linear(p, r, root, n, out);
        return;
    }
    let sc = count.div_ceil(p);
    let v = (r + p - root) % p;
    let abs = |vr: u64| (vr + root) % p;
    // What rank `v` holds after the scatter: its subtree's blocks, clipped to the message.
    let span = |v: u64| if v == 0 { p.next_power_of_two() } else { v & v.wrapping_neg() };
    // Saturating: the block ends may pass 2^64 for a message near it; the message end clips them.
    let held = |v: u64| count.min((v + span(v)).saturating_mul(sc)).saturating_sub(v.saturating_mul(sc));
    // Scatter: receive from the parent, send each child its part, farthest first.
    let mut mask = 1;
    while mask < p {
        if v & mask != 0 {
            if held(v) > 0 {
                recv(out, (r + p - mask) % p, held(v) * elem);
            }
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if v + mask < p && held(v + mask) > 0 {
            send(out, (r + mask) % p, held(v + mask) * elem);
        }
        mask >>= 1;
    }
    // Allgather: groups of `mask` ranks swap their blocks; what a group holds is its
    // blocks up to the message's end (a missing rank's blocks lie past it).
    let group = |g: u64, m: u64| count.min((g + m).saturating_mul(sc)).saturating_sub(g.saturating_mul(sc));
    let mut mask = 1;
    while mask < p {
        let vr = v ^ mask;
        let (g, gr) = (v / mask * mask, vr / mask * mask);
        if vr < p {
            sendrecv(out, abs(vr), group(g, mask) * elem, abs(vr), group(gr, mask) * elem);
        }
        if gr + mask > p && g + mask < p {
            // The partner group is incomplete: members with a partner forward its blocks to
            // those without, by recursive halving inside the group (a group with no partner
            // group at all has nothing to forward).
            let with_partner = p - g - mask;
            let upper = group(g + mask, mask) * elem;
            let mut h = mask >> 1;
            while h > 0 {
                let vq = v ^ h;
                let tree_root = v / (2 * h) * (2 * h);
                let edge = tree_root + with_partner;
                if vq > v && v < edge && vq >= edge {
                    send(out, abs(vq), upper);
                } else if vq < v && vq < edge && v >= edge {
                    recv(out, abs(vq), upper);
                }
                h >>= 1;
            }
        }
        mask <<= 1;
    }
}
