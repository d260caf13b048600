//! Record encoding shared by the per-rank log and the compact trace.
//!
//! Each record starts with one header byte: the low 5 bits are the *wire code* (the kind, or
//! for sends in a non-standard mode a separate code followed by a mode byte), the high 3 bits
//! are kind-specific flags. Point-to-point records use the flags to say "peer and communicator,
//! tag, byte count are the same as in the previous point-to-point record", which is what makes
//! a typical record cost 3–6 bytes. That context ([`Ctx`]) lives per stream: per block in the
//! log (so each block decodes on its own) and per task in the compact trace.

use crate::record::*;
use crate::varint::{get_i64, get_u64, put_i64, put_u64, zigzag, VarintError};

/// Delta context carried from record to record within one stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ctx {
    peer: i32,
    comm: u32,
    tag: i32,
    bytes: u64,
    req: u32,
    instance: u32,
}

/// Why a record could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The buffer ends inside the record: more input is needed (or the stream is truncated).
    Incomplete,
    /// The bytes cannot be a record; the text says which field.
    Invalid(String),
}

impl From<VarintError> for DecodeError {
    fn from(e: VarintError) -> Self {
        match e {
            VarintError::Incomplete => DecodeError::Incomplete,
            VarintError::Overflow => DecodeError::Invalid("varint longer than 64 bits".into()),
        }
    }
}

const SAME_PEER: u8 = 0x20;
const SAME_TAG: u8 = 0x40;
const SAME_BYTES: u8 = 0x80;
/// Step records: gap and dur are both zero and omitted.
const STEP_NO_TIME: u8 = 0x80;
/// Wait completions: the low bit of the request delta says "full receive info follows".
const COMPLETION_FULL: u64 = 1;

/// Wire codes 21..=23: send kinds in a non-standard mode (a mode byte follows the header).
const MODE_BASE: u8 = Kind::COUNT as u8;

fn wire_code(op: &Op) -> u8 {
    let k = op.kind() as u8;
    match *op {
        Op::Send { mode, .. } if mode != SendMode::Standard => MODE_BASE,
        Op::Isend { mode, .. } if mode != SendMode::Standard => MODE_BASE + 1,
        Op::SendInit { mode, .. } if mode != SendMode::Standard => MODE_BASE + 2,
        _ => k,
    }
}

/// Appends `rec` to `out`, updating `ctx`.
pub fn encode(out: &mut Vec<u8>, ctx: &mut Ctx, rec: &Record) {
    encode_parts(out, ctx, rec);
}

