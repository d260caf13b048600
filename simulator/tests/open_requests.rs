//! Requests left open at MPI_Finalize (SNAP only tests some isends; psins-consolidate keeps them
//! with a warning): the replay moves their messages as usual, the receiver gets them, and the
//! sender never waits for them, so it ends no later than had it waited.

use crate::common;
use common::*;
use psins_formats::NO_RANK;

#[test]
fn an_isend_never_completed_is_delivered_and_not_waited_for() {
    let open =
        vec![vec![isend(1, 1, 4096, 1), isend(0, 1, 4096, 2), fin()], vec![recv(0, 0, 4096), recv(0, 0, 4096), fin()]];
    let mut waited = open.clone();
    waited[0].insert(2, waitall(0, &[(1, NO_RANK, 0), (2, NO_RANK, 0)]));
    let (a, b) = (run(&open, &[]), run(&waited, &[]));
    // The receiver's side is the same either way: the messages move as usual.
    assert_eq!(end(&a, 1), end(&b, 1));
    assert!(end(&a, 1) > US);
    // The sender does not wait: its end is its own computation (1 us) plus the two calls.
    assert!(end(&a, 0) <= end(&b, 0));
    // A counted warning, as psins-consolidate gives.
    assert_eq!((a.stats.open_requests, a.stats.open_request_ranks), (2, 1));
    assert_eq!((b.stats.open_requests, b.stats.open_request_ranks), (0, 0));
    assert!(a.table().contains("warning: 2 requests left open at the end (MPI_Finalize) on 1 ranks"), "{}", a.table());
    assert!(!b.table().contains("warning"));
    assert_eq!(a.json()["warnings"]["open_requests"], 2);
}

#[test]
fn an_irecv_never_completed_still_matches_its_message() {
    // Rank 1 posts an irecv it never waits for; rank 0's blocking send (1 MiB: rendezvous, so
    // it needs the match and takes time) still completes: no deadlock.
    let tasks = vec![vec![send(0, 1, 1 << 20), fin()], vec![irecv(0, 0, 1 << 20, 1), fin()]];
    let r = run(&tasks, &[]);
    assert!(end(&r, 0) > 0);
    assert_eq!((r.stats.open_requests, r.stats.open_request_ranks), (1, 1));
}

/// A message no receive ever takes (rank 1's records hold none: a trace missing a rank's
/// records, as an incomplete OTF2 archive was): the replay completes, and the report counts
/// and names it, in the table, the JSON and, with -q, on stderr, instead of a prediction
/// silently without the receive.
#[test]
fn a_message_never_received_is_counted_and_named() {
    let tasks = vec![vec![send(0, 1, 8), send(0, 1, 16), fin()], vec![fin()]];
    let r = run(&tasks, &[]);
    assert_eq!(r.stats.unreceived, 2);
    let w = "warning: 2 messages were sent and never received (the first: 8 bytes from world rank 0 to world rank 1 with tag 7 on communicator 0); the trace may lack a rank's records, and the prediction has no receive for them";
    assert!(r.table().contains(w), "{}", r.table());
    assert_eq!(r.json()["warnings"]["unreceived_messages"], 2);
    // Received: no warning.
    let ok = run(&[tasks[0].clone(), vec![recv(0, 0, 8), recv(0, 0, 16), fin()]], &[]);
    assert_eq!(ok.stats.unreceived, 0);
    assert!(!ok.table().contains("never received"));
    // The command line, quiet: the warning on stderr.
    let trace = write("unreceived.psins", &tasks, vec![]);
    let m = tmp("m.toml");
    std::fs::write(&m, BASE).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_psins-sim"))
        .args([trace.to_str().unwrap(), "-m", m.to_str().unwrap(), "-q", "--no-progress"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("psins-sim: {w}")), "{err}");
}
