//! The public surface: input validation, thresholds as data, step records, and the checker
//! catching what it is meant to catch.

use psins_collectives::check::{check_matching, run_rendezvous, verify, CheckError, Summary};
use psins_collectives::{expand, Coll, CollArgs, ExpandError, Step, Thresholds, NOOP, THRESHOLD_TABLE};

fn run(a: &CollArgs) -> Result<&'static str, ExpandError> {
    expand(a, &Thresholds::default(), &mut Vec::new())
}

#[test]
fn invalid_arguments_are_errors() {
    let a = CollArgs::new(Coll::Bcast, 0, 0);
    assert_eq!(run(&a), Err(ExpandError::EmptyCommunicator));
    let a = CollArgs::new(Coll::Bcast, 4, 4);
    assert_eq!(run(&a), Err(ExpandError::RankOutOfRange { rank: 4, size: 4 }));
    let a = CollArgs { root: 9, ..CollArgs::new(Coll::Reduce, 4, 1) };
    assert_eq!(run(&a), Err(ExpandError::RootOutOfRange { root: 9, size: 4 }));
    // Non-rooted collectives ignore the root.
    let a = CollArgs { root: 9, ..CollArgs::new(Coll::Barrier, 4, 1) };
    assert_eq!(run(&a), Ok("barrier_dissemination"));
    let a = CollArgs { counts: &[1, 2, 3], ..CollArgs::new(Coll::Alltoallv, 4, 1) };
    let err = run(&a).unwrap_err();
    assert_eq!(err, ExpandError::CountsLength { coll: Coll::Alltoallv, expected: 8, got: 3 });
    assert!(err.to_string().contains("needs 8"), "{err}");
    // gatherv reads the counts at the root only.
    let a = CollArgs { root: 0, send_bytes: 5, ..CollArgs::new(Coll::Gatherv, 4, 1) };
    assert_eq!(run(&a), Ok("gatherv_linear"));
    let a = CollArgs { counts: &[u64::MAX, 1], ..CollArgs::new(Coll::Allgatherv, 2, 0) };
    assert_eq!(run(&a), Err(ExpandError::Overflow { coll: Coll::Allgatherv }));
    let a = CollArgs { send_bytes: 10, count: 3, ..CollArgs::new(Coll::Allreduce, 4, 0) };
    assert!(matches!(run(&a), Err(ExpandError::CountMismatch { .. })));
    for coll in [Coll::NeighborAllgather, Coll::NeighborAlltoallw] {
        assert_eq!(run(&CollArgs::new(coll, 4, 0)), Err(ExpandError::Unsupported { coll }));
    }
}

#[test]
fn output_is_cleared_and_zero_size_calls_are_noops() {
    let mut out = vec![Step::Recv { peer: 1, bytes: 1 }];
    let a = CollArgs::new(Coll::Bcast, 8, 3);
    assert_eq!(expand(&a, &Thresholds::default(), &mut out), Ok(NOOP));
    assert!(out.is_empty());
    // Allreduce has no early return: zero-byte messages are still exchanged.
    let a = CollArgs::new(Coll::Allreduce, 4, 0);
    assert_eq!(expand(&a, &Thresholds::default(), &mut out), Ok("allreduce_recursive_doubling"));
    assert_eq!(out.len(), 2);
}

#[test]
fn huge_communicators_do_not_overflow() {
    let p = u32::MAX;
    for rank in [0, 1, p / 2, p - 1] {
        for coll in [Coll::Barrier, Coll::Bcast, Coll::Reduce, Coll::Allreduce, Coll::Gather, Coll::Scan] {
            let a = CollArgs { root: p - 2, send_bytes: 8, recv_bytes: 8, count: 1, ..CollArgs::new(coll, p, rank) };
            let mut out = Vec::new();
            expand(&a, &Thresholds::default(), &mut out).unwrap();
            assert!(out.len() <= 64, "{coll:?}: {} steps", out.len());
            assert!(out.iter().all(|s| s.send().into_iter().chain(s.recv()).all(|(q, _)| q != rank)));
        }
    }
}

