//! One rank's DUMPI call records as psins records (consolidation's [`RecordStream`]).
//!
//! Each call record is a function label, a mask of what follows (thread id, CPU and wall-clock
//! times, counters, statuses), then the function's own fields in the order libdumpi writes
//! them. The gap before a record is the wall-clock time from the previous kept call's return
//! to this call's entry (CPU time for a record without wall-clock times): calls folded into
//! computation (MPI_Comm_rank, ...) count in it. Any function of the generated table can be
//! read past ([`super::fields`]); calls.rs says which become records.
//! Requests are dumpi's handles, mapped to psins ids when posted. Communicators and groups are
//! dumpi's handles too, each with its members as world ranks.

use super::calls::{self, Take};
use super::fields;
use super::file::{bad, Bad, Cursor, Layout, END_OF_STREAM};
use super::table::{Function, Kind, Scalar};
use psins_formats::comms::Reach;
use psins_formats::{
    Coll, CollFlags, CommFn, Op, ProbeFlags, Record, SendMode, WaitFn, ANY_SOURCE, ANY_TAG, COMM_SELF, COMM_WORLD,
    NO_RANK, NO_REQUEST, PROC_NULL,
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
const DUMPI_COMM_SELF: u16 = 3;
/// dumpi's MPI_GROUP_NULL and MPI_GROUP_EMPTY.
const DUMPI_GROUP_NULL: u16 = 1;
const DUMPI_GROUP_EMPTY: u16 = 2;
/// Labels of the functions followed here beyond the hand-decoded ones (checked against the
/// table's names by a test).
const SENDRECV_REPLACE: u16 = 34;
const COMM_GROUP: u16 = 72;
const GROUP_UNION: u16 = 73;
const GROUP_INTERSECTION: u16 = 74;
const GROUP_DIFFERENCE: u16 = 75;
const GROUP_INCL: u16 = 76;
const GROUP_EXCL: u16 = 77;
const GROUP_RANGE_INCL: u16 = 78;
const GROUP_RANGE_EXCL: u16 = 79;
const COMM_SIZE: u16 = 81;
const COMM_RANK: u16 = 82;
const COMM_CREATE: u16 = 85;
const CART_CREATE: u16 = 99;
const CART_SUB: u16 = 111;
const GRAPH_CREATE: u16 = 101;
const INTERCOMM_CREATE: u16 = 91;
const INTERCOMM_MERGE: u16 = 92;
const EXSCAN: u16 = 156;
const REDUCE_SCATTER: u16 = 66;
const OP_CREATE: u16 = 63;
const ALLTOALLW: u16 = 155;
const DUMPI_ANY: i32 = -1;
/// MPI_ROOT as libdumpi writes it.
const DUMPI_ROOT: i32 = -2;
/// MPI_PROC_NULL as libdumpi writes it under MPICH (it keeps the library's value).
const MPICH_PROC_NULL: i32 = -1;
const DUMPI_REQUEST_NULL: i32 = 1;
/// dumpi's predefined reduction operations are 1..=13 (MPI_MAX .. MPI_REPLACE).
const DUMPI_LAST_BUILTIN_OP: u8 = 13;

/// Why a call record's fields cannot be imported (the caller adds the call and the offset).
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// A field read past the end or breaking the layout.
    #[error("{0} (at byte {})", .0.offset)]
    Read(Bad),
    #[error(transparent)]
    Field(#[from] fields::FieldError),
    /// A rank outside its communicator, as psins-consolidate words it.
    #[error("{0}")]
    Reach(String),
    #[error("datatype {0} is not in the file's datatype table")]
    NoDatatype(u16),
    #[error("negative count {0}")]
    NegativeCount(i32),
    #[error("communicator {comm} was made by {by}, which the importer does not follow (docs/interop-dumpi.md)")]
    Unfollowed { comm: u16, by: &'static str },
    #[error(
        "communicator {0} is used before its creation: it is not MPI_COMM_WORLD or MPI_COMM_SELF, and no call \
         before this one made it (or it was freed)"
    )]
    UnknownComm(u16),
    #[error("new communicator handle {0} is predefined or already in use")]
    CommInUse(u16),
    #[error(
        "the local communicator {0} was not made by MPI_Comm_split of MPI_COMM_WORLD: the remote group, which the \
         trace does not hold, is read from the split that made both groups"
    )]
    NotFromWorldSplit(u16),
    #[error("the peer communicator's members are not known")]
    PeerMembersUnknown,
    #[error("the remote leader, world rank {0}, is in this rank's own group")]
    LeaderInOwnGroup(u32),
    #[error(
        "the remote leader, world rank {0}, got MPI_COMM_NULL from the MPI_Comm_split that made the local group: \
         the remote group is not a group of that split"
    )]
    LeaderOutsideSplit(u32),
    #[error("communicator {0} is not an intercommunicator")]
    NotInter(u16),
    #[error("rank {rank} makes fewer MPI_Comm_split calls on MPI_COMM_WORLD ({splits})")]
    FewerSplits { rank: usize, splits: usize },
    #[error("{what} {p} is not a rank of this {world}-rank trace")]
    NotARank { what: &'static str, p: i32, world: u32 },
    #[error("tag {0} is negative")]
    NegativeTag(i32),
    #[error("more than 2^32 requests")]
    TooManyRequests,
    #[error("request {0} created again before MPI_Request_free freed it")]
    Recreated(i32),
    #[error("request {0} was not created by an MPI_Send_init or MPI_Recv_init")]
    NotCreated(i32),
    #[error("a probe that found a message without its status (trace with statuses on)")]
    ProbeWithoutStatus,
    #[error("request {0} was not posted by an MPI_Isend, MPI_Irecv or MPI_Start")]
    NotPosted(i32),
    #[error(
        "request {0}: MPI_Cancel was called on it and it completed without its status (MPI_STATUS_IGNORE, or \
         traced with statuses off): whether it was cancelled is not in the trace"
    )]
    CancelWithoutStatus(i32),
    #[error(
        "request {0}: a send MPI_Cancel took back (its status says cancelled): psins replays every message a trace \
         sends, and cannot replay one withdrawn"
    )]
    SendCancelled(i32),
    #[error("request {0}: a wildcard receive completed without its status (trace with statuses on)")]
    WildcardCompletion(i32),
    #[error("a wildcard receive without its status (trace with statuses on)")]
    WildcardReceive,
    #[error("reduction operation {0} is the program's own, and no MPI_Op_create before it says whether it commutes")]
    UnknownOp(u8),
    #[error("index {index} of {requests} requests")]
    BadIndex { index: i32, requests: usize },
    #[error("a split of communicator {0}, not of MPI_COMM_WORLD, cannot be imported yet")]
    SplitNotOfWorld(u16),
    /// MPI_COMM_WORLD or MPI_COMM_SELF (its name).
    #[error("{0} freed")]
    PredefinedFreed(&'static str),
    #[error("persistent request {0} freed while started and not completed")]
    FreedStarted(i32),
    #[error(
        "request {0} is not a persistent one: an active request freed completes at a time the trace does not hold"
    )]
    FreedActive(i32),
    #[error("request {0} is not active (no MPI_Isend, MPI_Irecv or MPI_Start posted it)")]
    NotActive(i32),
    #[error(
        "gives rank {got} on communicator {}, where its members as the importer made them ({members:?}) put this \
         rank at {}",
        handle_name(*.comm),
        .at.map_or("not a member".to_string(), |i| format!("rank {i}"))
    )]
    RankContradicted { got: i64, comm: u16, members: Vec<u32>, at: Option<usize> },
    #[error("gives size {got} to communicator {}, which the importer made with {members} members", handle_name(*.comm))]
    SizeContradicted { got: i64, comm: u16, members: usize },
    #[error("MPI_GROUP_NULL used as a group")]
    GroupNull,
    #[error("group {0} is used before its creation: no MPI_Comm_group or group call before this one made it")]
    UnknownGroup(u16),
    #[error("a group of {0} members written as MPI_GROUP_EMPTY")]
    EmptyGroupWithMembers(usize),
    #[error("group {group} holds world rank {rank}, which is not in communicator {comm}")]
    GroupOutsideComm { group: u16, rank: u32, comm: u16 },
    #[error("this rank is in group {0} and got MPI_COMM_NULL")]
    InGroupGotNull(u16),
    #[error("this rank is not in group {group} and got communicator {comm}")]
    NotInGroupGotComm { group: u16, comm: u16 },
    #[error("dimensions {0:?}: each must be positive")]
    BadDims(Vec<i32>),
    #[error("a graph of {0} nodes")]
    BadNodes(i64),
    /// A topology (`what`: grid, graph) larger than the communicator it is laid on.
    #[error("a {what} of {n} ranks on communicator {comm} of {size} ranks")]
    TopologyTooBig { what: &'static str, n: u64, comm: u16, size: usize },
    /// This rank's place in a topology and the handle it got disagree (`new`: MPI_COMM_NULL
    /// where it is among the first `n` ranks).
    #[error(
        "this rank {} the {what}'s first {n} ranks of communicator {comm} and got {}",
        if *.new == DUMPI_COMM_NULL { "is among" } else { "is not among" },
        if *.new == DUMPI_COMM_NULL { "MPI_COMM_NULL".to_string() } else { format!("communicator {}", .new) }
    )]
    TopologyMembership { what: &'static str, n: u64, comm: u16, new: u16 },
    #[error("communicator {0} is not a Cartesian one (MPI_Cart_create or MPI_Cart_sub did not make it)")]
    NotCartesian(u16),
    #[error("{given} remain_dims for the {dims} dimensions of communicator {comm}")]
    RemainDims { given: usize, dims: usize, comm: u16 },
    #[error("this rank is not a member of communicator {0}")]
    NotAMember(u16),
    #[error("{counts} counts but {types} datatypes")]
    CountsTypes { counts: usize, types: usize },
    #[error("{counts} counts for the {ranks} ranks of its communicator")]
    CountsRanks { counts: usize, ranks: u32 },
    #[error("counts overflow")]
    CountsOverflow,
    #[error("rank {rank} is outside group {group} (ranks 0..{size})")]
    RankOutsideGroup { rank: i32, group: u16, size: usize },
    #[error("rank {rank} of group {group} named twice")]
    RankTwice { rank: i32, group: u16 },
    #[error("a range of {0} values, not (first, last, stride)")]
    RangeLength(usize),
    #[error("range ({first}, {last}, 0) of group {group}: a stride of 0")]
    ZeroStride { first: i32, last: i32, group: u16 },
    #[error("range ({first}, {last}, {stride}) of group {group} runs away from its last rank")]
    RangeAway { first: i64, last: i64, stride: i64, group: u16 },
    #[error("range ({first}, {last}, {stride}) names more ranks than group {group}'s {size}")]
    RangeTooLong { first: i64, last: i64, stride: i64, group: u16, size: usize },
}

