//! Closed-form message counts and byte totals (over all ranks, counted at the sender) of
//! each algorithm, and the selection boundaries of MPICH 4.0.2's table.

use crate::common;

use common::{check, floor_pow2, Call};
use psins_collectives::check::Summary;
use psins_collectives::{expand, Coll, CollArgs, Step, Thresholds};

fn ceil_log2(p: u64) -> u64 {
    p.next_power_of_two().trailing_zeros() as u64
}

fn summary(messages: u64, bytes: u64) -> Summary {
    Summary { messages, bytes }
}

/// Σ over non-root relative ranks of their binomial subtree size = total block-hops of a
/// binomial gather or scatter.
fn binomial_block_hops(p: u64) -> u64 {
    (1..p).map(|v| (v & v.wrapping_neg()).min(p - v)).sum()
}

fn expect(call: Call, algorithm: &str, messages: u64, bytes: u64) {
    let (name, got) = check(&call);
    assert_eq!(name, algorithm, "{call:?}");
    assert_eq!(got, summary(messages, bytes), "{call:?} ({name})");
}

#[test]
fn barrier_dissemination() {
    for p in 2..=70u32 {
        let q = p as u64;
        expect(Call::new(Coll::Barrier, p), "barrier_dissemination", q * ceil_log2(q), 0);
    }
}

#[test]
fn bcast() {
    for p in 2..=40u32 {
        let q = p as u64;
        for root in [0, p - 1] {
            let mut c = Call::new(Coll::Bcast, p).bytes(1000);
            c.root = root;
            expect(c, "bcast_binomial", q - 1, (q - 1) * 1000);
        }
        if p < 8 {
            continue;
        }
        // n a multiple of P: every scatter block is full.
        let block = 20_000;
        let n = q * block;
        let scatter = (q - 1, binomial_block_hops(q) * block);
        let mut c = Call::new(Coll::Bcast, p).bytes(n);
        c.root = 3 % p;
        if q.is_power_of_two() && n <= 524_288 {
            let k = ceil_log2(q);
            let allgather = (q * k, q * (q - 1) * block);
            expect(c, "bcast_scatter_recursive_doubling_allgather", scatter.0 + allgather.0, scatter.1 + allgather.1);
        } else {
            let ring = (q * (q - 1), q * (q - 1) * block);
            expect(c, "bcast_scatter_ring_allgather", scatter.0 + ring.0, scatter.1 + ring.1);
        }
    }
}

#[test]
fn allreduce() {
    for p in 2..=40u32 {
        let q = p as u64;
        let (pof2, k) = (floor_pow2(q), floor_pow2(q).trailing_zeros() as u64);
        let rem = q - pof2;
        // Recursive doubling: pof2·k full-size messages, plus 2 per folded pair.
        let n = 8;
        expect(
            Call::new(Coll::Allreduce, p).vector(1, n),
            "allreduce_recursive_doubling",
            pof2 * k + 2 * rem,
            (pof2 * k + 2 * rem) * n,
        );
        // Rabenseifner with count a multiple of pof2: halving and doubling each move
        // (pof2−1)/pof2 of the vector per survivor.
        let (count, elem) = (pof2 * 64, 8);
        let v = count * elem;
        let msgs = 2 * pof2 * k + 2 * rem;
        let bytes = 2 * (pof2 - 1) * v + 2 * rem * v;
        expect(Call::new(Coll::Allreduce, p).vector(count, elem), "allreduce_reduce_scatter_allgather", msgs, bytes);
    }
}

#[test]
fn reduce() {
    for p in 2..=40u32 {
        let q = p as u64;
        for commutative in [true, false] {
            let mut c = Call::new(Coll::Reduce, p).vector(10, 8);
            (c.root, c.commutative) = (p / 2, commutative);
            let extra = u64::from(!commutative && p / 2 != 0);
            expect(c, "reduce_binomial", q - 1 + extra, (q - 1 + extra) * 80);
        }
        // Rabenseifner on a power of two, root 0: halving moves (P−1)/P of the vector per
        // rank; the binomial gather moves each block along its depth.
        if q.is_power_of_two() {
            let k = ceil_log2(q);
            let (count, elem) = (q * 400, 8);
            let block = count * elem / q;
            let msgs = q * k + (q - 1);
            let bytes = (q - 1) * count * elem + block * binomial_block_hops(q);
            expect(Call::new(Coll::Reduce, p).vector(count, elem), "reduce_reduce_scatter_gather", msgs, bytes);
        }
    }
}

