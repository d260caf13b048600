//! Golden tests: tiny traces whose simulated times are worked out by hand in the comments.
//!
//! Test machine (common::BASE): one rank per node; network latency L = 1us and bandwidth
//! 1 GB/s, so 1000 bytes take S/B = 1us and an uncontended 1000-byte message takes 2us;
//! intra-node L = 0.5us, 2 GB/s. Eager threshold 64 KiB unless a test sets it.

use crate::common;
use common::*;
use psins_formats::*;

/// Ping-pong under every model (no contention: all agree).
/// r0 computes 10us, sends 1000 B (eager) at 10us → delivered 10 + 1 + 1 = 12us.
/// r1's receive, posted at 0, completes at 12us (waited 10us for the late sender);
/// r1 sends back at 12us → delivered 14us; r0's receive (posted at 10us) completes at 14us.
#[test]
fn ping_pong_every_model() {
    let tasks = vec![vec![send(10, 1, 1000), recv(0, 1, 1000), fin()], vec![recv(0, 0, 1000), send(0, 0, 1000), fin()]];
    for model in ["simple", "bus", "inlink", "outlink", "pmac"] {
        let r = run(&tasks, &[&format!("network.model={model}")]);
        assert_eq!(predicted(&r), 14 * US, "{model}");
        assert_eq!(end(&r, 1), 12 * US, "{model}");
        assert_eq!(r.tasks[1].wait, 10 * US, "{model}: r1 waited for the late sender");
        assert_eq!(r.tasks[0].compute, 10 * US, "{model}");
        assert_eq!(r.tasks[0].comm, 4 * US, "{model}: send 0us + receive 4us");
    }
}

/// Two 1000-byte messages at t = 0 on disjoint pairs (r0→r1, r2→r3).
/// simple: both delivered at 2us. bus with 1 bus: the first (r0, queued first) holds the bus
/// [0, 1us) → delivered 2us; the second starts at 1us → delivered 1 + 1 + 1 = 3us.
/// With 2 buses no contention: 2us. inlink/outlink: different nodes, no contention: 2us.
#[test]
fn two_messages_contend_for_one_bus() {
    let tasks = vec![
        vec![send(0, 1, 1000), fin()],
        vec![recv(0, 0, 1000), fin()],
        vec![send(0, 3, 1000), fin()],
        vec![recv(0, 2, 1000), fin()],
    ];
    let r = run(&tasks, &["network.model=bus", "network.buses=1"]);
    assert_eq!((end(&r, 1), end(&r, 3)), (2 * US, 3 * US));
    assert_eq!(predicted(&r), 3 * US);
    for sets in [
        &["network.model=bus", "network.buses=2"][..],
        &["network.model=simple"],
        &["network.model=inlink"],
        &["network.model=outlink"],
    ] {
        assert_eq!(predicted(&run(&tasks, sets)), 2 * US, "{sets:?}");
    }
}

/// r0 and r1 both send 1000 B to r2 at t = 0; r2 receives from 0 then from 1.
/// inlink (1 link): r0's message holds r2's link [0, 1us) → delivered 2us; r1's starts at
/// 1us → delivered 3us. r2: first receive done at 2us, second posted at 2us, done at 3us.
/// outlink: different sources → both delivered at 2us.
#[test]
fn two_messages_contend_for_one_incoming_link() {
    let tasks = vec![
        vec![send(0, 2, 1000), fin()],
        vec![send(0, 2, 1000), fin()],
        vec![recv(0, 0, 1000), recv(0, 1, 1000), fin()],
    ];
    assert_eq!(predicted(&run(&tasks, &["network.model=inlink"])), 3 * US);
    assert_eq!(predicted(&run(&tasks, &["network.model=outlink"])), 2 * US);
    assert_eq!(predicted(&run(&tasks, &["network.model=inlink", "network.in_links=2"])), 2 * US);
}

/// r0 isends 1000 B to r1 and to r2 at t = 0, then waits (eager: done at 0).
/// outlink (1 link): first delivered at 2us, second starts when r0's link frees at 1us →
/// delivered 3us. inlink: different destinations → 2us.
#[test]
fn two_messages_contend_for_one_outgoing_link() {
    let tasks = vec![
        vec![isend(0, 1, 1000, 1), isend(0, 2, 1000, 2), waitall(0, &[(1, NO_RANK, 1000), (2, NO_RANK, 1000)]), fin()],
        vec![recv(0, 0, 1000), fin()],
        vec![recv(0, 0, 1000), fin()],
    ];
    let r = run(&tasks, &["network.model=outlink"]);
    assert_eq!((end(&r, 0), end(&r, 1), end(&r, 2)), (0, 2 * US, 3 * US));
    assert_eq!(predicted(&run(&tasks, &["network.model=inlink"])), 2 * US);
}

