//! Open MPI's family: every collective on P = 1..=64, 100, 128, 129, 256, 1000 with byte
//! sizes on both sides of the fixed rules' switch points, every root on small communicators,
//! in place or not, commutative or not. Each call is expanded on all ranks with
//! `ompi::expand`, and its nonblocking twin with `ompi::expand_nonblocking` (libnbc's
//! schedules); sends and receives must pair up FIFO with equal sizes and the rendezvous
//! executor must run every rank to completion (above 256 ranks, fewer variants: [`LARGE`]).
//! Every algorithm the rules (and libnbc's defaults) can pick must be picked somewhere in the
//! sweep.

use crate::common;

use std::cell::RefCell;
use std::collections::BTreeSet;

use common::{alltoallv_counts, matrix, roots, sizes, Call, Rng};
use psins_collectives::check::verify;
use psins_collectives::ompi::{self, decision as d};
use psins_collectives::{Coll, Step};

/// The byte sizes the rules compare with (each switch point and one below it), and a few
/// others; large communicators get a sample.
fn bytes(p: u32) -> Vec<u64> {
    let all: Vec<u64> = [1u64, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768]
        .into_iter()
        .chain([65536, 131072, 262144, 524288, 1048576, 2097152])
        .flat_map(|b| [b - 1, b])
        .chain([100, 3000, 12289, 100_003])
        .filter(|&b| b > 0)
        .collect();
    if p <= 64 {
        all
    } else {
        vec![1, 8, 64, 4096, 16384, 65536, 1048576]
    }
}

thread_local! {
    /// The libnbc schedules [`run`] has expanded in this test.
    static NONBLOCKING: RefCell<BTreeSet<&'static str>> = const { RefCell::new(BTreeSet::new()) };
}

type ExpandFn =
    fn(&psins_collectives::CollArgs, &mut Vec<Step>) -> Result<&'static str, psins_collectives::ExpandError>;

/// Expands `call` with `expand` on every rank and checks it; returns the algorithm.
fn run_by(call: &Call, expand: ExpandFn) -> &'static str {
    let mut name = "";
    let lists: Vec<Vec<Step>> = (0..call.size)
        .map(|r| {
            let mut out = Vec::new();
            let n = expand(&call.args(r), &mut out).unwrap_or_else(|e| panic!("{call:?}: {e}"));
            assert!(name.is_empty() || name == n, "{call:?}: rank {r} runs {n}, rank 0 {name}");
            name = n;
            out
        })
        .collect();
    verify(&lists).unwrap_or_else(|e| panic!("{call:?} ({name}): {e}"));
    name
}

/// Above this many ranks, where a call can expand into P² steps, the sweeps try fewer
/// variants: no nonblocking twin (libnbc's choices do not depend on P beyond a few ranks),
/// not in place (that path does not depend on P), one byte size per algorithm.
const LARGE: u32 = 256;

/// Expands `call` and, up to [`LARGE`] ranks, its nonblocking twin on every rank and checks
/// both; returns the blocking algorithm (the schedule's name goes to [`NONBLOCKING`]).
fn run(call: &Call) -> &'static str {
    if call.size <= LARGE {
        let nb = run_by(call, ompi::expand_nonblocking);
        NONBLOCKING.with(|s| s.borrow_mut().insert(nb));
    }
    run_by(call, ompi::expand)
}

/// Not in place, and in place up to [`LARGE`] ranks.
fn in_place(p: u32) -> &'static [bool] {
    if p <= LARGE {
        &[false, true]
    } else {
        &[false]
    }
}

/// The byte sizes `sizes`, except that above [`LARGE`] ranks only the first of each
/// algorithm `rule` picks at that P.
fn one_per_algorithm(p: u32, sizes: Vec<u64>, rule: impl Fn(u64) -> u8) -> Vec<u64> {
    if p <= LARGE {
        return sizes;
    }
    let mut picked = BTreeSet::new();
    sizes.into_iter().filter(|&b| picked.insert(rule(b))).collect()
}

/// Every libnbc schedule of `names` was expanded in this test.
fn assert_nonblocking(names: &[&str]) {
    NONBLOCKING.with(|s| assert_covers(&s.borrow(), names, &[]));
}