#[test]
fn gather_scatter() {
    for p in 2..=40u32 {
        let q = p as u64;
        for coll in [Coll::Gather, Coll::Scatter] {
            let mut c = Call::new(coll, p).bytes(100);
            c.root = p - 1;
            let name = if coll == Coll::Gather { "gather_binomial" } else { "scatter_binomial" };
            expect(c, name, q - 1, 100 * binomial_block_hops(q));
        }
        if q.is_power_of_two() {
            assert_eq!(binomial_block_hops(q), ceil_log2(q) * q / 2);
        }
    }
}

#[test]
fn gatherv_scatterv() {
    let counts: Vec<u64> = (0..10).map(|i| if i % 3 == 0 { 0 } else { i * 7 }).collect();
    for coll in [Coll::Gatherv, Coll::Scatterv] {
        let mut c = Call::new(coll, 10);
        c.root = 2;
        (c.send_of, c.recv_of, c.counts) = (counts.clone(), counts.clone(), vec![counts.clone()]);
        let others = counts.iter().enumerate().filter(|&(i, &n)| i != 2 && n > 0);
        let (m, b) = others.fold((0, 0), |(m, b), (_, &n)| (m + 1, b + n));
        expect(c, if coll == Coll::Gatherv { "gatherv_linear" } else { "scatterv_linear" }, m, b);
    }
}

#[test]
fn allgather() {
    for p in 2..=40u32 {
        let q = p as u64;
        let all = q * (q - 1);
        // Every algorithm delivers P−1 blocks to every rank.
        let (b_small, b_big) = (16, 600_000 / q + 1);
        let (algo, msgs) = if q.is_power_of_two() {
            ("allgather_recursive_doubling", q * ceil_log2(q))
        } else {
            ("allgather_brucks", q * ceil_log2(q))
        };
        expect(Call::new(Coll::Allgather, p).bytes(b_small), algo, msgs, all * b_small);
        expect(Call::new(Coll::Allgather, p).bytes(b_big), "allgather_ring", all, all * b_big);
    }
}

#[test]
fn allgatherv_ring_pipelines() {
    // One block of 100 000 bytes: cut into 32 768-byte chunks, 4 transfers per hop.
    let p = 5u32;
    let mut c = Call::new(Coll::Allgatherv, p);
    c.counts = vec![vec![100_000, 20_000, 0, 20_000, 20_000]];
    let total: u64 = c.counts[0].iter().sum();
    // Each block crosses P−1 links; the big one in 4 chunks, the 20 000-byte ones in 1.
    let msgs = (p as u64 - 1) * (4 + 3);
    expect(c, "allgatherv_ring", msgs, (p as u64 - 1) * total);
}

#[test]
fn alltoall() {
    for p in 2..=40u32 {
        let q = p as u64;
        let all = q * (q - 1);
        if q >= 8 {
            let popcounts: u64 = (1..q).map(|i| i.count_ones() as u64).sum();
            expect(Call::new(Coll::Alltoall, p).bytes(8), "alltoall_brucks", q * ceil_log2(q), q * popcounts * 8);
        }
        // Scattered and in-place alltoall also send each rank's own block to itself.
        let with_own = q * q;
        expect(Call::new(Coll::Alltoall, p).bytes(1000), "alltoall_scattered", with_own, with_own * 1000);
        expect(Call::new(Coll::Alltoall, p).bytes(40_000), "alltoall_pairwise", all, all * 40_000);
        let mut c = Call::new(Coll::Alltoall, p).bytes(100);
        c.in_place = true;
        expect(c, "alltoall_pairwise_sendrecv_replace", with_own, with_own * 100);
    }
}

