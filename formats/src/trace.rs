//! The compact trace (`.psins`) written by `psins-consolidate`: one file, a header with an
//! offset index, then each task's record stream in rank order.
//!
//! ```text
//! preamble (32 bytes): magic "PSINSTRC" | version u16 | flags u16 | tasks u32 |
//!                      meta_len u32 | comms_len u32 | comms_offset u64
//! meta   (meta_len bytes):  varint n, then n × (key string, value string)
//! index  (tasks × 40 bytes): offset u64 | stored_len u64 | records u64 | raw_len u64 |
//!                            crc32(stored bytes) u32 | task flags u32 (bit 0: repeats used)
//! crc32 of everything above u32
//! task streams, rank order
//! comms  (comms_len bytes at comms_offset): varint n, then n × (id, size, member deltas);
//!        an intercommunicator: (id, 0, size, member deltas, size of its first group)
//! crc32 of the comms bytes u32
//! ```
//! The communicator table comes last so that a writer can learn it while streaming the tasks
//! (psins-consolidate does, in one pass over the logs).
//! With flag bit 0 each stream is one zstd frame; random access per task is kept because the
//! index points at frames. Each stream is coded with one [`Ctx`] from its first record.

use crate::codec::{DecodeError, Stream};
use crate::error::{Error, Result};
use crate::magic::{self, FileKind, TRACE_MAGIC, TRACE_VERSION};
use crate::record::Record;
use crate::varint::{get_i64, get_str, get_u64, put_i64, put_str, put_u64};
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const FLAG_ZSTD: u16 = 1;
const PREAMBLE_LEN: usize = 32;
const INDEX_ENTRY_LEN: usize = 40;

/// A communicator of the trace: its id and its members as world ranks, in comm-rank order.
/// An intercommunicator lists its two groups one after the other, each in its own rank
/// order; `split` is the size of the first (0 for an intra-communicator). Members outside
/// the traced job (spawned processes) are [`OUTSIDE_JOB`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommDef {
    pub id: u32,
    pub members: Vec<u32>,
    pub split: u32,
}

/// A [`CommDef`] member that is not a task of the trace: an intercommunicator's remote
/// process outside `MPI_COMM_WORLD` (spawned), which a comm_create record lists as `NO_RANK`.
pub const OUTSIDE_JOB: u32 = u32::MAX;

/// Why a communicator's definition cannot be in a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommDefError {
    Empty {
        id: u32,
    },
    /// `split` (the first group's size) leaves no second group, or is beyond the list.
    Split {
        id: u32,
        split: u32,
        members: Vec<u32>,
    },
    /// A member that is not a task of the trace.
    Beyond {
        id: u32,
        rank: u32,
        tasks: u32,
    },
    /// Processes outside the job on the side of the trace's own tasks.
    Outside {
        id: u32,
        members: Vec<u32>,
    },
    /// The creating task's own group lists processes outside the job.
    LocalOutside {
        id: u32,
    },
}

impl std::fmt::Display for CommDefError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CommDefError::Empty { id } => write!(f, "communicator {id} has no members"),
            CommDefError::Split { id, split, members } => {
                write!(f, "communicator {id}: first group of {split} in {members:?}")
            }
            CommDefError::Beyond { id, rank, tasks } => {
                write!(f, "communicator {id} lists world rank {rank}, beyond the {tasks} tasks")
            }
            CommDefError::Outside { id, members } => {
                write!(f, "communicator {id} lists processes outside the traced job among its own members: {members:?}")
            }
            CommDefError::LocalOutside { id } => {
                write!(f, "communicator {id}: its local group lists processes outside the job")
            }
        }
    }
}

impl std::error::Error for CommDefError {}

impl CommDef {
    /// Members from a comm_create record's list (`NO_RANK` becomes [`OUTSIDE_JOB`]).
    pub fn members_from_list(list: &[i64]) -> Vec<u32> {
        list.iter().map(|&m| if m == crate::NO_RANK as i64 { OUTSIDE_JOB } else { m as u32 }).collect()
    }

