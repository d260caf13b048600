//! The decoding fast path for the records that dominate traces: standard-mode send, recv,
//! isend and irecv, and the expansion steps of collectives.
//!
//! The general decoder in [`crate::codec`] handles every kind, which makes it large: the
//! compiler keeps its state on the stack and every byte read checks the buffer's end. This
//! function handles only the hot kinds, with a fixed window of bytes in hand so that no step
//! needs a check, and its state stays in registers. It reads exactly what the general path
//! does; the property tests below hold them equal, so the format is defined by the general
//! decoder (and the one encoder, [`crate::encode`]) alone.

use crate::codec::{Ctx, SAME_BYTES, SAME_PEER, SAME_TAG, STEP_NO_TIME};
use crate::record::{Kind, Op, Record, SendMode, StepOp, NO_RANK};
use crate::varint::{get_u64, unzigzag};

/// Bytes that must follow a record's start for the fast paths: a head byte and at most six
/// varints of at most ten bytes.
pub(crate) const WINDOW: usize = 64;

const SEND: u8 = Kind::Send as u8;
const ISEND: u8 = Kind::Isend as u8;
const RECV: u8 = Kind::Recv as u8;
const IRECV: u8 = Kind::Irecv as u8;
const STEP: u8 = Kind::Step as u8;

/// Reads varints from a full window; `None` for anything the general decoder must judge.
struct Fields<'a> {
    b: &'a [u8; WINDOW],
    pos: usize,
}

impl Fields<'_> {
    #[inline(always)]
    fn u64(&mut self) -> Option<u64> {
        get_u64(self.b, &mut self.pos).ok()
    }
    #[inline(always)]
    fn i32(&mut self) -> Option<i32> {
        i32::try_from(unzigzag(self.u64()?)).ok()
    }
    #[inline(always)]
    fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.u64()?).ok()
    }
    #[inline(always)]
    fn delta_u32(&mut self, base: u32) -> Option<u32> {
        u32::try_from((base as i64).wrapping_add(unzigzag(self.u64()?))).ok()
    }
}

/// Decodes a hot-kind record from the start of `b`. With `times`, the bytes hold no gap and
/// dur (a repeat's history entry) and these are used. `None` means "not a hot kind, or not
/// plainly valid": the caller then runs the general decoder, which reads it the same way or
/// says what is wrong. Returns the bytes consumed and where the times end.
#[inline(always)]
pub(crate) fn decode(
    b: &[u8; WINDOW],
    ctx: &mut Ctx,
    rec: &mut Record,
    times: Option<(u64, u64)>,
) -> Option<(usize, usize)> {
    let (code, flags) = (b[0] & 0x1f, b[0] & 0xe0);
    if !matches!(code, SEND | ISEND | RECV | IRECV | STEP) {
        return None;
    }
    let mut f = Fields { b, pos: 1 };
    let (gap_ns, dur_ns) = match times {
        Some(t) => t,
        None if code == STEP && flags & STEP_NO_TIME != 0 => (0, 0),
        None => (f.u64()?, f.u64()?),
    };
    let times_end = f.pos;
    let mut c = *ctx;
    rec.op = if code == STEP { step(&mut f, &c, flags)? } else { p2p(&mut f, &mut c, code, flags)? };
    rec.gap_ns = gap_ns;
    rec.dur_ns = dur_ns;
    rec.list.clear();
    *ctx = c;
    Some((f.pos, times_end))
}

#[inline(always)]
fn p2p(f: &mut Fields, c: &mut Ctx, code: u8, flags: u8) -> Option<Op> {
    if flags & SAME_PEER == 0 {
        c.peer = f.i32()?;
        c.comm = f.u32()?;
    }
    if flags & SAME_TAG == 0 {
        c.tag = f.i32()?;
    }
    if flags & SAME_BYTES == 0 {
        c.bytes = f.u64()?;
    }
    if code == ISEND || code == IRECV {
        c.req = f.delta_u32(c.req)?;
    }
    let (peer, tag, bytes, comm, req) = (c.peer, c.tag, c.bytes, c.comm, c.req);
    let mode = SendMode::Standard;
    Some(match code {
        SEND => Op::Send { mode, peer, tag, bytes, comm },
        ISEND => Op::Isend { mode, peer, tag, bytes, comm, req },
        RECV => Op::Recv { peer, tag, bytes, comm },
        _ => Op::Irecv { peer, tag, bytes, comm, req },
    })
}

