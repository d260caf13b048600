//! Record encoding shared by the per-rank log and the compact trace.
//!
//! Each record starts with one header byte: the low 5 bits are the *wire code* (the kind, or
//! for sends in a non-standard mode a separate code followed by a mode byte), the high 3 bits
//! are kind-specific flags. Point-to-point records use the flags to say "peer and communicator,
//! tag, byte count are the same as in the previous point-to-point record", which is what makes
//! a typical record cost 3–6 bytes. That context ([`Ctx`]) lives per stream: per block in the
//! log (so each block decodes on its own) and per task in the compact trace.

use crate::fast;
use crate::record::*;
use crate::varint::{get_i64, get_u64, unzigzag, VarintError};

/// Delta context carried from record to record within one stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ctx {
    pub(crate) peer: i32,
    pub(crate) comm: u32,
    pub(crate) tag: i32,
    pub(crate) bytes: u64,
    pub(crate) req: u32,
    pub(crate) instance: u32,
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

pub(crate) const SAME_PEER: u8 = 0x20;
pub(crate) const SAME_TAG: u8 = 0x40;
pub(crate) const SAME_BYTES: u8 = 0x80;
/// Step records: gap and dur are both zero and omitted.
pub(crate) const STEP_NO_TIME: u8 = 0x80;
/// Step records: head bits 5–6 hold the op when it is below this; this value there says
/// the op follows as one byte (the batch ops of format version 3).
pub(crate) const STEP_OP_ESCAPE: u8 = 3;
/// Wait completions: the low bit of the request delta says "full receive info follows".
pub(crate) const COMPLETION_FULL: u64 = 1;
/// comm_create: the communicator is an intercommunicator; the size of its local group
/// follows the member list.
pub(crate) const COMM_INTER: u8 = 0x20;

/// Wire codes 21..=23: send kinds in a non-standard mode (a mode byte follows the header).
pub(crate) const MODE_BASE: u8 = 21;
/// Kinds from 21 on (format version 3: one-sided communication) have no wire code of their
/// own — the 5-bit code space is full — so they are written as code 20 (`other`) with this
/// head bit, followed after the times by one byte holding their kind code.
pub(crate) const EXTENDED: u8 = 0x80;

/// Appends `rec` to `out`, updating `ctx` (the encoder itself is [`crate::encode`]).
pub fn encode(out: &mut Vec<u8>, ctx: &mut Ctx, rec: &Record) {
    encode_parts(out, ctx, rec);
}

/// [`encode`], returning where the gap and dur bytes start and end in `out`.
#[inline(always)]
pub(crate) fn encode_parts(out: &mut Vec<u8>, ctx: &mut Ctx, rec: &Record) -> (usize, usize) {
    crate::encode::append(out, ctx, rec.gap_ns, rec.dur_ns, &rec.op, &rec.list)
}

/// Decodes one record from the start of `buf` into `rec` (its list buffer is reused).
/// Returns the bytes consumed. On any error `ctx` is left unchanged.
#[inline]
pub fn decode(buf: &[u8], ctx: &mut Ctx, rec: &mut Record) -> Result<usize, DecodeError> {
    if let Some((n, _)) = buf.first_chunk().and_then(|b| fast::decode(b, ctx, rec, None)) {
        return Ok(n);
    }
    decode_parts(buf, ctx, rec, None).map(|(n, _, _)| n)
}

/// [`decode`], also returning where the gap and dur bytes start and end. With `times`, the
/// bytes hold no gap and dur (a repeat's history entry) and these are used instead.
#[inline]
pub(crate) fn decode_parts(
    buf: &[u8],
    ctx: &mut Ctx,
    rec: &mut Record,
    times: Option<(u64, u64)>,
) -> Result<(usize, usize, usize), DecodeError> {
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
    let (gap_ns, dur_ns) = match times {
        Some(t) => t,
        None if timed => (r.u64()?, r.u64()?),
        None => (0, 0),
    };
    let times_end = r.pos;
    rec.list.clear();
    // Straight into the caller's record: on an error its contents are unspecified anyway, and
    // building the Op aside costs a copy per record.
    rec.gap_ns = gap_ns;
    rec.dur_ns = dur_ns;
    rec.op = match kind {
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
            let mut sc = (flags >> 5) & 3;
            if sc == STEP_OP_ESCAPE {
                sc = r.byte()?;
                if sc < STEP_OP_ESCAPE {
                    return Err(invalid(format!("step op {sc} written in the escape byte")));
                }
            }
            let op = StepOp::from_code(sc).ok_or_else(|| invalid(format!("unknown step op {sc}")))?;
            let instance = r.instance_peek(&c)?;
            let (peer, bytes) = if op == StepOp::WaitAll { (NO_RANK, 0) } else { (r.i32()?, r.u64()?) };
            let (peer2, bytes2) = if op == StepOp::SendRecv { (r.i32()?, r.u64()?) } else { (NO_RANK, 0) };
            Op::Step { instance, op, peer, bytes, peer2, bytes2 }
        }
        Kind::CommCreate => {
            let fc = r.byte()?;
            let func = CommFn::from_code(fc).ok_or_else(|| invalid(format!("unknown comm constructor {fc}")))?;
            let (parent, comm) = (r.u32()?, r.u32()?);
            r.delta_list(&mut rec.list)?;
            let split = if flags & COMM_INTER == 0 { 0 } else { r.u32()? };
            // both groups of an intercommunicator have members
            if flags & COMM_INTER != 0 && !(1..rec.list.len()).contains(&(split as usize)) {
                let n = rec.list.len();
                return Err(invalid(format!(
                    "intercommunicator {comm}: local group of {split} in a member list of {n}"
                )));
            }
            Op::CommCreate { func, parent, comm, split }
        }
        Kind::CommFree => Op::CommFree { comm: r.u32()? },
        Kind::Other if flags & EXTENDED != 0 => r.extended(&mut c, &mut rec.list)?,
        Kind::Other => Op::Other { func: r.u32()? },
        Kind::Rma | Kind::WinSync | Kind::WinCreate | Kind::WinFree | Kind::Poll | Kind::Pcontrol | Kind::OtherReq => {
            unreachable!("kinds from 21 on have no wire code of their own")
        }
    };
    *ctx = c;
    Ok((r.pos, times_at, times_end))
}

