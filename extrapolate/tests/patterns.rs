//! Hand-built traces of the patterns psins-extrapolate must recognise, each written at 4, 8
//! and 16 ranks, extrapolated to a larger rank count and compared record by record with the
//! trace the same pattern writes at that count; and each refusal's message.

use psins_extrapolate::fit::Scaling;
use psins_extrapolate::topo::{Order, Shape};
use psins_extrapolate::{extrapolate, find_template, Extrapolation, Options, Refusal, Series, Trace};
use psins_formats::*;
use std::path::PathBuf;

/// A halo exchange on a grid: per iteration, a burst, an irecv from each neighbour, an isend to
/// each, one waitall, then an allreduce (and a bcast from rank 0 every other iteration).
#[derive(Clone, Copy)]
struct Halo {
    shape: Shape,
    /// Edge ranks call with MPI_PROC_NULL instead of skipping the neighbour.
    null_edges: bool,
    iters: u32,
    /// Halo bytes as a function of P, the grid's extents and the dimension a message crosses.
    bytes: fn(u32, &[u32], usize) -> u64,
    /// Burst per iteration in ns as a function of P.
    burst: fn(u32) -> u64,
}

fn coll(coll: Coll, bytes: u64, root: i32, instance: u32) -> Op {
    let flags = CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE;
    Op::Coll {
        coll,
        comm: COMM_WORLD,
        root,
        send_bytes: bytes,
        recv_bytes: bytes,
        count: bytes / 8,
        flags,
        req: 0,
        instance,
    }
}

impl Halo {
    fn dirs(&self) -> Vec<[i32; 3]> {
        let mut v = Vec::new();
        for d in 0..self.shape.ndims {
            for s in [-1, 1] {
                let mut o = [0; 3];
                o[d] = s;
                v.push(o);
            }
        }
        v
    }

    fn rank(&self, p: u32, me: u32) -> Vec<Record> {
        let g = self.shape.at(p);
        let mut out = vec![Record::new(0, 0, Op::Init { thread_level: 0 })];
        let mut instance = 0;
        for it in 0..self.iters {
            let mut reqs: Vec<(u32, i32, bool)> = Vec::new();
            let mut first = true;
            let mut burst = (self.burst)(p);
            let peers: Vec<(usize, Option<i32>)> = self
                .dirs()
                .iter()
                .enumerate()
                .map(|(k, o)| {
                    (k, g.apply(me, *o).map(|x| x as i32).or(if self.null_edges { Some(PROC_NULL) } else { None }))
                })
                .collect();
            for &(k, peer) in &peers {
                let Some(peer) = peer else { continue };
                let bytes = (self.bytes)(p, &g.dims, k / 2);
                let req = reqs.len() as u32 + 1;
                // The tag says the direction the message travels.
                let op = Op::Irecv { peer, tag: (k ^ 1) as i32, bytes, comm: COMM_WORLD, req };
                out.push(Record::new(if first { burst } else { 0 }, 0, op));
                first = false;
                burst = 0;
                reqs.push((req, peer, true));
            }
            for &(k, peer) in &peers {
                let Some(peer) = peer else { continue };
                let bytes = (self.bytes)(p, &g.dims, k / 2);
                let req = reqs.len() as u32 + 1;
                let op = Op::Isend { mode: SendMode::Standard, peer, tag: k as i32, bytes, comm: COMM_WORLD, req };
                out.push(Record::new(if first { burst } else { 0 }, 0, op));
                first = false;
                burst = 0;
                reqs.push((req, peer, false));
            }
            if !reqs.is_empty() {
                let mut list = Vec::new();
                for (i, &(req, peer, recv)) in reqs.iter().enumerate() {
                    let k = peers.iter().filter(|p| p.1.is_some()).nth(i % (reqs.len() / 2)).unwrap().0;
                    let tag = if i < reqs.len() / 2 { (k ^ 1) as i64 } else { 0 };
                    let bytes = (self.bytes)(p, &g.dims, k / 2);
                    match (recv, peer) {
                        (true, PROC_NULL) => list.extend_from_slice(&[req as i64, PROC_NULL as i64, ANY_TAG as i64, 0]),
                        (true, _) => list.extend_from_slice(&[req as i64, peer as i64, tag, bytes as i64]),
                        (false, _) => list.extend_from_slice(&[req as i64, NO_RANK as i64, 0, 0]),
                    }
                }
                out.push(Record {
                    gap_ns: 0,
                    dur_ns: 0,
                    op: Op::Wait { func: WaitFn::Waitall, count: reqs.len() as u32 },
                    list,
                });
            }
            instance += 1;
            out.push(Record::new(burst, 0, coll(Coll::Allreduce, 8, NO_RANK, instance)));
            if it % 2 == 1 {
                instance += 1;
                out.push(Record::new(0, 0, coll(Coll::Bcast, 64, 0, instance)));
            }
        }
        out.push(Record::new(100, 0, Op::Finalize));
        out
    }

    fn trace(&self, p: u32) -> Trace {
        Trace {
            path: PathBuf::from(format!("halo-{p}.psins")),
            tasks: (0..p).map(|r| self.rank(p, r)).collect(),
            meta: Vec::new(),
            comms: Vec::new(),
            traced: false,
            expanded: false,
        }
    }
}

fn series(traces: Vec<Trace>) -> Series {
    Series::new(traces, Scaling::Unknown).unwrap_or_else(|e| panic!("{e}"))
}

