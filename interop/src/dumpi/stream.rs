//! One rank's DUMPI call records as psins records (consolidation's [`RecordStream`]).
//!
//! Each call record is a function label, a mask of what follows (thread id, CPU and wall-clock
//! times, counters, statuses), then the function's own fields in the order libdumpi writes
//! them. The gap before a record is the wall-clock time from the previous kept call's return
//! to this call's entry (CPU time for a record without wall-clock times): calls folded into
//! computation (MPI_Comm_rank, ...) count in it.
//! Requests are dumpi's handles, mapped to psins ids when posted.

use super::calls::{self, Take};
use super::file::{bad, Bad, Cursor, Layout, ALL_FUNCTIONS, END_OF_STREAM};
use psins_formats::comms::Reach;
use psins_formats::{
    Coll, CollFlags, CommFn, Op, ProbeFlags, Record, SendMode, WaitFn, ANY_SOURCE, ANY_TAG, COMM_WORLD, NO_RANK,
    NO_REQUEST,
};
use std::collections::{HashMap, VecDeque};

const MASK_STATUS: u8 = 0x03;
const MASK_CPU: u8 = 0x04;
const MASK_WALL: u8 = 0x08;
const MASK_THREAD: u8 = 0x40;
const MASK_PERF: u8 = 0x80;
/// dumpi's MPI_COMM_WORLD, MPI_ANY_SOURCE / MPI_ANY_TAG, MPI_REQUEST_NULL.
const DUMPI_COMM_NULL: u16 = 1;
/// MPI_Comm_split's function label.
pub const COMM_SPLIT: u16 = 86;
const DUMPI_COMM_WORLD: u16 = 2;
const DUMPI_ANY: i32 = -1;
const DUMPI_REQUEST_NULL: i32 = 1;
/// dumpi's predefined reduction operations are 1..=13 (MPI_MAX .. MPI_REPLACE).
const DUMPI_LAST_BUILTIN_OP: u8 = 13;

/// A completed receive's envelope as its status says.
#[derive(Clone, Copy)]
struct Status {
    bytes: u64,
    source: i32,
    tag: i32,
}

/// A posted nonblocking send or receive.
#[derive(Clone, Copy)]
struct Posted {
    id: u32,
    recv: bool,
    peer: i32,
    tag: i32,
    bytes: u64,
    /// Its communicator, which bounds the source its status gives.
    on: Ranks,
}

/// A communicator (its dumpi handle) and how many ranks it has: its peers and roots are
/// ranks below that. None in the first pass, which does not know a split's members yet (the
/// world bounds them there; the second pass checks).
#[derive(Clone, Copy)]
struct Ranks {
    comm: u16,
    n: Option<u32>,
}

/// Every rank's MPI_Comm_split calls on MPI_COMM_WORLD, in order: (colour, key), the
/// colour `None` where the rank got MPI_COMM_NULL. A first pass over the files
/// ([`Decoder::world_splits`]) finds them; the k-th split of one rank is the k-th of all (a
/// collective over the world).
pub type Splits = std::sync::Arc<Vec<Vec<(Option<i32>, i32)>>>;

/// The decoder of one rank's call records (a whole file in memory).
pub struct Decoder {
    buf: Vec<u8>,
    layout: Layout,
    world: u32,
    pos: usize,
    /// Wall-clock (or CPU) ns at which the previous kept call returned.
    prev_stop: Option<u64>,
    /// Records of each label read, to check against the footer's counts at the end.
    seen: Vec<u32>,
    /// Outstanding requests by dumpi handle. A handle can name several at once: MPICH gives
    /// every eagerly completed send the same built-in request, and libdumpi maps handles, so
    /// each handle keeps a queue and a completion takes the oldest.
    posted: HashMap<i32, VecDeque<Posted>>,
    /// Persistent requests by dumpi handle (MPI_Send_init, MPI_Recv_init, ...): what each
    /// MPI_Start posts, under the id the request keeps until MPI_Request_free.
    persistent: HashMap<i32, Posted>,
    next_req: u32,
    instance: u32,
    /// Communicators by dumpi handle: (this rank's id, members as world ranks); the world's
    /// is implicit. Ids count from 2, as the tracer's per-rank numbering (consolidation makes
    /// them global).
    comms: HashMap<u16, (u32, Vec<u32>)>,
    next_comm: u32,
    /// The world's splits of every rank ([`Splits`]); None in the first pass, which collects
    /// this rank's into `my_splits`.
    splits: Option<Splits>,
    pub my_splits: Vec<(Option<i32>, i32)>,
    /// Calls folded into computation, by label.
    pub folded: Vec<u32>,
    pub records: u64,
    pub done: bool,
}

