//! The event vocabulary: one [`Record`] per MPI call (plus expansion sub-records).
//!
//! A record is a fixed-size [`Op`] (cheap to copy, no heap) and a side list of integers for
//! the few kinds whose payload has variable length (request lists, member lists, per-peer
//! byte counts). Keeping the list outside the enum lets readers decode millions of records
//! into one reused `Record` without allocating, and lets the tracer build records on its
//! intercepted path without touching the allocator once the list has grown to its working size.
//!
//! The codes here are also the tracer's C side: the tracer's build script writes them into
//! the C header `psins_ev.h` through `psins-shim-gen` (a new `Kind` or enum variant reaches
//! the shim by itself; see `shim-gen/src/boundary.rs`). psins-formats re-exports this module.

/// Communicator-local rank sentinels (the tracer maps MPI's own constants to these).
pub const ANY_SOURCE: i32 = -1;
pub const PROC_NULL: i32 = -2;
/// "No rank applies", e.g. the source of a completed send request.
pub const NO_RANK: i32 = -3;
pub const ANY_TAG: i32 = -1;

/// Communicator ids 0 and 1 are fixed in every file; others are assigned by the writer.
pub const COMM_WORLD: u32 = 0;
pub const COMM_SELF: u32 = 1;
/// The `comm` of a [`Op::CommCreate`] whose result was `MPI_COMM_NULL` on this rank (it took
/// part in the collective construction without becoming a member); its list is empty.
pub const COMM_NULL: u32 = u32::MAX;
/// Request id 0 means "no request" (blocking call).
pub const NO_REQUEST: u32 = 0;

macro_rules! code_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $val:expr),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum $name { $($(#[$vm])* $var = $val),+ }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$var),+];
            pub fn from_code(c: u8) -> Option<Self> {
                match c { $($val => Some($name::$var),)+ _ => None }
            }
            pub fn code(self) -> u8 { self as u8 }
            pub fn name(self) -> &'static str {
                match self { $($name::$var => stringify!($var)),+ }
            }
        }
    };
}

code_enum!(
    /// Send mode of a send-type call.
    SendMode { Standard = 0, Synchronous = 1, Ready = 2, Buffered = 3 }
);

code_enum!(
    /// The completion calls.
    WaitFn { Wait = 0, Waitall = 1, Waitany = 2, Waitsome = 3, Test = 4, Testall = 5, Testany = 6, Testsome = 7 }
);

code_enum!(
    /// Collective operations (blocking; the nonblocking twin sets [`CollFlags::NONBLOCKING`]).
    Coll {
        Barrier = 0, Bcast = 1, Reduce = 2, Allreduce = 3, Gather = 4, Gatherv = 5,
        Scatter = 6, Scatterv = 7, Allgather = 8, Allgatherv = 9, Alltoall = 10,
        Alltoallv = 11, Alltoallw = 12, ReduceScatter = 13, ReduceScatterBlock = 14,
        Scan = 15, Exscan = 16, NeighborAllgather = 17, NeighborAllgatherv = 18,
        NeighborAlltoall = 19, NeighborAlltoallv = 20, NeighborAlltoallw = 21,
    }
);

code_enum!(
    /// Communicator constructors.
    CommFn {
        Dup = 0, Split = 1, SplitType = 2, Create = 3, CreateGroup = 4, CartCreate = 5,
        CartSub = 6, GraphCreate = 7, DistGraphCreate = 8, DistGraphCreateAdjacent = 9,
        IntercommCreate = 10, IntercommMerge = 11, Idup = 12, Other = 13,
    }
);

code_enum!(
    /// What one expansion step does: a blocking send, receive or both at once (0..=2), or a
    /// batch member (3..=5, format version 3): a nonblocking send or receive, completed by
    /// the next `WaitAll`, which waits for every one posted since the previous `WaitAll`.
    StepOp { Send = 0, Recv = 1, SendRecv = 2, ISend = 3, IRecv = 4, WaitAll = 5 }
);

