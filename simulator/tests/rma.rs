//! Golden tests of one-sided communication (engine/rma.rs): one tiny trace per kind of epoch,
//! its times worked out by hand in the comments.
//!
//! Test machine (common::BASE): one rank per node, `simple` model, network L = 1us and
//! 1 GB/s (1000 bytes take 1us, 8 bytes 8ns), no per-message overheads; the barrier's shape
//! is set to `log` (a fence of 2 costs one L = 1us after the last arrival).

use crate::common;
use common::*;
use psins_formats::*;

const SETS: &[&str] = &["network.model=simple", "mpi.collective_shape.barrier=log"];

fn win_create() -> Record {
    rec(0, Op::WinCreate { func: WinFn::Create, comm: COMM_WORLD, win: 0 })
}
fn rma(gap_us: u64, func: RmaFn, target: i32, bytes: u64, rbytes: u64, req: u32) -> Record {
    rec(gap_us, Op::Rma { func, target, win: 0, bytes, rbytes, req })
}
fn sync(gap_us: u64, func: WinSyncFn, rank: i32, flags: u8) -> Record {
    rec(gap_us, Op::WinSync { func, win: 0, rank, flags })
}
fn group(gap_us: u64, func: WinSyncFn, members: &[i64]) -> Record {
    sync(gap_us, func, NO_RANK, 0).with_list(members.to_vec())
}
fn wait(req: u32) -> Record {
    rec(0, Op::Wait { func: WaitFn::Wait, count: 1 }).with_list(vec![req as i64, NO_RANK as i64, 0, 0])
}

/// Fence epoch. Both ranks fence at 0: the barrier ends at 0 + 1us. r0 puts 1000 B at 1us:
/// delivered at 1 + 1 + 1 = 3us, acknowledged at 4us. r0's second fence arrives when its put
/// is complete (4us), r1's at 1us: the fence ends at max(4, 1) + 1 = 5us on both.
#[test]
fn fence_epoch() {
    let tasks = vec![
        vec![
            win_create(),
            sync(0, WinSyncFn::Fence, NO_RANK, 0),
            rma(0, RmaFn::Put, 1, 1000, 0, 0),
            sync(0, WinSyncFn::Fence, NO_RANK, 0),
            fin(),
        ],
        vec![win_create(), sync(0, WinSyncFn::Fence, NO_RANK, 0), sync(0, WinSyncFn::Fence, NO_RANK, 0), fin()],
    ];
    let r = run(&tasks, SETS);
    assert_eq!((end(&r, 0), end(&r, 1)), (5 * US, 5 * US));
    assert_eq!((r.stats.rma_ops, r.stats.rma_bytes), (1, 1000));
    // Without an explicit shape the barrier is MPICH's algorithm for 2 ranks: one exchange
    // of 0-byte messages, L = 1us: the same times.
    let r = run(&tasks, &["network.model=simple"]);
    assert_eq!((end(&r, 0), end(&r, 1)), (5 * US, 5 * US));
}

/// Post/start/complete/wait. r1 posts to {0} at 2us (the post reaches r0 at 3us) and waits.
/// r0's start (at 0) returns when the post arrives, 3us; its get of 1000 B: the request
/// reaches r1 at 3 + 1 = 4us, the data arrives at 4 + 1 + 1 = 6us. complete returns at 6us
/// and reaches r1 at 7us, where its wait returns.
#[test]
fn post_start_complete_wait() {
    let tasks = vec![
        vec![
            win_create(),
            group(0, WinSyncFn::Start, &[1]),
            rma(0, RmaFn::Get, 1, 0, 1000, 0),
            sync(0, WinSyncFn::Complete, NO_RANK, 0),
            fin(),
        ],
        vec![win_create(), group(2, WinSyncFn::Post, &[0]), sync(0, WinSyncFn::Wait, NO_RANK, 0), fin()],
    ];
    let r = run(&tasks, SETS);
    assert_eq!((end(&r, 0), end(&r, 1)), (6 * US, 7 * US));
    assert_eq!((r.stats.rma_ops, r.stats.rma_bytes), (1, 1000));
}

