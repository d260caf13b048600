//! One rank's OTF2 events as psins records: each outermost MPI region is one call, the MPI
//! events inside it give its peers, tags, sizes, requests and collective; the time between
//! MPI regions (other regions included) is computation. docs/interop-otf2.md.

use super::calls::{self, Call};
use super::events::{Ev, RmaEv};
use super::write::coll_of;
use psins_formats::comms::Reach;
use psins_formats::{
    Coll, CommFn, Op, Record, RmaFn, SendMode, WaitFn, WinFlags, WinSyncFn, ANY_SOURCE, ANY_TAG, COMM_NULL, COMM_SELF,
    COMM_WORLD, NO_RANK, NO_REQUEST, PROC_NULL,
};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, HashMap};

const CREATE_HANDLE: u8 = 17;
const DESTROY_HANDLE: u8 = 18;
pub(super) const UNDEFINED: u32 = u32::MAX;
/// OTF2 3.0's roots of a collective on an intercommunicator: this rank is the root
/// (MPI_ROOT), or the root is in this rank's group (MPI_PROC_NULL).
const ROOT_SELF: u32 = u32::MAX - 1;
const ROOT_THIS_GROUP: u32 = u32::MAX - 2;

/// The trace-wide facts a rank's conversion needs.
pub struct Model {
    /// Region id → (name, is an MPI region).
    pub regions: FxHashMap<u32, (String, bool)>,
    /// OTF2 communicator → (members as world ranks, parent).
    pub comms: HashMap<u32, (Vec<u32>, Option<u32>)>,
    /// Intercommunicators (OTF2 3.0's InterComm) → how many of their members (group A, then
    /// group B) are group A.
    pub inter: HashMap<u32, u32>,
    /// RMA window → the OTF2 communicator it was created over.
    pub windows: HashMap<u32, u32>,
    /// MPI groups of processes → their members (world ranks): a one-sided epoch's group.
    pub groups: HashMap<u32, Vec<u32>>,
    /// Ranks of the archive (the MPI locations).
    pub world: u32,
    pub world_comm: Option<u32>,
    pub self_comm: Option<u32>,
    pub resolution: u64,
    pub offset: u64,
    /// The attribute holding psins's collective element count (archives psins wrote).
    pub count_attr: Option<u32>,
    /// Region id → what a region that is not MPI's counts as, folded ([`super::defs::Defs::fold_label`]).
    pub labels: HashMap<u32, String>,
    /// Written by Score-P, whose collectives carry the bytes a rank sent and received in the
    /// whole call ([`super::scorep`]), where psins's carry its message or block.
    pub scorep: bool,
    /// Communicators of one rank each, whatever rank holds them: those whose group is
    /// OTF2's COMM_SELF group besides MPI_COMM_SELF (Score-P's for a communicator of the
    /// caller alone, such as a split into singletons).
    pub singletons: std::collections::HashSet<u32>,
}

/// What a rank's conversion folded into computation (or dropped outside the span), counted:
/// `calls`, MPI calls without communication before MPI_Init or after MPI_Finalize, by
/// function; `other`, the regions besides MPI's (by [`Model::labels`]) and the measurement
/// system's events (`BufferFlush`, `MeasurementOnOff`), by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Folded {
    pub calls: BTreeMap<String, u64>,
    pub other: BTreeMap<String, u64>,
}

impl Folded {
    pub fn add(&mut self, o: &Folded) {
        for (k, v) in &o.calls {
            *self.calls.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.other {
            *self.other.entry(k.clone()).or_default() += v;
        }
    }
}

impl Model {
    /// The rank-local handle psins records carry for OTF2 communicator `c` (consolidation
    /// makes them global): world 0, self 1, the others shifted past them.
    fn local(&self, c: u32) -> u32 {
        if Some(c) == self.world_comm {
            COMM_WORLD
        } else if Some(c) == self.self_comm {
            COMM_SELF
        } else {
            c.saturating_add(2)
        }
    }

    /// How many ranks OTF2 communicator `c` has (an event's peer or root is one of them): the
    /// world for none (UNDEFINED), 1 for MPI_COMM_SELF (Score-P's group for it lists no
    /// members); None for one not in the definitions (refused at its call).
    fn size(&self, c: u32) -> Option<u32> {
        if c == UNDEFINED {
            Some(self.world)
        } else if Some(c) == self.self_comm || self.singletons.contains(&c) {
            Some(1)
        } else {
            self.comms.get(&c).map(|m| m.0.len() as u32)
        }
    }

    /// The two groups of intercommunicator `c` as `rank` sees them: (local, remote). None for
    /// an intra-communicator, or a rank in neither group.
    fn sides(&self, c: u32, rank: u32) -> Option<(&[u32], &[u32])> {
        let a = *self.inter.get(&c)? as usize;
        let (ga, gb) = self.comms.get(&c)?.0.split_at(a);
        if ga.contains(&rank) {
            Some((ga, gb))
        } else if gb.contains(&rank) {
            Some((gb, ga))
        } else {
            None
        }
    }

    /// The ranks `rank` names on communicator `c`: its members, or on an intercommunicator
    /// its remote group. None for one not in the definitions (refused at its call).
    fn reach(&self, c: u32, rank: u32) -> Option<Reach> {
        if self.inter.contains_key(&c) {
            let peers = self.sides(c, rank).map_or(0, |(_, remote)| remote.len() as u32);
            return Some(Reach { comm: c, peers, inter: true });
        }
        self.size(c).map(|n| Reach::intra(c, n))
    }