code_enum!(
    /// One-sided communication calls ([`Op::Rma`]); the request forms (MPI_Rput, MPI_Rget,
    /// MPI_Raccumulate, MPI_Rget_accumulate) are these with a request id.
    RmaFn { Put = 0, Get = 1, Accumulate = 2, GetAccumulate = 3, FetchAndOp = 4, CompareAndSwap = 5 }
);

code_enum!(
    /// Window synchronisation calls ([`Op::WinSync`]).
    WinSyncFn {
        Fence = 0, Post = 1, Start = 2, Complete = 3, Wait = 4, Test = 5, Lock = 6, Unlock = 7,
        LockAll = 8, UnlockAll = 9, Flush = 10, FlushAll = 11, FlushLocal = 12, FlushLocalAll = 13,
        Sync = 14,
    }
);

code_enum!(
    /// Window constructors ([`Op::WinCreate`]).
    WinFn { Create = 0, Allocate = 1, AllocateShared = 2, CreateDynamic = 3 }
);

code_enum!(
    /// The polling calls a `poll` record folds ([`Op::Poll`]).
    PollFn { Test = 0, Testall = 1, Testany = 2, Testsome = 3, Iprobe = 4, Improbe = 5 }
);

impl PollFn {
    /// MPI_Iprobe / MPI_Improbe (their record has a source, tag and communicator).
    pub fn is_probe(self) -> bool {
        matches!(self, PollFn::Iprobe | PollFn::Improbe)
    }
}

/// Bits of [`Op::WinSync::flags`].
pub struct WinFlags;
impl WinFlags {
    /// MPI_Win_lock with MPI_LOCK_EXCLUSIVE.
    pub const EXCLUSIVE: u8 = 1;
    /// MPI_Win_test returned true (the exposure epoch ended).
    pub const DONE: u8 = 2;
    pub const ALL: u8 = 3;
}

/// Bits of [`Op::Coll::flags`].
pub struct CollFlags;
impl CollFlags {
    pub const NONBLOCKING: u8 = 1;
    pub const IN_PLACE: u8 = 2;
    pub const OP_BUILTIN: u8 = 4;
    pub const OP_COMMUTATIVE: u8 = 8;
    pub const ALL: u8 = 15;
}

/// Bits of [`Op::Probe::flags`].
pub struct ProbeFlags;
impl ProbeFlags {
    /// MPI_Probe / MPI_Mprobe (as opposed to the I-variants).
    pub const BLOCKING: u8 = 1;
    /// A message was found (always set for blocking probes); peer/tag/bytes are then actual.
    pub const FOUND: u8 = 2;
    /// A matched probe (MPI_Mprobe/Improbe): the message is removed from the queue.
    pub const MATCHED: u8 = 4;
    pub const ALL: u8 = 7;
}

