//! The per-rank log (`rank-NNNNNN.bin`) written by the tracer.
//!
//! ```text
//! magic "PSINSLOG" | version u16 | reserved u16 | header_len u32 | header | crc32(header) u32
//! block*:  payload_len u32 | record_count u32 | crc32(record_count ‖ payload) u32 | payload
//! footer:  0xFFFF_FFFF u32 | total_records u64 | crc32(total_records bytes) u32
//! ```
//! All fixed-width integers are little-endian. Each block's records are coded with a fresh
//! [`Ctx`] so any whole block decodes on its own: a crash or a disk error costs the blocks
//! after it, never the ones before.

use crate::codec::{self, Ctx, DecodeError};
use crate::error::{Error, Result};
use crate::magic::{self, FileKind, LOG_MAGIC, LOG_VERSION};
use crate::record::{Op, Record};
use crate::varint::{get_str, get_u64, put_str, put_u64};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

const FOOTER_MARK: u32 = u32::MAX;
pub const BLOCK_HEADER_LEN: usize = 12;
/// Blocks larger than this are treated as corrupt (a writer never makes them).
pub const MAX_BLOCK_LEN: u32 = 1 << 30;

/// What the tracer knows about a rank when it opens its log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogHeader {
    pub rank: u32,
    pub world_size: u32,
    /// Identifies the run: equal on every rank of one `mpirun`, different between runs.
    pub job_id: u64,
    pub pid: u32,
    pub start_unix_ns: u64,
    /// "rdtsc" or "clock_gettime(CLOCK_MONOTONIC)", plus calibration if any; with
    /// `PSINS_CLOCK=cpu`, "bursts: <the CPU-time clock>; calls: <that wall clock>"
    /// ([`crate::BurstClock`] reads which from `settings`).
    pub clock: String,
    pub host: String,
    pub mpi_version: String,
    /// The effective `PSINS_*` settings, `key=value` separated by spaces.
    pub settings: String,
    pub tracer_version: String,
}

impl LogHeader {
    /// Appends the file header (magic through header checksum) to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        let mut body = Vec::with_capacity(128);
        for v in [self.rank as u64, self.world_size as u64, self.job_id, self.pid as u64, self.start_unix_ns] {
            put_u64(&mut body, v);
        }
        for s in [&self.clock, &self.host, &self.mpi_version, &self.settings, &self.tracer_version] {
            put_str(&mut body, s);
        }
        out.extend_from_slice(LOG_MAGIC);
        out.extend_from_slice(&LOG_VERSION.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
    }

    fn parse(body: &[u8]) -> Option<LogHeader> {
        let mut p = 0;
        let mut n = || get_u64(body, &mut p).ok();
        let (rank, world_size, job_id, pid, start_unix_ns) = (n()?, n()?, n()?, n()?, n()?);
        let mut s = || get_str(body, &mut p);
        Some(LogHeader {
            rank: u32::try_from(rank).ok()?,
            world_size: u32::try_from(world_size).ok()?,
            job_id,
            pid: u32::try_from(pid).ok()?,
            start_unix_ns,
            clock: s()?,
            host: s()?,
            mpi_version: s()?,
            settings: s()?,
            tracer_version: s()?,
        })
    }
}

/// Buffer room to keep free before appending a record with a list of `n` entries (its block
/// may have to be opened first).
pub fn room(n: usize) -> usize {
    BLOCK_HEADER_LEN + crate::encode::record_room(n)
}

/// Appends records to a caller-owned buffer as checksummed blocks. It never allocates: the
/// caller reserves the buffer once, and calls [`LogEncoder::close_block`] and writes the buffer
/// out when it is nearly full.
#[derive(Debug, Default)]
pub struct LogEncoder {
    ctx: Ctx,
    /// Position in the caller's buffer of the open block's header.
    open_at: Option<usize>,
    block_records: u32,
    pub total_records: u64,
}

impl LogEncoder {
    pub fn new() -> LogEncoder {
        LogEncoder::default()
    }

    pub fn push(&mut self, out: &mut Vec<u8>, rec: &Record) {
        self.push_parts(out, rec.gap_ns, rec.dur_ns, &rec.op, &rec.list);
    }

