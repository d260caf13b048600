//! psins-consolidate on logs written here with the real log encoder: a good run merges, and
//! every validation failure gives one error naming the file and what is wrong, with no trace
//! left under the output name.

use psins_formats::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("psins-cons-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn header(rank: u32, size: u32, job: u64) -> LogHeader {
    LogHeader { rank, world_size: size, job_id: job, clock: "test".into(), ..Default::default() }
}

fn write_log(d: &Path, h: &LogHeader, recs: &[Record], footer: bool) -> PathBuf {
    let mut out = Vec::new();
    h.write(&mut out);
    let mut enc = LogEncoder::new();
    for (i, r) in recs.iter().enumerate() {
        enc.push(&mut out, r);
        if i % 3 == 2 {
            enc.close_block(&mut out);
        }
    }
    if footer {
        enc.finish(&mut out);
    } else {
        enc.close_block(&mut out);
    }
    let p = d.join(format!("rank-{:06}.bin", h.rank));
    std::fs::write(&p, out).unwrap();
    p
}

fn allreduce(instance: u32) -> Record {
    let flags = CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE;
    Record::new(
        10,
        20,
        Op::Coll {
            coll: Coll::Allreduce,
            comm: COMM_WORLD,
            root: NO_RANK,
            send_bytes: 8,
            recv_bytes: 8,
            count: 1,
            flags,
            req: 0,
            instance,
        },
    )
}

/// Rank r of 2: splits world into {0,1} under a rank-specific local id, exchanges a message
/// over it with isend/irecv + waitall, then two allreduces.
fn program(rank: u32) -> Vec<Record> {
    let local = 7 + rank * 10; // different local numbering on each rank
    let peer = 1 - rank as i32;
    let (sreq, rreq) = (100 + rank, 200 + rank);
    vec![
        Record::new(0, 5, Op::Init { thread_level: 0 }),
        Record::new(1, 2, Op::CommCreate { func: CommFn::Split, parent: COMM_WORLD, comm: local, split: 0 })
            .with_list(vec![0, 1]),
        Record::new(3, 4, Op::Irecv { peer, tag: 1, bytes: 64, comm: local, req: rreq }),
        Record::new(3, 4, Op::Isend { mode: SendMode::Standard, peer, tag: 1, bytes: 64, comm: local, req: sreq }),
        Record::new(5, 9, Op::Wait { func: WaitFn::Waitall, count: 2 }).with_list(vec![
            rreq as i64,
            peer as i64,
            1,
            64,
            sreq as i64,
            NO_RANK as i64,
            0,
            0,
        ]),
        allreduce(1),
        Record::new(0, 0, Op::Step { instance: 1, op: StepOp::SendRecv, peer, bytes: 8, peer2: peer, bytes2: 8 }),
        allreduce(2),
        Record::new(0, 0, Op::Step { instance: 2, op: StepOp::SendRecv, peer, bytes: 8, peer2: peer, bytes2: 8 }),
        Record::new(1, 1, Op::CommFree { comm: local }),
        Record::new(1, 3, Op::Finalize),
    ]
}

fn consolidate(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psins-consolidate")).args(args).output().unwrap()
}