/// Scattered alltoall keeps MPICH's batches (`MPIR_CVAR_ALLTOALL_THROTTLE` = 32 peers,
/// the rank itself included: its own block is a message to itself, first in the first
/// batch): on 4 ranks rank 1 posts receives from 1, 2, 3, 0, sends to 1, 0, 3, 2, then
/// waits; on 40 ranks the first batch holds distances 0..=31 and the second 32..=39.
#[test]
fn scattered_alltoall_batches() {
    let th = Thresholds::default();
    let steps = |p: u32, r: u32, th: &Thresholds| {
        let mut a = CollArgs::new(Coll::Alltoall, p, r);
        (a.send_bytes, a.recv_bytes) = (1000, 1000);
        let mut out = Vec::new();
        assert_eq!(expand(&a, th, &mut out).unwrap(), "alltoall_scattered");
        out
    };
    let (ir, is) = (|peer| Step::IRecv { peer, bytes: 1000 }, |peer| Step::ISend { peer, bytes: 1000 });
    assert_eq!(steps(4, 1, &th), [ir(1), ir(2), ir(3), ir(0), is(1), is(0), is(3), is(2), Step::WaitAll]);
    let s = steps(40, 5, &th);
    assert_eq!(s.len(), 32 * 2 + 1 + 8 * 2 + 1);
    assert_eq!(
        (s[0], s[1], s[31], s[32], s[33], s[63], s[64]),
        (ir(5), ir(6), ir(36), is(5), is(4), is(14), Step::WaitAll)
    );
    assert_eq!((s[65], s[72], s[73], s[80], s[81]), (ir(37), ir(4), is(13), is(6), Step::WaitAll));
    // Throttle 0 (MPICH: all peers at once) and 1 (one peer per batch).
    let mut one = th.clone();
    one.set("alltoall_throttle", 0).unwrap();
    assert_eq!(steps(40, 5, &one).iter().filter(|s| **s == Step::WaitAll).count(), 1);
    one.set("alltoall_throttle", 1).unwrap();
    assert_eq!(
        steps(4, 1, &one),
        [
            ir(1),
            is(1),
            Step::WaitAll,
            ir(2),
            is(0),
            Step::WaitAll,
            ir(3),
            is(3),
            Step::WaitAll,
            ir(0),
            is(2),
            Step::WaitAll
        ]
    );
}

/// Linear gatherv: the root posts every receive, then waits once.
#[test]
fn linear_gatherv_is_one_batch() {
    let counts = [5, 0, 7, 9];
    let mut a = CollArgs::new(Coll::Gatherv, 4, 2);
    a.root = 2;
    a.counts = &counts;
    let mut out = Vec::new();
    expand(&a, &Thresholds::default(), &mut out).unwrap();
    let want = [Step::IRecv { peer: 0, bytes: 5 }, Step::IRecv { peer: 3, bytes: 9 }, Step::WaitAll];
    assert_eq!(out, want);
}

#[test]
fn reduce_scatter() {
    for p in 2..=40u32 {
        let q = p as u64;
        let (pof2, k) = (floor_pow2(q), floor_pow2(q).trailing_zeros() as u64);
        let rem = q - pof2;
        let b = 64;
        // Halving: full-vector fold, then every survivor sends (pof2−1)/pof2 of the
        // folded vector, then the folded ranks get their block back.
        let c = Call::new(Coll::ReduceScatterBlock, p).bytes(b);
        expect(
            c,
            "reduce_scatter_block_recursive_halving",
            rem + pof2 * k + rem,
            rem * q * b + q * b * (pof2 - 1) + rem * b,
        );
        let c = Call::new(Coll::ReduceScatterBlock, p).bytes(600_000 / q + 1);
        let bb = 600_000 / q + 1;
        expect(c, "reduce_scatter_block_pairwise", q * (q - 1), q * (q - 1) * bb);
        let mut c = Call::new(Coll::ReduceScatterBlock, p).bytes(b);
        c.commutative = false;
        if q.is_power_of_two() {
            expect(c, "reduce_scatter_block_noncommutative", q * k, q * (q - 1) * b);
        } else {
            assert_eq!(check(&c).0, "reduce_scatter_block_recursive_doubling");
        }
    }
    // Recursive doubling on 2^k ranks: at level l every rank sends all but its 2^l-rank
    // subtree's blocks, so the bytes are total · (k·P − (P − 1)).
    for k in 1..=5u32 {
        let p = 1u32 << k;
        let (q, kk) = (p as u64, k as u64);
        let counts: Vec<u64> = (0..q).map(|i| i % 5 + 1).collect();
        let total: u64 = counts.iter().sum();
        let mut c = Call::new(Coll::ReduceScatter, p);
        (c.commutative, c.counts) = (false, vec![counts]);
        expect(c, "reduce_scatter_recursive_doubling", q * kk, total * (kk * q - (q - 1)));
    }
}

