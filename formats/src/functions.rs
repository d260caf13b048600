//! The MPI functions by id, from `c-headers/mpi_functions.tbl` (written by `build.rs`): the
//! ids the tracer's wrappers record (`Op::Other::func`, the tracer's per-function counts) and
//! the names readers print them with. Ids are stable: the table never renumbers.

include!(concat!(env!("OUT_DIR"), "/functions.rs"));

/// The name of function `id`, if the table has one.
pub fn name_of(id: u32) -> Option<&'static str> {
    NAMES.get(id as usize).copied().filter(|n| !n.is_empty())
}

/// The id of the function named `name`. A `const fn`, so that a name missing from the table
/// is a compile-time error where a constant is looked up.
pub const fn id_of(name: &str) -> Option<u32> {
    let mut i = 0;
    while i < FUNCTIONS.len() {
        if eq(FUNCTIONS[i].1.as_bytes(), name.as_bytes()) {
            return Some(FUNCTIONS[i].0);
        }
        i += 1;
    }
    None
}

/// [`id_of`] of a name that must be in the table (a compile-time error in a constant if not).
pub const fn id(name: &str) -> u32 {
    match id_of(name) {
        Some(id) => id,
        None => panic!("an MPI function name missing from c-headers/mpi_functions.tbl"),
    }
}

const fn eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

// A record names its function by its kind and fields; the tables below map those to the
// function, by name, looked up in the table at compile time (a name missing from the table
// fails the build). Each is indexed by the enum's code (psins-sim's stats test checks every
// shape against the enum names).

use crate::record::*;

const fn f(name: &str) -> u32 {
    id(name)
}
/// No function of the table.
const NONE: u32 = u32::MAX;

