//! The record encoder: one for every writer — the tracer's intercepted path, the per-rank
//! log, the compact trace (docs/format.md §3 is its specification).
//!
//! The bytes of any record are bounded by [`record_room`] (a fixed part plus ten bytes per
//! list entry, from the widths of the fields), so the encoder reserves once per record and
//! then stores through a raw cursor: one capacity check per record instead of one per byte,
//! which is what the tracer's per-call cost and consolidation speed need. Records come as
//! parts (`gap`, `dur`, `&Op`, list slice), so a caller's list is encoded where it lies.

use crate::codec::{
    Ctx, COMM_INTER, COMPLETION_FULL, EXTENDED, MODE_BASE, SAME_BYTES, SAME_PEER, SAME_TAG, STEP_NO_TIME,
    STEP_OP_ESCAPE,
};
use crate::record::{Kind, Op, SendMode, StepOp, NO_RANK, NO_REQUEST};

/// Bytes of any record apart from its list: header 1, mode 1, gap and dur 10 each, and the
/// largest kind's fields (a collective: 62 at most).
pub const MAX_FIXED: usize = 96;
/// Bytes per list entry at most (a 64-bit varint; a completion quadruple takes 4 × 10).
pub const MAX_PER_ENTRY: usize = 10;

/// The most bytes a record with a list of `n` entries can take.
pub fn record_room(n: usize) -> usize {
    MAX_FIXED + MAX_PER_ENTRY * n
}

/// Appends one record to `out`, updating `ctx`; returns where its gap and dur start and end
/// in `out`. Allocates only if `out` lacks [`record_room`] for this list length.
#[inline(always)]
pub(crate) fn append(out: &mut Vec<u8>, ctx: &mut Ctx, gap: u64, dur: u64, op: &Op, list: &[i64]) -> (usize, usize) {
    out.reserve(record_room(list.len()));
    let at = out.len();
    // SAFETY: the reserve above covers the longest record `encode` can write for this list
    // (MAX_FIXED + MAX_PER_ENTRY per entry: see the bounds in `Cursor`'s writers and the test
    // `records_fit_the_bound`), and every byte up to the returned end is initialised by it.
    unsafe {
        let start = out.as_mut_ptr().add(at);
        let mut w = Cursor(start);
        let (ts, te) = encode(&mut w, ctx, gap, dur, op, list);
        let n = w.0.offset_from(start) as usize;
        debug_assert!(n <= record_room(list.len()));
        out.set_len(at + n);
        (at + ts.offset_from(start) as usize, at + te.offset_from(start) as usize)
    }
}

/// A write position inside reserved, possibly uninitialised, buffer space.
struct Cursor(*mut u8);

impl Cursor {
    #[inline(always)]
    unsafe fn byte(&mut self, b: u8) {
        // SAFETY: the caller's cursor is inside the room `append` reserved for this record.
        unsafe {
            self.0.write(b);
            self.0 = self.0.add(1);
        }
    }

    /// LEB128: at most 10 bytes (5 for a value below 2^35).
    #[inline(always)]
    unsafe fn u64(&mut self, mut v: u64) {
        // SAFETY: the caller's cursor is inside the room `append` reserved for this record.
        unsafe {
            while v >= 0x80 {
                self.byte(v as u8 | 0x80);
                v >>= 7;
            }
            self.byte(v as u8);
        }
    }

    #[inline(always)]
    unsafe fn i64(&mut self, v: i64) {
        // SAFETY: the caller's cursor is inside the room `append` reserved for this record.
        unsafe {
            self.u64(((v << 1) ^ (v >> 63)) as u64);
        }
    }
}

