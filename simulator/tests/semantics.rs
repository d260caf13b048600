//! MPI semantics beyond the golden timings: deadlocks, wildcards, persistent requests,
//! probes, bad records, expanded collectives, determinism.

use crate::common;
use common::*;
use psins_formats::*;
use psins_sim::source::compact::CompactTrace;
use psins_sim::source::synth::{write_trace, SynthSource, Workload};
use psins_sim::{simulate, Options, SimError};

/// Both ranks receive first: nothing can progress. The report names both tasks, their call
/// and what they wait for; the error maps to exit code 2.
#[test]
fn unmatched_receive_is_a_deadlock() {
    let tasks = vec![vec![recv(0, 1, 8), send(0, 1, 8), fin()], vec![recv(0, 0, 8), send(0, 0, 8), fin()]];
    let err = replay(&tasks, &machine(&[])).unwrap_err();
    let SimError::Deadlock(text) = &err else { panic!("expected a deadlock, got {err}") };
    assert!(text.contains("rank 0: MPI_Recv (record 0"), "{text}");
    assert!(text.contains("rank 1: MPI_Recv"), "{text}");
    assert!(text.contains("a message from world rank 1 with tag 7"), "{text}");
    assert_eq!(err.exit_code(), psins_sim::error::Exit::Deadlock);
}

/// A collective some members never join is reported with the missing ranks.
#[test]
fn missing_collective_member_is_reported() {
    let tasks = vec![vec![allreduce(0, 8, 1), fin()], vec![allreduce(0, 8, 1), fin()], vec![fin()]];
    let err = replay(&tasks, &machine(&[])).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("missing world ranks 2"), "{text}");
}

/// r2 posts a wildcard receive; the trace says it got r1's message (sent at 5us), although
/// r0's (sent at 0) arrives first. Resolving the wildcard from the completion record makes
/// the first receive take r1's message (done 7us) and the later Recv(from 0) take r0's.
/// Replaying with the wildcard would take r0's first and then deadlock.
#[test]
fn wildcard_receive_uses_the_recorded_source() {
    let tasks = vec![
        vec![send(0, 2, 1000), fin()],
        vec![send(5, 2, 1000), fin()],
        vec![irecv(0, ANY_SOURCE, 1000, 1), waitall(0, &[(1, 1, 1000)]), recv(0, 0, 1000), fin()],
    ];
    let r = run(&tasks, &[]);
    assert_eq!(predicted(&r), 7 * US);
    assert_eq!(r.stats.unresolved_wildcards, 0);
}

/// Persistent send/receive started twice; each round moves 1000 B (2us).
#[test]
fn persistent_requests_restart() {
    let si = rec(0, Op::SendInit { mode: SendMode::Standard, peer: 1, tag: 7, bytes: 1000, comm: COMM_WORLD, req: 5 });
    let ri = rec(0, Op::RecvInit { peer: 0, tag: 7, bytes: 1000, comm: COMM_WORLD, req: 9 });
    let start = |r| rec(0, Op::Start { req: r });
    let tasks = vec![
        vec![
            si,
            start(5),
            waitall(0, &[(5, NO_RANK, 1000)]),
            start(5),
            waitall(0, &[(5, NO_RANK, 1000)]),
            rec(0, Op::RequestFree { req: 5 }),
            fin(),
        ],
        vec![ri, start(9), waitall(0, &[(9, 0, 1000)]), start(9), waitall(0, &[(9, 0, 1000)]), fin()],
    ];
    let r = run(&tasks, &[]);
    // Both sends leave at 0 (eager); the second is delivered at 2us too (no contention).
    assert_eq!(predicted(&r), 2 * US);
    assert_eq!(r.stats.messages, 2);
}