    /// An intercommunicator's members as `rank`'s CommCreate record lists them: its local
    /// group, then the remote one; and how many are local.
    fn inter_members(&self, c: u32, rank: u32) -> Result<(Vec<u32>, u32), ConvError> {
        let (local, remote) = self.sides(c, rank).ok_or(ConvError::NeitherGroup { rank, comm: c })?;
        if remote.is_empty() {
            return Err(ConvError::SelfGroupRemote(c));
        }
        Ok((local.iter().chain(remote).copied().collect(), local.len() as u32))
    }

    fn ns(&self, t: u64) -> u64 {
        let t = t.saturating_sub(self.offset) as u128 * 1_000_000_000 / self.resolution as u128;
        t.min(u64::MAX as u128) as u64
    }
}

/// A message's peer (comm rank), communicator, tag and bytes as OTF2 gives them.
type Msg = (u32, u32, u32, u64);

/// The MPI events of the call being read.
#[derive(Default)]
struct Current {
    region: u32,
    begin: u64,
    /// Index of its first event (for messages).
    event: usize,
    sends: Vec<(u32, u32, u32, u64)>,
    recvs: Vec<(u32, u32, u32, u64)>,
    isend: Option<(u32, u32, u32, u64, u64)>,
    irecv_request: Option<u64>,
    /// (request, source or None for a send, comm, tag, bytes)
    completions: Vec<(u64, Option<Msg>)>,
    coll_end: Option<(u8, u32, u32, u64, u64, Option<u64>)>,
    /// The communicator a CommCreate or CommDestroy event named (OTF2 3.0).
    comm_event: Option<u32>,
    /// The call's one-sided events, in order.
    rma: Vec<Ev>,
}

/// Why a rank's calls cannot be converted (the caller pairs it with the event it is about).
/// `name` is the MPI call's region name.
#[derive(Debug, thiserror::Error)]
enum ConvError {
    #[error(
        "rank {rank} is in neither group of intercommunicator {comm} (a group of OTF2's COMM_SELF type, which \
         names no rank, or a damaged definition)"
    )]
    NeitherGroup { rank: u32, comm: u32 },
    #[error("intercommunicator {0}: its other group is OTF2's COMM_SELF group, which does not name its rank")]
    SelfGroupRemote(u32),
    #[error("communicator {0} is not in the definitions")]
    UnknownComm(u32),
    #[error("{0} after MPI_Finalize (only calls without communication, such as MPI_Finalized, may follow it)")]
    AfterFinalize(String),
    #[error("{name}: times go backwards ({begin} ns after a call that ended at {last} ns)")]
    TimesBackwards { name: String, begin: u64, last: u64 },
    #[error("region {0:?} is no MPI function psins knows")]
    UnknownRegion(String),
    #[error("{0}: nonblocking collectives cannot be imported")]
    NonblockingColl(String),
    #[error("{name}: unknown collective operation {op}")]
    UnknownCollective { name: String, op: u8 },
    #[error(
        "{name}: the root is MPI_ROOT or MPI_PROC_NULL, which only an intercommunicator's collective has, on \
         intra-communicator {comm}"
    )]
    RootOnIntra { name: String, comm: u32 },
    #[error("{name}: {source}")]
    Scorep { name: String, source: super::scorep::ScorepError },
    #[error("{name}: completes request {request}, which was never started")]
    NeverStarted { name: String, request: u64 },
    #[error("MPI_Init after the first MPI call")]
    InitAfterFirst,
    #[error("{0}: a collective region without MpiCollectiveEnd")]
    CollWithoutEnd(String),
    #[error("{0}: the call's MPI event is missing")]
    EventMissing(String),
    #[error("{0}: none of its events names a window, and the rank used none before it")]
    NoWindow(String),
    #[error("{name}: window {win} is not in the definitions")]
    UnknownWindow { name: String, win: u32 },
    #[error("{name}: group {group} is not in the definitions")]
    UnknownGroup { name: String, group: u32 },
    #[error("{0}: no lock event names its target")]
    NoLockTarget(String),
    #[error("{0}: no group synchronisation event names its group")]
    NoSyncGroup(String),
}

/// A conversion failure: the message and the index of the event it is about.
pub type Bad = (String, usize);

/// The records of `rank`'s events, and what was folded.
pub fn records(model: &Model, rank: u32, evs: &[Ev]) -> Result<(Vec<Record>, Folded), Bad> {
    // A rank that calls MPI_Init (Score-P's do) starts there: calls without communication
    // before it fold (MPI_Initialized...).
    let has_init = evs.iter().any(|e| match *e {
        Ev::Enter(_, r) => model.regions.get(&r).is_some_and(|x| x.1 && calls::of(&x.0) == Some(Call::Init)),
        _ => false,
    });
    let mut c = Conv {
        has_init,
        finalized: false,
        folded: Folded::default(),
        model,
        rank,
        out: Vec::new(),
        last: None,
        depth: 0,
        cur: Current::default(),
        reqs: FxHashMap::default(),
        next_req: 1 << 31,
        instance: 0,
        irecv_at: FxHashMap::default(),
        created: Vec::new(),
        last_win: None,
        locks: FxHashMap::default(),
        rma_targets: FxHashMap::default(),
    };
    for (i, ev) in evs.iter().enumerate() {
        c.event(i, *ev)?;
    }
    if c.depth > 0 {
        return Err(("the trace ends inside an MPI call (an Enter without its Leave)".into(), evs.len()));
    }
    if c.out.is_empty() {
        // No MPI call at all (no events, or only user regions): an empty rank, as a partial
        // consolidation's killed ranks are (docs/format.md lets a task hold no records), not
        // a made-up MPI_Finalize. psins-import says which ranks are empty.
        return Ok((Vec::new(), c.folded));
    }
    if !matches!(c.out.last().map(|r| &r.op), Some(Op::Finalize)) {
        // A trace without MPI_Finalize ends at its last event.
        let end = evs.iter().map(time).max().map_or(0, |t| model.ns(t));
        let gap = end.saturating_sub(c.last.unwrap_or(end));
        c.out.push(Record::new(gap, 0, Op::Finalize));
    }
    // Made right after MPI_Init: an error is about MPI_Init's event.
    let init = evs.iter().position(
        |e| matches!(*e, Ev::Leave(_, r) if model.regions.get(&r).is_some_and(|x| calls::of(&x.0) == Some(Call::Init))),
    );
    c.add_uncreated_comms().map_err(|m| (m.to_string(), init.unwrap_or(0)))?;
    Ok((c.out, c.folded))
}

