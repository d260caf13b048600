//! Repeat records (compact trace only; docs/format.md §3.3).
//!
//! Iterative applications make the same calls every iteration; only the timings change. A
//! stream keeps the last [`HISTORY_DEPTH`] records without their gap and dur, and a record
//! whose bytes equal one of them under the current context is written as one head byte naming
//! it, followed by its times. Byte equality under the same context is what guarantees that the
//! repeat decodes to the same record.
//!
//! Keys are the head plus three little-endian words of fields, built by word-sized loads and
//! kept apart from each other: byte-assembled keys read back as words stall the CPU's store
//! forwarding, which once made this encoder a third of consolidation time. The encoder finds
//! candidates through a small hash index instead of scanning the history.

use crate::codec::{decode_parts, encode_parts, invalid, Ctx, DecodeError, MODE_BASE, STEP_NO_TIME};
use crate::fast;
use crate::record::{Kind, Record};
use crate::varint::get_u64;

/// How many recent records a repeat can name.
pub const HISTORY_DEPTH: usize = 32;
/// Wire codes 24..=31 are repeats.
const REPEAT_BASE: u8 = 24;
/// The longest fields (the bytes after the times) a repeatable record has.
const KEY_BYTES: usize = 24;
const NOT_REPEATABLE: u8 = u8::MAX;
const INDEX_SLOTS: usize = 64;

/// A record without its times: the head byte (and, for sends in a non-standard mode, the mode
/// byte in bits 8–15) and the fields that follow the times, padded to [`KEY_BYTES`]. The
/// encoder's padding is zero (it compares entries); the decoder's is whatever followed in the
/// stream (it only decodes them).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Entry {
    fields: [u64; 3],
    head: u16,
    len: u8,
}

fn head_len(head: u8) -> usize {
    if (MODE_BASE..REPEAT_BASE).contains(&(head & 0x1f)) {
        2
    } else {
        1
    }
}

fn word(b: &[u8]) -> u64 {
    u64::from_le_bytes(*b.first_chunk::<8>().expect("a key word has 8 bytes"))
}

impl Entry {
    /// The entry of the record `buf[..n]` whose times lie at `ts..te`; `None` if its fields
    /// are longer than [`KEY_BYTES`]. Entries are comparable when `buf` is zero after `n`.
    #[inline]
    fn of(buf: &[u8], ts: usize, te: usize, n: usize) -> Option<Entry> {
        let len = n - te;
        if len > KEY_BYTES {
            return None;
        }
        let head = if ts == 2 { u16::from_le_bytes([buf[0], buf[1]]) } else { buf[0] as u16 };
        let fields = match buf.get(te..te + KEY_BYTES) {
            Some(f) => [word(f), word(&f[8..]), word(&f[16..])],
            None => {
                let mut f = [0u8; KEY_BYTES];
                f[..len].copy_from_slice(&buf[te..n]);
                [word(&f), word(&f[8..]), word(&f[16..])]
            }
        };
        Some(Entry { fields, head, len: len as u8 })
    }

