//! Analytic collectives cost what their expansion costs: on the contention-free `simple`
//! model, the analytic duration of every collective and algorithm (the cost of the MPI
//! library's algorithm, MPICH's or Open MPI's: model/algorithm) agrees within 1 % with the replay of its point-to-point
//! steps through the engine (`mpi.collectives = "expanded"`), at P = 2..64, on one node,
//! one rank per node and mixed placements, eager and rendezvous, with and without overheads,
//! with and without crossing costs.
//! The same holds for the nonblocking twins, whose analytic cost is the library's nonblocking
//! schedule (MPICH's sched algorithms, Open MPI's libnbc), completed by a wait.
//! And the closed forms of the symmetric algorithms equal the step-by-step evaluator exactly.

use crate::common;

use common::{replay, US};
use proptest::prelude::*;
use psins_collectives::{expand, CollArgs, Library, Step, Thresholds};
use psins_formats::*;
use psins_sim::model::algorithm::{lockstep, oracle, rounds, PathCost};
use psins_sim::Machine;
use std::path::Path;

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

/// Size bands with sender and receiver overheads (docs/models.md "Per-message costs"), the
/// same shape on both paths: small messages cheap, a dearer band above 4 KiB.
const BANDS: &str = r#"
[[SECTION.band]]
upto = "4KiB"
send_overhead = "0.3us"
recv_overhead = "0.2us"

[[SECTION.band]]
latency = "2us"
bandwidth = "3GB/s"
send_overhead = "0.7us"
send_rate = "20GB/s"
recv_overhead = "0.4us"
recv_rate = "8GB/s"
"#;

/// [`BANDS`] with crossing costs x(S) (docs/models.md "Crossing messages"): dear enough
/// that a crossed exchange takes clearly longer, with a per-byte part above 4 KiB.
const CROSSING_BANDS: &str = r#"
[[SECTION.band]]
upto = "4KiB"
send_overhead = "0.3us"
recv_overhead = "0.2us"
cross_overhead = "0.9us"

[[SECTION.band]]
latency = "2us"
bandwidth = "3GB/s"
send_overhead = "0.7us"
send_rate = "20GB/s"
recv_overhead = "0.4us"
recv_rate = "8GB/s"
cross_overhead = "1.5us"
cross_rate = "5GB/s"
"#;

/// Per-message costs of the test machines: none, the overheads of [`BANDS`], or those and
/// crossing costs ([`CROSSING_BANDS`]).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Costs {
    Plain,
    Overheads,
    Crossing,
}

/// 64 nodes of `cores` cores, L = 1us, B = 1 GB/s between nodes; 0.5us, 2 GB/s within;
/// with `costs`' bands on both paths.
fn machine_with(cores: u32, eager: u64, handshake: bool, costs: Costs, mode: &str) -> Machine {
    machine_of(Library::Mpich, cores, eager, handshake, costs, mode)
}

/// [`machine_with`], replaying `library`'s algorithms (`mpi.library`).
fn machine_of(library: Library, cores: u32, eager: u64, handshake: bool, costs: Costs, mode: &str) -> Machine {
    let band = |section: &str| match costs {
        Costs::Plain => String::new(),
        Costs::Overheads => BANDS.replace("SECTION", section),
        Costs::Crossing => CROSSING_BANDS.replace("SECTION", section),
    };
    let text = format!(
        "[machine]\nnodes = 64\ncores_per_node = {cores}\n\n[intra]\nlatency = \"0.5us\"\nbandwidth = \"2GB/s\"\n{}\n\
         [mpi]\neager_threshold = \"{eager}B\"\nrendezvous_handshake = {handshake}\ncollectives = \"{mode}\"\n\
         library = \"{}\"\n\n\
         [network]\nmodel = \"simple\"\nlatency = \"1us\"\nbandwidth = \"1GB/s\"\n{}",
        band("intra"),
        library.name(),
        band("network"),
    );
    // The sweeps ask for a few machines thousands of times: each is parsed once.
    thread_local! {
        static PARSED: std::cell::RefCell<std::collections::HashMap<String, Machine>> = Default::default();
    }
    PARSED.with(|parsed| {
        parsed
            .borrow_mut()
            .entry(text)
            .or_insert_with_key(|text| {
                Machine::from_str(Path::new("analytic-test.toml"), text, &[]).expect("valid machine")
            })
            .clone()
    })
}