/// The series extrapolated to `ranks` with the default options.
fn extrapolated(s: &Series, ranks: u32) -> Extrapolation {
    extrapolate(
        s,
        find_template(s).unwrap_or_else(|e| panic!("{e}")),
        &Options { ranks, scaling: Scaling::Unknown, tolerance: 0.05 },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A collective of `bytes` on communicator `comm`.
fn coll_on(what: Coll, comm: u32, bytes: u64, instance: u32) -> Op {
    match coll(what, bytes, NO_RANK, instance) {
        Op::Coll { coll, root, send_bytes, recv_bytes, count, flags, req, instance, .. } => {
            Op::Coll { coll, comm, root, send_bytes, recv_bytes, count, flags, req, instance }
        }
        _ => unreachable!(),
    }
}

/// Rank `me`'s constructors of the communicators of classes `masks` on `g` (MPI_Comm_split),
/// each communicator listed once in `defs`.
fn split(g: &psins_extrapolate::topo::Grid, me: u32, masks: &[u32], defs: &mut Vec<CommDef>) -> Vec<Record> {
    use psins_extrapolate::comms;
    masks
        .iter()
        .map(|&mask| {
            let members = comms::members(g, mask, me);
            let id = comms::global_id(g, mask, me);
            if members[0] == me {
                defs.push(CommDef { id, members: members.clone(), split: 0 });
            }
            let op = Op::CommCreate { func: CommFn::Split, parent: COMM_WORLD, comm: id, split: 0 };
            Record { gap_ns: 2000, dur_ns: 0, op, list: members.iter().map(|&m| m as i64).collect() }
        })
        .collect()
}

/// Extrapolates `make` at 4, 8, 16 to `target` and compares every rank with `make(target)`.
fn check(name: &str, make: &dyn Fn(u32) -> Trace, target: u32, expect_shape: &str) {
    check_from(name, make, &[4, 8, 16], target, expect_shape)
}

fn check_from(name: &str, make: &dyn Fn(u32) -> Trace, sizes: &[u32], target: u32, expect_shape: &str) {
    check_scaled(name, make, sizes, Scaling::Unknown, target, expect_shape)
}

/// [`check_from`] with what the user says of the scaling (`--scaling`).
fn check_scaled(
    name: &str,
    make: &dyn Fn(u32) -> Trace,
    sizes: &[u32],
    scaling: Scaling,
    target: u32,
    expect_shape: &str,
) {
    let s = Series::new(sizes.iter().map(|&p| make(p)).collect(), scaling).unwrap_or_else(|e| panic!("{name}: {e}"));
    let t = find_template(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(t.shape.to_string(), expect_shape, "{name}");
    let ex = extrapolate(&s, t, &Options { ranks: target, scaling, tolerance: 0.05 })
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let truth = make(target);
    for r in 0..target {
        let mut got = Vec::new();
        ex.rank(r, &mut got).unwrap();
        let want = &truth.tasks[r as usize];
        assert_eq!(got.len(), want.len(), "{name}: rank {r}: record counts");
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert_eq!(g.op, w.op, "{name}: rank {r}, record {i}");
            assert_eq!(g.list, w.list, "{name}: rank {r}, record {i}: completions");
            assert_eq!(g.gap_ns, w.gap_ns, "{name}: rank {r}, record {i}: burst");
        }
    }
}

const ROW2: Shape = Shape { ndims: 2, order: Order::RowMajor, periodic: 0 };

#[test]
fn ring() {
    let h = Halo {
        shape: Shape { ndims: 1, order: Order::RowMajor, periodic: 1 },
        null_edges: false,
        iters: 5,
        bytes: |_, _, _| 4096,
        burst: |_| 20_000,
    };
    check("ring", &|p| h.trace(p), 48, "1-D ring");
}

#[test]
fn line_with_proc_null_edges() {
    let h = Halo {
        shape: Shape { ndims: 1, order: Order::RowMajor, periodic: 0 },
        null_edges: true,
        iters: 4,
        bytes: |p, _, _| 1 << 20 >> p.ilog2(),
        burst: |p| 1_000_000 / p as u64,
    };
    check("line", &|p| h.trace(p), 64, "1-D line");
}

#[test]
fn grid_2d_skipping_edges_strong_scaling() {
    let h = Halo {
        shape: ROW2,
        null_edges: false,
        iters: 4,
        bytes: |p, _, _| 65536 / p as u64,
        burst: |p| 8_000_000 / p as u64,
    };
    check("2-D grid", &|p| h.trace(p), 64, "2-D grid, row-major");
}

/// A strong-scaled 2-D block decomposition, as the ParRes stencil's: a message across
/// dimension d carries the block's face, 1/D(other) of the rows, so at 8 ranks (4x2) one
/// direction's halo halves and the other's does not. No law of P fits; the face law does.
#[test]
fn grid_2d_halo_follows_the_extent_across() {
    let h = Halo {
        shape: ROW2,
        null_edges: false,
        iters: 3,
        bytes: |_, dims, d| 30720 / dims[1 - d] as u64,
        burst: |p| 8_000_000 / p as u64,
    };
    check("2-D faces", &|p| h.trace(p), 64, "2-D grid, row-major");
    let s = series([4, 8, 16].iter().map(|&p| h.trace(p)).collect());
    let ex = extrapolated(&s, 32);
    let report = ex.report(&s);
    assert!(report.contains("= 30720/D1") && report.contains("= 30720/D0"), "{report}");
}

/// The ParRes stencil's exchange: per direction of each dimension that has a neighbour, a
/// receive and a send are posted; then per direction, one MPI_Wait for the send and one for
/// the receive. A rank on the top edge waits for its bottom neighbour's messages where an
/// interior rank waits for its top neighbour's: each wait is placed by what it completes.
/// The computation is all before the allreduce (a rank without a neighbour would be charged
/// the bursts of the calls it skips, docs/extrapolate.md).
fn wait_pairs(p: u32) -> Trace {
    program("pairs", p, &|p, me| {
        let g = ROW2.at(p);
        let mut v = Vec::new();
        for it in 0..2u32 {
            for d in 0..2 {
                let mut posted = Vec::new();
                for s in [1, -1] {
                    let mut o = [0; 3];
                    o[d] = s;
                    let Some(peer) = g.apply(me, o) else { continue };
                    let peer = peer as i32;
                    let (rq, sq) = (posted.len() as u32 * 2 + 1, posted.len() as u32 * 2 + 2);
                    let tag = (d * 2) as i32 + (s > 0) as i32;
                    v.push(Record::new(0, 0, Op::Irecv { peer, tag: tag ^ 1, bytes: 512, comm: COMM_WORLD, req: rq }));
                    let op = Op::Isend { mode: SendMode::Standard, peer, tag, bytes: 512, comm: COMM_WORLD, req: sq };
                    v.push(Record::new(0, 0, op));
                    posted.push((peer, tag ^ 1, rq, sq));
                }
                for (peer, tag, rq, sq) in posted {
                    let wait = |list: Vec<i64>| Record {
                        gap_ns: 0,
                        dur_ns: 0,
                        op: Op::Wait { func: WaitFn::Wait, count: 1 },
                        list,
                    };
                    v.push(wait(vec![sq as i64, NO_RANK as i64, 0, 0]));
                    v.push(wait(vec![rq as i64, peer as i64, tag as i64, 512]));
                }
            }
            v.push(Record::new(2000, 0, coll(Coll::Allreduce, 8, NO_RANK, it + 1)));
        }
        v
    })
}

#[test]
fn each_wait_placed_by_what_it_completes() {
    check("wait pairs", &wait_pairs, 64, "2-D grid, row-major");
}

#[test]
fn grid_2d_column_major_proc_null() {
    let h = Halo {
        shape: Shape { ndims: 2, order: Order::ColumnMajor, periodic: 0 },
        null_edges: true,
        iters: 3,
        bytes: |_, _, _| 8192,
        burst: |_| 50_000,
    };
    check("2-D grid, PROC_NULL", &|p| h.trace(p), 36, "2-D grid, column-major");
}

/// A 3-D torus needs a series in which every dimension is 3 or more ranks wide somewhere: in
/// a dimension 2 wide the -1 and +1 neighbours are one rank, and a grid without wrap-around
/// explains the calls as well.
#[test]
fn torus_3d() {
    let h = Halo {
        shape: Shape { ndims: 3, order: Order::RowMajor, periodic: 7 },
        null_edges: false,
        iters: 3,
        bytes: |_, _, _| 2048,
        burst: |_| 10_000,
    };
    check_from("3-D torus", &|p| h.trace(p), &[8, 27, 64], 125, "3-D torus, row-major");
}

/// Rank 0 hands a token to the last rank each iteration around a bcast: a fixed rank and
/// the last rank, whatever P.
#[test]
fn root_and_last_rank() {
    let make = |p: u32| {
        let tasks = (0..p)
            .map(|me| {
                let mut v = vec![Record::new(0, 0, Op::Init { thread_level: 0 })];
                for i in 0..3u32 {
                    v.push(Record::new(5000, 0, coll(Coll::Bcast, 1024, 0, i + 1)));
                    if me == 0 {
                        v.push(Record::new(
                            0,
                            0,
                            Op::Send { mode: SendMode::Standard, peer: p as i32 - 1, tag: 9, bytes: 16, comm: 0 },
                        ));
                    } else if me == p - 1 {
                        v.push(Record::new(0, 0, Op::Recv { peer: 0, tag: 9, bytes: 16, comm: 0 }));
                    }
                }
                v.push(Record::new(0, 0, Op::Finalize));
                v
            })
            .collect();
        Trace {
            path: format!("root-{p}").into(),
            tasks,
            meta: Vec::new(),
            comms: Vec::new(),
            traced: false,
            expanded: false,
        }
    };
    check("root", &make, 100, "1-D line");
}

fn refusal<T>(r: std::result::Result<T, Refusal>) -> String {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn refuses_too_few_rank_counts() {
    let h = Halo { shape: ROW2, null_edges: false, iters: 1, bytes: |_, _, _| 64, burst: |_| 1 };
    let m = refusal(Series::new(vec![h.trace(4), h.trace(8)], Scaling::Unknown));
    assert!(m.contains("2 traces given") && m.contains("3 or more") && m.contains("--scaling"), "{m}");
    assert!(Series::new(vec![h.trace(4), h.trace(8)], Scaling::Weak).is_ok());
    let m = refusal(Series::new(vec![h.trace(4), h.trace(4), h.trace(8)], Scaling::Unknown));
    assert!(m.contains("both traces of 4 ranks"), "{m}");
}

#[test]
fn refuses_targets_the_topology_cannot_take() {
    let h = Halo { shape: ROW2, null_edges: false, iters: 1, bytes: |_, _, _| 64, burst: |_| 1 };
    let s = series(vec![h.trace(4), h.trace(8), h.trace(16)]);
    let opts = |ranks| Options { ranks, scaling: Scaling::Unknown, tolerance: 0.05 };
    let m = refusal(extrapolate(&s, find_template(&s).unwrap(), &opts(16)));
    assert!(m.contains("larger than the largest trace (16 ranks"), "{m}");
    let m = refusal(extrapolate(&s, find_template(&s).unwrap(), &opts(37)));
    assert!(
        m.contains("37 ranks lay as 37x1")
            && m.contains("36 (2-D grid, row-major 6x6)")
            && m.contains("38 (2-D grid, row-major 19x2)"),
        "{m}"
    );
}

#[test]
fn refuses_different_applications() {
    let grid = Halo { shape: ROW2, null_edges: false, iters: 2, bytes: |_, _, _| 64, burst: |_| 1 };
    let ring = Halo { shape: Shape { ndims: 1, order: Order::RowMajor, periodic: 1 }, ..grid };
    let s = series(vec![grid.trace(4), ring.trace(8), grid.trace(16)]);
    let m = refusal(find_template(&s));
    assert!(m.contains("rank ") && m.contains("record ") && m.contains("no topology"), "{m}");
    // Another program altogether: the message names the first call that differs, in both
    // traces.
    let s = series(vec![grid.trace(4), grid.trace(8), bucket_sort(16, 0.1, "sort")]);
    let m = refusal(find_template(&s));
    assert!(
        m.contains("first differ at record 1 of halo-8.psins (irecv peer ")
            && m.contains("against record 1 of sort-16.psins (alltoall)"),
        "{m}"
    );
}

#[test]
fn refuses_sizes_no_law_fits() {
    let h = Halo {
        shape: ROW2,
        null_edges: false,
        iters: 1,
        bytes: |p, _, _| match p {
            4 => 100,
            8 => 7000,
            _ => 40,
        },
        burst: |_| 1,
    };
    let s = series(vec![h.trace(4), h.trace(8), h.trace(16)]);
    let m = refusal(extrapolate(
        &s,
        find_template(&s).unwrap(),
        &Options { ranks: 64, scaling: Scaling::Unknown, tolerance: 0.05 },
    ));
    assert!(
        m.contains("follows no law within 5.0 %") && m.contains("100 at 4, 7000 at 8, 40 at 16") && m.contains("bytes"),
        "{m}"
    );
}

/// Peers that depend on the data (here, a pseudo-random partner per rank) fit no topology.
#[test]
fn refuses_data_dependent_peers() {
    let make = |p: u32| {
        let tasks = (0..p)
            .map(|me| {
                let partner = (me * 7 + 3 + p * 5) % p;
                let mut v = vec![Record::new(0, 0, Op::Init { thread_level: 0 })];
                let op = Op::Sendrecv {
                    peer: partner as i32,
                    tag: 0,
                    bytes: 8,
                    src: partner as i32,
                    rtag: 0,
                    rbytes: 8,
                    comm: 0,
                    replace: false,
                };
                v.push(Record::new(0, 0, op));
                v.push(Record::new(0, 0, Op::Finalize));
                v
            })
            .collect();
        Trace {
            path: format!("random-{p}").into(),
            tasks,
            meta: Vec::new(),
            comms: Vec::new(),
            traced: false,
            expanded: false,
        }
    };
    let s = series(vec![make(4), make(8), make(16)]);
    let m = refusal(find_template(&s));
    assert!(m.contains("no topology of 1 to 3 dimensions"), "{m}");
}

/// A trace of `p` ranks whose rank `me` runs `body(p, me)`: each call after a burst of
/// 1 µs, the burst of a wait 0 (its completions from `Record::list`).
fn program(name: &str, p: u32, body: &dyn Fn(u32, u32) -> Vec<Record>) -> Trace {
    let tasks = (0..p)
        .map(|me| {
            let mut v = vec![Record::new(0, 0, Op::Init { thread_level: 0 })];
            v.extend(body(p, me));
            v.push(Record::new(100, 0, Op::Finalize));
            v
        })
        .collect();
    Trace {
        path: format!("{name}-{p}.psins").into(),
        tasks,
        meta: Vec::new(),
        comms: Vec::new(),
        traced: false,
        expanded: false,
    }
}

fn sendrecv(to: u32, from: u32, bytes: u64) -> Record {
    let op = Op::Sendrecv {
        peer: to as i32,
        tag: 3,
        bytes,
        src: from as i32,
        rtag: 3,
        rbytes: bytes,
        comm: COMM_WORLD,
        replace: false,
    };
    Record::new(1000, 0, op)
}

/// Nonblocking receives from `from`, sends to `to`, one waitall: a loop of each whose trip
/// count is the peers' number.
fn exchange(from: &[u32], to: &[u32], bytes: u64) -> Vec<Record> {
    let mut v = Vec::new();
    let mut list = Vec::new();
    let mut req = 0;
    for &f in from {
        req += 1;
        v.push(Record::new(1000, 0, Op::Irecv { peer: f as i32, tag: 5, bytes, comm: COMM_WORLD, req }));
        list.extend_from_slice(&[req as i64, f as i64, 5, bytes as i64]);
    }
    for &t in to {
        req += 1;
        let op = Op::Isend { mode: SendMode::Standard, peer: t as i32, tag: 5, bytes, comm: COMM_WORLD, req };
        v.push(Record::new(1000, 0, op));
        list.extend_from_slice(&[req as i64, NO_RANK as i64, 0, 0]);
    }
    v.push(Record { gap_ns: 0, dur_ns: 0, op: Op::Wait { func: WaitFn::Waitall, count: req }, list });
    v
}

/// Recursive doubling: log2 P partners, rank xor 2^k, three times around an allreduce.
#[test]
fn butterfly() {
    let make = |p: u32| {
        program("butterfly", p, &|p, me| {
            let mut v = Vec::new();
            for it in 0..3 {
                for k in 0..p.ilog2() {
                    let partner = me ^ (1 << k);
                    v.push(sendrecv(partner, partner, 8192));
                }
                v.push(Record::new(500, 0, coll(Coll::Allreduce, 8, NO_RANK, it + 1)));
            }
            v
        })
    };
    check("butterfly", &make, 64, "1-D line");
    // A butterfly of 48 ranks has no whole number of steps.
    let s = series(vec![make(4), make(8), make(16)]);
    let m = refusal(extrapolate(
        &s,
        find_template(&s).unwrap(),
        &Options { ranks: 48, scaling: Scaling::Unknown, tolerance: 0.05 },
    ));
    assert!(
        m.contains("iterations follows 0 + 1*log2(P)") && m.contains("nearest rank counts where it is: 32, 64"),
        "{m}"
    );
}

/// A transpose by pairwise exchange, (rank + k) and (rank - k) mod P for k = 1 .. P-1, the
/// blocks shrinking as 1/P^2; then the same by nonblocking calls and one waitall.
#[test]
fn transposes() {
    let pairwise = |p: u32| {
        program("transpose", p, &|p, me| {
            (1..p).map(|k| sendrecv((me + k) % p, (me + p - k) % p, (1 << 24) / (p as u64 * p as u64))).collect()
        })
    };
    check("pairwise transpose", &pairwise, 32, "1-D line");
    let nonblocking = |p: u32| {
        program("alltoall", p, &|p, me| {
            let others: Vec<u32> = (0..p).filter(|&r| r != me).collect();
            let mut v = exchange(&others, &others, 4096);
            v.extend(exchange(&others, &others, 4096));
            v
        })
    };
    check("nonblocking all-to-all", &nonblocking, 40, "1-D line");
}

/// A master hands a task to each worker in turn and collects each result: its loops run
/// P - 1 times, each worker's program is one receive and one send.
#[test]
fn master_worker() {
    let make = |p: u32| {
        program("master", p, &|p, me| {
            let mut v = Vec::new();
            for round in 0..2 {
                if me == 0 {
                    for w in 1..p {
                        let op = Op::Send { mode: SendMode::Standard, peer: w as i32, tag: round, bytes: 256, comm: 0 };
                        v.push(Record::new(1000, 0, op));
                    }
                    for w in 1..p {
                        v.push(Record::new(1000, 0, Op::Recv { peer: w as i32, tag: 7, bytes: 64, comm: 0 }));
                    }
                } else {
                    v.push(Record::new(1000, 0, Op::Recv { peer: 0, tag: round, bytes: 256, comm: 0 }));
                    v.push(Record::new(
                        1000,
                        0,
                        Op::Send { mode: SendMode::Standard, peer: 0, tag: 7, bytes: 64, comm: 0 },
                    ));
                }
            }
            v
        })
    };
    check("master-worker", &make, 50, "1-D line");
}

/// NPB-CG's layout: a 2-D grid of ranks as MPI_Dims_create lays it, a row and a column
/// communicator from MPI_Comm_split; per iteration a shift along the row (on the row
/// communicator, around its ends), a reduction over the row then over the column, and a
/// world allreduce; the communicators freed at the end.
#[test]
fn row_and_column_communicators() {
    use psins_extrapolate::comms;
    let make = |p: u32| {
        let g = ROW2.at(p);
        let (row, col) = (2u32, 1u32); // the dimensions each spans: the row varies the column
        let mut defs = Vec::new();
        let tasks = (0..p)
            .map(|me| {
                let mut v = vec![Record::new(0, 0, Op::Init { thread_level: 0 })];
                v.extend(split(&g, me, &[row, col], &mut defs));
                let (rid, cid) = (comms::global_id(&g, row, me), comms::global_id(&g, col, me));
                let n = comms::size(&g, row);
                let pc = comms::rank_in(&g, row, me);
                let mut instance = 0;
                for _ in 0..3 {
                    let op = Op::Sendrecv {
                        peer: ((pc + 1) % n) as i32,
                        tag: 11,
                        bytes: 2048,
                        src: ((pc + n - 1) % n) as i32,
                        rtag: 11,
                        rbytes: 2048,
                        comm: rid,
                        replace: false,
                    };
                    v.push(Record::new(30_000, 0, op));
                    for c in [rid, cid, COMM_WORLD] {
                        instance += 1;
                        v.push(Record::new(1000, 0, coll_on(Coll::Allreduce, c, 8, instance)));
                    }
                }
                v.push(Record::new(500, 0, Op::CommFree { comm: rid }));
                v.push(Record::new(0, 0, Op::CommFree { comm: cid }));
                v.push(Record::new(100, 0, Op::Finalize));
                v
            })
            .collect();
        Trace {
            path: format!("cg-{p}.psins").into(),
            tasks,
            meta: Vec::new(),
            comms: defs,
            traced: false,
            expanded: false,
        }
    };
    check("row and column communicators", &make, 64, "2-D grid wrapped in dimension 1, row-major");
    // Its communicators at 64 ranks: 8 rows and 8 columns of 8.
    let s = series(vec![make(4), make(8), make(16)]);
    let ex = extrapolated(&s, 64);
    let mut defs = ex.comms();
    assert_eq!(defs.len(), 16);
    assert!(defs.iter().all(|d| d.members.len() == 8));
    let mut want = make(64).comms;
    defs.sort_by_key(|d| d.id);
    want.sort_by_key(|d| d.id);
    assert_eq!(defs, want);
}

/// A communicator that is no row, column or plane of any grid (every other rank) is refused
/// with its members.
#[test]
fn refuses_communicators_off_the_grid() {
    let make = |p: u32| {
        let evens: Vec<u32> = (0..p).step_by(2).collect();
        let odds: Vec<u32> = (1..p).step_by(2).collect();
        let tasks = (0..p)
            .map(|me| {
                let (id, members) = if me % 2 == 0 { (2, &evens) } else { (3, &odds) };
                let op = Op::CommCreate { func: CommFn::Split, parent: COMM_WORLD, comm: id, split: 0 };
                vec![
                    Record::new(0, 0, Op::Init { thread_level: 0 }),
                    Record { gap_ns: 0, dur_ns: 0, op, list: members.iter().map(|&m| m as i64).collect() },
                    Record::new(0, 0, coll(Coll::Barrier, 0, NO_RANK, 1)),
                    Record::new(0, 0, Op::Finalize),
                ]
            })
            .collect();
        let comms = vec![
            CommDef { id: 2, members: evens.clone(), split: 0 },
            CommDef { id: 3, members: odds.clone(), split: 0 },
        ];
        Trace {
            path: format!("parity-{p}.psins").into(),
            tasks,
            meta: Vec::new(),
            comms,
            traced: false,
            expanded: false,
        }
    };
    let s = series(vec![make(4), make(8), make(16)]);
    let m = refusal(find_template(&s));
    assert!(m.contains("parity-") && m.contains("must be a row, column or plane of the topology"), "{m}");
}

/// NPB-CG's transpose: each rank off the diagonal of a square grid exchanges with the rank
/// across it; a target that is not a square is refused with the nearest squares.
#[test]
fn transpose_partner() {
    let make = |p: u32| {
        program("transpose2d", p, &|p, me| {
            let g = ROW2.at(p);
            let c = g.coords(me);
            let partner = g.rank_at(&[c[1], c[0], 0]);
            let mut v = Vec::new();
            for it in 0..2 {
                // A rank on the diagonal computes what comes before the exchange all the same.
                let mut burst = 2000;
                if partner != me {
                    v.push(sendrecv(partner, partner, 4096));
                } else {
                    burst += 1000;
                }
                v.push(Record::new(burst, 0, coll(Coll::Allreduce, 8, NO_RANK, it + 1)));
            }
            v
        })
    };
    check_from("transpose partner", &make, &[4, 16, 64], 256, "2-D grid, row-major");
    let s = series(vec![make(4), make(16), make(64)]);
    let m = refusal(extrapolate(
        &s,
        find_template(&s).unwrap(),
        &Options { ranks: 128, scaling: Scaling::Unknown, tolerance: 0.05 },
    ));
    assert!(m.contains("across the diagonal") && m.contains("nearest square rank counts: 121, 144"), "{m}");
}

/// An exchange with `partner` as NPB CG writes it: a receive posted, a send, a wait.
fn swap(partner: u32, tag: i32, bytes: u64, burst: u64) -> Vec<Record> {
    vec![
        Record::new(burst, 0, Op::Irecv { peer: partner as i32, tag, bytes, comm: COMM_WORLD, req: 1 }),
        Record::new(0, 0, Op::Send { mode: SendMode::Standard, peer: partner as i32, tag, bytes, comm: COMM_WORLD }),
        Record {
            gap_ns: 0,
            dur_ns: 0,
            op: Op::Wait { func: WaitFn::Wait, count: 1 },
            list: vec![1, partner as i64, tag as i64, bytes as i64],
        },
    ]
}

/// NPB CG's communication on its square grid of n x n ranks: a dot product summed along the
/// row with the masks from the high bit down (tags 1, 2, ...), the matrix-vector product's
/// row sum with the masks from the low bit up (tags counting down to 1), then the exchange
/// with the rank across the diagonal, which a rank on it makes with itself, and the next dot
/// product straight after (a wait, then a reduction's receive and send: no loop). Each reduction
/// runs log2 n steps: once at 4 ranks, so that there it is no loop in the trace.
fn npb_cg(p: u32) -> Trace {
    program("npb-cg", p, &|p, me| {
        let g = ROW2.at(p);
        let l = g.dims[1].ilog2();
        let c = g.coords(me);
        let across = g.rank_at(&[c[1], c[0], 0]);
        let block = 32768 / g.dims[1] as u64;
        let mut v = Vec::new();
        for it in 0..3 {
            for i in 0..l {
                v.extend(swap(me ^ (1 << (l - 1 - i)), i as i32 + 1, 8, if i == 0 { 3000 } else { 0 }));
            }
            for i in 0..l {
                v.extend(swap(me ^ (1 << i), (l - i) as i32, block, if i == 0 { 5000 } else { 0 }));
            }
            v.extend(swap(across, 1, block, 700));
            // The next dot product straight after the exchange's wait.
            for i in 0..l {
                v.extend(swap(me ^ (1 << (l - 1 - i)), i as i32 + 1, 8, if i == 0 { 40 } else { 0 }));
            }
            v.push(Record::new(500, 0, coll(Coll::Allreduce, 8, NO_RANK, it + 1)));
        }
        v
    })
}

#[test]
fn npb_cg_reductions_along_rows_and_a_transpose_with_itself_on_the_diagonal() {
    check_from("NPB CG", &npb_cg, &[4, 16, 64], 256, "2-D grid, row-major");
    // Two square counts, the user saying the problem is fixed: the reductions' steps follow
    // log2 of the row's length, the one law two counts can check.
    check_scaled("NPB CG", &npb_cg, &[4, 16], Scaling::Strong, 64, "2-D grid, row-major");
}

/// A bucket sort's exchange: an alltoall of the counts, then an alltoallv of the keys whose
/// per-rank counts are uneven in the traces (keys spread at random) and even at the target.
fn bucket_sort(p: u32, spread: f64, name: &str) -> Trace {
    program(name, p, &|p, me| {
        let total = 32768u64;
        let mut v = Vec::new();
        let mut instance = 0;
        for it in 0..3u32 {
            instance += 1;
            v.push(Record::new(5000, 0, coll(Coll::Alltoall, 4 * p as u64, NO_RANK, instance)));
            // Counts off even by up to `spread`, the same total; even at the target (spread 0).
            let per = total / p as u64;
            let off = |r: u32| -> i64 {
                let x = ((r * 7 + me * 3 + it * 5) % 5) as f64 / 4.0 - 0.5;
                (x * 2.0 * spread * per as f64) as i64
            };
            let mut sends: Vec<i64> = (0..p).map(|r| per as i64 + off(r)).collect();
            let fix = total as i64 - sends.iter().sum::<i64>();
            sends[0] += fix;
            let recvs: Vec<i64> = (0..p).map(|r| per as i64 + if spread > 0.0 { off(r) / 2 } else { 0 }).collect();
            let recv_total = recvs.iter().sum::<i64>() as u64;
            instance += 1;
            let flags = 0;
            let op = Op::Coll {
                coll: Coll::Alltoallv,
                comm: COMM_WORLD,
                root: NO_RANK,
                send_bytes: total,
                recv_bytes: recv_total,
                count: 0,
                flags,
                req: 0,
                instance,
            };
            v.push(Record { gap_ns: 8000, dur_ns: 0, op, list: sends.into_iter().chain(recvs).collect() });
        }
        v
    })
}

#[test]
fn per_rank_counts_taken_as_even() {
    let s = series(vec![bucket_sort(4, 0.1, "is"), bucket_sort(8, 0.1, "is"), bucket_sort(16, 0.1, "is")]);
    let t = find_template(&s).unwrap();
    let ex = extrapolate(&s, t, &Options { ranks: 64, scaling: Scaling::Unknown, tolerance: 0.05 }).unwrap();
    let truth = bucket_sort(64, 0.0, "is");
    for r in [0, 17, 63] {
        let mut got = Vec::new();
        ex.rank(r, &mut got).unwrap();
        assert_eq!(got, truth.tasks[r as usize], "rank {r}");
    }
    assert!(ex.report(&s).contains("note: alltoallv: per-rank counts taken as even"), "{}", ex.report(&s));
    // Counts far from even (a decomposition the traces do not show) are refused.
    let s = series(vec![bucket_sort(4, 0.8, "skew"), bucket_sort(8, 0.8, "skew"), bucket_sort(16, 0.8, "skew")]);
    let m = refusal(extrapolate(
        &s,
        find_template(&s).unwrap(),
        &Options { ranks: 64, scaling: Scaling::Unknown, tolerance: 0.05 },
    ));
    assert!(m.contains("skew-") && m.contains("alltoallv: per-rank counts are") && m.contains("within 25 %"), "{m}");
}

/// A root that scatters a fixed total over the ranks with MPI_Scatterv and gathers it back
/// with MPI_Gatherv (strong scaling: each rank's share falls as 1/P), the counts off even by
/// up to `spread` in the root's lists. Non-roots send or receive their own share only, with no
/// list, as the tracer records them.
fn scatter_gather_v(p: u32, spread: f64, name: &str) -> Trace {
    program(name, p, &|p, me| {
        let total = 1u64 << 20;
        let per = (total / p as u64) as i64;
        // The root's own share stays even; the others' go up and down by `spread` in pairs.
        let counts: Vec<i64> = (0..p as i64)
            .map(|r| match r {
                0 => per,
                r if r % 2 == 1 && r + 1 < p as i64 => per + (spread * per as f64) as i64,
                r if r % 2 == 0 => per - (spread * per as f64) as i64,
                _ => per,
            })
            .collect();
        let mine = counts[me as usize] as u64;
        let root = me == 0;
        let mut v = Vec::new();
        for it in 0..2u32 {
            let vcoll = |coll, send_bytes, recv_bytes, instance| {
                let op = Op::Coll {
                    coll,
                    comm: COMM_WORLD,
                    root: 0,
                    send_bytes,
                    recv_bytes,
                    count: 0,
                    flags: 0,
                    req: 0,
                    instance,
                };
                Record { gap_ns: 3000, dur_ns: 0, op, list: if root { counts.clone() } else { Vec::new() } }
            };
            v.push(vcoll(Coll::Scatterv, if root { total } else { 0 }, mine, 2 * it + 1));
            v.push(vcoll(Coll::Gatherv, mine, if root { total } else { 0 }, 2 * it + 2));
        }
        v
    })
}

#[test]
fn scatterv_and_gatherv_counts_taken_as_even() {
    let s =
        series(vec![scatter_gather_v(4, 0.0, "sg"), scatter_gather_v(8, 0.0, "sg"), scatter_gather_v(16, 0.0, "sg")]);
    let ex = extrapolated(&s, 64);
    let truth = scatter_gather_v(64, 0.0, "sg");
    for r in [0, 1, 63] {
        let mut got = Vec::new();
        ex.rank(r, &mut got).unwrap();
        assert_eq!(got, truth.tasks[r as usize], "rank {r}");
    }
    let report = ex.report(&s);
    assert!(report.contains("note: scatterv root 0: per-rank counts taken as even"), "{report}");
    assert!(report.contains("note: gatherv root 0: per-rank counts taken as even"), "{report}");
    // The root's lists far from even: refused, naming the collective.
    let s = series(vec![
        scatter_gather_v(4, 0.4, "skewed"),
        scatter_gather_v(8, 0.4, "skewed"),
        scatter_gather_v(16, 0.4, "skewed"),
    ]);
    let m = refusal(extrapolate(
        &s,
        find_template(&s).unwrap(),
        &Options { ranks: 64, scaling: Scaling::Unknown, tolerance: 0.05 },
    ));
    assert!(
        m.contains("skewed-") && m.contains("scatterv root 0: per-rank counts are 40.0 %") && m.contains("within 25 %"),
        "{m}"
    );
}

/// miniGhost's habits on a 3-D grid: each halo's requests completed by one MPI_Waitany per
/// request (an array of 12, the run's timing choosing the order; more neighbours at the
/// target than in any trace), and a gather to rank 0 whose root receives what the others do
/// not.
#[test]
fn waitany_runs_and_a_gathers_root() {
    let h = Halo {
        shape: Shape { ndims: 3, order: Order::ColumnMajor, periodic: 0 },
        null_edges: false,
        iters: 3,
        bytes: |_, _, _| 46240,
        burst: |_| 20_000,
    };
    // `scramble`: the traces complete in an order of their own; the target's truth in
    // request order, as the extrapolation makes it.
    let make = |p: u32, scramble: bool| {
        let mut t = h.trace(p);
        t.path = format!("ghost-{p}.psins").into();
        for (me, recs) in t.tasks.iter_mut().enumerate() {
            let mut out = Vec::new();
            let mut instance = 1000;
            for r in recs.drain(..) {
                match r.op {
                    Op::Wait { func: WaitFn::Waitall, count } => {
                        let mut done: Vec<&[i64]> = r.list.chunks_exact(4).collect();
                        if scramble {
                            let k = (me + 1) % done.len().max(1);
                            done.rotate_left(k);
                        }
                        for (i, q) in done.iter().enumerate() {
                            let op = Op::Wait { func: WaitFn::Waitany, count: 12 };
                            out.push(Record {
                                gap_ns: if i == 0 { r.gap_ns } else { 0 },
                                dur_ns: 0,
                                op,
                                list: q.to_vec(),
                            });
                        }
                        assert!(count as usize == done.len());
                    }
                    Op::Finalize => {
                        instance += 1;
                        let root = me == 0;
                        let op = Op::Coll {
                            coll: Coll::Gather,
                            comm: COMM_WORLD,
                            root: 0,
                            send_bytes: 8,
                            recv_bytes: if root { 8 } else { 0 },
                            count: 0,
                            flags: 0,
                            req: 0,
                            instance,
                        };
                        out.push(Record::new(0, 0, op));
                        out.push(r);
                    }
                    _ => out.push(r),
                }
            }
            *recs = out;
        }
        t
    };
    let s = series(vec![make(4, true), make(8, true), make(16, true)]);
    let t = find_template(&s).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.shape.to_string(), "3-D grid, column-major");
    let ex = extrapolate(&s, t, &Options { ranks: 64, scaling: Scaling::Unknown, tolerance: 0.05 }).unwrap();
    let truth = make(64, false);
    // Rank 21 of 4x4x4 has all six neighbours; no traced rank had more than four.
    for r in [0, 21, 63] {
        let mut got = Vec::new();
        ex.rank(r, &mut got).unwrap();
        let want = &truth.tasks[r as usize];
        assert_eq!(got.len(), want.len(), "rank {r}");
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            // Instances are the generator's own numbering.
            let (mut go, mut wo) = (g.op, w.op);
            for o in [&mut go, &mut wo] {
                if let Op::Coll { instance, .. } = o {
                    *instance = 0;
                }
            }
            assert_eq!((go, &g.list), (wo, &w.list), "rank {r}, record {i}");
        }
    }
}

/// The ParRes Kernels' transpose: per phase k = 1 .. P-1, a receive from rank + k and a send
/// to rank - k, each tagged with the phase, then a wait for each; blocks shrink as 1/P^2.
#[test]
fn phases_tagged_with_their_number() {
    let make = |p: u32| {
        program("prk", p, &|p, me| {
            let bytes = (1 << 24) / (p as u64 * p as u64);
            let mut v = Vec::new();
            for it in 0..2 {
                for phase in 1..p {
                    let (from, to) = ((me + phase) % p, (me + p - phase) % p);
                    let tag = phase as i32;
                    v.push(Record::new(1000, 0, Op::Irecv { peer: from as i32, tag, bytes, comm: COMM_WORLD, req: 1 }));
                    let op =
                        Op::Isend { mode: SendMode::Standard, peer: to as i32, tag, bytes, comm: COMM_WORLD, req: 2 };
                    v.push(Record::new(1000, 0, op));
                    let wait = |list: Vec<i64>| Record {
                        gap_ns: 0,
                        dur_ns: 0,
                        op: Op::Wait { func: WaitFn::Wait, count: 1 },
                        list,
                    };
                    v.push(wait(vec![1, from as i64, tag as i64, bytes as i64]));
                    v.push(wait(vec![2, NO_RANK as i64, 0, 0]));
                }
                v.push(Record::new(500, 0, coll(Coll::Barrier, 0, NO_RANK, it + 1)));
            }
            v
        })
    };
    check("phases tagged with their number", &make, 32, "1-D line");
}

/// The halo's traces as Open MPI wrote them: `mpi_version` names the library, and the
/// collectives were expanded (by the tracer, with that library's algorithms).
fn under(h: &Halo, p: u32, mpi_version: &str) -> Trace {
    let mut t = h.trace(p);
    t.meta.push(("mpi_version".to_string(), mpi_version.to_string()));
    t.expanded = true;
    t
}

const OPEN_MPI: &str = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022";

#[test]
fn collectives_at_the_target_follow_the_traces_library() {
    use psins_collectives::{CollArgs, Library, Step, Thresholds};
    let h = Halo {
        shape: Shape { ndims: 1, order: Order::RowMajor, periodic: 1 },
        null_edges: false,
        iters: 2,
        bytes: |_, _, _| 4096,
        burst: |_| 20_000,
    };
    let s = series(vec![under(&h, 4, OPEN_MPI), under(&h, 8, OPEN_MPI), under(&h, 16, OPEN_MPI)]);
    let ex = extrapolated(&s, 48);
    assert_eq!(ex.library, Library::OpenMpi);
    assert!(ex.report(&s).contains("collectives expanded with Open MPI 4.1.4's algorithms"), "{}", ex.report(&s));
    let mut differs = 0;
    for me in [0, 1, 47] {
        let mut recs = Vec::new();
        ex.rank(me, &mut recs).unwrap();
        let mut i = 0;
        while i < recs.len() {
            let op = recs[i].op;
            i += 1;
            if !matches!(op, Op::Coll { .. }) {
                continue;
            }
            let got: Vec<Step> = recs[i..].iter().map_while(|r| Step::from_op(&r.op)).collect();
            i += got.len();
            let args = CollArgs::from_op(&op, 48, me, &[]).unwrap();
            let (mut ompi, mut mpich) = (Vec::new(), Vec::new());
            Library::OpenMpi.expand(&args, &Thresholds::default(), &mut ompi).unwrap();
            Library::Mpich.expand(&args, &Thresholds::default(), &mut mpich).unwrap();
            assert_eq!(got, ompi, "rank {me}: {op:?}");
            differs += usize::from(ompi != mpich);
        }
    }
    assert!(differs > 0, "no collective of the test tells the libraries apart");
}

#[test]
fn refuses_a_series_traced_under_two_libraries() {
    let h = Halo { shape: ROW2, null_edges: false, iters: 1, bytes: |_, _, _| 64, burst: |_| 1 };
    let mpich = "MPICH Version:      4.0.2";
    let m =
        refusal(Series::new(vec![under(&h, 4, mpich), under(&h, 8, OPEN_MPI), under(&h, 16, mpich)], Scaling::Unknown));
    assert!(
        m.contains("halo-4.psins ran under MPICH Version:      4.0.2 but halo-8.psins under Open MPI v4.1.4")
            && m.contains("under one MPI library"),
        "{m}"
    );
}

/// NPB FT's 1-D layout: each rank splits the world by its two layout coordinates, and the
/// dimension the layout leaves unused gives a communicator of the caller alone (its
/// collectives send nothing) at every rank count; the transposes run on the other, which holds
/// every rank.
#[test]
fn a_communicator_of_one_rank() {
    use psins_extrapolate::comms;
    let line = Shape { ndims: 1, order: Order::RowMajor, periodic: 0 };
    let make = |p: u32| {
        let g = line.at(p);
        let mut defs = Vec::new();
        let tasks = (0..p)
            .map(|me| {
                let mut v = vec![Record::new(0, 0, Op::Init { thread_level: 0 })];
                v.extend(split(&g, me, &[0, 1], &mut defs));
                let (alone, all) = (comms::global_id(&g, 0, me), comms::global_id(&g, 1, me));
                let mut instance = 0;
                for _ in 0..3 {
                    for (c, what, bytes) in
                        [(alone, Coll::Alltoall, 1 << 20), (all, Coll::Alltoall, (1 << 24) / (p * p) as u64)]
                    {
                        instance += 1;
                        v.push(Record::new(40_000, 0, coll_on(what, c, bytes, instance)));
                    }
                }
                v.push(Record::new(100, 0, Op::Finalize));
                v
            })
            .collect();
        Trace {
            path: format!("ft-{p}.psins").into(),
            tasks,
            meta: Vec::new(),
            comms: defs,
            traced: false,
            expanded: false,
        }
    };
    check("a communicator of one rank", &make, 32, "1-D line");
    let s = series(vec![make(4), make(8), make(16)]);
    let ex = extrapolated(&s, 32);
    let defs = ex.comms();
    assert_eq!(defs.iter().filter(|d| d.members.len() == 1).count(), 32);
    assert_eq!(defs.iter().filter(|d| d.members.len() == 32).count(), 1);
}

/// A long set-up burst and many short ones before the same kind of call (an allreduce): the
/// short ones vary by half from rank to rank, the long one by 1 %. At the target each burst
/// keeps its own slot's spread, so no rank's set-up is drawn much slower than any traced one.
#[test]
fn a_long_burst_keeps_its_own_spread() {
    let make = |p: u32| {
        program("setup", p, &|_, me| {
            // A fixed pseudo-random spread per rank, the same at every rank count.
            let h = |k: u32| ((me.wrapping_mul(2_654_435_761) ^ k.wrapping_mul(40_503)) % 1000) as u64;
            let mut v = vec![Record::new(10_000_000 + 100 * h(0), 0, coll(Coll::Allreduce, 8, NO_RANK, 1))];
            for it in 0..20 {
                v.push(Record::new(5_000 + 5 * h(it + 1), 0, coll(Coll::Allreduce, 8, NO_RANK, it + 2)));
            }
            v
        })
    };
    let s = series(vec![make(4), make(8), make(16)]);
    let ex = extrapolated(&s, 64);
    let traced = |p: u32| make(p).tasks.iter().map(|t| t[1].gap_ns).collect::<Vec<_>>();
    let most = traced(16).into_iter().max().unwrap() as f64;
    for me in 0..64 {
        let mut recs = Vec::new();
        ex.rank(me, &mut recs).unwrap();
        let setup = recs[1].gap_ns as f64;
        assert!(setup < most * 1.02, "rank {me}: set-up burst {setup} ns, the traced ones at most {most} ns");
    }
}

/// HPCCG's set-up on its line of ranks: a receive from MPI_ANY_SOURCE per neighbour (two on an
/// interior rank, one at either end), a send to each, a wait per receive, which completes from
/// whichever neighbour's message came first; then iterations with named neighbours. At the
/// target every rank posts as many wildcard receives as it has neighbours, completed from them
/// in ascending rank.
#[test]
fn wildcard_receives_one_per_neighbour() {
    // `timing`: whether the traced runs' waits completed in another order than by rank.
    let make = |p: u32, timing: bool| {
        program("hpccg", p, &|p, me| {
            let nbrs: Vec<u32> = [me.checked_sub(1), Some(me + 1).filter(|&q| q < p)].into_iter().flatten().collect();
            let mut v = Vec::new();
            for (i, _) in nbrs.iter().enumerate() {
                let op = Op::Irecv { peer: ANY_SOURCE, tag: 99, bytes: 4, comm: COMM_WORLD, req: i as u32 + 1 };
                v.push(Record::new(if i == 0 { 30_000 } else { 0 }, 0, op));
            }
            for &q in &nbrs {
                let op = Op::Send { mode: SendMode::Standard, peer: q as i32, tag: 99, bytes: 4, comm: COMM_WORLD };
                v.push(Record::new(2_000, 0, op));
            }
            let mut from = nbrs.clone();
            if timing && me % 2 == 1 {
                from.reverse();
            }
            for (i, &q) in from.iter().enumerate() {
                v.push(Record {
                    gap_ns: 500,
                    dur_ns: 0,
                    op: Op::Wait { func: WaitFn::Wait, count: 1 },
                    list: vec![i as i64 + 1, q as i64, 99, 4],
                });
            }
            for it in 0..3 {
                for &q in &nbrs {
                    let mut rec = sendrecv(q, q, 8192);
                    rec.gap_ns = if it == 0 { 1_000 } else { 40_000 };
                    v.push(rec);
                }
                v.push(Record::new(5_000, 0, coll(Coll::Allreduce, 8, NO_RANK, it + 1)));
            }
            v
        })
    };
    let s = series(vec![make(4, true), make(8, true), make(16, true)]);
    let t = find_template(&s).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.shape.to_string(), "1-D line");
    let ex = extrapolate(&s, t, &Options { ranks: 32, scaling: Scaling::Unknown, tolerance: 0.05 })
        .unwrap_or_else(|e| panic!("{e}"));
    let truth = make(32, false);
    for r in 0..32 {
        let mut got = Vec::new();
        ex.rank(r, &mut got).unwrap();
        let want = &truth.tasks[r as usize];
        assert_eq!(got.len(), want.len(), "rank {r}: record counts");
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert_eq!((g.op, &g.list), (w.op, &w.list), "rank {r}, record {i}");
        }
    }
}

