//! Golden step lists for Open MPI 4.1.4's family (`ompi::expand`), computed by hand from Open
//! MPI's C code (`coll/base/coll_base_*.c`, `coll/basic/coll_basic_*.c`) for one small call per
//! algorithm the fixed rules of `coll_tuned_decision_fixed.c` can select, the rules' switch
//! points, and the calls Open MPI's MPI layer returns from early.
//!
//! Notation, one string per rank: `S3:8` Send 8 bytes to 3, `R3:8` Recv, `s3:8` ISend,
//! `r3:8` IRecv, `W` WaitAll, `X1:8/2:4` SendRecv (8 bytes to 1, 4 from 2); `T*n` repeats a
//! token and `[A B]*n` a group. Waits follow docs/collectives.md (*Open MPI*, *Waits*): a
//! receive posted with `irecv` and waited for alone is a `Recv`, an `irecv` + `send` + wait is a
//! `SendRecv`, a blocking send made while receives are posted joins their batch.

use crate::common;

use common::{alltoallv_counts, Call};
use psins_collectives::check::verify;
use psins_collectives::ompi;
use psins_collectives::{Coll, Step};

fn expand_tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut group: Option<Vec<String>> = None;
    for t in s.split_whitespace() {
        if let Some(rest) = t.strip_prefix('[') {
            group = Some(vec![rest.to_string()]);
        } else if let Some(g) = group.as_mut() {
            match t.split_once("]*") {
                Some((last, n)) => {
                    g.push(last.to_string());
                    let g = group.take().unwrap();
                    (0..n.parse::<usize>().unwrap()).for_each(|_| out.extend(g.iter().cloned()));
                }
                None => g.push(t.to_string()),
            }
        } else {
            match t.split_once('*') {
                Some((tok, n)) => (0..n.parse::<usize>().unwrap()).for_each(|_| out.push(tok.to_string())),
                None => out.push(t.to_string()),
            }
        }
    }
    out
}

fn peer_bytes(s: &str) -> (u32, u64) {
    let (p, b) = s.split_once(':').unwrap_or_else(|| panic!("bad token {s}"));
    (p.parse().unwrap(), b.parse().unwrap())
}

fn parse(s: &str) -> Vec<Step> {
    expand_tokens(s)
        .iter()
        .map(|t| {
            let (kind, rest) = t.split_at(1);
            match kind {
                "W" => Step::WaitAll,
                "X" => {
                    let (a, b) = rest.split_once('/').unwrap();
                    let ((send_peer, send_bytes), (recv_peer, recv_bytes)) = (peer_bytes(a), peer_bytes(b));
                    Step::SendRecv { send_peer, send_bytes, recv_peer, recv_bytes }
                }
                _ => {
                    let (peer, bytes) = peer_bytes(rest);
                    match kind {
                        "S" => Step::Send { peer, bytes },
                        "R" => Step::Recv { peer, bytes },
                        "s" => Step::ISend { peer, bytes },
                        "r" => Step::IRecv { peer, bytes },
                        _ => panic!("bad token {t}"),
                    }
                }
            }
        })
        .collect()
}

fn format(steps: &[Step]) -> String {
    let tok = |s: &Step| match *s {
        Step::Send { peer, bytes } => format!("S{peer}:{bytes}"),
        Step::Recv { peer, bytes } => format!("R{peer}:{bytes}"),
        Step::ISend { peer, bytes } => format!("s{peer}:{bytes}"),
        Step::IRecv { peer, bytes } => format!("r{peer}:{bytes}"),
        Step::SendRecv { send_peer, send_bytes, recv_peer, recv_bytes } => {
            format!("X{send_peer}:{send_bytes}/{recv_peer}:{recv_bytes}")
        }
        Step::WaitAll => "W".to_string(),
    };
    steps.iter().map(tok).collect::<Vec<_>>().join(" ")
}

type ExpandFn =
    fn(&psins_collectives::CollArgs, &mut Vec<Step>) -> Result<&'static str, psins_collectives::ExpandError>;

/// Expands `call` on every rank; checks every rank returns `alg` and the lists are consistent.
fn expand_all(call: &Call, alg: &str) -> Vec<Vec<Step>> {
    expand_all_by(call, alg, ompi::expand)
}

fn expand_all_by(call: &Call, alg: &str, expand: ExpandFn) -> Vec<Vec<Step>> {
    let lists: Vec<Vec<Step>> = (0..call.size)
        .map(|r| {
            let mut out = Vec::new();
            let name = expand(&call.args(r), &mut out).unwrap_or_else(|e| panic!("{call:?}: {e}"));
            assert_eq!(name, alg, "{call:?}, rank {r}");
            out
        })
        .collect();
    verify(&lists).unwrap_or_else(|e| panic!("{call:?} ({alg}): {e}"));
    lists
}

/// Every rank's steps, in rank order.
fn golden(call: Call, alg: &str, want: &[&str]) {
    assert_eq!(want.len(), call.size as usize, "{alg}: one string per rank");
    let want: Vec<(u32, &str)> = want.iter().enumerate().map(|(r, s)| (r as u32, *s)).collect();
    golden_ranks(call, alg, &want);
}

/// The listed ranks' steps (communicators too large to list: the other ranks are checked for
/// consistency only).
fn golden_ranks(call: Call, alg: &str, want: &[(u32, &str)]) {
    golden_by(call, alg, want, ompi::expand);
}

/// Every rank's libnbc schedule of the nonblocking twin, in rank order.
fn golden_nbc(call: Call, alg: &str, want: &[&str]) {
    assert_eq!(want.len(), call.size as usize, "{alg}: one string per rank");
    let want: Vec<(u32, &str)> = want.iter().enumerate().map(|(r, s)| (r as u32, *s)).collect();
    golden_by(call, alg, &want, ompi::expand_nonblocking);
}

fn golden_by(call: Call, alg: &str, want: &[(u32, &str)], expand: ExpandFn) {
    let lists = expand_all_by(&call, alg, expand);
    for &(r, s) in want {
        let got = &lists[r as usize];
        assert_eq!(format(got), format(&parse(s)), "{alg} {call:?}: rank {r}");
        assert_eq!(*got, parse(s));
    }
}

fn bcast(p: u32, root: u32, bytes: u64) -> Call {
    // MPI_BYTE: the count is the byte count.
    Call { root, ..Call::new(Coll::Bcast, p).vector(bytes, 1) }
}

fn rooted(coll: Coll, p: u32, root: u32, block: u64) -> Call {
    Call { root, ..Call::new(coll, p).bytes(block) }
}

fn vector(coll: Coll, p: u32, root: u32, count: u64, elem: u64, commutative: bool) -> Call {
    Call { root, commutative, ..Call::new(coll, p).vector(count, elem) }
}

