//! A record taken apart into what an extrapolation keeps fixed (its shape: the call, its tag,
//! communicator and flags), what it says relative to the process topology (its peers) and
//! what it fits as a function of the rank count (its sizes).

use psins_formats::{Coll, CommFn, Op, NO_RANK, PROC_NULL};

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

/// The record's peers, in a fixed order per kind (a collective's root counts as one).
pub fn peers(op: &Op) -> ([i32; MAX_PEERS], usize) {
    match *op {
        Op::Send { peer, .. }
        | Op::Isend { peer, .. }
        | Op::SendInit { peer, .. }
        | Op::Recv { peer, .. }
        | Op::Irecv { peer, .. }
        | Op::RecvInit { peer, .. }
        | Op::Probe { peer, .. } => ([peer, 0], 1),
        Op::Sendrecv { peer, src, .. } => ([peer, src], 2),
        Op::Coll { root, .. } => ([root, 0], 1),
        Op::Poll { func, peer, .. } if func.is_probe() => ([peer, 0], 1),
        _ => ([0, 0], 0),
    }
}

/// `op` with its peers replaced.
pub fn set_peers(op: &mut Op, p: [i32; MAX_PEERS]) {
    match op {
        Op::Send { peer, .. }
        | Op::Isend { peer, .. }
        | Op::SendInit { peer, .. }
        | Op::Recv { peer, .. }
        | Op::Irecv { peer, .. }
        | Op::RecvInit { peer, .. }
        | Op::Probe { peer, .. } => *peer = p[0],
        Op::Sendrecv { peer, src, .. } => {
            *peer = p[0];
            *src = p[1];
        }
        Op::Coll { root, .. } => *root = p[0],
        Op::Poll { func, peer, .. } if func.is_probe() => *peer = p[0],
        _ => {}
    }
}

/// The record's sizes and counts, fitted as functions of the rank count.
pub fn params(op: &Op) -> ([u64; MAX_PARAMS], usize) {
    match *op {
        Op::Send { bytes, .. }
        | Op::Isend { bytes, .. }
        | Op::SendInit { bytes, .. }
        | Op::Recv { bytes, .. }
        | Op::Irecv { bytes, .. }
        | Op::RecvInit { bytes, .. }
        | Op::Probe { bytes, .. } => ([bytes, 0, 0], 1),
        Op::Sendrecv { bytes, rbytes, .. } => ([bytes, rbytes, 0], 2),
        Op::Coll { send_bytes, recv_bytes, count, .. } => ([send_bytes, recv_bytes, count], 3),
        Op::Poll { calls, between_ns, .. } => ([calls, between_ns, 0], 2),
        _ => ([0; MAX_PARAMS], 0),
    }
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
    match op {
        Op::Send { bytes, .. }
        | Op::Isend { bytes, .. }
        | Op::SendInit { bytes, .. }
        | Op::Recv { bytes, .. }
        | Op::Irecv { bytes, .. }
        | Op::RecvInit { bytes, .. }
        | Op::Probe { bytes, .. } => *bytes = v[0],
        Op::Sendrecv { bytes, rbytes, .. } => {
            *bytes = v[0];
            *rbytes = v[1];
        }
        Op::Coll { send_bytes, recv_bytes, count, .. } => {
            *send_bytes = v[0];
            *recv_bytes = v[1];
            *count = v[2];
        }
        Op::Poll { calls, between_ns, .. } => {
            *calls = v[0].max(1);
            *between_ns = v[1];
        }
        _ => {}
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
    let on = |comm: u32| comm > psins_formats::COMM_SELF;
    match *op {
        Op::SendInit { .. } | Op::RecvInit { .. } | Op::Start { .. } | Op::Startall => {
            Some("persistent requests are not extrapolated".into())
        }
        Op::CommCreate { func, .. } if func != CommFn::Dup => {
            Some(format!("communicators made by {} are not extrapolated (only MPI_COMM_WORLD)", func.name()))
        }
        Op::CommCreate { .. } | Op::CommFree { .. } => {
            Some("communicators other than MPI_COMM_WORLD are not extrapolated".into())
        }
        Op::Coll { coll, .. } if !list.is_empty() => {
            Some(format!("{} has per-rank counts ({} values), which are not extrapolated", coll.name(), list.len()))
        }
        Op::Coll { coll: Coll::NeighborAllgather | Coll::NeighborAlltoall, .. } => {
            Some("neighbourhood collectives are not extrapolated".into())
        }
        Op::Rma { .. } | Op::WinSync { .. } | Op::WinCreate { .. } | Op::WinFree { .. } => {
            Some("one-sided communication is not extrapolated".into())
        }
        Op::Abort { .. } => Some("a run that called MPI_Abort is not extrapolated".into()),
        _ => match op.comm() {
            Some(c) if on(c) => {
                Some(format!("communicator {c}: only MPI_COMM_WORLD and MPI_COMM_SELF are extrapolated"))
            }
            _ => None,
        },
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