/// NPB LU's exchanges on a 2-D grid in column-major order (its rank = column * xdim + row):
/// a wavefront of blocking receives from the north and west and sends to the south and east,
/// each message one line of the block less the global boundary's point on either face
/// across it; then, on the ranks of the first and last rows only (the faces where the surface
/// integral lies), an exchange of that row's two lines with their ghost points (`2*(ny+2)`
/// doubles) to the west, which only the law c/D + h through the series' two extents gives.
fn lu(p: u32) -> Trace {
    let col = Shape { ndims: 2, order: Order::ColumnMajor, periodic: 0 };
    let g = col.at(p);
    program("lu", p, &|_, me| {
        let c = g.coords(me);
        let step = |o: [i32; 3]| g.apply(me, o).map(|x| x as i32);
        // Points of a line along dimension d (32 in all) on this rank, boundary points out.
        let line = |d: usize| 32 / g.dims[d] as u64 - (c[d] == 0) as u64 - (c[d] + 1 == g.dims[d]) as u64;
        let mut v = Vec::new();
        for it in 0..3 {
            let mut burst = 40_000;
            for (o, d, tag) in [([-1, 0, 0], 1, 1), ([0, -1, 0], 0, 2)] {
                if let Some(peer) = step(o) {
                    v.push(Record::new(burst, 0, Op::Recv { peer, tag, bytes: 40 * line(d), comm: 0 }));
                    burst = 0;
                }
            }
            for (o, d, tag) in [([1, 0, 0], 1, 1), ([0, 1, 0], 0, 2)] {
                if let Some(peer) = step(o) {
                    let op = Op::Send { mode: SendMode::Standard, peer, tag, bytes: 40 * line(d), comm: 0 };
                    v.push(Record::new(burst, 0, op));
                    burst = 0;
                }
            }
            v.push(Record::new(burst, 0, coll(Coll::Allreduce, 40, NO_RANK, it + 1)));
        }
        // The integral's computation comes before its exchange, on the face ranks only: a rank
        // on the face without an east neighbour computes it before its send west.
        if c[0] == 0 || c[0] + 1 == g.dims[0] {
            let mut burst = 5000;
            let bytes = 16 * (32 / g.dims[1] as u64 + 2);
            if let Some(peer) = step([0, 1, 0]) {
                v.push(Record::new(std::mem::take(&mut burst), 0, Op::Irecv { peer, tag: 7, bytes, comm: 0, req: 1 }));
                let list = vec![1, peer as i64, 7, bytes as i64];
                v.push(Record { gap_ns: 0, dur_ns: 0, op: Op::Wait { func: WaitFn::Wait, count: 1 }, list });
            }
            if let Some(peer) = step([0, -1, 0]) {
                let op = Op::Send { mode: SendMode::Standard, peer, tag: 7, bytes, comm: 0 };
                v.push(Record::new(std::mem::take(&mut burst), 0, op));
            }
        }
        v.push(Record::new(1000, 0, coll(Coll::Allreduce, 8, NO_RANK, 4)));
        v
    })
}

