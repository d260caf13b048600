//! Arbitrary record sequences — most of them meaningless — never panic or hang the engine:
//! each replay ends with a report, a deadlock report or a bad-record error.

use crate::common;
use common::*;
use proptest::prelude::*;
use psins_formats::*;

fn op() -> impl Strategy<Value = Record> {
    let peer = -3i32..4;
    let tag = -1i32..3;
    let bytes = prop_oneof![Just(0u64), 1u64..100, 60_000u64..80_000];
    let comm = prop_oneof![Just(COMM_WORLD), Just(COMM_SELF), Just(5u32)];
    let req = 0u32..4;
    let mode = prop_oneof![Just(SendMode::Standard), Just(SendMode::Synchronous), Just(SendMode::Buffered)];
    let list = proptest::collection::vec(-3i64..5, 0..9);
    (0u8..14, peer, tag, bytes, comm, req, mode, list, 0u64..5000).prop_map(
        |(k, peer, tag, bytes, comm, req, mode, list, gap)| {
            let op = match k {
                0 => Op::Send { mode, peer, tag, bytes, comm },
                1 => Op::Isend { mode, peer, tag, bytes, comm, req },
                2 => Op::Recv { peer, tag, bytes, comm },
                3 => Op::Irecv { peer, tag, bytes, comm, req },
                4 => Op::Wait { func: WaitFn::Waitall, count: 2 },
                5 => Op::Sendrecv { peer, tag, bytes, src: peer, rtag: tag, rbytes: bytes, comm, replace: false },
                6 => Op::Probe { peer, tag, bytes, comm, flags: ProbeFlags::BLOCKING },
                7 => Op::SendInit { mode, peer, tag, bytes, comm, req },
                8 => Op::Start { req },
                9 => Op::Cancel { req },
                10 => Op::Coll {
                    coll: Coll::Allreduce,
                    comm,
                    root: NO_RANK,
                    send_bytes: bytes,
                    recv_bytes: bytes,
                    count: 1,
                    flags: 12,
                    req: 0,
                    instance: 1,
                },
                11 => Op::Coll {
                    coll: Coll::Bcast,
                    comm,
                    root: peer,
                    send_bytes: bytes,
                    recv_bytes: bytes,
                    count: 1,
                    flags: 12,
                    req: 0,
                    instance: 1,
                },
                12 => Op::CommCreate { func: CommFn::Split, parent: 0, comm: 5, split: 0 },
                _ => Op::Step { instance: 1, op: StepOp::Send, peer, bytes, peer2: NO_RANK, bytes2: 0 },
            };
            Record::new(gap, 0, op).with_list(if matches!(op, Op::Wait { .. } | Op::CommCreate { .. }) {
                list
            } else {
                vec![]
            })
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]
    #[test]
    fn arbitrary_records_never_panic(tasks in proptest::collection::vec(proptest::collection::vec(op(), 0..12), 1..4), mode in prop_oneof![Just("analytic"), Just("expanded")], model in prop_oneof![Just("simple"), Just("bus"), Just("pmac")]) {
        let m = machine(&[&format!("mpi.collectives={mode}"), &format!("network.model={model}")]);
        // Ok, deadlock or bad record: all fine; a panic fails the test.
        let _ = replay(&tasks, &m);
    }
}
