//! Prints the expansion of a sweep of calls in the format of `oracle/`'s MPICH harness, for
//! `oracle/run.sh` to compare with MPICH's own algorithm code. One `CASE` line per call
//! (algorithm and the harness's arguments), then one line per rank: `S<peer>:<bytes>` for
//! each send and `R<peer>:<bytes>` for each receive, a SendRecv being its send then its
//! receive.

use psins_collectives::{expand, Coll, CollArgs, Step, Thresholds};

/// Deterministic pseudo-random counts (SplitMix64), often zero.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn count(&mut self, max: u64) -> u64 {
        if self.next() & 3 == 0 {
            0
        } else {
            self.next() % (max + 1)
        }
    }

    fn counts(&mut self, n: usize, max: u64) -> Vec<u64> {
        (0..n).map(|_| self.count(max)).collect()
    }
}

/// One call, in the harness's terms: `bytes` per peer (or whole message for bcast), `count`
/// elements of `elem` bytes for reductions, `counts` per rank (a P×P matrix for alltoallv/w).
struct Case {
    coll: Coll,
    p: u32,
    root: u32,
    bytes: u64,
    count: u64,
    elem: u64,
    commutative: bool,
    in_place: bool,
    counts: Vec<u64>,
}

impl Case {
    fn new(coll: Coll, p: u32) -> Case {
        let (root, bytes, count, elem, counts) = (0, 0, 0, 1, Vec::new());
        Case { coll, p, root, bytes, count, elem, commutative: true, in_place: false, counts }
    }

    fn rank_counts(&self, r: usize) -> Vec<u64> {
        let p = self.p as usize;
        match self.coll {
            Coll::Alltoallv | Coll::Alltoallw => {
                let m = &self.counts;
                (0..p).map(|j| m[r * p + j]).chain((0..p).map(|j| m[j * p + r])).collect()
            }
            _ => self.counts.clone(),
        }
    }

    fn args<'a>(&self, r: u32, counts: &'a [u64]) -> CollArgs<'a> {
        let own = |v: u64| match self.coll {
            Coll::Gatherv | Coll::Scatterv => self.counts[r as usize],
            Coll::Reduce | Coll::Allreduce | Coll::Scan | Coll::Exscan => self.count * self.elem,
            _ => v,
        };
        let rooted = matches!(self.coll, Coll::Reduce | Coll::Gather | Coll::Scatter);
        CollArgs {
            root: self.root,
            send_bytes: own(self.bytes),
            recv_bytes: own(self.bytes),
            counts,
            count: self.count,
            op_commutative: self.commutative,
            in_place: self.in_place && (r == self.root || !rooted),
            ..CollArgs::new(self.coll, self.p, r)
        }
    }

    fn print(&self, th: &Thresholds) {
        let mut algorithm = "";
        let mut lines = Vec::new();
        for r in 0..self.p {
            let counts = self.rank_counts(r as usize);
            let mut out = Vec::new();
            algorithm = expand(&self.args(r, &counts), th, &mut out).expect("valid case");
            let steps: Vec<String> = out.iter().map(render).collect();
            lines.push(format!("rank {r}: {}", steps.join(" ")));
        }
        let counts: Vec<String> = self.counts.iter().map(u64::to_string).collect();
        println!(
            "CASE {algorithm} {} {} {} {} {} {} {} {}",
            self.p,
            self.root,
            self.bytes,
            self.count,
            self.elem,
            u8::from(self.commutative),
            u8::from(self.in_place),
            counts.join(" ")
        );
        lines.iter().for_each(|l| println!("{l}"));
    }
}

fn render(st: &Step) -> String {
    let half = |kind: char, (peer, bytes): (u32, u64)| format!("{kind}{peer}:{bytes}");
    let parts: Vec<String> =
        st.send().map(|s| half('S', s)).into_iter().chain(st.recv().map(|r| half('R', r))).collect();
    parts.join(" ")
}

/// Calls of every collective on `p` ranks, around every threshold.
fn cases(p: u32, rng: &mut Rng) -> Vec<Case> {
    let (q, n) = (p as u64, p as usize);
    let pof2 = 1u64 << (63 - q.leading_zeros());
    let vectors = [(1, 8), (pof2 - 1, 4096), (pof2, 4096), (pof2 + 1, 12), (3 * pof2 + 5, 16), (777, 8)];
    let roots: Vec<u32> = if p <= 6 { (0..p).collect() } else { vec![0, 1, p / 2, p - 1] };
    let mut v = vec![Case::new(Coll::Barrier, p)];
    for &root in &roots {
        for bytes in [1, 100, 12289, 100_003, 524289] {
            v.push(Case { root, bytes, ..Case::new(Coll::Bcast, p) });
        }
        for (count, elem) in vectors {
            for commutative in [true, false] {
                let in_place = root % 2 == 1;
                v.push(Case { root, count, elem, commutative, in_place, ..Case::new(Coll::Reduce, p) });
            }
        }
        for coll in [Coll::Gather, Coll::Scatter] {
            for bytes in [1, 3000] {
                v.push(Case { root, bytes, in_place: bytes == 1, ..Case::new(coll, p) });
            }
        }
        for coll in [Coll::Gatherv, Coll::Scatterv] {
            v.push(Case { root, counts: rng.counts(n, 3000), ..Case::new(coll, p) });
        }
    }
    for (count, elem) in vectors {
        v.push(Case { count, elem, ..Case::new(Coll::Allreduce, p) });
        for coll in [Coll::Scan, Coll::Exscan] {
            v.push(Case { count, elem, commutative: count % 2 == 0, ..Case::new(coll, p) });
        }
    }
    for bytes in [1, 81920 / q + 1, 524288 / q + 1, 3000] {
        for in_place in [false, true] {
            v.push(Case { bytes, in_place, ..Case::new(Coll::Allgather, p) });
        }
    }
    for max in [10, 81920 / q * 2, 524288 / q * 2, 100_000] {
        v.push(Case { counts: rng.counts(n, max), ..Case::new(Coll::Allgatherv, p) });
    }
    for bytes in [1, 257, 32769] {
        for in_place in [false, true] {
            v.push(Case { bytes, in_place, ..Case::new(Coll::Alltoall, p) });
        }
    }
    for coll in [Coll::Alltoallv, Coll::Alltoallw] {
        for in_place in [false, true] {
            let mut m = rng.counts(n * n, 2000);
            if in_place {
                (0..n).for_each(|i| (0..i).for_each(|j| m[i * n + j] = m[j * n + i]));
            }
            v.push(Case { in_place, counts: m, ..Case::new(coll, p) });
        }
    }
    for max in [3, 524288 / q, 524288 / q * 3] {
        for commutative in [true, false] {
            for regular in [false, true] {
                let first = rng.count(max);
                let counts: Vec<u64> = (0..n).map(|_| if regular { first } else { rng.count(max) }).collect();
                v.push(Case { commutative, in_place: regular, counts, ..Case::new(Coll::ReduceScatter, p) });
            }
        }
    }
    for bytes in [1, 524288 / q + 1, 20_000] {
        for commutative in [true, false] {
            v.push(Case { bytes, commutative, ..Case::new(Coll::ReduceScatterBlock, p) });
        }
    }
    v
}

fn main() {
    let th = Thresholds::default();
    let mut rng = Rng(42);
    for p in (1..=33).chain([48, 63, 64, 100, 128, 129]) {
        cases(p, &mut rng).iter().for_each(|c| c.print(&th));
    }
}