fn run(d: &Path, extra: &[&str]) -> (Output, PathBuf) {
    let out = d.join("app.psins");
    let mut args: Vec<&std::ffi::OsStr> = vec![d.as_os_str(), "-o".as_ref(), out.as_os_str()];
    args.extend(extra.iter().map(|s| std::ffi::OsStr::new(*s)));
    (consolidate(&args), out)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn read_all(p: &Path) -> (TraceHeader, Vec<Vec<Record>>) {
    let tr = TraceReader::open(p).unwrap();
    let tasks = tr.read_tasks().unwrap();
    (tr.header.clone(), tasks)
}

#[test]
fn good_run_merges_with_canonical_ids() {
    for compress in [false, true] {
        let d = dir(&format!("good{compress}"));
        for r in 0..2 {
            write_log(&d, &header(r, 2, 42), &program(r), true);
        }
        let (o, out) = run(&d, if compress { &["--compress"] } else { &[] });
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains("2 ranks, 22 records"), "{}", stderr(&o));
        let (h, tasks) = read_all(&out);
        assert_eq!(h.compressed(), compress);
        assert_eq!(h.meta("job_id"), Some("0x2a"));
        // One communicator besides world, the same global id on both ranks.
        assert_eq!(h.comms.len(), 2);
        let split = h.comms[1].id;
        assert_eq!(h.comms[1].members, vec![0, 1]);
        for (r, recs) in tasks.iter().enumerate() {
            let mut want = program(r as u32);
            // Comm ids become global, request ids dense from 1.
            for rec in &mut want {
                match &mut rec.op {
                    Op::CommCreate { comm, .. }
                    | Op::CommFree { comm }
                    | Op::Irecv { comm, .. }
                    | Op::Isend { comm, .. } => *comm = split,
                    _ => {}
                }
                match &mut rec.op {
                    Op::Irecv { req, .. } => *req = 1,
                    Op::Isend { req, .. } => *req = 2,
                    _ => {}
                }
                if let Op::Wait { .. } = rec.op {
                    rec.list[0] = 1;
                    rec.list[4] = 2;
                }
            }
            assert_eq!(recs, &want, "rank {r}");
        }
    }
}

#[test]
fn missing_ranks_are_listed() {
    let d = dir("missing");
    for r in [0, 2, 3] {
        write_log(&d, &header(r, 6, 1), &program(0), true);
    }
    let (o, out) = run(&d, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("3 of 6 ranks missing: 1, 4-5"), "{}", stderr(&o));
    assert!(!out.exists());
}

#[test]
fn two_runs_are_not_merged() {
    let d = dir("mixed");
    write_log(&d, &header(0, 2, 1), &program(0), true);
    let p = write_log(&d, &header(1, 2, 2), &program(1), true);
    let (o, _) = run(&d, &[]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains(&p.display().to_string()) && e.contains("two different runs"), "{e}");
}

