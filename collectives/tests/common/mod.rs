//! Shared by the integration tests: a whole-communicator call description, its expansion on
//! every rank, and the consistency checks of `psins_collectives::check`.
#![allow(dead_code)]

use psins_collectives::check::{expand_all, expand_all_nonblocking, verify, Summary};
use psins_collectives::{Coll, CollArgs, Step, Thresholds};

/// One collective call as every rank sees it.
#[derive(Clone, Debug)]
pub struct Call {
    pub coll: Coll,
    pub size: u32,
    pub root: u32,
    pub send: u64,
    pub recv: u64,
    pub count: u64,
    pub builtin: bool,
    pub commutative: bool,
    pub in_place: bool,
    /// Per-rank `counts` (one list per rank) or one list shared by all ranks.
    pub counts: Vec<Vec<u64>>,
    /// Per-rank `send_bytes` / `recv_bytes` overrides (gatherv, scatterv).
    pub send_of: Vec<u64>,
    pub recv_of: Vec<u64>,
}

impl Call {
    pub fn new(coll: Coll, size: u32) -> Call {
        Call {
            coll,
            size,
            root: 0,
            send: 0,
            recv: 0,
            count: 0,
            builtin: true,
            commutative: true,
            in_place: false,
            counts: Vec::new(),
            send_of: Vec::new(),
            recv_of: Vec::new(),
        }
    }

    /// Same per-peer block on both sides.
    pub fn bytes(mut self, b: u64) -> Call {
        self.send = b;
        self.recv = b;
        self
    }

    /// A reduction of `count` elements of `elem` bytes.
    pub fn vector(mut self, count: u64, elem: u64) -> Call {
        self.count = count;
        self.send = count * elem;
        self.recv = count * elem;
        self
    }

    pub fn args(&self, rank: u32) -> CollArgs<'_> {
        let r = rank as usize;
        let counts: &[u64] = match self.counts.len() {
            0 => &[],
            1 => &self.counts[0],
            _ => &self.counts[r],
        };
        CollArgs {
            coll: self.coll,
            size: self.size,
            rank,
            root: self.root,
            send_bytes: self.send_of.get(r).copied().unwrap_or(self.send),
            recv_bytes: self.recv_of.get(r).copied().unwrap_or(self.recv),
            counts,
            count: self.count,
            op_builtin: self.builtin,
            op_commutative: self.commutative,
            in_place: self.in_place,
        }
    }
}

/// Expands `call` on every rank with `th`, checks FIFO matching and runs the rendezvous
/// executor; panics with the call on any failure.
pub fn check_with(call: &Call, th: &Thresholds) -> (&'static str, Vec<Vec<Step>>, Summary) {
    let exp = expand_all(call.size, th, |r| call.args(r)).unwrap_or_else(|e| panic!("{call:?}: expansion failed: {e}"));
    let summary = verify(&exp.steps).unwrap_or_else(|e| panic!("{call:?} ({}): {e}", exp.algorithm));
    // The nonblocking twin's schedule: consistent too, with the same messages whenever
    // it selects the same algorithm.
    let nb = expand_all_nonblocking(call.size, th, |r| call.args(r))
        .unwrap_or_else(|e| panic!("{call:?}: nonblocking expansion failed: {e}"));
    let nb_summary = verify(&nb.steps).unwrap_or_else(|e| panic!("{call:?} (i{}): {e}", nb.algorithm));
    if nb.algorithm == exp.algorithm {
        // The in-place schedules leave out the exchange with itself that the blocking loop makes.
        let mut want = summary;
        if exp.algorithm.ends_with("_pairwise_sendrecv_replace") {
            for (r, list) in exp.steps.iter().enumerate() {
                for (_, bytes) in list.iter().filter_map(|s| s.send()).filter(|&(to, _)| to as usize == r) {
                    want.messages -= 1;
                    want.bytes -= bytes;
                }
            }
        }
        assert_eq!(nb_summary, want, "{call:?}: schedule of i{}", nb.algorithm);
    }
    assert!(nb.steps.iter().flatten().all(|s| matches!(s, Step::ISend { .. } | Step::IRecv { .. } | Step::WaitAll)));
    (exp.algorithm, exp.steps, summary)
}

pub fn check(call: &Call) -> (&'static str, Summary) {
    let (name, _, summary) = check_with(call, &Thresholds::default());
    (name, summary)
}

/// Deterministic pseudo-random numbers (no extra dependency): SplitMix64.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        psins_formats::splitmix::next(&mut self.0)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }

    /// A byte count: often 0, otherwise up to `max`.
    pub fn count(&mut self, max: u64) -> u64 {
        if self.below(4) == 0 {
            0
        } else {
            self.below(max + 1)
        }
    }
}

/// P × P alltoallv matrix m[i][j] = bytes i sends to j; symmetric when `symmetric`.
pub fn matrix(rng: &mut Rng, p: usize, max: u64, symmetric: bool) -> Vec<Vec<u64>> {
    let mut m: Vec<Vec<u64>> = Vec::with_capacity(p);
    for i in 0..p {
        let row = (0..p).map(|j| if symmetric && j < i { m[j][i] } else { rng.count(max) }).collect();
        m.push(row);
    }
    m
}

/// Per-rank alltoallv/w counts (sends to each peer, then receives from each) of matrix `m`.
pub fn alltoallv_counts(m: &[Vec<u64>]) -> Vec<Vec<u64>> {
    let p = m.len();
    (0..p).map(|i| (0..p).map(|j| m[i][j]).chain((0..p).map(|j| m[j][i])).collect()).collect()
}

/// The communicator sizes of the exhaustive sweep.
pub fn sizes() -> Vec<u32> {
    (1..=64).chain([100, 128, 129, 256, 1000]).collect()
}

/// Roots to try: all of them on small communicators, a sample on larger ones.
pub fn roots(p: u32) -> Vec<u32> {
    if p <= 9 {
        (0..p).collect()
    } else if p <= 64 {
        vec![0, 1, p / 2, p - 1]
    } else {
        vec![0, p - 1]
    }
}

/// Largest power of two ≤ p (p ≥ 1).
pub fn floor_pow2(p: u64) -> u64 {
    1 << (63 - p.leading_zeros())
}
