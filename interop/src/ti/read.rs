//! Reading SimGrid TI traces (SimGrid 3.32's replay syntax) as psins records, one rank at a
//! time, for consolidation ([`psins_consolidate::RankInput`]): imported traces pass the same
//! checks as traced ones. docs/interop-simgrid.md lists what each action becomes.
//!
//! SMPI's replayer keeps nonblocking requests by (source, destination, tag) and a `wait` takes
//! the oldest of its key; a `waitall` takes them all. The reader does the same, giving each
//! request an id as the tracer would.

use psins_consolidate::{RankInput, RecordStream};
use psins_formats::{
    Coll, CollFlags, Error, Op, Record, SendMode, WaitFn, ANY_SOURCE, ANY_TAG, COMM_WORLD, NO_RANK, NO_REQUEST,
};
use rustc_hash::FxHashMap as HashMap;
use std::collections::{HashSet, VecDeque};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One rank of a TI trace: its own action file, or its lines of a shared one.
pub struct TiRank {
    pub path: PathBuf,
    pub rank: u32,
    /// The file holds every rank's actions (lines of other ranks are skipped).
    pub shared: bool,
    /// Ranks of the trace (peers must be below).
    pub world: u32,
    /// flop/s of the hosts the trace's `compute` amounts are for.
    pub host_speed: f64,
    /// What the trace does not say and the reading assumed, counted when the rank's stream
    /// ends (a rank read twice counts once).
    guessed: Arc<Mutex<Guessed>>,
}

/// What a TI trace leaves out, counted per rank: receives from any source (SMPI writes no
/// sender; psins-sim replays them as wildcards) and `waitAny` (SMPI writes how many requests it
/// was given, not which completed: the one posted first is taken).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Guessed {
    pub wildcards: u64,
    pub waitany: u64,
}

impl TiRank {
    fn new(path: PathBuf, rank: u32, shared: bool, world: u32, host_speed: f64) -> TiRank {
        TiRank { path, rank, shared, world, host_speed, guessed: Arc::default() }
    }