/// The record over a cursor; returns where its times start and end. Longest case, a
/// collective: 22 (header, mode, times) + 2 + 5 (comm) + 5 (root) + 3 × 10 + 5 (req) + 5
/// (instance delta) + 10 (list length).
#[inline(always)]
unsafe fn encode(w: &mut Cursor, ctx: &mut Ctx, gap: u64, dur: u64, op: &Op, list: &[i64]) -> (*mut u8, *mut u8) {
    // SAFETY: the caller's cursor is inside the room `append` reserved for this record.
    unsafe {
        let head = w.0;
        let code = wire_code(op);
        w.byte(code);
        if code >= MODE_BASE {
            if let Op::Send { mode, .. } | Op::Isend { mode, .. } | Op::SendInit { mode, .. } = *op {
                w.byte(mode.code());
            }
        }
        let mut flags = 0u8;
        let times_at = w.0;
        if matches!(op, Op::Step { .. }) && gap == 0 && dur == 0 {
            flags |= STEP_NO_TIME;
        } else {
            w.u64(gap);
            w.u64(dur);
        }
        let times_end = w.0;
        match *op {
            Op::Init { thread_level } => w.byte(thread_level),
            Op::Finalize => {}
            Op::Abort { code } => w.i64(code as i64),
            Op::Send { peer, tag, bytes, comm, .. } | Op::Recv { peer, tag, bytes, comm } => {
                flags |= p2p(w, ctx, peer, tag, bytes, comm)
            }
            Op::Isend { peer, tag, bytes, comm, req, .. }
            | Op::SendInit { peer, tag, bytes, comm, req, .. }
            | Op::Irecv { peer, tag, bytes, comm, req }
            | Op::RecvInit { peer, tag, bytes, comm, req } => {
                flags |= p2p(w, ctx, peer, tag, bytes, comm);
                request(w, ctx, req);
            }
            Op::Probe { peer, tag, bytes, comm, flags: pf } => {
                flags |= p2p(w, ctx, peer, tag, bytes, comm);
                w.byte(pf);
            }
            Op::Sendrecv { peer, tag, bytes, src, rtag, rbytes, comm, replace } => {
                flags |= p2p(w, ctx, peer, tag, bytes, comm);
                w.i64(src as i64);
                w.i64(rtag as i64);
                w.u64(rbytes);
                w.byte(replace as u8);
            }
            Op::Start { req } | Op::RequestFree { req } | Op::Cancel { req } => request(w, ctx, req),
            Op::Startall => plain_list(w, list),
            Op::Wait { func, count } => {
                flags |= func.code() << 5;
                w.u64(count as u64);
                completions(w, ctx, list);
            }
            Op::Coll { coll, comm, root, send_bytes, recv_bytes, count, flags: cf, req, instance } => {
                w.byte(coll.code());
                w.byte(cf);
                w.u64(comm as u64);
                w.i64(root as i64);
                w.u64(send_bytes);
                w.u64(recv_bytes);
                w.u64(count);
                w.u64(req as u64);
                w.i64(instance as i64 - ctx.instance as i64);
                ctx.instance = instance;
                plain_list(w, list);
            }
            Op::Step { instance, op, peer, bytes, peer2, bytes2 } => {
                if op.code() < STEP_OP_ESCAPE {
                    flags |= op.code() << 5;
                } else {
                    flags |= STEP_OP_ESCAPE << 5;
                    w.byte(op.code());
                }
                w.i64(instance as i64 - ctx.instance as i64);
                if op != StepOp::WaitAll {
                    w.i64(peer as i64);
                    w.u64(bytes);
                }
                if op == StepOp::SendRecv {
                    w.i64(peer2 as i64);
                    w.u64(bytes2);
                }
            }
            Op::CommCreate { func, parent, comm, split } => {
                w.byte(func.code());
                w.u64(parent as u64);
                w.u64(comm as u64);
                w.u64(list.len() as u64);
                let mut prev = -1i64;
                for &v in list {
                    w.i64(v.wrapping_sub(prev));
                    prev = v;
                }
                if split != 0 {
                    flags |= COMM_INTER;
                    w.u64(split as u64);
                }
            }
            Op::CommFree { comm } => w.u64(comm as u64),
            Op::Other { func } => w.u64(func as u64),
            Op::Rma { func, target, win, bytes, rbytes, req } => {
                flags |= EXTENDED;
                w.byte(Kind::Rma as u8);
                w.byte(func.code());
                w.i64(target as i64);
                w.u64(win as u64);
                w.u64(bytes);
                w.u64(rbytes);
                // the request's presence, then (as in every record) its delta
                w.byte((req != NO_REQUEST) as u8);
                if req != NO_REQUEST {
                    request(w, ctx, req);
                }
            }
            Op::WinSync { func, win, rank, flags: wf } => {
                flags |= EXTENDED;
                w.byte(Kind::WinSync as u8);
                w.byte(func.code());
                w.byte(wf);
                w.u64(win as u64);
                w.i64(rank as i64);
                plain_list(w, list);
            }
            Op::WinCreate { func, comm, win } => {
                flags |= EXTENDED;
                w.byte(Kind::WinCreate as u8);
                w.byte(func.code());
                w.u64(comm as u64);
                w.u64(win as u64);
            }
            Op::WinFree { win } => {
                flags |= EXTENDED;
                w.byte(Kind::WinFree as u8);
                w.u64(win as u64);
            }
            Op::Poll { func, calls, between_ns, min_gap_ns, count, peer, tag, comm } => {
                flags |= EXTENDED;
                w.byte(Kind::Poll as u8);
                w.byte(func.code());
                w.u64(calls);
                w.u64(between_ns);
                w.u64(min_gap_ns);
                if func.is_probe() {
                    w.i64(peer as i64);
                    w.u64(comm as u64);
                    w.i64(tag as i64);
                } else {
                    w.u64(count as u64);
                }
            }
            Op::Pcontrol { level } => {
                flags |= EXTENDED;
                w.byte(Kind::Pcontrol as u8);
                w.i64(level as i64);
            }
            Op::OtherReq { func, req, persistent } => {
                flags |= EXTENDED;
                w.byte(Kind::OtherReq as u8);
                w.u64(func as u64);
                w.byte(persistent as u8);
                request(w, ctx, req);
            }
        }
        *head |= flags;
        (times_at, times_end)
    }
}