#[test]
fn steps_round_trip_through_records() {
    let steps = [
        Step::Send { peer: 3, bytes: 10 },
        Step::Recv { peer: 0, bytes: 0 },
        Step::SendRecv { send_peer: 1, send_bytes: 5, recv_peer: 2, recv_bytes: 6 },
        Step::ISend { peer: 4, bytes: 1 << 40 },
        Step::IRecv { peer: 0, bytes: 0 },
        Step::WaitAll,
    ];
    for st in steps {
        let op = st.to_op(7);
        assert_eq!(Step::from_op(&op), Some(st));
        assert!(matches!(op, psins_formats::Op::Step { instance: 7, .. }));
    }
    assert_eq!(Step::from_op(&psins_formats::Op::Finalize), None);
}

#[test]
fn threshold_defaults_and_sources() {
    let th = Thresholds::default();
    assert_eq!(th.bcast_short_msg_size, 12288);
    assert_eq!(th.allreduce_short_msg_size, 8);
    for info in THRESHOLD_TABLE {
        assert_eq!(th.get(info.name), Some(info.default), "{}", info.name);
        assert!(info.env_var().starts_with("PSINS_COLL_"));
    }
    let th = Thresholds::from_kv_str("# tuned\nbcast_short_msg_size = 1_000\n\nALLTOALL_THROTTLE_X = 3\n");
    let err = th.unwrap_err();
    assert_eq!(err.origin, "line 4");
    assert!(err.message.contains("unknown threshold"), "{err}");
    let th =
        Thresholds::from_kv_str("bcast_short_msg_size = 1_000 # small\nPSINS_COLL_REDUCE_SHORT_MSG_SIZE=7").unwrap();
    assert_eq!((th.bcast_short_msg_size, th.reduce_short_msg_size), (1000, 7));
    let err = Thresholds::from_kv_str("bcast_short_msg_size = -1").unwrap_err();
    assert_eq!(err.origin, "line 1");
    assert!(Thresholds::from_kv_str("[collectives]").is_err());
    let th = Thresholds::from_toml_str("[collectives]\nalltoall_short_msg_size = \"512\"\n").unwrap();
    assert_eq!(th.alltoall_short_msg_size, 512);
    let th = Thresholds::from_lookup(|v| (v == "PSINS_COLL_BCAST_MIN_PROCS").then(|| "4".to_string())).unwrap();
    assert_eq!(th.bcast_min_procs, 4);
    let err = Thresholds::from_lookup(|v| (v == "PSINS_COLL_BCAST_MIN_PROCS").then(|| "four".into())).unwrap_err();
    assert_eq!(err.origin, "PSINS_COLL_BCAST_MIN_PROCS");
    assert!(err.to_string().contains("four"));
    assert_eq!(Thresholds::from_env().unwrap_or_default().get("nope"), None);
}