fn machine(cores: u32, eager: u64, handshake: bool, mode: &str) -> Machine {
    machine_with(cores, eager, handshake, Costs::Plain, mode)
}

/// Deterministic pseudo-random numbers (SplitMix64).
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        splitmix::next(&mut self.0) % n.max(1)
    }
}

/// One consistent collective call as every rank records it: (op, list) per rank. `flags`:
/// bit 0 a non-commutative op, bit 1 `MPI_IN_PLACE` for alltoall(v/w).
fn call(coll: Coll, p: u32, root: u32, bytes: u64, elem: u64, flags: u8, seed: u64) -> Vec<(Op, Vec<i64>)> {
    let mut rng = Rng(seed);
    let mut f = CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE;
    if flags & 1 != 0 {
        f &= !CollFlags::OP_COMMUTATIVE;
    }
    let root = root % p;
    let (mut send, mut recv, mut count) = (bytes, bytes, 0);
    let mut lists: Vec<Vec<i64>> = vec![Vec::new(); p as usize];
    let count_of = |max: u64, rng: &mut Rng| if rng.below(5) == 0 { 0 } else { rng.below(max + 1) };
    match coll {
        Coll::Reduce | Coll::Allreduce | Coll::Scan | Coll::Exscan => {
            count = bytes / elem;
            (send, recv) = (count * elem, count * elem);
        }
        Coll::Gatherv | Coll::Scatterv => {
            let counts: Vec<i64> = (0..p).map(|_| count_of(bytes, &mut rng) as i64).collect();
            // non-roots send (gatherv) or receive (scatterv) their own entry
            let mut ops = Vec::new();
            for r in 0..p {
                let own = counts[r as usize] as u64;
                let list = if r == root { counts.clone() } else { Vec::new() };
                let op = coll_op(coll, root, own, own, 0, f);
                ops.push((op, list));
            }
            return ops;
        }
        Coll::Allgatherv | Coll::ReduceScatter => {
            let counts: Vec<i64> = (0..p).map(|_| count_of(bytes, &mut rng) as i64).collect();
            lists = vec![counts; p as usize];
        }
        Coll::Alltoall if flags & 2 != 0 => f |= CollFlags::IN_PLACE,
        Coll::Alltoallv | Coll::Alltoallw => {
            let max = bytes.min(200_000);
            let mut m: Vec<Vec<i64>> =
                (0..p).map(|_| (0..p).map(|_| count_of(max, &mut rng) as i64).collect()).collect();
            if flags & 2 != 0 {
                // in place: every pair swaps blocks of one size (MPI requires it)
                f |= CollFlags::IN_PLACE;
                let upper = m.clone();
                for (i, row) in m.iter_mut().enumerate() {
                    row.iter_mut().take(i).enumerate().for_each(|(j, v)| *v = upper[j][i]);
                }
            }
            for (i, list) in lists.iter_mut().enumerate() {
                *list = m[i].iter().copied().chain(m.iter().map(|row| row[i])).collect();
            }
        }
        _ => {}
    }
    (0..p).map(|r| (coll_op(coll, root, send, recv, count, f), lists[r as usize].clone())).collect()
}

fn coll_op(coll: Coll, root: u32, send_bytes: u64, recv_bytes: u64, count: u64, flags: u8) -> Op {
    Op::Coll { coll, comm: COMM_WORLD, root: root as i32, send_bytes, recv_bytes, count, flags, req: 0, instance: 1 }
}

fn predicted(tasks: &[Vec<Record>], m: &Machine) -> u64 {
    replay(tasks, m).unwrap_or_else(|e| panic!("replay failed: {e}")).predicted
}

/// Analytic and expanded replay of one call; returns (analytic, expanded) in picoseconds.
fn both(ops: &[(Op, Vec<i64>)], lib: Library, cores: u32, eager: u64, handshake: bool, bands: Costs) -> (u64, u64) {
    let tasks: Vec<Vec<Record>> =
        ops.iter().map(|(op, list)| vec![Record::new(0, 0, *op).with_list(list.clone()), common::fin()]).collect();
    both_of(&tasks, lib, cores, eager, handshake, bands)
}