#[test]
fn scan_exscan() {
    for p in 2..=40u32 {
        let q = p as u64;
        let msgs: u64 = (0..q).map(|r| (0..ceil_log2(q)).filter(|&b| (r ^ (1 << b)) < q).count() as u64).sum();
        for coll in [Coll::Scan, Coll::Exscan] {
            let (name, got) = check(&Call::new(coll, p).vector(3, 4));
            assert!(name.ends_with("recursive_doubling"));
            assert_eq!(got, summary(msgs, msgs * 12));
        }
        if q.is_power_of_two() {
            assert_eq!(msgs, q * ceil_log2(q));
        }
    }
}

/// Each threshold decides at exactly its documented boundary.
#[test]
fn selection_boundaries() {
    let th = Thresholds::default();
    let pick = |c: &Call| {
        let mut out = Vec::new();
        expand(&c.args(0), &th, &mut out).unwrap()
    };
    let bcast = |p, n| pick(&Call::new(Coll::Bcast, p).bytes(n));
    assert_eq!(bcast(7, 1 << 30), "bcast_binomial");
    assert_eq!(bcast(8, 12288), "bcast_binomial");
    assert_eq!(bcast(8, 12289), "bcast_scatter_recursive_doubling_allgather");
    assert_eq!(bcast(8, 524288), "bcast_scatter_recursive_doubling_allgather");
    assert_eq!(bcast(8, 524289), "bcast_scatter_ring_allgather");
    assert_eq!(bcast(9, 12289), "bcast_scatter_ring_allgather");

    let allreduce = |p, count, elem, builtin| {
        let mut c = Call::new(Coll::Allreduce, p).vector(count, elem);
        c.builtin = builtin;
        pick(&c)
    };
    assert_eq!(allreduce(4, 1, 8, true), "allreduce_recursive_doubling");
    assert_eq!(allreduce(4, 4, 4, true), "allreduce_reduce_scatter_allgather");
    assert_eq!(allreduce(4, 3, 4, true), "allreduce_recursive_doubling"); // count < pof2
    assert_eq!(allreduce(6, 4, 4, true), "allreduce_reduce_scatter_allgather"); // pof2 = 4
    assert_eq!(allreduce(4, 4, 4, false), "allreduce_recursive_doubling");

    let reduce = |p, count, elem| pick(&Call::new(Coll::Reduce, p).vector(count, elem));
    assert_eq!(reduce(4, 512, 4), "reduce_binomial");
    assert_eq!(reduce(4, 513, 4), "reduce_reduce_scatter_gather");
    assert_eq!(reduce(16, 15, 1000), "reduce_binomial");

    let allgather = |p, b| pick(&Call::new(Coll::Allgather, p).bytes(b));
    assert_eq!(allgather(8, 65535), "allgather_recursive_doubling");
    assert_eq!(allgather(8, 65536), "allgather_ring"); // total 524288 is not < 524288
    assert_eq!(allgather(10, 8191), "allgather_brucks");
    assert_eq!(allgather(10, 8192), "allgather_ring"); // total 81920

    let alltoall = |p, b| pick(&Call::new(Coll::Alltoall, p).bytes(b));
    assert_eq!(alltoall(7, 1), "alltoall_scattered");
    assert_eq!(alltoall(7, 32769), "alltoall_pairwise");
    assert_eq!(alltoall(8, 256), "alltoall_brucks");
    assert_eq!(alltoall(8, 257), "alltoall_scattered");
    assert_eq!(alltoall(8, 32768), "alltoall_scattered");
    assert_eq!(alltoall(8, 32769), "alltoall_pairwise");

    let rsb = |p, b, commutative| {
        let mut c = Call::new(Coll::ReduceScatterBlock, p).bytes(b);
        c.commutative = commutative;
        pick(&c)
    };
    assert_eq!(rsb(8, 65535, true), "reduce_scatter_block_recursive_halving");
    assert_eq!(rsb(8, 65536, true), "reduce_scatter_block_pairwise");
    assert_eq!(rsb(8, 1, false), "reduce_scatter_block_noncommutative");
    assert_eq!(rsb(6, 1, false), "reduce_scatter_block_recursive_doubling");

    // Irregular blocks never use the noncommutative algorithm.
    let mut c = Call::new(Coll::ReduceScatter, 4);
    (c.commutative, c.counts) = (false, vec![vec![1, 2, 1, 1]]);
    assert_eq!(pick(&c), "reduce_scatter_recursive_doubling");
    c.counts = vec![vec![2, 2, 2, 2]];
    assert_eq!(pick(&c), "reduce_scatter_noncommutative");
}