/// One MPI call (or one step of a collective's expansion).
///
/// Peers are communicator-local ranks in `comm`; `bytes` are real byte counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Init {
        thread_level: u8,
    },
    Finalize,
    Abort {
        code: i32,
    },
    /// Blocking send of any mode.
    Send {
        mode: SendMode,
        peer: i32,
        tag: i32,
        bytes: u64,
        comm: u32,
    },
    Isend {
        mode: SendMode,
        peer: i32,
        tag: i32,
        bytes: u64,
        comm: u32,
        req: u32,
    },
    SendInit {
        mode: SendMode,
        peer: i32,
        tag: i32,
        bytes: u64,
        comm: u32,
        req: u32,
    },
    /// Blocking receive (also MPI_Mrecv): the **actual** source, tag and byte count.
    Recv {
        peer: i32,
        tag: i32,
        bytes: u64,
        comm: u32,
    },
    /// Nonblocking receive as posted (wildcards allowed; `bytes` = buffer capacity);
    /// the actual source/tag/bytes come with its completion in [`Op::Wait`].
    Irecv {
        peer: i32,
        tag: i32,
        bytes: u64,
        comm: u32,
        req: u32,
    },
    RecvInit {
        peer: i32,
        tag: i32,
        bytes: u64,
        comm: u32,
        req: u32,
    },
    /// Sendrecv(_replace): destination side, then the actual source side.
    Sendrecv {
        peer: i32,
        tag: i32,
        bytes: u64,
        src: i32,
        rtag: i32,
        rbytes: u64,
        comm: u32,
        replace: bool,
    },
    /// Probe/Iprobe/Mprobe/Improbe; see [`ProbeFlags`].
    Probe {
        peer: i32,
        tag: i32,
        bytes: u64,
        comm: u32,
        flags: u8,
    },
    /// Start of one persistent request.
    Start {
        req: u32,
    },
    /// Startall: the requests are in the record's list.
    Startall,
    RequestFree {
        req: u32,
    },
    Cancel {
        req: u32,
    },
    /// Completion call over `count` requests. The list holds one quadruple
    /// `[req, source, tag, bytes]` per completed request, in completion order
    /// (`source` = [`NO_RANK`] for sends and nonblocking collectives).
    Wait {
        func: WaitFn,
        count: u32,
    },
    /// Collective. `root` is comm-local ([`NO_RANK`] where none). The list holds per-peer byte
    /// counts for the v/w variants: gatherv/scatterv/allgatherv/reduce_scatter one per rank;
    /// alltoallv/w the send counts then the receive counts (2 × size). `count` is the element
    /// count of reductions (the algorithm choice depends on it); `instance` numbers this
    /// rank's collectives from 1 so that expansion steps can name theirs.
    Coll {
        coll: Coll,
        comm: u32,
        root: i32,
        send_bytes: u64,
        recv_bytes: u64,
        count: u64,
        flags: u8,
        req: u32,
        instance: u32,
    },
    /// One point-to-point step of collective `instance`'s expansion (peers comm-local in that
    /// collective's communicator). `peer2`/`bytes2` are the receive side of a SendRecv step;
    /// a WaitAll has no peer ([`NO_RANK`]) and no bytes.
    Step {
        instance: u32,
        op: StepOp,
        peer: i32,
        bytes: u64,
        peer2: i32,
        bytes2: u64,
    },
    /// A new communicator `comm` made from `parent`; the list holds its members as world
    /// ranks, in comm-rank order. For an intercommunicator `split` is the size of the
    /// creating rank's local group, the first `split` entries; its remote group follows
    /// (members outside the world, e.g. spawned processes, are [`NO_RANK`]). 0 for an
    /// intra-communicator.
    CommCreate {
        func: CommFn,
        parent: u32,
        comm: u32,
        split: u32,
    },
    CommFree {
        comm: u32,
    },
    /// Any other MPI function that can take time, by its id in `docs/coverage.md`.
    Other {
        func: u32,
    },
    /// A one-sided operation on window `win` to `target` (a rank of the window's
    /// communicator, or [`PROC_NULL`]): `bytes` travel origin → target (origin count × type
    /// size; 0 for a get), `rbytes` target → origin (a get's data, the result of the fetching
    /// kinds). `req` is the request of the R-forms, [`NO_REQUEST`] otherwise.
    Rma {
        func: RmaFn,
        target: i32,
        win: u32,
        bytes: u64,
        rbytes: u64,
        req: u32,
    },
    /// A synchronisation call on window `win`. `rank`: the target of lock, unlock, flush and
    /// flush_local (a rank of the window's communicator), [`NO_RANK`] otherwise. The list of a
    /// post or start holds its group's members as world ranks.
    WinSync {
        func: WinSyncFn,
        win: u32,
        rank: i32,
        flags: u8,
    },
    /// Window `win` created over communicator `comm` (collective over its members).
    WinCreate {
        func: WinFn,
        comm: u32,
        win: u32,
    },
    WinFree {
        win: u32,
    },
    /// `calls` unsuccessful polls in a row, all the same call (format version 4): tests that
    /// completed nothing (`func` Test…Testsome, `count` requests passed to each) or
    /// MPI_Iprobe/MPI_Improbe calls that found nothing (`peer`, `tag`, `comm` as posted).
    /// The record's `gap_ns` is the CPU burst before the first call, its `dur_ns` the time
    /// inside all of them, `between_ns` the computation between them (the gaps of the second
    /// to the last call): the first call's entry to the last one's exit is
    /// `dur_ns + between_ns`; `min_gap_ns` is the shortest of those gaps (0 for one call):
    /// what a reader estimating the tracer's own cost per call from the smallest gaps needs.
    /// The unused fields are [`NO_RANK`], 0 and 0.
    Poll {
        func: PollFn,
        calls: u64,
        between_ns: u64,
        min_gap_ns: u64,
        count: u32,
        peer: i32,
        tag: i32,
        comm: u32,
    },
    /// MPI_Pcontrol(`level`) (format version 4): region markers. The program's own
    /// convention (MPI: 0 profiling off, 1 on, 2 more detail; IPM: ±1 enter/leave); the
    /// tracer pauses at level 0 and resumes at 1 and above.
    Pcontrol {
        level: i32,
    },
    /// A call that returned a request the trace does not model (format version 5): MPI-IO's
    /// nonblocking reads and writes, generalized requests (`MPI_Grequest_start`),
    /// `MPI_Comm_idup`, persistent collectives and partitioned point-to-point (`persistent`:
    /// `MPI_Start` activates it). `func` is the function id, as in [`Op::Other`]; the request
    /// is completed in a `wait` like any other, and nothing else waits for it.
    OtherReq {
        func: u32,
        req: u32,
        persistent: bool,
    },
}

