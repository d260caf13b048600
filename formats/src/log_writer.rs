//! The per-rank log encoder of the tracer's intercepted path.
//!
//! It writes byte for byte what [`crate::LogEncoder`] writes (the tests below compare
//! the two over every kind of record, block seals and the footer included), but it is built
//! for a caller that appends one record per MPI call:
//! - one capacity check per record instead of one per byte: [`MAX_FIXED`] +
//!   [`MAX_PER_ENTRY`] × list length bounds any record, so after one `reserve` the bytes are
//!   stored through a raw cursor;
//! - the record comes as parts (`gap`, `dur`, `&Op`, list slice), so the shim's list is
//!   encoded where it lies instead of being copied into a `Record` first.
//!
//! The wire format itself is [`crate::codec`]'s (docs/format.md); this file mirrors
//! `codec::encode_general` and `log::LogEncoder` and must change with them. It lives here, in
//! the format crate, rather than in the tracer so that a change to the format meets it, and
//! its equality tests, in the same crate.

use crate::log::BLOCK_HEADER_LEN;
use crate::record::{Kind, Op, SendMode, StepOp, NO_RANK};

/// Bytes of any record apart from its list: header 1, mode 1, gap and dur 10 each, and the
/// largest kind's fields (a collective: 62 at most).
pub const MAX_FIXED: usize = 96;
/// Bytes per list entry at most (a 64-bit varint; a completion quadruple takes 4 × 10).
pub const MAX_PER_ENTRY: usize = 10;

/// Buffer room to keep free before appending a record with a list of `n` entries (its block
/// may have to be opened first).
pub fn room(n: usize) -> usize {
    BLOCK_HEADER_LEN + MAX_FIXED + MAX_PER_ENTRY * n
}

const FOOTER_MARK: u32 = u32::MAX;
const SAME_PEER: u8 = 0x20;
const SAME_TAG: u8 = 0x40;
const SAME_BYTES: u8 = 0x80;
const STEP_NO_TIME: u8 = 0x80;
const COMPLETION_FULL: u64 = 1;
/// Wire codes of the send kinds in a non-standard mode (a mode byte follows the header).
const MODE_BASE: u8 = Kind::COUNT as u8;

/// The delta context of one block (`codec::Ctx`, kept apart so this file can stay lean).
#[derive(Clone, Copy, Default)]
struct Ctx {
    peer: i32,
    comm: u32,
    tag: i32,
    bytes: u64,
    req: u32,
    instance: u32,
}

/// Appends records to a caller-owned buffer as checksummed blocks; the drop-in counterpart of
/// [`crate::LogEncoder`] with the record given in parts.
#[derive(Default)]
pub struct Encoder {
    ctx: Ctx,
    /// Position in the caller's buffer of the open block's header.
    open_at: Option<usize>,
    block_records: u32,
    pub total_records: u64,
}

impl Encoder {
    pub fn new() -> Encoder {
        Encoder::default()
    }

    /// Appends one record. Allocates only if `out` lacks the room for the largest possible
    /// record of this list length (the tracer reserves its buffer so that it never does).
    #[inline(always)]
    pub fn push(&mut self, out: &mut Vec<u8>, gap: u64, dur: u64, op: &Op, list: &[i64]) {
        out.reserve(room(list.len()));
        if self.open_at.is_none() {
            self.open_block(out);
        }
        let at = out.len();
        // SAFETY: the reserve above covers the longest record `encode` can write for this list
        // (MAX_FIXED + MAX_PER_ENTRY per entry: see the bounds in `Cursor`'s writers), and
        // every byte up to the returned end is initialised by `encode`.
        unsafe {
            let start = out.as_mut_ptr().add(at);
            let mut w = Cursor(start);
            encode(&mut w, &mut self.ctx, gap, dur, op, list);
            let n = w.0.offset_from(start) as usize;
            debug_assert!(n <= MAX_FIXED + MAX_PER_ENTRY * list.len());
            out.set_len(at + n);
        }
        self.block_records += 1;
        self.total_records += 1;
    }

    #[cold]
    fn open_block(&mut self, out: &mut Vec<u8>) {
        self.open_at = Some(out.len());
        out.extend_from_slice(&[0u8; BLOCK_HEADER_LEN]);
        self.ctx = Ctx::default();
        self.block_records = 0;
    }