fn shared(coll: Coll, counts: &[u64], commutative: bool) -> Call {
    Call { commutative, counts: vec![counts.to_vec()], ..Call::new(coll, counts.len() as u32) }
}

#[test]
fn barrier() {
    // P = 3 < 4: recursive doubling over pof2 = 2; rank 2 folds into 0 (sendrecv_zero), 0↔1,
    // then 0 releases 2 with a (synchronous) send.
    golden(
        Call::new(Coll::Barrier, 3),
        "ompi_barrier_recursive_doubling",
        &["R2:0 X1:0/1:0 S2:0", "X0:0/0:0", "X0:0/0:0"],
    );
    // P = 4..7: linear; the root posts P−1 irecvs, waits for all, then sends the release.
    golden(
        Call::new(Coll::Barrier, 4),
        "ompi_barrier_linear",
        &["r1:0 r2:0 r3:0 W S1:0 S2:0 S3:0", "S0:0 R0:0", "S0:0 R0:0", "S0:0 R0:0"],
    );
    // P = 64..255: Bruck, sendrecv_zero to r+d from r−d for d = 1, 2, …, 32.
    golden_ranks(
        Call::new(Coll::Barrier, 64),
        "ompi_barrier_bruck",
        &[
            (0, "X1:0/63:0 X2:0/62:0 X4:0/60:0 X8:0/56:0 X16:0/48:0 X32:0/32:0"),
            (1, "X2:0/0:0 X3:0/63:0 X5:0/61:0 X9:0/57:0 X17:0/49:0 X33:0/33:0"),
            (63, "X0:0/62:0 X1:0/61:0 X3:0/59:0 X7:0/55:0 X15:0/47:0 X31:0/31:0"),
        ],
    );
    // P = 256..511: tree; rank r receives from r + 2^k for each low zero bit below its lowest
    // set bit, sends up to r − lowbit, gets the release and sends it down in reverse order.
    golden_ranks(
        Call::new(Coll::Barrier, 256),
        "ompi_barrier_tree",
        &[
            (0, "R1:0 R2:0 R4:0 R8:0 R16:0 R32:0 R64:0 R128:0 S128:0 S64:0 S32:0 S16:0 S8:0 S4:0 S2:0 S1:0"),
            (1, "S0:0 R0:0"),
            (2, "R3:0 S0:0 R0:0 S3:0"),
            (12, "R13:0 R14:0 S8:0 R8:0 S14:0 S13:0"),
            (255, "S254:0 R254:0"),
        ],
    );
}

#[test]
fn bcast_algorithms() {
    // P < 4, < 32 B: pipeline = chain of fan-out 1, one segment: 0 → 1 → 2 (isend + wait).
    golden(bcast(3, 0, 16), "ompi_bcast_pipeline", &["s1:16 W", "R0:16 s2:16 W", "R1:16"]);
    // P < 4, 32..256 B: binary tree, root's children 1 and 2.
    golden(bcast(3, 0, 100), "ompi_bcast_binary_tree", &["s1:100 s2:100 W", "R0:100", "R0:100"]);
    // P < 4, 1024..32768 B: linear, root isends to every rank, then waits.
    golden(bcast(3, 0, 2000), "ompi_bcast_basic_linear", &["s1:2000 s2:2000 W", "R0:2000", "R0:2000"]);
    // P < 4, 131072..262144 B: chain, fan-out 0 forced to 1: 0 → 1 → 2.
    golden(bcast(3, 0, 200000), "ompi_bcast_chain", &["s1:200000 W", "R0:200000 s2:200000 W", "R1:200000"]);
    // P = 4..7, 64..128 B: binomial from root 2 (v1 = 3, v2 = 4, v3 = 0, v4 = 1): the root's
    // children v1, v2, v4 = ranks 3, 4, 1; v1 forwards to v3 = rank 0.
    golden(
        bcast(5, 2, 100),
        "ompi_bcast_binomial",
        &["R3:100", "R2:100", "s3:100 s4:100 s1:100 W", "R2:100 s0:100 W", "R2:100"],
    );
    // P = 8..15, < 8 B: k-nomial radix 4 from root 1: v0 → v4 (rank 5), v1, v2, v3; v4 → v5..v7.
    golden(
        bcast(8, 1, 4),
        "ompi_bcast_knomial",
        &["R5:4", "s5:4 s2:4 s3:4 s4:4 W", "R1:4", "R1:4", "R1:4", "R1:4 s6:4 s7:4 s0:4 W", "R5:4", "R5:4"],
    );
    // P = 16..31, ≥ 1 MiB: binomial scatter of 16 blocks of 64 KiB (root sends 8, 4, 2, 1
    // blocks), then recursive-doubling allgather with r^1, r^2, r^4, r^8.
    golden(
        bcast(16, 0, 1 << 20),
        "ompi_bcast_scatter_allgather",
        &[
            "S8:524288 S4:262144 S2:131072 S1:65536 X1:65536/1:65536 X2:131072/2:131072 X4:262144/4:262144 X8:524288/8:524288",
            "R0:65536 X0:65536/0:65536 X3:131072/3:131072 X5:262144/5:262144 X9:524288/9:524288",
            "R0:131072 S3:65536 X3:65536/3:65536 X0:131072/0:131072 X6:262144/6:262144 X10:524288/10:524288",
            "R2:65536 X2:65536/2:65536 X1:131072/1:131072 X7:262144/7:262144 X11:524288/11:524288",
            "R0:262144 S6:131072 S5:65536 X5:65536/5:65536 X6:131072/6:131072 X0:262144/0:262144 X12:524288/12:524288",
            "R4:65536 X4:65536/4:65536 X7:131072/7:131072 X1:262144/1:262144 X13:524288/13:524288",
            "R4:131072 S7:65536 X7:65536/7:65536 X4:131072/4:131072 X2:262144/2:262144 X14:524288/14:524288",
            "R6:65536 X6:65536/6:65536 X5:131072/5:131072 X3:262144/3:262144 X15:524288/15:524288",
            "R0:524288 S12:262144 S10:131072 S9:65536 X9:65536/9:65536 X10:131072/10:131072 X12:262144/12:262144 X0:524288/0:524288",
            "R8:65536 X8:65536/8:65536 X11:131072/11:131072 X13:262144/13:262144 X1:524288/1:524288",
            "R8:131072 S11:65536 X11:65536/11:65536 X8:131072/8:131072 X14:262144/14:262144 X2:524288/2:524288",
            "R10:65536 X10:65536/10:65536 X9:131072/9:131072 X15:262144/15:262144 X3:524288/3:524288",
            "R8:262144 S14:131072 S13:65536 X13:65536/13:65536 X14:131072/14:131072 X8:262144/8:262144 X4:524288/4:524288",
            "R12:65536 X12:65536/12:65536 X15:131072/15:131072 X9:262144/9:262144 X5:524288/5:524288",
            "R12:131072 S15:65536 X15:65536/15:65536 X12:131072/12:131072 X10:262144/10:262144 X6:524288/6:524288",
            "R14:65536 X14:65536/14:65536 X13:131072/13:131072 X11:262144/11:262144 X7:524288/7:524288",
        ],
    );
    // P = 256..1023, 16384..32768 B: split binary tree; halves of 10000 B go down the left
    // (odd) and right (even) subtrees with blocking sends, then r ↔ its partner swap halves;
    // P even: the last rank has no partner and gets the other half from the root.
    golden_ranks(
        bcast(256, 0, 20000),
        "ompi_bcast_split_binary_tree",
        &[
            (0, "S1:10000 S2:10000 S255:10000"),
            (1, "R0:10000 S3:10000 S5:10000 X2:10000/2:10000"),
            (2, "R0:10000 S4:10000 S6:10000 X1:10000/1:10000"),
            (255, "R127:10000 R0:10000"),
        ],
    );
}

