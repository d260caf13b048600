//! Beyond 16 ranks the summary names the ranks at the extremes and the ranks that wait most.

use crate::common;
use common::*;

/// 33 ranks meet at an allreduce after computing (10 + r mod 5)us, rank 7 only 1us. The
/// last arrival is at 14us (ranks 4, 9, ...; they wait 0); rank 7 waits 13us, the ranks with
/// r mod 5 = 0 wait 4us (0, 5, 10, 15 are the next four, lower ranks first). Every rank ends
/// together, so the one computing least communicates (waits) most: rank 7 for both.
#[test]
fn names_the_extreme_and_most_waiting_ranks() {
    let tasks: Vec<_> = (0..33u64).map(|r| vec![allreduce(if r == 7 { 1 } else { 10 + r % 5 }, 8, 0), fin()]).collect();
    let r = run(&tasks, &["machine.nodes=33"]);
    let j = r.json();
    let ext = &j["extremes"];
    assert_eq!((ext["compute"]["min_rank"].as_u64(), ext["compute"]["max_rank"].as_u64()), (Some(7), Some(4)));
    assert_eq!((ext["wait"]["min_rank"].as_u64(), ext["wait"]["max_rank"].as_u64()), (Some(4), Some(7)));
    assert_eq!(ext["wait"]["max_s"].as_f64(), Some(13e-6));
    let most: Vec<u64> = j["most_waiting"].as_array().unwrap().iter().map(|w| w["rank"].as_u64().unwrap()).collect();
    assert_eq!(most, [7, 0, 5, 10, 15]);
    let t = r.table();
    assert!(t.contains("most waiting: rank 7 (13.00 µs), rank 0 (4.000 µs), rank 5"), "{t}");
    let max_at = t.lines().find(|l| l.starts_with("  max at")).unwrap();
    assert_eq!(max_at.split_whitespace().collect::<Vec<_>>(), ["max", "at", "rank", "4", "rank", "7", "rank", "7"]);
}

/// Per rank, the wait in each MPI function (only those it waited in). r0 sends 1000 B at
/// 10us and at 14us (eager: 0us each), then isends at 14 + 20 = 34us and 34 + 5 = 39us.
/// r1's first receive, posted at 0, waits 10us for the late sender and completes at
/// 10 + 1 + 1 = 12us; its second, posted at 12us, waits 2us (sent at 14us), done at 16us: 12us
/// in MPI_Recv. Its irecvs at 16us and a waitall there wait for the later isend: 39 − 16 =
/// 23us in MPI_Waitall (done at 41us). r0 never waits: no entries.
#[test]
fn wait_per_rank_and_function() {
    let tasks = vec![
        vec![
            send(10, 1, 1000),
            send(4, 1, 1000),
            isend(20, 1, 1000, 1),
            isend(5, 1, 1000, 2),
            waitall(0, &[(1, psins_formats::NO_RANK, 1000), (2, psins_formats::NO_RANK, 1000)]),
            fin(),
        ],
        vec![
            recv(0, 0, 1000),
            recv(0, 0, 1000),
            irecv(0, 0, 1000, 1),
            irecv(0, 0, 1000, 2),
            waitall(0, &[(1, 0, 1000), (2, 0, 1000)]),
            fin(),
        ],
    ];
    let r = run(&tasks, &[]);
    assert_eq!((end(&r, 1), r.tasks[1].wait, r.tasks[0].wait), (41 * US, 35 * US, 0));
    let j = r.json();
    let w = |rank: usize| j["tasks"][rank]["wait_by_function_s"].as_object().unwrap().clone();
    assert!(w(0).is_empty(), "{:?}", w(0));
    let w1: Vec<(String, f64)> = w(1).into_iter().map(|(k, v)| (k, v.as_f64().unwrap())).collect();
    assert_eq!(w1, [("MPI_Recv".to_string(), 12e-6), ("MPI_Waitall".to_string(), 23e-6)]);
    // The same split in picoseconds, as the engine keeps it (MPI_Recv's first).
    let names = psins_formats::functions::fn_names();
    let ps: Vec<(&str, u64)> = r.stats.rank_waits[1].iter().map(|&(f, p)| (names[f as usize].as_str(), p)).collect();
    assert_eq!(ps, [("MPI_Recv", 12 * US), ("MPI_Waitall", 23 * US)]);
}