fn time(e: &Ev) -> u64 {
    match *e {
        Ev::Enter(t, _) | Ev::Leave(t, _) | Ev::Send(t, ..) | Ev::Recv(t, ..) | Ev::Isend(t, ..) | Ev::Irecv(t, ..) => {
            t
        }
        Ev::IsendComplete(t, _) | Ev::IrecvRequest(t, _) | Ev::CollBegin(t) | Ev::CollEnd(t, ..) => t,
        Ev::BufferFlush(t, _) | Ev::MeasurementOnOff(t, _) | Ev::CommCreate(t, _) | Ev::CommDestroy(t, _) => t,
        Ev::WinCreate(t, _) | Ev::WinDestroy(t, _) | Ev::RmaColl(t, _) | Ev::RmaGroupSync(t, ..) => t,
        Ev::RmaLock(t, ..) | Ev::RmaUnlock(t, ..) | Ev::RmaOp(t, ..) | Ev::RmaComplete(t, ..) => t,
    }
}

/// The rank an event names, what it is, and the communicator it is a rank of.
fn named_rank(e: &Ev) -> Option<(&'static str, u32, u32)> {
    match *e {
        Ev::Send(_, p, c, ..) | Ev::Isend(_, p, c, ..) => Some(("receiver", p, c)),
        Ev::Recv(_, p, c, ..) | Ev::Irecv(_, p, c, ..) => Some(("sender", p, c)),
        // MPI_ROOT and MPI_PROC_NULL on an intercommunicator: no rank (taken at the call).
        Ev::CollEnd(_, _, c, root, ..) if root < ROOT_THIS_GROUP => Some(("root", root, c)),
        _ => None,
    }
}

/// The event's record name in OTF2's documentation (otf2-print prints MpiSend as MPI_SEND).
pub(super) fn kind(e: &Ev) -> &'static str {
    match e {
        Ev::Enter(..) => "Enter",
        Ev::Leave(..) => "Leave",
        Ev::Send(..) => "MpiSend",
        Ev::Recv(..) => "MpiRecv",
        Ev::Isend(..) => "MpiIsend",
        Ev::Irecv(..) => "MpiIrecv",
        Ev::IsendComplete(..) => "MpiIsendComplete",
        Ev::IrecvRequest(..) => "MpiIrecvRequest",
        Ev::CollBegin(..) => "MpiCollectiveBegin",
        Ev::CollEnd(..) => "MpiCollectiveEnd",
        Ev::BufferFlush(..) => "BufferFlush",
        Ev::MeasurementOnOff(..) => "MeasurementOnOff",
        Ev::CommCreate(..) => "CommCreate",
        Ev::CommDestroy(..) => "CommDestroy",
        Ev::WinCreate(..) => "RmaWinCreate",
        Ev::WinDestroy(..) => "RmaWinDestroy",
        Ev::RmaColl(..) => "RmaCollectiveEnd",
        Ev::RmaGroupSync(..) => "RmaGroupSync",
        Ev::RmaLock(..) => "RmaRequestLock",
        Ev::RmaUnlock(..) => "RmaReleaseLock",
        Ev::RmaOp(_, RmaEv::Put, ..) => "RmaPut",
        Ev::RmaOp(_, RmaEv::Get, ..) => "RmaGet",
        Ev::RmaOp(..) => "RmaAtomic",
        Ev::RmaComplete(..) => "RmaOpComplete",
    }
}

struct Conv<'a> {
    model: &'a Model,
    rank: u32,
    out: Vec<Record>,
    /// End of the previous MPI call (ns); None before the first.
    last: Option<u64>,
    depth: u32,
    cur: Current,
    /// Live OTF2 requests → (psins id, tag, bytes of a send).
    reqs: FxHashMap<u64, (u32, i32, u64)>,
    next_req: u32,
    instance: u32,
    /// psins request → index of its Irecv record (filled in when it completes).
    irecv_at: FxHashMap<u32, usize>,
    /// Communicators this rank's events created (OTF2 ids).
    created: Vec<u32>,
    /// The rank's events enter MPI_Init's region; MPI_Finalize's record was made.
    has_init: bool,
    finalized: bool,
    folded: Folded,
    /// The window of the rank's latest one-sided event (a flush with nothing to complete
    /// names none).
    last_win: Option<u32>,
    /// Per window: the targets this rank holds locked, and whether it holds a lock_all.
    locks: FxHashMap<u32, (Vec<u32>, bool)>,
    /// One-sided operations of the open epochs (Score-P's matching id) → their window and
    /// target.
    rma_targets: FxHashMap<u64, (u32, u32)>,
}