impl Decoder {
    pub fn new(buf: Vec<u8>, layout: Layout, world: u32, splits: Option<Splits>) -> Decoder {
        let n = ALL_FUNCTIONS as usize + 1;
        let pos = layout.body;
        Decoder {
            buf,
            layout,
            world,
            pos,
            prev_stop: None,
            seen: vec![0; n],
            posted: HashMap::new(),
            persistent: HashMap::new(),
            next_req: 0,
            instance: 0,
            comms: HashMap::new(),
            next_comm: 2,
            splits,
            my_splits: Vec::new(),
            folded: vec![0; n],
            records: 0,
            done: false,
        }
    }

    /// The next record; None at the end of the call records.
    pub fn next(&mut self, rec: &mut Record) -> Result<bool, Bad> {
        let buf = std::mem::take(&mut self.buf);
        let got = self.step(&buf, rec);
        self.buf = buf;
        got
    }

    fn step(&mut self, buf: &[u8], rec: &mut Record) -> Result<bool, Bad> {
        while !self.done {
            let start = self.pos;
            // The records end 2 bytes before the header, at the end-of-stream label.
            let mut c = Cursor::at(&buf[..self.layout.header], self.pos);
            let label = c.u16()?;
            if label == END_OF_STREAM {
                self.done = true;
                return self.check_counts(start).map(|_| false);
            }
            let Some(take) = calls::take(label) else {
                return Err(bad(start, format!("{} cannot be imported (docs/interop-dumpi.md)", calls::name(label))));
            };
            let mask = c.u8()?;
            if mask & MASK_THREAD != 0 && c.u16()? != 0 {
                return Err(bad(
                    start,
                    format!("{}: a call from a thread other than the main one cannot be imported", calls::name(label)),
                ));
            }
            let cpu = if mask & MASK_CPU != 0 { Some(self.span(&mut c, self.layout.cpu_offset)?) } else { None };
            let wall = if mask & MASK_WALL != 0 { Some(self.span(&mut c, self.layout.wall_offset)?) } else { None };
            if mask & MASK_PERF != 0 {
                let n = c.u8()? as usize;
                c.skip(16 * n)?;
            }
            let (t0, t1) = wall.or(cpu).ok_or_else(|| {
                bad(start, "a call without timestamps (traced with timestamps off) cannot be imported")
            })?;
            let statuses = mask & MASK_STATUS != 0;
            let name = calls::name(label);
            let op = self.fields(label, &mut c, statuses, rec).map_err(|m| bad(start, format!("{name}: {m}")))?;
            self.pos = c.pos;
            self.seen[label as usize] += 1;
            if take == Take::Fold || op.is_none() {
                self.folded[label as usize] += 1;
                continue;
            }
            let gap = self.prev_stop.map_or(0, |p| t0.saturating_sub(p));
            self.prev_stop = Some(t1);
            rec.gap_ns = gap;
            rec.dur_ns = t1.saturating_sub(t0);
            rec.op = op.unwrap();
            self.records += 1;
            return Ok(true);
        }
        Ok(false)
    }

    /// Every MPI function's records against the footer's count: a cut or damaged stream.
    fn check_counts(&self, at: usize) -> Result<(), Bad> {
        for (l, (&seen, &want)) in self.seen.iter().zip(&self.layout.calls).enumerate() {
            if calls::take(l as u16).is_some() && seen != want {
                let name = calls::name(l as u16);
                return Err(bad(at, format!("the footer counts {want} calls of {name}, the records hold {seen}")));
            }
        }
        Ok(())
    }

    /// A call's start and stop time in ns.
    fn span(&self, c: &mut Cursor, offset: i64) -> Result<(u64, u64), Bad> {
        let mut t = || -> Result<u64, Bad> {
            let s = c.u16()? as i64 + offset;
            let ns = c.u32()? as u64;
            Ok((s.max(0) as u64).saturating_mul(1_000_000_000).saturating_add(ns))
        };
        Ok((t()?, t()?))
    }

    fn type_size(&self, dt: u16) -> Result<u64, String> {
        match self.layout.type_sizes.get(dt as usize) {
            Some(&s) if dt >= 2 => Ok(s as u64),
            _ => Err(format!("datatype {dt} is not in the file's datatype table")),
        }
    }

    fn bytes(&self, count: i32, dt: u16) -> Result<u64, String> {
        if count < 0 {
            return Err(format!("negative count {count}"));
        }
        Ok(count as u64 * self.type_size(dt)?)
    }