    /// The communicator a comm_create record defines (`list` and `split` as in
    /// [`crate::Op::CommCreate`]), checked as a trace of `tasks` tasks holds it: [`CommDef::check`],
    /// and the creating task's own (local) group holds no process outside the job.
    pub fn from_record(id: u32, split: u32, list: &[i64], tasks: u32) -> std::result::Result<CommDef, CommDefError> {
        let def = CommDef { id, members: Self::members_from_list(list), split };
        def.check(tasks)?;
        if def.members[..split as usize].contains(&OUTSIDE_JOB) {
            return Err(CommDefError::LocalOutside { id });
        }
        Ok(def)
    }

    pub fn intra(id: u32, members: Vec<u32>) -> CommDef {
        CommDef { id, members, split: 0 }
    }

    pub fn is_inter(&self) -> bool {
        self.split != 0
    }

    /// Whether a trace of `tasks` tasks can hold this definition: members, `split` inside
    /// the list, every member a task, save that one group of an intercommunicator may be
    /// processes outside the job ([`OUTSIDE_JOB`]; the other group must be tasks).
    pub fn check(&self, tasks: u32) -> std::result::Result<(), CommDefError> {
        let id = self.id;
        if self.members.is_empty() {
            return Err(CommDefError::Empty { id });
        }
        let (a, b) = match self.members.split_at_checked(self.split as usize) {
            Some((a, b)) if !b.is_empty() => (a, b),
            _ => return Err(CommDefError::Split { id, split: self.split, members: self.members.clone() }),
        };
        if let Some(&rank) = self.members.iter().find(|&&m| m >= tasks && m != OUTSIDE_JOB) {
            return Err(CommDefError::Beyond { id, rank, tasks });
        }
        let outside = |g: &[u32]| g.contains(&OUTSIDE_JOB);
        if outside(&self.members) && (!self.is_inter() || (outside(a) && outside(b))) {
            return Err(CommDefError::Outside { id, members: self.members.clone() });
        }
        Ok(())
    }

    /// The world ranks that `caller`'s point-to-point peers on this communicator index: every
    /// member, or on an intercommunicator the group `caller` is not in. `None` when `caller`
    /// is in neither group of an intercommunicator.
    pub fn peer_group(&self, caller: u32) -> Option<&[u32]> {
        if !self.is_inter() {
            return Some(&self.members);
        }
        let (a, b) = self.members.split_at_checked(self.split as usize)?;
        if a.contains(&caller) {
            Some(b)
        } else {
            b.contains(&caller).then_some(a)
        }
    }
}

/// Where one task's stream is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskEntry {
    pub offset: u64,
    pub stored_len: u64,
    pub records: u64,
    pub raw_len: u64,
    pub crc: u32,
    /// [`TASK_REPEATS`] when the stream uses repeat records.
    pub flags: u32,
}

/// Task flag: the stream contains repeat records, so a reader needs a repeat history for it
/// (about 800 bytes); streams without keep their cursors lean.
pub const TASK_REPEATS: u32 = 1;

/// Everything before the task streams.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceHeader {
    pub flags: u16,
    pub meta: Vec<(String, String)>,
    pub comms: Vec<CommDef>,
    pub tasks: Vec<TaskEntry>,
}