/// [`encode`], returning where the gap and dur bytes start and end in `out`.
fn encode_parts(out: &mut Vec<u8>, ctx: &mut Ctx, rec: &Record) -> (usize, usize) {
    let at = out.len();
    let code = wire_code(&rec.op);
    out.push(code);
    if code >= MODE_BASE {
        if let Op::Send { mode, .. } | Op::Isend { mode, .. } | Op::SendInit { mode, .. } = rec.op {
            out.push(mode.code());
        }
    }
    let mut flags = 0u8;
    let timed = !(matches!(rec.op, Op::Step { .. }) && rec.gap_ns == 0 && rec.dur_ns == 0);
    let times_at = out.len();
    if timed {
        put_u64(out, rec.gap_ns);
        put_u64(out, rec.dur_ns);
    } else {
        flags |= STEP_NO_TIME;
    }
    let times_end = out.len();
    match rec.op {
        Op::Init { thread_level } => out.push(thread_level),
        Op::Finalize => {}
        Op::Abort { code } => put_i64(out, code as i64),
        Op::Send { peer, tag, bytes, comm, .. } => flags |= put_p2p(out, ctx, peer, tag, bytes, comm),
        Op::Isend { peer, tag, bytes, comm, req, .. } | Op::SendInit { peer, tag, bytes, comm, req, .. } => {
            flags |= put_p2p(out, ctx, peer, tag, bytes, comm);
            put_req(out, ctx, req);
        }
        Op::Recv { peer, tag, bytes, comm } => flags |= put_p2p(out, ctx, peer, tag, bytes, comm),
        Op::Irecv { peer, tag, bytes, comm, req } | Op::RecvInit { peer, tag, bytes, comm, req } => {
            flags |= put_p2p(out, ctx, peer, tag, bytes, comm);
            put_req(out, ctx, req);
        }
        Op::Probe { peer, tag, bytes, comm, flags: pf } => {
            flags |= put_p2p(out, ctx, peer, tag, bytes, comm);
            out.push(pf);
        }
        Op::Sendrecv { peer, tag, bytes, src, rtag, rbytes, comm, replace } => {
            flags |= put_p2p(out, ctx, peer, tag, bytes, comm);
            put_i64(out, src as i64);
            put_i64(out, rtag as i64);
            put_u64(out, rbytes);
            if replace {
                out.push(1);
            } else {
                out.push(0);
            }
        }
        Op::Start { req } | Op::RequestFree { req } | Op::Cancel { req } => put_req(out, ctx, req),
        Op::Startall => put_list(out, &rec.list),
        Op::Wait { func, count } => {
            flags |= func.code() << 5;
            put_u64(out, count as u64);
            put_completions(out, ctx, &rec.list);
        }
        Op::Coll { coll, comm, root, send_bytes, recv_bytes, count, flags: cf, req, instance } => {
            out.push(coll.code());
            out.push(cf);
            put_u64(out, comm as u64);
            put_i64(out, root as i64);
            put_u64(out, send_bytes);
            put_u64(out, recv_bytes);
            put_u64(out, count);
            put_u64(out, req as u64);
            put_i64(out, instance as i64 - ctx.instance as i64);
            ctx.instance = instance;
            put_list(out, &rec.list);
        }
        Op::Step { instance, op, peer, bytes, peer2, bytes2 } => {
            flags |= op.code() << 5;
            put_i64(out, instance as i64 - ctx.instance as i64);
            put_i64(out, peer as i64);
            put_u64(out, bytes);
            if op == StepOp::SendRecv {
                put_i64(out, peer2 as i64);
                put_u64(out, bytes2);
            }
        }
        Op::CommCreate { func, parent, comm } => {
            out.push(func.code());
            put_u64(out, parent as u64);
            put_u64(out, comm as u64);
            put_delta_list(out, &rec.list);
        }
        Op::CommFree { comm } => put_u64(out, comm as u64),
        Op::Other { func } => put_u64(out, func as u64),
    }
    out[at] |= flags;
    (times_at, times_end)
}

fn put_p2p(out: &mut Vec<u8>, ctx: &mut Ctx, peer: i32, tag: i32, bytes: u64, comm: u32) -> u8 {
    let mut flags = 0;
    if peer == ctx.peer && comm == ctx.comm {
        flags |= SAME_PEER;
    } else {
        put_i64(out, peer as i64);
        put_u64(out, comm as u64);
    }
    if tag == ctx.tag {
        flags |= SAME_TAG;
    } else {
        put_i64(out, tag as i64);
    }
    if bytes == ctx.bytes {
        flags |= SAME_BYTES;
    } else {
        put_u64(out, bytes);
    }
    ctx.peer = peer;
    ctx.comm = comm;
    ctx.tag = tag;
    ctx.bytes = bytes;
    flags
}

fn put_req(out: &mut Vec<u8>, ctx: &mut Ctx, req: u32) {
    put_i64(out, req as i64 - ctx.req as i64);
    ctx.req = req;
}

fn put_list(out: &mut Vec<u8>, list: &[i64]) {
    put_u64(out, list.len() as u64);
    for &v in list {
        put_i64(out, v);
    }
}

/// Member lists are mostly runs of consecutive ranks: store differences.
fn put_delta_list(out: &mut Vec<u8>, list: &[i64]) {
    put_u64(out, list.len() as u64);
    let mut prev = -1i64;
    for &v in list {
        put_i64(out, v.wrapping_sub(prev));
        prev = v;
    }
}

/// Completed sends (`[req, NO_RANK, 0, 0]`) cost only their request delta.
fn put_completions(out: &mut Vec<u8>, ctx: &mut Ctx, list: &[i64]) {
    put_u64(out, list.len() as u64);
    let mut quads = list.chunks_exact(4);
    for q in &mut quads {
        let delta = zigzag(q[0].wrapping_sub(ctx.req as i64));
        ctx.req = q[0] as u32;
        if q[1] == NO_RANK as i64 && q[2] == 0 && q[3] == 0 {
            put_u64(out, delta << 1);
        } else {
            put_u64(out, (delta << 1) | COMPLETION_FULL);
            put_i64(out, q[1]);
            put_i64(out, q[2]);
            put_i64(out, q[3]);
        }
    }
    for &v in quads.remainder() {
        put_i64(out, v);
    }
}