/// By [`SendMode`] code.
const SEND: [u32; 4] = [f("MPI_Send"), f("MPI_Ssend"), f("MPI_Rsend"), f("MPI_Bsend")];
const ISEND: [u32; 4] = [f("MPI_Isend"), f("MPI_Issend"), f("MPI_Irsend"), f("MPI_Ibsend")];
const SEND_INIT: [u32; 4] = [f("MPI_Send_init"), f("MPI_Ssend_init"), f("MPI_Rsend_init"), f("MPI_Bsend_init")];
/// By 2 × matched + nonblocking ([`ProbeFlags`]).
const PROBE: [u32; 4] = [f("MPI_Probe"), f("MPI_Iprobe"), f("MPI_Mprobe"), f("MPI_Improbe")];
/// By [`WaitFn`] code.
const WAIT: [u32; 8] = [
    f("MPI_Wait"),
    f("MPI_Waitall"),
    f("MPI_Waitany"),
    f("MPI_Waitsome"),
    f("MPI_Test"),
    f("MPI_Testall"),
    f("MPI_Testany"),
    f("MPI_Testsome"),
];
/// By [`Coll`] code: blocking, then nonblocking.
const COLL: [[u32; 22]; 2] = [
    [
        f("MPI_Barrier"),
        f("MPI_Bcast"),
        f("MPI_Reduce"),
        f("MPI_Allreduce"),
        f("MPI_Gather"),
        f("MPI_Gatherv"),
        f("MPI_Scatter"),
        f("MPI_Scatterv"),
        f("MPI_Allgather"),
        f("MPI_Allgatherv"),
        f("MPI_Alltoall"),
        f("MPI_Alltoallv"),
        f("MPI_Alltoallw"),
        f("MPI_Reduce_scatter"),
        f("MPI_Reduce_scatter_block"),
        f("MPI_Scan"),
        f("MPI_Exscan"),
        f("MPI_Neighbor_allgather"),
        f("MPI_Neighbor_allgatherv"),
        f("MPI_Neighbor_alltoall"),
        f("MPI_Neighbor_alltoallv"),
        f("MPI_Neighbor_alltoallw"),
    ],
    [
        f("MPI_Ibarrier"),
        f("MPI_Ibcast"),
        f("MPI_Ireduce"),
        f("MPI_Iallreduce"),
        f("MPI_Igather"),
        f("MPI_Igatherv"),
        f("MPI_Iscatter"),
        f("MPI_Iscatterv"),
        f("MPI_Iallgather"),
        f("MPI_Iallgatherv"),
        f("MPI_Ialltoall"),
        f("MPI_Ialltoallv"),
        f("MPI_Ialltoallw"),
        f("MPI_Ireduce_scatter"),
        f("MPI_Ireduce_scatter_block"),
        f("MPI_Iscan"),
        f("MPI_Iexscan"),
        f("MPI_Ineighbor_allgather"),
        f("MPI_Ineighbor_allgatherv"),
        f("MPI_Ineighbor_alltoall"),
        f("MPI_Ineighbor_alltoallv"),
        f("MPI_Ineighbor_alltoallw"),
    ],
];
/// By [`CommFn`] code; `Other` (a communicator the tracer met without seeing it made) is no
/// function of the table.
const COMM: [u32; 14] = [
    f("MPI_Comm_dup"),
    f("MPI_Comm_split"),
    f("MPI_Comm_split_type"),
    f("MPI_Comm_create"),
    f("MPI_Comm_create_group"),
    f("MPI_Cart_create"),
    f("MPI_Cart_sub"),
    f("MPI_Graph_create"),
    f("MPI_Dist_graph_create"),
    f("MPI_Dist_graph_create_adjacent"),
    f("MPI_Intercomm_create"),
    f("MPI_Intercomm_merge"),
    f("MPI_Comm_idup"),
    NONE,
];
/// By [`RmaFn`] code: plain, then the request forms (fetch_and_op and compare_and_swap have
/// none: their request-less ids stand in).
const RMA: [[u32; 6]; 2] = [
    [
        f("MPI_Put"),
        f("MPI_Get"),
        f("MPI_Accumulate"),
        f("MPI_Get_accumulate"),
        f("MPI_Fetch_and_op"),
        f("MPI_Compare_and_swap"),
    ],
    [
        f("MPI_Rput"),
        f("MPI_Rget"),
        f("MPI_Raccumulate"),
        f("MPI_Rget_accumulate"),
        f("MPI_Fetch_and_op"),
        f("MPI_Compare_and_swap"),
    ],
];
/// By [`WinSyncFn`] code.
const WIN_SYNC: [u32; 15] = [
    f("MPI_Win_fence"),
    f("MPI_Win_post"),
    f("MPI_Win_start"),
    f("MPI_Win_complete"),
    f("MPI_Win_wait"),
    f("MPI_Win_test"),
    f("MPI_Win_lock"),
    f("MPI_Win_unlock"),
    f("MPI_Win_lock_all"),
    f("MPI_Win_unlock_all"),
    f("MPI_Win_flush"),
    f("MPI_Win_flush_all"),
    f("MPI_Win_flush_local"),
    f("MPI_Win_flush_local_all"),
    f("MPI_Win_sync"),
];
/// By [`WinFn`] code.
const WIN_CREATE: [u32; 4] =
    [f("MPI_Win_create"), f("MPI_Win_allocate"), f("MPI_Win_allocate_shared"), f("MPI_Win_create_dynamic")];

/// The MPI function a record stands for, as its id in the table; `None` for expansion
/// steps (no call), an `other` record whose id the table lacks, and a communicator the
/// tracer met without seeing it made.
#[inline(always)]
pub fn of_op(op: &Op) -> Option<u32> {
    let id = match *op {
        Op::Init { .. } => const { f("MPI_Init") },
        Op::Finalize => const { f("MPI_Finalize") },
        Op::Abort { .. } => const { f("MPI_Abort") },
        Op::Send { mode, .. } => SEND[mode.code() as usize],
        Op::Isend { mode, .. } => ISEND[mode.code() as usize],
        Op::SendInit { mode, .. } => SEND_INIT[mode.code() as usize],
        Op::Recv { .. } => const { f("MPI_Recv") },
        Op::Irecv { .. } => const { f("MPI_Irecv") },
        Op::RecvInit { .. } => const { f("MPI_Recv_init") },
        Op::Sendrecv { replace: false, .. } => const { f("MPI_Sendrecv") },
        Op::Sendrecv { replace: true, .. } => const { f("MPI_Sendrecv_replace") },
        Op::Probe { flags, .. } => {
            let blocking = flags & ProbeFlags::BLOCKING != 0;
            let matched = flags & ProbeFlags::MATCHED != 0;
            PROBE[2 * matched as usize + !blocking as usize]
        }
        Op::Start { .. } => const { f("MPI_Start") },
        Op::Startall => const { f("MPI_Startall") },
        Op::RequestFree { .. } => const { f("MPI_Request_free") },
        Op::Cancel { .. } => const { f("MPI_Cancel") },
        Op::Wait { func, .. } => WAIT[func.code() as usize],
        Op::Coll { coll, flags, .. } => COLL[(flags & CollFlags::NONBLOCKING != 0) as usize][coll.code() as usize],
        Op::CommCreate { func, .. } => COMM[func.code() as usize],
        Op::CommFree { .. } => const { f("MPI_Comm_free") },
        // the tracer's `other` records carry the table id itself
        Op::Other { func } | Op::OtherReq { func, .. } if name_of(func).is_some() => func,
        Op::Other { .. } | Op::OtherReq { .. } => NONE,
        Op::Step { .. } => NONE,
        Op::Rma { func, req, .. } => RMA[(req != NO_REQUEST) as usize][func.code() as usize],
        Op::WinSync { func, .. } => WIN_SYNC[func.code() as usize],
        Op::WinCreate { func, .. } => WIN_CREATE[func.code() as usize],
        Op::WinFree { .. } => const { f("MPI_Win_free") },
        // a run of polls is the function it folds (psins-sim counts its `calls`)
        Op::Poll { .. } => return of_poll(op),
        Op::Pcontrol { .. } => const { f("MPI_Pcontrol") },
    };
    (id != NONE).then_some(id)
}