/// A completed receive's envelope as its status says.
#[derive(Clone, Copy)]
struct Status {
    bytes: u64,
    source: i32,
    tag: i32,
    /// MPI_Test_cancelled's answer, which libdumpi records with every status.
    cancelled: bool,
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
    /// MPI_Cancel was called on it: its completion's status says whether it was cancelled.
    cancel: bool,
}

/// A communicator (its dumpi handle) and how many ranks it has: its peers and roots are
/// ranks below that. None in the first pass, which does not know a split's members yet (the
/// world bounds them there; the second pass checks).
#[derive(Clone, Copy)]
struct Ranks {
    comm: u16,
    n: Option<u32>,
    /// An intercommunicator: `n` is its remote group's size, whose ranks its peers are.
    inter: bool,
}

/// A communicator this rank holds (by its dumpi handle).
struct Comm {
    /// This rank's id for it (the tracer's per-rank numbering, from 2).
    id: u32,
    /// Its members as world ranks, in its rank order; None in the first pass for a split's
    /// (and what is made from one), whose members only the second pass knows.
    members: Option<Vec<u32>>,
    /// A Cartesian communicator's dimensions (MPI_Cart_create, MPI_Cart_sub).
    grid: Option<Vec<u32>>,
    /// An intercommunicator's local group size: `members` are the local group, then the
    /// remote one.
    local: Option<u32>,
    /// The world split that made it (which, and this rank's colour): MPI_Intercomm_create
    /// reads the remote group from the same split.
    split: Option<(usize, i32)>,
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
    rank: u32,
    /// Refuse a call psins does not replay rather than fold it (`psins-import --strict`).
    strict: bool,
    pos: usize,
    /// dumpi call records read (every label), for messages.
    pub calls: u64,
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
    /// Receives the completion call being read found cancelled: a Cancel record for each
    /// goes before that call's record.
    cancels: Vec<u32>,
    /// Records to hand out before reading further: a completion call that comes after its
    /// cancels.
    queued: VecDeque<Record>,
    instance: u32,
    /// Communicators by dumpi handle; the world's and self's are implicit. Ids count from 2,
    /// as the tracer's per-rank numbering (consolidation makes them global).
    comms: HashMap<u16, Comm>,
    next_comm: u32,
    /// Groups by dumpi handle: members as world ranks (None where a communicator's are not
    /// known yet: the first pass). A handle made again (MPI hands the same group out twice)
    /// takes the new members; MPI_Group_free forgets nothing, a later call may still name it.
    groups: HashMap<u16, Option<Vec<u32>>>,
    /// Communicator handles made by a call the importer does not follow, and its name: a
    /// record on one is refused naming it.
    unfollowed: HashMap<u16, &'static str>,
    /// Reductions MPI_Op_create made, by dumpi handle: whether each commutes.
    user_ops: HashMap<u8, bool>,
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
    pub fn new(buf: Vec<u8>, layout: Layout, rank: u32, world: u32, splits: Option<Splits>, strict: bool) -> Decoder {
        // Every label up to function exit is counted (the footer's are the MPI functions').
        let n = super::table::FUNCTION_EXIT as usize + 1;
        let pos = layout.body;
        Decoder {
            buf,
            layout,
            world,
            rank,
            strict,
            pos,
            calls: 0,
            prev_stop: None,
            seen: vec![0; n],
            posted: HashMap::new(),
            persistent: HashMap::new(),
            next_req: 0,
            cancels: Vec::new(),
            queued: VecDeque::new(),
            instance: 0,
            comms: HashMap::new(),
            next_comm: 2,
            groups: HashMap::new(),
            unfollowed: HashMap::new(),
            user_ops: HashMap::new(),
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
        if let Some(r) = self.queued.pop_front() {
            *rec = r;
            self.records += 1;
            return Ok(true);
        }
        while !self.done {
            let start = self.pos;
            // The records end 2 bytes before the header, at the end-of-stream label.
            let mut c = Cursor::at(&buf[..self.layout.header], self.pos);
            let label = c.u16()?;
            if label == END_OF_STREAM {
                self.done = true;
                return self.check_counts(start).map(|_| false);
            }
            let call = self.calls;
            self.calls += 1;
            let Some((fun, take)) = calls::take(label) else {
                return Err(bad(start, format!("dumpi call {call}: {}", calls::outside(label))));
            };
            let name = fun.name;
            match take {
                Take::Refuse(why) => {
                    let msg = format!("dumpi call {call}, {name}: cannot be imported: {why} (docs/interop-dumpi.md)");
                    return Err(bad(start, msg));
                }
                Take::Unmodelled(what) if self.strict => {
                    let msg = format!(
                        "dumpi call {call}, {name}: {what}, which psins does not replay: --strict refuses to fold it \
                         into computation"
                    );
                    return Err(bad(start, msg));
                }
                _ => {}
            }
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
            #[cfg(test)]
            let fields_at = c.pos;
            let op = match take {
                Take::Record => self.fields(label, fun, &mut c, statuses, rec),
                _ => self.fold(label, fun, &mut c, statuses),
            };
            let op = op.map_err(|m| bad(start, format!("dumpi call {call}, {name}: {m}")))?;
            #[cfg(test)]
            {
                // The hand decoders read as many bytes as the generated layout says.
                let mut t = Cursor::at(&buf[..self.layout.header], fields_at);
                fields::read(fun, &mut t, statuses, false)?;
                assert_eq!(t.pos, c.pos, "{name} at {start}: the table's layout and the decoder disagree");
            }
            self.pos = c.pos;
            self.seen[label as usize] += 1;
            if op.is_none() {
                self.folded[label as usize] += 1;
                continue;
            }
            let gap = self.prev_stop.map_or(0, |p| t0.saturating_sub(p));
            self.prev_stop = Some(t1);
            rec.gap_ns = gap;
            rec.dur_ns = t1.saturating_sub(t0);
            rec.op = op.unwrap();
            if !self.cancels.is_empty() {
                // The receives this completion found cancelled are cancelled first, at its
                // start; the completion follows at once.
                let mut cancels = self.cancels.drain(..).map(|req| Record::new(0, 0, Op::Cancel { req }));
                let first = cancels.next().expect("not empty");
                self.queued.extend(cancels);
                let call = std::mem::replace(rec, Record { gap_ns: gap, ..first });
                self.queued.push_back(Record { gap_ns: 0, ..call });
            }
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

    fn type_size(&self, dt: u16) -> Result<u64, StreamError> {
        match self.layout.type_sizes.get(dt as usize) {
            Some(&s) if dt >= 2 => Ok(s as u64),
            _ => Err(StreamError::NoDatatype(dt)),
        }
    }

    fn bytes(&self, count: i32, dt: u16) -> Result<u64, StreamError> {
        if count < 0 {
            return Err(StreamError::NegativeCount(count));
        }
        Ok(count as u64 * self.type_size(dt)?)
    }

    /// The psins id of communicator handle `comm`: the world, self, or one a followed call
    /// made; any other is used before its creation (or made by a call not followed).
    fn comm(&self, comm: u16) -> Result<u32, StreamError> {
        match comm {
            DUMPI_COMM_WORLD => return Ok(COMM_WORLD),
            DUMPI_COMM_SELF => return Ok(COMM_SELF),
            _ => {}
        }
        if let Some(c) = self.comms.get(&comm) {
            return Ok(c.id);
        }
        match self.unfollowed.get(&comm) {
            Some(&by) => Err(StreamError::Unfollowed { comm, by }),
            None => Err(StreamError::UnknownComm(comm)),
        }
    }

    /// Members of communicator `comm` as world ranks, in its rank order (None: a split's in
    /// the first pass).
    fn members(&self, comm: u16) -> Result<Option<Vec<u32>>, StreamError> {
        match comm {
            DUMPI_COMM_WORLD => return Ok(Some((0..self.world).collect())),
            DUMPI_COMM_SELF => return Ok(Some(vec![self.rank])),
            _ => {}
        }
        self.comm(comm)?;
        let c = &self.comms[&comm];
        Ok(c.members.as_ref().map(|m| m[..c.local.map_or(m.len(), |l| l as usize)].to_vec()))
    }

    /// This rank's index in communicator `comm` (0 where its members are not known yet: a
    /// split's in the first pass, which only counts).
    fn index_in(&self, comm: u16) -> Result<usize, StreamError> {
        Ok(self.members(comm)?.and_then(|m| m.iter().position(|&r| r == self.rank)).unwrap_or(0))
    }

    /// Communicator `comm` with its number of ranks ([`Ranks`]).
    fn ranks(&self, comm: u16) -> Result<Ranks, StreamError> {
        let n = match comm {
            DUMPI_COMM_WORLD => Some(self.world),
            DUMPI_COMM_SELF => Some(1),
            _ => {
                self.comm(comm)?;
                let c = &self.comms[&comm];
                let inter = c.local.is_some();
                let n = c.members.as_ref().map(|m| m.len() as u32 - c.local.unwrap_or(0));
                return Ok(Ranks { comm, n, inter });
            }
        };
        Ok(Ranks { comm, n, inter: false })
    }

    /// A new communicator under dumpi handle `new` with `members`: its CommCreate record.
    fn made(
        &mut self,
        func: CommFn,
        parent: u16,
        new: u16,
        members: Option<Vec<u32>>,
        grid: Option<Vec<u32>>,
        rec: &mut Record,
    ) -> Result<Op, StreamError> {
        let parent = self.comm(parent)?;
        if new <= DUMPI_COMM_SELF || self.comms.contains_key(&new) {
            return Err(StreamError::CommInUse(new));
        }
        let comm = self.next_comm;
        self.next_comm += 1;
        if let Some(m) = &members {
            rec.list.extend(m.iter().map(|&m| m as i64));
        }
        self.unfollowed.remove(&new);
        self.comms.insert(new, Comm { id: comm, members, grid, local: None, split: None });
        Ok(Op::CommCreate { func, parent, comm, split: 0 })
    }

    /// A new intercommunicator under dumpi handle `new`: `members` its local group (`local`
    /// ranks), then its remote group. Its CommCreate record lists both and says how many are
    /// local, as the tracer's does.
    fn made_inter(
        &mut self,
        func: CommFn,
        parent: u16,
        new: u16,
        members: Option<Vec<u32>>,
        local: u32,
        rec: &mut Record,
    ) -> Result<Op, StreamError> {
        let op = self.made(func, parent, new, members, None, rec)?;
        let c = self.comms.get_mut(&new).expect("just made");
        c.local = Some(local);
        let Op::CommCreate { func, parent, comm, .. } = op else { unreachable!("made makes a CommCreate") };
        Ok(Op::CommCreate { func, parent, comm, split: local })
    }

    /// MPI_Intercomm_create: localcomm, localleader, remotecomm, remoteleader, tag, newcomm.
    /// The local group is the local communicator's; the remote group is not in this rank's
    /// record, so it is read where the two groups come from: the local communicator must be
    /// one group of an MPI_Comm_split of MPI_COMM_WORLD, and the remote group is the group of
    /// the same split that holds the remote leader (the usual way to make two groups talk).
    fn intercomm_create(&mut self, fun: &Function, v: &fields::Values, rec: &mut Record) -> Result<Op, StreamError> {
        let (local, peer, new) = (v.handle(fun, "localcomm")?, v.handle(fun, "remotecomm")?, v.handle(fun, "newcomm")?);
        let leader = v.int(fun, "remoteleader")?;
        self.comm(local)?;
        let Some(local_members) = self.members(local)? else {
            // The first pass, which does not know a split's members, only follows the handle;
            // its groups are read in the second.
            return self.made_inter(CommFn::IntercommCreate, local, new, None, 0, rec);
        };
        let Some((k, color)) = self.comms.get(&local).and_then(|c| c.split) else {
            return Err(StreamError::NotFromWorldSplit(local));
        };
        let on = self.ranks(peer)?;
        let leader = self.rank("remote leader", leader as i32, on)?;
        let peers = self.members(peer)?.ok_or(StreamError::PeerMembersUnknown)?;
        let w = peers[leader as usize];
        let all = self.splits.as_ref().expect("the second pass");
        let theirs = all[w as usize].get(k).and_then(|s| s.0);
        let remote = match theirs {
            Some(c) if c != color => self.split_members(k, c)?,
            Some(_) => return Err(StreamError::LeaderInOwnGroup(w)),
            None => return Err(StreamError::LeaderOutsideSplit(w)),
        };
        let n = local_members.len() as u32;
        let members = local_members.into_iter().chain(remote).collect();
        self.made_inter(CommFn::IntercommCreate, local, new, Some(members), n, rec)
    }

    /// MPI_Intercomm_merge: the two groups in one communicator, the group that passed `high`
    /// false first. Only this rank's `high` is in its record; the other group is taken to
    /// have passed the other value (were both the same, MPI orders them itself: the rank
    /// MPI_Comm_rank then gives on the merged communicator contradicts its members, and
    /// without that call the two groups' records of it disagree; either is refused).
    fn intercomm_merge(&mut self, inter: u16, high: bool, new: u16, rec: &mut Record) -> Result<Op, StreamError> {
        self.comm(inter)?;
        let (members, local) = match self.comms.get(&inter) {
            Some(&Comm { local: Some(l), ref members, .. }) => (members.clone(), l as usize),
            _ => return Err(StreamError::NotInter(inter)),
        };
        let members = members.map(|m| {
            let (mine, theirs) = m.split_at(local);
            if high {
                [theirs, mine].concat()
            } else {
                [mine, theirs].concat()
            }
        });
        self.made(CommFn::IntercommMerge, inter, new, members, None, rec)
    }

    /// The members of this rank's `k`-th split of the world: the ranks that gave its colour,
    /// ordered by key, then by world rank (MPI's rule).
    fn split_members(&self, k: usize, color: i32) -> Result<Vec<u32>, StreamError> {
        let all = self.splits.as_ref().expect("called in the second pass");
        let mut m = Vec::new();
        for (r, splits) in all.iter().enumerate() {
            let &(c, key) = splits.get(k).ok_or(StreamError::FewerSplits { rank: r, splits: splits.len() })?;
            if c == Some(color) {
                m.push((key, r as u32));
            }
        }
        m.sort();
        Ok(m.into_iter().map(|(_, r)| r).collect())
    }

    /// A peer of communicator `on` (its communicator-local rank, as MPI gives it).
    fn peer(&self, p: i32, wildcard: bool, on: Ranks) -> Result<i32, StreamError> {
        if wildcard && p == DUMPI_ANY {
            return Ok(ANY_SOURCE);
        }
        self.rank("peer", p, on)
    }

    /// `p` checked to be a rank of `on`: one beyond it (a send to rank 3 of a two-rank split
    /// of a 4-rank world) would otherwise enter the trace as it is.
    fn rank(&self, what: &'static str, p: i32, on: Ranks) -> Result<i32, StreamError> {
        match on.n {
            // a split's or dup's bound, worded as psins-consolidate words it (the communicator
            // is the dumpi handle the record gives)
            Some(n) if on.inter => {
                Reach { comm: on.comm.into(), peers: n, inter: true }.check(what, p).map_err(StreamError::Reach)?
            }
            Some(n) if on.comm != DUMPI_COMM_WORLD => {
                Reach::intra(on.comm.into(), n).check(what, p).map_err(StreamError::Reach)?
            }
            _ if p < 0 || p as u32 >= self.world => return Err(StreamError::NotARank { what, p, world: self.world }),
            _ => {}
        }
        Ok(p)
    }

    fn tag(t: i32, wildcard: bool) -> Result<i32, StreamError> {
        if wildcard && t == DUMPI_ANY {
            return Ok(ANY_TAG);
        }
        if t < 0 {
            return Err(StreamError::NegativeTag(t));
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
            let cancelled = c.u8()? != 0;
            let _error = c.u8()?;
            let tag = if version_tag { c.i32()? } else { DUMPI_ANY };
            v.push(Status { bytes: bytes.max(0) as u64, source, tag, cancelled });
        }
        Ok(v)
    }

    /// A request of this envelope under the next psins id.
    fn request(&mut self, recv: bool, peer: i32, tag: i32, bytes: u64, on: Ranks) -> Result<Posted, StreamError> {
        self.next_req = self.next_req.checked_add(1).ok_or(StreamError::TooManyRequests)?;
        Ok(Posted { id: self.next_req, recv, peer, tag, bytes, on, cancel: false })
    }

    /// Request `p` posted under `handle`; its id.
    fn post(&mut self, handle: i32, p: Posted) -> u32 {
        self.posted.entry(handle).or_default().push_back(p);
        p.id
    }

    /// A persistent request created (inactive) under `handle`; its id.
    fn create(&mut self, handle: i32, p: Posted) -> Result<u32, StreamError> {
        if self.persistent.insert(handle, p).is_some() {
            return Err(StreamError::Recreated(handle));
        }
        Ok(p.id)
    }

    /// MPI_Start of persistent request `handle`: posted again under its id.
    fn start(&mut self, handle: i32) -> Result<u32, StreamError> {
        let p = *self.persistent.get(&handle).ok_or(StreamError::NotCreated(handle))?;
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
    ) -> Result<Op, StreamError> {
        let comm = self.comm(on.comm)?;
        let (peer, tag) = (self.peer(src, true, on)?, Self::tag(tag, true)?);
        let flags = if blocking { ProbeFlags::BLOCKING } else { 0 };
        if !found {
            return Ok(Op::Probe { peer, tag, bytes: 0, comm, flags });
        }
        let s = status.ok_or(StreamError::ProbeWithoutStatus)?;
        let (peer, tag) = (self.peer(s.source, false, on)?, Self::tag(s.tag, false)?);
        Ok(Op::Probe { peer, tag, bytes: s.bytes, comm, flags: flags | ProbeFlags::FOUND })
    }

    /// The completion quadruple of request `handle`, with its status when there is one.
    fn complete(&mut self, handle: i32, status: Option<&Status>) -> Result<[i64; 4], StreamError> {
        let q = self.posted.get_mut(&handle);
        let p = q.and_then(|q| q.pop_front()).ok_or(StreamError::NotPosted(handle))?;
        if p.cancel {
            match status {
                None => return Err(StreamError::CancelWithoutStatus(handle)),
                Some(s) if s.cancelled && !p.recv => return Err(StreamError::SendCancelled(handle)),
                // Cancelled: the receive got no message. A Cancel record goes before this
                // completion (step), which completes it as the tracer's cancelled receives do.
                Some(s) if s.cancelled => {
                    self.cancels.push(p.id);
                    return Ok([p.id as i64, NO_RANK as i64, 0, 0]);
                }
                // Not cancelled: it completed as if MPI_Cancel had not been called.
                Some(_) => {}
            }
        }
        if !p.recv {
            return Ok([p.id as i64, NO_RANK as i64, p.tag as i64, p.bytes as i64]);
        }
        let (source, tag, bytes) = match status {
            Some(s) => (self.peer(s.source, false, p.on)?, Self::tag(s.tag, false)?, s.bytes),
            None if p.peer == ANY_SOURCE || p.tag == ANY_TAG => return Err(StreamError::WildcardCompletion(handle)),
            None => (p.peer, p.tag, p.bytes),
        };
        Ok([p.id as i64, source as i64, tag as i64, bytes as i64])
    }

    /// A collective's record: each argument is one of its fields.
    #[allow(clippy::too_many_arguments)]
    fn coll(
        &mut self,
        coll: Coll,
        comm: u16,
        root: i32,
        send: u64,
        recv: u64,
        count: u64,
        flags: u8,
    ) -> Result<Op, StreamError> {
        let on = self.ranks(comm)?;
        let comm = self.comm(comm)?;
        // On an intercommunicator the root group's root passes MPI_ROOT (DUMPI_ROOT), its other
        // ranks MPI_PROC_NULL (MPICH's -1, which libdumpi keeps as it is), the other group
        // the root's rank in it: the tracer's NO_RANK, PROC_NULL and that rank.
        let root = match root {
            DUMPI_ROOT if on.inter => NO_RANK,
            MPICH_PROC_NULL if on.inter => PROC_NULL,
            r => r,
        };
        if root != NO_RANK && root != PROC_NULL {
            self.rank("root", root, on)?;
        }
        self.instance += 1;
        let (req, instance) = (NO_REQUEST, self.instance);
        Ok(Op::Coll { coll, comm, root, send_bytes: send, recv_bytes: recv, count, flags, req, instance })
    }

    /// A reduction's flags as the tracer sets them: every predefined operation commutes; a
    /// program's own as its MPI_Op_create said. One whose creation the trace lacks is refused.
    fn op_flags(&self, op: u8) -> Result<u8, StreamError> {
        if (1..=DUMPI_LAST_BUILTIN_OP).contains(&op) {
            return Ok(CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE);
        }
        match self.user_ops.get(&op) {
            Some(&commutes) => Ok(if commutes { CollFlags::OP_COMMUTATIVE } else { 0 }),
            None => Err(StreamError::UnknownOp(op)),
        }
    }

    /// One call's fields (libdumpi's order); the op it becomes, or None when it folds.
    fn fields(
        &mut self,
        label: u16,
        fun: &'static Function,
        c: &mut Cursor,
        st: bool,
        rec: &mut Record,
    ) -> Result<Option<Op>, StreamError> {
        let e = StreamError::Read;
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
                    let p = self.request(false, peer, tag, bytes, on)?;
                    let req = self.post(h, p);
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
                    let p = self.request(true, peer, tag, bytes, on)?;
                    let req = self.post(h, p);
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
                        None if peer == ANY_SOURCE || tag == ANY_TAG => return Err(StreamError::WildcardReceive),
                        None => Op::Recv { peer, tag, bytes, comm },
                    }
                }
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
                    let h = *reqs.get(index as usize).ok_or(StreamError::BadIndex { index, requests: reqs.len() })?;
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
                        *reqs.get(i.max(0) as usize).ok_or(StreamError::BadIndex { index: i, requests: reqs.len() })?;
                    rec.list.extend(self.complete(h, s.get(k))?);
                }
                let func = if label == 20 { WaitFn::Waitsome } else { WaitFn::Testsome };
                Op::Wait { func, count: reqs.len() as u32 }
            }
            // Comm_dup: oldcomm, newcomm.
            84 => {
                let (old, new) = (c.u16().map_err(e)?, c.u16().map_err(e)?);
                self.comm(old)?;
                if let Some(&Comm { local: Some(local), ref members, .. }) = self.comms.get(&old) {
                    let members = members.clone();
                    return self.made_inter(CommFn::Dup, old, new, members, local, rec).map(Some);
                }
                let members = self.members(old)?;
                let grid = self.comms.get(&old).and_then(|c| c.grid.clone());
                self.made(CommFn::Dup, old, new, members, grid, rec)?
            }
            INTERCOMM_CREATE => {
                let v = fields::read(fun, c, st, true).map_err(e)?;
                return self.intercomm_create(fun, &v, rec).map(Some);
            }
            INTERCOMM_MERGE => {
                let (inter, high, new) = (c.u16().map_err(e)?, c.i32().map_err(e)?, c.u16().map_err(e)?);
                return self.intercomm_merge(inter, high != 0, new, rec).map(Some);
            }
            COMM_CREATE | CART_CREATE | CART_SUB | GRAPH_CREATE => {
                let v = fields::read(fun, c, st, true).map_err(e)?;
                return match label {
                    COMM_CREATE => self.comm_create(fun, &v, rec),
                    CART_CREATE => self.cart_create(fun, &v, rec),
                    GRAPH_CREATE => self.graph_create(fun, &v, rec),
                    _ => self.cart_sub(fun, &v, rec),
                };
            }
            // Comm_split: oldcomm, color, key, newcomm (MPI_COMM_NULL for MPI_UNDEFINED).
            86 => {
                let (old, color, key, new) =
                    (c.u16().map_err(e)?, c.i32().map_err(e)?, c.i32().map_err(e)?, c.u16().map_err(e)?);
                if old != DUMPI_COMM_WORLD {
                    return Err(StreamError::SplitNotOfWorld(old));
                }
                let k = self.my_splits.len();
                let color = (new != DUMPI_COMM_NULL).then_some(color);
                self.my_splits.push((color, key));
                let op = match (color, self.splits.is_some()) {
                    // A rank left out of every new communicator: no communicator, only time.
                    (None, _) => return Ok(None),
                    // The first pass only collects colours and keys.
                    (Some(_), false) => self.made(CommFn::Split, old, new, None, None, rec)?,
                    (Some(color), true) => {
                        let members = self.split_members(k, color)?;
                        self.made(CommFn::Split, old, new, Some(members), None, rec)?
                    }
                };
                if let (Some(color), Some(c)) = (color, self.comms.get_mut(&new)) {
                    c.split = Some((k, color));
                }
                op
            }
            // Comm_free: comm.
            87 => {
                let h = c.u16().map_err(e)?;
                let comm = self.comm(h)?;
                if comm == COMM_WORLD || comm == COMM_SELF {
                    return Err(StreamError::PredefinedFreed(if comm == COMM_WORLD {
                        "MPI_COMM_WORLD"
                    } else {
                        "MPI_COMM_SELF"
                    }));
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
                    Some(_) => return Err(StreamError::FreedStarted(h)),
                    None => return Err(StreamError::FreedActive(h)),
                }
            }
            // Cancel: request. Whether it was cancelled is known only at its completion, from
            // the status, so the call keeps only its time here and the completion says the rest.
            24 => {
                let h = c.i32().map_err(e)?;
                let p = self.posted.get_mut(&h).and_then(|q| q.front_mut()).ok_or(StreamError::NotActive(h))?;
                p.cancel = true;
                return Ok(None);
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
                let p = self.request(recv, peer, tag, bytes, on)?;
                let req = self.create(h, p)?;
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
                    None if src == DUMPI_ANY || rtag == DUMPI_ANY => return Err(StreamError::WildcardReceive),
                    None => (self.peer(src, false, on)?, Self::tag(rtag, false)?, self.bytes(rn, rdt)?),
                };
                Op::Sendrecv { peer, tag, bytes, src, rtag, rbytes, comm: self.comm(comm)?, replace: false }
            }
            // Sendrecv_replace: count, type, dest, sendtag, source, recvtag, comm, status: the
            // same buffer both ways.
            SENDRECV_REPLACE => {
                let (n, dt, dest, stag) =
                    (c.i32().map_err(e)?, c.u16().map_err(e)?, c.i32().map_err(e)?, c.i32().map_err(e)?);
                let (src, rtag, comm) = (c.i32().map_err(e)?, c.i32().map_err(e)?, c.u16().map_err(e)?);
                let s = Self::statuses(c, st, tagged).map_err(e)?;
                let on = self.ranks(comm)?;
                let (bytes, peer, tag) = (self.bytes(n, dt)?, self.peer(dest, false, on)?, Self::tag(stag, false)?);
                let (src, rtag, rbytes) = match s.first() {
                    Some(s) => (self.peer(s.source, false, on)?, Self::tag(s.tag, false)?, s.bytes),
                    None if src == DUMPI_ANY || rtag == DUMPI_ANY => return Err(StreamError::WildcardReceive),
                    None => (self.peer(src, false, on)?, Self::tag(rtag, false)?, bytes),
                };
                Op::Sendrecv { peer, tag, bytes, src, rtag, rbytes, comm: self.comm(comm)?, replace: true }
            }
            52 => self.coll(Coll::Barrier, c.u16().map_err(e)?, NO_RANK, 0, 0, 0, 0)?,
            // Bcast: count, type, root, comm.
            53 => {
                let (n, dt, root, comm) =
                    (c.i32().map_err(e)?, c.u16().map_err(e)?, c.i32().map_err(e)?, c.u16().map_err(e)?);
                let b = self.bytes(n, dt)?;
                // The element count as the tracer records it.
                self.coll(Coll::Bcast, comm, root, b, b, n.max(0) as u64, 0)?
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
            // Alltoallw: commsize, sendcounts, sdispls, sendtypes, recvcounts, rdispls,
            // recvtypes, comm: a type per peer.
            ALLTOALLW => {
                c.i32().map_err(e)?;
                let (sc, _, stypes) = (c.i32s().map_err(e)?, c.i32s().map_err(e)?, c.u16s().map_err(e)?);
                let (rc, _, rtypes, comm) =
                    (c.i32s().map_err(e)?, c.i32s().map_err(e)?, c.u16s().map_err(e)?, c.u16().map_err(e)?);
                let on = self.ranks(comm)?;
                let sb = self.per_rank_typed(&sc, &stypes, on, rec)?;
                let rb = self.per_rank_typed(&rc, &rtypes, on, rec)?;
                self.coll(Coll::Alltoallw, comm, NO_RANK, sb, rb, 0, 0)?
            }
            // Reduce_scatter: commsize, recvcounts, type, op, comm. The record as the tracer
            // makes it: every rank's block (the list), their sum sent, this rank's received.
            // Whether the send buffer was MPI_IN_PLACE is not in the trace.
            REDUCE_SCATTER => {
                c.i32().map_err(e)?;
                let counts = c.i32s().map_err(e)?;
                let (dt, op, comm) = (c.u16().map_err(e)?, c.u8().map_err(e)?, c.u16().map_err(e)?);
                let flags = self.op_flags(op)?;
                let on = self.ranks(comm)?;
                let sb = self.per_rank(&counts, dt, on, rec)?;
                let me = self.index_in(comm)?;
                let rb = rec.list.get(me).map_or(0, |&b| b as u64);
                let elems = counts.iter().map(|&n| n.max(0) as u64).sum();
                self.coll(Coll::ReduceScatter, comm, NO_RANK, sb, rb, elems, flags)?
            }
            // Reduce: count, type, op, root, comm. Allreduce, Scan, Exscan: count, type, op, comm.
            62 | 65 | 67 | EXSCAN => {
                let (n, dt, op) = (c.i32().map_err(e)?, c.u16().map_err(e)?, c.u8().map_err(e)?);
                let root = if label == 62 { c.i32().map_err(e)? } else { NO_RANK };
                let comm = c.u16().map_err(e)?;
                let flags = self.op_flags(op)?;
                let b = self.bytes(n, dt)?;
                let coll = match label {
                    62 => Coll::Reduce,
                    65 => Coll::Allreduce,
                    67 => Coll::Scan,
                    _ => Coll::Exscan,
                };
                self.coll(coll, comm, root, b, b, n as u64, flags)?
            }
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
            _ => unreachable!("calls.rs makes records only of the labels decoded here"),
        };
        Ok(Some(op))
    }

    /// A call folded into computation (no record), read by the table's layout. The group
    /// calls are followed; MPI_Comm_rank and MPI_Comm_size are checked against the members the
    /// importer gave the communicator; a communicator made by a call not followed is noted, to
    /// name it if a record uses it.
    fn fold(
        &mut self,
        label: u16,
        fun: &'static Function,
        c: &mut Cursor,
        st: bool,
    ) -> Result<Option<Op>, StreamError> {
        let e = StreamError::Read;
        let keep = matches!(label, GROUP_INCL | GROUP_EXCL | GROUP_RANGE_INCL | GROUP_RANGE_EXCL);
        let v = fields::read(fun, c, st, keep).map_err(e)?;
        match label {
            COMM_GROUP => {
                let (comm, group) = (v.handle(fun, "comm")?, v.handle(fun, "group")?);
                let members = self.members(comm)?;
                self.new_group(group, members)?;
            }
            GROUP_INCL | GROUP_EXCL | GROUP_RANGE_INCL | GROUP_RANGE_EXCL => {
                let (group, new) = (v.handle(fun, "group")?, v.handle(fun, "newgroup")?);
                let members = match self.group(group)? {
                    None => None,
                    Some(base) => {
                        let ranks = match label {
                            GROUP_INCL | GROUP_EXCL => v.ints(fun, "ranks")?.to_vec(),
                            _ => ranges(v.nested(fun, "ranges")?, base.len(), group)?,
                        };
                        Some(pick(&base, &ranks, matches!(label, GROUP_INCL | GROUP_RANGE_INCL), group)?)
                    }
                };
                self.new_group(new, members)?;
            }
            GROUP_UNION | GROUP_INTERSECTION | GROUP_DIFFERENCE => {
                let (g1, g2) = (self.group(v.handle(fun, "group1")?)?, self.group(v.handle(fun, "group2")?)?);
                let members = g1.zip(g2).map(|(a, b)| match label {
                    GROUP_UNION => a.iter().chain(b.iter().filter(|m| !a.contains(m))).copied().collect(),
                    GROUP_INTERSECTION => a.into_iter().filter(|m| b.contains(m)).collect(),
                    _ => a.into_iter().filter(|m| !b.contains(m)).collect(),
                });
                self.new_group(v.handle(fun, "newgroup")?, members)?;
            }
            // A reduction of the program's own: whether it commutes, for its collectives.
            OP_CREATE => {
                let op = v.int(fun, "op")? as u8;
                self.user_ops.insert(op, v.int(fun, "commute")? != 0);
            }
            COMM_RANK | COMM_SIZE => {
                let comm = v.handle(fun, "comm")?;
                let members = match self.members(comm) {
                    Ok(Some(m)) => m,
                    _ => return Ok(None),
                };
                if label == COMM_RANK {
                    let got = v.int(fun, "rank")?;
                    let mine = members.iter().position(|&m| m == self.rank);
                    if mine.map(|i| i as i64) != Some(got) {
                        return Err(StreamError::RankContradicted { got, comm, members, at: mine });
                    }
                } else if v.int(fun, "size")? != members.len() as i64 {
                    let got = v.int(fun, "size")?;
                    return Err(StreamError::SizeContradicted { got, comm, members: members.len() });
                }
            }
            _ => {
                // A communicator handle a call made and the importer does not follow.
                let made =
                    fun.fields.unwrap_or(&[]).iter().enumerate().filter(|(_, f)| {
                        f.kind == Kind::Scalar(Scalar::Comm) && matches!(f.name, "newcomm" | "parent")
                    });
                for (_, f) in made {
                    if let Ok(h) = v.handle(fun, f.name) {
                        if h > DUMPI_COMM_SELF {
                            self.comms.remove(&h);
                            self.unfollowed.insert(h, fun.name);
                        }
                    }
                }
            }
        }
        Ok(None)
    }

    /// Group handle `g`'s members (None: not known in the first pass).
    fn group(&self, g: u16) -> Result<Option<Vec<u32>>, StreamError> {
        match g {
            DUMPI_GROUP_EMPTY => Ok(Some(Vec::new())),
            DUMPI_GROUP_NULL => Err(StreamError::GroupNull),
            _ => self.groups.get(&g).cloned().ok_or(StreamError::UnknownGroup(g)),
        }
    }

    fn new_group(&mut self, g: u16, members: Option<Vec<u32>>) -> Result<(), StreamError> {
        if g <= DUMPI_GROUP_EMPTY {
            // MPI hands out MPI_GROUP_EMPTY for an empty result.
            return match members {
                Some(m) if !m.is_empty() && g == DUMPI_GROUP_EMPTY => Err(StreamError::EmptyGroupWithMembers(m.len())),
                _ => Ok(()),
            };
        }
        self.groups.insert(g, members);
        Ok(())
    }

    /// MPI_Comm_create: oldcomm, group, newcomm. The new communicator's members are the
    /// group's, in its order; a rank outside the group gets MPI_COMM_NULL (no record, as a
    /// split's MPI_UNDEFINED).
    fn comm_create(&mut self, fun: &Function, v: &fields::Values, rec: &mut Record) -> Result<Option<Op>, StreamError> {
        let (old, group, new) = (v.handle(fun, "oldcomm")?, v.handle(fun, "group")?, v.handle(fun, "newcomm")?);
        let parent = self.members(old)?;
        let members = self.group(group)?;
        if let (Some(p), Some(m)) = (&parent, &members) {
            if let Some(x) = m.iter().find(|x| !p.contains(x)) {
                return Err(StreamError::GroupOutsideComm { group, rank: *x, comm: old });
            }
            let inside = m.contains(&self.rank);
            if inside != (new != DUMPI_COMM_NULL) {
                return Err(if inside {
                    StreamError::InGroupGotNull(group)
                } else {
                    StreamError::NotInGroupGotComm { group, comm: new }
                });
            }
        }
        if new == DUMPI_COMM_NULL {
            self.comm(old)?;
            return Ok(None);
        }
        self.made(CommFn::Create, old, new, members, None, rec).map(Some)
    }

    /// MPI_Cart_create: oldcomm, ndim, dims, periods, reorder, newcomm. The grid's ranks are
    /// the first dims' product of the old communicator's, in its order, also with reorder
    /// (MPICH and Open MPI keep the order; MPI_Comm_rank on the grid is checked against it);
    /// the ranks beyond get MPI_COMM_NULL.
    fn cart_create(&mut self, fun: &Function, v: &fields::Values, rec: &mut Record) -> Result<Option<Op>, StreamError> {
        let (old, new) = (v.handle(fun, "oldcomm")?, v.handle(fun, "newcomm")?);
        let dims = v.ints(fun, "dims")?;
        let mut n = 1u64;
        for &d in dims {
            if d <= 0 {
                return Err(StreamError::BadDims(dims.to_vec()));
            }
            n = n.saturating_mul(d as u64);
        }
        let grid: Vec<u32> = dims.iter().map(|&d| d as u32).collect();
        let Some(members) = self.first_ranks(old, new, n, "grid")? else { return Ok(None) };
        self.made(CommFn::CartCreate, old, new, members, Some(grid), rec).map(Some)
    }

    /// MPI_Graph_create: numedges, oldcomm, nodes, index, edges, reorder, newcomm. The
    /// graph's ranks are the old communicator's first `nodes`, in its order (as MPI_Cart_create's;
    /// a reordering shows as a rank MPI_Comm_rank contradicts, which is refused).
    fn graph_create(
        &mut self,
        fun: &Function,
        v: &fields::Values,
        rec: &mut Record,
    ) -> Result<Option<Op>, StreamError> {
        let (old, new) = (v.handle(fun, "oldcomm")?, v.handle(fun, "newcomm")?);
        let nodes = v.int(fun, "nodes")?;
        if nodes < 0 {
            return Err(StreamError::BadNodes(nodes));
        }
        let Some(members) = self.first_ranks(old, new, nodes as u64, "graph")? else { return Ok(None) };
        self.made(CommFn::GraphCreate, old, new, members, None, rec).map(Some)
    }

    /// The members of a topology of `n` ranks laid on communicator `old` (its first `n`), or
    /// None where this rank got MPI_COMM_NULL (`new`), which must be the ranks past them.
    fn first_ranks(
        &self,
        old: u16,
        new: u16,
        n: u64,
        what: &'static str,
    ) -> Result<Option<Option<Vec<u32>>>, StreamError> {
        let members = match self.members(old)? {
            Some(p) if n > p.len() as u64 => {
                return Err(StreamError::TopologyTooBig { what, n, comm: old, size: p.len() })
            }
            Some(p) => {
                let members = p[..n as usize].to_vec();
                if members.contains(&self.rank) != (new != DUMPI_COMM_NULL) {
                    return Err(StreamError::TopologyMembership { what, n, comm: old, new });
                }
                Some(members)
            }
            None => None,
        };
        if new == DUMPI_COMM_NULL {
            self.comm(old)?;
            return Ok(None);
        }
        Ok(Some(members))
    }

    /// MPI_Cart_sub: ndim, comm, remain_dims, newcomm. The members are the grid's ranks whose
    /// coordinates equal this rank's in every dimension dropped, in grid order (MPI's
    /// row-major numbering: the last dimension varies fastest).
    fn cart_sub(&mut self, fun: &Function, v: &fields::Values, rec: &mut Record) -> Result<Option<Op>, StreamError> {
        let (old, new) = (v.handle(fun, "oldcomm")?, v.handle(fun, "newcomm")?);
        let keep = v.ints(fun, "remain_dims")?;
        self.comm(old)?;
        let c = self.comms.get(&old);
        let grid = c.and_then(|c| c.grid.clone()).ok_or(StreamError::NotCartesian(old))?;
        if keep.len() != grid.len() {
            return Err(StreamError::RemainDims { given: keep.len(), dims: grid.len(), comm: old });
        }
        let sub: Vec<u32> = grid.iter().zip(keep).filter(|(_, &k)| k != 0).map(|(&d, _)| d).collect();
        let members = c.and_then(|c| c.members.clone()).map(|m| {
            let coords = |mut i: usize| {
                let mut x = vec![0u32; grid.len()];
                for (d, &n) in grid.iter().enumerate().rev() {
                    x[d] = (i % n as usize) as u32;
                    i /= n as usize;
                }
                x
            };
            let me = m.iter().position(|&r| r == self.rank).map(coords);
            let same = |x: &[u32]| me.as_ref().is_some_and(|me| (0..grid.len()).all(|d| keep[d] != 0 || x[d] == me[d]));
            m.iter().enumerate().filter(|&(i, _)| same(&coords(i))).map(|(_, &r)| r).collect::<Vec<u32>>()
        });
        if members.as_ref().is_some_and(|m| m.is_empty()) {
            return Err(StreamError::NotAMember(old));
        }
        self.made(CommFn::CartSub, old, new, members, Some(sub), rec).map(Some)
    }

    /// The list of a v-collective on `on`: bytes per rank of it (appended to the record's
    /// list); their sum.
    fn per_rank(&self, counts: &[i32], dt: u16, on: Ranks, rec: &mut Record) -> Result<u64, StreamError> {
        self.per_rank_typed(counts, &vec![dt; counts.len()], on, rec)
    }

    /// [`Decoder::per_rank`] with a datatype per rank (alltoallw).
    fn per_rank_typed(&self, counts: &[i32], types: &[u16], on: Ranks, rec: &mut Record) -> Result<u64, StreamError> {
        if types.len() != counts.len() {
            return Err(StreamError::CountsTypes { counts: counts.len(), types: types.len() });
        }
        match on.n {
            Some(n) if !counts.is_empty() && counts.len() != n as usize => {
                return Err(StreamError::CountsRanks { counts: counts.len(), ranks: n })
            }
            _ => {}
        }
        let mut sum = 0u64;
        for (&n, &dt) in counts.iter().zip(types) {
            let b = self.bytes(n, dt)?;
            rec.list.push(b as i64);
            sum = sum.checked_add(b).ok_or(StreamError::CountsOverflow)?;
        }
        Ok(sum)
    }
}