/// Decodes one record from the start of `buf` into `rec` (its list buffer is reused).
/// Returns the bytes consumed. On any error `ctx` is left unchanged.
#[inline]
pub fn decode(buf: &[u8], ctx: &mut Ctx, rec: &mut Record) -> Result<usize, DecodeError> {
    decode_parts(buf, ctx, rec).map(|(n, _, _)| n)
}

/// [`decode`], also returning where the gap and dur bytes start and end.
#[inline]
fn decode_parts(buf: &[u8], ctx: &mut Ctx, rec: &mut Record) -> Result<(usize, usize, usize), DecodeError> {
    let mut c = *ctx;
    let mut r = Reader { buf, pos: 1 };
    let head = *buf.first().ok_or(DecodeError::Incomplete)?;
    let (code, flags) = (head & 0x1f, head & 0xe0);
    let (kind, mode) = if code >= MODE_BASE {
        let kind = match code - MODE_BASE {
            0 => Kind::Send,
            1 => Kind::Isend,
            2 => Kind::SendInit,
            _ => return Err(invalid(format!("unknown record code {code}"))),
        };
        let m = r.byte()?;
        let mode = SendMode::from_code(m).filter(|m| *m != SendMode::Standard);
        (kind, Some(mode.ok_or_else(|| invalid(format!("bad send mode {m}")))?))
    } else {
        let kind = Kind::from_code(code).ok_or_else(|| invalid(format!("unknown record code {code}")))?;
        (kind, None)
    };
    let mode = mode.unwrap_or(SendMode::Standard);
    let timed = !(kind == Kind::Step && flags & STEP_NO_TIME != 0);
    let times_at = r.pos;
    let (gap_ns, dur_ns) = if timed { (r.u64()?, r.u64()?) } else { (0, 0) };
    let times_end = r.pos;
    rec.list.clear();
    let op = match kind {
        Kind::Init => Op::Init { thread_level: r.byte()? },
        Kind::Finalize => Op::Finalize,
        Kind::Abort => Op::Abort { code: r.i32()? },
        Kind::Send => {
            let (peer, tag, bytes, comm) = r.p2p(&mut c, flags)?;
            Op::Send { mode, peer, tag, bytes, comm }
        }
        Kind::Isend | Kind::SendInit => {
            let (peer, tag, bytes, comm) = r.p2p(&mut c, flags)?;
            let req = r.req(&mut c)?;
            if kind == Kind::Isend {
                Op::Isend { mode, peer, tag, bytes, comm, req }
            } else {
                Op::SendInit { mode, peer, tag, bytes, comm, req }
            }
        }
        Kind::Recv => {
            let (peer, tag, bytes, comm) = r.p2p(&mut c, flags)?;
            Op::Recv { peer, tag, bytes, comm }
        }
        Kind::Irecv | Kind::RecvInit => {
            let (peer, tag, bytes, comm) = r.p2p(&mut c, flags)?;
            let req = r.req(&mut c)?;
            if kind == Kind::Irecv {
                Op::Irecv { peer, tag, bytes, comm, req }
            } else {
                Op::RecvInit { peer, tag, bytes, comm, req }
            }
        }
        Kind::Probe => {
            let (peer, tag, bytes, comm) = r.p2p(&mut c, flags)?;
            let pf = r.byte()?;
            if pf & !ProbeFlags::ALL != 0 {
                return Err(invalid(format!("bad probe flags {pf:#x}")));
            }
            Op::Probe { peer, tag, bytes, comm, flags: pf }
        }
        Kind::Sendrecv => {
            let (peer, tag, bytes, comm) = r.p2p(&mut c, flags)?;
            let (src, rtag, rbytes) = (r.i32()?, r.i32()?, r.u64()?);
            let replace = match r.byte()? {
                0 => false,
                1 => true,
                b => return Err(invalid(format!("bad sendrecv replace flag {b}"))),
            };
            Op::Sendrecv { peer, tag, bytes, src, rtag, rbytes, comm, replace }
        }
        Kind::Start => Op::Start { req: r.req(&mut c)? },
        Kind::RequestFree => Op::RequestFree { req: r.req(&mut c)? },
        Kind::Cancel => Op::Cancel { req: r.req(&mut c)? },
        Kind::Startall => {
            r.list(&mut rec.list)?;
            Op::Startall
        }
        Kind::Wait => {
            let func = WaitFn::from_code(flags >> 5).expect("3-bit code covers all WaitFn");
            let count = r.u32()?;
            r.completions(&mut c, &mut rec.list)?;
            Op::Wait { func, count }
        }
        Kind::Coll => {
            let cc = r.byte()?;
            let coll = Coll::from_code(cc).ok_or_else(|| invalid(format!("unknown collective {cc}")))?;
            let cf = r.byte()?;
            if cf & !CollFlags::ALL != 0 {
                return Err(invalid(format!("bad collective flags {cf:#x}")));
            }
            let (comm, root, send_bytes, recv_bytes) = (r.u32()?, r.i32()?, r.u64()?, r.u64()?);
            let (count, req) = (r.u64()?, r.u32()?);
            let instance = r.instance(&mut c)?;
            r.list(&mut rec.list)?;
            Op::Coll { coll, comm, root, send_bytes, recv_bytes, count, flags: cf, req, instance }
        }
        Kind::Step => {
            let sc = (flags >> 5) & 3;
            let op = StepOp::from_code(sc).ok_or_else(|| invalid(format!("unknown step op {sc}")))?;
            let instance = r.instance_peek(&c)?;
            let (peer, bytes) = (r.i32()?, r.u64()?);
            let (peer2, bytes2) = if op == StepOp::SendRecv { (r.i32()?, r.u64()?) } else { (NO_RANK, 0) };
            Op::Step { instance, op, peer, bytes, peer2, bytes2 }
        }
        Kind::CommCreate => {
            let fc = r.byte()?;
            let func = CommFn::from_code(fc).ok_or_else(|| invalid(format!("unknown comm constructor {fc}")))?;
            let (parent, comm) = (r.u32()?, r.u32()?);
            r.delta_list(&mut rec.list)?;
            Op::CommCreate { func, parent, comm }
        }
        Kind::CommFree => Op::CommFree { comm: r.u32()? },
        Kind::Other => Op::Other { func: r.u32()? },
    };
    rec.gap_ns = gap_ns;
    rec.dur_ns = dur_ns;
    rec.op = op;
    *ctx = c;
    Ok((r.pos, times_at, times_end))
}

