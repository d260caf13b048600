//! Open MPI's gathers and scatters: coll/tuned's gather and scatter algorithms
//! (`coll_base_gather.c`, `coll_base_scatter.c`) and coll/basic's gatherv and scatterv
//! (`coll_basic_gatherv.c`, `coll_basic_scatterv.c`). Every rank's block is
//! [`super::block_gather`] / [`super::block_scatter`] bytes; in place at the root only skips
//! the root's local copy, which is no message.

use super::topo;
use super::{block_gather, block_scatter, decision, name};
use crate::steps::{irecv, isend, recv, send, waitall};
use crate::{CollArgs, ExpandError, Step};

pub(super) fn gather(a: &CollArgs, alg: u8, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let (p, r, root, b) = (a.size as u64, a.rank as u64, a.root as u64, block_gather(a));
    // The binomial tree moves up to P blocks in one message.
    b.checked_mul(p).ok_or(ExpandError::Overflow { coll: a.coll })?;
    match alg {
        1 => gather_linear(p, r, root, b, out),
        2 => gather_binomial(p, r, root, b, out),
        3 => gather_linear_sync(p, r, root, b, out),
        _ => return Err(ExpandError::Unsupported { coll: a.coll }),
    }
    Ok(name(decision::GATHER_NAMES, alg))
}

pub(super) fn scatter(a: &CollArgs, alg: u8, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let (p, r, root, b) = (a.size as u64, a.rank as u64, a.root as u64, block_scatter(a));
    // The binomial tree moves up to P blocks in one message.
    b.checked_mul(p).ok_or(ExpandError::Overflow { coll: a.coll })?;
    match alg {
        1 => scatter_linear(p, r, root, b, out),
        2 => scatter_binomial(p, r, root, b, out),
        3 => scatter_linear_nb(p, r, root, b, out),
        _ => return Err(ExpandError::Unsupported { coll: a.coll }),
    }
    Ok(name(decision::SCATTER_NAMES, alg))
}

/// `mca_coll_basic_gatherv_intra` (`coll_basic_gatherv.c`): a rank with a non-empty block
/// sends it to the root; the root receives each other rank's non-empty block in rank order.
pub(super) fn gatherv(a: &CollArgs, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let root = a.root as u64;
    if a.rank != a.root {
        if a.send_bytes > 0 {
            send(out, root, a.send_bytes);
        }
    } else {
        for (i, &c) in a.counts.iter().enumerate() {
            if i as u64 != root && c > 0 {
                recv(out, i as u64, c);
            }
        }
    }
    Ok("ompi_gatherv_basic_linear")
}

/// `mca_coll_basic_scatterv_intra` (`coll_basic_scatterv.c`): the root sends each other
/// rank its non-empty block in rank order; a rank expecting a non-empty block receives it.
pub(super) fn scatterv(a: &CollArgs, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let root = a.root as u64;
    if a.rank != a.root {
        if a.recv_bytes > 0 {
            recv(out, root, a.recv_bytes);
        }
    } else {
        for (i, &c) in a.counts.iter().enumerate() {
            if i as u64 != root && c > 0 {
                send(out, i as u64, c);
            }
        }
    }
    Ok("ompi_scatterv_basic_linear")
}

/// `ompi_coll_base_gather_intra_basic_linear`: every other rank sends its block to the root,
/// which receives them one after the other in rank order.
fn gather_linear(p: u64, r: u64, root: u64, b: u64, out: &mut Vec<Step>) {
    if r != root {
        send(out, root, b);
        return;
    }
    (0..p).filter(|&i| i != root).for_each(|i| recv(out, i, b));
}

/// `ompi_coll_base_gather_intra_binomial`: over the in-order binomial tree, a rank receives
/// each child's subtree of blocks (nearest child first), then sends its whole subtree to its
/// parent.
fn gather_binomial(p: u64, r: u64, root: u64, b: u64, out: &mut Vec<Step>) {
    let t = topo::in_order_bmtree(p, r, root);
    let v = (r + p - root) % p;
    let mut blocks = 1;
    for &child in t.next() {
        let vc = (child as u64 + p - root) % p;
        let n = (vc - v).min(p - vc);
        recv(out, child as u64, n * b);
        blocks += n;
    }
    if let Some(parent) = t.prev {
        send(out, parent, blocks * b);
    }
}

/// `ompi_coll_base_gather_intra_linear_sync` with the fixed rules' first-segment size 0,
/// which leaves the first segment the whole block and the second one empty: a rank waits for
/// the root's empty go-ahead, then sends its block and an empty second segment; the root
/// does, rank by rank, receive-first-segment, send go-ahead, receive-second-segment.
fn gather_linear_sync(p: u64, r: u64, root: u64, b: u64, out: &mut Vec<Step>) {
    if r != root {
        recv(out, root, 0);
        send(out, root, b);
        send(out, root, 0);
        return;
    }
    // The root waits for each rank's first segment while the second-segment receives stay
    // posted (a wait for some requests): that wait is dropped, and the blocking go-ahead
    // send, issued with receives outstanding, joins the open batch; the final wait for all
    // second segments closes it.
    for i in (0..p).filter(|&i| i != root) {
        irecv(out, i, b);
        isend(out, i, 0);
        irecv(out, i, 0);
    }
    waitall(out);
}

/// `ompi_coll_base_scatter_intra_basic_linear`: the root sends each other rank its block in
/// rank order; the others receive.
fn scatter_linear(p: u64, r: u64, root: u64, b: u64, out: &mut Vec<Step>) {
    if r != root {
        recv(out, root, b);
        return;
    }
    (0..p).filter(|&i| i != root).for_each(|i| send(out, i, b));
}

/// `ompi_coll_base_scatter_intra_binomial`: over the in-order binomial tree, a rank receives
/// its subtree's blocks from its parent and sends each child that child's subtree, farthest
/// child first.
fn scatter_binomial(p: u64, r: u64, root: u64, b: u64, out: &mut Vec<Step>) {
    let t = topo::in_order_bmtree(p, r, root);
    let v = (r + p - root) % p;
    if let Some(parent) = t.prev {
        let vp = (parent + p - root) % p;
        recv(out, parent, (v - vp).min(p - v) * b);
    }
    for &child in t.next().iter().rev() {
        let vc = (child as u64 + p - root) % p;
        send(out, child as u64, (vc - v).min(p - vc) * b);
    }
}

/// `ompi_coll_base_scatter_intra_linear_nb` with coll/tuned's default
/// `scatter_blocking_send_ratio` 0 (no periodic blocking send): the root posts a send to
/// every other rank in rank order and waits for all; the others receive.
fn scatter_linear_nb(p: u64, r: u64, root: u64, b: u64, out: &mut Vec<Step>) {
    if r != root {
        recv(out, root, b);
        return;
    }
    (0..p).filter(|&i| i != root).for_each(|i| isend(out, i, b));
    waitall(out);
}