/// A blocking probe waits for the envelope (eager: the data, at 2us), then the receive
/// completes at once.
#[test]
fn probe_waits_for_the_message() {
    let probe = rec(
        0,
        Op::Probe { peer: 0, tag: 7, bytes: 1000, comm: COMM_WORLD, flags: ProbeFlags::BLOCKING | ProbeFlags::FOUND },
    );
    let r = run(&[vec![send(3, 1, 1000), fin()], vec![probe, recv(0, 0, 1000), fin()]], &[]);
    assert_eq!(predicted(&r), 5 * US);
}

/// A send to a rank outside the communicator is a bad record naming the task and index.
#[test]
fn bad_peer_names_task_and_record() {
    let err = replay(&[vec![rec(0, Op::Init { thread_level: 0 }), send(0, 5, 8), fin()], vec![fin()]], &machine(&[]))
        .unwrap_err();
    assert_eq!(err.to_string(), "rank 0, record 1: peer 5 is outside communicator 0 (size 2)");
    assert_eq!(err.exit_code(), psins_sim::error::Exit::BadInput);
}

/// Sub-communicators: a CommCreate lists the members as world ranks; peers are local.
#[test]
fn sub_communicator_translates_ranks() {
    let create = |members: &[i64]| {
        rec(0, Op::CommCreate { func: CommFn::Split, parent: 0, comm: 4, split: 0 }).with_list(members.to_vec())
    };
    let s = rec(0, Op::Send { mode: SendMode::Standard, peer: 1, tag: 1, bytes: 1000, comm: 4 });
    let rv = rec(0, Op::Recv { peer: 0, tag: 1, bytes: 1000, comm: 4 });
    let tasks = vec![vec![create(&[0, 2]), s, fin()], vec![fin()], vec![create(&[0, 2]), rv, fin()]];
    assert_eq!(predicted(&run(&tasks, &[])), 2 * US);
}

/// Intercommunicators: a peer is a rank of the caller's remote group (groups {0, 2} and {1}
/// here, each task listing its own group first); the same 2 µs as on the world.
#[test]
fn intercommunicator_peers_are_remote_ranks() {
    let create = |members: &[i64], split| {
        rec(0, Op::CommCreate { func: CommFn::IntercommCreate, parent: 0, comm: 4, split }).with_list(members.to_vec())
    };
    let s = rec(0, Op::Send { mode: SendMode::Standard, peer: 0, tag: 1, bytes: 1000, comm: 4 });
    let rv = rec(0, Op::Recv { peer: 1, tag: 1, bytes: 1000, comm: 4 });
    let tasks = vec![
        vec![create(&[0, 2, 1], 2), fin()],
        vec![create(&[1, 0, 2], 1), rv, fin()],
        vec![create(&[0, 2, 1], 2), s, fin()],
    ];
    assert_eq!(predicted(&run(&tasks, &[])), 2 * US);
    // remote rank 1 does not exist for group {0, 2}
    let bad = rec(0, Op::Send { mode: SendMode::Standard, peer: 1, tag: 1, bytes: 8, comm: 4 });
    let tasks = vec![vec![create(&[0, 2, 1], 2), bad, fin()], vec![create(&[1, 0, 2], 1), fin()], vec![fin()]];
    let err = replay(&tasks, &machine(&[])).unwrap_err();
    assert_eq!(err.to_string(), "rank 0, record 1: peer 1 is outside the remote group of intercommunicator 4 (size 1)");
}