/// Defines [`Kind`] from its one list: each variant's code and file-format name.
macro_rules! kinds {
    ($($var:ident = $code:literal $name:literal),+ $(,)?) => {
        /// The record kinds, one code each in both file formats.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Kind {
            $($var = $code),+
        }

        impl Kind {
            pub const COUNT: usize = [$(Kind::$var),+].len();
            pub const ALL: [Kind; Kind::COUNT] = [$(Kind::$var),+];
            /// The kind of code `c`, as the file formats store it.
            #[inline]
            pub fn from_code(c: u8) -> Option<Kind> {
                Kind::from_u32(c as u32)
            }
            /// The kind of code `c` as the tracer's C side passes it (`psins_ev.kind`). A
            /// `match`, not a look-up in [`Kind::ALL`]: the codes being 0..COUNT (asserted
            /// below), the compiler makes it one range check, and a `match` on its result one
            /// jump table on the code (the tracer's per-call path relies on that).
            #[inline]
            pub fn from_u32(c: u32) -> Option<Kind> {
                match c {
                    $($code => Some(Kind::$var),)+
                    _ => None,
                }
            }
            pub fn name(self) -> &'static str {
                match self {
                    $(Kind::$var => $name),+
                }
            }
        }
    };
}

kinds!(
    Init = 0 "init",
    Finalize = 1 "finalize",
    Abort = 2 "abort",
    Send = 3 "send",
    Isend = 4 "isend",
    SendInit = 5 "send_init",
    Recv = 6 "recv",
    Irecv = 7 "irecv",
    RecvInit = 8 "recv_init",
    Sendrecv = 9 "sendrecv",
    Probe = 10 "probe",
    Start = 11 "start",
    Startall = 12 "startall",
    RequestFree = 13 "request_free",
    Cancel = 14 "cancel",
    Wait = 15 "wait",
    Coll = 16 "coll",
    Step = 17 "step",
    CommCreate = 18 "comm_create",
    CommFree = 19 "comm_free",
    Other = 20 "other",
    Rma = 21 "rma",
    WinSync = 22 "win_sync",
    WinCreate = 23 "win_create",
    WinFree = 24 "win_free",
    Poll = 25 "poll",
    Pcontrol = 26 "pcontrol",
    OtherReq = 27 "other_req",
);

// The codes are 0..COUNT in order: both file formats and `from_u32` rely on it.
const _: () = {
    let mut i = 0;
    while i < Kind::COUNT {
        assert!(Kind::ALL[i] as usize == i, "Kind codes must be 0..COUNT in order");
        i += 1;
    }
};

impl Kind {
    /// Whether records of this kind carry a list.
    pub fn has_list(self) -> bool {
        matches!(self, Kind::Startall | Kind::Wait | Kind::Coll | Kind::CommCreate | Kind::WinSync)
    }
}

