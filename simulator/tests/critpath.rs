//! The critical path on tiny traces whose path is worked out by hand (test machine of
//! common::BASE: network L = 1us, 1000 bytes take 1us; no send/receive overheads, so an
//! eager 1000-byte message takes 1us of latency and 1us of transfer).

use crate::common;
use common::*;
use psins_sim::critpath::{CriticalPath, COMPUTE_FN};
use psins_sim::source::compact::CompactTrace;
use psins_sim::{simulate, Options, Report};

fn traced(tasks: &[Vec<psins_formats::Record>]) -> (Report, CriticalPath) {
    let path = write("cp.psins", tasks, vec![]);
    let opts = Options { critical_path: true, ..Default::default() };
    let r = simulate(CompactTrace::open(&path).unwrap(), &machine(&[]), opts).unwrap();
    let c = r.critical.clone().expect("tracked");
    // Whatever the trace, the path accounts for the whole predicted time.
    assert_eq!(c.total, r.predicted);
    assert_eq!(c.cats.iter().sum::<u64>(), r.predicted);
    (r, c)
}

fn rank(c: &CriticalPath, r: u32) -> [u64; 4] {
    c.by_rank.iter().find(|(k, _)| *k == r).map_or([0; 4], |(_, v)| *v)
}

/// r0 computes 10us and sends 1000 B to r1 (delivered 12us); r1 computes 5us after its
/// receive and sends on to r2 at 17us (delivered 19us). The path: r0's 10us, the first
/// message (1 + 1us), r1's 5us, the second (1 + 1us) = 19us = r2's end; nobody waits on it.
#[test]
fn chain_through_three_ranks() {
    let tasks = vec![
        vec![send(10, 1, 1000), fin()],
        vec![recv(0, 0, 1000), send(5, 2, 1000), fin()],
        vec![recv(0, 1, 1000), fin()],
    ];
    let (r, c) = traced(&tasks);
    assert_eq!(r.predicted, 19 * US);
    assert_eq!(c.end_rank, 2);
    assert_eq!(c.cats, [15 * US, 2 * US, 2 * US, 0]);
    // Messages count for their sender: r0 = 10 + 1 + 1, r1 = 5 + 1 + 1, r2 nothing.
    assert_eq!(rank(&c, 0), [10 * US, US, US, 0]);
    assert_eq!(rank(&c, 1), [5 * US, US, US, 0]);
    assert_eq!(rank(&c, 2), [0; 4]);
    assert_eq!(c.top[0].rank, 0);
    assert_eq!(c.top[0].func, COMPUTE_FN);
}

/// Late sender: r1 posts its receive at 5us but r0 only sends at 20us (delivered 22us);
/// r1 then computes 3us → 25us. The path goes through r0's 20us, not r1's 5us or its wait
/// (15us until the send is posted, as the engine counts it): 20 + 1 + 1 + 3.
#[test]
fn late_sender() {
    let tasks = vec![vec![send(20, 1, 1000), fin()], vec![recv(5, 0, 1000), rec(3, psins_formats::Op::Finalize)]];
    let (r, c) = traced(&tasks);
    assert_eq!(r.predicted, 25 * US);
    assert_eq!(r.tasks[1].wait, 15 * US);
    assert_eq!(c.end_rank, 1);
    assert_eq!(c.cats, [23 * US, US, US, 0]);
    assert_eq!(rank(&c, 0), [20 * US, US, US, 0]);
    assert_eq!(rank(&c, 1), [3 * US, 0, 0, 0]);
}

/// An allreduce of 4 ranks where r2 computes 30us and the others 1us: the instance starts
/// at r2's arrival (30us) and its modelled time follows; every rank ends then. The path is
/// r2's 30us plus the collective's time (transfer), with none of the others' waits.
#[test]
fn collective_waits_on_one_slow_rank() {
    let tasks: Vec<_> = (0..4).map(|r| vec![allreduce(if r == 2 { 30 } else { 1 }, 8, 0), fin()]).collect();
    let (r, c) = traced(&tasks);
    assert!(r.predicted > 30 * US);
    assert_eq!(c.cats[0], 30 * US);
    assert_eq!(c.cats[1..], [0, r.predicted - 30 * US, 0]);
    assert_eq!(c.by_rank.len(), 1);
    assert_eq!(rank(&c, 2), [30 * US, 0, r.predicted - 30 * US, 0]);
}