    /// What this rank's reading assumed (after consolidation has read it).
    pub fn guessed(&self) -> Guessed {
        *self.guessed.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl RankInput for TiRank {
    type Stream = TiStream;
    fn path(&self) -> &Path {
        &self.path
    }
    fn rank(&self) -> u32 {
        self.rank
    }
    // Known complete (the default): text has no footer, so a trace cut short is read as far
    // as it goes (its requests then show as left open), as SMPI would replay it.
    fn open(&self) -> Result<TiStream, Error> {
        let f = File::open(&self.path).map_err(|e| Error::io(&self.path, "cannot open", e))?;
        Ok(TiStream {
            path: self.path.clone(),
            rank: self.rank,
            shared: self.shared,
            world: self.world,
            host_speed: self.host_speed,
            lines: BufReader::new(f),
            line: String::new(),
            line_no: 0,
            records: 0,
            gap: 0.0,
            elem: 1,
            instance: 0,
            next_req: 0,
            reqs: HashMap::default(),
            fields: Vec::new(),
            order: VecDeque::new(),
            finalized: false,
            ended: false,
            guessed: Guessed::default(),
            shared_guessed: self.guessed.clone(),
        })
    }
}

/// A posted isend/irecv waiting for its `wait`.
#[derive(Clone, Copy)]
struct Req {
    id: u32,
    recv: bool,
    peer: i32,
    tag: i32,
    bytes: u64,
}

pub struct TiStream {
    path: PathBuf,
    rank: u32,
    shared: bool,
    world: u32,
    host_speed: f64,
    lines: BufReader<File>,
    line: String,
    line_no: u64,
    records: u64,
    /// CPU time (ns) before the next record.
    gap: f64,
    /// Bytes of the default datatype: MPI_BYTE, or MPI_DOUBLE when `init` has an argument.
    elem: u64,
    instance: u32,
    next_req: u32,
    reqs: HashMap<(i32, i32, i32), VecDeque<Req>>,
    /// The allocation of a line's fields, kept from line to line (empty between lines).
    fields: Vec<&'static str>,
    /// Every posted request id in posting order, for `waitall`.
    order: VecDeque<u32>,
    finalized: bool,
    ended: bool,
    guessed: Guessed,
    shared_guessed: Arc<Mutex<Guessed>>,
}

/// Bytes of SMPI's predefined datatypes by their TI id (`Datatype::encode`), as SimGrid 3.32
/// sizes them (read with MPI_Type_size under smpirun; docs/interop-simgrid.md): the C types
/// 0–34 and 50, the pair types 35–37, the Fortran ones 38–49 (SimGrid sizes MPI_INTEGER1 as an
/// int), MPI_PACKED 57, 58 (what Fortran's MPI_AINT is written as) and MPI_COUNT 59. Fortran's
/// LOGICAL, INTEGER*n and COMPLEX types are written as the C types of their size. A derived
/// type is written as -1, whose size the trace does not hold.
fn type_size(id: &str) -> Option<u64> {
    const SIZES: [u64; 51] = [
        8, 4, 1, 2, 8, 4, 1, 8, 1, 1, 2, 4, 8, 8, 16, 4, 1, 1, 2, 4, 8, // 0–20: DOUBLE … INT64_T
        1, 2, 4, 8, 8, 16, 32, 8, 8, // 21–29: UINT8_T … C_LONG_DOUBLE_COMPLEX, AINT, OFFSET
        8, 16, 16, 8, 8, 8, 16, 16, // 30–37: FLOAT_INT … 2INT, 2FLOAT, 2DOUBLE, 2LONG
        4, 4, 8, 16, 8, 16, 16, // 38–44: REAL, REAL4, REAL8, REAL16, COMPLEX8, COMPLEX16, COMPLEX32
        4, 2, 4, 8, 16, 32, // 45–50: INTEGER1 … INTEGER16, LONG_DOUBLE_INT
    ];
    match id.parse::<usize>().ok()? {
        57 => Some(1),
        58 | 59 => Some(8),
        i => SIZES.get(i).copied(),
    }
}

/// An empty vector of string slices with `v`'s allocation, for slices of another lifetime:
/// collecting a vector's own iterator into elements of the same layout reuses its memory, so
/// a line's fields cost no allocation once the longest line has been read.
fn reuse<'b>(mut v: Vec<&str>) -> Vec<&'b str> {
    v.clear();
    v.into_iter().map(|_| "").collect()
}

/// SMPI's MPI_ANY_SOURCE as a TI trace writes a receive's partner (its MPI_UNDEFINED: the
/// wildcard has no rank in the world group), and its MPI_ANY_TAG.
const SMPI_ANY_SOURCE: i32 = -333;
const SMPI_ANY_TAG: i32 = -444;

/// Why a TI line cannot be imported (the caller adds the file, rank and line). `action` is
/// the line's action, which the message names first.
#[derive(Debug, thiserror::Error)]
enum LineError {
    #[error("{0:?} is not a rank")]
    NotARank(String),
    #[error("an action of rank {who} in rank {rank}'s file")]
    OtherRank { who: u32, rank: u32 },
    #[error("a rank without an action")]
    NoAction,
    #[error("{action}: missing {what}")]
    Missing { action: String, what: &'static str },
    #[error("{action}: {what} {value:?} is not a number")]
    NotANumber { action: String, what: &'static str, value: String },
    #[error("{action}: {what} {value} out of range")]
    OutOfRange { action: String, what: &'static str, value: f64 },
    #[error("{action}: {what} {value} is not a rank of this {world}-rank trace")]
    NotARankOfTrace { action: String, what: &'static str, value: i32, world: u32 },
    #[error("{action}: {what} {size} (a size SMPI learns by probing) cannot be imported")]
    ProbedSize { action: String, what: &'static str, size: f64 },
    #[error("{action}: unknown datatype id {id:?}")]
    UnknownDatatype { action: String, id: String },
    #[error("compute: negative amount {0}")]
    NegativeFlops(f64),
    #[error("sleep: negative time {0}")]
    NegativeSleep(f64),
    #[error("{action}: {args} arguments, fewer than the {want} counts of a {ranks}-rank trace")]
    FewCounts { action: String, args: usize, want: usize, ranks: usize },
    #[error("alltoallv: {args} arguments, fewer than the {want} of a {ranks}-rank trace")]
    FewAlltoallv { args: usize, want: usize, ranks: usize },
    #[error("{action}: counts overflow")]
    CountsOverflow { action: String },
    #[error("unknown action {0:?} (SimGrid 3.32's replay has no such action)")]
    UnknownAction(String),
    #[error("more than 2^32 requests")]
    TooManyRequests,
}

impl RecordStream for TiStream {
    fn next(&mut self, rec: &mut Record) -> Result<bool, Error> {
        loop {
            if self.ended {
                return Ok(false);
            }
            self.line.clear();
            let n = self.lines.read_line(&mut self.line).map_err(|e| {
                // Not text (a byte that is not UTF-8) or an I/O error: at the line it is on.
                let msg = format!("line {}: cannot read: {e}", self.line_no + 1);
                Error::new(&self.path, msg).task(self.rank).record(self.records)
            })?;
            if n == 0 {
                self.ended = true;
                *self.shared_guessed.lock().unwrap_or_else(|e| e.into_inner()) = self.guessed;
                // A trace without `finalize` still ends: its last computation is kept.
                if !self.finalized {
                    self.finalized = true;
                    *rec = self.record(Op::Finalize);
                    return Ok(true);
                }
                return Ok(false);
            }
            self.line_no += 1;
            let line = std::mem::take(&mut self.line);
            let mut fields = reuse(std::mem::take(&mut self.fields));
            fields.extend(line.split_ascii_whitespace());
            let got = self.parse(&fields, rec);
            self.fields = reuse(fields);
            self.line = line;
            match got {
                Ok(true) => return Ok(true),
                Ok(false) => continue,
                Err(m) => {
                    let msg = format!("line {}: {m}", self.line_no);
                    return Err(Error::new(&self.path, msg).task(self.rank).record(self.records));
                }
            }
        }
    }
    fn records(&self) -> u64 {
        self.records
    }
}

impl TiStream {
    fn record(&mut self, op: Op) -> Record {
        let gap = self.gap.round() as u64;
        self.gap = 0.0;
        self.records += 1;
        Record::new(gap, 0, op)
    }

    /// One line, split into its fields; true when it gave a record.
    fn parse(&mut self, f: &[&str], rec: &mut Record) -> Result<bool, LineError> {
        if f.is_empty() || f[0].starts_with('#') {
            return Ok(false);
        }
        let who: u32 = f[0].parse().map_err(|_| LineError::NotARank(f[0].to_string()))?;
        if who != self.rank {
            if self.shared {
                return Ok(false);
            }
            return Err(LineError::OtherRank { who, rank: self.rank });
        }
        let action = *f.get(1).ok_or(LineError::NoAction)?;
        let args = &f[2..];
        let num = |i: usize, what: &'static str| -> Result<f64, LineError> {
            let s = args.get(i).ok_or_else(|| LineError::Missing { action: action.into(), what })?;
            match s.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(v),
                _ => Err(LineError::NotANumber { action: action.into(), what, value: s.to_string() }),
            }
        };
        let int = |i: usize, what: &'static str| -> Result<i32, LineError> {
            let v = num(i, what)?.trunc();
            if v < i32::MIN as f64 || v > i32::MAX as f64 {
                return Err(LineError::OutOfRange { action: action.into(), what, value: v });
            }
            Ok(v as i32)
        };
        let rank_arg = |i: usize, what: &'static str| -> Result<i32, LineError> {
            let v = int(i, what)?;
            if v < 0 || v as u32 >= self.world {
                return Err(LineError::NotARankOfTrace { action: action.into(), what, value: v, world: self.world });
            }
            Ok(v)
        };
        // A receive's partner: a rank, or any source; its tag: a tag, or any tag.
        let source_arg = |i: usize, what: &'static str| -> Result<i32, LineError> {
            if int(i, what)? == SMPI_ANY_SOURCE {
                return Ok(ANY_SOURCE);
            }
            rank_arg(i, what)
        };
        let tag_arg = |i: usize| -> Result<i32, LineError> {
            Ok(match int(i, "tag")? {
                SMPI_ANY_TAG => ANY_TAG,
                t => t,
            })
        };
        let elem = self.elem;
        let size = |i: usize, dt: usize, what: &'static str| -> Result<u64, LineError> {
            let n = num(i, what)?.trunc();
            if n < 0.0 {
                return Err(LineError::ProbedSize { action: action.into(), what, size: n });
            }
            let e = match args.get(dt) {
                None => elem,
                Some(id) => type_size(id)
                    .ok_or_else(|| LineError::UnknownDatatype { action: action.into(), id: id.to_string() })?,
            };
            Ok(n as u64 * e)
        };
        let me = self.rank as i32;
        let op = match action {
            "init" => {
                if !args.is_empty() {
                    self.elem = 8; // SMPI: MPI_DOUBLE (MPE traces), else MPI_BYTE (TAU)
                }
                Op::Init { thread_level: 0 }
            }
            "finalize" => {
                self.finalized = true;
                Op::Finalize
            }
            "compute" => {
                let flops = num(0, "flops")?;
                if flops < 0.0 {
                    return Err(LineError::NegativeFlops(flops));
                }
                self.gap += flops / self.host_speed * 1e9;
                return Ok(false);
            }
            "sleep" => {
                let s = num(0, "seconds")?;
                if s < 0.0 {
                    return Err(LineError::NegativeSleep(s));
                }
                self.gap += s * 1e9;
                return Ok(false);
            }
            "comm_size" | "comm_split" | "comm_dup" | "location" => return Ok(false),
            "send" | "isend" | "recv" | "irecv" => {
                let recv = action.ends_with("recv");
                let peer = if recv { source_arg(0, "partner")? } else { rank_arg(0, "partner")? };
                let (tag, bytes) = (if recv { tag_arg(1)? } else { int(1, "tag")? }, size(2, 3, "size")?);
                if peer == ANY_SOURCE {
                    self.guessed.wildcards += 1;
                }
                let comm = COMM_WORLD;
                if !action.starts_with('i') {
                    if recv {
                        Op::Recv { peer, tag, bytes, comm }
                    } else {
                        Op::Send { mode: SendMode::Standard, peer, tag, bytes, comm }
                    }
                } else {
                    let req = self.post(Req { id: 0, recv, peer, tag, bytes }, me)?;
                    if recv {
                        Op::Irecv { peer, tag, bytes, comm, req }
                    } else {
                        Op::Isend { mode: SendMode::Standard, peer, tag, bytes, comm, req }
                    }
                }
            }
            "wait" | "test" => {
                let key = (source_arg(0, "source")?, rank_arg(1, "destination")?, tag_arg(2)?);
                let Some(r) = self.take(key) else { return Ok(false) };
                if action == "test" {
                    // Whether the test succeeded depends on the replay: the request stays for
                    // the wait that follows, queued again behind its key as SMPI does.
                    self.reqs.entry(key).or_default().push_back(r);
                    self.order.push_back(r.id);
                    *rec = self.record(Op::Wait { func: WaitFn::Test, count: 1 });
                    return Ok(true);
                }
                *rec = self.record(Op::Wait { func: WaitFn::Wait, count: 1 }).with_list(completion(&r).to_vec());
                return Ok(true);
            }
            // waitAny N: SMPI writes how many requests the call was given, not which one
            // completed; the oldest pending is taken (the first posted is the likeliest done).
            "waitAny" | "waitany" => {
                let n = int(0, "count")?;
                let Some(r) = self.order.front().copied().and_then(|id| self.take_id(id)) else { return Ok(false) };
                self.guessed.waitany += 1;
                let count = n.max(1) as u32;
                *rec = self.record(Op::Wait { func: WaitFn::Waitany, count }).with_list(completion(&r).to_vec());
                return Ok(true);
            }
            "waitall" => {
                let mut list = Vec::new();
                let ids: Vec<u32> = self.order.drain(..).collect();
                let mut all: HashMap<u32, Req> = HashMap::default();
                for (_, q) in self.reqs.drain() {
                    all.extend(q.into_iter().map(|r| (r.id, r)));
                }
                for id in ids {
                    if let Some(r) = all.remove(&id) {
                        list.extend(completion(&r));
                    }
                }
                if list.is_empty() {
                    return Ok(false);
                }
                let count = (list.len() / 4) as u32;
                *rec = self.record(Op::Wait { func: WaitFn::Waitall, count }).with_list(list);
                return Ok(true);
            }
            "sendRecv" => {
                // sendRecv SENDCOUNT DST RECVCOUNT SRC [DT1 DT2]; SMPI uses tag 0 both ways.
                let (bytes, peer) = (size(0, 4, "send count")?, rank_arg(1, "destination")?);
                let (rbytes, src) = (size(2, 5, "receive count")?, rank_arg(3, "source")?);
                Op::Sendrecv { peer, tag: 0, bytes, src, rtag: 0, rbytes, comm: COMM_WORLD, replace: false }
            }
            "barrier" => self.coll(Coll::Barrier, NO_RANK, 0, 0, 0),
            "bcast" => {
                let bytes = size(0, 2, "size")?;
                let root = if args.len() > 1 { rank_arg(1, "root")? } else { 0 };
                self.coll(Coll::Bcast, root, bytes, bytes, 0)
            }
            "reduce" | "allreduce" | "scan" | "exscan" => {
                let (root, dt) = match action {
                    "reduce" => (if args.len() > 2 { rank_arg(2, "root")? } else { 0 }, 3),
                    _ => (NO_RANK, 2),
                };
                let count = num(0, "count")?.trunc().max(0.0) as u64;
                let bytes = size(0, dt, "count")?;
                let comp = num(1, "computation")?;
                let coll = match action {
                    "reduce" => Coll::Reduce,
                    "allreduce" => Coll::Allreduce,
                    "scan" => Coll::Scan,
                    _ => Coll::Exscan,
                };
                let op = self.coll(coll, root, bytes, bytes, count);
                // SMPI computes after the reduction: the next record's burst.
                *rec = self.record(op);
                self.gap += comp.max(0.0) / self.host_speed * 1e9;
                return Ok(true);
            }
            "alltoall" => {
                let (s, r) = (size(0, 2, "send count")?, size(1, 3, "receive count")?);
                self.coll(Coll::Alltoall, NO_RANK, s, r, 0)
            }
            "allgather" => {
                let (s, r) = (size(0, 2, "send count")?, size(1, 3, "receive count")?);
                self.coll(Coll::Allgather, NO_RANK, s, r, 0)
            }
            "gather" | "scatter" => {
                let (s, r) = (size(0, 3, "send count")?, size(1, 4, "receive count")?);
                let root = if args.len() > 2 { rank_arg(2, "root")? } else { 0 };
                let coll = if action == "gather" { Coll::Gather } else { Coll::Scatter };
                self.coll(coll, root, s, r, 0)
            }
            "gatherv" | "allgatherv" | "scatterv" | "alltoallv" | "reducescatter" => {
                let n = self.world as usize;
                if args.len() < n + 1 {
                    return Err(LineError::FewCounts {
                        action: action.into(),
                        args: args.len(),
                        want: n + 1,
                        ranks: n,
                    });
                }
                // Per-rank counts in bytes, each count in its datatype (argument `dt`).
                let counts = |from: usize, dt: usize, what: &'static str| -> Result<Vec<u64>, LineError> {
                    (from..from + n).map(|i| size(i, dt, what)).collect()
                };
                let sum = |v: &[u64]| {
                    v.iter()
                        .try_fold(0u64, |a, &b| a.checked_add(b))
                        .ok_or_else(|| LineError::CountsOverflow { action: action.into() })
                };
                let list = |v: Vec<u64>| v.into_iter().map(|b| b as i64).collect::<Vec<i64>>();
                // SMPI's layouts (smpi_replay.cpp, the *VArgParser classes), N = ranks:
                let (op, l, comp) = match action {
                    // gatherv SENDCOUNT RECVCOUNT×N [ROOT [SENDTYPE RECVTYPE]]; counts are
                    // zeros except at the root, which alone lists them (as our tracer does).
                    "gatherv" => {
                        let root = if args.len() > n + 1 { rank_arg(n + 1, "root")? } else { 0 };
                        let send = size(0, n + 2, "send count")?;
                        let rc = if root == me { counts(1, n + 3, "receive count")? } else { Vec::new() };
                        (self.coll(Coll::Gatherv, root, send, sum(&rc)?, 0), list(rc), 0.0)
                    }
                    // allgatherv SENDCOUNT RECVCOUNT×N, then the two types and displacements,
                    // or displacements alone (default type), or the two types alone.
                    "allgatherv" => {
                        let typed = args.len() > 2 * n + 1 || args.len() <= n + 3;
                        let (t1, t2) = if typed { (n + 1, n + 2) } else { (usize::MAX, usize::MAX) };
                        let send = size(0, t1, "send count")?;
                        let rc = counts(1, t2, "receive count")?;
                        (self.coll(Coll::Allgatherv, NO_RANK, send, sum(&rc)?, 0), list(rc), 0.0)
                    }
                    // scatterv SENDCOUNT×N RECVCOUNT ROOT [SENDTYPE RECVTYPE]
                    "scatterv" => {
                        let root = if args.len() > n + 1 { rank_arg(n + 1, "root")? } else { 0 };
                        let sc = if root == me { counts(0, n + 2, "send count")? } else { Vec::new() };
                        let recv = size(n, n + 3, "receive count")?;
                        (self.coll(Coll::Scatterv, root, sum(&sc)?, recv, 0), list(sc), 0.0)
                    }
                    // alltoallv SENDBUF SENDCOUNT×N RECVBUF RECVCOUNT×N [SENDTYPE RECVTYPE]
                    "alltoallv" => {
                        if args.len() < 2 * n + 2 {
                            return Err(LineError::FewAlltoallv { args: args.len(), want: 2 * n + 2, ranks: n });
                        }
                        let sc = counts(1, 2 * n + 2, "send count")?;
                        let rc = counts(n + 2, 2 * n + 3, "receive count")?;
                        let (sb, rb) = (sum(&sc)?, sum(&rc)?);
                        (self.coll(Coll::Alltoallv, NO_RANK, sb, rb, 0), list([sc, rc].concat()), 0.0)
                    }
                    // reducescatter RECVCOUNT×N COMPUTATION [TYPE]: reduced, then computed.
                    _ => {
                        let rc = counts(0, n + 1, "receive count")?;
                        let elems = (0..n)
                            .map(|i| num(i, "receive count").map(|c| c.trunc() as u64))
                            .sum::<Result<u64, _>>()?;
                        let comp = num(n, "computation")?;
                        let own = rc[me as usize];
                        (self.coll(Coll::ReduceScatter, NO_RANK, sum(&rc)?, own, elems), list(rc), comp)
                    }
                };
                *rec = self.record(op).with_list(l);
                self.gap += comp.max(0.0) / self.host_speed * 1e9;
                return Ok(true);
            }
            other => return Err(LineError::UnknownAction(other.to_string())),
        };
        *rec = self.record(op);
        Ok(true)
    }