impl Conv<'_> {
    fn event(&mut self, i: usize, ev: Ev) -> Result<(), Bad> {
        let mpi = |r: u32| self.model.regions.get(&r).is_some_and(|x| x.1);
        if let Some((what, p, c)) = named_rank(&ev) {
            // A rank outside the communicator would be written into the trace as it is: a
            // message to no one, found only at replay (if at all).
            if let Some(reach) = self.model.reach(c, self.rank) {
                if let Err(m) = reach.check(what, p) {
                    return Err((format!("{} at tick {}: {m}", kind(&ev), time(&ev)), i));
                }
            }
        }
        match ev {
            Ev::Enter(t, r) if mpi(r) => {
                if self.depth == 0 {
                    self.cur = Current { region: r, begin: self.model.ns(t), event: i, ..Current::default() };
                }
                self.depth += 1;
            }
            Ev::Leave(t, r) if mpi(r) => {
                if self.depth == 0 {
                    return Err(("a Leave of an MPI region never entered".into(), i));
                }
                self.depth -= 1;
                if self.depth == 0 {
                    if r != self.cur.region {
                        return Err(("regions left in another order than entered".into(), i));
                    }
                    // The call's first event (taken from `cur` as the call is made).
                    let at = self.cur.event;
                    self.call(self.model.ns(t)).map_err(|m| (m.to_string(), at))?;
                }
            }
            Ev::Enter(_, r) => {
                let label = self.model.labels.get(&r).map_or("regions not defined", String::as_str);
                count(&mut self.folded.other, label);
            }
            Ev::Leave(..) => {}
            // The measurement system's own (Score-P's): where they lie, inside an MPI call or
            // between calls, they are its time.
            Ev::BufferFlush(..) | Ev::MeasurementOnOff(..) => count(&mut self.folded.other, kind(&ev)),
            _ if self.depth == 0 => return Err(("an MPI event outside any MPI region".into(), i)),
            Ev::Send(_, p, c, tag, n) => self.cur.sends.push((p, c, tag, n)),
            Ev::Recv(_, p, c, tag, n) => self.cur.recvs.push((p, c, tag, n)),
            Ev::Isend(_, p, c, tag, n, q) => self.cur.isend = Some((p, c, tag, n, q)),
            Ev::IrecvRequest(_, q) => self.cur.irecv_request = Some(q),
            Ev::IsendComplete(_, q) => self.cur.completions.push((q, None)),
            Ev::Irecv(_, p, c, tag, n, q) => self.cur.completions.push((q, Some((p, c, tag, n)))),
            Ev::CollBegin(_) => {}
            Ev::CollEnd(_, op, c, root, s, r, n) => self.cur.coll_end = Some((op, c, root, s, r, n)),
            Ev::CommCreate(_, c) | Ev::CommDestroy(_, c) => self.cur.comm_event = Some(c),
            Ev::WinCreate(..) | Ev::WinDestroy(..) | Ev::RmaColl(..) | Ev::RmaGroupSync(..) => self.cur.rma.push(ev),
            Ev::RmaLock(..) | Ev::RmaUnlock(..) | Ev::RmaOp(..) | Ev::RmaComplete(..) => self.cur.rma.push(ev),
        }
        Ok(())
    }

    /// A new psins request for OTF2 request `q` (its own number when free).
    fn request(&mut self, q: u64, tag: i32, bytes: u64) -> u32 {
        let live = |id: u32, reqs: &FxHashMap<u64, (u32, i32, u64)>| reqs.values().any(|v| v.0 == id);
        let id = match u32::try_from(q) {
            Ok(id) if id != 0 && id < 1 << 31 && !live(id, &self.reqs) => id,
            _ => {
                self.next_req = self.next_req.checked_add(1).unwrap_or(1 << 31);
                self.next_req
            }
        };
        self.reqs.insert(q, (id, tag, bytes));
        id
    }

    fn comm(&self, c: u32) -> Result<u32, ConvError> {
        if !self.model.comms.contains_key(&c) {
            return Err(ConvError::UnknownComm(c));
        }
        Ok(self.model.local(c))
    }

    /// The call that ends at `end` (ns).
    fn call(&mut self, end: u64) -> Result<(), ConvError> {
        let (name, _) = self.model.regions.get(&self.cur.region).cloned().unwrap_or_default();
        let begin = self.cur.begin;
        // Before MPI_Init and after MPI_Finalize, MPI allows calls without communication
        // (MPI_Initialized, MPI_Get_version, MPI_Finalized...): outside the span, folded. One
        // that communicates before MPI_Init is refused at MPI_Init ("after the first MPI
        // call"), after MPI_Finalize here.
        let before = self.last.is_none() && self.has_init && calls::of(&name) != Some(Call::Init);
        if before || self.finalized {
            let c = &self.cur;
            let events = !c.sends.is_empty()
                || !c.recvs.is_empty()
                || c.isend.is_some()
                || c.irecv_request.is_some()
                || !c.completions.is_empty()
                || c.coll_end.is_some();
            if calls::local(&name) && !events {
                *self.folded.calls.entry(name).or_default() += 1;
                self.cur = Current::default();
                return Ok(());
            }
            if self.finalized {
                return Err(ConvError::AfterFinalize(name));
            }
        }
        if self.last.is_none() {
            // The span starts when MPI_Init returns; a trace without MPI_Init starts at its
            // first MPI call.
            self.out.push(Record::new(0, 0, Op::Init { thread_level: 0 }));
            if calls::of(&name) == Some(Call::Init) {
                self.last = Some(end);
                return Ok(());
            }
            self.last = Some(begin);
        }
        let last = self.last.expect("set above");
        if begin < last || end < begin {
            return Err(ConvError::TimesBackwards { name, begin, last });
        }
        let (gap, dur) = (begin - last, end - begin);
        self.last = Some(end);
        let Some(call) = calls::of(&name) else { return Err(ConvError::UnknownRegion(name)) };
        let cur = std::mem::take(&mut self.cur);
        let mut list = Vec::new();
        let op = if let Some((op, c, root, s, r, n)) = cur.coll_end {
            // The communicator made or freed: the CommCreate or CommDestroy event's where there
            // is one (Score-P 8 then names the parent in the collective). Without it, a creation
            // on a communicator this rank already holds (the world, self, one it made) is
            // Score-P 8's that gave MPI_COMM_NULL, named on its parent; otherwise the
            // collective's communicator is the one made (or freed).
            let holds = |c: u32| {
                self.model.world_comm == Some(c) || self.model.self_comm == Some(c) || self.created.contains(&c)
            };
            let made = match cur.comm_event {
                Some(e) => e,
                None if op == CREATE_HANDLE && holds(c) => UNDEFINED,
                None => c,
            };
            match (op, call) {
                // MPI_Finalize's freeing of MPI_COMM_WORLD and MPI_COMM_SELF (Score-P 8's
                // DESTROY_HANDLE and CommDestroy events): the predefined communicators are
                // neither made nor freed in a psins trace.
                (_, Call::Finalize) => Op::Finalize,
                (_, Call::Coll { nonblocking: true }) => return Err(ConvError::NonblockingColl(name)),
                (CREATE_HANDLE, _) => {
                    let func = if let Call::CommCreate(f) = call { f } else { CommFn::Other };
                    self.create(func, made, &mut list)?
                }
                (DESTROY_HANDLE, _) => Op::CommFree { comm: self.comm(made)? },
                _ => {
                    let Some(coll) = coll_of(op) else { return Err(ConvError::UnknownCollective { name, op }) };
                    let comm = self.comm(c)?;
                    let inter = self.model.sides(c, self.rank);
                    // The tracer's roots on an intercommunicator: NO_RANK for MPI_ROOT,
                    // PROC_NULL for the root's group's other ranks.
                    let root = match root {
                        UNDEFINED => NO_RANK,
                        ROOT_SELF if inter.is_some() => NO_RANK,
                        ROOT_THIS_GROUP if inter.is_some() => PROC_NULL,
                        ROOT_SELF | ROOT_THIS_GROUP => return Err(ConvError::RootOnIntra { name, comm: c }),
                        r => r as i32,
                    };
                    self.instance += 1;
                    let size = self.model.comms.get(&c).map_or(1, |m| m.0.len().max(1)) as u64;
                    let (s, r) = if let (true, Some((_, remote))) = (self.model.scorep, inter) {
                        let local = size - remote.len() as u64;
                        super::scorep::per_rank_inter(coll, s, r, remote.len() as u64, local, root)
                            .map_err(|source| ConvError::Scorep { name: name.clone(), source })?
                    } else if self.model.scorep {
                        let me = self.model.comms.get(&c).and_then(|m| m.0.iter().position(|&w| w == self.rank));
                        let root = (root >= 0).then_some(root as u64);
                        super::scorep::per_rank(coll, s, r, size, me.unwrap_or(0) as u64, root)
                            .map_err(|source| ConvError::Scorep { name: name.clone(), source })?
                    } else {
                        (s, r)
                    };
                    // A v/w collective's counts on an intercommunicator are per remote rank.
                    list = per_peer(coll, s, r, inter.map_or(size, |(_, remote)| remote.len() as u64));
                    let (flags, req, instance) = (0, 0, self.instance);
                    // Without psins's attribute, a reduction's elements are its bytes.
                    let count = n.unwrap_or(if reduces(coll) { s } else { 0 });
                    Op::Coll { coll, comm, root, send_bytes: s, recv_bytes: r, count, flags, req, instance }
                }
            }
        } else if call.is_one_sided() {
            // psins-export writes one-sided calls as regions without events: their region
            // only, as another MPI call's, unless the archive is Score-P's.
            match (self.model.scorep || !cur.rma.is_empty(), psins_formats::functions::id_of(&name)) {
                (false, Some(func)) => Op::Other { func },
                _ => self.rma(&name, call, &cur, &mut list)?,
            }
        } else {
            self.p2p(&name, call, &cur, &mut list)?
        };
        self.finalized = matches!(op, Op::Finalize);
        let mut rec = Record::new(gap, dur, op);
        rec.list = list;
        self.out.push(rec);
        Ok(())
    }

    fn create(&mut self, func: CommFn, c: u32, list: &mut Vec<i64>) -> Result<Op, ConvError> {
        if c == UNDEFINED {
            return Ok(Op::CommCreate { func, parent: COMM_WORLD, comm: COMM_NULL, split: 0 });
        }
        let (mut members, parent) = self.model.comms.get(&c).cloned().ok_or(ConvError::UnknownComm(c))?;
        if self.model.inter.contains_key(&c) {
            let (members, split) = self.model.inter_members(c, self.rank)?;
            *list = members.iter().map(|&m| m as i64).collect();
            // The tracer names the local communicator MPI_Intercomm_create was called on;
            // OTF2 names the peer communicator. The latest communicator this rank made of
            // exactly its local group is that one, as far as the trace can tell.
            let local = &members[..split as usize];
            let made = self.created.iter().rev().find(|&&k| {
                !self.model.inter.contains_key(&k) && self.model.comms.get(&k).is_some_and(|m| m.0 == local)
            });
            let parent = match (func, made) {
                (CommFn::IntercommCreate, Some(&k)) => self.model.local(k),
                _ => parent.map_or(COMM_WORLD, |p| self.model.local(p)),
            };
            self.created.push(c);
            return Ok(Op::CommCreate { func, parent, comm: self.model.local(c), split });
        }
        if self.model.singletons.contains(&c) {
            members = vec![self.rank];
        }
        *list = members.iter().map(|&m| m as i64).collect();
        self.created.push(c);
        let parent = parent.map_or(COMM_WORLD, |p| self.model.local(p));
        Ok(Op::CommCreate { func, parent, comm: self.model.local(c), split: 0 })
    }

    fn p2p(&mut self, name: &str, call: Call, cur: &Current, list: &mut Vec<i64>) -> Result<Op, ConvError> {
        let null = (PROC_NULL as u32, UNDEFINED, 0u32, 0u64);
        let comm_of = |s: &Self, c: u32| if c == UNDEFINED { Ok(COMM_WORLD) } else { s.comm(c) };
        // Events decide over a name the table maps elsewhere (Score-P puts MpiIsend in
        // MPI_Start, for a persistent request).
        if let Some((p, c, t, n, q)) = cur.isend {
            let mode = if let Call::Isend(m) = call { m } else { SendMode::Standard };
            let req = self.request(q, t as i32, n);
            return Ok(Op::Isend { mode, peer: p as i32, tag: t as i32, bytes: n, comm: self.comm(c)?, req });
        }
        if let Some(q) = cur.irecv_request {
            let req = self.request(q, 0, 0);
            self.irecv_at.insert(req, self.out.len());
            return Ok(Op::Irecv { peer: ANY_SOURCE, tag: ANY_TAG, bytes: 0, comm: COMM_WORLD, req });
        }
        let rma_done =
            cur.rma.iter().any(|e| matches!(*e, Ev::RmaComplete(_, _, m) if self.reqs.contains_key(&rma_request(m))));
        if !cur.completions.is_empty() || rma_done || matches!(call, Call::Wait(_)) {
            for &(q, src) in &cur.completions {
                let Some((id, _, _)) = self.reqs.remove(&q) else {
                    return Err(ConvError::NeverStarted { name: name.into(), request: q });
                };
                match src {
                    // As the tracer records a send's completion: no source, tag or size.
                    None => list.extend([id as i64, NO_RANK as i64, 0, 0]),
                    Some((p, c, t, n)) => {
                        let comm = self.comm(c)?;
                        if let Some(&at) = self.irecv_at.get(&id) {
                            if let Op::Irecv { peer, tag, bytes, comm: rc, .. } = &mut self.out[at].op {
                                (*peer, *tag, *bytes, *rc) = (p as i32, t as i32, n, comm);
                            }
                            self.irecv_at.remove(&id);
                        }
                        list.extend([id as i64, p as i64, t as i64, n as i64]);
                    }
                }
            }
            // The request forms of one-sided operations this call completed (as the tracer
            // records a send's completion).
            for e in &cur.rma {
                if let Ev::RmaComplete(_, _, m) = *e {
                    if let Some((id, _, _)) = self.reqs.remove(&rma_request(m)) {
                        list.extend([id as i64, NO_RANK as i64, 0, 0]);
                    }
                }
            }
            let func = if let Call::Wait(f) = call { f } else { WaitFn::Waitall };
            let count = (list.len() / 4).max(1) as u32;
            return Ok(Op::Wait { func, count });
        }
        let s = cur.sends.first().copied().unwrap_or(null);
        let r = cur.recvs.first().copied().unwrap_or(null);
        Ok(match call {
            Call::Init => return Err(ConvError::InitAfterFirst),
            Call::Finalize => Op::Finalize,
            Call::Send(mode) if s.0 != PROC_NULL as u32 || cur.sends.is_empty() => {
                Op::Send { mode, peer: s.0 as i32, tag: s.2 as i32, bytes: s.3, comm: comm_of(self, s.1)? }
            }
            Call::Recv => Op::Recv { peer: r.0 as i32, tag: r.2 as i32, bytes: r.3, comm: comm_of(self, r.1)? },
            Call::Sendrecv(replace) => {
                let comm = comm_of(self, if s.1 != UNDEFINED { s.1 } else { r.1 })?;
                let (peer, tag, bytes) = (s.0 as i32, s.2 as i32, s.3);
                Op::Sendrecv { peer, tag, bytes, src: r.0 as i32, rtag: r.2 as i32, rbytes: r.3, comm, replace }
            }
            Call::Coll { .. } => return Err(ConvError::CollWithoutEnd(name.into())),
            Call::CommCreate(func) => Op::CommCreate { func, parent: COMM_WORLD, comm: COMM_NULL, split: 0 },
            Call::Other(func) => Op::Other { func },
            Call::CommFree => Op::Other { func: psins_formats::functions::id("MPI_Comm_free") },
            // A region the table maps to a p2p call, without its event.
            Call::Isend(_) | Call::Irecv | Call::Wait(_) | Call::Send(_) => {
                return Err(ConvError::EventMissing(name.into()))
            }
            Call::Rma(..) | Call::WinSync(_) | Call::WinCreate(_) | Call::WinFree => {
                unreachable!("one-sided calls are converted by Conv::rma")
            }
        })
    }

    /// A one-sided call (Score-P's MPI RMA events): its region says which call, its events the
    /// window, the target, the bytes, the lock and the epoch's group. Windows keep their OTF2
    /// ids (consolidation numbers them across ranks).
    fn rma(&mut self, name: &str, call: Call, cur: &Current, list: &mut Vec<i64>) -> Result<Op, ConvError> {
        let named = cur.rma.iter().find_map(|e| match *e {
            Ev::WinCreate(_, w) | Ev::WinDestroy(_, w) | Ev::RmaColl(_, w) | Ev::RmaGroupSync(_, w, ..) => Some(w),
            Ev::RmaLock(_, w, ..) | Ev::RmaUnlock(_, w, _) | Ev::RmaOp(_, _, w, ..) | Ev::RmaComplete(_, w, _) => {
                Some(w)
            }
            _ => None,
        });
        // A flush or a sync with nothing to complete writes no event: the one window the rank
        // holds a lock on, else its latest.
        let locked = || {
            let mut held = self.locks.iter().filter(|(_, (t, all))| *all || !t.is_empty()).map(|(&w, _)| w);
            held.next().filter(|_| held.next().is_none())
        };
        let win = named.or_else(locked).or(self.last_win).ok_or_else(|| ConvError::NoWindow(name.into()))?;
        self.last_win = Some(win);
        Ok(match call {
            Call::WinCreate(func) => {
                let c =
                    *self.model.windows.get(&win).ok_or_else(|| ConvError::UnknownWindow { name: name.into(), win })?;
                let comm = if c == UNDEFINED { COMM_WORLD } else { self.comm(c)? };
                Op::WinCreate { func, comm, win }
            }
            Call::WinFree => {
                self.locks.remove(&win);
                self.rma_targets.retain(|_, &mut (w, _)| w != win);
                self.last_win = None;
                Op::WinFree { win }
            }
            Call::Rma(func, request) => {
                let op = cur.rma.iter().find_map(|e| match *e {
                    Ev::RmaOp(_, what, _, p, s, r, m) => Some((what, p, s, r, m)),
                    _ => None,
                });
                // Score-P writes no operation for a target of MPI_PROC_NULL.
                let Some((what, p, s, r, m)) = op else {
                    return Ok(Op::Rma { func, target: PROC_NULL, win, bytes: 0, rbytes: 0, req: NO_REQUEST });
                };
                // Score-P counts a compare-and-swap's origin element; the tracer both the
                // origin's and the compare buffer's.
                let (bytes, rbytes) = match (func, what) {
                    (RmaFn::CompareAndSwap, _) | (_, RmaEv::CompareAndSwap) => (2 * s, r),
                    (RmaFn::Put, _) => (s, 0),
                    (RmaFn::Get, _) => (0, r),
                    _ => (s, r),
                };
                let req = if request { self.request(rma_request(m), 0, 0) } else { NO_REQUEST };
                self.rma_targets.insert(m, (win, p));
                Op::Rma { func, target: p as i32, win, bytes, rbytes, req }
            }
            Call::WinSync(func) => {
                use WinSyncFn::*;
                let (mut func, mut rank, mut flags) = (func, NO_RANK, 0u8);
                let mut grouped = false;
                let locks = self.locks.entry(win).or_default();
                for e in &cur.rma {
                    match *e {
                        Ev::RmaLock(_, _, UNDEFINED, _) => locks.1 = true,
                        Ev::RmaLock(_, _, p, excl) => {
                            // Requested, then acquired: one lock.
                            if !locks.0.contains(&p) {
                                locks.0.push(p);
                            }
                            rank = p as i32;
                            flags |= if excl { WinFlags::EXCLUSIVE } else { 0 };
                        }
                        Ev::RmaUnlock(_, _, UNDEFINED) => locks.1 = false,
                        Ev::RmaUnlock(_, _, p) => {
                            locks.0.retain(|&x| x != p);
                            rank = p as i32;
                        }
                        Ev::RmaGroupSync(_, _, g, synced) => {
                            grouped = true;
                            if matches!(func, Post | Start) {
                                let m = self
                                    .model
                                    .groups
                                    .get(&g)
                                    .ok_or_else(|| ConvError::UnknownGroup { name: name.into(), group: g })?;
                                *list = m.iter().map(|&m| m as i64).collect();
                            }
                            if func == Test && synced {
                                flags |= WinFlags::DONE;
                            }
                        }
                        _ => {}
                    }
                }
                if matches!(func, Flush | FlushLocal) {
                    // Score-P names no target: the one the completed operations went to, else
                    // the one target the rank holds locked; failing both, every target.
                    let done: Vec<u32> = cur
                        .rma
                        .iter()
                        .filter_map(|e| match *e {
                            Ev::RmaComplete(_, _, m) => self.rma_targets.get(&m).map(|t| t.1),
                            _ => None,
                        })
                        .collect();
                    let one = match (done.first(), &locks.0[..]) {
                        (Some(&t), _) if done.iter().all(|&x| x == t) => Some(t),
                        (None, &[t]) if !locks.1 => Some(t),
                        _ => None,
                    };
                    match one {
                        Some(t) => rank = t as i32,
                        None => func = if func == Flush { FlushAll } else { FlushLocalAll },
                    }
                }
                if matches!(func, Lock | Unlock) && rank == NO_RANK {
                    return Err(ConvError::NoLockTarget(name.into()));
                }
                if matches!(func, Post | Start) && !grouped {
                    return Err(ConvError::NoSyncGroup(name.into()));
                }
                // An epoch's end completes its operations: their targets are no longer needed.
                match func {
                    Unlock => self.rma_targets.retain(|_, &mut (w, t)| w != win || t as i32 != rank),
                    UnlockAll | Complete | Wait | Fence => self.rma_targets.retain(|_, &mut (w, _)| w != win),
                    _ => {}
                }
                Op::WinSync { func, win, rank, flags }
            }
            _ => unreachable!("called for one-sided calls only"),
        })
    }

    /// Communicators this rank belongs to that no event of its created (a trace without
    /// create-handle collectives): made right after MPI_Init, in definition order.
    fn add_uncreated_comms(&mut self) -> Result<(), ConvError> {
        let mut ids: Vec<u32> = self.model.comms.keys().copied().collect();
        ids.sort_unstable();
        let mut at = 1.min(self.out.len());
        for c in ids {
            if Some(c) == self.model.world_comm || Some(c) == self.model.self_comm || self.created.contains(&c) {
                continue;
            }
            let (members, parent) = &self.model.comms[&c];
            if !members.contains(&self.rank) {
                continue;
            }
            let parent = parent.map_or(COMM_WORLD, |p| self.model.local(p));
            let (members, split) = match self.model.inter.contains_key(&c) {
                true => self.model.inter_members(c, self.rank)?,
                false => (members.clone(), 0),
            };
            let op = Op::CommCreate { func: CommFn::Other, parent, comm: self.model.local(c), split };
            let rec = Record::new(0, 0, op).with_list(members.iter().map(|&m| m as i64).collect());
            self.out.insert(at, rec);
            at += 1;
        }
        Ok(())
    }
}

