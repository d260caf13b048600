//! A record taken apart into what an extrapolation keeps fixed (its shape: the call, its tag,
//! communicator and flags), what it says relative to the process topology (its peers) and
//! what it fits as a function of the rank count (its sizes).

use psins_formats::{Coll, Op, NO_RANK, PROC_NULL};

/// How many peers and sizes a record carries, at most.
pub const MAX_PEERS: usize = 2;
pub const MAX_PARAMS: usize = 3;

/// The record with its peers, sizes and request ids zeroed: two records of one slot of the
/// program have equal shapes.
pub fn shape(op: &Op) -> Op {
    let mut s = *op;
    match &mut s {
        Op::Send { peer, bytes, .. } | Op::Recv { peer, bytes, .. } => {
            *peer = 0;
            *bytes = 0;
        }
        Op::Isend { peer, bytes, req, .. }
        | Op::SendInit { peer, bytes, req, .. }
        | Op::Irecv { peer, bytes, req, .. }
        | Op::RecvInit { peer, bytes, req, .. } => {
            *peer = 0;
            *bytes = 0;
            *req = 0;
        }
        Op::Sendrecv { peer, bytes, src, rbytes, .. } => {
            *peer = 0;
            *bytes = 0;
            *src = 0;
            *rbytes = 0;
        }
        Op::Probe { peer, bytes, .. } => {
            *peer = 0;
            *bytes = 0;
        }
        Op::Wait { count, .. } => *count = 0,
        Op::Coll { root, send_bytes, recv_bytes, count, req, instance, .. } => {
            *root = 0;
            *send_bytes = 0;
            *recv_bytes = 0;
            *count = 0;
            *req = 0;
            *instance = 0;
        }
        Op::Poll { calls, between_ns, min_gap_ns, peer, .. } => {
            *calls = 0;
            *between_ns = 0;
            *min_gap_ns = 0;
            *peer = 0;
        }
        Op::OtherReq { req, .. } => *req = 0,
        _ => {}
    }
    s
}

/// The record's peer fields, in a fixed order per kind (a collective's root counts as one):
/// the one list [`peers`] and [`set_peers`] read and write.
fn peer_fields(op: &mut Op) -> [Option<&mut i32>; MAX_PEERS] {
    match op {
        Op::Send { peer, .. }
        | Op::Isend { peer, .. }
        | Op::SendInit { peer, .. }
        | Op::Recv { peer, .. }
        | Op::Irecv { peer, .. }
        | Op::RecvInit { peer, .. }
        | Op::Probe { peer, .. } => [Some(peer), None],
        Op::Sendrecv { peer, src, .. } => [Some(peer), Some(src)],
        Op::Coll { root, .. } => [Some(root), None],
        Op::Poll { func, peer, .. } if func.is_probe() => [Some(peer), None],
        _ => [None, None],
    }
}

/// The record's peers and how many it has.
pub fn peers(op: &Op) -> ([i32; MAX_PEERS], usize) {
    let mut op = *op;
    let f = peer_fields(&mut op);
    let n = f.iter().filter(|x| x.is_some()).count();
    (f.map(|x| x.map_or(0, |p| *p)), n)
}

/// `op` with its peers replaced.
pub fn set_peers(op: &mut Op, p: [i32; MAX_PEERS]) {
    for (f, v) in peer_fields(op).into_iter().zip(p) {
        if let Some(f) = f {
            *f = v;
        }
    }
}

/// The record's tags: a loop over partners often tags each message with its iteration.
fn tag_fields(op: &mut Op) -> [Option<&mut i32>; 2] {
    match op {
        Op::Send { tag, .. } | Op::Isend { tag, .. } | Op::Recv { tag, .. } | Op::Irecv { tag, .. } => {
            [Some(tag), None]
        }
        Op::Probe { tag, .. } => [Some(tag), None],
        Op::Sendrecv { tag, rtag, .. } => [Some(tag), Some(rtag)],
        _ => [None, None],
    }
}