    /// [`LogEncoder::push`] with the record in parts, so a caller's list is encoded where it
    /// lies (the tracer's intercepted path). Allocates only if `out` lacks [`room`] for it.
    #[inline(always)]
    pub fn push_parts(&mut self, out: &mut Vec<u8>, gap: u64, dur: u64, op: &Op, list: &[i64]) {
        if self.open_at.is_none() {
            self.open_block(out);
        }
        crate::encode::append(out, &mut self.ctx, gap, dur, op, list);
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
        let (len, crc) = (payload.len() as u32, block_crc(self.block_records, payload));
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

/// How a log ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogEnd {
    /// Still reading.
    Open,
    /// A valid footer whose record count matches.
    Complete,
    /// No footer: the run died or the file was cut. `unusable_bytes` after `offset` were
    /// ignored; `reason` says why reading stopped there.
    Truncated { offset: u64, unusable_bytes: u64, reason: String },
}

/// Streams the records of one per-rank log, block by block.
pub struct LogReader {
    path: PathBuf,
    file: BufReader<File>,
    file_len: u64,
    pub header: LogHeader,
    /// Offset of the next unread byte.
    offset: u64,
    block: Vec<u8>,
    block_pos: usize,
    block_left: u32,
    block_offset: u64,
    ctx: Ctx,
    records: u64,
    end: LogEnd,
}

impl LogReader {
    pub fn open(path: &Path) -> Result<LogReader> {
        let file = File::open(path).map_err(|e| Error::io(path, "cannot open", e))?;
        let file_len = file.metadata().map_err(|e| Error::io(path, "cannot stat", e))?.len();
        let mut file = BufReader::with_capacity(1 << 16, file);
        let mut pre = [0u8; 16];
        let got = read_up_to(&mut file, &mut pre).map_err(|e| Error::io(path, "cannot read", e))?;
        magic::check(path, &pre[..got], FileKind::Log)?;
        if got < 16 {
            return Err(Error::new(path, "truncated inside the file header").at(got as u64));
        }
        let hlen = u32::from_le_bytes(pre[12..16].try_into().unwrap()) as u64;
        if hlen + 20 > file_len {
            return Err(Error::new(path, format!("header length {hlen} runs past the end of the file")).at(12));
        }
        let mut body = vec![0u8; hlen as usize + 4];
        file.read_exact(&mut body).map_err(|e| Error::io(path, "cannot read header", e))?;
        let (body, crc) = body.split_at(hlen as usize);
        if crc32fast::hash(body).to_le_bytes() != crc {
            return Err(Error::new(path, "header checksum mismatch: the file header is corrupt").at(16));
        }
        let header = LogHeader::parse(body).ok_or_else(|| Error::new(path, "malformed header fields").at(16))?;
        Ok(LogReader {
            path: path.to_path_buf(),
            file,
            file_len,
            header,
            offset: 20 + hlen,
            block: Vec::new(),
            block_pos: 0,
            block_left: 0,
            block_offset: 0,
            ctx: Ctx::default(),
            records: 0,
            end: LogEnd::Open,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records returned so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// How the file ended; meaningful once [`LogReader::next`] has returned `Ok(false)`.
    pub fn end(&self) -> &LogEnd {
        &self.end
    }

    /// Decodes the next record into `rec`. `Ok(false)` at the end of the usable data (check
    /// [`LogReader::end`] to tell a complete log from a truncated one). An error means a block
    /// passed its checksum but holds a record that cannot be decoded: a writer bug, not damage.
    pub fn next(&mut self, rec: &mut Record) -> Result<bool> {
        while self.block_left == 0 {
            if self.block_pos != self.block.len() {
                let extra = self.block.len() - self.block_pos;
                let e = Error::new(&self.path, format!("block has {extra} bytes after its last record"));
                return Err(e.task(self.header.rank).record(self.records).at(self.block_offset));
            }
            if self.end != LogEnd::Open || !self.next_block()? {
                return Ok(false);
            }
        }
        match codec::decode(&self.block[self.block_pos..], &mut self.ctx, rec) {
            Ok(n) => {
                self.block_pos += n;
                self.block_left -= 1;
                self.records += 1;
                Ok(true)
            }
            Err(e) => {
                let msg = match e {
                    DecodeError::Incomplete => "block ends inside a record".to_string(),
                    DecodeError::Invalid(m) => m,
                };
                Err(Error::new(&self.path, msg)
                    .task(self.header.rank)
                    .record(self.records)
                    .at(self.block_offset + (BLOCK_HEADER_LEN + self.block_pos) as u64))
            }
        }
    }

    fn stop(&mut self, reason: impl Into<String>) -> Result<bool> {
        self.end = LogEnd::Truncated {
            offset: self.offset,
            unusable_bytes: self.file_len.saturating_sub(self.offset),
            reason: reason.into(),
        };
        Ok(false)
    }

    /// Loads the next block; `Ok(false)` at the footer or at damage.
    fn next_block(&mut self) -> Result<bool> {
        let mut head = [0u8; BLOCK_HEADER_LEN];
        let got = read_up_to(&mut self.file, &mut head).map_err(|e| Error::io(&self.path, "cannot read", e))?;
        if got == 0 {
            return self.stop("no footer: the log ends after the last whole block (the run did not finish)");
        }
        if got < 4 {
            return self.stop("file ends inside a block header");
        }
        let word = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().unwrap());
        if word(0) == FOOTER_MARK {
            return self.read_footer(&head[..got]);
        }
        if got < BLOCK_HEADER_LEN {
            return self.stop("file ends inside a block header");
        }
        let (len, count, crc) = (word(0), word(4), word(8));
        if len > MAX_BLOCK_LEN || self.offset + (BLOCK_HEADER_LEN as u64) + len as u64 > self.file_len {
            return self.stop(format!("block of {len} bytes runs past the end of the file"));
        }
        self.block.resize(len as usize, 0);
        self.file.read_exact(&mut self.block).map_err(|e| Error::io(&self.path, "cannot read", e))?;
        if block_crc(count, &self.block) != crc {
            return self.stop("block checksum mismatch (corrupt data)");
        }
        if count == 0 || count > len {
            return self.stop(format!("block claims {count} records in {len} bytes"));
        }
        self.block_offset = self.offset;
        self.offset += (BLOCK_HEADER_LEN as u64) + len as u64;
        self.block_pos = 0;
        self.block_left = count;
        self.ctx = Ctx::default();
        Ok(true)
    }

    fn read_footer(&mut self, head: &[u8]) -> Result<bool> {
        let mut rest = [0u8; 16];
        rest[..head.len()].copy_from_slice(head);
        let more =
            read_up_to(&mut self.file, &mut rest[head.len()..]).map_err(|e| Error::io(&self.path, "cannot read", e))?;
        if head.len() + more < 16 {
            return self.stop("file ends inside the footer");
        }
        let total = &rest[4..12];
        if crc32fast::hash(total).to_le_bytes() != rest[12..16] {
            return self.stop("footer checksum mismatch");
        }
        let total = u64::from_le_bytes(total.try_into().unwrap());
        if total != self.records {
            return self.stop(format!("footer says {total} records, the blocks hold {}", self.records));
        }
        let trailing = self.file_len - self.offset - 16;
        if trailing != 0 {
            self.offset += 16;
            return self.stop(format!("{trailing} bytes after the footer"));
        }
        self.end = LogEnd::Complete;
        Ok(false)
    }
}

/// True when the file ends with a valid footer: the cheap test for "the run finished" that
/// lets a consumer choose a one-pass strategy before reading any block.
pub fn has_footer(path: &Path) -> Result<bool> {
    use std::os::unix::fs::FileExt;
    let file = File::open(path).map_err(|e| Error::io(path, "cannot open", e))?;
    let len = file.metadata().map_err(|e| Error::io(path, "cannot stat", e))?.len();
    if len < 16 {
        return Ok(false);
    }
    let mut tail = [0u8; 16];
    file.read_exact_at(&mut tail, len - 16).map_err(|e| Error::io(path, "cannot read", e))?;
    let mark = u32::from_le_bytes(tail[..4].try_into().unwrap());
    Ok(mark == FOOTER_MARK && crc32fast::hash(&tail[4..12]).to_le_bytes() == tail[12..16])
}

/// The count is covered too: a flipped count would otherwise drop records silently.
fn block_crc(count: u32, payload: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&count.to_le_bytes());
    h.update(payload);
    h.finalize()
}

/// Fills as much of `buf` as the reader has; returns how much.
pub(crate) fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}