#[test]
fn reduce_algorithms() {
    // P < 4, 32..262144 B: linear; the root (1) receives from P−1 down to 0.
    golden(vector(Coll::Reduce, 3, 1, 25, 4, true), "ompi_reduce_linear", &["S1:100", "R2:100 R0:100", "S1:100"]);
    // P < 4, 524288..1 MiB: chain of fan-out 1 (2 → 1 → 0), one segment.
    golden(
        vector(Coll::Reduce, 3, 0, 75000, 8, true),
        "ompi_reduce_chain",
        &["R1:600000", "R2:600000 S0:600000", "S1:600000"],
    );
    // P < 4, 16..32 B: pipeline rooted at 2: 1 → 0 → 2.
    golden(vector(Coll::Reduce, 3, 2, 5, 4, true), "ompi_reduce_pipeline", &["R1:20 S2:20", "S0:20", "R0:20"]);
    // P < 4, 8..16 B: binary tree; the root posts both child receives, then waits.
    golden(vector(Coll::Reduce, 3, 0, 3, 4, true), "ompi_reduce_binary", &["r1:12 r2:12 W", "S0:12", "S0:12"]);
    // P = 4..7, 65536..262144 B: binomial from root 1 (v1 = 2, v2 = 3, v3 = 4, v4 = 0): the root
    // posts its three children's receives, waits together; 3 has the one child 4.
    golden(
        vector(Coll::Reduce, 5, 1, 12500, 8, true),
        "ompi_reduce_binomial",
        &["S1:100000", "r2:100000 r3:100000 r0:100000 W", "S1:100000", "R4:100000 S1:100000", "S3:100000"],
    );
    // Non-commutative, P < 4, < 8 B: in-order binary tree rooted at P−1 = 2 (children 1, 0),
    // which then sends the result to root 0.
    golden(
        vector(Coll::Reduce, 3, 0, 1, 4, false),
        "ompi_reduce_in_order_binary",
        &["S2:4 R2:4", "S2:4", "r1:4 r0:4 W S0:4"],
    );
    // P < 4, < 8 B, count 6 ≥ pof2 = 2: Rabenseifner; 0 ↔ 1 swap halves of 3 B and 1 sends its
    // reduced half; 0 ↔ 2 halve; 2 sends its block to the root.
    golden(
        vector(Coll::Reduce, 3, 0, 6, 1, true),
        "ompi_reduce_rabenseifner",
        &["X1:3/1:3 R1:3 X2:3/2:3 R2:3", "X0:3/0:3 S0:3", "X0:3/0:3 S0:3"],
    );
}

#[test]
fn allreduce_algorithms() {
    // Non-commutative, P < 4, ≥ 128 KiB: linear reduce to 0 (receives from P−1 down), then
    // linear bcast from 0.
    golden(
        vector(Coll::Allreduce, 3, 0, 16384, 8, false),
        "ompi_allreduce_basic_linear",
        &["R2:131072 R1:131072 s1:131072 s2:131072 W", "S0:131072 R0:131072", "S0:131072 R0:131072"],
    );
    // Non-commutative, P = 8..15, ≥ 1 MiB: tuned reduce (in-order binary rooted at 7:
    // 7 ← 6, 3; 3 ← 2, 1; 1 ← 0; 6 ← 5, 4; then 7 → 0), then tuned bcast (linear at 1 MiB).
    let big = "1048576";
    let lines: Vec<String> = [
        "S1:B R7:B s1:B s2:B s3:B s4:B s5:B s6:B s7:B W",
        "R0:B S3:B R0:B",
        "S3:B R0:B",
        "r2:B r1:B W S7:B R0:B",
        "S6:B R0:B",
        "S6:B R0:B",
        "r5:B r4:B W S7:B R0:B",
        "r6:B r3:B W S0:B R0:B",
    ]
    .iter()
    .map(|s| s.replace('B', big))
    .collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    golden(vector(Coll::Allreduce, 8, 0, 131072, 8, false), "ompi_allreduce_nonoverlapping", &lines);
    // P = 4..7, 16..8192 B: recursive doubling on 6 ranks: 0 → 1 and 2 → 3 fold (rem 2), the
    // survivors 1, 3, 4, 5 (new ranks 0..3) exchange at distance 1 then 2, then 1 → 0, 3 → 2.
    golden(
        vector(Coll::Allreduce, 6, 0, 8, 8, true),
        "ompi_allreduce_recursive_doubling",
        &[
            "S1:64 R1:64",
            "R0:64 X3:64/3:64 X4:64/4:64 S0:64",
            "S3:64 R3:64",
            "R2:64 X1:64/1:64 X5:64/5:64 S2:64",
            "X5:64/5:64 X1:64/1:64",
            "X4:64/4:64 X3:64/3:64",
        ],
    );
    // P < 4, 4096..8192 B: ring, 601 elements in blocks of 201, 200, 200 (1608, 1600, 1600 B);
    // irecv(left) + own block to the right, wait, irecv + forward the reduced block, wait, then
    // P−1 sendrecvs of the allgather.
    golden(
        vector(Coll::Allreduce, 3, 0, 601, 8, true),
        "ompi_allreduce_ring",
        &[
            "r2:1600 s1:1608 W r2:1600 s1:1600 W X1:1600/2:1608 X1:1608/2:1600",
            "r0:1608 s2:1600 W r0:1600 s2:1608 W X2:1600/0:1600 X2:1600/0:1608",
            "r1:1600 s0:1600 W r1:1608 s0:1600 W X0:1608/1:1600 X0:1600/1:1600",
        ],
    );
    // P < 4, 65536..262144 B: segmented ring with segsize 0 is the ring: 12500 elements in
    // blocks of 4167, 4167, 4166 (33336, 33336, 33328 B).
    golden(
        vector(Coll::Allreduce, 3, 0, 12500, 8, true),
        "ompi_allreduce_segmented_ring",
        &[
            "r2:33328 s1:33336 W r2:33336 s1:33328 W X1:33336/2:33336 X1:33336/2:33328",
            "r0:33336 s2:33336 W r0:33328 s2:33336 W X2:33328/0:33336 X2:33336/0:33336",
            "r1:33336 s0:33328 W r1:33336 s0:33336 W X0:33336/1:33328 X0:33328/1:33336",
        ],
    );
    // P = 4..7, ≥ 8192 B: Rabenseifner on 5 ranks (rem 1): 0 ↔ 1 swap halves (512 | 513 elts),
    // 1 sends its right half; survivors 0, 2, 3, 4 halve (513/512, then 256/256 elements),
    // gather back in reverse, then 0 sends the whole result to 1.
    golden(
        vector(Coll::Allreduce, 5, 0, 1025, 8, true),
        "ompi_allreduce_rabenseifner",
        &[
            "X1:4104/1:4096 R1:4104 X2:4104/2:4096 X3:2048/3:2048 X3:2048/3:2048 X2:4096/2:4104 S1:8200",
            "X0:4096/0:4104 S0:4104 R0:8200",
            "X0:4096/0:4104 X4:2056/4:2048 X4:2048/4:2056 X0:4104/0:4096",
            "X4:4104/4:4096 X0:2048/0:2048 X0:2048/0:2048 X4:4096/4:4104",
            "X3:4096/3:4104 X2:2048/2:2056 X2:2056/2:2048 X3:4104/3:4096",
        ],
    );
}