/// The record's tags (0 where it has none) and how many it has.
pub fn tags(op: &Op) -> ([i32; 2], usize) {
    let mut op = *op;
    let f = tag_fields(&mut op);
    let n = f.iter().filter(|t| t.is_some()).count();
    (f.map(|t| t.map_or(0, |x| *x)), n)
}

/// `op` with every tag moved by `by`.
pub fn shift_tags(op: &mut Op, by: i32) {
    for t in tag_fields(op).into_iter().flatten() {
        *t += by;
    }
}

/// The record's sizes and counts, fitted as functions of the rank count: the one list
/// [`params`] and [`set_params`] read and write.
fn param_fields(op: &mut Op) -> [Option<&mut u64>; MAX_PARAMS] {
    match op {
        Op::Send { bytes, .. }
        | Op::Isend { bytes, .. }
        | Op::SendInit { bytes, .. }
        | Op::Recv { bytes, .. }
        | Op::Irecv { bytes, .. }
        | Op::RecvInit { bytes, .. }
        | Op::Probe { bytes, .. } => [Some(bytes), None, None],
        Op::Sendrecv { bytes, rbytes, .. } => [Some(bytes), Some(rbytes), None],
        Op::Coll { send_bytes, recv_bytes, count, .. } => [Some(send_bytes), Some(recv_bytes), Some(count)],
        Op::Poll { calls, between_ns, .. } => [Some(calls), Some(between_ns), None],
        _ => [None, None, None],
    }
}

pub fn params(op: &Op) -> ([u64; MAX_PARAMS], usize) {
    let mut op = *op;
    let f = param_fields(&mut op);
    let n = f.iter().filter(|x| x.is_some()).count();
    (f.map(|x| x.map_or(0, |p| *p)), n)
}

/// The names of [`params`], for the report.
pub fn param_names(op: &Op) -> &'static [&'static str] {
    match op {
        Op::Sendrecv { .. } => &["bytes sent", "bytes received"],
        Op::Coll { .. } => &["send bytes", "receive bytes", "element count"],
        Op::Poll { .. } => &["calls", "time between calls"],
        _ => &["bytes"],
    }
}

pub fn set_params(op: &mut Op, v: [u64; MAX_PARAMS]) {
    let poll = matches!(op, Op::Poll { .. });
    for (k, (f, x)) in param_fields(op).into_iter().zip(v).enumerate() {
        if let Some(f) = f {
            // A poll record stands for one call at least.
            *f = if poll && k == 0 { x.max(1) } else { x };
        }
    }
}

/// The request a record starts, if any.
pub fn starts_request(op: &Op) -> Option<u32> {
    match *op {
        Op::Isend { req, .. } | Op::Irecv { req, .. } | Op::OtherReq { req, .. } => Some(req),
        Op::Coll { req, .. } if req != 0 => Some(req),
        _ => None,
    }
}

pub fn set_request(op: &mut Op, id: u32) {
    match op {
        Op::Isend { req, .. } | Op::Irecv { req, .. } | Op::OtherReq { req, .. } | Op::Coll { req, .. } => *req = id,
        _ => {}
    }
}

/// Why a record cannot be extrapolated, if it cannot: what the pattern language does not
/// express (yet), said so that the user knows what to change or trace.
pub fn unsupported(op: &Op, list: &[i64]) -> Option<String> {
    match *op {
        Op::SendInit { .. } | Op::RecvInit { .. } | Op::Start { .. } | Op::Startall => {
            Some("persistent requests are not extrapolated".into())
        }
        Op::Coll { coll, .. } if !list.is_empty() && !evened(coll) => Some(format!(
            "{} has per-rank counts ({} values); only those of gatherv, scatterv, allgatherv, alltoallv, alltoallw and reduce_scatter are extrapolated",
            coll.name(),
            list.len()
        )),
        Op::Coll { coll: Coll::NeighborAllgather | Coll::NeighborAlltoall, .. } => {
            Some("neighbourhood collectives are not extrapolated".into())
        }
        Op::Rma { .. } | Op::WinSync { .. } | Op::WinCreate { .. } | Op::WinFree { .. } => {
            Some("one-sided communication is not extrapolated".into())
        }
        Op::Abort { .. } => Some("a run that called MPI_Abort is not extrapolated".into()),
        _ => None,
    }
}