/// Processes outside the traced job (an intercommunicator's spawned group) are an error where
/// a replay would need them, never an index out of range or a deadlock.
#[test]
fn processes_outside_the_job_are_reported() {
    let outside = NO_RANK as i64;
    let create = |list: Vec<i64>, split| {
        rec(0, Op::CommCreate { func: CommFn::Other, parent: 0, comm: 4, split }).with_list(list)
    };
    let barrier = rec(
        0,
        Op::Coll {
            coll: Coll::Barrier,
            comm: 4,
            root: NO_RANK,
            send_bytes: 0,
            recv_bytes: 0,
            count: 0,
            flags: 0,
            req: 0,
            instance: 1,
        },
    );
    let m = machine(&["mpi.collectives=expanded"]);
    let err = |tasks: &[Vec<Record>]| replay(tasks, &m).unwrap_err().to_string();
    let e = err(&[vec![create(vec![0, outside], 0), barrier.clone(), fin()]]);
    assert!(e.contains("outside the traced job among its own members"), "{e}");
    let e = err(&[vec![create(vec![outside, 0], 1), fin()]]);
    assert!(e.contains("local group lists processes outside the job"), "{e}");
    let spawned = create(vec![0, outside, outside], 1);
    let send = rec(0, Op::Send { mode: SendMode::Standard, peer: 1, tag: 1, bytes: 8, comm: 4 });
    let e = err(&[vec![spawned.clone(), send, fin()]]);
    assert!(e.contains("is a process outside the traced job"), "{e}");
    let e = err(&[vec![spawned, barrier, fin()]]);
    assert!(e.contains("outside the traced job (spawned): it cannot be replayed"), "{e}");
}

/// Expanded collectives: the trace's own Step records and psins-collectives' expansion of a
/// trace without them give the same replay; both complete under every model.
#[test]
fn expanded_collectives_from_trace_or_generated() {
    let w = Workload::parse("gen:stencil2d:ranks=16,iters=3,bytes=2KiB").unwrap();
    let (with, without) = (tmp("with.psins"), tmp("without.psins"));
    write_trace(&w, &with, None, true).unwrap();
    write_trace(&w, &without, None, false).unwrap();
    for model in ["simple", "bus", "inlink", "outlink", "pmac"] {
        let m = machine(&["mpi.collectives=expanded", &format!("network.model={model}"), "machine.nodes=16"]);
        let a = simulate(CompactTrace::open(&with).unwrap(), &m, Options::default()).unwrap();
        let b = simulate(CompactTrace::open(&without).unwrap(), &m, Options::default()).unwrap();
        assert_eq!(a.predicted, b.predicted, "{model}");
        assert_eq!(a.stats.messages, b.stats.messages, "{model}");
        assert!(a.stats.messages > 16 * 3 * 4, "{model}: steps replayed as messages");
    }
}

/// Every synthetic workload replays under every model, from the generator and from its
/// written trace, with identical results.
#[test]
fn synthetic_workloads_replay_everywhere() {
    for spec in [
        "gen:stencil2d:ranks=12,iters=3",
        "gen:stencil3d:ranks=8,iters=2",
        "gen:pingpong:ranks=4,iters=5,bytes=100KiB",
        "gen:alltoall:ranks=6,iters=2,bytes=1KiB",
    ] {
        let w = Workload::parse(spec).unwrap();
        let path = tmp("w.psins");
        write_trace(&w, &path, None, false).unwrap();
        for model in ["simple", "bus", "inlink", "outlink", "pmac"] {
            for mode in ["analytic", "expanded"] {
                let m = machine(&[
                    &format!("network.model={model}"),
                    &format!("mpi.collectives={mode}"),
                    "machine.nodes=4",
                    "machine.cores_per_node=4",
                ]);
                let a = simulate(SynthSource::new(w.clone()), &m, Options::default())
                    .unwrap_or_else(|e| panic!("{spec} {model} {mode}: {e}"));
                let b = simulate(CompactTrace::open(&path).unwrap(), &m, Options::default()).unwrap();
                assert_eq!(
                    a.json(),
                    b.json()
                        .as_object()
                        .map(|o| {
                            let mut o = o.clone();
                            o.insert("source".into(), a.json()["source"].clone());
                            serde_json::Value::Object(o)
                        })
                        .unwrap(),
                    "{spec} {model} {mode}"
                );
                assert!(a.predicted > 0);
            }
        }
    }
}