/// Wire codes 24..=31: a repeat of a recent record (see [`History`]).
const REPEAT_BASE: u8 = 24;
/// How many recent records a repeat can name, and the longest record (without its times) kept.
pub const HISTORY_DEPTH: usize = 32;
const HISTORY_ENTRY: usize = 24;
const NOT_REPEATABLE: u8 = u8::MAX;

/// The last [`HISTORY_DEPTH`] records of a stream without their gap and dur, so that a record
/// equal to one of them in everything but its times is written as one head byte naming it
/// (distance 1..=32) followed by its times. Iterative applications repeat the same calls
/// every iteration; this is what makes their traces cost little more than their timings.
/// Byte equality under the same context means the repeat decodes to the same record.
#[derive(Clone)]
pub struct History {
    len: [u8; HISTORY_DEPTH],
    bytes: [[u8; HISTORY_ENTRY]; HISTORY_DEPTH],
    next: usize,
    /// The distance that matched last: periodic streams match at the same one every time.
    last_k: usize,
}

impl Default for History {
    fn default() -> Self {
        History { len: [NOT_REPEATABLE; HISTORY_DEPTH], bytes: [[0; HISTORY_ENTRY]; HISTORY_DEPTH], next: 0, last_k: 1 }
    }
}

/// A record without its times as a fixed-size, zero-padded key (fixed sizes compare and copy
/// without calls into libc).
type Key = ([u8; HISTORY_ENTRY], u8);

fn key(head: &[u8], fields: &[u8]) -> Option<Key> {
    let n = head.len() + fields.len();
    if n > HISTORY_ENTRY {
        return None;
    }
    let mut k = [0u8; HISTORY_ENTRY];
    for (slot, &b) in k.iter_mut().zip(head.iter().chain(fields)) {
        *slot = b;
    }
    Some((k, n as u8))
}

impl History {
    fn push(&mut self, key: Option<Key>) {
        let slot = self.next;
        self.next = (self.next + 1) % HISTORY_DEPTH;
        match key {
            Some((k, n)) => {
                self.bytes[slot] = k;
                self.len[slot] = n;
            }
            None => self.len[slot] = NOT_REPEATABLE,
        }
    }

    fn slot(&self, k: usize) -> usize {
        (self.next + HISTORY_DEPTH - k) % HISTORY_DEPTH
    }