/// Whether a collective's per-rank counts are extrapolated, as even counts (see [`even`]).
pub fn evened(coll: Coll) -> bool {
    matches!(
        coll,
        Coll::Gatherv | Coll::Scatterv | Coll::Alltoallv | Coll::Alltoallw | Coll::Allgatherv | Coll::ReduceScatter
    )
}

/// The size that is not fitted in a collective with even counts but follows from the fitted
/// one and the communicator's size: alltoallv's received bytes (what the others send), the
/// gathered bytes of allgatherv and of gatherv's root (0 elsewhere), the contributed bytes of
/// reduce_scatter, the scattered bytes of scatterv's root (0 elsewhere).
pub fn derived(op: &Op) -> Option<usize> {
    match *op {
        Op::Coll { coll: Coll::Alltoallv | Coll::Alltoallw | Coll::Allgatherv | Coll::Gatherv, .. } => Some(1),
        Op::Coll { coll: Coll::ReduceScatter | Coll::Scatterv, .. } => Some(0),
        _ => None,
    }
}

/// How far a traced counts list is from even: the largest relative difference of an entry
/// from its half's mean (alltoallv: the send counts, then the receive counts).
pub fn unevenness(coll: Coll, list: &[i64]) -> f64 {
    let halves = if matches!(coll, Coll::Alltoallv | Coll::Alltoallw) { 2 } else { 1 };
    let n = list.len() / halves;
    if n == 0 {
        return 0.0;
    }
    list.chunks(n)
        .map(|h| {
            let mean = h.iter().sum::<i64>() as f64 / n as f64;
            if mean <= 0.0 {
                return 0.0;
            }
            h.iter().map(|&c| (c as f64 / mean - 1.0).abs()).fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}

/// A collective with even counts on a communicator of `size`, its fitted size set: its
/// counts list, and its derived size (each rank sends the same to each, so receives what it
/// sends; contributes the same as every other). Gatherv and scatterv have counts at their
/// root (`at_root`) only, as the tracer records them.
pub fn even(op: &mut Op, size: u32, at_root: bool, list: &mut Vec<i64>) {
    let Op::Coll { coll, send_bytes, recv_bytes, .. } = op else { return };
    let p = size.max(1) as u64;
    list.clear();
    match coll {
        Coll::Alltoallv | Coll::Alltoallw => {
            let per = (*send_bytes as f64 / p as f64).round() as u64;
            *send_bytes = per * p;
            *recv_bytes = per * p;
            list.resize(2 * p as usize, per as i64);
        }
        Coll::Allgatherv => {
            *recv_bytes = *send_bytes * p;
            list.resize(p as usize, *send_bytes as i64);
        }
        Coll::ReduceScatter => {
            *send_bytes = *recv_bytes * p;
            list.resize(p as usize, *recv_bytes as i64);
        }
        Coll::Gatherv if at_root => {
            *recv_bytes = *send_bytes * p;
            list.resize(p as usize, *send_bytes as i64);
        }
        Coll::Scatterv if at_root => {
            *send_bytes = *recv_bytes * p;
            list.resize(p as usize, *recv_bytes as i64);
        }
        Coll::Gatherv => *recv_bytes = 0,
        Coll::Scatterv => *send_bytes = 0,
        _ => {}
    }
}

/// A rank sentinel as words.
pub fn sentinel(p: i32) -> Option<&'static str> {
    match p {
        PROC_NULL => Some("MPI_PROC_NULL"),
        psins_formats::ANY_SOURCE => Some("MPI_ANY_SOURCE"),
        NO_RANK => Some("no rank"),
        _ => None,
    }
}