/// The record's first byte before its flags: its kind's code, `Other`'s for the kinds past it
/// (written as extended records), or a mode code for a send that is not in standard mode.
/// The kind is one table look-up on the variant and the modes one compare each: a `match`
/// with guards compiled to jump tables whose mispredictions on alternating kinds (a
/// ping-pong's send and receive) made the encoder of repeat records 26 % slower
/// (measurements/2026-12-01-benchmarks).
#[inline(always)]
fn wire_code(op: &Op) -> u8 {
    let k = op.kind() as u8;
    let mode = match *op {
        Op::Send { mode, .. } | Op::Isend { mode, .. } | Op::SendInit { mode, .. } => mode,
        _ => SendMode::Standard,
    };
    if mode != SendMode::Standard {
        MODE_BASE + (k - Kind::Send as u8)
    } else {
        k.min(Kind::Other as u8)
    }
}

/// Peer and communicator, tag, byte count: each omitted (a header flag) when equal to the
/// previous point-to-point record's.
#[inline(always)]
unsafe fn p2p(w: &mut Cursor, ctx: &mut Ctx, peer: i32, tag: i32, bytes: u64, comm: u32) -> u8 {
    // SAFETY: the caller's cursor is inside the room `append` reserved for this record.
    unsafe {
        let mut flags = 0;
        if peer == ctx.peer && comm == ctx.comm {
            flags |= SAME_PEER;
        } else {
            w.i64(peer as i64);
            w.u64(comm as u64);
        }
        if tag == ctx.tag {
            flags |= SAME_TAG;
        } else {
            w.i64(tag as i64);
        }
        if bytes == ctx.bytes {
            flags |= SAME_BYTES;
        } else {
            w.u64(bytes);
        }
        (ctx.peer, ctx.comm, ctx.tag, ctx.bytes) = (peer, comm, tag, bytes);
        flags
    }
}

