//! Records a process cannot have made: each is an error naming the task
//! and the record, exit code 1, never a replay that quietly means something else. The traces
//! are written by hand through the real writer, as a buggy importer would write them;
//! psins-consolidate never produces them (it refuses the request cases itself).

use crate::common;
use common::*;
use psins_formats::*;

/// Replays `tasks` expecting a bad-record error; returns its message.
fn refused(tasks: &[Vec<Record>]) -> String {
    let e = replay(tasks, &machine(&[])).expect_err("a meaningless record must be refused");
    assert_eq!(e.exit_code(), psins_sim::error::Exit::BadInput, "{e}");
    assert!(matches!(e, psins_sim::SimError::BadRecord { .. }), "{e:?}");
    e.to_string()
}

fn init() -> Record {
    rec(0, Op::Init { thread_level: 0 })
}
fn wait_list(func: WaitFn, count: u32, list: Vec<i64>) -> Record {
    rec(0, Op::Wait { func, count }).with_list(list)
}
fn coll(instance: u32) -> Record {
    allreduce(0, 8, instance)
}
fn step(instance: u32, op: StepOp, peer: i32) -> Record {
    rec(0, Op::Step { instance, op, peer, bytes: 8, peer2: NO_RANK, bytes2: 0 })
}

#[test]
fn a_wait_on_a_request_never_created() {
    let e = refused(&[vec![init(), waitall(0, &[(5, NO_RANK, 0)]), fin()]]);
    assert_eq!(e, "rank 0, record 1: completes request 5, which this rank never created (or which already completed or was freed)");
    // Completed once already: the second wait names a request that is gone.
    let twice = vec![isend(0, 1, 8, 1), waitall(0, &[(1, NO_RANK, 0)]), waitall(0, &[(1, NO_RANK, 0)]), fin()];
    let e = refused(&[twice, vec![recv(0, 0, 8), fin()]]);
    assert!(e.starts_with("rank 0, record 2: completes request 1"), "{e}");
    // Waiting on an inactive persistent request is legal MPI: it returns at once.
    let init_req = rec(0, Op::RecvInit { peer: 1, tag: 7, bytes: 8, comm: COMM_WORLD, req: 3 });
    run(&[vec![init_req, waitall(0, &[(3, NO_RANK, 0)]), fin()], vec![fin()]], &[]);
}

#[test]
fn a_malformed_completion_list() {
    let two = vec![irecv(0, 1, 8, 1), irecv(0, 1, 8, 2)];
    let sender = vec![send(0, 0, 8), send(0, 0, 8), fin()];
    let with = |w: Record| {
        let mut t = two.clone();
        t.extend([w, fin()]);
        vec![t, sender.clone()]
    };
    // Not whole quadruples (a writer never makes one, the format allows decoding it).
    let e = refused(&with(wait_list(WaitFn::Waitall, 2, vec![1, 1, 7, 8, 2])));
    assert_eq!(e, "rank 0, record 2: MPI_Waitall's completion list has 5 values, not whole [request, source, tag, bytes] quadruples");
    // More completions than requests passed.
    let e = refused(&with(wait_list(WaitFn::Waitsome, 1, vec![1, 1, 7, 8, 2, 1, 7, 8])));
    assert!(e.ends_with("MPI_Waitsome lists 2 completions for a call over 1 requests"), "{e}");
    // Waitany completes one request.
    let e = refused(&with(wait_list(WaitFn::Waitany, 2, vec![1, 1, 7, 8, 2, 1, 7, 8])));
    assert!(e.ends_with("MPI_Waitany lists 2 completions, but completes at most one request"), "{e}");
    // The same request twice in one call.
    let e = refused(&with(wait_list(WaitFn::Waitall, 2, vec![1, 1, 7, 8, 1, 1, 7, 8])));
    assert_eq!(e, "rank 0, record 2: request 1 is completed twice in one call");
    // The well-formed list replays.
    run(&with(wait_list(WaitFn::Waitall, 2, vec![1, 1, 7, 8, 2, 1, 7, 8])), &[]);
}

#[test]
fn a_request_id_reused_while_live_or_freed_or_cancelled_unknown() {
    let e = refused(&[vec![isend(0, 1, 8, 4), isend(0, 1, 8, 4), fin()], vec![recv(0, 0, 8), recv(0, 0, 8), fin()]]);
    assert!(e.starts_with("rank 0, record 1: request 4 created again while still in use"), "{e}");
    let e = refused(&[vec![init(), rec(0, Op::RequestFree { req: 9 }), fin()]]);
    assert!(e.starts_with("rank 0, record 1: frees request 9, which this rank never created"), "{e}");
    let e = refused(&[vec![rec(0, Op::Cancel { req: 2 }), fin()]]);
    assert!(e.starts_with("rank 0, record 0: cancels request 2, which this rank never created"), "{e}");
    // After its wait, an id may be used again (consolidation reuses ids densely).
    let reuse =
        vec![isend(0, 1, 8, 4), waitall(0, &[(4, NO_RANK, 0)]), isend(0, 1, 8, 4), waitall(0, &[(4, NO_RANK, 0)])];
    run(&[[reuse, vec![fin()]].concat(), vec![recv(0, 0, 8), recv(0, 0, 8), fin()]], &[]);
}

