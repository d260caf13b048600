//! Open MPI's barriers (`coll_base_barrier.c`). All messages are empty.

use super::{decision, name};
use crate::steps::{irecv, recv, send, sendrecv, waitall};
use crate::tree::floor_pow2;
use crate::{CollArgs, ExpandError, Step};

pub(super) fn barrier(a: &CollArgs, alg: u8, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    let (p, r) = (a.size as u64, a.rank as u64);
    match alg {
        1 => linear(p, r, out),
        2 => double_ring(p, r, out),
        3 => recursive_doubling(p, r, out),
        4 => bruck(p, r, out),
        5 if p == 2 => sendrecv(out, 1 - r, 0, 1 - r, 0),
        6 => tree(p, r, out),
        _ => return Err(ExpandError::Unsupported { coll: a.coll }),
    }
    Ok(name(decision::BARRIER_NAMES, alg))
}

/// `ompi_coll_base_barrier_intra_basic_linear`: every rank sends to 0 and waits for its
/// answer; rank 0 posts a receive from any source for each other rank (taken here in rank
/// order: empty messages, any matching is the same), waits for all, then answers each.
fn linear(p: u64, r: u64, out: &mut Vec<Step>) {
    if r > 0 {
        send(out, 0, 0);
        recv(out, 0, 0);
        return;
    }
    (1..p).for_each(|i| irecv(out, i, 0));
    waitall(out);
    (1..p).for_each(|i| send(out, i, 0));
}

/// `ompi_coll_base_barrier_intra_doublering`: a token goes twice round the ring from rank 0.
fn double_ring(p: u64, r: u64, out: &mut Vec<Step>) {
    let (left, right) = ((r + p - 1) % p, (r + 1) % p);
    for _ in 0..2 {
        if r > 0 {
            recv(out, left, 0);
        }
        send(out, right, 0);
        if r == 0 {
            recv(out, left, 0);
        }
    }
}

/// `ompi_coll_base_barrier_intra_recursivedoubling`: ranks above the largest power of two
/// first exchange with their partner below it, the power-of-two ranks run recursive
/// doubling, and the partners below are released last.
fn recursive_doubling(p: u64, r: u64, out: &mut Vec<Step>) {
    let adj = floor_pow2(p);
    if adj != p {
        if r >= adj {
            sendrecv(out, r - adj, 0, r - adj, 0);
        } else if r < p - adj {
            recv(out, r + adj, 0);
        }
    }
    if r < adj {
        let mut mask = 1;
        while mask < adj {
            let remote = r ^ mask;
            mask <<= 1;
            if remote < adj {
                sendrecv(out, remote, 0, remote, 0);
            }
        }
    }
    if adj != p && r < p - adj {
        send(out, r + adj, 0);
    }
}

/// `ompi_coll_base_barrier_intra_bruck`: at distance 1, 2, 4, … send to r + d, receive from
/// r − d.
fn bruck(p: u64, r: u64, out: &mut Vec<Step>) {
    let mut d = 1;
    while d < p {
        sendrecv(out, (r + d) % p, 0, (r + p - d) % p, 0);
        d <<= 1;
    }
}

/// `ompi_coll_base_barrier_intra_tree`: a binomial gather to rank 0, then the same tree back.
fn tree(p: u64, r: u64, out: &mut Vec<Step>) {
    let depth = p.next_power_of_two();
    let partner_in = |jump: u64| {
        let partner = r ^ jump;
        (partner & (jump - 1) == 0 && partner < p).then_some(partner)
    };
    let mut jump = 1;
    while jump < depth {
        match partner_in(jump) {
            Some(q) if q > r => recv(out, q, 0),
            Some(q) if q < r => send(out, q, 0),
            _ => {}
        }
        jump <<= 1;
    }
    let mut jump = depth >> 1;
    while jump > 0 {
        match partner_in(jump) {
            Some(q) if q > r => send(out, q, 0),
            Some(q) if q < r => recv(out, q, 0),
            _ => {}
        }
        jump >>= 1;
    }
}