    fn coll(&mut self, coll: Coll, root: i32, send_bytes: u64, recv_bytes: u64, count: u64) -> Op {
        self.instance += 1;
        // SMPI replays reductions with MPI_OP_NULL: a built-in, commutative op's algorithm.
        let flags = CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE;
        let (comm, req, instance) = (COMM_WORLD, NO_REQUEST, self.instance);
        Op::Coll { coll, comm, root, send_bytes, recv_bytes, count, flags, req, instance }
    }

    fn post(&mut self, mut r: Req, me: i32) -> Result<u32, LineError> {
        self.next_req = self.next_req.checked_add(1).ok_or(LineError::TooManyRequests)?;
        r.id = self.next_req;
        let key = if r.recv { (r.peer, me, r.tag) } else { (me, r.peer, r.tag) };
        self.reqs.entry(key).or_default().push_back(r);
        self.order.push_back(r.id);
        Ok(r.id)
    }

    /// The oldest request of `key` (SMPI's rule for `wait`).
    fn take(&mut self, key: (i32, i32, i32)) -> Option<Req> {
        let id = self.reqs.get(&key)?.front()?.id;
        self.take_id(id)
    }

    /// Request `id`, wherever it is queued.
    fn take_id(&mut self, id: u32) -> Option<Req> {
        let key = *self.reqs.iter().find(|(_, q)| q.iter().any(|r| r.id == id))?.0;
        let q = self.reqs.get_mut(&key)?;
        let r = q.remove(q.iter().position(|r| r.id == id)?)?;
        if q.is_empty() {
            self.reqs.remove(&key);
        }
        self.order.retain(|&x| x != id);
        Some(r)
    }
}

