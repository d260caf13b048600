//! Property tests: random calls of every expandable collective stay consistent, and no input
//! at all makes `expand` panic.

use crate::common;

use common::{alltoallv_counts, check, matrix, Call, Rng};
use proptest::prelude::*;
use psins_collectives::{expand, Coll, CollArgs, Thresholds, THRESHOLD_TABLE};

const EXPANDABLE: &[Coll] = &[
    Coll::Barrier,
    Coll::Bcast,
    Coll::Reduce,
    Coll::Allreduce,
    Coll::Gather,
    Coll::Gatherv,
    Coll::Scatter,
    Coll::Scatterv,
    Coll::Allgather,
    Coll::Allgatherv,
    Coll::Alltoall,
    Coll::Alltoallv,
    Coll::Alltoallw,
    Coll::ReduceScatter,
    Coll::ReduceScatterBlock,
    Coll::Scan,
    Coll::Exscan,
];

/// A byte size spread over the orders of magnitude the thresholds live at.
fn bytes_strategy() -> impl Strategy<Value = u64> {
    (0u32..22, any::<u64>()).prop_map(|(bits, x)| if bits == 0 { 0 } else { x % (1u64 << bits) })
}

/// A consistent whole-communicator call built from random parameters.
fn build(coll: Coll, p: u32, root: u32, bytes: u64, elem: u64, flags: u8, seed: u64) -> Call {
    let mut rng = Rng(seed);
    let mut c = Call::new(coll, p);
    c.root = root % p;
    (c.builtin, c.commutative, c.in_place) = (flags & 1 != 0, flags & 2 != 0, flags & 4 != 0);
    match coll {
        Coll::Reduce | Coll::Allreduce | Coll::Scan | Coll::Exscan => {
            let elem = elem.max(1);
            c = Call { coll, ..c }.vector(bytes / elem, elem);
        }
        Coll::Gatherv | Coll::Scatterv => {
            let counts: Vec<u64> = (0..p).map(|_| rng.count(bytes)).collect();
            (c.send_of, c.recv_of, c.counts) = (counts.clone(), counts.clone(), vec![counts]);
        }
        Coll::Allgatherv | Coll::ReduceScatter => {
            let same = flags & 8 != 0;
            let first = rng.count(bytes);
            c.counts = vec![(0..p).map(|_| if same { first } else { rng.count(bytes) }).collect()];
        }
        Coll::Alltoallv | Coll::Alltoallw => {
            c.counts = alltoallv_counts(&matrix(&mut rng, p as usize, bytes.min(5000), c.in_place));
        }
        _ => c = c.bytes(bytes),
    }
    c
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_calls_are_consistent(
        coll in proptest::sample::select(EXPANDABLE),
        p in 1u32..200,
        root in any::<u32>(),
        bytes in bytes_strategy(),
        elem in prop_oneof![Just(1u64), Just(4), Just(8), Just(12), Just(16)],
        flags in any::<u8>(),
        seed in any::<u64>(),
    ) {
        check(&build(coll, p, root, bytes, elem, flags, seed));
    }

    /// The batches of scattered alltoall(v/w) stay consistent for any throttle.
    #[test]
    fn any_alltoall_throttle_is_consistent(
        coll in proptest::sample::select(&[Coll::Alltoall, Coll::Alltoallv, Coll::Alltoallw][..]),
        p in 2u32..80,
        throttle in 0u64..90,
        seed in any::<u64>(),
    ) {
        let mut th = Thresholds::default();
        th.set("alltoall_throttle", throttle).unwrap();
        common::check_with(&build(coll, p, 0, 1000, 1, 0, seed), &th);
    }

    #[test]
    fn expand_never_panics(
        code in 0u8..22,
        size in prop_oneof![Just(0u32), 1u32..70, Just(u32::MAX)],
        rank in prop_oneof![0u32..80, Just(u32::MAX)],
        root in prop_oneof![0u32..80, Just(u32::MAX)],
        send in prop_oneof![any::<u64>(), 0u64..100_000],
        recv in prop_oneof![any::<u64>(), 0u64..100_000],
        count in prop_oneof![any::<u64>(), 0u64..1000],
        counts in proptest::collection::vec(prop_oneof![any::<u64>(), 0u64..1000], 0..150),
        flags in any::<u8>(),
        th_seed in any::<u64>(),
    ) {
        let coll = Coll::from_code(code).unwrap();
        // Huge communicators would only be slow, not wrong: cap the valid ones.
        let size = if size == u32::MAX && rank < 80 { 80 } else { size };
        let a = CollArgs {
            coll, size, rank, root, send_bytes: send, recv_bytes: recv, counts: &counts, count,
            op_builtin: flags & 1 != 0, op_commutative: flags & 2 != 0, in_place: flags & 4 != 0,
        };
        let mut out = Vec::new();
        // Extreme thresholds reach every algorithm with any size.
        let mut th = Thresholds::default();
        for (i, info) in THRESHOLD_TABLE.iter().enumerate() {
            let value = [0, 1, info.default, u64::MAX][(th_seed >> (2 * i) & 3) as usize];
            th.set(info.name, value).unwrap();
        }
        let _ = expand(&a, &th, &mut out);
        let _ = psins_collectives::ompi::expand(&a, &mut out);
        let _ = psins_collectives::ompi::select(&a);
    }
}