fn sweep(calls: impl Iterator<Item = Call>) -> BTreeSet<&'static str> {
    calls.map(|c| run(&c)).collect()
}

/// Every name of `names` except those listed as never picked by the rules.
fn assert_covers(seen: &BTreeSet<&'static str>, names: &[&str], never: &[&str]) {
    for n in names.iter().filter(|n| !never.contains(n)) {
        assert!(seen.contains(n), "{n} never selected; saw {seen:?}");
    }
}

fn large_sizes() -> impl Iterator<Item = u32> {
    sizes().into_iter().chain([2048, 4096])
}

#[test]
fn barrier() {
    let seen = sweep(large_sizes().map(|p| Call::new(Coll::Barrier, p)));
    assert_covers(&seen, d::BARRIER_NAMES, &["ompi_barrier_double_ring", "ompi_barrier_two_proc"]);
    assert_nonblocking(&["ompi_ibarrier_dissemination", "noop"]);
}

#[test]
fn bcast() {
    let seen = sweep(sizes().into_iter().flat_map(|p| {
        roots(p).into_iter().flat_map(move |root| {
            bytes(p).into_iter().map(move |b| Call { root, ..Call::new(Coll::Bcast, p).bytes(b) })
        })
    }));
    assert_covers(&seen, d::BCAST_NAMES, &["ompi_bcast_scatter_allgather_ring"]);
    assert_nonblocking(&["ompi_ibcast_linear", "ompi_ibcast_binomial"]);
}

#[test]
fn reduce_and_allreduce() {
    let mut seen = BTreeSet::new();
    for p in sizes() {
        for elem in [1u64, 4, 8] {
            for b in bytes(p).into_iter().filter(|b| b % elem == 0) {
                for commutative in [true, false] {
                    for root in roots(p) {
                        let c = Call {
                            root,
                            commutative,
                            in_place: root % 2 == 1,
                            ..Call::new(Coll::Reduce, p).vector(b / elem, elem)
                        };
                        seen.insert(run(&c));
                    }
                    let c = Call {
                        commutative,
                        in_place: b % 3 == 0,
                        ..Call::new(Coll::Allreduce, p).vector(b / elem, elem)
                    };
                    seen.insert(run(&c));
                }
            }
        }
    }
    // libnbc's ring: 4 ranks or more, 64 KiB or more, fewer elements than the largest power
    // of two of ranks (elements of 40,000 bytes).
    for p in [4, 5, 9, 17, 33] {
        seen.insert(run(&Call::new(Coll::Allreduce, p).vector(2, 40_000)));
    }
    assert_covers(&seen, d::REDUCE_NAMES, &[]);
    assert_covers(&seen, d::ALLREDUCE_NAMES, &[]);
    assert_nonblocking(&[
        "ompi_ireduce_binomial",
        "ompi_ireduce_chain",
        "ompi_ireduce_redscat_gather",
        "ompi_iallreduce_binomial",
        "ompi_iallreduce_redscat_allgather",
        "ompi_iallreduce_ring",
    ]);
}

#[test]
fn gather_and_scatter() {
    let mut rng = Rng(7);
    let mut seen = BTreeSet::new();
    for p in sizes() {
        for root in roots(p) {
            for b in bytes(p) {
                for coll in [Coll::Gather, Coll::Scatter] {
                    seen.insert(run(&Call { root, in_place: b % 2 == 1, ..Call::new(coll, p).bytes(b) }));
                }
            }
            let counts: Vec<u64> = (0..p).map(|_| rng.count(3000)).collect();
            let mut c = Call { root, ..Call::new(Coll::Gatherv, p) };
            c.send_of = counts.clone();
            c.counts = (0..p).map(|r| if r == root { counts.clone() } else { Vec::new() }).collect();
            seen.insert(run(&c));
            let mut c = Call { root, ..Call::new(Coll::Scatterv, p) };
            c.recv_of = counts.clone();
            c.counts = (0..p).map(|r| if r == root { counts.clone() } else { Vec::new() }).collect();
            seen.insert(run(&c));
        }
    }
    assert_covers(&seen, d::GATHER_NAMES, &[]);
    assert_covers(&seen, d::SCATTER_NAMES, &[]);
    assert_covers(&seen, &["ompi_gatherv_basic_linear", "ompi_scatterv_basic_linear"], &[]);
    assert_nonblocking(&[
        "ompi_igather_linear",
        "ompi_iscatter_linear",
        "ompi_igatherv_linear",
        "ompi_iscatterv_linear",
    ]);
}

