//! Exhaustive consistency sweep: every collective on P = 1..=64, 100, 128, 129, 256 and
//! 1000 ranks, every root on small communicators (a sample on large ones), byte sizes on
//! both sides of every default threshold, in place or not, commutative or not. Each call is
//! expanded on all ranks; sends and receives must pair up FIFO per ordered pair with equal
//! sizes, and the rendezvous executor must run every rank to completion.

use crate::common;

use std::collections::BTreeSet;

use common::{alltoallv_counts, check, floor_pow2, matrix, roots, sizes, Call, Rng};
use psins_collectives::Coll;

/// Large communicators get the sizes at the ends of the list only, to bound the run time.
fn pick<T: Copy>(p: u32, all: &[T]) -> Vec<T> {
    if p <= 64 || all.len() <= 2 {
        all.to_vec()
    } else {
        vec![all[0], all[all.len() - 1]]
    }
}

/// Checks every call and returns the set of algorithms seen.
fn sweep(calls: impl Iterator<Item = Call>) -> BTreeSet<&'static str> {
    calls.map(|c| check(&c).0).collect()
}

fn assert_covers(seen: &BTreeSet<&'static str>, expected: &[&str]) {
    for name in expected {
        assert!(seen.contains(name), "{name} never selected; saw {seen:?}");
    }
}

#[test]
fn barrier() {
    let seen = sweep(sizes().into_iter().map(|p| Call::new(Coll::Barrier, p)));
    assert_covers(&seen, &["barrier_dissemination", "noop"]);
}

#[test]
fn bcast() {
    let bytes = [0, 1, 1000, 12288, 12289, 100_003, 524288, 524289, 1_000_003];
    let seen = sweep(sizes().into_iter().flat_map(|p| {
        roots(p).into_iter().flat_map(move |root| {
            pick(p, &bytes).into_iter().map(move |b| {
                let mut c = Call::new(Coll::Bcast, p).bytes(b);
                c.root = root;
                c
            })
        })
    }));
    assert_covers(
        &seen,
        &["bcast_binomial", "bcast_scatter_recursive_doubling_allgather", "bcast_scatter_ring_allgather"],
    );
}

/// (count, element size) pairs straddling the byte thresholds and count = pof2.
fn vectors(p: u32, short: u64) -> Vec<(u64, u64)> {
    let pof2 = floor_pow2(p as u64);
    let mut v = vec![(0, 8), (1, 8), (2, 4), (short / 4, 4), (short / 4 + 1, 4), (100_003, 8)];
    v.extend([(pof2 - 1, 4096), (pof2, 4096), (pof2 + 1, 12), (3 * pof2 + 5, 16)]);
    if p > 64 {
        v = vec![(1, 8), (pof2 - 1, 4096), (3 * pof2 + 5, 16)];
    }
    v
}

fn reduction_calls(coll: Coll, short: u64) -> impl Iterator<Item = Call> {
    sizes().into_iter().flat_map(move |p| {
        let rts = if coll == Coll::Reduce { roots(p) } else { vec![0] };
        rts.into_iter().flat_map(move |root| {
            vectors(p, short).into_iter().flat_map(move |(count, elem)| {
                [(true, true), (true, false), (false, true), (false, false)].into_iter().map(
                    move |(builtin, commutative)| {
                        let mut c = Call::new(coll, p).vector(count, elem);
                        (c.root, c.builtin, c.commutative) = (root, builtin, commutative);
                        c.in_place = root % 2 == 1;
                        c
                    },
                )
            })
        })
    })
}

#[test]
fn reduce() {
    let seen = sweep(reduction_calls(Coll::Reduce, 2048));
    assert_covers(&seen, &["reduce_binomial", "reduce_reduce_scatter_gather", "noop"]);
}

#[test]
fn allreduce() {
    let seen = sweep(reduction_calls(Coll::Allreduce, 8));
    assert_covers(&seen, &["allreduce_recursive_doubling", "allreduce_reduce_scatter_allgather"]);
}

#[test]
fn scan_exscan() {
    let seen = sweep(sizes().into_iter().flat_map(|p| {
        [Coll::Scan, Coll::Exscan].into_iter().flat_map(move |coll| {
            [(0, 4), (3, 4), (100_000, 8)].into_iter().map(move |(count, elem)| {
                let mut c = Call::new(coll, p).vector(count, elem);
                c.commutative = count % 2 == 0;
                c
            })
        })
    }));
    assert_covers(&seen, &["scan_recursive_doubling", "exscan_recursive_doubling", "noop"]);
}

#[test]
fn gather_scatter() {
    let seen = sweep(sizes().into_iter().flat_map(|p| {
        roots(p).into_iter().flat_map(move |root| {
            [Coll::Gather, Coll::Scatter].into_iter().flat_map(move |coll| {
                pick(p, &[0u64, 1, 1000, 5000]).into_iter().map(move |b| {
                    let mut c = Call::new(coll, p).bytes(b);
                    (c.root, c.in_place) = (root, b == 1000);
                    c
                })
            })
        })
    }));
    assert_covers(&seen, &["gather_binomial", "scatter_binomial", "noop"]);
}