/// PMaC with one bus: the second of two simultaneous messages sees 2 messages in flight on
/// 1 bus → load 2 → S·load/B = 2us → delivered 0 + 1 + 2 = 3us; the first: load 1 → 2us.
/// With 4 buses the load is max(2/4, 1/1, 1/1) = 1 → both 2us.
#[test]
fn pmac_scales_bandwidth_by_load() {
    let tasks = vec![
        vec![send(0, 1, 1000), fin()],
        vec![recv(0, 0, 1000), fin()],
        vec![send(0, 3, 1000), fin()],
        vec![recv(0, 2, 1000), fin()],
    ];
    let r = run(&tasks, &["network.model=pmac", "network.buses=1"]);
    assert_eq!((end(&r, 1), end(&r, 3)), (2 * US, 3 * US));
    assert_eq!(predicted(&run(&tasks, &["network.model=pmac", "network.buses=4"])), 2 * US);
}

/// Eager (≤ threshold 1000 B) vs rendezvous (above). r1 computes 5us before its receive.
/// Eager 1000 B: r0's send completes at 0; delivered 2us; r1's receive (posted 5us) done 5us.
/// Rendezvous 2000 B (S/B = 2us): RTS reaches r1 at 1us; r1 posts at 5us, CTS back at 6us;
/// data delivered 6 + 1 + 2 = 9us; both sides complete at 9us; r0 waited 5us for r1.
#[test]
fn eager_vs_rendezvous() {
    let sets = &["mpi.eager_threshold=1000"];
    let eager = run(&[vec![send(0, 1, 1000), fin()], vec![recv(5, 0, 1000), fin()]], sets);
    assert_eq!((end(&eager, 0), end(&eager, 1)), (0, 5 * US));
    let rdv = run(&[vec![send(0, 1, 2000), fin()], vec![recv(5, 0, 2000), fin()]], sets);
    assert_eq!((end(&rdv, 0), end(&rdv, 1)), (9 * US, 9 * US));
    assert_eq!(rdv.tasks[0].wait, 5 * US);
    // Without the handshake the data leaves when the receive is posted: 5 + 1 + 2 = 8us.
    let bare = run(
        &[vec![send(0, 1, 2000), fin()], vec![recv(5, 0, 2000), fin()]],
        &["mpi.eager_threshold=1000", "mpi.rendezvous_handshake=false"],
    );
    assert_eq!(predicted(&bare), 8 * US);
}

/// Synchronous send of 1000 B (eager size): data delivered at 2us, but the receive is posted
/// only at 5us; the acknowledgement takes L = 1us → the send completes at 6us.
#[test]
fn synchronous_send_waits_for_the_match() {
    let r = run(&[vec![ssend(0, 1, 1000), fin()], vec![recv(5, 0, 1000), fin()]], &[]);
    assert_eq!((end(&r, 0), end(&r, 1)), (6 * US, 5 * US));
}

/// 4-rank analytic allreduce of 1000 B: ranks arrive at 0, 1, 2, 3us; all leave at
/// last arrival + 2·ceil(log2 4)·(L + S/B) = 3 + 2·2·2 = 11us. Rank 0 waited 3us.
/// With shape "linear" the factor is P−1 = 3: 3 + 3·2 = 9us.
#[test]
fn analytic_collective_four_ranks() {
    let tasks: Vec<Vec<Record>> = (0..4).map(|r| vec![allreduce(r, 1000, 1), fin()]).collect();
    let r = run(&tasks, &[]);
    assert_eq!(predicted(&r), 11 * US);
    assert!(r.tasks.iter().all(|t| t.end == 11 * US));
    assert_eq!(r.tasks[0].wait, 3 * US);
    assert_eq!(r.tasks[3].wait, 0);
    let lin = run(&tasks, &["mpi.collective_shape.allreduce=linear"]);
    assert_eq!(predicted(&lin), 9 * US);
}