impl TraceHeader {
    pub fn compressed(&self) -> bool {
        self.flags & FLAG_ZSTD != 0
    }
    pub fn meta(&self, key: &str) -> Option<&str> {
        self.meta.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
    pub fn total_records(&self) -> u64 {
        self.tasks.iter().map(|t| t.records).sum()
    }
    pub fn comm(&self, id: u32) -> Option<&CommDef> {
        self.comms.iter().find(|c| c.id == id)
    }
}

fn encode_meta(meta: &[(String, String)]) -> Vec<u8> {
    let mut out = Vec::new();
    put_u64(&mut out, meta.len() as u64);
    for (k, v) in meta {
        put_str(&mut out, k);
        put_str(&mut out, v);
    }
    out
}

fn encode_comms(comms: &[CommDef]) -> Vec<u8> {
    let mut out = Vec::new();
    put_u64(&mut out, comms.len() as u64);
    for c in comms {
        put_u64(&mut out, c.id as u64);
        if c.is_inter() {
            put_u64(&mut out, 0); // no communicator is empty: 0 marks an intercommunicator
        }
        put_u64(&mut out, c.members.len() as u64);
        let mut prev = -1i64;
        for &m in &c.members {
            put_i64(&mut out, m as i64 - prev);
            prev = m as i64;
        }
        if c.is_inter() {
            put_u64(&mut out, c.split as u64);
        }
    }
    out
}

fn decode_meta(b: &[u8]) -> Option<Vec<(String, String)>> {
    let mut p = 0;
    let n = get_u64(b, &mut p).ok()?;
    let mut meta = Vec::new();
    for _ in 0..n {
        meta.push((get_str(b, &mut p)?, get_str(b, &mut p)?));
    }
    (p == b.len()).then_some(meta)
}

fn decode_comms(b: &[u8]) -> Option<Vec<CommDef>> {
    let mut p = 0;
    let n = get_u64(b, &mut p).ok()?;
    let mut comms = Vec::new();
    for _ in 0..n {
        let id = u32::try_from(get_u64(b, &mut p).ok()?).ok()?;
        let mut size = get_u64(b, &mut p).ok()?;
        let inter = size == 0;
        if inter {
            size = get_u64(b, &mut p).ok()?;
        }
        if size > (b.len() - p) as u64 {
            return None;
        }
        let mut prev = -1i64;
        let mut members = Vec::with_capacity(size as usize);
        for _ in 0..size {
            prev = prev.checked_add(get_i64(b, &mut p).ok()?)?;
            members.push(u32::try_from(prev).ok()?);
        }
        let split = if inter { u32::try_from(get_u64(b, &mut p).ok()?).ok()? } else { 0 };
        if inter && (split == 0 || split as u64 >= size) {
            return None;
        }
        comms.push(CommDef { id, members, split });
    }
    (p == b.len()).then_some(comms)
}

/// Counts and checksums what passes through, so the writer knows each stream's length and
/// crc without seeking.
struct Counted<W> {
    inner: W,
    pos: u64,
    crc: crc32fast::Hasher,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.pos += n as u64;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

enum Sink {
    Plain(Counted<BufWriter<File>>),
    Zstd(zstd::stream::write::Encoder<'static, Counted<BufWriter<File>>>),
    Taken,
}

/// Writes a compact trace: create, then for each task in rank order `begin_task`, `push`…,
/// `end_task`, then `finish`. Memory stays at one 64 KiB scratch buffer whatever the trace size.
pub struct TraceWriter {
    path: PathBuf,
    sink: Sink,
    level: Option<i32>,
    repeats: bool,
    header: TraceHeader,
    meta_bytes: Vec<u8>,
    index_at: u64,
    scratch: Vec<u8>,
    stream: Stream,
    current: Option<u32>,
    next_task: u32,
    raw_len: u64,
    records: u64,
    stream_start: u64,
}

const SCRATCH_FLUSH: usize = 1 << 16;

impl TraceWriter {
    /// Writes a whole uncompressed trace at once: each task's records in order. What tests,
    /// generators and small tools need; a consolidation streams through [`TraceWriter::create`].
    pub fn write_tasks(
        path: &Path,
        tasks: &[Vec<Record>],
        meta: Vec<(String, String)>,
        comms: Vec<CommDef>,
    ) -> Result<TraceHeader> {
        let mut w = TraceWriter::create(path, tasks.len() as u32, meta, comms, None)?;
        for (t, recs) in tasks.iter().enumerate() {
            w.begin_task(t as u32)?;
            for r in recs {
                w.push(r)?;
            }
            w.end_task()?;
        }
        w.finish()
    }