/// A communicator handle for messages.
fn handle_name(comm: u16) -> String {
    match comm {
        DUMPI_COMM_WORLD => "MPI_COMM_WORLD".into(),
        DUMPI_COMM_SELF => "MPI_COMM_SELF".into(),
        _ => comm.to_string(),
    }
}

/// `ranks` of a group of `base` (MPI_Group_incl when `incl`, else MPI_Group_excl): each a rank
/// of the group, none twice.
fn pick(base: &[u32], ranks: &[i32], incl: bool, group: u16) -> Result<Vec<u32>, StreamError> {
    let mut taken = vec![false; base.len()];
    for &r in ranks {
        if r < 0 || r as usize >= base.len() {
            return Err(StreamError::RankOutsideGroup { rank: r, group, size: base.len() });
        }
        if std::mem::replace(&mut taken[r as usize], true) {
            return Err(StreamError::RankTwice { rank: r, group });
        }
    }
    Ok(if incl {
        ranks.iter().map(|&r| base[r as usize]).collect()
    } else {
        base.iter().zip(&taken).filter(|(_, &t)| !t).map(|(&m, _)| m).collect()
    })
}

/// The ranks the (first, last, stride) triplets of MPI_Group_range_incl/excl name, in order,
/// on a group of `n`: every one within it (checked by [`pick`]; a triplet naming more ranks
/// than the group has is refused before they are listed).
fn ranges(triplets: &[Vec<i32>], n: usize, group: u16) -> Result<Vec<i32>, StreamError> {
    let mut out = Vec::new();
    for t in triplets {
        let &[first, last, stride] = &t[..] else {
            return Err(StreamError::RangeLength(t.len()));
        };
        if stride == 0 {
            return Err(StreamError::ZeroStride { first, last, group });
        }
        let (first, last, stride) = (first as i64, last as i64, stride as i64);
        if (last - first) / stride < 0 {
            return Err(StreamError::RangeAway { first, last, stride, group });
        }
        let count = (last - first) / stride + 1;
        if out.len() as i64 + count > n as i64 {
            return Err(StreamError::RangeTooLong { first, last, stride, group, size: n });
        }
        out.extend((0..count).map(|k| (first + k * stride) as i32));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_labels_followed_here_are_the_tables() {
        for (l, n) in [
            (SENDRECV_REPLACE, "MPI_Sendrecv_replace"),
            (COMM_GROUP, "MPI_Comm_group"),
            (GROUP_UNION, "MPI_Group_union"),
            (GROUP_INTERSECTION, "MPI_Group_intersection"),
            (GROUP_DIFFERENCE, "MPI_Group_difference"),
            (GROUP_INCL, "MPI_Group_incl"),
            (GROUP_EXCL, "MPI_Group_excl"),
            (GROUP_RANGE_INCL, "MPI_Group_range_incl"),
            (GROUP_RANGE_EXCL, "MPI_Group_range_excl"),
            (COMM_SIZE, "MPI_Comm_size"),
            (COMM_RANK, "MPI_Comm_rank"),
            (COMM_CREATE, "MPI_Comm_create"),
            (COMM_SPLIT, "MPI_Comm_split"),
            (CART_CREATE, "MPI_Cart_create"),
            (CART_SUB, "MPI_Cart_sub"),
            (EXSCAN, "MPI_Exscan"),
            (REDUCE_SCATTER, "MPI_Reduce_scatter"),
            (OP_CREATE, "MPI_Op_create"),
            (ALLTOALLW, "MPI_Alltoallw"),
        ] {
            assert_eq!(calls::name(l), n);
        }
    }

    /// Every record of every fixture decoded: the decoder asserts (in tests) that each record
    /// it makes takes the bytes the generated layout gives it.
    #[test]
    fn the_hand_decoders_read_the_tables_layouts() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dumpi");
        let mut files = 0;
        for app in std::fs::read_dir(&root).unwrap() {
            let bins: Vec<_> = std::fs::read_dir(app.unwrap().path())
                .unwrap()
                .map(|f| f.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "bin"))
                .collect();
            for p in &bins {
                let stem = p.file_stem().unwrap().to_str().unwrap();
                let rank: u32 = stem[stem.len() - 4..].parse().unwrap();
                let buf = std::fs::read(p).unwrap();
                let layout = Layout::read(&buf).unwrap();
                // The first pass's decoder: no other rank's splits needed.
                let mut dec = Decoder::new(buf, layout, rank, bins.len() as u32, None, false);
                let mut rec = Record::default();
                while dec.next(&mut rec).unwrap_or_else(|b| panic!("{}: {b} at {}", p.display(), b.offset)) {}
                files += 1;
            }
        }
        assert!(files >= 26, "{files}");
    }

    /// The messages composed from a variant's data, as the importer words them.
    #[test]
    fn composed_messages() {
        let rank = |at| StreamError::RankContradicted { got: 1, comm: DUMPI_COMM_WORLD, members: vec![0, 2], at };
        assert_eq!(
            rank(None).to_string(),
            "gives rank 1 on communicator MPI_COMM_WORLD, where its members as the importer made them ([0, 2]) put \
             this rank at not a member"
        );
        assert!(rank(Some(0)).to_string().ends_with("put this rank at rank 0"));
        let membership = |new| StreamError::TopologyMembership { what: "grid", n: 4, comm: 5, new };
        assert_eq!(
            membership(DUMPI_COMM_NULL).to_string(),
            "this rank is among the grid's first 4 ranks of communicator 5 and got MPI_COMM_NULL"
        );
        assert_eq!(
            membership(7).to_string(),
            "this rank is not among the grid's first 4 ranks of communicator 5 and got communicator 7"
        );
        assert_eq!(
            StreamError::SizeContradicted { got: 3, comm: 9, members: 2 }.to_string(),
            "gives size 3 to communicator 9, which the importer made with 2 members"
        );
        assert_eq!(StreamError::Read(bad(12, "truncated")).to_string(), "truncated (at byte 12)");
    }

    #[test]
    fn group_ranks_and_ranges() {
        let world = [10, 11, 12, 13, 14];
        let pick = |ranks: &[i32], incl| pick(&world, ranks, incl, 3).map_err(|e| e.to_string());
        let ranges = |t: &[Vec<i32>]| ranges(t, 5, 3).map_err(|e| e.to_string());
        assert_eq!(pick(&[4, 0], true), Ok(vec![14, 10]));
        assert_eq!(pick(&[4, 0], false), Ok(vec![11, 12, 13]));
        assert_eq!(pick(&[5], true), Err("rank 5 is outside group 3 (ranks 0..5)".into()));
        assert_eq!(pick(&[-1], false), Err("rank -1 is outside group 3 (ranks 0..5)".into()));
        assert_eq!(pick(&[1, 1], true), Err("rank 1 of group 3 named twice".into()));
        assert_eq!(ranges(&[vec![0, 4, 2], vec![3, 1, -2]]), Ok(vec![0, 2, 4, 3, 1]));
        assert_eq!(ranges(&[vec![4, 4, 1]]), Ok(vec![4]));
        assert_eq!(ranges(&[vec![0, 4, 0]]), Err("range (0, 4, 0) of group 3: a stride of 0".into()));
        assert_eq!(ranges(&[vec![4, 0, 1]]), Err("range (4, 0, 1) of group 3 runs away from its last rank".into()));
        assert_eq!(
            ranges(&[vec![0, 1_000_000_000, 1]]),
            Err("range (0, 1000000000, 1) names more ranks than group 3's 5".into())
        );
        assert_eq!(ranges(&[vec![0, 1]]), Err("a range of 2 values, not (first, last, stride)".into()));
    }
}