/// The key of a one-sided request form's request among the OTF2 requests (Score-P's matching
/// ids are numbered apart from its requests).
fn rma_request(matching: u64) -> u64 {
    1 << 63 | matching
}

/// One more `what` in `m` (a compiler-instrumented trace enters millions of regions: no
/// allocation but the first time).
fn count(m: &mut BTreeMap<String, u64>, what: &str) {
    match m.get_mut(what) {
        Some(n) => *n += 1,
        None => {
            m.insert(what.to_string(), 1);
        }
    }
}

/// Per-peer counts of a v/w collective, which OTF2 does not keep: the totals spread evenly
/// (the first peers get the remainder). Empty for the others.
fn per_peer(coll: Coll, sent: u64, received: u64, size: u64) -> Vec<i64> {
    let spread = |total: u64| (0..size).map(move |i| (total / size + u64::from(i < total % size)) as i64);
    match coll {
        Coll::Gatherv => spread(received).collect(),
        Coll::Scatterv => spread(sent).collect(),
        Coll::Allgatherv | Coll::ReduceScatter => spread(received).collect(),
        Coll::Alltoallv | Coll::Alltoallw => spread(sent).chain(spread(received)).collect(),
        _ => Vec::new(),
    }
}

fn reduces(c: Coll) -> bool {
    matches!(
        c,
        Coll::Reduce | Coll::Allreduce | Coll::ReduceScatter | Coll::ReduceScatterBlock | Coll::Scan | Coll::Exscan
    )
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A one-sided call whose events name no window, on a rank that used none before (a flush
    /// with nothing to complete, as its first one-sided call), a lock without its event and a
    /// post without its group: one error each, naming the call.
    #[test]
    fn a_one_sided_call_without_its_window_or_target_is_refused() {
        let mut m = model(Vec::new());
        m.regions = FxHashMap::from_iter([
            (1, ("MPI_Init".to_string(), true)),
            (2, ("MPI_Win_flush".to_string(), true)),
            (3, ("MPI_Win_lock".to_string(), true)),
        ]);
        let call = |r: u32, t: u64| [Ev::Enter(t, r), Ev::Leave(t + 1, r)];
        let evs: Vec<Ev> = [call(1, 0), call(2, 10)].concat();
        let (e, at) = records(&m, 0, &evs).unwrap_err();
        assert_eq!(
            (e.as_str(), at),
            ("MPI_Win_flush: none of its events names a window, and the rank used none before it", 2)
        );
        let evs: Vec<Ev> =
            [&call(1, 0)[..], &[Ev::Enter(10, 3), Ev::RmaGroupSync(10, 5, 0, true), Ev::Leave(11, 3)]].concat();
        let (e, _) = records(&m, 0, &evs).unwrap_err();
        assert_eq!(e, "MPI_Win_lock: no lock event names its target");
        m.regions.insert(4, ("MPI_Win_post".to_string(), true));
        let evs: Vec<Ev> = [&call(1, 0)[..], &[Ev::Enter(10, 4), Ev::RmaComplete(10, 5, 1), Ev::Leave(11, 4)]].concat();
        let (e, _) = records(&m, 0, &evs).unwrap_err();
        assert_eq!(e, "MPI_Win_post: no group synchronisation event names its group");
    }

    /// Four ranks; communicator 1 the world, 3 an intercommunicator of {0, 3} and `b`.
    pub(in crate::otf2) fn model(b: Vec<u32>) -> Model {
        Model {
            regions: FxHashMap::default(),
            comms: HashMap::from([(3, ([0, 3].into_iter().chain(b).collect(), Some(1)))]),
            inter: HashMap::from([(3, 2)]),
            windows: HashMap::new(),
            groups: HashMap::new(),
            world: 4,
            world_comm: Some(1),
            self_comm: None,
            resolution: 1,
            offset: 0,
            count_attr: None,
            labels: HashMap::new(),
            scorep: true,
            singletons: Default::default(),
        }
    }

    /// An intercommunicator of groups {0, 3} and {2, 1}: each rank's local group is the one
    /// holding it. A group of OTF2's COMM_SELF type lists no member: a rank of the other
    /// group has no remote rank to name, and a rank of neither group is in neither.
    #[test]
    fn an_intercommunicators_sides_are_each_ranks_own() {
        let m = model(vec![2, 1]);
        assert_eq!(m.inter_members(3, 3).unwrap(), (vec![0, 3, 2, 1], 2));
        assert_eq!(m.inter_members(3, 1).unwrap(), (vec![2, 1, 0, 3], 2));
        assert_eq!(m.reach(3, 1), Some(Reach { comm: 3, peers: 2, inter: true }));
        let m = model(Vec::new());
        let e = m.inter_members(3, 0).unwrap_err().to_string();
        assert!(e.contains("other group is OTF2's COMM_SELF group"), "{e}");
        let e = m.inter_members(3, 2).unwrap_err().to_string();
        assert!(e.contains("rank 2 is in neither group of intercommunicator 3"), "{e}");
        // Made for its members after MPI_Init when no event creates it: refused the same way.
        let mut m = m;
        m.regions = FxHashMap::from_iter([(1, ("MPI_Init".to_string(), true))]);
        let (e, _) = records(&m, 3, &[Ev::Enter(0, 1), Ev::Leave(1, 1)]).unwrap_err();
        assert!(e.contains("other group is OTF2's COMM_SELF group"), "{e}");
    }
}