    /// Creates `path` and writes the header with a blank index. `zstd_level` compresses
    /// each task stream.
    pub fn create(
        path: &Path,
        tasks: u32,
        meta: Vec<(String, String)>,
        comms: Vec<CommDef>,
        zstd_level: Option<i32>,
    ) -> Result<TraceWriter> {
        let io_err = |e| Error::io(path, "cannot write", e);
        // Read access too: `finish` reads the header back to checksum it.
        let file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(path);
        let file = file.map_err(|e| Error::io(path, "cannot create", e))?;
        let mut w = Counted { inner: BufWriter::with_capacity(1 << 20, file), pos: 0, crc: crc32fast::Hasher::new() };
        let flags = if zstd_level.is_some() { FLAG_ZSTD } else { 0 };
        let m = encode_meta(&meta);
        // `finish` rewrites the preamble once it knows where the communicator table went.
        w.write_all(&[0u8; PREAMBLE_LEN]).map_err(io_err)?;
        w.write_all(&m).map_err(io_err)?;
        let index_at = w.pos;
        let blank = vec![0u8; INDEX_ENTRY_LEN * tasks as usize + 4];
        w.write_all(&blank).map_err(io_err)?;
        let header = TraceHeader { flags, meta, comms, tasks: vec![TaskEntry::default(); tasks as usize] };
        Ok(TraceWriter {
            path: path.to_path_buf(),
            sink: Sink::Plain(w),
            level: zstd_level,
            repeats: true,
            header,
            meta_bytes: m,
            index_at,
            scratch: Vec::with_capacity(SCRATCH_FLUSH + 4096),
            stream: Stream::with_repeats(),
            current: None,
            next_task: 0,
            raw_len: 0,
            records: 0,
            stream_start: 0,
        })
    }

    /// Whether tasks begun from now on may use repeat records (on by default). Off keeps every
    /// reader's cursor free of the ~800-byte repeat history, for traces of very many tasks.
    pub fn set_repeats(&mut self, on: bool) {
        self.repeats = on;
    }

    /// Replaces the communicator table given to `create`; `finish` writes it.
    pub fn set_comms(&mut self, comms: Vec<CommDef>) {
        self.header.comms = comms;
    }

    fn io(&self, e: io::Error) -> Error {
        Error::io(&self.path, "cannot write", e)
    }

    pub fn begin_task(&mut self, task: u32) -> Result<()> {
        if self.current.is_some() || task != self.next_task || task as usize >= self.header.tasks.len() {
            return Err(Error::new(
                &self.path,
                format!("tasks must be written once each in rank order; got {task}, expected {}", self.next_task),
            ));
        }
        let Sink::Plain(mut w) = std::mem::replace(&mut self.sink, Sink::Taken) else {
            unreachable!("sink is plain between tasks")
        };
        w.crc = crc32fast::Hasher::new();
        self.stream_start = w.pos;
        self.sink = match self.level {
            Some(l) => Sink::Zstd(zstd::stream::write::Encoder::new(w, l).map_err(|e| self.io(e))?),
            None => Sink::Plain(w),
        };
        self.current = Some(task);
        self.stream = if self.repeats { Stream::with_repeats() } else { Stream::without_repeats() };
        self.raw_len = 0;
        self.records = 0;
        Ok(())
    }

    pub fn push(&mut self, rec: &Record) -> Result<()> {
        debug_assert!(self.current.is_some(), "push outside begin_task/end_task");
        self.stream.encode(&mut self.scratch, rec);
        self.records += 1;
        if self.scratch.len() >= SCRATCH_FLUSH {
            self.flush_scratch()?;
        }
        Ok(())
    }

    fn flush_scratch(&mut self) -> Result<()> {
        self.raw_len += self.scratch.len() as u64;
        let r = match &mut self.sink {
            Sink::Plain(w) => w.write_all(&self.scratch),
            Sink::Zstd(z) => z.write_all(&self.scratch),
            Sink::Taken => unreachable!("sink always restored"),
        };
        self.scratch.clear();
        r.map_err(|e| self.io(e))
    }

    pub fn end_task(&mut self) -> Result<()> {
        let Some(task) = self.current.take() else {
            return Err(Error::new(&self.path, "end_task without begin_task"));
        };
        self.flush_scratch()?;
        let w = match std::mem::replace(&mut self.sink, Sink::Taken) {
            Sink::Plain(w) => w,
            Sink::Zstd(z) => z.finish().map_err(|e| self.io(e))?,
            Sink::Taken => unreachable!("sink always restored"),
        };
        self.header.tasks[task as usize] = TaskEntry {
            offset: self.stream_start,
            stored_len: w.pos - self.stream_start,
            records: self.records,
            raw_len: self.raw_len,
            crc: w.crc.clone().finalize(),
            flags: if self.stream.used_repeats() { TASK_REPEATS } else { 0 },
        };
        self.sink = Sink::Plain(w);
        self.next_task += 1;
        Ok(())
    }