#[test]
fn sizes_that_lose_the_boundary_on_the_faces_and_exchanges_on_faces_only() {
    for target in [32, 64] {
        check_scaled("lu", &lu, &[4, 8, 16], Scaling::Strong, target, "2-D grid, column-major");
    }
    // Without the user's word, the law through two extents is not taken: refused, naming it.
    let s = series([4, 8, 16].iter().map(|&p| lu(p)).collect());
    let t = find_template(&s).unwrap_or_else(|e| panic!("{e}"));
    let e = refusal(extrapolate(&s, t, &Options { ranks: 64, scaling: Scaling::Unknown, tolerance: 0.05 }));
    assert!(e.contains("irecv (0,+1): bytes follows no law") && e.contains("288 at 4, 288 at 8, 160 at 16"), "{e}");
    // The report says what each face adds.
    let strong = Series::new([4, 8, 16].iter().map(|&p| lu(p)).collect(), Scaling::Strong).unwrap();
    let t = find_template(&strong).unwrap_or_else(|e| panic!("{e}"));
    let ex = extrapolate(&strong, t, &Options { ranks: 64, scaling: Scaling::Strong, tolerance: 0.05 })
        .unwrap_or_else(|e| panic!("{e}"));
    let report = ex.report(&strong);
    assert!(report.contains("-40 on its high face") && report.contains("= 1280/D1"), "{report}");
}