    /// Seals the open block (if any) by filling in its length, count and checksum.
    pub fn close_block(&mut self, out: &mut [u8]) {
        let Some(at) = self.open_at.take() else {
            return;
        };
        let payload = &out[at + BLOCK_HEADER_LEN..];
        let mut h = crc32fast::Hasher::new();
        h.update(&self.block_records.to_le_bytes());
        h.update(payload);
        let (len, crc) = (payload.len() as u32, h.finalize());
        out[at..at + 4].copy_from_slice(&len.to_le_bytes());
        out[at + 4..at + 8].copy_from_slice(&self.block_records.to_le_bytes());
        out[at + 8..at + 12].copy_from_slice(&crc.to_le_bytes());
    }

    /// Seals the open block and appends the footer.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        self.close_block(out);
        let total = self.total_records.to_le_bytes();
        out.extend_from_slice(&FOOTER_MARK.to_le_bytes());
        out.extend_from_slice(&total);
        out.extend_from_slice(&crc32fast::hash(&total).to_le_bytes());
    }
}

/// A write position inside reserved, possibly uninitialised, buffer space.
struct Cursor(*mut u8);

impl Cursor {
    #[inline(always)]
    unsafe fn byte(&mut self, b: u8) {
        self.0.write(b);
        self.0 = self.0.add(1);
    }

    /// LEB128: at most 10 bytes (5 for a value below 2^35).
    #[inline(always)]
    unsafe fn u64(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.byte(v as u8 | 0x80);
            v >>= 7;
        }
        self.byte(v as u8);
    }

    #[inline(always)]
    unsafe fn i64(&mut self, v: i64) {
        self.u64(((v << 1) ^ (v >> 63)) as u64);
    }
}

/// `codec::encode_parts` over a cursor. Longest case, a collective: 22 (header, mode, times)
/// + 2 + 5 (comm) + 5 (root) + 3 × 10 + 5 (req) + 5 (instance delta) + 10 (list length).
#[inline(always)]
unsafe fn encode(w: &mut Cursor, ctx: &mut Ctx, gap: u64, dur: u64, op: &Op, list: &[i64]) {
    let head = w.0;
    let code = wire_code(op);
    w.byte(code);
    if code >= MODE_BASE {
        if let Op::Send { mode, .. } | Op::Isend { mode, .. } | Op::SendInit { mode, .. } = *op {
            w.byte(mode.code());
        }
    }
    let mut flags = 0u8;
    if matches!(op, Op::Step { .. }) && gap == 0 && dur == 0 {
        flags |= STEP_NO_TIME;
    } else {
        w.u64(gap);
        w.u64(dur);
    }
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
            flags |= op.code() << 5;
            w.i64(instance as i64 - ctx.instance as i64);
            w.i64(peer as i64);
            w.u64(bytes);
            if op == StepOp::SendRecv {
                w.i64(peer2 as i64);
                w.u64(bytes2);
            }
        }
        Op::CommCreate { func, parent, comm } => {
            w.byte(func.code());
            w.u64(parent as u64);
            w.u64(comm as u64);
            w.u64(list.len() as u64);
            let mut prev = -1i64;
            for &v in list {
                w.i64(v.wrapping_sub(prev));
                prev = v;
            }
        }
        Op::CommFree { comm } => w.u64(comm as u64),
        Op::Other { func } => w.u64(func as u64),
    }
    *head |= flags;
}

#[inline(always)]
fn wire_code(op: &Op) -> u8 {
    match *op {
        Op::Send { mode, .. } if mode != SendMode::Standard => MODE_BASE,
        Op::Isend { mode, .. } if mode != SendMode::Standard => MODE_BASE + 1,
        Op::SendInit { mode, .. } if mode != SendMode::Standard => MODE_BASE + 2,
        _ => op.kind() as u8,
    }
}

/// Peer and communicator, tag, byte count: each omitted (a header flag) when equal to the
/// previous point-to-point record's.
#[inline(always)]
unsafe fn p2p(w: &mut Cursor, ctx: &mut Ctx, peer: i32, tag: i32, bytes: u64, comm: u32) -> u8 {
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
    *ctx = Ctx { peer, comm, tag, bytes, ..*ctx };
    flags
}