impl Op {
    /// Whether the record is an MPI call of its own, as every view counts and draws calls:
    /// not an expansion step (MPICH's message inside its collective, which the collective's
    /// call shows) nor the `comm_create` an `MPI_Comm_idup` writes after its `other_req`
    /// record (the call itself; docs/format.md).
    pub fn is_call(&self) -> bool {
        !matches!(self, Op::Step { .. } | Op::CommCreate { func: CommFn::Idup, .. })
    }

    pub fn kind(&self) -> Kind {
        match self {
            Op::Init { .. } => Kind::Init,
            Op::Finalize => Kind::Finalize,
            Op::Abort { .. } => Kind::Abort,
            Op::Send { .. } => Kind::Send,
            Op::Isend { .. } => Kind::Isend,
            Op::SendInit { .. } => Kind::SendInit,
            Op::Recv { .. } => Kind::Recv,
            Op::Irecv { .. } => Kind::Irecv,
            Op::RecvInit { .. } => Kind::RecvInit,
            Op::Sendrecv { .. } => Kind::Sendrecv,
            Op::Probe { .. } => Kind::Probe,
            Op::Start { .. } => Kind::Start,
            Op::Startall => Kind::Startall,
            Op::RequestFree { .. } => Kind::RequestFree,
            Op::Cancel { .. } => Kind::Cancel,
            Op::Wait { .. } => Kind::Wait,
            Op::Coll { .. } => Kind::Coll,
            Op::Step { .. } => Kind::Step,
            Op::CommCreate { .. } => Kind::CommCreate,
            Op::CommFree { .. } => Kind::CommFree,
            Op::Other { .. } => Kind::Other,
            Op::Rma { .. } => Kind::Rma,
            Op::WinSync { .. } => Kind::WinSync,
            Op::WinCreate { .. } => Kind::WinCreate,
            Op::WinFree { .. } => Kind::WinFree,
            Op::Poll { .. } => Kind::Poll,
            Op::Pcontrol { .. } => Kind::Pcontrol,
            Op::OtherReq { .. } => Kind::OtherReq,
        }
    }

    /// A `poll` record as what it folds: one call's record and how many calls there were.
    pub fn unfold_poll(&self) -> Option<(Op, u64)> {
        let Op::Poll { func, calls, count, peer, tag, comm, .. } = *self else { return None };
        let one = match func {
            PollFn::Iprobe => Op::Probe { peer, tag, bytes: 0, comm, flags: 0 },
            PollFn::Improbe => Op::Probe { peer, tag, bytes: 0, comm, flags: ProbeFlags::MATCHED },
            PollFn::Test => Op::Wait { func: WaitFn::Test, count },
            PollFn::Testall => Op::Wait { func: WaitFn::Testall, count },
            PollFn::Testany => Op::Wait { func: WaitFn::Testany, count },
            PollFn::Testsome => Op::Wait { func: WaitFn::Testsome, count },
        };
        Some((one, calls))
    }

    /// The communicator a record's peers are relative to, if it has peers.
    pub fn comm(&self) -> Option<u32> {
        let mut op = *self;
        op.comm_mut().map(|c| *c)
    }

    /// [`Op::comm`], for rewriting communicator ids.
    pub fn comm_mut(&mut self) -> Option<&mut u32> {
        match self {
            Op::Send { comm, .. }
            | Op::Isend { comm, .. }
            | Op::SendInit { comm, .. }
            | Op::Recv { comm, .. }
            | Op::Irecv { comm, .. }
            | Op::RecvInit { comm, .. }
            | Op::Sendrecv { comm, .. }
            | Op::Probe { comm, .. }
            | Op::Coll { comm, .. }
            | Op::WinCreate { comm, .. } => Some(comm),
            Op::Poll { func, comm, .. } if func.is_probe() => Some(comm),
            _ => None,
        }
    }
}

/// One record: the call, its timing, and its list (empty for kinds without one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// CPU burst: ns since the previous MPI call of this rank returned.
    pub gap_ns: u64,
    /// ns spent inside the call (0 for expansion steps).
    pub dur_ns: u64,
    pub op: Op,
    pub list: Vec<i64>,
}