/// A run of polls: the function it folds. Out of line, so that [`of_op`] (on psins-sim's
/// path for every record) is not recursive and can be inlined.
#[inline(never)]
fn of_poll(op: &Op) -> Option<u32> {
    op.unfold_poll().and_then(|(one, _)| of_op(&one))
}

// The ids a replay and a timeline count and name records by: the table's ids (the tracer's
// wrappers are generated from the same table, so there is no second numbering), two for what
// it does not name, and a sentinel for records that are not calls.
const _: () = assert!(N_FUNCS < STEP_FN as usize - 2, "function ids must fit below the u16 sentinels");

/// `Other` records whose id the table does not know; their own id is kept separately.
pub const OTHER_FN: u16 = N_FUNCS as u16;
/// `CommCreate` records of [`CommFn::Other`].
const COMM_OTHER: u16 = N_FUNCS as u16 + 1;
/// The number of function ids (the table's, [`OTHER_FN`] and `COMM_OTHER`): the size of a
/// per-function array (psins-sim's statistics).
pub const NFN: usize = N_FUNCS + 2;
/// Expansion steps outside an expanded collective, and the `comm_create` (idup) of an
/// MPI_Comm_idup, whose call is the `other_req` record before it: not a call, not counted.
pub const STEP_FN: u16 = u16::MAX;

/// The MPI function a record stands for: its id in the function table
/// ([`of_op`]), else [`OTHER_FN`], `COMM_OTHER` or [`STEP_FN`]. Out of line:
/// inlined into the replay's task loop, the match's arms spread over more code lines than
/// the call costs (less code per record; timing did not show the instruction cache to be
/// what limits the replay, psins-sim's replay: docs/performance.md, *Findings behind the code*).
#[inline(never)]
pub fn fn_id(op: &Op) -> u16 {
    if !op.is_call() {
        return STEP_FN;
    }
    match (of_op(op), op) {
        (Some(id), _) => id as u16,
        (None, Op::CommCreate { .. }) => COMM_OTHER,
        (None, _) => OTHER_FN,
    }
}

