//! Golden tests for crossing messages (`cross_overhead`, machine/src/link.rs): a
//! message posted while one from its destination back to its source is still on its way
//! costs its sender x(S) more. Every time below is worked out by hand.
//!
//! Machine (common::BASE with one band): network L = 1us, 1 GB/s (1000 B take 1us),
//! o_s = 0.5us, o_r = 0.25us, x = 2us. One-way time of 1000 B: 0.5 + 1 + 1 + 0.25 = 2.75us.

use crate::common;
use common::*;
use psins_formats::{Op, COMM_WORLD, NO_RANK};
use psins_sim::Machine;
use std::path::Path;

const CROSS: &str = r#"
[[network.band]]
send_overhead = "0.5us"
recv_overhead = "0.25us"
cross_overhead = "2us"
"#;

fn crossing(sets: &[&str]) -> Machine {
    let text = format!("{BASE}{CROSS}");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Machine::from_str(Path::new("cross.toml"), &text, &sets).expect("machine with a crossing cost is valid")
}

fn go(tasks: &[Vec<psins_formats::Record>], m: &Machine) -> psins_sim::Report {
    replay(tasks, m).unwrap_or_else(|e| panic!("replay failed: {e}"))
}

/// An exchange of 1000 B (irecv, isend, waitall on both ranks at t = 0). r0's isend crosses
/// nothing: it leaves at 0.5us and arrives 2.5us, so it is on its way until 2.5us. r1's isend,
/// posted at 0 < 2.5us, crosses it: r1's CPU is busy o_s + x = 2.5us, its data arrives at
/// 2.5 + 2 = 4.5us and r0's receive completes at 4.75us. r1's receive completes at 2.75us,
/// its waitall (entered at 2.5us) then. The exchange costs one-way + x = 4.75us — the figure
/// psins-calibrate's exchange measurement gives x from.
#[test]
fn an_exchange_costs_one_way_plus_the_crossing() {
    let ex = |peer: i32| {
        let done = [(1, peer, 1000), (2, NO_RANK, 1000)];
        vec![irecv(0, peer, 1000, 1), isend(0, peer, 1000, 2), waitall(0, &done), fin()]
    };
    let tasks = vec![ex(1), ex(0)];
    for model in ["simple", "bus", "pmac"] {
        let r = go(&tasks, &crossing(&[&format!("network.model={model}")]));
        assert_eq!((end(&r, 0), end(&r, 1)), (4_750_000, 2_750_000), "{model}");
    }
}

/// An exchange with `mpi.irecv_overhead` = 0.3us, r1 computing 1us between its irecv and its
/// isend: each irecv keeps its rank's CPU until 0.3us. r0's isend leaves at 0.8us and arrives
/// 2.8us; r1's, posted at 1.3 < 2.8us, crosses it: busy 2.5us, data ready 3.8us, arrives
/// 5.8us, and r0's receive completes at 6.05us; r1's receive completes at 2.8 + 0.25 =
/// 3.05us, its waitall (entered at 3.8us) at once. Without the posting cost 5.75 and 3.5us:
/// each rank ends one posting later. The exchange psins-calibrate measures is the posting,
/// one one-way time and x (docs/models.md, *Crossing messages*).
#[test]
fn a_receive_posting_keeps_the_cpu() {
    let ex = |peer: i32, gap: u64| {
        let done = [(1, peer, 1000), (2, NO_RANK, 1000)];
        vec![irecv(0, peer, 1000, 1), isend(gap, peer, 1000, 2), waitall(0, &done), fin()]
    };
    let tasks = vec![ex(1, 0), ex(0, 1)];
    for model in ["simple", "bus", "pmac"] {
        let m = format!("network.model={model}");
        let r = go(&tasks, &crossing(&[&m]));
        assert_eq!((end(&r, 0), end(&r, 1)), (5_750_000, 3_500_000), "{model}");
        let r = go(&tasks, &crossing(&[&m, "mpi.irecv_overhead=0.3us"]));
        assert_eq!((end(&r, 0), end(&r, 1)), (6_050_000, 3_800_000), "{model}");
    }
    // A persistent receive's start posts it alike; its init costs nothing.
    let ri = rec(0, Op::RecvInit { peer: 0, tag: 7, bytes: 1000, comm: COMM_WORLD, req: 9 });
    let tasks =
        vec![vec![send(0, 1, 1000), fin()], vec![ri, rec(0, Op::Start { req: 9 }), waitall(5, &[(9, 0, 1000)]), fin()]];
    // The message is received by 2.75us; the waitall, 5us of computation after the start
    // returned (0.3us), finds it done.
    let r = go(&tasks, &crossing(&["mpi.irecv_overhead=0.3us"]));
    assert_eq!(end(&r, 1), 5_300_000);
    assert!(crossing(&["mpi.irecv_overhead=0.3us"]).effective().contains("irecv_overhead = \"300ns\""));
}

/// A ping-pong's messages never cross: the reply is posted at 2.75us, after the request
/// arrived (2.5us). Round trip 5.5us, as without a crossing cost (tests/overheads.rs).
#[test]
fn a_ping_pong_never_crosses() {
    let tasks = vec![vec![send(0, 1, 1000), recv(0, 1, 1000), fin()], vec![recv(0, 0, 1000), send(0, 0, 1000), fin()]];
    let r = go(&tasks, &crossing(&[]));
    assert_eq!(predicted(&r), 5_500_000);
}

/// Two messages the same way are not crossing: r0 isends 1000 B twice at 0. The second
/// waits for the CPU (o_s each): they leave at 0.5 and 1.0us, arrive 2.5 and 3.0us; r1's
/// receives complete at 2.75 and 3.25us.
#[test]
fn messages_the_same_way_do_not_cross() {
    let done = [(1, NO_RANK, 1000), (2, NO_RANK, 1000)];
    let tasks = vec![
        vec![isend(0, 1, 1000, 1), isend(0, 1, 1000, 2), waitall(0, &done), fin()],
        vec![recv(0, 0, 1000), recv(0, 0, 1000), fin()],
    ];
    let r = go(&tasks, &crossing(&[]));
    assert_eq!(end(&r, 1), 3_250_000);
}

/// `psins-sim check`'s printout keeps the crossing cost.
#[test]
fn the_crossing_cost_round_trips() {
    let m = crossing(&[]);
    assert!(m.effective().contains("cross_overhead"), "{}", m.effective());
    let again = Machine::from_str(Path::new("again.toml"), &m.effective(), &[]).expect("printout is valid");
    assert_eq!(again.inter, m.inter);
}