pub(crate) fn invalid(msg: String) -> DecodeError {
    DecodeError::Invalid(msg)
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    /// A record of a kind from 21 on, after its times (see [`EXTENDED`]).
    fn extended(&mut self, c: &mut Ctx, list: &mut Vec<i64>) -> Result<Op, DecodeError> {
        let code = self.byte()?;
        let bad = |what: &str, v: u8| invalid(format!("unknown {what} {v}"));
        Ok(match Kind::from_code(code) {
            Some(Kind::Rma) => {
                let fc = self.byte()?;
                let func = RmaFn::from_code(fc).ok_or_else(|| bad("one-sided operation", fc))?;
                let (target, win, bytes, rbytes) = (self.i32()?, self.u32()?, self.u64()?, self.u64()?);
                let req = if self.byte()? == 0 { NO_REQUEST } else { self.req(c)? };
                Op::Rma { func, target, win, bytes, rbytes, req }
            }
            Some(Kind::WinSync) => {
                let fc = self.byte()?;
                let func = WinSyncFn::from_code(fc).ok_or_else(|| bad("window synchronisation", fc))?;
                let flags = self.byte()?;
                if flags & !WinFlags::ALL != 0 {
                    return Err(invalid(format!("bad window flags {flags:#x}")));
                }
                let (win, rank) = (self.u32()?, self.i32()?);
                self.list(list)?;
                Op::WinSync { func, win, rank, flags }
            }
            Some(Kind::WinCreate) => {
                let fc = self.byte()?;
                let func = WinFn::from_code(fc).ok_or_else(|| bad("window constructor", fc))?;
                Op::WinCreate { func, comm: self.u32()?, win: self.u32()? }
            }
            Some(Kind::WinFree) => Op::WinFree { win: self.u32()? },
            Some(Kind::Poll) => {
                let fc = self.byte()?;
                let func = PollFn::from_code(fc).ok_or_else(|| bad("polling call", fc))?;
                let (calls, between_ns, min_gap_ns) = (self.u64()?, self.u64()?, self.u64()?);
                if calls == 0 {
                    return Err(invalid("a poll record of 0 calls".into()));
                }
                let (count, peer, tag, comm) = if func.is_probe() {
                    let (peer, comm) = (self.i32()?, self.u32()?);
                    (0, peer, self.i32()?, comm)
                } else {
                    (self.u32()?, NO_RANK, 0, 0)
                };
                Op::Poll { func, calls, between_ns, min_gap_ns, count, peer, tag, comm }
            }
            Some(Kind::Pcontrol) => Op::Pcontrol { level: self.i32()? },
            Some(Kind::OtherReq) => {
                let func = self.u32()?;
                let pf = self.byte()?;
                if pf > 1 {
                    return Err(invalid(format!("bad other_req flags {pf:#x}")));
                }
                Op::OtherReq { func, req: self.req(c)?, persistent: pf == 1 }
            }
            _ => return Err(bad("extended record kind", code)),
        })
    }

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
        out.reserve(n);
        for _ in 0..n / 4 {
            let v = self.u64()?;
            let req = (c.req as i64).wrapping_add(unzigzag(v >> 1));
            c.req = u32::try_from(req).map_err(|_| invalid(format!("request id {req} out of range")))?;
            let quad = if v & COMPLETION_FULL != 0 {
                [req, self.i64()?, self.i64()?, self.i64()?]
            } else {
                [req, NO_RANK as i64, 0, 0]
            };
            out.extend_from_slice(&quad);
        }
        for _ in 0..n % 4 {
            out.push(self.i64()?);
        }
        Ok(())
    }
}

pub use crate::repeat::{Stream, HISTORY_DEPTH};