/// Names of every function id ("" for ids the table does not use).
pub fn fn_names() -> Vec<String> {
    let mut n: Vec<String> = NAMES.iter().map(|s| s.to_string()).collect();
    n.push("MPI_other".into());
    n.push("MPI_Comm_other".into());
    debug_assert_eq!(n.len(), NFN);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_ids_agree_with_the_table() {
        // hand-checked against c-headers/mpi_functions.tbl
        assert_eq!(id_of("MPI_Allreduce"), Some(35));
        assert_eq!(name_of(35), Some("MPI_Allreduce"));
        assert_eq!(name_of(341), Some("MPI_Wtime"));
        assert_eq!(id_of("MPI_Nonexistent"), None);
        assert_eq!(name_of(0), None);
        assert_eq!(name_of(N_FUNCS as u32), None);
        for &(id, name, _) in FUNCTIONS {
            assert_eq!((name_of(id), id_of(name)), (Some(name), Some(id)));
        }
        const SEND: u32 = id("MPI_Send");
        assert_eq!(name_of(SEND), Some("MPI_Send"));
    }

    fn mpi_case(camel: &str) -> String {
        crate::how::mpi_name(camel)
    }

    /// Every variant of every enum a record names its function by reaches the function the
    /// enum's name says (derived independently of the tables above, which are by code).
    #[test]
    fn every_record_shape_is_named_after_its_function() {
        let n = fn_names();
        let name = |op: Op| n[fn_id(&op) as usize].clone();
        for &w in WaitFn::ALL {
            assert_eq!(name(Op::Wait { func: w, count: 0 }), format!("MPI_{}", w.name()));
        }
        for &coll in Coll::ALL {
            let c = |flags| Op::Coll {
                coll,
                comm: 0,
                root: 0,
                send_bytes: 0,
                recv_bytes: 0,
                count: 0,
                flags,
                req: 0,
                instance: 1,
            };
            assert_eq!(name(c(0)), format!("MPI_{}", mpi_case(coll.name())));
            assert_eq!(name(c(CollFlags::NONBLOCKING)), format!("MPI_I{}", mpi_case(coll.name()).to_lowercase()));
        }
        for &func in WinSyncFn::ALL {
            let op = Op::WinSync { func, win: 0, rank: NO_RANK, flags: 0 };
            assert_eq!(name(op), format!("MPI_Win_{}", mpi_case(func.name()).to_lowercase()));
        }
        for &func in WinFn::ALL {
            let op = Op::WinCreate { func, comm: 0, win: 0 };
            let want = if func == WinFn::Create {
                "MPI_Win_create".into()
            } else {
                format!("MPI_Win_{}", mpi_case(func.name()).to_lowercase())
            };
            assert_eq!(name(op), want);
        }
        for &func in RmaFn::ALL {
            let op = |req| Op::Rma { func, target: 0, win: 0, bytes: 0, rbytes: 0, req };
            assert_eq!(name(op(0)), format!("MPI_{}", mpi_case(func.name())));
            let r = if matches!(func, RmaFn::FetchAndOp | RmaFn::CompareAndSwap) {
                format!("MPI_{}", mpi_case(func.name()))
            } else {
                format!("MPI_R{}", mpi_case(func.name()).to_lowercase())
            };
            assert_eq!(name(op(3)), r);
        }
        // MPI_Comm_idup is counted at its other_req record: its comm_create is no call
        assert_eq!(fn_id(&Op::CommCreate { func: CommFn::Idup, parent: 0, comm: 2, split: 0 }), STEP_FN);
        for &func in CommFn::ALL.iter().filter(|&&f| f != CommFn::Idup) {
            let want = match func {
                CommFn::Other => "MPI_Comm_other".to_string(),
                CommFn::CartCreate
                | CommFn::CartSub
                | CommFn::GraphCreate
                | CommFn::DistGraphCreate
                | CommFn::DistGraphCreateAdjacent
                | CommFn::IntercommCreate
                | CommFn::IntercommMerge => {
                    format!("MPI_{}", mpi_case(func.name()))
                }
                _ => format!("MPI_Comm_{}", mpi_case(func.name()).to_lowercase()),
            };
            let got = name(Op::CommCreate { func, parent: 0, comm: 2, split: 0 });
            assert_eq!(got, want, "{func:?}");
        }
        let modes = [
            ("MPI_Send", "MPI_Isend", "MPI_Send_init"),
            ("MPI_Ssend", "MPI_Issend", "MPI_Ssend_init"),
            ("MPI_Rsend", "MPI_Irsend", "MPI_Rsend_init"),
            ("MPI_Bsend", "MPI_Ibsend", "MPI_Bsend_init"),
        ];
        for (&mode, (s, i, p)) in SendMode::ALL.iter().zip(modes) {
            assert_eq!(name(Op::Send { mode, peer: 0, tag: 0, bytes: 0, comm: 0 }), s);
            assert_eq!(name(Op::Isend { mode, peer: 0, tag: 0, bytes: 0, comm: 0, req: 1 }), i);
            assert_eq!(name(Op::SendInit { mode, peer: 0, tag: 0, bytes: 0, comm: 0, req: 1 }), p);
        }
    }

    /// psins-sim named every `other` record MPI_other_<id>; the id is the table's.
    #[test]
    fn other_records_are_named_by_the_table() {
        let n = fn_names();
        let id = id_of("MPI_File_write_all").unwrap();
        let f = fn_id(&Op::Other { func: id });
        assert_eq!((f as u32, n[f as usize].as_str()), (id, "MPI_File_write_all"));
        assert_eq!(fn_id(&Op::Other { func: 60_000 }), OTHER_FN);
        assert_eq!(fn_id(&Op::Other { func: 0 }), OTHER_FN); // a hole in the table
        assert_eq!(fn_id(&Op::Init { thread_level: 0 }) as u32, id_of("MPI_Init").unwrap());
        assert_eq!(n.len(), NFN);
    }

    #[test]
    fn names_line_up_with_ids() {
        let n = fn_names();
        let send = Op::Send { mode: SendMode::Synchronous, peer: 0, tag: 0, bytes: 0, comm: 0 };
        assert_eq!(n[fn_id(&send) as usize], "MPI_Ssend");
        let isend = Op::Isend { mode: SendMode::Buffered, peer: 0, tag: 0, bytes: 0, comm: 0, req: 1 };
        assert_eq!(n[fn_id(&isend) as usize], "MPI_Ibsend");
        let init = Op::SendInit { mode: SendMode::Ready, peer: 0, tag: 0, bytes: 0, comm: 0, req: 1 };
        assert_eq!(n[fn_id(&init) as usize], "MPI_Rsend_init");
        let c = Op::Coll {
            coll: Coll::ReduceScatterBlock,
            comm: 0,
            root: 0,
            send_bytes: 0,
            recv_bytes: 0,
            count: 0,
            flags: CollFlags::NONBLOCKING,
            req: 1,
            instance: 1,
        };
        assert_eq!(n[fn_id(&c) as usize], "MPI_Ireduce_scatter_block");
        let w = Op::Wait { func: WaitFn::Testsome, count: 0 };
        assert_eq!(n[fn_id(&w) as usize], "MPI_Testsome");
        let p = Op::Probe { peer: 0, tag: 0, bytes: 0, comm: 0, flags: ProbeFlags::MATCHED };
        assert_eq!(n[fn_id(&p) as usize], "MPI_Improbe");
        let r = Op::Rma { func: RmaFn::GetAccumulate, target: 0, win: 0, bytes: 8, rbytes: 8, req: 3 };
        assert_eq!(n[fn_id(&r) as usize], "MPI_Rget_accumulate");
        let r = Op::Rma { func: RmaFn::CompareAndSwap, target: 0, win: 0, bytes: 8, rbytes: 8, req: 0 };
        assert_eq!(n[fn_id(&r) as usize], "MPI_Compare_and_swap");
        let s = Op::WinSync { func: WinSyncFn::FlushLocalAll, win: 0, rank: NO_RANK, flags: 0 };
        assert_eq!(n[fn_id(&s) as usize], "MPI_Win_flush_local_all");
        let c = Op::WinCreate { func: WinFn::AllocateShared, comm: 0, win: 0 };
        assert_eq!(n[fn_id(&c) as usize], "MPI_Win_allocate_shared");
        assert_eq!(n[fn_id(&Op::WinFree { win: 0 }) as usize], "MPI_Win_free");
        let poll = Op::Poll {
            func: PollFn::Improbe,
            calls: 9,
            between_ns: 0,
            min_gap_ns: 0,
            count: 0,
            peer: 0,
            tag: 0,
            comm: 0,
        };
        assert_eq!(n[fn_id(&poll) as usize], "MPI_Improbe");
        let poll = Op::Poll {
            func: PollFn::Testany,
            calls: 9,
            between_ns: 0,
            min_gap_ns: 0,
            count: 3,
            peer: NO_RANK,
            tag: 0,
            comm: 0,
        };
        assert_eq!(n[fn_id(&poll) as usize], "MPI_Testany");
        assert_eq!(n[fn_id(&Op::Pcontrol { level: 0 }) as usize], "MPI_Pcontrol");
        let cc = Op::CommCreate { func: CommFn::SplitType, parent: 0, comm: 2, split: 0 };
        assert_eq!(n[fn_id(&cc) as usize], "MPI_Comm_split_type");
        assert_eq!(n[fn_id(&Op::CommFree { comm: 2 }) as usize], "MPI_Comm_free");
    }
}