/// Sizes that differ between ranks in a way the faces of the grid do not explain are refused,
/// naming the trace, the rank and the record: here the low face of dimension 0 sends more
/// than its neighbour inside only at 16 ranks, which would leave the inside a negative size.
#[test]
fn refuses_sizes_the_faces_do_not_explain() {
    let make = |p: u32| {
        let g = ROW2.at(p);
        program("faces", p, &|p, me| {
            let c = g.coords(me);
            let mut v = Vec::new();
            if let Some(peer) = g.apply(me, [1, 0, 0]) {
                let bytes = if p == 16 && c[0] == 0 { 1400 } else { 500 };
                v.push(Record::new(
                    1000,
                    0,
                    Op::Send { mode: SendMode::Standard, peer: peer as i32, tag: 1, bytes, comm: 0 },
                ));
            }
            if let Some(peer) = g.apply(me, [-1, 0, 0]) {
                let bytes = if p == 16 && c[0] == 1 { 1400 } else { 500 };
                v.push(Record::new(1000, 0, Op::Recv { peer: peer as i32, tag: 1, bytes, comm: 0 }));
            }
            v
        })
    };
    let s = series([4, 8, 16].iter().map(|&p| make(p)).collect());
    let t = find_template(&s).unwrap_or_else(|e| panic!("{e}"));
    let e = refusal(extrapolate(&s, t, &Options { ranks: 64, scaling: Scaling::Unknown, tolerance: 0.05 }));
    assert!(e.contains("faces-") && e.contains(", record ") && e.contains("differs between ranks"), "{e}");
}