/// The same arrivals (0, 1, 2, 3us) without an explicit shape: the cost of MPICH's
/// algorithm. A 1024-B allreduce (128 doubles) over 4 ranks is above the 8-B short-message
/// size with a built-in op and count ≥ 4, so Rabenseifner's: reduce-scatter by recursive
/// halving (exchange 512 B, then 256 B) and allgather by recursive doubling (256 B, then
/// 512 B), every exchange eager on its own node pair: L + S/B = 1.512, 1.256, 1.256, 1.512us
/// = 5.536us. All leave at 3 + 5.536 = 8.536us.
#[test]
fn analytic_collective_from_the_algorithm() {
    let tasks: Vec<Vec<Record>> = (0..4).map(|r| vec![allreduce(r, 1024, 1), fin()]).collect();
    let text = BASE.replace("allreduce = \"2*log\"\n", "");
    let m = psins_sim::Machine::from_str(std::path::Path::new("m.toml"), &text, &[]).unwrap();
    let r = replay(&tasks, &m).unwrap();
    assert_eq!(predicted(&r), 8_536_000);
    assert!(r.tasks.iter().all(|t| t.end == 8_536_000));
}

/// CPU ratio 2: r0's 10us burst takes 5us; its 1000-B message is delivered at 7us.
/// Node 1 has ratio 0.5: r1's 4us burst takes 8us, so its receive completes at 8us.
#[test]
fn cpu_ratio_two() {
    let tasks = vec![vec![send(10, 1, 1000), fin()], vec![recv(0, 0, 1000), fin()]];
    let r = run(&tasks, &["machine.cpu_ratio=2.0"]);
    assert_eq!((r.tasks[0].compute, predicted(&r)), (5 * US, 7 * US));
    let tasks = vec![vec![send(10, 1, 1000), fin()], vec![recv(4, 0, 1000), fin()]];
    let m = machine(&["machine.cpu_ratio=2.0"]);
    let text = format!(
        "{}\n[[machine.cpu]]\nnodes = [1]\nratio = 0.5\n",
        BASE.replace("cores_per_node = 1", "cores_per_node = 1\ncpu_ratio = 2.0")
    );
    let m2 = psins_sim::Machine::from_str(std::path::Path::new("m.toml"), &text, &[]).unwrap();
    assert_eq!(m.cpu.default, 2.0);
    let r = replay(&tasks, &m2).unwrap();
    assert_eq!((r.tasks[1].compute, predicted(&r)), (8 * US, 8 * US));
}

/// Two ranks on one node use the intra-node link: 1000 B take 0.5 + 0.5 = 1us.
#[test]
fn intra_node_messages_use_the_node_link() {
    let r = run(&[vec![send(0, 1, 1000), fin()], vec![recv(0, 0, 1000), fin()]], &["machine.cores_per_node=2"]);
    assert_eq!(predicted(&r), US);
    assert_eq!(r.stats.intra_messages, 1);
}

/// pmac costs a collective by the calibration's curve of that collective at the call's size,
/// the largest block any member sends to or receives from one peer (what psins-calibrate's
/// curves are measured at). Two ranks call MPI_Alltoallv with 100 B to rank 0 and 300 B to
/// rank 1, then MPI_Reduce_scatter_block with 256 B of the result each (512 B sent): the
/// alltoallv curve at 300 B is 3us, the reduce_scatter_block curve at 512 B 5us (the alltoall
/// curve, 1 ms, is not read). Both ranks arrive at 0: the alltoallv ends at 3us, the
/// reduce_scatter_block at 3 + 5 = 8us.
#[test]
fn pmac_keys_a_collective_by_its_largest_block() {
    let curves = tmp("curves.toml");
    std::fs::write(
        &curves,
        "[[curve]]\ncollective = \"alltoallv\"\nranks = 2\nbytes = [100, 300, 1000]\nseconds = [1e-6, 3e-6, 1e-5]\n\
         [[curve]]\ncollective = \"alltoall\"\nranks = 2\nbytes = [100, 300]\nseconds = [1e-3, 1e-3]\n\
         [[curve]]\ncollective = \"reduce_scatter_block\"\nranks = 2\nbytes = [256, 512]\nseconds = [2e-6, 5e-6]\n",
    )
    .unwrap();
    let coll = |coll: Coll, send_bytes: u64, recv_bytes: u64, instance: u32| Op::Coll {
        coll,
        comm: COMM_WORLD,
        root: NO_RANK,
        send_bytes,
        recv_bytes,
        count: 0,
        flags: 0,
        req: 0,
        instance,
    };
    let rank = || {
        vec![
            rec(0, coll(Coll::Alltoallv, 400, 400, 1)).with_list(vec![100, 300, 100, 300]),
            rec(0, coll(Coll::ReduceScatterBlock, 512, 256, 2)),
            fin(),
        ]
    };
    let calibration = format!("network.calibration={}", curves.display());
    let r = run(&[rank(), rank()], &["network.model=pmac", "mpi.collectives=analytic", &calibration]);
    assert_eq!(predicted(&r), 8 * US);
}