#[test]
fn checker_catches_errors() {
    let ok = vec![vec![Step::Send { peer: 1, bytes: 4 }], vec![Step::Recv { peer: 0, bytes: 4 }]];
    assert_eq!(verify(&ok).unwrap().messages, 1);

    let size = vec![vec![Step::Send { peer: 1, bytes: 4 }], vec![Step::Recv { peer: 0, bytes: 5 }]];
    assert!(matches!(check_matching(&size), Err(CheckError::SizeMismatch { .. })));
    assert!(matches!(run_rendezvous(&size), Err(CheckError::SizeMismatch { .. })));

    let missing = vec![vec![Step::Send { peer: 1, bytes: 4 }], vec![]];
    assert!(matches!(check_matching(&missing), Err(CheckError::CountMismatch { .. })));

    // Both ranks send first: fine with buffering, a deadlock under rendezvous semantics.
    let cross = vec![
        vec![Step::Send { peer: 1, bytes: 1 }, Step::Recv { peer: 1, bytes: 1 }],
        vec![Step::Send { peer: 0, bytes: 1 }, Step::Recv { peer: 0, bytes: 1 }],
    ];
    assert!(check_matching(&cross).is_ok());
    let err = run_rendezvous(&cross).unwrap_err();
    assert!(matches!(err, CheckError::Deadlock { total_blocked: 2, .. }), "{err}");

    // The same exchange as one batch each: both sends posted with the receives, no deadlock.
    let batch = |peer| vec![Step::ISend { peer, bytes: 1 }, Step::IRecv { peer, bytes: 1 }, Step::WaitAll];
    assert_eq!(verify(&[batch(1), batch(0)]).unwrap().messages, 2);
    // Receives posted in a batch still match sends in FIFO order, pair by pair.
    let fifo = vec![
        vec![Step::IRecv { peer: 1, bytes: 2 }, Step::IRecv { peer: 1, bytes: 3 }, Step::WaitAll],
        vec![Step::Send { peer: 0, bytes: 2 }, Step::Send { peer: 0, bytes: 3 }],
    ];
    assert!(verify(&fifo).is_ok());
    let swapped = vec![fifo[0].clone(), vec![Step::Send { peer: 0, bytes: 3 }, Step::Send { peer: 0, bytes: 2 }]];
    assert!(matches!(run_rendezvous(&swapped), Err(CheckError::SizeMismatch { .. })));
    // A batch never waited for.
    let open = vec![vec![Step::ISend { peer: 1, bytes: 1 }], vec![Step::Recv { peer: 0, bytes: 1 }]];
    let err = run_rendezvous(&open).unwrap_err();
    assert_eq!(err, CheckError::UnclosedBatch { rank: 0, step: 0 }, "{err}");
    // A batch whose receive's sender waits for a receive the batch's rank posts only later.
    let stuck = vec![
        vec![Step::IRecv { peer: 1, bytes: 1 }, Step::WaitAll, Step::Send { peer: 1, bytes: 1 }],
        vec![Step::Recv { peer: 0, bytes: 1 }, Step::Send { peer: 0, bytes: 1 }],
    ];
    let err = run_rendezvous(&stuck).unwrap_err();
    assert!(matches!(err, CheckError::Deadlock { total_blocked: 2, .. }), "{err}");

    // Messages to itself: only in the steps MPICH uses for them (a batch's own block, a
    // sendrecv_replace with itself), matched and sized like any other.
    let own = vec![vec![Step::SendRecv { send_peer: 0, send_bytes: 1, recv_peer: 0, recv_bytes: 1 }]];
    assert_eq!(verify(&own), Ok(Summary { messages: 1, bytes: 1 }));
    let batch = vec![vec![Step::IRecv { peer: 0, bytes: 4 }, Step::ISend { peer: 0, bytes: 4 }, Step::WaitAll]];
    assert_eq!(verify(&batch), Ok(Summary { messages: 1, bytes: 4 }));
    for wrong in [
        Step::Send { peer: 0, bytes: 1 },
        Step::Recv { peer: 0, bytes: 1 },
        Step::SendRecv { send_peer: 0, send_bytes: 1, recv_peer: 1, recv_bytes: 1 },
    ] {
        let lists =
            vec![vec![wrong], vec![Step::SendRecv { send_peer: 0, send_bytes: 1, recv_peer: 0, recv_bytes: 1 }]];
        assert_eq!(verify(&lists), Err(CheckError::SelfMessage { rank: 0, step: 0 }), "{wrong:?}");
    }
    let sized = vec![vec![Step::IRecv { peer: 0, bytes: 4 }, Step::ISend { peer: 0, bytes: 5 }, Step::WaitAll]];
    assert!(matches!(verify(&sized), Err(CheckError::SizeMismatch { from: 0, to: 0, .. })));
    let unmatched = vec![vec![Step::ISend { peer: 0, bytes: 4 }, Step::WaitAll]];
    assert!(matches!(verify(&unmatched), Err(CheckError::CountMismatch { from: 0, to: 0, .. })));
    let far = vec![vec![Step::Send { peer: 5, bytes: 1 }]];
    assert!(matches!(verify(&far), Err(CheckError::BadPeer { .. })));
}

/// docs/collectives.md lists every threshold with its default, CVAR and variable.
#[test]
fn docs_list_every_threshold() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/collectives.md");
    let docs = std::fs::read_to_string(path).expect("docs/collectives.md");
    for info in THRESHOLD_TABLE {
        let row = docs
            .lines()
            .find(|l| l.starts_with(&format!("| `{}` |", info.name)))
            .unwrap_or_else(|| panic!("no row for {}", info.name));
        assert!(row.contains(&format!("| {} |", info.default)), "{row}");
        assert!(row.contains(&info.env_var()), "{row}");
        assert!(row.contains(info.mpich_cvar), "{row}");
    }
}
