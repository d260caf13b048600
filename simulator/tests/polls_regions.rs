//! `poll` records (a run of unsuccessful tests or probes, folded by the tracer) replay as
//! their calls would, and `pcontrol` records split the time into regions.

use crate::common;
use common::*;
use psins_formats::*;

/// Rank 1 tests its irecv `n` times in vain (2 us of work before each), then waits.
fn unfolded(n: usize) -> Vec<Vec<Record>> {
    let mut poller = vec![irecv(0, 0, 4096, 1)];
    for _ in 0..n {
        poller.push(rec(2, Op::Wait { func: WaitFn::Test, count: 1 }));
    }
    poller.extend([waitall(0, &[(1, 0, 4096)]), fin()]);
    vec![vec![rec(50, Op::Init { thread_level: 0 }), send(30, 1, 4096), fin()], poller]
}

fn folded(n: usize) -> Vec<Vec<Record>> {
    let mut t = unfolded(0);
    let poll = Op::Poll {
        func: PollFn::Test,
        calls: n as u64,
        between_ns: (n as u64 - 1) * 2000,
        min_gap_ns: 2000,
        count: 1,
        peer: NO_RANK,
        tag: 0,
        comm: 0,
    };
    t[1].insert(1, rec(2, poll));
    t
}

#[test]
fn a_poll_record_replays_as_its_calls() {
    for sets in [&[][..], &["mpi.call_overhead=100ns"]] {
        let (a, b) = (run(&unfolded(20), sets), run(&folded(20), sets));
        assert_eq!(predicted(&a), predicted(&b), "{sets:?}");
        assert_eq!((a.tasks[1].compute, a.tasks[1].comm), (b.tasks[1].compute, b.tasks[1].comm), "{sets:?}");
        let test = |r: &psins_sim::Report| r.stats.fns.iter().map(|f| f.count).sum::<u64>();
        assert_eq!(test(&a), test(&b), "{sets:?}: calls counted");
    }
    // by hand: 20 bursts of 2 us, then the waitall; 100 ns per call: 20 tests + irecv +
    // waitall + finalize on rank 1
    let r = run(&folded(20), &["mpi.call_overhead=100ns"]);
    assert_eq!(r.tasks[1].compute, 40 * US);
    assert_eq!(r.tasks[1].comm - r.tasks[1].wait, 23 * US / 10);
}

#[test]
fn pcontrol_records_split_the_time_into_regions() {
    let region = |level| rec(0, Op::Pcontrol { level });
    let tasks = vec![
        vec![rec(3, Op::Finalize)],
        vec![
            rec(1, Op::Init { thread_level: 0 }),
            region(2),
            rec(5, Op::Other { func: 1 }),
            region(0),
            rec(7, Op::Pcontrol { level: 1 }),
            fin(),
        ],
    ];
    let r = run(&tasks, &[]);
    let reg = &r.stats.regions;
    assert_eq!(reg.keys().copied().collect::<Vec<_>>(), [0, 1, 2]);
    // task 0 (no pcontrol) is all level 1; task 1: its init's burst is ignored, 5 us in
    // level 2, the paused 7 us in level 0
    assert_eq!(reg[&1].compute, 3 * US);
    assert_eq!(reg[&2].compute, 5 * US);
    assert_eq!(reg[&0].compute, 7 * US);
    let total: u64 = r.tasks.iter().map(|t| t.compute).sum();
    assert_eq!(reg.values().map(|x| x.compute).sum::<u64>(), total);
    assert!(run(&unfolded(2), &[]).stats.regions.is_empty(), "no pcontrol: no regions");
}