/// A completion quadruple [request, source, tag, bytes] (source NO_RANK for a send).
fn completion(r: &Req) -> [i64; 4] {
    let source = if r.recv { r.peer as i64 } else { NO_RANK as i64 };
    [r.id as i64, source, r.tag as i64, r.bytes as i64]
}

/// The ranks of a TI trace named by `input`: a directory (its `replay.txt`), a list file (one
/// action file per line, rank order, paths relative to the current directory or else to the
/// list's; a path that is not there is looked for by its name beside the list, as in an
/// export whose directory was moved), or one shared action file (every line names its rank).
pub fn ranks(input: &Path, host_speed: f64) -> Result<Vec<TiRank>, Error> {
    let list = if input.is_dir() { input.join(super::LIST_FILE) } else { input.to_path_buf() };
    let text = std::fs::read_to_string(&list).map_err(|e| Error::io(&list, "cannot read", e))?;
    let first = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#'));
    let Some(first) = first else { return Err(Error::new(&list, "empty: neither a list of action files nor actions")) };
    let is_action = first.split_whitespace().next().is_some_and(|w| w.parse::<u32>().is_ok());
    let files: Vec<PathBuf> = if is_action {
        vec![list.clone()]
    } else {
        let base = list.parent().unwrap_or(Path::new("."));
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let p = PathBuf::from(l.trim());
                let beside = if p.is_relative() { Some(base.join(&p)) } else { p.file_name().map(|f| base.join(f)) };
                match beside {
                    Some(b) if !p.exists() && b.exists() => b,
                    _ => p,
                }
            })
            .collect()
    };
    if files.len() == 1 {
        // One file holds every rank (SMPI reads a one-line list as a shared trace too).
        let f = &files[0];
        let t = std::fs::read_to_string(f).map_err(|e| Error::io(f, "cannot read", e))?;
        // Every rank up to the largest named must have lines (SMPI's own shared traces give
        // each rank at least its init): a damaged rank number (4000000000) otherwise made as
        // many ranks, allocated up front (the allocation aborted the process) or consolidated
        // one by one for hours, each a rank without MPI_Init.
        let (mut seen, mut largest) = (HashSet::new(), None::<(u32, usize)>);
        for (i, l) in t.lines().enumerate() {
            let Some(w) = l.split_whitespace().next().filter(|w| !w.starts_with('#')) else { continue };
            let r: u32 = w.parse().map_err(|_| Error::new(f, format!("line {}: {w:?} is not a rank", i + 1)))?;
            if r == u32::MAX {
                return Err(Error::new(f, format!("line {}: rank {r} too large", i + 1)));
            }
            seen.insert(r);
            if largest.is_none_or(|(m, _)| r > m) {
                largest = Some((r, i + 1));
            }
        }
        let Some((last, line)) = largest else { return Err(Error::new(f, "holds no actions")) };
        let n = last + 1;
        if seen.len() != n as usize {
            let missing = (0..n).find(|r| !seen.contains(r)).expect("fewer ranks seen than numbered");
            let msg = format!(
                "has no actions, though line {line} names rank {last} (a shared file has lines for every rank)"
            );
            return Err(Error::new(f, msg).task(missing));
        }
        return Ok((0..n).map(|rank| TiRank::new(f.clone(), rank, true, n, host_speed)).collect());
    }
    for f in &files {
        if !f.is_file() {
            return Err(Error::new(&list, format!("lists {}, which is not a readable file", f.display())));
        }
    }
    let world = files.len() as u32;
    let ranks = files.into_iter().enumerate();
    Ok(ranks.map(|(r, path)| TiRank::new(path, r as u32, false, world, host_speed)).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_lines_fields_reuse_the_previous_lines_memory() {
        let line = String::from("0 isend 1 7 800 0");
        let mut v: Vec<&str> = Vec::with_capacity(16);
        v.extend(line.split_ascii_whitespace());
        let (cap, at) = (v.capacity(), v.as_ptr() as usize);
        let w: Vec<&'static str> = super::reuse(v);
        assert!(w.is_empty());
        assert_eq!((w.capacity(), w.as_ptr() as usize), (cap, at));
    }
}