/// A step names its collective by a delta from the last collective's instance, which it
/// does not change (the steps of one collective all refer to it).
#[inline(always)]
fn step(f: &mut Fields, c: &Ctx, flags: u8) -> Option<Op> {
    // The batch ops (an op byte follows) are left to the general decoder.
    let op = StepOp::from_code((flags >> 5) & 3).filter(|op| op.code() < crate::codec::STEP_OP_ESCAPE)?;
    let instance = f.delta_u32(c.instance)?;
    let (peer, bytes) = (f.i32()?, f.u64()?);
    let (peer2, bytes2) = if op == StepOp::SendRecv { (f.i32()?, f.u64()?) } else { (NO_RANK, 0) };
    Some(Op::Step { instance, op, peer, bytes, peer2, bytes2 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{decode_parts, encode};
    use proptest::collection::vec;
    use proptest::prelude::*;

    /// Whenever the fast decoder accepts bytes, the general decoder must read them identically.
    fn agree(bytes: &[u8], ctx: Ctx) -> Result<bool, TestCaseError> {
        let (mut fast_ctx, mut fast) = (ctx, Record::default());
        let Some(window) = bytes.first_chunk::<WINDOW>() else { return Ok(false) };
        let Some((n, te)) = decode(window, &mut fast_ctx, &mut fast, None) else { return Ok(false) };
        let (mut ctx, mut rec) = (ctx, Record::default());
        let (n2, ts2, te2) = decode_parts(bytes, &mut ctx, &mut rec, None).expect("the general decoder accepts it");
        prop_assert_eq!((n, te), (n2, te2));
        prop_assert!(ts2 == 1);
        prop_assert_eq!(fast_ctx, ctx);
        prop_assert_eq!(fast, rec);
        Ok(true)
    }

    fn any_ctx() -> impl Strategy<Value = Ctx> {
        (any::<i32>(), any::<u32>(), any::<i32>(), any::<u64>(), any::<u32>(), any::<u32>())
            .prop_map(|(peer, comm, tag, bytes, req, instance)| Ctx { peer, comm, tag, bytes, req, instance })
    }

    /// A hot-kind record; `same` makes peer (bit 0), tag (1) and bytes (2) repeat the context,
    /// and steps sometimes untimed.
    fn hot_record() -> impl Strategy<Value = (Ctx, Record)> {
        let fields = (any::<i32>(), any::<i32>(), any::<u64>(), any::<u32>(), any::<u32>());
        (0..6u8, fields, any::<u64>(), any::<u64>(), 0..16u8, any_ctx()).prop_map(
            |(kind, (peer, tag, bytes, req, instance), gap, dur, same, ctx)| {
                let peer = if same & 1 != 0 { ctx.peer } else { peer };
                let tag = if same & 2 != 0 { ctx.tag } else { tag };
                let bytes = if same & 4 != 0 { ctx.bytes } else { bytes };
                let (comm, mode) = (ctx.comm, SendMode::Standard);
                let op = match kind {
                    0 => Op::Send { mode, peer, tag, bytes, comm },
                    1 => Op::Isend { mode, peer, tag, bytes, comm, req },
                    2 => Op::Recv { peer, tag, bytes, comm },
                    3 => Op::Irecv { peer, tag, bytes, comm, req },
                    k => {
                        let op = if k == 4 { StepOp::Send } else { StepOp::SendRecv };
                        let (peer2, bytes2) = if k == 4 { (NO_RANK, 0) } else { (tag, bytes / 3) };
                        Op::Step { instance, op, peer, bytes, peer2, bytes2 }
                    }
                };
                let (gap, dur) = if same & 8 != 0 && kind >= 4 { (0, 0) } else { (gap, dur) };
                (ctx, Record::new(gap, dur, op))
            },
        )
    }

    proptest! {
        #[test]
        fn decoders_agree_on_any_bytes(bytes in vec(any::<u8>(), 64..90), ctx in any_ctx()) {
            agree(&bytes, ctx)?;
        }

        #[test]
        fn decoder_takes_every_hot_record((ctx, rec) in hot_record(), tail in vec(any::<u8>(), 64)) {
            let mut buf = Vec::new();
            encode(&mut buf, &mut ctx.clone(), &rec);
            buf.extend_from_slice(&tail);
            prop_assert!(agree(&buf, ctx)?);
        }
    }
}