#[inline(always)]
unsafe fn request(w: &mut Cursor, ctx: &mut Ctx, req: u32) {
    w.i64(req as i64 - ctx.req as i64);
    ctx.req = req;
}

#[inline(always)]
unsafe fn plain_list(w: &mut Cursor, list: &[i64]) {
    w.u64(list.len() as u64);
    for &v in list {
        w.i64(v);
    }
}

/// `[req, source, tag, bytes]` quadruples; a completed send (`[req, NO_RANK, 0, 0]`) is only
/// its request delta with the low bit clear.
#[inline(always)]
unsafe fn completions(w: &mut Cursor, ctx: &mut Ctx, list: &[i64]) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Coll, CommFn, LogEncoder, LogReader, Record, WaitFn};

    /// A small deterministic generator (xorshift), so failures reproduce.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        /// True once in `n` times on average.
        fn one_in(&mut self, n: u64) -> bool {
            let v = self.next() % n;
            v == 0
        }
        /// Mostly small values, sometimes extreme ones: both varint lengths and the "same as
        /// before" shortcuts get exercised.
        fn u64(&mut self) -> u64 {
            match self.next() % 8 {
                0 => u64::MAX - self.next() % 3,
                1 => self.next(),
                2 => 0,
                _ => self.next() % 300,
            }
        }
        fn i32(&mut self) -> i32 {
            match self.next() % 8 {
                0 => i32::MIN,
                1 => i32::MAX,
                2 => -3 + (self.next() % 3) as i32,
                _ => (self.next() % 5) as i32,
            }
        }
        fn u32(&mut self) -> u32 {
            match self.next() % 6 {
                0 => u32::MAX,
                1 => self.next() as u32,
                _ => (self.next() % 6) as u32,
            }
        }
        fn u8(&mut self) -> u8 {
            self.next() as u8
        }
        fn i64(&mut self) -> i64 {
            match self.next() % 6 {
                0 => i64::MIN,
                1 => i64::MAX,
                2 => self.next() as i64,
                3 => NO_RANK as i64,
                _ => (self.next() % 7) as i64,
            }
        }
    }

    fn random_record(r: &mut Rng) -> Record {
        let mode = *[SendMode::Standard, SendMode::Synchronous, SendMode::Ready, SendMode::Buffered]
            .get((r.next() % 4) as usize)
            .unwrap();
        let (peer, tag, bytes, comm, req) = (r.i32(), r.i32(), r.u64(), r.u32(), r.u32());
        let op = match r.next() % 21 {
            0 => Op::Init { thread_level: r.u8() },
            1 => Op::Finalize,
            2 => Op::Abort { code: r.i32() },
            3 => Op::Send { mode, peer, tag, bytes, comm },
            4 => Op::Isend { mode, peer, tag, bytes, comm, req },
            5 => Op::SendInit { mode, peer, tag, bytes, comm, req },
            6 => Op::Recv { peer, tag, bytes, comm },
            7 => Op::Irecv { peer, tag, bytes, comm, req },
            8 => Op::RecvInit { peer, tag, bytes, comm, req },
            9 => Op::Sendrecv {
                peer,
                tag,
                bytes,
                src: r.i32(),
                rtag: r.i32(),
                rbytes: r.u64(),
                comm,
                replace: r.one_in(2),
            },
            10 => Op::Probe { peer, tag, bytes, comm, flags: r.u8() % 8 },
            11 => Op::Start { req },
            12 => Op::Startall,
            13 => Op::RequestFree { req },
            14 => Op::Cancel { req },
            15 => Op::Wait { func: WaitFn::ALL[(r.next() % 8) as usize], count: r.u32() },
            16 => Op::Coll {
                coll: Coll::ALL[(r.next() % Coll::ALL.len() as u64) as usize],
                comm,
                root: r.i32(),
                send_bytes: r.u64(),
                recv_bytes: r.u64(),
                count: r.u64(),
                flags: r.u8() % 16,
                req,
                instance: r.u32(),
            },
            17 => {
                // the reader fills in NO_RANK, 0 for the receive side of one-way steps
                let op = StepOp::ALL[(r.next() % 3) as usize];
                let two_way = op == StepOp::SendRecv;
                let (peer2, bytes2) = if two_way { (r.i32(), r.u64()) } else { (NO_RANK, 0) };
                Op::Step { instance: r.u32(), op, peer, bytes, peer2, bytes2 }
            }
            18 => Op::CommCreate { func: CommFn::ALL[(r.next() % 14) as usize], parent: r.u32(), comm },
            19 => Op::CommFree { comm },
            _ => Op::Other { func: r.u32() },
        };
        let mut rec = Record { op, ..Record::default() };
        let untimed_step = matches!(op, Op::Step { .. }) && r.one_in(2);
        if !untimed_step {
            rec.gap_ns = r.u64();
            rec.dur_ns = r.u64();
        }
        if matches!(op, Op::Wait { .. }) {
            // quadruples with valid request ids (sends as the tracer writes them), rarely a
            // stray remainder
            for _ in 0..r.next() % 4 {
                let req = r.u32() as i64;
                let rest = if r.one_in(2) { [NO_RANK as i64, 0, 0] } else { [r.i64(), r.i64(), r.i64()] };
                rec.list.push(req);
                rec.list.extend_from_slice(&rest);
            }
            if r.one_in(8) {
                rec.list.push(r.i64());
            }
        } else if op.kind().has_list() {
            rec.list = (0..r.next() % 13).map(|_| r.i64()).collect();
        }
        rec
    }

    /// The reference writer and this one over the same records, sealing blocks at the same
    /// points, must produce identical bytes; the result must read back.
    #[test]
    fn identical_to_the_formats_encoder() {
        for seed in 1..=40u64 {
            let mut r = Rng(seed * 0x9E37_79B9_7F4A_7C15);
            let (mut want, mut got) = (Vec::new(), Vec::new());
            let (mut reference, mut fast) = (LogEncoder::new(), Encoder::new());
            let mut records = Vec::new();
            for i in 0..400 {
                let rec = random_record(&mut r);
                reference.push(&mut want, &rec);
                fast.push(&mut got, rec.gap_ns, rec.dur_ns, &rec.op, &rec.list);
                assert_eq!(got, want, "seed {seed}, record {i}: {rec:?}");
                if r.one_in(37) {
                    reference.close_block(&mut want);
                    fast.close_block(&mut got);
                    assert_eq!(got, want, "seed {seed}, seal after record {i}");
                }
                records.push(rec);
            }
            reference.finish(&mut want);
            fast.finish(&mut got);
            assert_eq!(got, want, "seed {seed}, footer");
            assert_eq!(fast.total_records, reference.total_records);
            assert_reads_back(&got, &records);
        }
    }

    fn assert_reads_back(body: &[u8], records: &[Record]) {
        let dir = std::env::temp_dir().join(format!("psins-writer-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rank-000000.bin");
        let mut file = Vec::new();
        crate::LogHeader::default().write(&mut file);
        file.extend_from_slice(body);
        std::fs::write(&path, &file).unwrap();
        let mut rd = LogReader::open(&path).unwrap();
        let mut rec = Record::default();
        for want in records {
            assert!(rd.next(&mut rec).unwrap());
            assert_eq!(&rec, want);
        }
        assert!(!rd.next(&mut rec).unwrap());
        assert_eq!(rd.end(), &crate::LogEnd::Complete);
        let _ = std::fs::remove_dir_all(&dir);
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
        let create = Op::CommCreate { func: CommFn::Other, parent: u32::MAX, comm: u32::MAX };
        let list = [i64::MIN, i64::MAX, i64::MIN, i64::MAX, i64::MIN, i64::MAX, i64::MIN];
        for op in [big, sendrecv, isend, wait, create, Op::Startall] {
            let mut out = Vec::new();
            let mut e = Encoder::new();
            e.push(&mut out, u64::MAX, u64::MAX, &op, &list);
            let n = out.len() - BLOCK_HEADER_LEN;
            assert!(n <= MAX_FIXED + MAX_PER_ENTRY * list.len(), "{op:?}: {n} bytes");
        }
    }
}