/// [`both`] for the call's nonblocking twin, waited for at once.
fn both_nonblocking(
    ops: &[(Op, Vec<i64>)],
    lib: Library,
    cores: u32,
    eager: u64,
    handshake: bool,
    bands: Costs,
) -> (u64, u64) {
    let tasks: Vec<Vec<Record>> = ops
        .iter()
        .map(|(op, list)| {
            let mut op = *op;
            if let Op::Coll { flags, req, .. } = &mut op {
                (*flags, *req) = (*flags | CollFlags::NONBLOCKING, 1);
            }
            let wait = common::waitall(0, &[(1, NO_RANK, 0)]);
            vec![Record::new(0, 0, op).with_list(list.clone()), wait, common::fin()]
        })
        .collect();
    both_of(&tasks, lib, cores, eager, handshake, bands)
}

fn both_of(tasks: &[Vec<Record>], lib: Library, cores: u32, eager: u64, handshake: bool, bands: Costs) -> (u64, u64) {
    let a = predicted(tasks, &machine_of(lib, cores, eager, handshake, bands, "analytic"));
    let x = predicted(tasks, &machine_of(lib, cores, eager, handshake, bands, "expanded"));
    (a, x)
}

fn algorithm(ops: &[(Op, Vec<i64>)], lib: Library) -> &'static str {
    let (Op::Coll { coll, root, send_bytes, recv_bytes, count, flags, .. }, list) = &ops[0] else { unreachable!() };
    let counts: Vec<u64> = list.iter().map(|&v| v as u64).collect();
    let a = CollArgs {
        coll: *coll,
        size: ops.len() as u32,
        rank: 0,
        root: *root as u32,
        send_bytes: *send_bytes,
        recv_bytes: *recv_bytes,
        counts: &counts,
        count: *count,
        op_builtin: true,
        op_commutative: flags & CollFlags::OP_COMMUTATIVE != 0,
        in_place: flags & CollFlags::IN_PLACE != 0,
    };
    lib.expand(&a, &Thresholds::default(), &mut Vec::new()).unwrap_or("error")
}

fn bytes_strategy() -> impl Strategy<Value = u64> {
    (0u32..21, any::<u64>()).prop_map(|(bits, x)| if bits == 0 { 0 } else { x % (1u64 << bits) })
}

/// One call and the machine it is replayed on, as the properties below draw them.
#[derive(Debug)]
struct Drawn {
    ops: Vec<(Op, Vec<i64>)>,
    coll: Coll,
    p: u32,
    bytes: u64,
    cores: u32,
    eager: u64,
    handshake: bool,
    bands: Costs,
    lib: Library,
}