#[test]
fn gatherv_scatterv() {
    let mut rng = Rng(7);
    let mut calls = Vec::new();
    for p in sizes() {
        for root in roots(p) {
            for coll in [Coll::Gatherv, Coll::Scatterv] {
                let counts: Vec<u64> = (0..p).map(|_| rng.count(5000)).collect();
                let mut c = Call::new(coll, p);
                c.root = root;
                c.send_of = counts.clone();
                c.recv_of = counts.clone();
                c.counts = vec![counts];
                calls.push(c);
            }
        }
    }
    let seen = sweep(calls.into_iter());
    assert_covers(&seen, &["gatherv_linear", "scatterv_linear"]);
}

#[test]
fn allgather() {
    let seen = sweep(sizes().into_iter().flat_map(|p| {
        let q = p as u64;
        let mut blocks = vec![0, 1, 81920 / q, 81920 / q + 1, 524288 / q, 524288 / q + 1, 40_000];
        blocks.sort_unstable();
        blocks.dedup();
        pick(p, &blocks).into_iter().flat_map(move |b| {
            [false, true].into_iter().map(move |in_place| {
                let mut c = Call::new(Coll::Allgather, p).bytes(b);
                c.in_place = in_place;
                c
            })
        })
    }));
    assert_covers(&seen, &["allgather_recursive_doubling", "allgather_brucks", "allgather_ring", "noop"]);
}

#[test]
fn allgatherv() {
    let mut rng = Rng(11);
    let mut calls = Vec::new();
    for p in sizes() {
        let reps = if p > 64 { 1 } else { 4 };
        for max in [0u64, 10, 81920 / p as u64 * 2, 524288 / p as u64 * 2, 100_000] {
            for _ in 0..reps {
                let mut c = Call::new(Coll::Allgatherv, p);
                let counts: Vec<u64> = (0..p).map(|_| rng.count(max)).collect();
                c.in_place = rng.below(2) == 0;
                c.counts = vec![counts];
                calls.push(c);
            }
        }
    }
    let seen = sweep(calls.into_iter());
    assert_covers(&seen, &["allgatherv_recursive_doubling", "allgatherv_brucks", "allgatherv_ring", "noop"]);
}

#[test]
fn alltoall() {
    let seen = sweep(sizes().into_iter().flat_map(|p| {
        let bytes = if p > 256 { vec![1, 32769] } else { vec![0, 1, 256, 257, 32768, 32769] };
        bytes.into_iter().flat_map(move |b| {
            // In place on 1000 ranks is the same pairwise pattern again, at a million steps.
            let places: &[bool] = if p > 256 { &[false] } else { &[false, true] };
            places.iter().map(move |&in_place| {
                let mut c = Call::new(Coll::Alltoall, p).bytes(b);
                c.in_place = in_place;
                c
            })
        })
    }));
    assert_covers(
        &seen,
        &["alltoall_pairwise_sendrecv_replace", "alltoall_brucks", "alltoall_scattered", "alltoall_pairwise", "noop"],
    );
}

#[test]
fn alltoallv_w() {
    let mut rng = Rng(13);
    let mut calls = Vec::new();
    for p in sizes().into_iter().filter(|&p| p <= 256) {
        for coll in [Coll::Alltoallv, Coll::Alltoallw] {
            for in_place in [false, true] {
                let m = matrix(&mut rng, p as usize, 3000, in_place);
                let mut c = Call::new(coll, p);
                c.in_place = in_place;
                c.counts = alltoallv_counts(&m);
                calls.push(c);
            }
        }
    }
    let seen = sweep(calls.into_iter());
    assert_covers(
        &seen,
        &[
            "alltoallv_scattered",
            "alltoallv_pairwise_sendrecv_replace",
            "alltoallw_scattered",
            "alltoallw_pairwise_sendrecv_replace",
        ],
    );
}

#[test]
fn reduce_scatter() {
    let mut rng = Rng(17);
    let mut calls = Vec::new();
    for p in sizes() {
        let q = p as u64;
        for max in pick(p, &[0u64, 3, 524288 / q, 524288 / q * 3]) {
            for commutative in [true, false] {
                for regular in [false, true] {
                    let mut c = Call::new(Coll::ReduceScatter, p);
                    let first = rng.count(max);
                    let counts: Vec<u64> = (0..p).map(|_| if regular { first } else { rng.count(max) }).collect();
                    (c.commutative, c.in_place) = (commutative, regular);
                    c.counts = vec![counts];
                    calls.push(c);
                }
            }
        }
    }
    let seen = sweep(calls.into_iter());
    assert_covers(
        &seen,
        &[
            "reduce_scatter_recursive_halving",
            "reduce_scatter_pairwise",
            "reduce_scatter_noncommutative",
            "reduce_scatter_recursive_doubling",
            "noop",
        ],
    );
}

#[test]
fn reduce_scatter_block() {
    let seen = sweep(sizes().into_iter().flat_map(|p| {
        let q = p as u64;
        let blocks = [0, 1, 524288 / q, 524288 / q + 1, 20_000];
        pick(p, &blocks).into_iter().flat_map(move |b| {
            [true, false].into_iter().map(move |commutative| {
                let mut c = Call::new(Coll::ReduceScatterBlock, p).bytes(b);
                c.commutative = commutative;
                c
            })
        })
    }));
    assert_covers(
        &seen,
        &[
            "reduce_scatter_block_recursive_halving",
            "reduce_scatter_block_pairwise",
            "reduce_scatter_block_noncommutative",
            "reduce_scatter_block_recursive_doubling",
            "noop",
        ],
    );
}
