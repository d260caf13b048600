//! Requests left open at MPI_Finalize (SNAP only tests some isends; psins-consolidate keeps them
//! with a warning): the replay moves their messages as usual, the receiver gets them, and the
//! sender never waits for them, so it ends no later than had it waited.

mod common;
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
    // A counted warning, as psins-consolidate gives (issue 17 items 6 and 10).
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