    /// Writes the index and its checksum, flushes, and returns the header as written.
    pub fn finish(mut self) -> Result<TraceHeader> {
        if self.current.is_some() || self.next_task as usize != self.header.tasks.len() {
            return Err(Error::new(
                &self.path,
                format!("finish after {} of {} tasks", self.next_task, self.header.tasks.len()),
            ));
        }
        let Sink::Plain(mut w) = std::mem::replace(&mut self.sink, Sink::Taken) else {
            unreachable!("sink is plain between tasks")
        };
        let tasks = self.header.tasks.len() as u32;
        if let Some(e) = self.header.comms.iter().find_map(|c| c.check(tasks).err()) {
            return Err(Error::new(&self.path, format!("cannot write the communicator table: {e}")));
        }
        let comms = encode_comms(&self.header.comms);
        let comms_at = w.pos;
        w.write_all(&comms).map_err(|e| self.io(e))?;
        w.write_all(&crc32fast::hash(&comms).to_le_bytes()).map_err(|e| self.io(e))?;
        let mut file = w.inner.into_inner().map_err(|e| self.io(e.into_error()))?;
        let mut head = Vec::with_capacity(self.index_at as usize + INDEX_ENTRY_LEN * self.header.tasks.len() + 4);
        head.extend_from_slice(TRACE_MAGIC);
        head.extend_from_slice(&TRACE_VERSION.to_le_bytes());
        head.extend_from_slice(&self.header.flags.to_le_bytes());
        head.extend_from_slice(&(self.header.tasks.len() as u32).to_le_bytes());
        head.extend_from_slice(&(self.meta_bytes.len() as u32).to_le_bytes());
        head.extend_from_slice(&(comms.len() as u32).to_le_bytes());
        head.extend_from_slice(&comms_at.to_le_bytes());
        head.extend_from_slice(&self.meta_bytes);
        for t in &self.header.tasks {
            for v in [t.offset, t.stored_len, t.records, t.raw_len] {
                head.extend_from_slice(&v.to_le_bytes());
            }
            head.extend_from_slice(&t.crc.to_le_bytes());
            head.extend_from_slice(&t.flags.to_le_bytes());
        }
        let crc = crc32fast::hash(&head);
        head.extend_from_slice(&crc.to_le_bytes());
        file.seek(SeekFrom::Start(0)).map_err(|e| self.io(e))?;
        file.write_all(&head).map_err(|e| self.io(e))?;
        file.sync_all().map_err(|e| self.io(e))?;
        Ok(self.header)
    }
}

/// An open compact trace: the header in memory, task streams read on demand.
#[derive(Clone)]
pub struct TraceReader {
    path: PathBuf,
    file: Arc<File>,
    pub header: TraceHeader,
}

impl TraceReader {
    pub fn open(path: &Path) -> Result<TraceReader> {
        if path.is_dir() {
            return Err(Error::new(path, directory_hint(path)));
        }
        let file = File::open(path).map_err(|e| Error::io(path, "cannot open", e))?;
        let len = file.metadata().map_err(|e| Error::io(path, "cannot stat", e))?.len();
        let mut pre = [0u8; PREAMBLE_LEN];
        let got = crate::log::read_up_to(&mut &file, &mut pre).map_err(|e| Error::io(path, "cannot read", e))?;
        magic::check(path, &pre[..got], FileKind::Trace)?;
        if got < PREAMBLE_LEN {
            return Err(Error::new(path, "truncated inside the header").at(got as u64));
        }
        let u16_at = |i: usize| u16::from_le_bytes([pre[i], pre[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes(pre[i..i + 4].try_into().unwrap()) as u64;
        let (flags, tasks, mlen, clen) = (u16_at(10), u32_at(12), u32_at(16), u32_at(20));
        let comms_at = u64::from_le_bytes(pre[24..32].try_into().unwrap());
        if flags & !FLAG_ZSTD != 0 {
            return Err(Error::new(path, format!("unknown header flags {flags:#x}")).at(10));
        }
        let hlen = PREAMBLE_LEN as u64 + mlen + tasks * INDEX_ENTRY_LEN as u64 + 4;
        if hlen > len {
            let msg = format!("header of {hlen} bytes is longer than the file ({len} bytes): truncated");
            return Err(Error::new(path, msg).at(0));
        }
        let mut head = vec![0u8; hlen as usize];
        file.read_exact_at(&mut head, 0).map_err(|e| Error::io(path, "cannot read header", e))?;
        let (body, crc) = head.split_at(hlen as usize - 4);
        if crc32fast::hash(body).to_le_bytes() != crc {
            let msg = "header checksum mismatch: the header or index is corrupt, or the file was never finished";
            return Err(Error::new(path, msg).at(0));
        }
        let m_at = PREAMBLE_LEN;
        let i_at = m_at + mlen as usize;
        let meta =
            decode_meta(&body[m_at..i_at]).ok_or_else(|| Error::new(path, "malformed metadata").at(m_at as u64))?;
        let comms = read_comms(path, &file, comms_at, clen, hlen, len)?;
        if let Some(e) = comms.iter().find_map(|c| c.check(tasks as u32).err()) {
            return Err(Error::new(path, format!("malformed communicator table: {e}")).at(comms_at));
        }
        let mut entries = Vec::with_capacity(tasks as usize);
        for (t, e) in body[i_at..].chunks_exact(INDEX_ENTRY_LEN).enumerate() {
            let q = |i: usize| u64::from_le_bytes(e[i * 8..i * 8 + 8].try_into().unwrap());
            let entry = TaskEntry {
                offset: q(0),
                stored_len: q(1),
                records: q(2),
                raw_len: q(3),
                crc: u32::from_le_bytes(e[32..36].try_into().unwrap()),
                flags: u32::from_le_bytes(e[36..40].try_into().unwrap()),
            };
            if entry.offset < hlen || entry.offset.checked_add(entry.stored_len).is_none_or(|end| end > len) {
                return Err(Error::new(path, "index entry points outside the file (truncated trace?)")
                    .task(t as u32)
                    .at((i_at + t * INDEX_ENTRY_LEN) as u64));
            }
            if entry.flags & !TASK_REPEATS != 0 {
                let msg = format!("unknown task flags {:#x}", entry.flags);
                return Err(Error::new(path, msg).task(t as u32).at((i_at + t * INDEX_ENTRY_LEN + 36) as u64));
            }
            entries.push(entry);
        }
        Ok(TraceReader {
            path: path.to_path_buf(),
            file: Arc::new(file),
            header: TraceHeader { flags, meta, comms, tasks: entries },
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn tasks(&self) -> u32 {
        self.header.tasks.len() as u32
    }

    /// Every task's records, whole: the twin of [`TraceWriter::write_tasks`] for tests and
    /// small traces (a replay streams through [`TraceReader::task`]).
    pub fn read_tasks(&self) -> Result<Vec<Vec<Record>>> {
        (0..self.tasks())
            .map(|t| {
                let mut c = self.task(t, 0)?;
                let (mut v, mut rec) = (Vec::new(), Record::default());
                while c.next(&mut rec)? {
                    v.push(rec.clone());
                }
                Ok(v)
            })
            .collect()
    }

    /// A cursor over one task's records, reading through a window of `window` bytes (a few
    /// hundred bytes keeps a million simultaneous cursors small; 64 KiB is fastest for a scan).
    pub fn task(&self, task: u32, window: usize) -> Result<TaskCursor> {
        let entry =
            *self.header.tasks.get(task as usize).ok_or_else(|| {
                Error::new(&self.path, format!("no task {task}: the trace has {} tasks", self.tasks()))
            })?;
        let src = Slice {
            file: self.file.clone(),
            pos: entry.offset,
            end: entry.offset + entry.stored_len,
            crc: crc32fast::Hasher::new(),
        };
        let source = if self.header.compressed() {
            Source::Zstd(Box::new(
                zstd::stream::read::Decoder::new(src).map_err(|e| Error::io(&self.path, "cannot start zstd", e))?,
            ))
        } else {
            Source::Plain(src)
        };
        Ok(TaskCursor {
            path: self.path.clone(),
            task,
            entry,
            source,
            buf: vec![0u8; window.max(64)],
            start: 0,
            end: 0,
            eof: false,
            stream: if entry.flags & TASK_REPEATS != 0 { Stream::with_repeats() } else { Stream::without_repeats() },
            index: 0,
            consumed: 0,
        })
    }
}

fn read_comms(path: &Path, file: &File, at: u64, clen: u64, hlen: u64, len: u64) -> Result<Vec<CommDef>> {
    if at < hlen || at.saturating_add(clen + 4) > len {
        return Err(Error::new(path, "communicator table lies outside the file (truncated trace?)").at(24));
    }
    let mut bytes = vec![0u8; clen as usize + 4];
    file.read_exact_at(&mut bytes, at).map_err(|e| Error::io(path, "cannot read communicator table", e))?;
    let (b, crc) = bytes.split_at(clen as usize);
    if crc32fast::hash(b).to_le_bytes() != crc {
        return Err(Error::new(path, "communicator table checksum mismatch").at(at));
    }
    decode_comms(b).ok_or_else(|| Error::new(path, "malformed communicator table").at(at))
}

/// Reads one stream's stored bytes with positioned reads (no shared file offset) and checksums them.
struct Slice {
    file: Arc<File>,
    pos: u64,
    end: u64,
    crc: crc32fast::Hasher,
}

impl Read for Slice {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = buf.len().min((self.end - self.pos) as usize);
        if want == 0 {
            return Ok(0);
        }
        let n = self.file.read_at(&mut buf[..want], self.pos)?;
        if n == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "file shorter than its index says"));
        }
        self.crc.update(&buf[..n]);
        self.pos += n as u64;
        Ok(n)
    }
}

enum Source {
    Plain(Slice),
    Zstd(Box<zstd::stream::read::Decoder<'static, io::BufReader<Slice>>>),
}

impl Source {
    fn slice(&self) -> &Slice {
        match self {
            Source::Plain(s) => s,
            Source::Zstd(z) => z.get_ref().get_ref(),
        }
    }
}

/// Streams one task's records.
pub struct TaskCursor {
    path: PathBuf,
    task: u32,
    entry: TaskEntry,
    source: Source,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    stream: Stream,
    index: u64,
    consumed: u64,
}

impl TaskCursor {
    pub fn task(&self) -> u32 {
        self.task
    }
    /// Index of the next record.
    pub fn index(&self) -> u64 {
        self.index
    }
    pub fn records(&self) -> u64 {
        self.entry.records
    }
    /// True once every record of the task has been returned.
    pub fn is_done(&self) -> bool {
        self.index >= self.entry.records
    }

    fn err(&self, msg: impl Into<String>) -> Error {
        Error::new(&self.path, msg).task(self.task).record(self.index).at(self.entry.offset + self.consumed)
    }

    /// Decodes the next record into `rec`; `Ok(false)` after the last one.
    #[inline(always)]
    pub fn next(&mut self, rec: &mut Record) -> Result<bool> {
        if self.index >= self.entry.records {
            return self.finish();
        }
        loop {
            match self.stream.decode(&self.buf[self.start..self.end], rec) {
                Ok(n) => {
                    self.start += n;
                    self.consumed += n as u64;
                    self.index += 1;
                    return Ok(true);
                }
                Err(DecodeError::Incomplete) if !self.eof => self.refill()?,
                Err(DecodeError::Incomplete) => return Err(self.err("stream ends inside a record")),
                Err(DecodeError::Invalid(m)) => return Err(self.err(m)),
            }
        }
    }

    #[cold]
    fn refill(&mut self) -> Result<()> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            // One record larger than the window (a long member list): grow.
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let r = match &mut self.source {
            Source::Plain(s) => s.read(&mut self.buf[self.end..]),
            Source::Zstd(z) => z.read(&mut self.buf[self.end..]),
        };
        let n = r.map_err(|e| {
            let mut err = self.err("cannot read task stream");
            err.source = Some(e);
            err
        })?;
        if n == 0 {
            self.eof = true;
        }
        self.end += n;
        Ok(())
    }

    /// At the last record: the stream must end here and its checksum must match.
    fn finish(&mut self) -> Result<bool> {
        if self.start < self.end {
            return Err(self.err(format!("{} bytes after the last record", self.end - self.start)));
        }
        if !self.eof {
            self.refill()?;
            if self.end > 0 {
                return Err(self.err("bytes after the last record"));
            }
        }
        if self.slice_done_crc() != Some(self.entry.crc) {
            return Err(self.err("task stream checksum mismatch (corrupt trace)"));
        }
        Ok(false)
    }

    fn slice_done_crc(&self) -> Option<u32> {
        let s = self.source.slice();
        (s.pos == s.end).then(|| s.crc.clone().finalize())
    }
}

/// What to say of a directory given where a compact trace was expected.
fn directory_hint(dir: &Path) -> String {
    if !crate::jobs::logs_in(dir).is_empty() {
        return format!(
            "is a directory of per-rank logs (rank-*.bin): consolidate them first, `psins-consolidate {} -o app.psins`, then give app.psins",
            dir.display()
        );
    }
    let runs = crate::jobs::runs_in(dir);
    if !runs.is_empty() {
        return crate::jobs::runs_hint(&runs);
    }
    "is a directory, expected a psins compact trace (.psins, written by psins-consolidate)".into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NO_RANK;

    #[test]
    fn communicator_table_round_trips_and_refuses_bad_intercommunicators() {
        let defs = vec![
            CommDef::intra(0, vec![0, 1, 2]),
            CommDef { id: 3, members: vec![0, 2, 1], split: 2 },
            CommDef { id: 4, members: vec![1, OUTSIDE_JOB, OUTSIDE_JOB], split: 1 },
        ];
        let bytes = encode_comms(&defs);
        assert_eq!(decode_comms(&bytes), Some(defs.clone()));
        for d in &defs {
            d.check(3).unwrap();
        }
        // id 3 by hand: marker, 2 members (deltas from -1), first group of `split`
        for (split, ok) in [(0, false), (1, true), (2, false), (9, false)] {
            let mut b = vec![1, 3, 0, 2];
            put_i64(&mut b, 1);
            put_i64(&mut b, 1);
            put_u64(&mut b, split);
            assert_eq!(decode_comms(&b).is_some(), ok, "split {split}");
        }
        let o = OUTSIDE_JOB;
        let bad = [
            (CommDef::intra(5, vec![]), CommDefError::Empty { id: 5 }),
            (CommDef::intra(5, vec![0, o]), CommDefError::Outside { id: 5, members: vec![0, o] }),
            (CommDef { id: 5, members: vec![o, o], split: 1 }, CommDefError::Outside { id: 5, members: vec![o, o] }),
            (
                CommDef { id: 5, members: vec![0, 1], split: 2 },
                CommDefError::Split { id: 5, split: 2, members: vec![0, 1] },
            ),
            (CommDef::intra(5, vec![0, 3]), CommDefError::Beyond { id: 5, rank: 3, tasks: 3 }),
        ];
        for (d, want) in bad {
            assert_eq!(d.check(3), Err(want), "{d:?}");
        }
        assert_eq!(
            CommDef::intra(5, vec![0, 3]).check(3).unwrap_err().to_string(),
            "communicator 5 lists world rank 3, beyond the 3 tasks"
        );
        assert_eq!(CommDef { id: 5, members: vec![0, 1], split: 7 }.peer_group(0), None);
    }

    #[test]
    fn only_a_remote_group_may_list_processes_outside_the_job() {
        let members = |split, list: &[i64]| CommDef::from_record(3, split, list, 2).map(|d| d.members);
        let spawned = [0, NO_RANK as i64, NO_RANK as i64];
        assert_eq!(members(1, &spawned).unwrap(), [0, OUTSIDE_JOB, OUTSIDE_JOB]);
        assert!(members(0, &spawned).is_err(), "an intra-communicator");
        assert!(members(2, &[NO_RANK as i64, 0, 1]).is_err(), "in the local group");
        assert!(members(1, &[0, 2]).is_err(), "beyond the world");
    }
}