#[test]
fn alltoall_algorithms() {
    let a2a = |p, b| Call::new(Coll::Alltoall, p).bytes(b);
    // P < 8, 8192..16384 B: linear; irecv from r+1, r+2, …, isend to r−1, r−2, …, one wait.
    let linear = ["r1:B r2:B s2:B s1:B W", "r2:B r0:B s0:B s2:B W", "r0:B r1:B s1:B s0:B W"];
    let with = |b: &str| -> Vec<String> { linear.iter().map(|s| s.replace('B', b)).collect() };
    let l: Vec<String> = with("10000");
    golden(a2a(3, 10000), "ompi_alltoall_linear", &l.iter().map(String::as_str).collect::<Vec<_>>());
    // P < 8, < 8192 B: linear_sync with max_requests 0 posts everything: the same pattern.
    let l: Vec<String> = with("100");
    golden(a2a(3, 100), "ompi_alltoall_linear_sync", &l.iter().map(String::as_str).collect::<Vec<_>>());
    // P < 8, 524288..1 MiB: pairwise, step k sends to r+k and receives from r−k.
    golden(
        a2a(3, 600000),
        "ompi_alltoall_pairwise",
        &[
            "X1:600000/2:600000 X2:600000/1:600000",
            "X2:600000/0:600000 X0:600000/2:600000",
            "X0:600000/1:600000 X1:600000/0:600000",
        ],
    );
    // P = 16..31, 4..512 B: modified Bruck; at distance 1, 2, 4, 8 send the 8 blocks whose
    // index has that bit to r+d, receive from r−d.
    let bruck: Vec<String> = (0..16u32)
        .map(|r| {
            [1, 2, 4, 8]
                .iter()
                .map(|d| format!("X{}:64/{}:64", (r + d) % 16, (r + 16 - d) % 16))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(bruck[5], "X6:64/4:64 X7:64/3:64 X9:64/1:64 X13:64/13:64");
    golden(a2a(16, 8), "ompi_alltoall_modified_bruck", &bruck.iter().map(String::as_str).collect::<Vec<_>>());
    // P = 2, 2..4 B: two_proc, one sendrecv with the other rank.
    golden(a2a(2, 2), "ompi_alltoall_two_proc", &["X1:2/1:2", "X0:2/0:2"]);
}

#[test]
fn alltoallv_alltoallw() {
    let m3 = [vec![1, 2, 3], vec![4, 0, 6], vec![7, 8, 9]];
    // P < 4: pairwise; step k sends m[r][r+k] to r+k, receives m[r−k][r] from r−k.
    golden(
        Call { counts: alltoallv_counts(&m3), ..Call::new(Coll::Alltoallv, 3) },
        "ompi_alltoallv_pairwise",
        &["X1:2/2:7 X2:3/1:4", "X2:6/0:2 X0:4/2:8", "X0:7/1:6 X1:8/0:3"],
    );
    // P = 4..63: linear; persistent irecvs from every other rank in rank order, then isends,
    // one wait; empty blocks are posted too (2 → 3 and 3 ← 2 carry 0 B).
    let m4 = [vec![1, 2, 3, 4], vec![5, 0, 7, 8], vec![9, 10, 11, 0], vec![13, 14, 15, 16]];
    golden(
        Call { counts: alltoallv_counts(&m4), ..Call::new(Coll::Alltoallv, 4) },
        "ompi_alltoallv_basic_linear",
        &[
            "r1:5 r2:9 r3:13 s1:2 s2:3 s3:4 W",
            "r0:2 r2:10 r3:14 s0:5 s2:7 s3:8 W",
            "r0:3 r1:7 r3:15 s0:9 s1:10 s3:0 W",
            "r0:4 r1:8 r2:0 s0:13 s1:14 s2:15 W",
        ],
    );
    // coll/basic alltoallw: the same batch, but empty blocks are skipped (0 → 2 is empty).
    let w = [vec![1, 2, 0], vec![4, 0, 6], vec![7, 8, 9]];
    golden(
        Call { counts: alltoallv_counts(&w), ..Call::new(Coll::Alltoallw, 3) },
        "ompi_alltoallw_basic_linear",
        &["r1:4 r2:7 s1:2 W", "r0:2 r2:8 s0:4 s2:6 W", "r1:6 s0:7 s1:8 W"],
    );
}

#[test]
fn gather_scatter_algorithms() {
    // P = 4..7, 1024..8192 B: linear gather at root 1, blocking receives in rank order.
    golden(
        rooted(Coll::Gather, 4, 1, 2000),
        "ompi_gather_basic_linear",
        &["S1:2000", "R0:2000 R2:2000 R3:2000", "S1:2000", "S1:2000"],
    );
    // P = 4..7, < 1024 B: binomial from root 1 (v1 = 2, v2 = 3, v3 = 4, v4 = 0); 3 forwards its
    // subtree {3, 4} as 200 B.
    golden(
        rooted(Coll::Gather, 5, 1, 100),
        "ompi_gather_binomial",
        &["S1:100", "R2:100 R3:200 R0:100", "S1:100", "R4:100 S1:200", "S3:100"],
    );
    // P < 4, ≥ 128 KiB: linear_sync at root 2: per peer irecv(block), 0-byte go-ahead send
    // (joins the batch), irecv(0-byte second segment); one wait at the end.
    golden(
        rooted(Coll::Gather, 3, 2, 200000),
        "ompi_gather_linear_sync",
        &["R2:0 S2:200000 S2:0", "R2:0 S2:200000 S2:0", "r0:200000 s0:0 r0:0 r1:200000 s1:0 r1:0 W"],
    );
    // P < 4, 2..131072 B: linear scatter, blocking sends in rank order.
    golden(rooted(Coll::Scatter, 3, 1, 100), "ompi_scatter_basic_linear", &["R1:100", "S0:100 S2:100", "R1:100"]);
    // P = 4..7, < 2048 B: binomial scatter from root 1; 3 gets {3, 4} and forwards 4's block.
    golden(
        rooted(Coll::Scatter, 5, 1, 100),
        "ompi_scatter_binomial",
        &["R1:100", "S0:100 S3:200 S2:100", "R1:100", "R1:200 S4:100", "R3:100"],
    );
    // P < 4, < 2 B: linear_nb; the root isends every block, then waits.
    golden(rooted(Coll::Scatter, 3, 1, 1), "ompi_scatter_linear_nb", &["R1:1", "s0:1 s2:1 W", "R1:1"]);
    // coll/basic gatherv/scatterv at root 2: blocking receives/sends in rank order, none for
    // the empty block of rank 1.
    let counts = vec![5u64, 0, 7, 9];
    let at_root = |r: u32| if r == 2 { counts.clone() } else { Vec::new() };
    let mut c = Call { root: 2, send_of: counts.clone(), ..Call::new(Coll::Gatherv, 4) };
    c.counts = (0..4).map(at_root).collect();
    golden(c, "ompi_gatherv_basic_linear", &["S2:5", "", "R0:5 R3:9", "S2:9"]);
    let mut c = Call { root: 2, recv_of: counts.clone(), ..Call::new(Coll::Scatterv, 4) };
    c.counts = (0..4).map(at_root).collect();
    golden(c, "ompi_scatterv_basic_linear", &["R2:5", "", "S0:5 S3:9", "R2:9"]);
}

#[test]
fn allgather_algorithms() {
    let ag = |p, b| Call::new(Coll::Allgather, p).bytes(b);
    // P < 32, power of two: recursive doubling, partner r^1 then r^2, the data doubling.
    golden(
        ag(4, 100),
        "ompi_allgather_recursive_doubling",
        &[
            "X1:100/1:100 X2:200/2:200",
            "X0:100/0:100 X3:200/3:200",
            "X3:100/3:100 X0:200/0:200",
            "X2:100/2:100 X1:200/1:200",
        ],
    );
    // P = 2: two_proc.
    golden(ag(2, 100), "ompi_allgather_two_proc", &["X1:100/1:100", "X0:100/0:100"]);
    // P = 32..63, ≥ 65536 B: ring, P−1 sendrecvs of one block, to r+1 from r−1.
    golden_ranks(
        ag(32, 65536),
        "ompi_allgather_ring",
        &[(0, "X1:65536/31:65536*31"), (1, "X2:65536/0:65536*31"), (31, "X0:65536/30:65536*31")],
    );
    // P = 32..63, 1024..65536 B: neighbor exchange, P/2 steps: one block with the first
    // neighbour (even r: r+1), then pairs of blocks alternating between the two neighbours.
    golden_ranks(
        ag(32, 1024),
        "ompi_allgather_neighbor",
        &[
            (0, "X1:1024/1:1024 [X31:2048/31:2048 X1:2048/1:2048]*7 X31:2048/31:2048"),
            (1, "X0:1024/0:1024 [X2:2048/2:2048 X0:2048/0:2048]*7 X2:2048/2:2048"),
            (31, "X30:1024/30:1024 [X0:2048/0:2048 X30:2048/30:2048]*7 X0:2048/0:2048"),
        ],
    );
    // P = 256..511, 32..128 B: Bruck, step d = 1, 2, …, 128 sends d blocks to r−d and receives
    // d blocks from r+d.
    golden_ranks(
        ag(256, 32),
        "ompi_allgather_bruck",
        &[
            (0, "X255:32/1:32 X254:64/2:64 X252:128/4:128 X248:256/8:256 X240:512/16:512 X224:1024/32:1024 X192:2048/64:2048 X128:4096/128:4096"),
            (255, "X254:32/0:32 X253:64/1:64 X251:128/3:128 X247:256/7:256 X239:512/15:512 X223:1024/31:1024 X191:2048/63:2048 X127:4096/127:4096"),
        ],
    );
}

#[test]
fn allgatherv_algorithms() {
    // P = 4..7, per rank < 256 B: default = basic gatherv to 0 (none from the empty rank 1),
    // then tuned bcast of the 80 B (P = 4..7, 64..128 B: binomial 0 → 1, 2; 1 → 3).
    golden(
        shared(Coll::Allgatherv, &[10, 0, 30, 40], true),
        "ompi_allgatherv_default",
        &["R2:30 R3:40 s1:80 s2:80 W", "R0:80 s3:80 W", "S0:30 R0:80", "S0:40 R1:80"],
    );
    // P = 3..7, per rank 16384..262144 B: Bruck; distance 1 sends the own block to r−1 and
    // receives r+1's, distance 2 sends the two blocks held to r−2.
    golden(
        shared(Coll::Allgatherv, &[20000, 10000, 30000], true),
        "ompi_allgatherv_bruck",
        &[
            "X2:20000/1:10000 X1:20000/2:30000",
            "X0:10000/2:30000 X2:10000/0:20000",
            "X1:30000/0:20000 X0:30000/1:10000",
        ],
    );
    // P = 3..7, per rank 4096..8192 B: ring, block r−k forwarded to r+1 at step k.
    golden(
        shared(Coll::Allgatherv, &[5000, 4000, 6000], true),
        "ompi_allgatherv_ring",
        &["X1:5000/2:6000 X1:6000/2:4000", "X2:4000/0:5000 X2:5000/0:6000", "X0:6000/1:4000 X0:4000/1:5000"],
    );
    // P = 128..255, per rank 1024..65536 B: neighbor exchange (P even), as allgather's.
    golden_ranks(
        shared(Coll::Allgatherv, &[2000; 128], true),
        "ompi_allgatherv_neighbor",
        &[
            (0, "X1:2000/1:2000 [X127:4000/127:4000 X1:4000/1:4000]*31 X127:4000/127:4000"),
            (1, "X0:2000/0:2000 [X2:4000/2:4000 X0:4000/0:4000]*31 X2:4000/2:4000"),
            (127, "X126:2000/126:2000 [X0:4000/0:4000 X126:4000/126:4000]*31 X0:4000/0:4000"),
        ],
    );
    // P = 2, per rank 2048..4096 B: two_proc.
    golden(
        shared(Coll::Allgatherv, &[3000, 3000], true),
        "ompi_allgatherv_two_proc",
        &["X1:3000/1:3000", "X0:3000/0:3000"],
    );
}

#[test]
fn reduce_scatter_algorithms() {
    // Non-commutative: non_overlapping = tuned reduce of 60 B to 0 (P < 4 non-commutative,
    // ≥ 8 B: linear), then basic scatterv of the 10/20/30 B blocks.
    golden(
        shared(Coll::ReduceScatter, &[10, 20, 30], false),
        "ompi_reduce_scatter_non_overlapping",
        &["R2:60 R1:60 S1:20 S2:30", "S0:60 R0:20", "S0:60 R0:30"],
    );
    // P = 4..7, 8..262144 B: recursive halving on 5 ranks; 0 → 1 folds the 100 B vector; new
    // ranks 0..3 = 1..4 with blocks 30, 30, 0, 40; 4 gets only an irecv from 3 (its send half is
    // empty) and 1 returns rank 0's 10 B.
    golden(
        shared(Coll::ReduceScatter, &[10, 20, 30, 0, 40], true),
        "ompi_reduce_scatter_recursive_halving",
        &[
            "S1:100 R1:10",
            "R0:100 X3:40/3:60 X2:30/2:30 S0:10",
            "X4:40/4:60 X1:30/1:30",
            "X1:60/1:40 S4:40",
            "X2:60/2:40 r3:40 W",
        ],
    );
    // P < 4, < 65536 B: ring; send block r−1 to r+1 with the irecv of block r−1 posted, wait,
    // then forward the reduced block r−2 with the next irecv posted.
    golden(
        shared(Coll::ReduceScatter, &[100, 50, 150], true),
        "ompi_reduce_scatter_ring",
        &["r2:50 s1:150 W r2:100 s1:50 W", "r0:150 s2:100 W r0:50 s2:150 W", "r1:100 s0:50 W r1:150 s0:100 W"],
    );
    // P < 4, 65536..131072 B: butterfly; 0 folds into 1, 1 ↔ 2 swap halves (blocks {0,1} |
    // {2}), 1 returns block 0.
    golden(
        shared(Coll::ReduceScatter, &[30000, 40000, 30000], true),
        "ompi_reduce_scatter_butterfly",
        &["S1:100000 R1:30000", "R0:100000 X2:30000/2:70000 S0:30000", "X1:70000/1:30000"],
    );
}

#[test]
fn reduce_scatter_block_algorithms() {
    let rsb = |p, b, commutative| Call { commutative, ..Call::new(Coll::ReduceScatterBlock, p).bytes(b) };
    // Non-commutative: basic_linear = tuned reduce of 30 B to 0 (linear), tuned scatter (linear).
    golden(
        rsb(3, 10, false),
        "ompi_reduce_scatter_block_basic_linear",
        &["R2:30 R1:30 S1:10 S2:10", "S0:30 R0:10", "S0:30 R0:10"],
    );
    // P < 4, < 4 B: recursive doubling with 2 B blocks; mask 1: 0 ↔ 1 swap the two blocks each
    // lacks; mask 2: 0 ↔ 2 (0 sends 1 block, gets 2's two), then 0 hands 1 its result.
    golden(
        rsb(3, 2, true),
        "ompi_reduce_scatter_block_recursive_doubling",
        &["X1:4/1:4 X2:2/2:4 S1:4", "X0:4/0:4 R0:4", "X0:4/0:2"],
    );
    // P = 4..7, 256..8192 B: recursive halving as reduce_scatter's, blocks of 1000 B.
    golden(
        rsb(5, 1000, true),
        "ompi_reduce_scatter_block_recursive_halving",
        &[
            "S1:5000 R1:1000",
            "R0:5000 X3:2000/3:3000 X2:1000/2:2000 S0:1000",
            "X4:2000/4:3000 X1:2000/1:1000",
            "X1:3000/1:2000 X4:1000/4:1000",
            "X2:3000/2:2000 X3:1000/3:1000",
        ],
    );
    // P = 4..7, 32..256 B: butterfly on 5 ranks (fold 0 into 1, then vranks 1, 2, 3, 4 pair at
    // distance 1 and 2, and a final swap with the mirror rank).
    golden(
        rsb(5, 100, true),
        "ompi_reduce_scatter_block_butterfly",
        &[
            "S1:500 R1:100",
            "R0:500 X2:200/2:300 X3:100/3:200 S0:100",
            "X1:300/1:200 X4:100/4:100 X3:100/3:100",
            "X4:200/4:300 X1:200/1:100 X2:100/2:100",
            "X3:300/3:200 X2:100/2:100",
        ],
    );
}

#[test]
fn scan_exscan() {
    // coll/basic → base linear: receive the prefix from r−1, send the new prefix to r+1.
    for (coll, name) in [(Coll::Scan, "ompi_scan_basic_linear"), (Coll::Exscan, "ompi_exscan_basic_linear")] {
        golden(vector(coll, 4, 0, 3, 4, true), name, &["S1:12", "R0:12 S2:12", "R1:12 S3:12", "R2:12"]);
    }
}

/// The algorithm the fixed rules pick for `call` (on rank 0), without its `ompi_<coll>_` prefix.
fn pick(call: Call) -> String {
    let name = ompi::select(&call.args(0)).unwrap();
    let coll = format!("{:?}", call.coll).to_lowercase().replace("reducescatter", "reduce_scatter_");
    name.strip_prefix(&format!("ompi_{}_", coll.trim_end_matches('_'))).unwrap_or(name).to_string()
}

/// Asserts the choice at `at − 1` bytes is `below` and at `at` bytes `above`.
fn switch(f: impl Fn(u64) -> Call, at: u64, below: &str, above: &str) {
    assert_eq!((pick(f(at - 1)), pick(f(at))), (below.to_string(), above.to_string()), "switch at {at} B");
}

/// Switch points read from coll_tuned_decision_fixed.c (`communicator_size < …`,
/// `total_dsize < …`), both sides of each.
#[test]
fn decision_switch_points() {
    let red = |coll, p, c| move |b| vector(coll, p, 0, b, 1, c);
    let blk = |coll, p| move |b| Call::new(coll, p).bytes(b);
    // allreduce: total = count × type size.
    switch(red(Coll::Allreduce, 8, true), 8192, "recursive_doubling", "rabenseifner");
    switch(red(Coll::Allreduce, 3, true), 8, "ring", "recursive_doubling");
    switch(red(Coll::Allreduce, 3, true), 65536, "ring", "segmented_ring");
    switch(red(Coll::Allreduce, 3, true), 262144, "segmented_ring", "rabenseifner");
    switch(red(Coll::Allreduce, 16, true), 64, "segmented_ring", "recursive_doubling");
    switch(red(Coll::Allreduce, 16, true), 4096, "recursive_doubling", "rabenseifner");
    switch(red(Coll::Allreduce, 128, true), 131072, "nonoverlapping", "recursive_doubling");
    switch(red(Coll::Allreduce, 3, false), 131072, "recursive_doubling", "basic_linear");
    switch(red(Coll::Allreduce, 8, false), 1048576, "recursive_doubling", "nonoverlapping");
    // reduce.
    switch(red(Coll::Reduce, 4, true), 4096, "binary", "chain");
    switch(red(Coll::Reduce, 4, true), 65536, "chain", "binomial");
    switch(red(Coll::Reduce, 3, true), 8, "rabenseifner", "binary");
    switch(red(Coll::Reduce, 3, true), 16, "binary", "pipeline");
    switch(red(Coll::Reduce, 3, true), 32, "pipeline", "linear");
    switch(red(Coll::Reduce, 3, false), 8, "in_order_binary", "linear");
    switch(red(Coll::Reduce, 8, true), 8192, "binary", "binomial");
    // bcast: total = count × type size.
    let bc = |p| move |b| bcast(p, 0, b);
    switch(bc(3), 32, "pipeline", "binary_tree");
    switch(bc(3), 1024, "knomial", "basic_linear");
    switch(bc(8), 8, "knomial", "binary_tree");
    switch(bc(7), 8192, "binomial", "basic_linear");
    switch(bc(7), 1048576, "basic_linear", "chain");
    switch(bc(16), 1048576, "binomial", "scatter_allgather");
    switch(bc(256), 16384, "knomial", "split_binary_tree");
    // barrier: P only (bytes ignored).
    for (p, want) in [(3, "recursive_doubling"), (4, "linear"), (7, "linear"), (8, "recursive_doubling")] {
        assert_eq!(pick(Call::new(Coll::Barrier, p)), want);
    }
    for (p, want) in [(63, "recursive_doubling"), (64, "bruck"), (255, "bruck"), (256, "tree")] {
        assert_eq!(pick(Call::new(Coll::Barrier, p)), want);
    }
    // alltoall: one block; alltoallv: P only.
    switch(blk(Coll::Alltoall, 3), 8192, "linear_sync", "linear");
    switch(blk(Coll::Alltoall, 3), 524288, "linear", "pairwise");
    switch(blk(Coll::Alltoall, 2), 2, "pairwise", "two_proc");
    switch(blk(Coll::Alltoall, 16), 4, "linear_sync", "modified_bruck");
    for (p, want) in [(3, "pairwise"), (4, "basic_linear"), (63, "basic_linear"), (64, "pairwise")] {
        assert_eq!(pick(Call { counts: vec![vec![1; 2 * p as usize]], ..Call::new(Coll::Alltoallv, p) }), want);
    }
    // allgather: one block.
    assert_eq!(pick(blk(Coll::Allgather, 2)(1 << 20)), "two_proc");
    assert_eq!(pick(blk(Coll::Allgather, 31)(1 << 20)), "recursive_doubling");
    switch(blk(Coll::Allgather, 32), 1024, "recursive_doubling", "neighbor");
    switch(blk(Coll::Allgather, 32), 65536, "neighbor", "ring");
    switch(blk(Coll::Allgather, 256), 32, "recursive_doubling", "bruck");
    // allgatherv: Σcounts / P (here equal counts; (0 + 600) / 2 = 300 ≥ 256 below).
    let agv = |p: usize| move |b| shared(Coll::Allgatherv, &vec![b; p], true);
    switch(agv(4), 256, "default", "neighbor");
    switch(agv(4), 4096, "neighbor", "ring");
    switch(agv(4), 16384, "neighbor", "bruck");
    switch(agv(2), 2048, "ring", "two_proc");
    assert_eq!(pick(shared(Coll::Allgatherv, &[0, 600, 0, 600], true)), "neighbor");
    // gather and scatter: the root's block.
    switch(blk(Coll::Gather, 3), 2, "linear_sync", "basic_linear");
    switch(blk(Coll::Gather, 3), 4, "basic_linear", "binomial");
    switch(blk(Coll::Gather, 4), 1024, "binomial", "basic_linear");
    switch(blk(Coll::Gather, 4), 262144, "basic_linear", "linear_sync");
    switch(blk(Coll::Scatter, 3), 2, "linear_nb", "basic_linear");
    switch(blk(Coll::Scatter, 4), 2048, "binomial", "basic_linear");
    switch(blk(Coll::Scatter, 8), 16384, "binomial", "linear_nb");
    // reduce_scatter: Σcounts (all on rank 0 here); reduce_scatter_block: one block.
    let rs = |p: usize, c| move |b| shared(Coll::ReduceScatter, &[vec![b], vec![0; p - 1]].concat(), c);
    switch(rs(4, true), 8, "non_overlapping", "recursive_halving");
    switch(rs(4, true), 262144, "recursive_halving", "ring");
    switch(rs(3, true), 65536, "ring", "butterfly");
    switch(rs(3, true), 131072, "butterfly", "ring");
    assert_eq!(pick(rs(3, false)(100)), "non_overlapping");
    let rsb = |p, c| move |b| Call { commutative: c, ..Call::new(Coll::ReduceScatterBlock, p).bytes(b) };
    switch(rsb(3, true), 4, "recursive_doubling", "butterfly");
    switch(rsb(3, true), 8, "butterfly", "recursive_halving");
    switch(rsb(3, true), 131072, "butterfly", "basic_linear");
    switch(rsb(4, true), 8, "recursive_halving", "recursive_doubling");
    assert_eq!(pick(rsb(4, false)(8)), "basic_linear");
}

/// P = 1 (coll/self) and the zero counts Open MPI's MPI layer returns on
/// (ompi/mpi/c/<coll>.c) expand to nothing.
#[test]
fn noop_and_two_proc() {
    let mut out = vec![Step::WaitAll];
    let noop = |call: Call, out: &mut Vec<Step>| {
        for r in 0..call.size {
            assert_eq!(ompi::expand(&call.args(r), out).unwrap(), "noop", "{call:?}");
            assert!(out.is_empty(), "{call:?}");
        }
    };
    for coll in [Coll::Barrier, Coll::Bcast, Coll::Gather, Coll::Scatter, Coll::Allgather, Coll::Alltoall] {
        noop(Call::new(coll, 1).bytes(100), &mut out);
    }
    for coll in [Coll::Reduce, Coll::Allreduce, Coll::Scan, Coll::Exscan] {
        noop(vector(coll, 1, 0, 10, 8, true), &mut out);
    }
    for coll in [Coll::Allgatherv, Coll::ReduceScatter] {
        noop(shared(coll, &[100], true), &mut out);
    }
    for coll in [Coll::Alltoallv, Coll::Alltoallw] {
        noop(Call { counts: vec![vec![100, 100]], ..Call::new(coll, 1) }, &mut out);
    }
    let mut c = Call::new(Coll::Gatherv, 1);
    (c.send_of, c.counts) = (vec![100], vec![vec![100]]);
    noop(c, &mut out);
    noop(Call::new(Coll::ReduceScatterBlock, 1).bytes(100), &mut out);
    // Count 0: bcast, reduce, allreduce, scan, exscan (`0 == count`).
    noop(bcast(4, 0, 0), &mut out);
    for coll in [Coll::Reduce, Coll::Allreduce, Coll::Scan, Coll::Exscan] {
        noop(vector(coll, 4, 0, 0, 8, true), &mut out);
    }
    // Empty blocks: gather, scatter, allgather, alltoall, reduce_scatter_block.
    for coll in [Coll::Gather, Coll::Scatter, Coll::Allgather, Coll::Alltoall, Coll::ReduceScatterBlock] {
        noop(Call::new(coll, 4).bytes(0), &mut out);
    }
    // allgather also returns on a zero send count when not in place.
    noop(Call { recv: 8, ..Call::new(Coll::Allgather, 4) }, &mut out);
    // All-zero counts: allgatherv, reduce_scatter.
    noop(shared(Coll::Allgatherv, &[0; 4], true), &mut out);
    noop(shared(Coll::ReduceScatter, &[0; 4], true), &mut out);
    // No early return in the MPI layer for alltoallv: the linear algorithm posts empty blocks.
    let zeros = Call { counts: vec![vec![0; 8]], ..Call::new(Coll::Alltoallv, 4) };
    let lists = expand_all(&zeros, "ompi_alltoallv_basic_linear");
    assert_eq!(format(&lists[1]), "r0:0 r2:0 r3:0 s0:0 s2:0 s3:0 W");
    // two_proc at P = 2 (allgather: always; allgatherv: ≥ 8192 B per rank).
    golden(Call::new(Coll::Allgather, 2).bytes(1), "ompi_allgather_two_proc", &["X1:1/1:1", "X0:1/0:1"]);
    golden(
        shared(Coll::Allgatherv, &[8192, 9000], true),
        "ompi_allgatherv_two_proc",
        &["X1:8192/1:9000", "X0:9000/0:8192"],
    );
    golden(Call::new(Coll::Alltoall, 2).bytes(300), "ompi_alltoall_two_proc", &["X1:300/1:300", "X0:300/0:300"]);
}

/// libnbc's schedules (`ompi/mca/coll/libnbc/nbc_i*.c` of Open MPI 4.1.4), by hand: each round's
/// sends and receives in schedule order, closed by a wait.
#[test]
fn nonblocking_schedules() {
    golden_nbc(
        Call::new(Coll::Barrier, 5),
        "ompi_ibarrier_dissemination",
        &[
            "s1:0 r4:0 W s2:0 r3:0 W s4:0 r1:0 W",
            "s2:0 r0:0 W s3:0 r4:0 W s0:0 r2:0 W",
            "s3:0 r1:0 W s4:0 r0:0 W s1:0 r3:0 W",
            "s4:0 r2:0 W s0:0 r1:0 W s2:0 r4:0 W",
            "s0:0 r3:0 W s1:0 r2:0 W s3:0 r0:0 W",
        ],
    );
    // Up to 4 ranks the root sends to each in one round.
    golden_nbc(bcast(4, 1, 100), "ompi_ibcast_linear", &["r1:100 W", "s0:100 s2:100 s3:100 W", "r1:100 W", "r1:100 W"]);
    // The binomial tree numbers ranks with the root and rank 0 swapped: rank 0 is vrank 2.
    golden_nbc(
        bcast(6, 2, 100),
        "ompi_ibcast_binomial",
        &["r2:100 W", "r2:100 W s3:100 s5:100 W", "s1:100 s0:100 s4:100 W", "r1:100 W", "r2:100 W", "r1:100 W"],
    );
    // A binomial reduce to rank 0 then its bcast: the send up the tree and the receive down it
    // share a round.
    golden_nbc(
        vector(Coll::Allreduce, 5, 0, 4, 8, true),
        "ompi_iallreduce_binomial",
        &[
            "r1:32 W r2:32 W r4:32 W s1:32 s2:32 s4:32 W",
            "s0:32 r0:32 W s3:32 W",
            "r3:32 W s0:32 r0:32 W",
            "s2:32 r1:32 W",
            "s0:32 r0:32 W",
        ],
    );
    // 64 KiB of 8 elements on 5 ranks: rank 1 folds into rank 0, then halving among 0, 2, 3,
    // 4 and doubling back, and rank 0 hands rank 1 the result.
    golden_ranks_nbc(
        vector(Coll::Allreduce, 5, 0, 8, 8192, true),
        "ompi_iallreduce_redscat_allgather",
        &[
            (
                0,
                "s1:32768 r1:32768 W r1:32768 W s2:32768 r2:32768 W s3:16384 r3:16384 W s3:16384 r3:16384 W \
                 s2:32768 r2:32768 W s1:65536 W",
            ),
            (1, "s0:32768 r0:32768 W s0:32768 W r0:65536 W"),
        ],
    );
    // A non-commutative op reduces to rank 0, which sends to the root; the root's receive
    // joins the round of its own send up the tree.
    golden_nbc(
        vector(Coll::Reduce, 3, 2, 2, 4, false),
        "ompi_ireduce_binomial",
        &["r1:8 W r2:8 W s2:8 W", "s0:8 W", "s0:8 r0:8 W"],
    );
    // The whole vector reduced to rank 0, then each rank's block from it.
    golden_nbc(
        rooted(Coll::ReduceScatterBlock, 3, 0, 16),
        "ompi_ireduce_scatter_block_binomial_linear",
        &["r1:48 W r2:48 W s1:16 s2:16 W", "s0:48 W r0:16 W", "s0:48 W r0:16 W"],
    );
    golden_nbc(
        Call { in_place: true, ..Call::new(Coll::Alltoall, 4).bytes(10) },
        "ompi_ialltoall_inplace",
        &[
            "s1:10 r3:10 W s3:10 r1:10 W s2:10 r2:10 W",
            "s2:10 r0:10 W s0:10 r2:10 W s3:10 r3:10 W",
            "s3:10 r1:10 W s1:10 r3:10 W s0:10 r0:10 W",
            "s0:10 r2:10 W s2:10 r0:10 W s1:10 r1:10 W",
        ],
    );
    golden_nbc(vector(Coll::Exscan, 3, 0, 1, 8, true), "ompi_iexscan_linear", &["s1:8 W", "r0:8 W s2:8 W", "r1:8 W"]);
    golden_nbc(vector(Coll::Scan, 3, 0, 1, 8, true), "ompi_iscan_linear", &["s1:8 W", "r0:8 W s2:8 W", "r1:8 W"]);
    // Zero counts: Open MPI's MPI layer returns before libnbc.
    golden_nbc(bcast(8, 0, 0), "noop", &[""; 8]);
}

fn golden_ranks_nbc(call: Call, alg: &str, want: &[(u32, &str)]) {
    golden_by(call, alg, want, ompi::expand_nonblocking);
}
