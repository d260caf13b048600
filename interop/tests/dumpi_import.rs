//! psins-import --from dumpi on traces written by the real libdumpi (sst-dumpi 13; made by
//! scripts/make-dumpi-fixtures.sh): every record of the imported runs, derived by hand from
//! the apps' sources and checked against sst-dumpi's own dumpi2ascii for the times; and one
//! clear error for each kind of bad input.

use psins_formats::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(app: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dumpi").join(app)
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dumpi-import-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn import(input: &Path, out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psins-import"))
        .args(["--from", "dumpi"])
        .arg(input)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

fn import_strict(input: &Path, out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psins-import"))
        .args(["--from", "dumpi", "--strict"])
        .arg(input)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

fn imported(app: &str) -> (Vec<Vec<Record>>, String) {
    // A directory of its own per call: tests run in parallel and may import the same fixture.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = scratch(&format!("{app}-{n}")).join("x.psins");
    let o = import(&fixture(app), &out);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    let r = TraceReader::open(&out).unwrap();
    let tasks = (0..r.tasks())
        .map(|t| {
            let mut c = r.task(t, 0).unwrap();
            let (mut v, mut rec) = (Vec::new(), Record::default());
            while c.next(&mut rec).unwrap() {
                v.push(rec.clone());
            }
            v
        })
        .collect();
    (tasks, err)
}

const W: u32 = COMM_WORLD;

#[test]
fn pingpong_has_every_message_and_the_wall_clock_times() {
    let (t, err) = imported("pingpong");
    // `pingpong 1` at 2 ranks: one round trip at each of 6 sizes, tag 1.
    let sizes = [0u64, 8, 1024, 65536, 1 << 20, 4 << 20];
    for (r, recs) in t.iter().enumerate() {
        let peer = 1 - r as i32;
        let mut want = vec![Op::Init { thread_level: 0 }];
        for &bytes in &sizes {
            let send = Op::Send { mode: SendMode::Standard, peer, tag: 1, bytes, comm: W };
            let recv = Op::Recv { peer, tag: 1, bytes, comm: W };
            want.extend(if r == 0 { [send, recv] } else { [recv, send] });
        }
        want.push(Op::Finalize);
        let ops: Vec<Op> = recs.iter().map(|r| r.op).collect();
        assert_eq!(ops, want, "rank {r}");
    }
    // dumpi2ascii of pingpong-0001.bin: MPI_Init 2600.844419160 to .844420172, MPI_Recv
    // .844469546 to .844476466 (MPI_Comm_rank, Comm_size, Wtime between fold into the gap).
    assert_eq!((t[1][0].gap_ns, t[1][0].dur_ns), (0, 1012));
    assert_eq!((t[1][1].gap_ns, t[1][1].dur_ns), (49374, 6920));
    // Each rank: Comm_rank, Comm_size, 12 Wtime (2 per size), 6 Get_count (the app's count).
    assert!(
        err.contains("40 calls without communication folded into computation (MPI_Comm_rank 2, MPI_Comm_size 2, MPI_Get_count 12, MPI_Wtime 24)"),
        "{err}"
    );
}

#[test]
fn ring_requests_complete_with_their_statuses() {
    let (t, _) = imported("ring");
    // `ring 3 4` at 4 ranks: per iteration Irecv from the left, Isend to the right (16 B,
    // tag 7), Waitall; the receive completes from the left with 16 B.
    for (r, recs) in t.iter().enumerate() {
        let (left, right) = ((r as i32 + 3) % 4, (r as i32 + 1) % 4);
        assert_eq!(recs.len(), 11, "rank {r}");
        assert_eq!(recs[0].op, Op::Init { thread_level: 0 });
        for i in 0..3 {
            let it = &recs[1 + 3 * i..4 + 3 * i];
            assert_eq!(it[0].op, Op::Irecv { peer: left, tag: 7, bytes: 16, comm: W, req: 1 });
            assert_eq!(
                it[1].op,
                Op::Isend { mode: SendMode::Standard, peer: right, tag: 7, bytes: 16, comm: W, req: 2 }
            );
            assert_eq!(it[2].op, Op::Wait { func: WaitFn::Waitall, count: 2 });
            assert_eq!(it[2].list, vec![1, left as i64, 7, 16, 2, NO_RANK as i64, 7, 16]);
        }
        assert_eq!(recs[10].op, Op::Finalize);
    }
}

#[test]
fn stencil_sends_sharing_one_dumpi_handle_complete_in_order() {
    let (t, _) = imported("stencil2d");
    // `stencil2d 2 8` at 4 ranks: a 2x2 grid, two neighbours each, 8 doubles (64 B) per halo,
    // tag 3; then an MPI_Allreduce of one double with MPI_SUM. MPICH gives both eager sends
    // the same request, so dumpi writes one handle twice: they complete in posting order.
    let nbrs = [[2, 1], [3, 0], [0, 3], [1, 2]];
    let sum = CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE;
    for (r, recs) in t.iter().enumerate() {
        assert_eq!(recs.len(), 14, "rank {r}");
        for i in 0..2 {
            let it = &recs[1 + 6 * i..7 + 6 * i];
            let [a, b] = nbrs[r];
            assert_eq!(it[0].op, Op::Irecv { peer: a, tag: 3, bytes: 64, comm: W, req: 1 });
            assert_eq!(it[1].op, Op::Irecv { peer: b, tag: 3, bytes: 64, comm: W, req: 2 });
            assert_eq!(it[2].op, Op::Isend { mode: SendMode::Standard, peer: a, tag: 3, bytes: 64, comm: W, req: 3 });
            assert_eq!(it[3].op, Op::Isend { mode: SendMode::Standard, peer: b, tag: 3, bytes: 64, comm: W, req: 4 });
            assert_eq!(it[4].op, Op::Wait { func: WaitFn::Waitall, count: 4 });
            let n = NO_RANK as i64;
            assert_eq!(it[4].list, vec![1, a as i64, 3, 64, 2, b as i64, 3, 64, 3, n, 3, 64, 4, n, 3, 64]);
            let ar = Op::Coll {
                coll: Coll::Allreduce,
                comm: W,
                root: NO_RANK,
                send_bytes: 8,
                recv_bytes: 8,
                count: 1,
                flags: sum,
                req: NO_REQUEST,
                instance: i as u32 + 1,
            };
            assert_eq!(it[5].op, ar);
        }
    }
}

#[test]
fn is_collectives_carry_their_counts() {
    let (t, _) = imported("is");
    // `is 1 64` at 4 ranks: MPI_Alltoall of one int, MPI_Alltoallv of the keys (ints), an
    // MPI_Allreduce of one long. The key counts are the app's random buckets: each rank
    // sends its 64 keys and the receive counts are the others' send counts to it.
    let mut sends = Vec::new();
    for (r, recs) in t.iter().enumerate() {
        assert_eq!(recs.len(), 5, "rank {r}");
        let Op::Coll { coll: Coll::Alltoall, send_bytes: 4, recv_bytes: 4, instance: 1, .. } = recs[1].op else {
            panic!("rank {r}: {:?}", recs[1].op)
        };
        let Op::Coll { coll: Coll::Alltoallv, send_bytes, recv_bytes, instance: 2, .. } = recs[2].op else {
            panic!("rank {r}: {:?}", recs[2].op)
        };
        assert_eq!(send_bytes, 64 * 4, "rank {r}");
        let l = &recs[2].list;
        assert_eq!(l.len(), 8);
        assert_eq!(l[..4].iter().sum::<i64>() as u64, send_bytes);
        assert_eq!(l[4..].iter().sum::<i64>() as u64, recv_bytes);
        sends.push(l[..4].to_vec());
        let Op::Coll { coll: Coll::Allreduce, send_bytes: 8, count: 1, instance: 3, .. } = recs[3].op else {
            panic!("rank {r}: {:?}", recs[3].op)
        };
    }
    for (r, recs) in t.iter().enumerate() {
        let from: Vec<i64> = (0..4).map(|s| sends[s][r]).collect();
        assert_eq!(recs[2].list[4..].to_vec(), from, "rank {r} receives what the others send it");
    }
}

/// The fixture `app` copied into a scratch directory, to damage.
fn copy(app: &str, name: &str) -> PathBuf {
    let dir = scratch(name);
    for e in std::fs::read_dir(fixture(app)).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
    }
    dir
}

fn fails(input: &Path, want: &[&str]) {
    let o = import(input, &input.join("x.psins"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    for w in want {
        assert!(err.contains(w), "{w:?} not in {err}");
    }
}

#[test]
fn bad_input_is_one_error_naming_file_rank_and_offset() {
    // A rank file missing.
    let d = copy("ring", "missing");
    std::fs::remove_file(d.join("ring-0002.bin")).unwrap();
    fails(&d, &["ring-0002.bin", "rank 2's file is missing"]);
    // A numprocs far beyond the files (a damaged .meta): the first missing file, not an
    // allocation for 4e9 ranks that aborts the process (exit status None).
    let d = copy("ring", "numprocs");
    let meta = std::fs::read_to_string(d.join("ring.meta")).unwrap();
    let lines: Vec<String> = meta
        .lines()
        .map(|l| if l.starts_with("numprocs=") { "numprocs=4000000000".into() } else { l.to_string() })
        .collect();
    std::fs::write(d.join("ring.meta"), lines.join("\n") + "\n").unwrap();
    fails(&d, &["ring-0004.bin", "rank 4's file is missing", "names 4000000000 ranks"]);
    // No .meta, or two.
    let d = scratch("nometa");
    fails(&d, &["no .meta file"]);
    let d = copy("ring", "twometa");
    std::fs::write(d.join("other.meta"), "numprocs=1\nfileprefix=ring\n").unwrap();
    fails(&d, &["2 .meta files"]);
    // A cut file: no index at its end.
    let d = copy("ring", "cut");
    let f = d.join("ring-0001.bin");
    let b = std::fs::read(&f).unwrap();
    std::fs::write(&f, &b[..b.len() - 10]).unwrap();
    fails(&d, &["ring-0001.bin: rank 1", "no DUMPI index"]);
    // Not a DUMPI file.
    let d = copy("ring", "magic");
    std::fs::write(d.join("ring-0003.bin"), b"not a dumpi trace at all, but long enough for an index to be looked for")
        .unwrap();
    fails(&d, &["ring-0003.bin: rank 3", "not a DUMPI trace file"]);
}

/// Peers are ranks of the call's communicator: a send to rank 3 on a two-rank split of a
/// four-rank world passed the world's bound and entered the trace as it was.
#[test]
fn a_peer_outside_its_communicator_is_one_error() {
    // Rank 0 of cg: its first MPI_Sendrecv (label 33), on its row communicator {0, 1} (dumpi
    // handle 4), sends to rank 1; made rank 3. The fields follow the label, the mask, the
    // thread id and the CPU and wall times.
    let d = copy("cg", "subcomm-peer");
    let f = d.join("cg-0000.bin");
    let mut b = std::fs::read(&f).unwrap();
    let be = |b: &[u8], at: usize| i32::from_be_bytes(b[at..at + 4].try_into().unwrap());
    let (at, dest) = (16..b.len() - 40)
        .filter(|&i| b[i] == 0 && b[i + 1] == 33 && b[i + 2] == 0x4f)
        .map(|i| (i, i + 3 + 2 + 12 + 12 + 6))
        .find(|&(_, dest)| be(&b, dest) == 1 && b[dest + 22..dest + 24] == [0, 4])
        .expect("a Sendrecv to rank 1 on communicator 4");
    b[dest..dest + 4].copy_from_slice(&3i32.to_be_bytes());
    std::fs::write(&f, &b).unwrap();
    let offset = format!("byte offset {at}");
    fails(&d, &["cg-0000.bin: rank 0, record", &offset, "MPI_Sendrecv: peer 3 is outside communicator 4 (size 2)"]);
}

/// Rank file `f`'s `nth` record of `label`: its 32-bit field `at` bytes past the record's
/// label, mask, thread id and two 12-byte times, checked to be `was`, made `now`.
fn set_field(f: &Path, label: u16, nth: usize, at: usize, was: i32, now: i32) {
    let mut b = std::fs::read(f).unwrap();
    let p = record_at(&b, label, nth) + 3 + 2 + 12 + 12 + at;
    assert_eq!(b[p..p + 4], was.to_be_bytes(), "{}: label {label}, field at {at}", f.display());
    b[p..p + 4].copy_from_slice(&now.to_be_bytes());
    std::fs::write(f, &b).unwrap();
}

/// The first record of `label` in `b` whose mask has thread id, CPU and wall times and
/// statuses (libdumpi's default): the offset of its label.
fn record_at(b: &[u8], label: u16, nth: usize) -> usize {
    let l = label.to_be_bytes();
    (16..b.len() - 3).filter(|&i| b[i..i + 2] == l && b[i + 2] == 0x4f).nth(nth).expect("the record")
}

#[test]
fn a_label_outside_the_table_or_refused_names_its_record_and_offset() {
    // Rank 0 of ring: the first MPI_Irecv's label (12) becomes 300, which no dumpi has; the
    // dumpi calls before it: MPI_Init, MPI_Comm_rank, MPI_Comm_size.
    let d = copy("ring", "unknown");
    let f = d.join("ring-0000.bin");
    let mut b = std::fs::read(&f).unwrap();
    let at = record_at(&b, 12, 0);
    b[at..at + 2].copy_from_slice(&300u16.to_be_bytes());
    std::fs::write(&f, &b).unwrap();
    let want = ["ring-0000.bin: rank 0, record 1", &format!("byte offset {at}"), "dumpi call 3: function label 300"];
    fails(&d, &want);
    // MPI_Cancel (24) of a request nothing posted: its request is the Irecv's count (4).
    b[at..at + 2].copy_from_slice(&24u16.to_be_bytes());
    std::fs::write(&f, &b).unwrap();
    fails(&d, &["record 1", "dumpi call 3, MPI_Cancel: request 4 is not active"]);
}

/// The dumpi function names a psins record of `op` stands for.
fn mpi_name(op: &Op) -> &'static str {
    match op {
        Op::Init { .. } => "MPI_Init",
        Op::Finalize => "MPI_Finalize",
        Op::Sendrecv { .. } => "MPI_Sendrecv",
        Op::Coll { coll: Coll::Allreduce, .. } => "MPI_Allreduce",
        Op::CommFree { .. } => "MPI_Comm_free",
        Op::CommCreate { func: CommFn::Create, .. } => "MPI_Comm_create",
        Op::CommCreate { func: CommFn::CartCreate, .. } => "MPI_Cart_create",
        Op::CommCreate { func: CommFn::CartSub, .. } => "MPI_Cart_sub",
        Op::CommCreate { func: CommFn::GraphCreate, .. } => "MPI_Graph_create",
        op => panic!("{op:?}"),
    }
}

/// What `groups` (mpi-test-apps/groups.c) printed at 4 ranks when the fixture was made: its
/// own count of each MPI call per rank.
const GROUPS_COUNTS: [&str; 4] = [
    "MPI_Allreduce=5 MPI_Cart_create=2 MPI_Cart_sub=1 MPI_Comm_create=2 MPI_Comm_free=6 MPI_Comm_group=1 MPI_Comm_rank=7 MPI_Comm_size=7 MPI_Dims_create=1 MPI_Finalize=1 MPI_Get_count=6 MPI_Graph_create=1 MPI_Group_difference=1 MPI_Group_excl=1 MPI_Group_free=6 MPI_Group_incl=1 MPI_Group_range_incl=1 MPI_Group_translate_ranks=1 MPI_Group_union=1 MPI_Init=1 MPI_Sendrecv=6",
    "MPI_Allreduce=4 MPI_Cart_create=2 MPI_Cart_sub=1 MPI_Comm_create=2 MPI_Comm_free=5 MPI_Comm_group=1 MPI_Comm_rank=6 MPI_Comm_size=6 MPI_Dims_create=1 MPI_Finalize=1 MPI_Get_count=5 MPI_Graph_create=1 MPI_Group_difference=1 MPI_Group_excl=1 MPI_Group_free=6 MPI_Group_incl=1 MPI_Group_range_incl=1 MPI_Group_translate_ranks=1 MPI_Group_union=1 MPI_Init=1 MPI_Sendrecv=5",
    "MPI_Allreduce=5 MPI_Cart_create=2 MPI_Cart_sub=1 MPI_Comm_create=2 MPI_Comm_free=6 MPI_Comm_group=1 MPI_Comm_rank=7 MPI_Comm_size=7 MPI_Dims_create=1 MPI_Finalize=1 MPI_Get_count=6 MPI_Graph_create=1 MPI_Group_difference=1 MPI_Group_excl=1 MPI_Group_free=6 MPI_Group_incl=1 MPI_Group_range_incl=1 MPI_Group_translate_ranks=1 MPI_Group_union=1 MPI_Init=1 MPI_Sendrecv=6",
    "MPI_Allreduce=3 MPI_Cart_create=2 MPI_Cart_sub=1 MPI_Comm_create=2 MPI_Comm_free=3 MPI_Comm_group=1 MPI_Comm_rank=4 MPI_Comm_size=4 MPI_Dims_create=1 MPI_Finalize=1 MPI_Get_count=3 MPI_Graph_create=1 MPI_Group_difference=1 MPI_Group_excl=1 MPI_Group_free=6 MPI_Group_incl=1 MPI_Group_range_incl=1 MPI_Group_translate_ranks=1 MPI_Group_union=1 MPI_Init=1 MPI_Sendrecv=3",
];

#[test]
fn communicators_from_groups_and_cartesian_grids() {
    // `groups` at 4 ranks. Groups: the world's evens by MPI_Group_incl, odds by
    // MPI_Group_excl, their union (0 2 1 3), the evens again by MPI_Group_range_incl; MPI_Comm_create
    // from the range (odd ranks get MPI_COMM_NULL: no communicator, time only) and from the
    // union. Then a 2x2 MPI_Cart_create, its rows by MPI_Cart_sub, a line of ranks 0..2
    // (rank 3 gets MPI_COMM_NULL) and an MPI_Graph_create ring of the same ranks (rank 3 again
    // MPI_COMM_NULL). Each communicator: a Sendrecv ring of its ranks and (not the line) an
    // Allreduce, then freed.
    let (t, err) = imported("groups");
    for (r, recs) in t.iter().enumerate() {
        // Made of the world, but the rows of the grid.
        let mut grid = None;
        let made: Vec<(CommFn, &[i64])> = recs
            .iter()
            .filter_map(|x| match x.op {
                Op::CommCreate { func, parent, comm, split: 0 } => {
                    let want = if func == CommFn::CartSub { grid.unwrap() } else { W };
                    assert_eq!(parent, want, "rank {r}: {:?}", x.op);
                    grid = grid.or((func == CommFn::CartCreate).then_some(comm));
                    Some((func, &x.list[..]))
                }
                _ => None,
            })
            .collect();
        let row = 2 * (r as i64 / 2);
        let row = [row, row + 1];
        let mut want: Vec<(CommFn, &[i64])> = Vec::new();
        if r % 2 == 0 {
            want.push((CommFn::Create, &[0, 2]));
        }
        want.extend([
            (CommFn::Create, &[0, 2, 1, 3][..]),
            (CommFn::CartCreate, &[0, 1, 2, 3][..]),
            (CommFn::CartSub, &row[..]),
        ]);
        if r < 3 {
            want.extend([(CommFn::CartCreate, &[0, 1, 2][..]), (CommFn::GraphCreate, &[0, 1, 2][..])]);
        }
        assert_eq!(made, want, "rank {r}");
        // Each ring's peers are communicator-local: right and left of this rank's place.
        let mut members: Vec<&[i64]> = Vec::new();
        for x in recs {
            match x.op {
                Op::CommCreate { .. } => members.push(&x.list),
                Op::Sendrecv { peer, src, .. } => {
                    let m = members.last().unwrap();
                    let (i, n) = (m.iter().position(|&w| w == r as i64).unwrap() as i32, m.len() as i32);
                    assert_eq!((peer, src), ((i + 1) % n, (i + n - 1) % n), "rank {r} on {m:?}");
                }
                _ => {}
            }
        }
    }
    // Per rank, the records and the folded calls are every call the app counted.
    let trace = psins_interop::dumpi::Trace::open(&fixture("groups")).unwrap();
    let opts = psins_consolidate::run::Options { compress: None, repeats: true, allow_partial: false, quiet: true };
    let out = scratch("groups-counts").join("x.psins");
    psins_consolidate::run::consolidate(&trace.ranks, &[], &opts, &out, &indicatif::ProgressBar::hidden())
        .unwrap_or_else(|_| panic!("consolidation"));
    for (r, recs) in t.iter().enumerate() {
        let mut got = std::collections::BTreeMap::<String, u64>::new();
        for x in recs {
            *got.entry(mpi_name(&x.op).to_string()).or_default() += 1;
        }
        for (f, n) in trace.folded_on(r as u32) {
            *got.entry(f).or_default() += n;
        }
        let want: std::collections::BTreeMap<String, u64> = GROUPS_COUNTS[r]
            .split(' ')
            .map(|kv| kv.split_once('=').unwrap())
            .map(|(k, v)| (k.to_string(), v.parse().unwrap()))
            .collect();
        assert_eq!(got, want, "rank {r}");
    }
    assert!(err.contains("MPI_Comm_group 4, "), "{err}");
    assert!(err.contains("MPI_Group_incl 4, MPI_Group_range_incl 4, MPI_Group_translate_ranks 4"), "{err}");
    assert!(!err.contains("does not replay"), "{err}");
}

#[test]
fn a_graph_larger_than_its_communicator_is_one_error() {
    // Rank 0 of groups: MPI_Graph_create's nodes (after the label, mask, thread id, times,
    // numedges and the old communicator) made 9, of a 4-rank world.
    let d = copy("groups", "graph-nodes");
    set_field(&d.join("groups-0000.bin"), 101, 0, 4 + 2, 3, 9);
    fails(&d, &["groups-0000.bin: rank 0, record", "MPI_Graph_create: a graph of 9 ranks on communicator"]);
}

#[test]
fn intercommunicators_from_two_groups_of_a_split() {
    // `intercomm` at 4 ranks: the world split into {0, 3} and, in reverse world order, {2, 1};
    // MPI_Intercomm_create between them (leaders world 0 and 2), its MPI_Comm_dup, and
    // MPI_Intercomm_merge with group 1 high. Each rank's intercommunicator lists its own group
    // then the other, and says how many are its own; the merge puts group 0 first.
    let (t, _) = imported("intercomm");
    for (r, recs) in t.iter().enumerate() {
        let (mine, theirs): (&[i64], &[i64]) = if r % 3 == 0 { (&[0, 3], &[2, 1]) } else { (&[2, 1], &[0, 3]) };
        let made: Vec<(CommFn, u32, Vec<i64>)> = recs
            .iter()
            .filter_map(|x| match x.op {
                Op::CommCreate { func, split, .. } => Some((func, split, x.list.clone())),
                _ => None,
            })
            .collect();
        let both = [mine, theirs].concat();
        let want = vec![
            (CommFn::Split, 0, mine.to_vec()),
            (CommFn::IntercommCreate, 2, both.clone()),
            (CommFn::Dup, 2, both),
            (CommFn::IntercommMerge, 0, vec![0, 3, 2, 1]),
        ];
        assert_eq!(made, want, "rank {r}");
        // Point-to-point peers on the intercommunicator are ranks of the other group.
        for x in recs {
            if let Op::Isend { peer, comm, .. } = x.op {
                assert!(comm > 1 && (0..2).contains(&peer), "rank {r}: {:?}", x.op);
            }
        }
    }
}

#[test]
fn an_intercommunicator_whose_groups_are_not_a_split_is_one_error() {
    // Rank 0 of intercomm: MPI_Intercomm_create's local communicator (its first field, after
    // the label, mask, thread id and times) made MPI_COMM_WORLD (dumpi handle 2).
    let d = copy("intercomm", "inter-world");
    let f = d.join("intercomm-0000.bin");
    let mut b = std::fs::read(&f).unwrap();
    let local = record_at(&b, 91, 0) + 3 + 2 + 12 + 12;
    b[local..local + 2].copy_from_slice(&2u16.to_be_bytes());
    std::fs::write(&f, &b).unwrap();
    fails(
        &d,
        &[
            "intercomm-0000.bin: rank 0, record",
            "MPI_Intercomm_create: the local communicator 2 was not made by MPI_Comm_split",
        ],
    );

    // Both groups passing high = 0 to MPI_Intercomm_merge (92): MPI orders them itself, which
    // the records do not say; group 1's ranks put their own group first, and the rank the
    // program asked for on the merged communicator contradicts it.
    let d = copy("intercomm", "merge-tie");
    for r in [1, 2] {
        set_field(&d.join(format!("intercomm-000{r}.bin")), 92, 0, 2, 1, 0);
    }
    fails(&d, &["intercomm-0001.bin: rank 1, record", "MPI_Comm_rank: gives rank 3 on communicator"]);
}

#[test]
fn a_group_naming_a_rank_outside_it_is_one_error() {
    // Rank 0 of groups: MPI_Group_incl of the world's evens (ranks 0 and 2): group, count,
    // the ranks' count and the ranks, after the label, mask, thread id and times. Rank 2
    // made 7, which a 4-rank group does not have.
    let d = copy("groups", "group-rank");
    let f = d.join("groups-0000.bin");
    let mut b = std::fs::read(&f).unwrap();
    let at = record_at(&b, 76, 0);
    let ranks = at + 3 + 2 + 12 + 12 + 2 + 4 + 4;
    assert_eq!(b[ranks..ranks + 8], [0, 0, 0, 0, 0, 0, 0, 2]);
    b[ranks + 7] = 7;
    std::fs::write(&f, &b).unwrap();
    let offset = format!("byte offset {at}");
    fails(&d, &["groups-0000.bin: rank 0, record 1", &offset, "MPI_Group_incl: rank 7 is outside group"]);
}

#[test]
fn a_communicator_used_before_its_creation_is_one_error() {
    // Rank 1 of groups: its first MPI_Sendrecv is on the union's communicator; its handle
    // (the last 2 bytes before the status) made one no call created.
    let d = copy("groups", "unmade-comm");
    let f = d.join("groups-0001.bin");
    let mut b = std::fs::read(&f).unwrap();
    let at = record_at(&b, 33, 0);
    // sendcount, sendtype, dest, sendtag, recvcount, recvtype, source, recvtag: 28 bytes.
    let comm = at + 3 + 2 + 12 + 12 + 28;
    assert!(b[comm] == 0 && b[comm + 1] > 3, "a communicator handle: {:?}", &b[comm..comm + 2]);
    b[comm + 1] = 60;
    std::fs::write(&f, &b).unwrap();
    fails(&d, &["groups-0001.bin: rank 1, record 2", "MPI_Sendrecv: communicator 60 is used before its creation"]);
}

#[test]
fn persistent_requests_and_probes() {
    let (t, _) = imported("requests");
    // `requests 64 1` at 4 ranks, a ring: 64 ints (256 B) per message. Persistent requests
    // (tag 1): Recv_init from the left, Send_init to the right, three rounds of Startall and
    // Waitall, one more with two Starts and two Waitanys, then both freed. Later MPI_Probe
    // (tag 8) of the left's 8 + left ints, and an MPI_Iprobe loop (tag 9, any source) until it
    // finds the left's message.
    let (b, f) = (ProbeFlags::BLOCKING, ProbeFlags::FOUND);
    for (r, recs) in t.iter().enumerate() {
        let (left, right) = ((r as i32 + 3) % 4, (r as i32 + 1) % 4);
        assert_eq!(recs[1].op, Op::RecvInit { peer: left, tag: 1, bytes: 256, comm: W, req: 1 }, "rank {r}");
        let send = Op::SendInit { mode: SendMode::Standard, peer: right, tag: 1, bytes: 256, comm: W, req: 2 };
        assert_eq!(recs[2].op, send, "rank {r}");
        let done = [1, left as i64, 1, 256, 2, NO_RANK as i64, 1, 256];
        for round in 0..3 {
            let (s, w) = (&recs[3 + 2 * round], &recs[4 + 2 * round]);
            assert_eq!((&s.op, &s.list[..]), (&Op::Startall, &[1, 2][..]), "rank {r} round {round}");
            assert_eq!((&w.op, &w.list[..]), (&Op::Wait { func: WaitFn::Waitall, count: 2 }, &done[..]), "rank {r}");
        }
        assert_eq!((&recs[9].op, &recs[10].op), (&Op::Start { req: 1 }, &Op::Start { req: 2 }), "rank {r}");
        let mut any: Vec<&[i64]> = recs[11..13].iter().map(|w| &w.list[..]).collect();
        any.sort();
        assert_eq!(any, [&done[..4], &done[4..]], "rank {r}: the two Waitanys");
        assert_eq!((&recs[13].op, &recs[14].op), (&Op::RequestFree { req: 1 }, &Op::RequestFree { req: 2 }));
        let probes: Vec<&Op> = recs.iter().map(|x| &x.op).filter(|o| matches!(o, Op::Probe { .. })).collect();
        let found: Vec<&&Op> = probes.iter().filter(|o| !matches!(o, Op::Probe { flags: 0, .. })).collect();
        let probe = Op::Probe { peer: left, tag: 8, bytes: 4 * (8 + left as u64), comm: W, flags: b | f };
        let iprobe = Op::Probe { peer: left, tag: 9, bytes: 256, comm: W, flags: f };
        assert_eq!(found, [&&probe, &&iprobe], "rank {r}");
        // The Iprobe loop's misses: the posted wildcard source and tag, nothing found.
        let miss = Op::Probe { peer: ANY_SOURCE, tag: 9, bytes: 0, comm: W, flags: 0 };
        assert!(probes.iter().filter(|o| matches!(o, Op::Probe { flags: 0, .. })).all(|o| **o == miss), "rank {r}");
        // Then an MPI_Bsend (tag 14) to the right, an MPI_Sendrecv_replace (tag 15) and an
        // MPI_Irecv (tag 16) nobody matches, cancelled: its status says so, and the Cancel
        // goes just before the MPI_Wait, which completes it with no source, tag or bytes.
        let ops: Vec<&Op> = recs.iter().map(|x| &x.op).collect();
        let bsend = Op::Send { mode: SendMode::Buffered, peer: right, tag: 14, bytes: 256, comm: W };
        assert!(ops.contains(&&bsend), "rank {r}");
        let replace =
            Op::Sendrecv { peer: right, tag: 15, bytes: 256, src: left, rtag: 15, rbytes: 256, comm: W, replace: true };
        assert!(ops.contains(&&replace), "rank {r}");
        let c = ops.iter().position(|o| matches!(o, Op::Cancel { .. })).expect("a Cancel");
        let Op::Irecv { req, .. } = *ops[c - 1] else { panic!("rank {r}: {:?} before the Cancel", ops[c - 1]) };
        assert_eq!(*ops[c - 1], Op::Irecv { peer: left, tag: 16, bytes: 256, comm: W, req }, "rank {r}");
        assert_eq!(*ops[c], Op::Cancel { req }, "rank {r}");
        let w = &recs[c + 1];
        assert_eq!(
            (&w.op, &w.list[..]),
            (&Op::Wait { func: WaitFn::Wait, count: 1 }, &[req as i64, NO_RANK as i64, 0, 0][..])
        );
        assert_eq!((recs[c].dur_ns, w.gap_ns), (0, 0), "rank {r}: the Cancel at the MPI_Wait's start");
        assert_eq!(ops.iter().filter(|o| matches!(o, Op::Cancel { .. })).count(), 1, "rank {r}");
    }
}

#[test]
fn communicators_split_from_the_world() {
    let (t, _) = imported("cg");
    // `cg 2 64` at 4 ranks: a 2x2 grid, a row (ranks 0 1 | 2 3) and a column (0 2 | 1 3)
    // communicator from MPI_Comm_split of the world (colour = row or column, key = the other),
    // used by Sendrecv and Allreduce, freed at the end.
    let mut ids = Vec::new();
    for (r, recs) in t.iter().enumerate() {
        let (row, col) = (r as i64 / 2, r as i64 % 2);
        let made: Vec<(&Op, &[i64])> =
            recs.iter().filter(|x| matches!(x.op, Op::CommCreate { .. })).map(|x| (&x.op, &x.list[..])).collect();
        assert_eq!(made.len(), 2, "rank {r}");
        let lists: Vec<&[i64]> = made.iter().map(|m| m.1).collect();
        assert_eq!(lists, [&[2 * row, 2 * row + 1][..], &[col, col + 2][..]], "rank {r}");
        for (op, _) in &made {
            let Op::CommCreate { func, parent, comm, split } = **op else { unreachable!() };
            assert_eq!((func, parent, split), (CommFn::Split, W, 0), "rank {r}");
            ids.push(comm);
        }
        let freed = recs.iter().filter(|x| matches!(x.op, Op::CommFree { .. })).count();
        assert_eq!(freed, 2, "rank {r}");
        let on_subcomms =
            recs.iter().filter(|x| matches!(x.op, Op::Coll { comm, .. } | Op::Sendrecv { comm, .. } if comm > 1));
        assert!(on_subcomms.count() >= 6, "rank {r}: row and column Allreduces");
    }
    // Consolidation gave each of the four communicators one id on its two members.
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 4, "{ids:?}");
}

/// Rank file `f`'s `nth` record of `from` made one of `to` (a function with the same fields'
/// layout), its footer's counts moved with it.
fn relabel(f: &Path, from: u16, nth: usize, to: u16) {
    let mut b = std::fs::read(f).unwrap();
    let at = record_at(&b, from, nth);
    b[at..at + 2].copy_from_slice(&to.to_be_bytes());
    // The index's seventh word is the footer's offset: its magic, then a 32-bit count per label.
    let idx = b.len() - 64;
    let footer = u64::from_be_bytes(b[idx + 48..idx + 56].try_into().unwrap()) as usize + 8;
    for (label, d) in [(from, -1i64), (to, 1)] {
        let c = footer + 4 * label as usize;
        let n = u32::from_be_bytes(b[c..c + 4].try_into().unwrap()) as i64 + d;
        b[c..c + 4].copy_from_slice(&(n as u32).to_be_bytes());
    }
    std::fs::write(f, &b).unwrap();
}

/// What MPI_Cancel did is read from its request's completion: a send the status says it
/// cancelled, and a cancelled request completed without a status, are each one error.
#[test]
fn a_cancel_whose_outcome_cannot_be_replayed_is_one_error() {
    // Rank 2 of requests: the MPI_Irecv (12) that MPI_Cancel cancels, the last of the file,
    // made an MPI_Isend (8, the same fields); its MPI_Wait's status says cancelled.
    let d = copy("requests", "cancelled-send");
    let f = d.join("requests-0002.bin");
    let b = std::fs::read(&f).unwrap();
    let irecvs = (16..b.len() - 3).filter(|&i| b[i..i + 2] == [0, 12] && b[i + 2] == 0x4f).count();
    relabel(&f, 12, irecvs - 1, 8);
    fails(&d, &["requests-0002.bin: rank 2, record", "MPI_Wait: request", "a send MPI_Cancel took back"]);

    // The MPI_Wait after the MPI_Cancel (24) with its one status cut out (a count of 0, as
    // MPI_STATUS_IGNORE gives): after the label, mask, thread and two 12-byte times, the
    // request (4 bytes), the count (4), a status of 14; the index's offsets past it move.
    let d = copy("requests", "cancel-no-status");
    let f = d.join("requests-0002.bin");
    let mut b = std::fs::read(&f).unwrap();
    let cancel = record_at(&b, 24, 0);
    let wait = (cancel..b.len() - 3).find(|&i| b[i..i + 2] == [0, 13] && b[i + 2] == 0x4f).expect("its MPI_Wait");
    let count = wait + 3 + 2 + 12 + 12 + 4;
    assert_eq!(b[count..count + 4], 1i32.to_be_bytes(), "one status");
    b[count..count + 4].copy_from_slice(&0i32.to_be_bytes());
    b.drain(count + 4..count + 4 + 14);
    let idx = b.len() - 64;
    for w in 1..8 {
        let at = idx + 8 * w;
        let v = u64::from_be_bytes(b[at..at + 8].try_into().unwrap());
        if v as usize > count {
            b[at..at + 8].copy_from_slice(&(v - 14).to_be_bytes());
        }
    }
    std::fs::write(&f, &b).unwrap();
    fails(
        &d,
        &["requests-0002.bin: rank 2, record", "MPI_Wait: request", "whether it was cancelled is not in the trace"],
    );
}

#[test]
fn a_call_psins_does_not_replay_is_folded_and_said_or_refused_with_strict() {
    // Rank 0 of cg: its second MPI_Comm_free (87: a communicator handle) made MPI_Win_free
    // (147: a window handle), one-sided communication.
    let d = copy("cg", "unmodelled");
    relabel(&d.join("cg-0000.bin"), 87, 1, 147);
    let o = import(&d, &d.join("x.psins"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(
            "warning: 1 calls psins does not replay (one-sided, MPI-IO, communicators not followed) folded into \
             computation (MPI_Win_free 1); --strict refuses them"
        ),
        "{err}"
    );
    let o = import_strict(&d, &d.join("y.psins"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    for w in [
        "cg-0000.bin: rank 0, record",
        "byte offset",
        "MPI_Win_free: one-sided communication, which psins does not replay: --strict refuses to fold it",
    ] {
        assert!(err.contains(w), "{w:?} not in {err}");
    }
    // Calls without communication still fold under --strict: the group calls among them.
    let out = scratch("strict-groups").join("x.psins");
    let o = import_strict(&fixture("groups"), &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Traces libdumpi wrote of open-source codes at 4 ranks (scripts/make-dumpi-fixtures.sh with
/// REAL_APPS): every call sst-dumpi's own reader (dumpi2ascii, the fixture's calls.txt) finds
/// is a record or one of the calls the summary says were folded, none lost or made up; each
/// rank has records; the import passes consolidation's checks.
#[test]
fn open_source_codes_traced_by_libdumpi_import_call_for_call() {
    for app in ["npb_is", "npb_ft", "prk_stencil", "minighost", "collectives"] {
        let (tasks, err) = imported(app);
        let calls: Vec<usize> = std::fs::read_to_string(fixture(app).join("calls.txt"))
            .unwrap()
            .lines()
            .map(|l| l.trim().parse().unwrap())
            .collect();
        assert_eq!(tasks.len(), calls.len(), "{app}: ranks");
        let records: usize = tasks.iter().map(|t| t.iter().filter(|r| !matches!(r.op, Op::Step { .. })).count()).sum();
        let folded: usize = err
            .split_once(" calls without communication folded")
            .map(|(head, _)| head.rsplit(' ').next().unwrap().parse().unwrap())
            .unwrap_or(0);
        assert_eq!(records + folded, calls.iter().sum::<usize>(), "{app}: records and folded calls\n{err}");
        for (r, t) in tasks.iter().enumerate() {
            assert!(t.len() > 2 && t.len() <= calls[r] * 64, "{app}: rank {r}: {} records", t.len());
        }
    }
}

/// The collectives app's blocking part as libdumpi traced it: MPI_Reduce_scatter (every
/// rank's block, their sum sent, its own received), MPI_Alltoallw (a count and a type per
/// peer) and an MPI_Allreduce with the program's own non-commutative reduction, whose
/// MPI_Op_create the importer followed; as the tracer records them (where dumpi has no
/// MPI_IN_PLACE, no in-place flag).
#[test]
fn reduce_scatter_alltoallw_and_a_programs_own_reduction() {
    let (tasks, _) = imported("collectives");
    for (r, t) in tasks.iter().enumerate() {
        let colls: Vec<&Record> = t.iter().filter(|x| matches!(x.op, Op::Coll { .. })).collect();
        let rs: Vec<&&Record> =
            colls.iter().filter(|x| matches!(x.op, Op::Coll { coll: Coll::ReduceScatter, .. })).collect();
        assert_eq!(rs.len(), 2, "rank {r}");
        for x in &rs {
            let Op::Coll { send_bytes, recv_bytes, flags, .. } = x.op else { unreachable!() };
            assert_eq!(x.list.len(), 4, "rank {r}");
            assert_eq!(send_bytes, x.list.iter().sum::<i64>() as u64, "rank {r}");
            assert_eq!(recv_bytes, x.list[r] as u64, "rank {r}");
            assert_eq!(flags, CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE, "rank {r}");
        }
        assert_eq!(rs[0].list, vec![512, 1024, 1536, 2048], "rank {r}: MPI_Reduce_scatter's blocks");
        let w: Vec<&&Record> =
            colls.iter().filter(|x| matches!(x.op, Op::Coll { coll: Coll::Alltoallw, .. })).collect();
        assert_eq!(w.len(), 1, "rank {r}");
        assert_eq!(w[0].list, vec![1024; 8], "rank {r}: MPI_Alltoallw's send then receive bytes");
        let own = colls.iter().filter(|x| matches!(x.op, Op::Coll { coll: Coll::Allreduce, flags: 0, .. })).count();
        assert_eq!(own, 1, "rank {r}: the allreduce with the program's own non-commutative operation");
    }
}