    /// The entry pushed `k` records ago (k = 1 is the previous record).
    fn get(&self, k: usize) -> Option<Key> {
        let slot = self.slot(k);
        let n = self.len[slot];
        (n != NOT_REPEATABLE).then_some((self.bytes[slot], n))
    }

    fn find(&mut self, key: &Key) -> Option<usize> {
        let hit = |k: usize| {
            let slot = self.slot(k);
            self.len[slot] == key.1 && self.bytes[slot] == key.0
        };
        let k = if hit(self.last_k) { Some(self.last_k) } else { (1..=HISTORY_DEPTH).find(|&k| hit(k)) }?;
        self.last_k = k;
        Some(k)
    }
}

/// Bytes before the times in a record starting with `head`: the head, and a mode byte.
fn head_len(head: u8) -> usize {
    if (MODE_BASE..REPEAT_BASE).contains(&(head & 0x1f)) {
        2
    } else {
        1
    }
}

/// The coding state of one stream: the context, plus the history where repeats are used
/// (the compact trace; per-rank logs do without, to keep the tracer's path short).
#[derive(Clone, Default)]
pub struct Stream {
    pub ctx: Ctx,
    hist: Option<Box<History>>,
    used: bool,
}

impl Stream {
    pub fn with_repeats() -> Stream {
        Stream { ctx: Ctx::default(), hist: Some(Box::default()), used: false }
    }

    /// Whether any repeat record was encoded or decoded.
    pub fn used_repeats(&self) -> bool {
        self.used
    }

    pub fn without_repeats() -> Stream {
        Stream::default()
    }

    pub fn encode(&mut self, out: &mut Vec<u8>, rec: &Record) {
        let at = out.len();
        let (ts, te) = encode_parts(out, &mut self.ctx, rec);
        let Some(h) = self.hist.as_deref_mut() else { return };
        let key = key(&out[at..ts], &out[te..]);
        let k = key.as_ref().and_then(|key| h.find(key));
        h.push(key);
        if let Some(k) = k {
            let mut times = [0u8; 20];
            let tl = te - ts;
            times[..tl].copy_from_slice(&out[ts..te]);
            out.truncate(at);
            self.used = true;
            let d = (k - 1) as u8;
            out.push(REPEAT_BASE + (d & 7) | ((d >> 3) << 5));
            out.extend_from_slice(&times[..tl]);
        }
    }

    /// Decodes one record; on error nothing in the stream state changes.
    #[inline]
    pub fn decode(&mut self, buf: &[u8], rec: &mut Record) -> Result<usize, DecodeError> {
        let head = *buf.first().ok_or(DecodeError::Incomplete)?;
        let Some(h) = self.hist.as_deref_mut() else {
            return decode(buf, &mut self.ctx, rec);
        };
        if head & 0x1f < REPEAT_BASE {
            let (n, ts, te) = decode_parts(buf, &mut self.ctx, rec)?;
            h.push(key(&buf[..ts], &buf[te..n]));
            return Ok(n);
        }
        if head & 0x80 != 0 {
            return Err(invalid(format!("bad repeat head {head:#x}")));
        }
        let k = (((head & 0x1f) - REPEAT_BASE) | ((head >> 5) << 3)) as usize + 1;
        let (e, elen) =
            h.get(k).ok_or_else(|| invalid(format!("repeat of the record {k} back, which cannot be repeated")))?;
        let (elen, hl) = (elen as usize, head_len(e[0]));
        // The entry's head says whether times follow (steps may have none).
        let timed = !(e[0] & 0x1f == Kind::Step as u8 && e[0] & STEP_NO_TIME != 0);
        let mut pos = 1;
        if timed {
            get_u64(buf, &mut pos)?;
            get_u64(buf, &mut pos)?;
        }
        let mut full = [0u8; HISTORY_ENTRY + 20];
        full[..hl].copy_from_slice(&e[..hl]);
        full[hl..hl + pos - 1].copy_from_slice(&buf[1..pos]);
        full[hl + pos - 1..elen + pos - 1].copy_from_slice(&e[hl..elen]);
        let whole = elen + pos - 1;
        let n = decode(&full[..whole], &mut self.ctx, rec).map_err(|e| match e {
            DecodeError::Incomplete => invalid(format!("the record {k} back does not repeat cleanly")),
            e => e,
        })?;
        if n != whole {
            return Err(invalid(format!("the record {k} back does not repeat cleanly")));
        }
        h.push(Some((e, elen as u8)));
        self.used = true;
        Ok(pos)
    }
}