/// Same input, same bytes out.
#[test]
fn replay_is_deterministic() {
    let w = Workload::parse("gen:stencil2d:ranks=64,iters=5,bytes=100KiB").unwrap();
    let path = tmp("d.psins");
    write_trace(&w, &path, Some(3), false).unwrap();
    let m = machine(&["network.model=bus", "machine.nodes=8", "machine.cores_per_node=8"]);
    let once = || {
        serde_json::to_string_pretty(
            &simulate(CompactTrace::open(&path).unwrap(), &m, Options::default()).unwrap().json(),
        )
        .unwrap()
    };
    assert_eq!(once(), once());
}

/// The JSON report has the documented fields.
#[test]
fn json_report_fields() {
    let r =
        run(&[vec![send(10, 1, 1000), recv(0, 1, 1000), fin()], vec![recv(0, 0, 1000), send(0, 0, 1000), fin()]], &[]);
    let j = r.json();
    assert_eq!(j["predicted_seconds"].as_f64(), Some(14e-6));
    assert_eq!(j["tasks"][1]["rank"], 1);
    assert_eq!(j["tasks"][1]["wait_s"].as_f64(), Some(10e-6));
    assert_eq!(j["functions"]["MPI_Recv"]["count"], 2);
    assert_eq!(j["functions"]["MPI_Send"]["count"], 2);
    assert!(j["message_sizes"].as_array().unwrap().len() == 1);
}

/// A rendezvous send nobody receives: the report says where it is stuck.
#[test]
fn unreceived_rendezvous_send_is_reported() {
    let err = replay(&[vec![send(0, 1, 100_000), fin()], vec![fin()]], &machine(&[])).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("rank 0: MPI_Send"), "{text}");
    assert!(text.contains("its send to world rank 1 with tag 7 on communicator 0 to be received"), "{text}");
}

/// The timeline of the ping-pong golden case: r0 computes [0, 10us), sends at 10us (0 long),
/// receives [10us, 14us); r1 receives [0, 12us) and sends at 12us. Times are in µs.
#[test]
fn timeline_slices_match_the_replay() {
    let tasks = vec![vec![send(10, 1, 1000), recv(0, 1, 1000), fin()], vec![recv(0, 0, 1000), send(0, 0, 1000), fin()]];
    let path = write("pp.psins", &tasks, vec![]);
    let tl_path = tmp("tl.json");
    let tl = psins_sim::timeline::Timeline::create(&tl_path, None, None).unwrap();
    simulate(CompactTrace::open(&path).unwrap(), &machine(&[]), Options { timeline: Some(tl), ..Default::default() })
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&tl_path).unwrap()).unwrap();
    let slices: Vec<(u64, String, f64, f64)> = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| {
            (
                e["tid"].as_u64().unwrap(),
                e["name"].as_str().unwrap().to_string(),
                e["ts"].as_f64().unwrap(),
                e["dur"].as_f64().unwrap(),
            )
        })
        .collect();
    let has =
        |t: u64, n: &str, ts: f64, dur: f64| slices.iter().any(|s| s.0 == t && s.1 == n && s.2 == ts && s.3 == dur);
    assert!(has(0, "compute", 0.0, 10.0), "{slices:?}");
    assert!(has(0, "MPI_Send", 10.0, 0.0), "{slices:?}");
    assert!(has(0, "MPI_Recv", 10.0, 4.0), "{slices:?}");
    assert!(has(1, "MPI_Recv", 0.0, 12.0), "{slices:?}");
    assert!(has(1, "MPI_Send", 12.0, 0.0), "{slices:?}");
    // The window filter clips: rank 1 in [11us, 13us] only.
    let tl = psins_sim::timeline::Timeline::create(&tl_path, Some("1"), Some("11us:13us")).unwrap();
    simulate(CompactTrace::open(&path).unwrap(), &machine(&[]), Options { timeline: Some(tl), ..Default::default() })
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&tl_path).unwrap()).unwrap();
    let x: Vec<_> = v["traceEvents"].as_array().unwrap().iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(x.len(), 3, "receive, send and finalize: {x:?}");
    assert_eq!((x[0]["ts"].as_f64(), x[0]["dur"].as_f64()), (Some(11.0), Some(1.0)));
}