    fn hash(&self) -> usize {
        let [a, b, c] = self.fields;
        let h = a ^ b.rotate_left(21) ^ c.rotate_left(42) ^ ((self.head as u64) << 8 | self.len as u64);
        (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize % INDEX_SLOTS
    }

    /// The head byte.
    fn head(&self) -> u8 {
        self.head as u8
    }

    /// The record as it would be coded without times, in `out`; returns its length.
    fn write(&self, out: &mut [u8; 2 + KEY_BYTES]) -> usize {
        let hl = head_len(self.head as u8);
        out[..2].copy_from_slice(&self.head.to_le_bytes());
        for (i, w) in self.fields.iter().enumerate() {
            out[hl + 8 * i..hl + 8 * i + 8].copy_from_slice(&w.to_le_bytes());
        }
        hl + self.len as usize
    }
}

/// The last [`HISTORY_DEPTH`] entries, a ring.
#[derive(Clone)]
struct History {
    fields: [[u64; 3]; HISTORY_DEPTH],
    head: [u16; HISTORY_DEPTH],
    len: [u8; HISTORY_DEPTH],
    /// Entries pushed so far (wrapping); the newest has ordinal `count`.
    count: u32,
}

impl Default for History {
    fn default() -> Self {
        History {
            fields: [[0; 3]; HISTORY_DEPTH],
            head: [0; HISTORY_DEPTH],
            len: [NOT_REPEATABLE; HISTORY_DEPTH],
            count: 0,
        }
    }
}

impl History {
    #[inline]
    fn push(&mut self, e: Option<Entry>) {
        self.count = self.count.wrapping_add(1);
        let slot = self.count as usize % HISTORY_DEPTH;
        match e {
            Some(e) => {
                self.fields[slot] = e.fields;
                self.head[slot] = e.head;
                self.len[slot] = e.len;
            }
            None => self.len[slot] = NOT_REPEATABLE,
        }
    }

    /// Where the entry pushed `k` records ago lives (k = 1 is the previous record).
    #[inline]
    fn slot(&self, k: usize) -> usize {
        self.count.wrapping_sub(k as u32 - 1) as usize % HISTORY_DEPTH
    }

    /// The entry pushed `k` records ago.
    #[inline]
    fn get(&self, k: usize) -> Option<Entry> {
        let slot = self.slot(k);
        let len = self.len[slot];
        (len != NOT_REPEATABLE).then_some(Entry { fields: self.fields[slot], head: self.head[slot], len })
    }

    /// Whether the entry `k` records ago equals `key`.
    #[inline]
    fn holds(&self, k: usize, key: &Entry) -> bool {
        let slot = self.slot(k);
        // Word by word: the key's words were just stored separately, and one 16-byte load over
        // two 8-byte stores cannot be forwarded (an array `==` compiles to such loads).
        let f = &self.fields[slot];
        self.len[slot] == key.len
            && self.head[slot] == key.head
            && f[0] == key.fields[0]
            && f[1] == key.fields[1]
            && f[2] == key.fields[2]
    }
}

/// The encoder's extra state: where each key hash was last seen, and the last distance hit.
#[derive(Clone)]
struct Index {
    last_seen: [u32; INDEX_SLOTS],
    last_k: usize,
}

impl Index {
    /// The distance of an entry equal to `key`, noting where `key` is about to be pushed.
    /// A hit at the last distance (the usual case in periodic streams) skips the hash: the
    /// index only has to find what the last distance misses.
    fn find(&mut self, h: &History, key: &Entry) -> Option<usize> {
        if h.holds(self.last_k, key) {
            return Some(self.last_k);
        }
        let slot = key.hash();
        let k = h.count.wrapping_sub(self.last_seen[slot]) as usize + 1;
        self.last_seen[slot] = h.count.wrapping_add(1);
        let k = ((1..=HISTORY_DEPTH).contains(&k) && h.holds(k, key)).then_some(k)?;
        self.last_k = k;
        Some(k)
    }
}

/// The coding state of one stream: the context, plus the history where repeats are used
/// (the compact trace; per-rank logs do without, to keep the tracer's path short).
#[derive(Clone, Default)]
pub struct Stream {
    pub ctx: Ctx,
    hist: Option<Box<History>>,
    index: Option<Box<Index>>,
    used: bool,
}

impl Stream {
    pub fn with_repeats() -> Stream {
        Stream { hist: Some(Box::default()), ..Stream::default() }
    }

    pub fn without_repeats() -> Stream {
        Stream::default()
    }

    /// Whether any repeat record was encoded or decoded.
    pub fn used_repeats(&self) -> bool {
        self.used
    }