    fn comm(&self, comm: u16) -> Result<u32, String> {
        if comm == DUMPI_COMM_WORLD {
            return Ok(COMM_WORLD);
        }
        match self.comms.get(&comm) {
            Some(&(id, _)) => Ok(id),
            None => Err(format!(
                "communicator {comm} is neither MPI_COMM_WORLD nor one made by MPI_Comm_dup or MPI_Comm_split of the world (other communicators are not imported yet)"
            )),
        }
    }

    fn members(&self, comm: u16) -> Result<Vec<u32>, String> {
        if comm == DUMPI_COMM_WORLD {
            return Ok((0..self.world).collect());
        }
        self.comm(comm)?;
        Ok(self.comms[&comm].1.clone())
    }

    /// Communicator `comm` with its number of ranks ([`Ranks`]).
    fn ranks(&self, comm: u16) -> Result<Ranks, String> {
        let n = if comm == DUMPI_COMM_WORLD {
            Some(self.world)
        } else {
            self.comm(comm)?;
            self.splits.as_ref().map(|_| self.comms[&comm].1.len() as u32)
        };
        Ok(Ranks { comm, n })
    }

    /// A new communicator under dumpi handle `new` with `members`: its CommCreate record.
    fn made(&mut self, func: CommFn, parent: u16, new: u16, members: Vec<u32>, rec: &mut Record) -> Result<Op, String> {
        let parent = self.comm(parent)?;
        if new <= DUMPI_COMM_WORLD + 1 || self.comms.contains_key(&new) {
            return Err(format!("new communicator handle {new} is predefined or already in use"));
        }
        let comm = self.next_comm;
        self.next_comm += 1;
        rec.list.extend(members.iter().map(|&m| m as i64));
        self.comms.insert(new, (comm, members));
        Ok(Op::CommCreate { func, parent, comm, split: 0 })
    }

    /// The members of this rank's `k`-th split of the world: the ranks that gave its colour,
    /// ordered by key, then by world rank (MPI's rule).
    fn split_members(&self, k: usize, color: i32) -> Result<Vec<u32>, String> {
        let all = self.splits.as_ref().expect("called in the second pass");
        let mut m = Vec::new();
        for (r, splits) in all.iter().enumerate() {
            let &(c, key) = splits.get(k).ok_or_else(|| {
                format!("rank {r} makes fewer MPI_Comm_split calls on MPI_COMM_WORLD ({})", splits.len())
            })?;
            if c == Some(color) {
                m.push((key, r as u32));
            }
        }
        m.sort();
        Ok(m.into_iter().map(|(_, r)| r).collect())
    }

    /// A peer of communicator `on` (its communicator-local rank, as MPI gives it).
    fn peer(&self, p: i32, wildcard: bool, on: Ranks) -> Result<i32, String> {
        if wildcard && p == DUMPI_ANY {
            return Ok(ANY_SOURCE);
        }
        self.rank("peer", p, on)
    }

    /// `p` checked to be a rank of `on`: one beyond it (a send to rank 3 of a two-rank split
    /// of a 4-rank world) would otherwise enter the trace as it is.
    fn rank(&self, what: &str, p: i32, on: Ranks) -> Result<i32, String> {
        match on.n {
            // a split's or dup's bound, worded as psins-consolidate words it (the communicator
            // is the dumpi handle the record gives)
            Some(n) if on.comm != DUMPI_COMM_WORLD => Reach::intra(on.comm.into(), n).check(what, p)?,
            _ if p < 0 || p as u32 >= self.world => {
                return Err(format!("{what} {p} is not a rank of this {}-rank trace", self.world))
            }
            _ => {}
        }
        Ok(p)
    }

    fn tag(t: i32, wildcard: bool) -> Result<i32, String> {
        if wildcard && t == DUMPI_ANY {
            return Ok(ANY_TAG);
        }
        if t < 0 {
            return Err(format!("tag {t} is negative"));
        }
        Ok(t)
    }

