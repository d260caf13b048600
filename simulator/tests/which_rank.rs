//! Beyond 16 ranks the summary names the ranks at the extremes and the ranks that wait most.

mod common;
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
    assert!(t.contains("most waiting: rank 7 (0.000013000 s), rank 0 (0.000004000 s), rank 5"), "{t}");
    let max_at = t.lines().find(|l| l.starts_with("  max at")).unwrap();
    assert_eq!(max_at.split_whitespace().collect::<Vec<_>>(), ["max", "at", "rank", "4", "rank", "7", "rank", "7"]);
}