/// r0 and r2 lock r1 at 0 and put 1000 B to it. The lock requests reach r1 at 1us.
/// Exclusive: r0 (first) is granted at 1us and returns at 2us; its put is delivered at 4us,
/// acknowledged at 5us, when its unlock returns and frees the lock. r2 is granted at 5us,
/// returns at 6us, its put is acknowledged at 6 + 2 + 1 = 9us: the epochs are serialised.
/// Shared: both are granted at 1us and end at 5us.
#[test]
fn lock_exclusive_serialises_shared_does_not() {
    let epoch = |flags| {
        vec![
            win_create(),
            sync(0, WinSyncFn::Lock, 1, flags),
            rma(0, RmaFn::Put, 1, 1000, 0, 0),
            sync(0, WinSyncFn::Unlock, 1, 0),
            fin(),
        ]
    };
    let tasks = |flags| vec![epoch(flags), vec![win_create(), fin()], epoch(flags)];
    let r = run(&tasks(WinFlags::EXCLUSIVE), SETS);
    assert_eq!((end(&r, 0), end(&r, 2)), (5 * US, 9 * US));
    let r = run(&tasks(0), SETS);
    assert_eq!((end(&r, 0), end(&r, 2)), (5 * US, 5 * US));
    assert_eq!((r.stats.rma_ops, r.stats.rma_bytes), (2, 2000));
}

/// lock_all, then at 0 an Rput of 1000 B (request 1) and a fetch_and_op of 8 B to r1.
/// The Rput is delivered at 2us and acknowledged at 3us. The fetch_and_op's 8 B arrive at
/// 1.008us and its 8-byte answer leaves then, arriving at 2.016us. flush(1) returns when
/// both are complete, 3us; the wait on the Rput's request returns at once; unlock_all has
/// nothing left to wait for (3us). Then an Rget of 1000 B (request 2) at 3us: the request
/// reaches r1 at 4us, the data r0 at 6us, where MPI_Wait returns.
#[test]
fn lock_all_flush_and_request_forms() {
    let tasks = vec![
        vec![
            win_create(),
            sync(0, WinSyncFn::LockAll, NO_RANK, 0),
            rma(0, RmaFn::Put, 1, 1000, 0, 1),
            rma(0, RmaFn::FetchAndOp, 1, 8, 8, 0),
            sync(0, WinSyncFn::Flush, 1, 0),
            wait(1),
            sync(0, WinSyncFn::UnlockAll, NO_RANK, 0),
            rma(0, RmaFn::Get, 1, 0, 1000, 2),
            wait(2),
            fin(),
        ],
        vec![win_create(), fin()],
    ];
    let r = run(&tasks, SETS);
    assert_eq!(end(&r, 0), 6 * US);
    assert_eq!((r.stats.rma_ops, r.stats.rma_bytes), (3, 1000 + 8 + 8 + 1000));
}

/// The same put predicted on two networks: the prediction follows the network.
#[test]
fn the_network_model_times_the_bytes() {
    let tasks = vec![
        vec![
            win_create(),
            sync(0, WinSyncFn::Fence, NO_RANK, 0),
            rma(0, RmaFn::Put, 1, 100_000, 0, 0),
            sync(0, WinSyncFn::Fence, NO_RANK, 0),
            fin(),
        ],
        vec![win_create(), sync(0, WinSyncFn::Fence, NO_RANK, 0), sync(0, WinSyncFn::Fence, NO_RANK, 0), fin()],
    ];
    // 1 GB/s: 1 + (1 + 100 + 1) + 1 = 104us; 10 GB/s: 1 + (1 + 10 + 1) + 1 = 14us
    assert_eq!(predicted(&run(&tasks, SETS)), 104 * US);
    let fast = [SETS, &["network.bandwidth=10GB/s"]].concat();
    assert_eq!(predicted(&run(&tasks, &fast)), 14 * US);
}

/// A target outside the window is one clear error naming the task and record.
#[test]
fn target_outside_the_window_is_an_error() {
    let tasks = vec![
        vec![win_create(), sync(0, WinSyncFn::LockAll, NO_RANK, 0), rma(0, RmaFn::Put, 5, 8, 0, 0), fin()],
        vec![win_create(), fin()],
    ];
    let e = replay(&tasks, &machine(SETS)).unwrap_err().to_string();
    assert_eq!(e, "rank 0, record 2: target 5 is outside window 0 (size 2)");
}
