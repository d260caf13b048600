//! psins-import --from ti on hand-written TI traces: the exact records (hand-derived), the three
//! ways to name the input, and one clear error for what cannot be imported; and export →
//! import → export gives the same action files.

use psins_formats::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("ti-import-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn import(input: &Path, out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psins-import"))
        .args(["--from", "ti"])
        .arg(input)
        .arg("-o")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

fn records(trace: &Path) -> Vec<Vec<Record>> {
    TraceReader::open(trace).unwrap().read_tasks().unwrap()
}

const RANK0: &str = "0 init\n0 compute 1500\n0 isend 1 7 100\n0 irecv 1 8 40\n0 compute 10\n0 waitall\n\
0 allreduce 4 2000 1\n0 sendRecv 3 1 5 1\n0 send 1 9 2\n# a comment\n\n0 finalize\n";
const RANK1: &str = "1 init\n1 recv 0 7 100\n1 isend 0 8 40\n1 wait 1 0 8\n1 allreduce 4 0 1\n1 sendRecv 5 0 3 0\n\
1 recv 0 9 2\n1 compute 7\n";

#[test]
fn actions_become_the_records_smpi_replays() {
    let dir = scratch("exact");
    std::fs::write(dir.join("a0.ti"), RANK0).unwrap();
    std::fs::write(dir.join("a1.ti"), RANK1).unwrap();
    // A list file with paths relative to it.
    std::fs::write(dir.join("list.txt"), "a0.ti\na1.ti\n").unwrap();
    let out = dir.join("x.psins");
    let o = import(&dir.join("list.txt"), &out, &["--host-speed", "2e9"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = records(&out);
    let w = COMM_WORLD;
    let flags = CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE;
    let allreduce = |instance| Op::Coll {
        coll: Coll::Allreduce,
        comm: w,
        root: NO_RANK,
        send_bytes: 16,
        recv_bytes: 16,
        count: 4,
        flags,
        req: 0,
        instance,
    };
    // `allreduce 4 2000 1`: 4 elements of datatype 1 (MPI_INT, 4 bytes).
    // Rank 0: 1500 flops at 2 Gflop/s = 750 ns; the waitall completes both requests in
    // posting order (ids renumbered densely by consolidation); the allreduce's 2000 flops
    // (1000 ns) are computed after it, so they are the next record's burst.
    let want0 = vec![
        Record::new(0, 0, Op::Init { thread_level: 0 }),
        Record::new(750, 0, Op::Isend { mode: SendMode::Standard, peer: 1, tag: 7, bytes: 100, comm: w, req: 1 }),
        Record::new(0, 0, Op::Irecv { peer: 1, tag: 8, bytes: 40, comm: w, req: 2 }),
        Record::new(5, 0, Op::Wait { func: WaitFn::Waitall, count: 2 }).with_list(vec![
            1,
            NO_RANK as i64,
            7,
            100,
            2,
            1,
            8,
            40,
        ]),
        Record::new(0, 0, allreduce(1)),
        Record::new(
            1000,
            0,
            Op::Sendrecv { peer: 1, tag: 0, bytes: 3, src: 1, rtag: 0, rbytes: 5, comm: w, replace: false },
        ),
        Record::new(0, 0, Op::Send { mode: SendMode::Standard, peer: 1, tag: 9, bytes: 2, comm: w }),
        Record::new(0, 0, Op::Finalize),
    ];
    assert_eq!(t[0], want0);
    // Rank 1 has no finalize: one is added, keeping its last 7 flops (3.5 ns, rounded to 4).
    let want1 = vec![
        Record::new(0, 0, Op::Init { thread_level: 0 }),
        Record::new(0, 0, Op::Recv { peer: 0, tag: 7, bytes: 100, comm: w }),
        Record::new(0, 0, Op::Isend { mode: SendMode::Standard, peer: 0, tag: 8, bytes: 40, comm: w, req: 1 }),
        Record::new(0, 0, Op::Wait { func: WaitFn::Wait, count: 1 }).with_list(vec![1, NO_RANK as i64, 8, 40]),
        Record::new(0, 0, allreduce(1)),
        Record::new(
            0,
            0,
            Op::Sendrecv { peer: 0, tag: 0, bytes: 5, src: 0, rtag: 0, rbytes: 3, comm: w, replace: false },
        ),
        Record::new(0, 0, Op::Recv { peer: 0, tag: 9, bytes: 2, comm: w }),
        Record::new(4, 0, Op::Finalize),
    ];
    assert_eq!(t[1], want1);
    // The same actions as one shared file (lines of both ranks interleaved), and a directory
    // holding replay.txt, give the same trace.
    let shared: String =
        RANK0.lines().zip(RANK1.lines().chain(std::iter::repeat(""))).flat_map(|(a, b)| [a, "\n", b, "\n"]).collect();
    std::fs::write(dir.join("shared.ti"), shared).unwrap();
    let o = import(&dir.join("shared.ti"), &dir.join("s.psins"), &["--host-speed", "2e9"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(records(&dir.join("s.psins")), t);
    let sub = dir.join("d");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        sub.join("replay.txt"),
        format!("{}\n{}\n", dir.join("a0.ti").display(), dir.join("a1.ti").display()),
    )
    .unwrap();
    let o = import(&sub, &dir.join("d.psins"), &["--host-speed", "2e9"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(records(&dir.join("d.psins")), t);
    // A moved export: its list still names the old absolute paths, the files are beside it.
    let moved = dir.join("moved");
    std::fs::create_dir_all(&moved).unwrap();
    for f in ["a0.ti", "a1.ti"] {
        std::fs::copy(dir.join(f), moved.join(f)).unwrap();
    }
    std::fs::write(moved.join("replay.txt"), "/gone/a0.ti\n/gone/a1.ti\n").unwrap();
    let o = import(&moved, &dir.join("m.psins"), &["--host-speed", "2e9"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(records(&dir.join("m.psins")), t);
}

#[test]
fn what_cannot_be_imported_is_one_error_naming_file_rank_record_and_line() {
    let dir = scratch("bad");
    let cases = [
        ("0 init\n0 compute 5\n0 frobnicate 3\n", "rank 0, record 1", "line 3: unknown action \"frobnicate\""),
        ("0 init\n0 recv 1 0 -1\n", "rank 0, record 1", "line 2: recv: size -1"),
        ("0 init\n0 send 1 x 4\n", "rank 0, record 1", "line 2: send: tag \"x\" is not a number"),
        ("0 init\n0 ibcast 4\n", "rank 0, record 1", "unknown action \"ibcast\""),
        ("0 init\n0 send -2 0 4\n", "rank 0, record 1", "is not a rank"),
    ];
    for (i, (text, at, what)) in cases.iter().enumerate() {
        let f = dir.join(format!("bad{i}.ti"));
        // A second rank, so that partner 1 exists.
        std::fs::write(&f, format!("{text}1 init\n1 finalize\n")).unwrap();
        let out = dir.join(format!("bad{i}.psins"));
        let o = import(&f, &out, &[]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(&format!("bad{i}.ti: {at}")) && e.contains(what), "{e}");
        assert!(!out.exists());
    }
    // A message to a rank the trace does not have.
    let f = dir.join("peer.ti");
    std::fs::write(&f, "0 init\n0 send 3 0 4\n0 finalize\n1 init\n1 finalize\n").unwrap();
    let o = import(&f, &dir.join("peer.psins"), &[]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("peer.ti: rank 0, record 1") && e.contains("partner 3 is not a rank of this 2-rank trace"),
        "{e}"
    );
    // A shared file whose rank numbers skip some (a damaged 4000000000): the first rank
    // without lines, not 4e9 ranks allocated (the allocation aborted: exit status None).
    for (name, text, what) in [
        (
            "huge.ti",
            "0 init\n4000000000 init\n0 finalize\n",
            "rank 1: has no actions, though line 2 names rank 4000000000",
        ),
        ("gap.ti", "0 init\n3 init\n1 init\n0 finalize\n", "rank 2: has no actions, though line 2 names rank 3"),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
        let o = import(&dir.join(name), &dir.join("gap.psins"), &[]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "exit status {:?} (None: a signal): {e}", o.status);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(&format!("{name}: {what}")), "{e}");
    }
    // A list naming a missing file; an empty input.
    std::fs::write(dir.join("l.txt"), "nothere0.ti\nnothere1.ti\n").unwrap();
    let o = import(&dir.join("l.txt"), &dir.join("l.psins"), &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nothere0.ti"));
    std::fs::write(dir.join("empty.ti"), "\n# nothing\n").unwrap();
    assert_eq!(import(&dir.join("empty.ti"), &dir.join("e.psins"), &[]).status.code(), Some(1));
    // The output onto the input: exit 3, the input untouched.
    std::fs::write(dir.join("ok.ti"), "0 init\n0 finalize\n").unwrap();
    let o = import(&dir.join("ok.ti"), &dir.join("ok.ti"), &[]);
    assert_eq!(o.status.code(), Some(3));
    assert_eq!(std::fs::read_to_string(dir.join("ok.ti")).unwrap(), "0 init\n0 finalize\n");
}

/// `test` completes nothing and leaves the request for its `wait`; a `wait` with nothing of
/// its key in flight is nothing (SMPI returns at once); `init` with an argument makes the
/// default datatype MPI_DOUBLE.
#[test]
fn test_wait_and_default_datatype() {
    let dir = scratch("test");
    let text = "0 init 0\n0 isend 1 3 4\n0 test 0 1 3\n0 wait 0 1 3\n0 wait 0 1 3\n0 finalize\n\
                1 init 0\n1 recv 0 3 4\n1 finalize\n";
    std::fs::write(dir.join("t.ti"), text).unwrap();
    let o = import(&dir.join("t.ti"), &dir.join("t.psins"), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = records(&dir.join("t.psins"));
    let w = COMM_WORLD;
    assert_eq!(
        t[0],
        vec![
            Record::new(0, 0, Op::Init { thread_level: 0 }),
            Record::new(0, 0, Op::Isend { mode: SendMode::Standard, peer: 1, tag: 3, bytes: 32, comm: w, req: 1 }),
            Record::new(0, 0, Op::Wait { func: WaitFn::Test, count: 1 }),
            Record::new(0, 0, Op::Wait { func: WaitFn::Wait, count: 1 }).with_list(vec![1, NO_RANK as i64, 3, 32]),
            Record::new(0, 0, Op::Finalize),
        ]
    );
    assert_eq!(t[1][1], Record::new(0, 0, Op::Recv { peer: 0, tag: 3, bytes: 32, comm: w }));
}

/// The v-collectives in SMPI's layouts (smpi_replay.cpp's *VArgParser) at 3 ranks: counts in
/// their datatypes (id 0 = 8 bytes, id 1 = 4 bytes, none = MPI_BYTE) become per-rank byte
/// lists as our tracer writes them — at the root only for gatherv and scatterv, send counts
/// then receive counts for alltoallv — and reducescatter's computation comes after it.
#[test]
fn v_collectives_carry_their_per_rank_bytes() {
    let dir = scratch("vcoll");
    let mut text = String::new();
    for r in 0..3u64 {
        let gatherv = if r == 1 { "3 4 5" } else { "0 0 0" };
        let scatterv = if r == 0 { "1 2 3" } else { "0 0 0" };
        text += &format!(
            "{r} init\n{r} gatherv 2 {gatherv} 1 1 1\n{r} allgatherv {} 1 2 3 0 0\n{r} allgatherv 2 2 2 2 0 2 4\n\
             {r} scatterv {scatterv} {} 0 1 1\n{r} alltoallv 6 1 2 3 6 3 2 1 1 1\n{r} reducescatter 1 2 3 2000 0\n{r} finalize\n",
            r + 1,
            r + 1,
        );
    }
    std::fs::write(dir.join("v.ti"), text).unwrap();
    let o = import(&dir.join("v.ti"), &dir.join("v.psins"), &["--host-speed", "2e9"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = records(&dir.join("v.psins"));
    let flags = CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE;
    let coll = |coll, root, send_bytes, recv_bytes, count, instance, list: Vec<i64>| {
        let op = Op::Coll { coll, comm: COMM_WORLD, root, send_bytes, recv_bytes, count, flags, req: 0, instance };
        Record::new(0, 0, op).with_list(list)
    };
    for (r, got) in t.iter().enumerate() {
        let ri = r as u64;
        let want = vec![
            Record::new(0, 0, Op::Init { thread_level: 0 }),
            // 2 ints sent; the root (1) receives 3, 4, 5 ints.
            if r == 1 {
                coll(Coll::Gatherv, 1, 8, 48, 0, 1, vec![12, 16, 20])
            } else {
                coll(Coll::Gatherv, 1, 8, 0, 0, 1, vec![])
            },
            // r + 1 doubles sent; 1, 2, 3 doubles received.
            coll(Coll::Allgatherv, NO_RANK, 8 * (ri + 1), 48, 0, 2, vec![8, 16, 24]),
            // Displacements without types: bytes.
            coll(Coll::Allgatherv, NO_RANK, 2, 6, 0, 3, vec![2, 2, 2]),
            // The root (0) sends 1, 2, 3 ints; rank r receives r + 1.
            if r == 0 {
                coll(Coll::Scatterv, 0, 24, 4, 0, 4, vec![4, 8, 12])
            } else {
                coll(Coll::Scatterv, 0, 0, 4 * (ri + 1), 0, 4, vec![])
            },
            coll(Coll::Alltoallv, NO_RANK, 24, 24, 0, 5, vec![4, 8, 12, 12, 8, 4]),
            // 1 + 2 + 3 doubles reduced; rank r keeps its r + 1.
            coll(Coll::ReduceScatter, NO_RANK, 48, 8 * (ri + 1), 6, 6, vec![8, 16, 24]),
            // 2000 flops at 2 Gflop/s after the reduction.
            Record::new(1000, 0, Op::Finalize),
        ];
        assert_eq!(*got, want, "rank {r}");
    }
    // Too few counts for the trace's ranks: one error naming the line.
    std::fs::write(dir.join("short.ti"), "0 init\n0 alltoallv 6 1 2 3 6 3\n1 init\n2 init\n").unwrap();
    let o = import(&dir.join("short.ti"), &dir.join("s.psins"), &[]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("short.ti: rank 0, record 1") && e.contains("line 2: alltoallv: 6 arguments, fewer than the 8"),
        "{e}"
    );
}

/// Traces SMPI itself wrote (`smpirun -np 4 -trace-ti`, SimGrid 3.32; tests/fixtures/ti, made
/// by scripts/make-ti-fixtures.sh) of two open-source codes and a test app: every action but
/// `compute` is one record of its rank (the fixture's actions.txt counts them), with
/// - NPB FT class S (Fortran): MPI_LOGICAL written as datatype 23 (4 bytes) and
///   MPI_DOUBLE_COMPLEX as 43 (16), Fortran types beyond the C ones;
/// - miniGhost: MPI_REAL8 as 40 (8 bytes), and MPI_WAITANY as `waitAny N`, which says how many
///   requests the call had and not which completed: each completes the oldest pending, with
///   one warning;
/// - master_worker: receives from MPI_ANY_SOURCE with MPI_ANY_TAG (SMPI writes -333 and -444),
///   which name no rank: wildcard receives, with one warning.
#[test]
fn traces_smpi_wrote_of_real_codes_import() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ti");
    let dir = scratch("smpi");
    let mut traces = std::collections::HashMap::new();
    for (name, warning) in [
        ("npb_ft", None),
        (
            "minighost",
            Some(
                "psins-import: warning: 48 waitAny calls: the trace says how many requests each was given, not which \
                 completed; each completes the oldest request pending",
            ),
        ),
        (
            "master_worker",
            Some(
                "psins-import: warning: 9 receives from any source: the trace names no sender, so psins-sim replays \
                 them as wildcards (the simulated arrivals pick the sender)",
            ),
        ),
    ] {
        let out = dir.join(format!("{name}.psins"));
        let o = import(&fixtures.join(name).join("trace.ti"), &out, &["-q"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{name}: {err}");
        assert_eq!(err.trim_end(), warning.unwrap_or(""), "{name}");
        let t = records(&out);
        let want: Vec<usize> = std::fs::read_to_string(fixtures.join(name).join("actions.txt"))
            .unwrap()
            .lines()
            .map(|l| l.trim().parse().unwrap())
            .collect();
        assert_eq!(t.iter().map(Vec::len).collect::<Vec<_>>(), want, "{name}: a record per action");
        traces.insert(name, t);
    }
    // FT's fifth broadcast is one MPI_LOGICAL; its transposes 16,384 double complex a peer.
    let ft = &traces["npb_ft"][0];
    let bcasts: Vec<u64> = ft
        .iter()
        .filter_map(|x| match x.op {
            Op::Coll { coll: Coll::Bcast, send_bytes, .. } => Some(send_bytes),
            _ => None,
        })
        .collect();
    assert_eq!(bcasts, [4, 4, 4, 4, 4]);
    assert!(ft
        .iter()
        .any(|x| matches!(x.op, Op::Coll { coll: Coll::Alltoall, send_bytes: 262_144, recv_bytes: 262_144, .. })));
    // miniGhost's halo: 648 MPI_REAL8 a face; twelve waitAny calls a rank, each completing one.
    for (r, recs) in traces["minighost"].iter().enumerate() {
        let waits: Vec<&Record> =
            recs.iter().filter(|x| matches!(x.op, Op::Wait { func: WaitFn::Waitany, .. })).collect();
        assert_eq!(waits.len(), 12, "rank {r}");
        assert!(waits.iter().all(|w| w.list.len() == 4), "rank {r}");
        assert!(recs.iter().any(|x| matches!(x.op, Op::Irecv { bytes: 5184, .. })), "rank {r}");
    }
    // The master's receives name no sender or tag; the workers' sends name the master.
    let master = &traces["master_worker"][0];
    let wild = master.iter().filter(|x| matches!(x.op, Op::Recv { peer: ANY_SOURCE, tag: ANY_TAG, .. })).count();
    assert_eq!(wild, 9);
    assert!(traces["master_worker"][1].iter().any(|x| matches!(x.op, Op::Send { peer: 0, .. })));
}