    /// The statuses of a completion call (none when traced without them).
    fn statuses(c: &mut Cursor, on: bool, version_tag: bool) -> Result<Vec<Status>, Bad> {
        if !on {
            return Ok(Vec::new());
        }
        let n = c.count(10)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            let bytes = c.i32()?;
            let source = c.i32()?;
            let _cancelled = c.u8()?;
            let _error = c.u8()?;
            let tag = if version_tag { c.i32()? } else { DUMPI_ANY };
            v.push(Status { bytes: bytes.max(0) as u64, source, tag });
        }
        Ok(v)
    }

    fn post(&mut self, handle: i32, recv: bool, peer: i32, tag: i32, bytes: u64, on: Ranks) -> Result<u32, String> {
        self.next_req = self.next_req.checked_add(1).ok_or("more than 2^32 requests")?;
        let id = self.next_req;
        self.posted.entry(handle).or_default().push_back(Posted { id, recv, peer, tag, bytes, on });
        Ok(id)
    }

    /// A persistent request created (inactive) under `handle`.
    fn create(&mut self, handle: i32, recv: bool, peer: i32, tag: i32, bytes: u64, on: Ranks) -> Result<u32, String> {
        self.next_req = self.next_req.checked_add(1).ok_or("more than 2^32 requests")?;
        let id = self.next_req;
        if self.persistent.insert(handle, Posted { id, recv, peer, tag, bytes, on }).is_some() {
            return Err(format!("request {handle} created again before MPI_Request_free freed it"));
        }
        Ok(id)
    }

    /// MPI_Start of persistent request `handle`: posted again under its id.
    fn start(&mut self, handle: i32) -> Result<u32, String> {
        let p = *self
            .persistent
            .get(&handle)
            .ok_or_else(|| format!("request {handle} was not created by an MPI_Send_init or MPI_Recv_init"))?;
        self.posted.entry(handle).or_default().push_back(p);
        Ok(p.id)
    }

    /// A probe's envelope: the posted source and tag (probe ranks are peers of `comm`), or
    /// the status's when it found a message.
    fn probe(
        &self,
        src: i32,
        tag: i32,
        on: Ranks,
        found: bool,
        status: Option<&Status>,
        blocking: bool,
    ) -> Result<Op, String> {
        let comm = self.comm(on.comm)?;
        let (peer, tag) = (self.peer(src, true, on)?, Self::tag(tag, true)?);
        let flags = if blocking { ProbeFlags::BLOCKING } else { 0 };
        if !found {
            return Ok(Op::Probe { peer, tag, bytes: 0, comm, flags });
        }
        let s = status.ok_or("a probe that found a message without its status (trace with statuses on)")?;
        let (peer, tag) = (self.peer(s.source, false, on)?, Self::tag(s.tag, false)?);
        Ok(Op::Probe { peer, tag, bytes: s.bytes, comm, flags: flags | ProbeFlags::FOUND })
    }

    /// The completion quadruple of request `handle`, with its status when there is one.
    fn complete(&mut self, handle: i32, status: Option<&Status>) -> Result<[i64; 4], String> {
        let q = self.posted.get_mut(&handle);
        let p = q
            .and_then(|q| q.pop_front())
            .ok_or_else(|| format!("request {handle} was not posted by an MPI_Isend, MPI_Irecv or MPI_Start"))?;
        if !p.recv {
            return Ok([p.id as i64, NO_RANK as i64, p.tag as i64, p.bytes as i64]);
        }
        let (source, tag, bytes) = match status {
            Some(s) => (self.peer(s.source, false, p.on)?, Self::tag(s.tag, false)?, s.bytes),
            None if p.peer == ANY_SOURCE || p.tag == ANY_TAG => {
                return Err(format!(
                    "request {handle}: a wildcard receive completed without its status (trace with statuses on)"
                ))
            }
            None => (p.peer, p.tag, p.bytes),
        };
        Ok([p.id as i64, source as i64, tag as i64, bytes as i64])
    }

    fn coll(
        &mut self,
        coll: Coll,
        comm: u16,
        root: i32,
        send: u64,
        recv: u64,
        count: u64,
        flags: u8,
    ) -> Result<Op, String> {
        let on = self.ranks(comm)?;
        let comm = self.comm(comm)?;
        if root != NO_RANK {
            self.rank("root", root, on)?;
        }
        self.instance += 1;
        let (req, instance) = (NO_REQUEST, self.instance);
        Ok(Op::Coll { coll, comm, root, send_bytes: send, recv_bytes: recv, count, flags, req, instance })
    }

    fn op_flags(op: u8) -> u8 {
        // Every predefined operation is commutative; a user's may not be (refused below).
        if (1..=DUMPI_LAST_BUILTIN_OP).contains(&op) {
            CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE
        } else {
            0
        }
    }

    /// One call's fields (libdumpi's order); the op it becomes, or None when it folds.
    fn fields(&mut self, label: u16, c: &mut Cursor, st: bool, rec: &mut Record) -> Result<Option<Op>, String> {
        let e = |b: Bad| format!("{b} (at byte {})", b.offset);
        let tagged = self.layout.version[0] > 0 || self.layout.version[1] > 6 || self.layout.version[2] >= 3;
        rec.list.clear();
        let mode = |l: u16| match l {
            3 | 9 | 27 => SendMode::Buffered,
            4 | 10 | 28 => SendMode::Synchronous,
            5 | 11 | 29 => SendMode::Ready,
            _ => SendMode::Standard,
        };
        let op = match label {
            // Send, Bsend, Ssend, Rsend; Isend, Ibsend, Issend, Irsend: count, type, dest,
            // tag, comm [, request].
            0 | 3 | 4 | 5 | 8..=11 => {
                let (n, dt, dest, tag, comm) = (
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                );
                let on = self.ranks(comm)?;
                let (bytes, peer, tag, comm) =
                    (self.bytes(n, dt)?, self.peer(dest, false, on)?, Self::tag(tag, false)?, self.comm(comm)?);
                if label <= 5 {
                    Op::Send { mode: mode(label), peer, tag, bytes, comm }
                } else {
                    let h = c.i32().map_err(e)?;
                    let req = self.post(h, false, peer, tag, bytes, on)?;
                    Op::Isend { mode: mode(label), peer, tag, bytes, comm, req }
                }
            }
            // Recv: count, type, source, tag, comm, status. Irecv: ..., comm, request.
            1 | 12 => {
                let (n, dt, src, tag, comm) = (
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                );
                let on = self.ranks(comm)?;
                let (bytes, peer, tag, comm) =
                    (self.bytes(n, dt)?, self.peer(src, true, on)?, Self::tag(tag, true)?, self.comm(comm)?);
                if label == 12 {
                    let h = c.i32().map_err(e)?;
                    let req = self.post(h, true, peer, tag, bytes, on)?;
                    Op::Irecv { peer, tag, bytes, comm, req }
                } else {
                    let s = Self::statuses(c, st, tagged).map_err(e)?;
                    match s.first() {
                        Some(s) => Op::Recv {
                            peer: self.peer(s.source, false, on)?,
                            tag: Self::tag(s.tag, false)?,
                            bytes: s.bytes,
                            comm,
                        },
                        None if peer == ANY_SOURCE || tag == ANY_TAG => {
                            return Err("a wildcard receive without its status (trace with statuses on)".into())
                        }
                        None => Op::Recv { peer, tag, bytes, comm },
                    }
                }
            }
            // Get_count: status, type, count.
            2 => {
                Self::statuses(c, st, tagged).map_err(e)?;
                c.skip(6).map_err(e)?;
                return Ok(None);
            }
            // Wait: request, status. Test: request, flag, status.
            13 | 14 => {
                let h = c.i32().map_err(e)?;
                let flag = if label == 14 { c.i32().map_err(e)? } else { 1 };
                let s = Self::statuses(c, st, tagged).map_err(e)?;
                let func = if label == 13 { WaitFn::Wait } else { WaitFn::Test };
                if flag != 0 && h != DUMPI_REQUEST_NULL {
                    rec.list.extend(self.complete(h, s.first())?);
                }
                Op::Wait { func, count: 1 }
            }
            // Waitany: count, requests, index, status. Testany: ..., index, flag, status.
            16 | 17 => {
                c.i32().map_err(e)?;
                let reqs = c.i32s().map_err(e)?;
                let index = c.i32().map_err(e)?;
                let flag = if label == 17 { c.i32().map_err(e)? } else { 1 };
                let s = Self::statuses(c, st, tagged).map_err(e)?;
                if flag != 0 && index >= 0 {
                    let h =
                        *reqs.get(index as usize).ok_or_else(|| format!("index {index} of {} requests", reqs.len()))?;
                    rec.list.extend(self.complete(h, s.first())?);
                }
                let func = if label == 16 { WaitFn::Waitany } else { WaitFn::Testany };
                Op::Wait { func, count: reqs.len() as u32 }
            }
            // Waitall: count, requests, statuses. Testall: count, requests, flag, statuses.
            18 | 19 => {
                c.i32().map_err(e)?;
                let reqs = c.i32s().map_err(e)?;
                let flag = if label == 19 { c.i32().map_err(e)? } else { 1 };
                let s = Self::statuses(c, st, tagged).map_err(e)?;
                if flag != 0 {
                    for (i, &h) in reqs.iter().enumerate() {
                        if h != DUMPI_REQUEST_NULL {
                            rec.list.extend(self.complete(h, s.get(i))?);
                        }
                    }
                }
                let func = if label == 18 { WaitFn::Waitall } else { WaitFn::Testall };
                Op::Wait { func, count: reqs.len() as u32 }
            }
            // Waitsome / Testsome: count, requests, outcount, indices, statuses.
            20 | 21 => {
                c.i32().map_err(e)?;
                let reqs = c.i32s().map_err(e)?;
                c.i32().map_err(e)?;
                let idx = c.i32s().map_err(e)?;
                let s = Self::statuses(c, st, tagged).map_err(e)?;
                for (k, &i) in idx.iter().enumerate() {
                    let h =
                        *reqs.get(i.max(0) as usize).ok_or_else(|| format!("index {i} of {} requests", reqs.len()))?;
                    rec.list.extend(self.complete(h, s.get(k))?);
                }
                let func = if label == 20 { WaitFn::Waitsome } else { WaitFn::Testsome };
                Op::Wait { func, count: reqs.len() as u32 }
            }
            // Comm_dup: oldcomm, newcomm.
            84 => {
                let (old, new) = (c.u16().map_err(e)?, c.u16().map_err(e)?);
                let members = self.members(old)?;
                self.made(CommFn::Dup, old, new, members, rec)?
            }
            // Comm_split: oldcomm, color, key, newcomm (MPI_COMM_NULL for MPI_UNDEFINED).
            86 => {
                let (old, color, key, new) =
                    (c.u16().map_err(e)?, c.i32().map_err(e)?, c.i32().map_err(e)?, c.u16().map_err(e)?);
                if old != DUMPI_COMM_WORLD {
                    return Err(format!(
                        "a split of communicator {old}, not of MPI_COMM_WORLD, cannot be imported yet"
                    ));
                }
                let k = self.my_splits.len();
                let color = (new != DUMPI_COMM_NULL).then_some(color);
                self.my_splits.push((color, key));
                match (color, self.splits.is_some()) {
                    // A rank left out of every new communicator: no communicator, only time.
                    (None, _) => return Ok(None),
                    // The first pass only collects colours and keys.
                    (Some(_), false) => self.made(CommFn::Split, old, new, Vec::new(), rec)?,
                    (Some(color), true) => {
                        let members = self.split_members(k, color)?;
                        self.made(CommFn::Split, old, new, members, rec)?
                    }
                }
            }
            // Comm_free: comm.
            87 => {
                let h = c.u16().map_err(e)?;
                let comm = self.comm(h)?;
                if comm == COMM_WORLD {
                    return Err("MPI_COMM_WORLD freed".into());
                }
                self.comms.remove(&h);
                Op::CommFree { comm }
            }
            // Request_free: request. A persistent request's, or refused: a nonblocking
            // request freed while active completes without a record saying when.
            15 => {
                let h = c.i32().map_err(e)?;
                match self.persistent.remove(&h) {
                    Some(p) if self.posted.get(&h).is_none_or(|q| q.is_empty()) => Op::RequestFree { req: p.id },
                    Some(_) => return Err(format!("persistent request {h} freed while started and not completed")),
                    None => return Err(format!("request {h} is not a persistent one: an active request freed completes at a time the trace does not hold")),
                }
            }
            // Iprobe: source, tag, comm, flag, status. Probe: source, tag, comm, status.
            22 | 23 => {
                let (src, tag, comm) = (c.i32().map_err(e)?, c.i32().map_err(e)?, c.u16().map_err(e)?);
                let found = if label == 22 { c.i32().map_err(e)? != 0 } else { true };
                let s = Self::statuses(c, st, tagged).map_err(e)?;
                self.probe(src, tag, self.ranks(comm)?, found, s.first(), label == 23)?
            }
            // Send_init, Bsend_init, Ssend_init, Rsend_init, Recv_init: count, type, peer,
            // tag, comm, request.
            26..=30 => {
                let (n, dt, peer, tag, comm, h) = (
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                    c.i32().map_err(e)?,
                );
                let (recv, bytes, on) = (label == 30, self.bytes(n, dt)?, self.ranks(comm)?);
                let comm = self.comm(comm)?;
                let (peer, tag) = (self.peer(peer, recv, on)?, Self::tag(tag, recv)?);
                let req = self.create(h, recv, peer, tag, bytes, on)?;
                match label {
                    30 => Op::RecvInit { peer, tag, bytes, comm, req },
                    _ => Op::SendInit { mode: mode(label), peer, tag, bytes, comm, req },
                }
            }
            // Start: request. Startall: count, requests (their ids in the record's list).
            31 => Op::Start { req: self.start(c.i32().map_err(e)?)? },
            32 => {
                c.i32().map_err(e)?;
                for h in c.i32s().map_err(e)? {
                    let id = self.start(h)?;
                    rec.list.push(id as i64);
                }
                Op::Startall
            }
            // Sendrecv: sendcount, sendtype, dest, sendtag, recvcount, recvtype, source,
            // recvtag, comm, status.
            33 => {
                let (sn, sdt, dest, stag) =
                    (c.i32().map_err(e)?, c.u16().map_err(e)?, c.i32().map_err(e)?, c.i32().map_err(e)?);
                let (rn, rdt, src, rtag, comm) = (
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                );
                let s = Self::statuses(c, st, tagged).map_err(e)?;
                let on = self.ranks(comm)?;
                let (bytes, peer, tag) = (self.bytes(sn, sdt)?, self.peer(dest, false, on)?, Self::tag(stag, false)?);
                let (src, rtag, rbytes) = match s.first() {
                    Some(s) => (self.peer(s.source, false, on)?, Self::tag(s.tag, false)?, s.bytes),
                    None if src == DUMPI_ANY || rtag == DUMPI_ANY => {
                        return Err("a wildcard receive without its status (trace with statuses on)".into())
                    }
                    None => (self.peer(src, false, on)?, Self::tag(rtag, false)?, self.bytes(rn, rdt)?),
                };
                Op::Sendrecv { peer, tag, bytes, src, rtag, rbytes, comm: self.comm(comm)?, replace: false }
            }
            // Type_contiguous: count, oldtype, newtype. Type_size: type, size.
            35 => return c.skip(8).map(|_| None).map_err(e),
            43 => return c.skip(6).map(|_| None).map_err(e),
            46 | 47 => return c.skip(2).map(|_| None).map_err(e),
            52 => self.coll(Coll::Barrier, c.u16().map_err(e)?, NO_RANK, 0, 0, 0, 0)?,
            // Bcast: count, type, root, comm.
            53 => {
                let (n, dt, root, comm) =
                    (c.i32().map_err(e)?, c.u16().map_err(e)?, c.i32().map_err(e)?, c.u16().map_err(e)?);
                let b = self.bytes(n, dt)?;
                self.coll(Coll::Bcast, comm, root, b, b, 0, 0)?
            }
            // Gather: commrank, sendcount, sendtype, root, comm [, recvcount, recvtype at the
            // root]. Scatter: commrank, recvcount, recvtype, root, comm [, sendcount, sendtype].
            54 | 56 => {
                let (cr, n, dt, root, comm) = (
                    c.i32().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                );
                let mine = self.bytes(n, dt)?;
                let other = if cr == root { self.bytes(c.i32().map_err(e)?, c.u16().map_err(e)?)? } else { 0 };
                if label == 54 {
                    self.coll(Coll::Gather, comm, root, mine, other, 0, 0)?
                } else {
                    self.coll(Coll::Scatter, comm, root, other, mine, 0, 0)?
                }
            }
            // Gatherv: commrank, commsize, sendcount, sendtype, root, comm [, recvcounts,
            // displs at the root], recvtype.
            55 => {
                let (cr, _, n, dt, root, comm) = (
                    c.i32().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                );
                let counts = if cr == root { (c.i32s().map_err(e)?, c.i32s().map_err(e)?).0 } else { Vec::new() };
                let rdt = c.u16().map_err(e)?;
                let rb = self.per_rank(&counts, rdt, self.ranks(comm)?, rec)?;
                let sb = self.bytes(n, dt)?;
                self.coll(Coll::Gatherv, comm, root, sb, rb, 0, 0)?
            }
            // Scatterv: commrank, commsize, sendtype, recvcount, recvtype, root, comm [,
            // sendcounts, displs at the root].
            57 => {
                let (cr, _, sdt, n, rdt, root, comm) = (
                    c.i32().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                );
                let counts = if cr == root { (c.i32s().map_err(e)?, c.i32s().map_err(e)?).0 } else { Vec::new() };
                let sb = self.per_rank(&counts, sdt, self.ranks(comm)?, rec)?;
                let rb = self.bytes(n, rdt)?;
                self.coll(Coll::Scatterv, comm, root, sb, rb, 0, 0)?
            }
            // Allgather, Alltoall: sendcount, sendtype, recvcount, recvtype, comm.
            58 | 60 => {
                let (sn, sdt, rn, rdt, comm) = (
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                    c.i32().map_err(e)?,
                    c.u16().map_err(e)?,
                    c.u16().map_err(e)?,
                );
                let coll = if label == 58 { Coll::Allgather } else { Coll::Alltoall };
                let (sb, rb) = (self.bytes(sn, sdt)?, self.bytes(rn, rdt)?);
                self.coll(coll, comm, NO_RANK, sb, rb, 0, 0)?
            }
            // Allgatherv: commsize, sendcount, sendtype, recvcounts, displs, recvtype, comm.
            59 => {
                let (_, n, dt) = (c.i32().map_err(e)?, c.i32().map_err(e)?, c.u16().map_err(e)?);
                let (counts, _) = (c.i32s().map_err(e)?, c.i32s().map_err(e)?);
                let (rdt, comm) = (c.u16().map_err(e)?, c.u16().map_err(e)?);
                let rb = self.per_rank(&counts, rdt, self.ranks(comm)?, rec)?;
                let sb = self.bytes(n, dt)?;
                self.coll(Coll::Allgatherv, comm, NO_RANK, sb, rb, 0, 0)?
            }
            // Alltoallv: commsize, sendcounts, sdispls, sendtype, recvcounts, rdispls,
            // recvtype, comm.
            61 => {
                c.i32().map_err(e)?;
                let (sc, _, sdt) = (c.i32s().map_err(e)?, c.i32s().map_err(e)?, c.u16().map_err(e)?);
                let (rc, _, rdt, comm) =
                    (c.i32s().map_err(e)?, c.i32s().map_err(e)?, c.u16().map_err(e)?, c.u16().map_err(e)?);
                let on = self.ranks(comm)?;
                let sb = self.per_rank(&sc, sdt, on, rec)?;
                let rb = self.per_rank(&rc, rdt, on, rec)?;
                self.coll(Coll::Alltoallv, comm, NO_RANK, sb, rb, 0, 0)?
            }
            // Reduce: count, type, op, root, comm. Allreduce, Scan: count, type, op, comm.
            62 | 65 | 67 => {
                let (n, dt, op) = (c.i32().map_err(e)?, c.u16().map_err(e)?, c.u8().map_err(e)?);
                let root = if label == 62 { c.i32().map_err(e)? } else { NO_RANK };
                let comm = c.u16().map_err(e)?;
                let flags = Self::op_flags(op);
                if flags == 0 {
                    return Err(format!("reduction operation {op} is the program's own (MPI_Op_create): its commutativity is not in the trace"));
                }
                let b = self.bytes(n, dt)?;
                let coll = match label {
                    62 => Coll::Reduce,
                    65 => Coll::Allreduce,
                    _ => Coll::Scan,
                };
                self.coll(coll, comm, root, b, b, n as u64, flags)?
            }
            // Comm_size, Comm_rank: comm, value.
            81 | 82 => return c.skip(6).map(|_| None).map_err(e),
            // Dims_create: nodes, ndims, dims in, dims out.
            100 => {
                c.skip(8).map_err(e)?;
                c.i32s().map_err(e)?;
                c.i32s().map_err(e)?;
                return Ok(None);
            }
            // Get_version: version, subversion. Initialized, Finalized: flag.
            115 => return c.skip(8).map(|_| None).map_err(e),
            126 | 202 => return c.skip(4).map(|_| None).map_err(e),
            122 | 123 => return Ok(None),
            173 => return c.skip(1).map(|_| None).map_err(e),
            // Init: argc, then each argument. Init_thread: the same, required, provided.
            124 | 171 => {
                let argc = c.count(4).map_err(e)?;
                for _ in 0..argc {
                    c.chars().map_err(e)?;
                }
                // dumpi's levels are MPI's (SINGLE = 0 .. MULTIPLE = 3) plus one.
                let level = if label == 171 { (c.u8().map_err(e)?, c.u8().map_err(e)?).1.saturating_sub(1) } else { 0 };
                Op::Init { thread_level: level }
            }
            125 => Op::Finalize,
            // Abort: comm, errorcode.
            127 => {
                c.u16().map_err(e)?;
                Op::Abort { code: c.i32().map_err(e)? }
            }
            _ => unreachable!("calls::take lists only the labels decoded here"),
        };
        Ok(Some(op))
    }

    /// The list of a v-collective on `on`: bytes per rank of it (appended to the record's
    /// list); their sum.
    fn per_rank(&self, counts: &[i32], dt: u16, on: Ranks, rec: &mut Record) -> Result<u64, String> {
        match on.n {
            Some(n) if !counts.is_empty() && counts.len() != n as usize => {
                return Err(format!("{} counts for the {n} ranks of its communicator", counts.len()))
            }
            _ => {}
        }
        let mut sum = 0u64;
        for &n in counts {
            let b = self.bytes(n, dt)?;
            rec.list.push(b as i64);
            sum = sum.checked_add(b).ok_or("counts overflow")?;
        }
        Ok(sum)
    }
}
