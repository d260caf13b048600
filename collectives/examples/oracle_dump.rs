//! Prints the expansion of a sweep of calls for the differential oracles, which compare it
//! with the MPI library's own algorithm code:
//!
//! * `oracle_dump mpich` for `oracle/run.sh`: one `CASE` line per call (the algorithm and the
//!   harness's arguments);
//! * `oracle_dump openmpi` for `oracle-ompi/run.sh`: one `CASE` line per call (the
//!   collective and the harness's arguments: Open MPI's own decision picks the algorithm),
//!   then an `ALG` line naming the algorithm expanded;
//! * `oracle_dump openmpi-nbc` for `oracle-ompi/run-nbc.sh`: the same calls' nonblocking
//!   twins as libnbc schedules them (`ALG libnbc`), `|` ending each round.
//!
//! Then one line per rank: `S<peer>:<bytes>` for each send and `R<peer>:<bytes>` for each
//! receive, in posting order, a SendRecv being its send then its receive.

use psins_collectives::{Coll, CollArgs, Library, Step, Thresholds};

/// Deterministic pseudo-random counts (SplitMix64), often zero.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        psins_formats::splitmix::next(&mut self.0)
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

    fn print(&self, library: Library, nonblocking: bool, th: &Thresholds) {
        let mut algorithm = "";
        let mut lines = Vec::new();
        for r in 0..self.p {
            let counts = self.rank_counts(r as usize);
            let mut out = Vec::new();
            let args = self.args(r, &counts);
            algorithm = if nonblocking {
                library.expand_nonblocking(&args, th, &mut out)
            } else {
                library.expand(&args, th, &mut out)
            }
            .expect("valid case");
            let steps: Vec<String> = out
                .iter()
                .map(|s| if *s == Step::WaitAll && nonblocking { "|".to_string() } else { render(s) })
                .collect();
            lines.push(format!("rank {r}: {}", steps.join(" ")));
        }
        if nonblocking {
            algorithm = "libnbc";
        }
        let counts: Vec<String> = self.counts.iter().map(u64::to_string).collect();
        let head = match library {
            Library::Mpich => algorithm,
            Library::OpenMpi => &snake(self.coll.name()),
        };
        println!(
            "CASE {head} {} {} {} {} {} {} {} {}",
            self.p,
            self.root,
            self.bytes,
            self.count,
            self.elem,
            u8::from(self.commutative),
            u8::from(self.in_place),
            counts.join(" ")
        );
        if library == Library::OpenMpi {
            println!("ALG {algorithm}");
        }
        lines.iter().for_each(|l| println!("{l}"));
    }
}

/// `ReduceScatterBlock` → `reduce_scatter_block`, as the Open MPI harness names collectives.
fn snake(name: &str) -> String {
    psins_formats::how::snake(name)
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

/// Calls of every collective on `p` ranks at the byte sizes Open MPI's fixed rules switch
/// at (each power of two up to 2 MiB and one byte below it; a sample on larger
/// communicators).
fn ompi_cases(p: u32, rng: &mut Rng) -> Vec<Case> {
    let (q, n) = (p as u64, p as usize);
    let all: Vec<u64> = (0..=21).flat_map(|k| [(1u64 << k) - 1, 1 << k]).filter(|&b| b > 0).collect();
    let sizes: Vec<u64> = if p <= 33 { all } else { vec![1, 7, 8, 1024, 4096, 16384, 65536, 1 << 20] };
    let roots: Vec<u32> = if p <= 4 { (0..p).collect() } else { vec![0, p / 2, p - 1] };
    let mut v = vec![Case::new(Coll::Barrier, p)];
    for &b in &sizes {
        for &root in &roots {
            v.push(Case { root, bytes: b, count: b, ..Case::new(Coll::Bcast, p) });
            for commutative in [true, false] {
                let (count, elem) = if b % 8 == 0 { (b / 8, 8) } else { (b, 1) };
                let in_place = root % 2 == 1;
                v.push(Case { root, count, elem, commutative, in_place, ..Case::new(Coll::Reduce, p) });
            }
            for coll in [Coll::Gather, Coll::Scatter] {
                v.push(Case { root, bytes: b, in_place: b % 3 == 0, ..Case::new(coll, p) });
            }
        }
        for commutative in [true, false] {
            let (count, elem) = if b % 4 == 0 { (b / 4, 4) } else { (b, 1) };
            v.push(Case { count, elem, commutative, ..Case::new(Coll::Allreduce, p) });
            v.push(Case { bytes: b, commutative, ..Case::new(Coll::ReduceScatterBlock, p) });
            let counts = rng.counts(n, 2 * b / q.max(1) + 1);
            v.push(Case { commutative, counts, ..Case::new(Coll::ReduceScatter, p) });
        }
        for in_place in [false, true] {
            if b * q <= 1 << 24 {
                v.push(Case { bytes: b, in_place, ..Case::new(Coll::Allgather, p) });
                v.push(Case { bytes: b, in_place, ..Case::new(Coll::Alltoall, p) });
            }
        }
        v.push(Case { counts: rng.counts(n, 2 * b), ..Case::new(Coll::Allgatherv, p) });
    }
    for &root in &roots {
        for coll in [Coll::Gatherv, Coll::Scatterv] {
            v.push(Case { root, counts: rng.counts(n, 3000), ..Case::new(coll, p) });
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
    for (count, elem) in [(1, 8), (1000, 4)] {
        for coll in [Coll::Scan, Coll::Exscan] {
            v.push(Case { count, elem, ..Case::new(coll, p) });
        }
    }
    v
}

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let nonblocking = mode == "openmpi-nbc";
    let library = match Library::from_name(if nonblocking { "openmpi" } else { &mode }) {
        Some(l) => l,
        None => {
            eprintln!("usage: oracle_dump mpich|openmpi|openmpi-nbc [COLLECTIVE...]");
            std::process::exit(2);
        }
    };
    // Only these collectives, when any are named.
    let only: Vec<String> = std::env::args().skip(2).collect();
    let th = Thresholds::default();
    let mut rng = Rng(42);
    let wanted = |c: &&Case| only.is_empty() || only.iter().any(|o| *o == snake(c.coll.name()));
    for p in (1..=33).chain([48, 63, 64, 100, 128, 129]) {
        let calls = match library {
            Library::Mpich => cases(p, &mut rng),
            Library::OpenMpi => ompi_cases(p, &mut rng),
        };
        calls.iter().filter(wanted).for_each(|c| c.print(library, nonblocking, &th));
        if nonblocking {
            // libnbc's ring allreduce: 64 KiB or more in fewer elements than the largest power
            // of two of ranks.
            let ring = Case { count: 2, elem: 40_000, ..Case::new(Coll::Allreduce, p) };
            [ring].iter().filter(wanted).for_each(|c| c.print(library, nonblocking, &th));
        }
    }
    if library == Library::OpenMpi && !nonblocking {
        // The algorithms Open MPI's rules pick only from 256 ranks on: the tree barrier, the
        // split-binary-tree bcast (16 KiB to 32 KiB) and Bruck's allgather (32 to 127 bytes).
        for p in [256, 300] {
            let mut calls = vec![Case::new(Coll::Barrier, p)];
            for bytes in [64, 16384] {
                calls.push(Case { bytes, count: bytes, ..Case::new(Coll::Bcast, p) });
                calls.push(Case { bytes, ..Case::new(Coll::Allgather, p) });
            }
            calls.iter().filter(wanted).for_each(|c| c.print(library, nonblocking, &th));
        }
    }
}