#[inline(always)]
unsafe fn request(w: &mut Cursor, ctx: &mut Ctx, req: u32) {
    // SAFETY: the caller's cursor is inside the room `append` reserved for this record.
    unsafe {
        w.i64(req as i64 - ctx.req as i64);
        ctx.req = req;
    }
}

#[inline(always)]
unsafe fn plain_list(w: &mut Cursor, list: &[i64]) {
    // SAFETY: the caller's cursor is inside the room `append` reserved for this record.
    unsafe {
        w.u64(list.len() as u64);
        for &v in list {
            w.i64(v);
        }
    }
}

/// `[req, source, tag, bytes]` quadruples; a completed send (`[req, NO_RANK, 0, 0]`) is only
/// its request delta with the low bit clear.
#[inline(always)]
unsafe fn completions(w: &mut Cursor, ctx: &mut Ctx, list: &[i64]) {
    // SAFETY: the caller's cursor is inside the room `append` reserved for this record.
    unsafe {
        w.u64(list.len() as u64);
        let mut quads = list.chunks_exact(4);
        for q in &mut quads {
            let d = q[0].wrapping_sub(ctx.req as i64);
            let delta = ((d << 1) ^ (d >> 63)) as u64;
            ctx.req = q[0] as u32;
            if q[1] == NO_RANK as i64 && q[2] == 0 && q[3] == 0 {
                w.u64(delta << 1);
            } else {
                w.u64((delta << 1) | COMPLETION_FULL);
                w.i64(q[1]);
                w.i64(q[2]);
                w.i64(q[3]);
            }
        }
        for &v in quads.remainder() {
            w.i64(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Coll, CommFn, PollFn, RmaFn, WaitFn, WinFlags, WinFn, WinSyncFn};

    /// Bytes worked out by hand from docs/format.md §3, so that the one encoder cannot drift
    /// from the page (round trips alone would not notice a change made on both sides).
    #[test]
    fn golden_bytes() {
        let (mut out, mut ctx) = (Vec::new(), Ctx::default());
        let send = Op::Send { mode: SendMode::Standard, peer: 1, tag: 5, bytes: 1024, comm: 0 };
        append(&mut out, &mut ctx, 300, 2000, &send, &[]);
        assert_eq!(out, [0x03, 0xac, 0x02, 0xd0, 0x0f, 0x02, 0x00, 0x0a, 0x80, 0x08]);
        out.clear();
        append(&mut out, &mut ctx, 1, 2, &send, &[]);
        assert_eq!(out, [0x03 | 0x20 | 0x40 | 0x80, 0x01, 0x02], "same peer, tag and bytes");
        out.clear();
        let step = Op::Step { instance: 1, op: StepOp::SendRecv, peer: 1, bytes: 8, peer2: 1, bytes2: 8 };
        append(&mut out, &mut ctx, 0, 0, &step, &[]);
        assert_eq!(out, [17 | 2 << 5 | 0x80, 0x02, 0x02, 0x08, 0x02, 0x08], "untimed step");
        out.clear();
        // Batch ops (version 3): head op bits 3, then the op byte.
        let irecv = Op::Step { instance: 1, op: StepOp::IRecv, peer: 3, bytes: 8, peer2: NO_RANK, bytes2: 0 };
        append(&mut out, &mut ctx, 0, 0, &irecv, &[]);
        assert_eq!(out, [17 | 3 << 5 | 0x80, 0x04, 0x02, 0x06, 0x08], "irecv step");
        out.clear();
        let waitall = Op::Step { instance: 1, op: StepOp::WaitAll, peer: NO_RANK, bytes: 0, peer2: NO_RANK, bytes2: 0 };
        append(&mut out, &mut ctx, 0, 0, &waitall, &[]);
        assert_eq!(out, [17 | 3 << 5 | 0x80, 0x05, 0x02], "waitall step: no peer, no bytes");
        out.clear();
        let wait = Op::Wait { func: WaitFn::Waitall, count: 2 };
        append(&mut out, &mut ctx, 0, 0, &wait, &[1, NO_RANK as i64, 0, 0, 2, 3, 7, 16]);
        assert_eq!(out, [15 | 1 << 5, 0x00, 0x00, 0x02, 0x08, 0x04, 0x05, 0x06, 0x0e, 0x20], "send, then receive");
        out.clear();
        let inter = Op::CommCreate { func: CommFn::IntercommCreate, parent: 0, comm: 2, split: 2 };
        append(&mut out, &mut ctx, 0, 0, &inter, &[0, 2, 1, 3]);
        assert_eq!(out, [18 | 0x20, 0, 0, 10, 0, 2, 4, 0x02, 0x04, 0x01, 0x04, 2], "local group 0 2, remote 1 3");
        // Extended kinds (format 3): head 20 | 0x80, times, kind byte, fields.
        out.clear();
        let rput = Op::Rma { func: RmaFn::Put, target: 1, win: 3, bytes: 4096, rbytes: 0, req: 2 };
        ctx.req = 1;
        append(&mut out, &mut ctx, 5, 6, &rput, &[]);
        assert_eq!(out, [20 | 0x80, 5, 6, 21, 0, 0x02, 3, 0x80, 0x20, 0, 1, 0x02], "rput to 1, request delta +1");
        out.clear();
        let fetch = Op::Rma { func: RmaFn::FetchAndOp, target: 0, win: 3, bytes: 8, rbytes: 8, req: 0 };
        append(&mut out, &mut ctx, 0, 0, &fetch, &[]);
        assert_eq!(out, [20 | 0x80, 0, 0, 21, 4, 0, 3, 8, 8, 0], "fetch_and_op, no request");
        out.clear();
        let post = Op::WinSync { func: WinSyncFn::Post, win: 3, rank: NO_RANK, flags: 0 };
        append(&mut out, &mut ctx, 0, 0, &post, &[0, 2]);
        assert_eq!(out, [20 | 0x80, 0, 0, 22, 1, 0, 3, 5, 2, 0, 4], "post to world ranks 0 and 2");
        out.clear();
        let lock = Op::WinSync { func: WinSyncFn::Lock, win: 3, rank: 1, flags: WinFlags::EXCLUSIVE };
        append(&mut out, &mut ctx, 0, 0, &lock, &[]);
        assert_eq!(out, [20 | 0x80, 0, 0, 22, 6, 1, 3, 2, 0], "exclusive lock of rank 1");
        out.clear();
        let create = Op::WinCreate { func: WinFn::Allocate, comm: 0, win: 3 };
        append(&mut out, &mut ctx, 0, 0, &create, &[]);
        assert_eq!(out, [20 | 0x80, 0, 0, 23, 1, 0, 3]);
        out.clear();
        append(&mut out, &mut ctx, 0, 0, &Op::WinFree { win: 3 }, &[]);
        assert_eq!(out, [20 | 0x80, 0, 0, 24, 3]);
        // Version 4: poll runs and MPI_Pcontrol.
        out.clear();
        let tests = Op::Poll {
            func: PollFn::Testsome,
            calls: 1000,
            between_ns: 300,
            min_gap_ns: 0,
            count: 4,
            peer: NO_RANK,
            tag: 0,
            comm: 0,
        };
        append(&mut out, &mut ctx, 7, 200, &tests, &[]);
        assert_eq!(out, [20 | 0x80, 7, 0xc8, 0x01, 25, 3, 0xe8, 0x07, 0xac, 0x02, 0, 4], "1000 testsome of 4 requests");
        out.clear();
        let probes = Op::Poll {
            func: PollFn::Iprobe,
            calls: 2,
            between_ns: 5,
            min_gap_ns: 5,
            count: 0,
            peer: -1,
            tag: 9,
            comm: 2,
        };
        append(&mut out, &mut ctx, 0, 1, &probes, &[]);
        assert_eq!(out, [20 | 0x80, 0, 1, 25, 4, 2, 5, 5, 0x01, 2, 0x12], "2 iprobes from any source, tag 9");
        out.clear();
        append(&mut out, &mut ctx, 1, 1, &Op::Pcontrol { level: -1 }, &[]);
        assert_eq!(out, [20 | 0x80, 1, 1, 26, 0x01]);
        // Version 5: a request of a call the trace does not model (MPI_File_iwrite_at, id
        // 554), then a persistent one (MPI_Barrier_init, id 44); REQ deltas from a new context
        out.clear();
        ctx = Ctx::default();
        append(&mut out, &mut ctx, 2, 3, &Op::OtherReq { func: 554, req: 5, persistent: false }, &[]);
        assert_eq!(out, [20 | 0x80, 2, 3, 27, 0xaa, 0x04, 0, 0x0a]);
        out.clear();
        append(&mut out, &mut ctx, 0, 0, &Op::OtherReq { func: 44, req: 4, persistent: true }, &[]);
        assert_eq!(out, [20 | 0x80, 0, 0, 27, 44, 1, 0x01]);
    }

    /// The largest record of each kind stays within the bound the raw writes rely on.
    #[test]
    fn records_fit_the_bound() {
        let big = Op::Coll {
            coll: Coll::Alltoallw,
            comm: u32::MAX,
            root: i32::MIN,
            send_bytes: u64::MAX,
            recv_bytes: u64::MAX,
            count: u64::MAX,
            flags: 15,
            req: u32::MAX,
            instance: u32::MAX,
        };
        let sendrecv = Op::Sendrecv {
            peer: i32::MIN,
            tag: i32::MIN,
            bytes: u64::MAX,
            src: i32::MIN,
            rtag: i32::MIN,
            rbytes: u64::MAX,
            comm: u32::MAX,
            replace: true,
        };
        let isend = Op::Isend {
            mode: SendMode::Buffered,
            peer: i32::MIN,
            tag: i32::MIN,
            bytes: u64::MAX,
            comm: u32::MAX,
            req: u32::MAX,
        };
        let wait = Op::Wait { func: WaitFn::Testsome, count: u32::MAX };
        let create = Op::CommCreate { func: CommFn::Other, parent: u32::MAX, comm: u32::MAX, split: u32::MAX };
        let list = [i64::MIN, i64::MAX, i64::MIN, i64::MAX, i64::MIN, i64::MAX, i64::MIN];
        let rma = Op::Rma {
            func: RmaFn::CompareAndSwap,
            target: i32::MIN,
            win: u32::MAX,
            bytes: u64::MAX,
            rbytes: u64::MAX,
            req: u32::MAX,
        };
        let sync = Op::WinSync { func: WinSyncFn::Post, win: u32::MAX, rank: i32::MIN, flags: WinFlags::ALL };
        let poll = Op::Poll {
            func: PollFn::Improbe,
            calls: u64::MAX,
            between_ns: u64::MAX,
            min_gap_ns: u64::MAX,
            count: u32::MAX,
            peer: i32::MIN,
            tag: i32::MIN,
            comm: u32::MAX,
        };
        let other_req = Op::OtherReq { func: u32::MAX, req: u32::MAX, persistent: true };
        let all = [big, sendrecv, isend, wait, create, Op::Startall, rma, sync, poll, Op::Pcontrol { level: i32::MIN }];
        for op in all.into_iter().chain([other_req]) {
            let mut out = Vec::new();
            append(&mut out, &mut Ctx::default(), u64::MAX, u64::MAX, &op, &list);
            assert!(out.len() <= record_room(list.len()), "{op:?}: {} bytes", out.len());
        }
    }
}