prop_compose! {
    fn drawn()(
        coll in proptest::sample::select(EXPANDABLE),
        p in 2u32..=64,
        root in any::<u32>(),
        bytes in bytes_strategy(),
        elem in prop_oneof![Just(1u64), Just(4), Just(8)],
        flags in any::<u8>(),
        seed in any::<u64>(),
        cores in prop_oneof![Just(1u32), Just(3), Just(64)],
        eager in prop_oneof![Just(0u64), Just(4096), Just(65536), Just(u64::MAX / 2)],
        handshake in any::<bool>(),
        bands in prop_oneof![Just(Costs::Plain), Just(Costs::Overheads), Just(Costs::Crossing)],
        lib in proptest::sample::select(Library::ALL.to_vec()),
    ) -> Drawn {
        let ops = call(coll, p, root, bytes, elem, flags, seed);
        Drawn { ops, coll, p, bytes, cores, eager, handshake, bands, lib }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn analytic_equals_expanded_on_a_contention_free_network(d in drawn()) {
        let Drawn { ref ops, coll, p, bytes, cores, eager, handshake, bands, lib } = d;
        let (a, x) = both(ops, lib, cores, eager, handshake, bands);
        let diff = a.abs_diff(x) as f64;
        prop_assert!(
            diff <= 0.01 * x as f64,
            "{} ({}) P={p} bytes={bytes} cores per node={cores} eager={eager} handshake={handshake} costs={bands:?}: analytic {a} ps, expanded {x} ps",
            coll.name(), algorithm(ops, lib)
        );
    }

    #[test]
    fn nonblocking_analytic_equals_expanded_on_a_contention_free_network(d in drawn()) {
        let Drawn { ref ops, coll, p, bytes, cores, eager, handshake, bands, lib } = d;
        let (a, x) = both_nonblocking(ops, lib, cores, eager, handshake, bands);
        let diff = a.abs_diff(x) as f64;
        prop_assert!(
            diff <= 0.01 * x as f64,
            "i{} P={p} bytes={bytes} cores per node={cores} eager={eager} handshake={handshake} costs={bands:?} {lib:?}: analytic {a} ps, expanded {x} ps",
            coll.name()
        );
    }
}

/// The symmetric algorithms' closed form (the sum of rank 0's rounds) is the step-by-step
/// evaluator's answer, exactly, for every P = 2..64 and sizes on both sides of the
/// thresholds, eager and rendezvous.
#[test]
fn closed_forms_equal_the_step_by_step_evaluator() {
    let th = Thresholds::default();
    let plain = machine(1, 4096, true, "analytic");
    let banded = machine_with(1, 4096, true, Costs::Overheads, "analytic");
    let mut checked = std::collections::BTreeSet::new();
    for p in 2..=64u32 {
        for &bytes in &[0u64, 8, 200, 1000, 5000, 40_000, 100_000, 600_000 / p as u64] {
            for coll in [Coll::Barrier, Coll::Allreduce, Coll::Allgather, Coll::Alltoall, Coll::ReduceScatterBlock] {
                let count = if coll == Coll::Allreduce { bytes / 8 } else { 0 };
                let b = if coll == Coll::Allreduce { count * 8 } else { bytes };
                let args = |r| CollArgs { send_bytes: b, recv_bytes: b, count, ..CollArgs::new(coll, p, r) };
                let mut steps: Vec<Step> = Vec::new();
                let name = expand(&args(0), &th, &mut steps).unwrap();
                if !lockstep(name, &args(0)) {
                    continue;
                }
                let mut x = oracle::Expansions { steps: Vec::new(), offsets: vec![0], background: false };
                for r in 0..p {
                    let mut s = Vec::new();
                    expand(&args(r), &th, &mut s).unwrap();
                    x.steps.extend(s);
                    x.offsets.push(x.steps.len());
                }
                for (m, single) in [(&plain, false), (&plain, true), (&banded, false), (&banded, true)] {
                    let cost = PathCost::new(m, single);
                    // Messages to the rank itself (scattered alltoall's own block) on a path
                    // of their own, here the other machine's other link.
                    let own = PathCost::new(if std::ptr::eq(m, &plain) { &banded } else { &plain }, !single);
                    let exact = oracle::evaluate(&x, &|a, b| if a == b { own } else { cost }, false).unwrap();
                    assert_eq!(rounds(&steps, 0, &cost, &own), exact, "{name} P={p} bytes={b}");
                }
                checked.insert(name);
            }
        }
    }
    // every symmetric algorithm was reached
    assert_eq!(checked.len(), 11, "{checked:?}");
}

/// Hand-computed: an 8-byte allreduce over 16 ranks on 16 nodes is recursive doubling,
/// log2 16 = 4 rounds of an eager exchange, each L + 8 B/B = 1us + 8ns = 1.008us: 4.032us
/// (the old default shape 2*log charged twice that). With P = 6 (not a power of two) ranks
/// 0 and 2 first send to 1 and 3 (they hold the sum at 1.008us), while 4 and 5 exchange at
/// once (done at 1.008us) and 4 sends its round-2 message to 1 at 1.008us (arrives 2.016);
/// 1 and 3 exchange in [1.008, 2.016], then 1 finds 4's message there and sends its own
/// (arrives at 4 at 3.024); 1 sends the result to 0 at 2.016 (arrives 3.024). Last: 3.024us.
#[test]
fn allreduce_recursive_doubling_by_hand() {
    for (p, want) in [(16u32, 4_032_000u64), (6, 3_024_000)] {
        let ops = call(Coll::Allreduce, p, 0, 8, 8, 0, 1);
        assert_eq!(algorithm(&ops, Library::Mpich), "allreduce_recursive_doubling");
        let (a, x) = both(&ops, Library::Mpich, 1, 65536, true, Costs::Plain);
        assert_eq!((a, x), (want, want), "P={p}");
    }
}

/// Hand-computed, with the per-message overheads: a barrier of 4 ranks on 4 nodes is the
/// dissemination algorithm, ⌈log2 4⌉ = 2 rounds of an empty exchange. With [`BANDS`] a 0-byte
/// message is in the first band: o_s = 0.3us, L = 1us, o_r = 0.2us, so a round takes
/// 0.3 + 1 + 0.2 = 1.5us and the barrier 3us (the old default shape `log` charged
/// 2 × L = 2us and no overheads). Without bands: 2 × 1us = 2us.
#[test]
fn barrier_with_overheads_by_hand() {
    let ops = call(Coll::Barrier, 4, 0, 0, 1, 0, 1);
    assert_eq!(algorithm(&ops, Library::Mpich), "barrier_dissemination");
    assert_eq!(both(&ops, Library::Mpich, 1, 65536, true, Costs::Overheads), (3 * US, 3 * US));
    assert_eq!(both(&ops, Library::Mpich, 1, 65536, true, Costs::Plain), (2 * US, 2 * US));
}

/// Hand-computed, rendezvous: a 100,000-byte bcast over 4 ranks (fewer than 8: binomial) on
/// 4 nodes with eager threshold 64 KiB and the handshake. Root 0 sends to 2, then to 1; 2
/// forwards to 3. One rendezvous transfer whose receive is already posted: RTS L + CTS L +
/// L + 100 µs = 103us. 0→2 done at 103us; then 0→1 and 2→3 both run [103, 206]: 206us.
#[test]
fn rendezvous_bcast_by_hand() {
    let ops = call(Coll::Bcast, 4, 0, 100_000, 1, 0, 1);
    assert_eq!(algorithm(&ops, Library::Mpich), "bcast_binomial");
    assert_eq!(both(&ops, Library::Mpich, 1, 65536, true, Costs::Plain), (206 * US, 206 * US));
}

/// Hand-computed, batches: a 1000-B alltoall (above Bruck's 256 B, below 32 KiB: scattered)
/// on one rank per node. MPICH posts at most 32 (the throttle) receives and sends, then waits
/// for all: every message eager, posted at the batch's start, arrives L + 1000 B/B = 2us
/// later. P = 4: one batch, 2us. P = 40: distances 1..=31, then 32..=39: 4us (the former
/// default shape `linear` charged 39 × 2us = 78us).
#[test]
fn batched_alltoall_by_hand() {
    for (p, want) in [(4u32, 2 * US), (40, 4 * US)] {
        let ops = call(Coll::Alltoall, p, 0, 1000, 1, 0, 1);
        assert_eq!(algorithm(&ops, Library::Mpich), "alltoall_scattered");
        assert_eq!(both(&ops, Library::Mpich, 1, 65536, true, Costs::Plain), (want, want), "P={p}");
    }
}

/// Every collective at P = 2..20 and around the powers of two and the throttle up to 64,
/// with sizes on each side of MPICH's thresholds (so that every algorithm is reached: the
/// test counts them), rooted ones at a middle root, with overheads and with crossing costs
/// too, on one rank per node:
/// analytic = expanded within 1 %.
#[test]
fn every_algorithm_at_every_size_2_to_64() {
    let mut reached = std::collections::BTreeSet::new();
    for coll in EXPANDABLE.iter().copied() {
        // every P up to 20, then around the powers of two and the throttle (32)
        let sizes = (2..=20u32).chain([24, 31, 32, 33, 40, 47, 48, 63, 64]);
        for p in sizes {
            for &bytes in &[8u64, 200, 3000, 40_000, 700_000 / p as u64 + 1] {
                // flags 1: a non-commutative op; 2: in place (alltoall(v/w)); 0: neither
                for flags in [0u8, 1, 2] {
                    let noncommutative = matches!(coll, Coll::ReduceScatter | Coll::ReduceScatterBlock | Coll::Reduce);
                    let in_place = matches!(coll, Coll::Alltoall | Coll::Alltoallv | Coll::Alltoallw);
                    if (flags == 1 && !noncommutative) || (flags == 2 && !in_place) {
                        continue;
                    }
                    let ops = call(coll, p, p / 2, bytes, 8, flags, p as u64);
                    let name = algorithm(&ops, Library::Mpich);
                    for costs in [Costs::Overheads, Costs::Crossing] {
                        let (a, x) = both(&ops, Library::Mpich, 1, 65536, true, costs);
                        assert!(
                            a.abs_diff(x) as f64 <= 0.01 * x as f64,
                            "{} ({name}) P={p} bytes={bytes} costs={costs:?}: analytic {a} ps, expanded {x} ps",
                            coll.name()
                        );
                    }
                    reached.insert(name);
                }
            }
        }
    }
    // 36 algorithms and "noop" (a v-variant whose counts are all 0)
    assert_eq!(reached.len(), 37, "{reached:?}");
}

/// Arguments MPICH's algorithms refuse are a bad-record error in analytic mode too, naming
/// the task and record; a neighbourhood collective (no topology to expand) falls back to its
/// shape: `const`, one L + S/B = 1us + 1us for 1000 B.
#[test]
fn bad_arguments_and_neighbourhood_fallback() {
    // 10 bytes is not 3 whole elements
    let ops: Vec<_> = (0..4).map(|_| (coll_op(Coll::Allreduce, 0, 10, 10, 3, CollFlags::OP_BUILTIN), vec![])).collect();
    let tasks: Vec<Vec<Record>> =
        ops.iter().map(|(op, list)| vec![Record::new(0, 0, *op).with_list(list.clone()), common::fin()]).collect();
    let err = replay(&tasks, &machine(1, 65536, true, "analytic")).unwrap_err().to_string();
    assert!(err.contains("rank 3, record 0") && err.contains("whole number"), "{err}");

    let op = coll_op(Coll::NeighborAlltoall, 0, 1000, 1000, 0, 0);
    let tasks: Vec<Vec<Record>> = (0..4).map(|_| vec![Record::new(0, 0, op), common::fin()]).collect();
    assert_eq!(predicted(&tasks, &machine(1, 65536, true, "analytic")), 2 * US);
}

/// Hand-computed, crossing messages (docs/models.md): a 2-rank alltoall on 2 nodes is one
/// exchange. Both ranks post at 0, rank 0 first, so rank 1's message crosses rank 0's (on
/// its way until its delivery) and its sender pays x(S) more; rank 0 then waits for it.
///
/// Eager, 8 B (scattered: one batch, the own block's send first): o_s = 0.3us, L + S/B =
/// 1.008us, o_r = 0.2us, x = 0.9us. Each rank's send to itself keeps its CPU o_s = 0.3us
/// (the intra link has the same bands), so each posts its peer's send at 0.3: rank 0's
/// message leaves at 0.6, rank 1's at 0.6 + 0.9 = 1.5, arriving at 2.508; rank 0 completes
/// at 2.708us (1.808us without crossing costs).
///
/// Rendezvous, 96,000 B (pairwise: one blocking sendrecv), threshold 4 KiB, with the
/// handshake: o_s = 0.7 + 96,000 B / 20 GB/s = 5.5us, L0 = 1us (the link's control
/// latency), L + S/B = 2 + 32 = 34us, o_r = 0.4 + 12 = 12.4us, x = 1.5 + 19.2 = 20.7us.
/// Rank 0's request leaves at 5.5, its data at 5.5 + 1 + 1 = 7.5 and arrives at 41.5, so
/// rank 0's message is on its way until 41.5 and rank 1's (posted at 0) crosses it: its
/// request leaves at 5.5 + 20.7 = 26.2, its data at 28.2, arriving at 62.2; rank 0
/// receives at 62.2 + 12.4 = 74.6us (53.9us without crossing costs).
///
/// The closed form used beyond the step-by-step budget charges each exchange its x: for one
/// exchange that is these same times.
#[test]
fn crossing_exchange_by_hand() {
    let eager = call(Coll::Alltoall, 2, 0, 8, 1, 0, 1);
    assert_eq!(algorithm(&eager, Library::Mpich), "alltoall_scattered");
    assert_eq!(both(&eager, Library::Mpich, 1, 4096, true, Costs::Crossing), (2_708_000, 2_708_000));
    assert_eq!(both(&eager, Library::Mpich, 1, 4096, true, Costs::Overheads), (1_808_000, 1_808_000));
    let rendezvous = call(Coll::Alltoall, 2, 0, 96_000, 1, 0, 1);
    assert_eq!(algorithm(&rendezvous, Library::Mpich), "alltoall_pairwise");
    assert_eq!(both(&rendezvous, Library::Mpich, 1, 4096, true, Costs::Crossing), (74_600_000, 74_600_000));
    assert_eq!(both(&rendezvous, Library::Mpich, 1, 4096, true, Costs::Overheads), (53_900_000, 53_900_000));

    let cost = PathCost::new(&machine_with(1, 4096, true, Costs::Crossing, "analytic"), false);
    for (bytes, want) in [(8u64, 2_708_000u64), (96_000, 74_600_000)] {
        let mut steps = Vec::new();
        expand(
            &CollArgs { send_bytes: bytes, recv_bytes: bytes, ..CollArgs::new(Coll::Alltoall, 2, 0) },
            &Thresholds::default(),
            &mut steps,
        )
        .unwrap();
        assert_eq!(rounds(&steps, 0, &cost, &cost), want, "{bytes} B");
    }
}