impl Default for Record {
    fn default() -> Self {
        Record { gap_ns: 0, dur_ns: 0, op: Op::Finalize, list: Vec::new() }
    }
}

/// A record on its rank's measured clock ([`Record::place`]), ns since the rank's MPI_Init
/// returned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    /// The computation before the call: [burst.0, burst.1).
    pub burst: (u64, u64),
    /// The call, [call.0, call.1); the next record's burst begins at its end. MPI_Init's is
    /// empty at 0 (its time is before the run: launch and clock alignment), MPI_Finalize's
    /// empty at its entry (the run ends there), an expansion step's empty.
    pub call: (u64, u64),
}

impl Record {
    /// What this record adds to its rank's measured span and MPI time, in ns: (gap, duration).
    /// The span runs from MPI_Init's return to MPI_Finalize's entry: Init's gap is launch skew
    /// and its duration the clock alignment, Finalize's duration is after the run, expansion
    /// steps carry no time of their own; a `poll` record's gap is its burst plus the
    /// computation between its calls. (psins-sim's "measured" and psins-dump --profile.)
    #[inline]
    pub fn span_part(&self) -> (u64, u64) {
        match self.op {
            Op::Init { .. } | Op::Step { .. } => (0, 0),
            Op::Finalize => (self.gap_ns, 0),
            Op::Poll { between_ns, .. } => (self.gap_ns.saturating_add(between_ns), self.dur_ns),
            _ => (self.gap_ns, self.dur_ns),
        }
    }

    /// Where this record sits on its rank's measured clock, its burst beginning at `now`
    /// (where the previous record's call ended; 0 for the first). The one layout of a measured
    /// run every view uses (the Paraver and OTF2 exports, `psins-dump --timeline`), as
    /// docs/format.md defines it: time 0 is the rank's MPI_Init return, records follow end
    /// to end by [`Record::span_part`], and a `poll` record's call is its run, first call's
    /// entry to last call's exit, with the computation between its calls inside.
    #[inline]
    pub fn place(&self, now: u64) -> Placement {
        let (gap, dur) = self.span_part();
        let inside = if let Op::Poll { between_ns, .. } = self.op { between_ns.min(gap) } else { 0 };
        let begin = now.saturating_add(gap - inside);
        Placement { burst: (now, begin), call: (begin, now.saturating_add(gap).saturating_add(dur)) }
    }

    pub fn new(gap_ns: u64, dur_ns: u64, op: Op) -> Record {
        Record { gap_ns, dur_ns, op, list: Vec::new() }
    }
    pub fn with_list(mut self, list: Vec<i64>) -> Record {
        self.list = list;
        self
    }
    pub fn kind(&self) -> Kind {
        self.op.kind()
    }
}

#[cfg(test)]
mod place_tests {
    use super::*;

    /// Init at 0 whatever its times; a send after a 7 ns burst; a poll run of 3 calls with
    /// 5 ns between them after a 2 ns burst (gap 2, between 5, duration 4): the run is
    /// [9 + 2, 9 + 2 + 5 + 4); Finalize ends the run at its entry.
    #[test]
    fn one_layout() {
        let init = Record::new(100, 50, Op::Init { thread_level: 0 });
        assert_eq!(init.place(0), Placement { burst: (0, 0), call: (0, 0) });
        let send = Record::new(7, 2, Op::Send { mode: SendMode::Standard, peer: 1, tag: 0, bytes: 8, comm: 0 });
        assert_eq!(send.place(0), Placement { burst: (0, 7), call: (7, 9) });
        let poll =
            Op::Poll { func: PollFn::Test, calls: 3, between_ns: 5, min_gap_ns: 1, count: 1, peer: 0, tag: 0, comm: 0 };
        assert_eq!(Record::new(2, 4, poll).place(9), Placement { burst: (9, 11), call: (11, 20) });
        assert_eq!(Record::new(3, 40, Op::Finalize).place(20), Placement { burst: (20, 23), call: (23, 23) });
    }
}