#[test]
fn allgather_and_allgatherv() {
    let mut rng = Rng(11);
    let mut seen = BTreeSet::new();
    for p in sizes() {
        for b in one_per_algorithm(p, bytes(p), |b| d::allgather(p as u64, b)) {
            for &in_place in in_place(p) {
                seen.insert(run(&Call { in_place, ..Call::new(Coll::Allgather, p).bytes(b) }));
            }
            let counts: Vec<u64> = (0..p).map(|_| rng.count(2 * b)).collect();
            seen.insert(run(&Call { counts: vec![counts], ..Call::new(Coll::Allgatherv, p) }));
        }
    }
    assert_covers(&seen, d::ALLGATHER_NAMES, &["ompi_allgather_linear"]);
    assert_covers(&seen, d::ALLGATHERV_NAMES, &[]);
    assert_nonblocking(&["ompi_iallgather_linear", "ompi_iallgatherv_linear"]);
}

#[test]
fn alltoall_family() {
    let mut rng = Rng(13);
    let mut seen = BTreeSet::new();
    for p in sizes() {
        let small = bytes(p).into_iter().filter(|&b| p <= 32 || b <= 8192).collect();
        for b in one_per_algorithm(p, small, |b| d::alltoall(p as u64, b)) {
            for &in_place in in_place(p) {
                seen.insert(run(&Call { in_place, ..Call::new(Coll::Alltoall, p).bytes(b) }));
            }
        }
        for coll in [Coll::Alltoallv, Coll::Alltoallw] {
            for &in_place in in_place(p) {
                let m = matrix(&mut rng, p as usize, 2000, in_place);
                seen.insert(run(&Call { in_place, counts: alltoallv_counts(&m), ..Call::new(coll, p) }));
            }
        }
    }
    assert_covers(&seen, d::ALLTOALL_NAMES, &[]);
    assert_covers(&seen, d::ALLTOALLV_NAMES, &[]);
    assert_nonblocking(&[
        "ompi_ialltoall_linear",
        "ompi_ialltoall_inplace",
        "ompi_ialltoallv_linear",
        "ompi_ialltoallv_inplace",
        "ompi_ialltoallw_linear",
        "ompi_ialltoallw_inplace",
    ]);
}

#[test]
fn reduce_scatter_family() {
    let mut rng = Rng(17);
    let mut seen = BTreeSet::new();
    for p in sizes() {
        for b in bytes(p).into_iter().filter(|&b| p <= 32 || b <= 65536) {
            for commutative in [true, false] {
                let counts: Vec<u64> = (0..p).map(|_| if b % 2 == 0 { b } else { rng.count(b) }).collect();
                seen.insert(run(&Call { commutative, counts: vec![counts], ..Call::new(Coll::ReduceScatter, p) }));
                seen.insert(run(&Call { commutative, ..Call::new(Coll::ReduceScatterBlock, p).bytes(b) }));
            }
        }
    }
    assert_covers(&seen, d::REDUCE_SCATTER_NAMES, &[]);
    assert_covers(&seen, d::REDUCE_SCATTER_BLOCK_NAMES, &[]);
    assert_nonblocking(&["ompi_ireduce_scatter_binomial_linear", "ompi_ireduce_scatter_block_binomial_linear"]);
}

#[test]
fn scan_and_exscan() {
    let mut seen = BTreeSet::new();
    for p in sizes() {
        for count in [0, 1, 1000] {
            for coll in [Coll::Scan, Coll::Exscan] {
                seen.insert(run(&Call::new(coll, p).vector(count, 8)));
            }
        }
    }
    assert_covers(&seen, &["ompi_scan_basic_linear", "ompi_exscan_basic_linear", "noop"], &[]);
    assert_nonblocking(&["ompi_iscan_linear", "ompi_iexscan_linear", "noop"]);
}