#[test]
fn ranks_timed_with_different_clocks_are_not_merged() {
    let d = dir("clocks");
    let cpu = |r| LogHeader { settings: "PSINS_TRACE=1 PSINS_CLOCK=cpu".into(), ..header(r, 2, 1) };
    let a = write_log(&d, &cpu(0), &program(0), true);
    let p = write_log(&d, &header(1, 2, 1), &program(1), true);
    let (o, out) = run(&d, &[]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains(&p.display().to_string())
            && e.contains(&format!(
                "its bursts were timed with the wall clock, those of {} with the cpu clock (PSINS_CLOCK must be the same on every rank)",
                a.display()
            )),
        "{e}"
    );
    assert!(!out.exists());
    // both on the CPU clock: merged, and the trace says so
    write_log(&d, &cpu(1), &program(1), true);
    let (o, out) = run(&d, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(TraceReader::open(&out).unwrap().header.burst_clock(), Some(BurstClock::Cpu));
}

#[test]
fn duplicate_rank_is_an_error() {
    let d = dir("dup");
    let a = write_log(&d, &header(0, 2, 1), &program(0), true);
    let b = d.join("copy.bin");
    std::fs::copy(&a, &b).unwrap();
    write_log(&d, &header(1, 2, 1), &program(1), true);
    let out = d.join("x.psins");
    let o = consolidate(&[
        a.as_os_str(),
        b.as_os_str(),
        d.join("rank-000001.bin").as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("rank 0 is given twice"), "{}", stderr(&o));
}

#[test]
fn truncated_log_needs_allow_partial_and_is_cut_consistently() {
    let d = dir("trunc");
    write_log(&d, &header(0, 2, 1), &program(0), true);
    // Rank 1 died after its first allreduce and step (7 records, no footer).
    let p = write_log(&d, &header(1, 2, 1), &program(1)[..7], false);
    let (o, out) = run(&d, &[]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains(&p.display().to_string()) && e.contains("rank 1") && e.contains("--allow-partial"), "{e}");
    assert!(!out.exists());

    let (o, out) = run(&d, &["--allow-partial"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("rank 0: kept 7 of 11 readable records"), "{e}");
    let (h, tasks) = read_all(&out);
    assert_eq!(h.meta("partial"), Some("true"));
    // Both cut right after the first allreduce's expansion.
    assert_eq!(tasks[0].len(), 7);
    assert_eq!(tasks[1].len(), 7);
}

#[test]
fn flipped_byte_is_caught_by_the_checksum() {
    let d = dir("flip");
    write_log(&d, &header(0, 2, 1), &program(0), true);
    let p = write_log(&d, &header(1, 2, 1), &program(1), true);
    let mut img = std::fs::read(&p).unwrap();
    let n = img.len();
    img[n - 30] ^= 0x10;
    std::fs::write(&p, img).unwrap();
    let (o, _) = run(&d, &[]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains(&p.display().to_string()) && e.contains("checksum"), "{e}");
}

#[test]
fn request_misuse_is_reported_per_rank() {
    let d = dir("reqs");
    let mut r0 = program(0);
    r0.remove(4); // rank 0 never waits: both requests left open at MPI_Finalize, a warning
    write_log(&d, &header(0, 2, 1), &r0, true);
    write_log(&d, &header(1, 2, 1), &program(1), true);
    let (o, _) = run(&d, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("rank 0 (") && stderr(&o).contains("2 requests left open at MPI_Finalize (ids 100, 200)"),
        "{}",
        stderr(&o)
    );

    let d = dir("reqs2");
    let mut r1 = program(1);
    r1.remove(2); // rank 1 completes an irecv it never posted
    write_log(&d, &header(0, 2, 1), &program(0), true);
    let p = write_log(&d, &header(1, 2, 1), &r1, true);
    let (o, _) = run(&d, &[]);
    let e = stderr(&o);
    assert!(
        e.contains(&p.display().to_string())
            && e.contains("record 3")
            && e.contains("record 3: completes request 201, which this rank never started"),
        "{e}"
    );

    // A Testany completing the irecv its Waitall already completed.
    let d = dir("reqs3");
    let mut r1 = program(1);
    let again = Op::Wait { func: WaitFn::Testany, count: 1 };
    r1.insert(5, Record::new(1, 1, again).with_list(vec![201, 0, 1, 64]));
    write_log(&d, &header(0, 2, 1), &program(0), true);
    let p = write_log(&d, &header(1, 2, 1), &r1, true);
    let (o, _) = run(&d, &[]);
    assert_eq!(o.status.code(), Some(1));
    let why = "completes request 201, which this rank never started (or which already completed or was freed)";
    assert_eq!(stderr(&o), format!("psins-consolidate: {}: rank 1, record 5: {why}\n", p.display()));
}

#[test]
fn disagreeing_communicators_are_an_error() {
    let d = dir("comms");
    write_log(&d, &header(0, 2, 1), &program(0), true);
    let mut r1 = program(1);
    r1[1].list = vec![1]; // rank 1 thinks the split holds only itself
    for rec in &mut r1 {
        if let Op::Irecv { comm, peer, .. } | Op::Isend { comm, peer, .. } = &mut rec.op {
            *comm = COMM_WORLD;
            *peer = 0;
        }
    }
    write_log(&d, &header(1, 2, 1), &r1, true);
    let (o, _) = run(&d, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("communicator definitions disagree") && stderr(&o).contains("never by [1]"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_trace_is_not_a_log() {
    let d = dir("kind");
    let t = d.join("t.psins");
    TraceWriter::create(&t, 0, vec![], vec![], None).unwrap().finish().unwrap();
    let out = d.join("o.psins");
    let o = consolidate(&[t.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("this is a psins compact trace") && stderr(&o).contains("expected a psins per-rank log"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn compress_does_not_swallow_the_logs() {
    let d = dir("compressarg");
    for r in 0..2 {
        write_log(&d, &header(r, 2, 42), &program(r), true);
    }
    let out = d.join("z.psins");
    // The optional level takes `=`: the directory after the flag stays an input.
    let o = consolidate(&["-o".as_ref(), out.as_os_str(), "--compress".as_ref(), d.as_os_str()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(TraceReader::open(&out).unwrap().header.compressed());
}

/// SNAP's habit: an MPI_Isend only ever tested, never completed, though its message is
/// received. The complete run consolidates with a warning and a count, and keeps the isend.
#[test]
fn requests_left_open_at_finalize_are_a_counted_warning() {
    let d = dir("openreq");
    let send = |req| Op::Isend { mode: SendMode::Standard, peer: 1, tag: 3, bytes: 16, comm: COMM_WORLD, req };
    let recv = Op::Recv { peer: 0, tag: 3, bytes: 16, comm: COMM_WORLD };
    let r0 = vec![
        Record::new(0, 5, Op::Init { thread_level: 0 }),
        Record::new(1, 2, send(41)),
        Record::new(1, 2, send(42)),
        Record::new(1, 3, Op::Finalize),
    ];
    let r1 = vec![
        Record::new(0, 5, Op::Init { thread_level: 0 }),
        Record::new(1, 2, recv),
        Record::new(1, 2, recv),
        Record::new(1, 3, Op::Finalize),
    ];
    write_log(&d, &header(0, 2, 1), &r0, true);
    write_log(&d, &header(1, 2, 1), &r1, true);
    let (o, out) = run(&d, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("warning") && e.contains("rank 0") && e.contains("2 requests left open at MPI_Finalize"), "{e}");
    let (_, tasks) = read_all(&out);
    assert_eq!(tasks[0].len(), 4);
}

/// `program(r)` with `edit` applied to rank 1's record `idx`: consolidation fails with exactly
/// one line naming rank 1's log, the rank, the record and `what` is wrong; no trace written.
fn refused(name: &str, idx: usize, edit: impl Fn(&mut Record), what: &str) {
    let d = dir(name);
    write_log(&d, &header(0, 2, 1), &program(0), true);
    let mut r1 = program(1);
    edit(&mut r1[idx]);
    let p = write_log(&d, &header(1, 2, 1), &r1, true);
    let (o, out) = run(&d, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stderr(&o), format!("psins-consolidate: {}: rank 1, record {idx}: {what}\n", p.display()));
    assert!(!out.exists());
}

/// A peer or root outside the record's communicator (a damaged or hand-edited log) is refused
/// at consolidation, naming the log; it used to pass and fail only at replay, naming the
/// trace. Rank 1 numbers the split {0, 1} 17 in its log, and the message says 17.
#[test]
fn a_rank_outside_its_communicator_names_the_log_rank_and_record() {
    let isend = |peer: i32| {
        move |r: &mut Record| r.op = Op::Isend { mode: SendMode::Standard, peer, tag: 1, bytes: 64, comm: 17, req: 101 }
    };
    refused("peer", 3, isend(2), "peer 2 is outside communicator 17 (size 2)");
    // MPI_ANY_SOURCE is a source, never a destination
    refused("anysend", 3, isend(ANY_SOURCE), "peer -1 is outside communicator 17 (size 2)");
    refused(
        "irecv",
        2,
        |r| r.op = Op::Irecv { peer: 5, tag: 1, bytes: 64, comm: 17, req: 201 },
        "peer 5 is outside communicator 17 (size 2)",
    );
    let root = |r: &mut Record| {
        if let Op::Coll { coll, root, .. } = &mut r.op {
            (*coll, *root) = (Coll::Reduce, 2);
        }
    };
    refused("root", 5, root, "root 2 is outside communicator 0 (size 2)");
    // an expansion step names ranks of its collective's communicator
    let step = |r: &mut Record| {
        if let Op::Step { peer2, .. } = &mut r.op {
            *peer2 = 3;
        }
    };
    refused("step", 6, step, "peer 3 is outside communicator 0 (size 2)");
    refused(
        "unknown",
        2,
        |r| r.op = Op::Irecv { peer: 0, tag: 1, bytes: 64, comm: 9, req: 201 },
        "uses communicator 9, which this rank never created",
    );
}

/// Sentinels stay valid: MPI_PROC_NULL peers and roots, MPI_ANY_SOURCE sources (posted, and a
/// probe's), a root of none; an intercommunicator's peers and roots are ranks of its remote
/// group (rank 0 sends to remote rank 0, which is world rank 1).
#[test]
fn wildcards_and_remote_ranks_consolidate() {
    let d = dir("wild");
    for r in 0..2u32 {
        let other = 1 - r as i64;
        let bcast_root = if r == 0 { NO_RANK } else { 0 }; // MPI_ROOT in group 0
        let coll = |comm, coll, root, instance| Op::Coll {
            coll,
            comm,
            root,
            send_bytes: 8,
            recv_bytes: 8,
            count: 1,
            flags: 0,
            req: 0,
            instance,
        };
        let mut recs = vec![
            Record::new(0, 5, Op::Init { thread_level: 0 }),
            Record::new(1, 2, Op::CommCreate { func: CommFn::Other, parent: COMM_WORLD, comm: 5, split: 1 })
                .with_list(vec![r as i64, other]),
            Record::new(1, 1, Op::Send { mode: SendMode::Standard, peer: PROC_NULL, tag: 3, bytes: 8, comm: 5 }),
            Record::new(1, 1, Op::Recv { peer: PROC_NULL, tag: 3, bytes: 0, comm: COMM_WORLD }),
            Record::new(1, 1, coll(5, Coll::Bcast, bcast_root, 1)),
            Record::new(1, 1, coll(COMM_WORLD, Coll::Bcast, 0, 2)),
        ];
        if r == 0 {
            recs.push(Record::new(1, 1, Op::Send { mode: SendMode::Standard, peer: 0, tag: 4, bytes: 8, comm: 5 }));
        } else {
            recs.push(Record::new(
                1,
                1,
                Op::Probe {
                    peer: ANY_SOURCE,
                    tag: 4,
                    bytes: 8,
                    comm: COMM_WORLD,
                    flags: ProbeFlags::BLOCKING | ProbeFlags::FOUND,
                },
            ));
            recs.push(Record::new(1, 1, Op::Irecv { peer: ANY_SOURCE, tag: 4, bytes: 8, comm: 5, req: 1 }));
            recs.push(Record::new(1, 1, Op::Wait { func: WaitFn::Wait, count: 1 }).with_list(vec![1, 0, 4, 8]));
        }
        recs.push(Record::new(1, 1, Op::CommFree { comm: 5 }));
        recs.push(Record::new(1, 3, Op::Finalize));
        write_log(&d, &header(r, 2, 1), &recs, true);
    }
    let (o, out) = run(&d, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("2 ranks, 20 records"), "{}", stderr(&o));
    let (_, tasks) = read_all(&out);
    assert!(tasks[1].iter().any(|r| matches!(r.op, Op::Irecv { peer: ANY_SOURCE, .. })));

    // the same send to remote rank 1, which the one-rank remote group does not have
    let p = d.join("rank-000000.bin");
    let mut recs = Vec::new();
    let mut rd = LogReader::open(&p).unwrap();
    let mut rec = Record::default();
    while rd.next(&mut rec).unwrap() {
        recs.push(rec.clone());
    }
    if let Op::Send { peer, .. } = &mut recs[6].op {
        *peer = 1;
    }
    write_log(&d, &header(0, 2, 1), &recs, true);
    let (o, _) = run(&d, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!(
            "psins-consolidate: {}: rank 0, record 6: peer 1 is outside the remote group of intercommunicator 5 (size 1)\n",
            p.display()
        )
    );
}

/// The parent of the job directories (`psins-trace/`) names its runs, newest first.
#[test]
fn the_directory_of_runs_names_them() {
    let d = std::env::temp_dir().join(format!("psins-consolidate-runs-{}", std::process::id()));
    for job in ["20261128-090000-1", "20261129-112436-25856"] {
        std::fs::create_dir_all(d.join(job)).unwrap();
        std::fs::write(d.join(job).join("rank-000000.bin"), b"PSINSLOG").unwrap();
    }
    let o = Command::new(env!("CARGO_BIN_EXE_psins-consolidate"))
        .arg(&d)
        .arg("-o")
        .arg(d.join("x.psins"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("holds 2 traced runs") && err.contains("20261129-112436-25856 -o app.psins` (the newest)"),
        "{err}"
    );
    assert!(err.contains("the others:") && err.contains("20261128-090000-1"), "{err}");
    std::fs::remove_dir_all(&d).ok();
}