#[test]
fn records_after_finalize_or_abort_and_a_second_init() {
    let e = refused(&[vec![init(), fin(), send(0, 0, 8)]]);
    assert_eq!(e, "rank 0, record 2: a send record after MPI_Finalize: a process makes no MPI call after it");
    let e = refused(&[vec![init(), rec(0, Op::Abort { code: 3 }), fin()]]);
    assert_eq!(e, "rank 0, record 2: a finalize record after MPI_Abort: a process makes no MPI call after it");
    let e = refused(&[vec![fin()], vec![init(), send(0, 0, 8), init(), fin()]]);
    assert_eq!(e, "rank 1, record 2: a second MPI_Init: MPI is initialised once per process");
}

#[test]
fn collective_instances_that_disagree() {
    // Instances go backwards on rank 1: its collectives are numbered out of call order.
    let e = refused(&[vec![coll(1), coll(2), fin()], vec![coll(2), coll(1), fin()]]);
    assert_eq!(
        e,
        "rank 1, record 1: collective instance 1 after instance 2: a rank numbers its collectives in call order, so instances only increase"
    );
    // A step naming another collective than the one it follows; a step after an unrelated
    // record. Both modes: analytic replay used to skip such steps silently.
    for mode in ["analytic", "expanded"] {
        let m = machine(&[&format!("mpi.collectives={mode}")]);
        let stray = [coll(1), step(2, StepOp::Send, 1), fin()];
        let e = replay(&[stray.to_vec(), vec![coll(1), fin()]], &m).unwrap_err().to_string();
        assert_eq!(
            e, "rank 0, record 1: expansion step of collective instance 2 follows collective instance 1",
            "{mode}"
        );
        let late = [coll(1), send(0, 1, 8), step(1, StepOp::Send, 1), fin()];
        let e = replay(&[late.to_vec(), vec![coll(1), recv(0, 0, 8), fin()]], &m).unwrap_err().to_string();
        assert!(
            e.starts_with("rank 0, record 2: expansion step of collective instance 1 does not follow"),
            "{mode}: {e}"
        );
    }
    // Steps right after their own collective replay.
    let own = |r: i32| vec![coll(1), step(1, StepOp::SendRecv, 1 - r), fin()];
    let mut a = own(0);
    let mut b = own(1);
    for (t, peer) in [(&mut a, 1), (&mut b, 0)] {
        t[1] = rec(0, Op::Step { instance: 1, op: StepOp::SendRecv, peer, bytes: 8, peer2: peer, bytes2: 8 });
    }
    let r = run(&[a, b], &["mpi.collectives=expanded"]);
    assert_eq!(r.stats.messages, 2);
}

/// An expansion step naming a rank outside the collective's communicator: the message
/// psins-consolidate gives for the same record in a log (`psins_formats::comms::Reach`).
#[test]
fn a_step_peer_outside_the_communicator() {
    let m = machine(&["mpi.collectives=expanded"]);
    let e = replay(&[vec![coll(1), step(1, StepOp::Send, 5), fin()], vec![coll(1), fin()]], &m).unwrap_err();
    assert_eq!(e.exit_code(), psins_sim::error::Exit::BadInput, "{e}");
    assert_eq!(e.to_string(), "rank 0, record 1: peer 5 is outside communicator 0 (size 2)");
}

/// The same in a nonblocking collective: its steps are read with its Coll record and posted
/// by its schedule (engine/nbc.rs), a path of its own; the error names the Coll record.
#[test]
fn a_nonblocking_step_peer_outside_the_communicator() {
    let m = machine(&["mpi.collectives=expanded"]);
    let mut icoll = coll(1);
    if let Op::Coll { flags, req, .. } = &mut icoll.op {
        (*flags, *req) = (*flags | CollFlags::NONBLOCKING, 1);
    }
    let wait = waitall(0, &[(1, NO_RANK, 0)]);
    let bad = vec![icoll.clone(), step(1, StepOp::Send, 5), wait.clone(), fin()];
    let e = replay(&[bad, vec![icoll, wait, fin()]], &m).unwrap_err();
    assert_eq!(e.exit_code(), psins_sim::error::Exit::BadInput, "{e}");
    assert_eq!(e.to_string(), "rank 0, record 0: peer 5 is outside communicator 0 (size 2)");
}

/// Members of one collective naming different roots (analytic replay took the first one's).
#[test]
fn collective_roots_that_disagree() {
    let bcast = |root: i32| {
        let op = Op::Coll {
            coll: Coll::Bcast,
            comm: COMM_WORLD,
            root,
            send_bytes: 8,
            recv_bytes: 8,
            count: 1,
            flags: 0,
            req: 0,
            instance: 1,
        };
        vec![rec(0, op), fin()]
    };
    let e = refused(&[bcast(0), bcast(1)]);
    assert_eq!(
        e,
        "rank 1, record 0: collective #1 on communicator 0 (MPI_Bcast) has root 1 here but 0 on other members"
    );
    run(&[bcast(1), bcast(1)], &[]);
}