    pub fn encode(&mut self, out: &mut Vec<u8>, rec: &Record) {
        let at = out.len();
        let (ts, te) = encode_parts(out, &mut self.ctx, rec);
        let Some(h) = self.hist.as_deref_mut() else { return };
        let index = self.index.get_or_insert_with(|| Box::new(Index { last_seen: [0; INDEX_SLOTS], last_k: 1 }));
        let end = out.len();
        // Zero padding makes the entry comparable and lets Entry::of take its fixed-size path.
        out.extend_from_slice(&[0u8; KEY_BYTES]);
        let key = Entry::of(&out[at..], ts - at, te - at, end - at);
        out.truncate(end);
        let k = key.as_ref().and_then(|key| index.find(h, key));
        h.push(key);
        let Some(k) = k else { return };
        // A repeat decodes slower than the record itself: use it only where it saves bytes.
        if 1 + (te - ts) >= end - at {
            return;
        }
        self.used = true;
        // Rewrite in place as [repeat head][times]: the times move left by the head's length.
        let d = (k - 1) as u8;
        out[at] = (REPEAT_BASE + (d & 7)) | ((d >> 3) << 5);
        for i in 0..te - ts {
            out[at + 1 + i] = out[ts + i];
        }
        out.truncate(at + 1 + (te - ts));
    }

    /// Decodes one record; on error nothing in the stream state changes.
    #[inline(always)]
    pub fn decode(&mut self, buf: &[u8], rec: &mut Record) -> Result<usize, DecodeError> {
        let head = *buf.first().ok_or(DecodeError::Incomplete)?;
        let Some(h) = self.hist.as_deref_mut() else {
            return crate::codec::decode(buf, &mut self.ctx, rec);
        };
        if let Some((n, te)) = buf.first_chunk().and_then(|b| fast::decode(b, &mut self.ctx, rec, None)) {
            h.push(Entry::of(buf, 1, te, n));
            return Ok(n);
        }
        if head & 0x1f < REPEAT_BASE {
            let (n, ts, te) = decode_parts(buf, &mut self.ctx, rec, None)?;
            h.push(Entry::of(buf, ts, te, n));
            return Ok(n);
        }
        let n = decode_repeat(h, buf, &mut self.ctx, rec)?;
        self.used = true;
        Ok(n)
    }
}

fn decode_repeat(h: &mut History, buf: &[u8], ctx: &mut Ctx, rec: &mut Record) -> Result<usize, DecodeError> {
    let head = buf[0];
    if head & 0x80 != 0 {
        return Err(invalid(format!("bad repeat head {head:#x}")));
    }
    let k = (((head & 0x1f) - REPEAT_BASE) | ((head >> 5) << 3)) as usize + 1;
    let entry = h.get(k).ok_or_else(|| invalid(format!("repeat of the record {k} back, which cannot be repeated")))?;
    let head = entry.head();
    // The entry's head says whether times follow (steps may have none).
    let timed = !(head & 0x1f == Kind::Step as u8 && head & STEP_NO_TIME != 0);
    let mut pos = 1;
    let times = if timed { (get_u64(buf, &mut pos)?, get_u64(buf, &mut pos)?) } else { (0, 0) };
    let mut bytes = [0u8; fast::WINDOW];
    let len = entry.write(bytes.first_chunk_mut().expect("the window holds an entry"));
    let unclean = || invalid(format!("the record {k} back does not repeat cleanly"));
    // Decode under a copy: the context changes only if the whole entry decodes exactly.
    // Two copies, not one: the fast path's stays in registers only if nothing takes its
    // address, and one written field by field then copied whole stalls store forwarding.
    let mut fast_ctx = *ctx;
    if let Some((n, _)) = fast::decode(&bytes, &mut fast_ctx, rec, Some(times)) {
        if n != len {
            return Err(unclean());
        }
        *ctx = fast_ctx;
    } else {
        let mut c = *ctx;
        let (n, _, _) = decode_parts(&bytes, &mut c, rec, Some(times)).map_err(|e| match e {
            DecodeError::Incomplete => unclean(),
            e => e,
        })?;
        if n != len {
            return Err(unclean());
        }
        *ctx = c;
    }
    h.push(Some(entry));
    Ok(pos)
}