fn invalid(msg: String) -> DecodeError {
    DecodeError::Invalid(msg)
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    #[inline(always)]
    fn byte(&mut self) -> Result<u8, DecodeError> {
        let b = *self.buf.get(self.pos).ok_or(DecodeError::Incomplete)?;
        self.pos += 1;
        Ok(b)
    }
    #[inline(always)]
    fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(get_u64(self.buf, &mut self.pos)?)
    }
    #[inline(always)]
    fn i64(&mut self) -> Result<i64, DecodeError> {
        Ok(get_i64(self.buf, &mut self.pos)?)
    }
    #[inline]
    fn u32(&mut self) -> Result<u32, DecodeError> {
        let v = self.u64()?;
        u32::try_from(v).map_err(|_| invalid(format!("value {v} does not fit 32 bits")))
    }
    #[inline]
    fn i32(&mut self) -> Result<i32, DecodeError> {
        let v = self.i64()?;
        i32::try_from(v).map_err(|_| invalid(format!("value {v} does not fit 32 bits")))
    }
    #[inline(always)]
    fn delta_u32(&mut self, base: u32) -> Result<u32, DecodeError> {
        let v = (base as i64).wrapping_add(self.i64()?);
        u32::try_from(v).map_err(|_| invalid(format!("id {v} out of range")))
    }
    #[inline(always)]
    fn req(&mut self, c: &mut Ctx) -> Result<u32, DecodeError> {
        c.req = self.delta_u32(c.req)?;
        Ok(c.req)
    }
    fn instance(&mut self, c: &mut Ctx) -> Result<u32, DecodeError> {
        c.instance = self.delta_u32(c.instance)?;
        Ok(c.instance)
    }
    fn instance_peek(&mut self, c: &Ctx) -> Result<u32, DecodeError> {
        self.delta_u32(c.instance)
    }
    #[inline(always)]
    fn p2p(&mut self, c: &mut Ctx, flags: u8) -> Result<(i32, i32, u64, u32), DecodeError> {
        if flags & SAME_PEER == 0 {
            c.peer = self.i32()?;
            c.comm = self.u32()?;
        }
        if flags & SAME_TAG == 0 {
            c.tag = self.i32()?;
        }
        if flags & SAME_BYTES == 0 {
            c.bytes = self.u64()?;
        }
        Ok((c.peer, c.tag, c.bytes, c.comm))
    }
    /// A list length, checked against the bytes left (each coded unit takes at least one
    /// byte, and `per_byte` values share a unit) so hostile input cannot make us allocate.
    fn list_len(&mut self, per_byte: u64) -> Result<usize, DecodeError> {
        let n = self.u64()?;
        let left = (self.buf.len() - self.pos) as u64;
        if n / per_byte > left {
            return if n > (1 << 32) {
                Err(invalid(format!("list length {n} is implausible")))
            } else {
                Err(DecodeError::Incomplete)
            };
        }
        Ok(n as usize)
    }
    fn list(&mut self, out: &mut Vec<i64>) -> Result<(), DecodeError> {
        let n = self.list_len(1)?;
        for _ in 0..n {
            out.push(self.i64()?);
        }
        Ok(())
    }
    fn delta_list(&mut self, out: &mut Vec<i64>) -> Result<(), DecodeError> {
        let n = self.list_len(1)?;
        let mut prev = -1i64;
        for _ in 0..n {
            prev = prev.wrapping_add(self.i64()?);
            out.push(prev);
        }
        Ok(())
    }
    fn completions(&mut self, c: &mut Ctx, out: &mut Vec<i64>) -> Result<(), DecodeError> {
        let n = self.list_len(4)?;
        for _ in 0..n / 4 {
            let v = self.u64()?;
            let req = (c.req as i64).wrapping_add(crate::varint::unzigzag(v >> 1));
            c.req = u32::try_from(req).map_err(|_| invalid(format!("request id {req} out of range")))?;
            out.push(req);
            if v & COMPLETION_FULL != 0 {
                let (s, t, b) = (self.i64()?, self.i64()?, self.i64()?);
                out.extend_from_slice(&[s, t, b]);
            } else {
                out.extend_from_slice(&[NO_RANK as i64, 0, 0]);
            }
        }
        for _ in 0..n % 4 {
            out.push(self.i64()?);
        }
        Ok(())
    }
}