/// Bursts that grow with P (here a + b·log2 P, as on a host that shares fewer cores among more
/// ranks) are named in a note, with the steepest; constant bursts, and bursts that shrink with
/// P as a strong-scaled code's do, give none.
#[test]
fn bursts_that_grow_with_p_are_named_in_a_note() {
    let make = |p: u32, burst: fn(u32) -> u64| {
        program("bursts", p, &|p, _| {
            (0..20).map(|it| Record::new(burst(p), 0, coll(Coll::Allreduce, 8, NO_RANK, it + 1))).collect()
        })
    };
    let note = |burst: fn(u32) -> u64| {
        let s = series(vec![make(4, burst), make(8, burst), make(16, burst)]);
        extrapolated(&s, 1024).notes.into_iter().find(|n| n.contains("grow with the rank count"))
    };
    let n = note(|p| 1000 + 300 * p.ilog2() as u64).expect("a note on the growing bursts");
    assert!(
        n.starts_with("the CPU bursts before 1 kind of call grow with the rank count, the most before allreduce"),
        "{n}"
    );
    // 20 calls of 1000 + 300·4 ns at 16 ranks, 1000 + 300·10 at 1,024.
    assert!(n.contains(": 44000 ns at 16 ranks, 80000 ns at 1024"), "{n}");
    assert!(n.contains("each traced rank had a core of its own"), "{n}");
    assert_eq!(note(|_| 5_000), None);
    assert_eq!(note(|p| 64_000 / p as u64), None);
}