/// Thresholds are data: changing one changes the choice.
#[test]
fn thresholds_drive_selection() {
    let th = Thresholds { bcast_short_msg_size: 100, ..Thresholds::default() };
    let call = Call::new(Coll::Bcast, 16).bytes(101);
    let mut out = Vec::new();
    assert_eq!(expand(&call.args(0), &th, &mut out).unwrap(), "bcast_scatter_recursive_doubling_allgather");
}

#[test]
fn nonblocking_and_p1() {
    let th = Thresholds::default();
    let mut out = vec![Step::Send { peer: 9, bytes: 9 }];
    let a = CollArgs { send_bytes: 100, ..CollArgs::new(Coll::Bcast, 1, 0) };
    assert_eq!(expand(&a, &th, &mut out).unwrap(), "noop");
    assert!(out.is_empty());
}

/// Nonblocking schedules: one phase per blocking step (iallreduce's recursive doubling on 4
/// ranks: rank 1 exchanges with 0, then with 3), binomial ibcast's sends in one phase, and
/// the nonblocking table's own thresholds (iallreduce: recursive doubling up to 2048 bytes).
#[test]
fn nonblocking_schedules() {
    use psins_collectives::expand_nonblocking;
    let th = Thresholds::default();
    let mut a = CollArgs::new(Coll::Allreduce, 4, 1);
    (a.send_bytes, a.recv_bytes, a.count) = (1024, 1024, 128);
    let mut out = Vec::new();
    assert_eq!(expand_nonblocking(&a, &th, &mut out).unwrap(), "allreduce_recursive_doubling");
    let (is, ir) = (|peer| Step::ISend { peer, bytes: 1024 }, |peer| Step::IRecv { peer, bytes: 1024 });
    assert_eq!(out, [is(0), ir(0), Step::WaitAll, is(3), ir(3), Step::WaitAll]);
    // The blocking table switches to reduce-scatter + allgather above 8 bytes.
    assert_eq!(expand(&a, &th, &mut out).unwrap(), "allreduce_reduce_scatter_allgather");

    let mut b = CollArgs::new(Coll::Bcast, 8, 0);
    b.send_bytes = 100;
    assert_eq!(expand_nonblocking(&b, &th, &mut out).unwrap(), "bcast_binomial");
    let s = |peer| Step::ISend { peer, bytes: 100 };
    assert_eq!(out, [s(4), s(2), s(1), Step::WaitAll]);
    b.rank = 6;
    expand_nonblocking(&b, &th, &mut out).unwrap();
    assert_eq!(out, [Step::IRecv { peer: 4, bytes: 100 }, Step::WaitAll, s(7), Step::WaitAll]);
    // ibcast compares with `<`: 12288 bytes on 8 ranks is no longer binomial.
    b.send_bytes = 12288;
    assert_eq!(expand_nonblocking(&b, &th, &mut out).unwrap(), "bcast_scatter_recursive_doubling_allgather");
    assert_eq!(expand(&b, &th, &mut out).unwrap(), "bcast_binomial");
}
