//! Requests the trace does not model (`other_req` records, docs/format.md §3.2): MPI-IO's
//! nonblocking calls, generalized requests and (MPI 4) persistent collectives, completed by
//! MPI_Wait. Traced under real `mpirun` (`mpi-test-apps/ioreq.c`), consolidated (which
//! refused the waits before the tracer named these requests) and replayed, where the I/O
//! costs what its calls measured.

use psins_e2e::*;
use psins_formats::{functions, Kind, Op, TraceReader};
use std::ffi::OsStr;

/// The calls of ioreq.c that return a request, in order (persistent: MPI 4's barrier).
const MADE: [&str; 5] =
    ["MPI_File_iwrite_at", "MPI_File_iread_at", "MPI_File_iwrite_at_all", "MPI_Grequest_start", "MPI_Barrier_init"];

#[test]
fn io_and_generalized_requests_are_traced_consolidated_and_replayed() {
    need_mpi!();
    let dir = scratch("ioreq-file");
    let file = dir.join("ioreq.dat");
    let (run, logs) = check_app_env("ioreq", 2, &["1024"], &[("PSINS_IOREQ_FILE", file.to_str().unwrap())]);
    let mut waits_ns = 0;
    let mut durs_ns = vec![0u64; MADE.len()];
    for (rank, log) in logs.iter().enumerate() {
        // each call that made a request is one `other_req` record naming it, and the next
        // wait completes exactly that request (a persistent one: once per MPI_Start)
        let recs: Vec<_> = log.records.iter().filter(|r| r.kind() != Kind::Step).collect();
        let made: Vec<(usize, u32, u32, bool)> = recs
            .iter()
            .enumerate()
            .filter_map(|(i, r)| match r.op {
                Op::OtherReq { func, req, persistent } => Some((i, func, req, persistent)),
                _ => None,
            })
            .collect();
        let names: Vec<&str> = made.iter().map(|m| functions::name_of(m.1).unwrap()).collect();
        let mpi4 = names.len() == 5;
        assert_eq!(names, MADE[..if mpi4 { 5 } else { 4 }], "rank {rank}");
        for (k, &(i, _, req, persistent)) in made.iter().enumerate() {
            assert_eq!(persistent, k == 4, "rank {rank}: {}", names[k]);
            durs_ns[k] += recs[i].dur_ns;
            let completions: Vec<&[i64]> = recs[i + 1..]
                .iter()
                .take_while(|r| !matches!(r.op, Op::OtherReq { .. }))
                .filter(|r| r.kind() == Kind::Wait)
                .flat_map(|r| r.list.chunks(4))
                .collect();
            let want = if persistent { 2 } else { 1 };
            assert_eq!(completions.len(), want, "rank {rank}: waits after {}", names[k]);
            assert!(completions.iter().all(|q| q[0] == req as i64), "rank {rank}: {} {completions:?}", names[k]);
        }
        waits_ns += log.records.iter().filter(|r| r.kind() == Kind::Wait).map(|r| r.dur_ns).sum::<u64>();
    }
    assert!(!file.exists(), "rank 0 deleted the file");

    // consolidation accepts the waits on them, every record kept
    let trace = run.dir.join("ioreq.psins");
    run_tool("psins-consolidate", &[run.job_dir().as_os_str(), "-o".as_ref(), trace.as_os_str()]);
    let header = TraceReader::open(&trace).unwrap().header;
    let per_task: Vec<u64> = header.tasks.iter().map(|t| t.records).collect();
    assert_eq!(per_task, logs.iter().map(|l| l.records.len() as u64).collect::<Vec<_>>());

    // the replay: each call keeps its traced time, and every wait here completes such a
    // request, so it lasts exactly its traced time (machine: no CPU scaling)
    let json = run.dir.join("ioreq.json");
    let m = root().join("configs/bus-cluster.toml");
    let args: [&OsStr; 6] =
        [trace.as_os_str(), "-m".as_ref(), m.as_os_str(), "-q".as_ref(), "--json".as_ref(), json.as_os_str()];
    run_tool("psins-sim", &args);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let ns = |f: &str| (v["functions"][f]["time_s"].as_f64().unwrap() * 1e9).round() as u64;
    assert_eq!(ns("MPI_Wait"), waits_ns, "{}", v["functions"]);
    for (k, name) in MADE.iter().enumerate().filter(|(k, _)| durs_ns[*k] > 0) {
        assert_eq!(v["functions"][name]["count"], 2, "{name}");
        assert_eq!(ns(name), durs_ns[k], "{name}");
    }
}

/// MPI_Comm_idup's communicator (`mpi-test-apps/idup.c`, 3 ranks): the call is an `other_req`
/// record and the new communicator is registered right there, as MPI_Comm_dup's is, with the
/// parent's members; the send/recv and the allreduce on it resolve across ranks after
/// consolidation (rank 2 first uses it after a blocking MPI_Comm_dup, ranks 0 and 1 before,
/// so a registration at first use paired the two duplicates of the world crosswise), and the
/// replay counts each MPI_Comm_idup once.
#[test]
fn comm_idup_registers_its_communicator_at_the_call() {
    use psins_formats::{Coll, CommFn, COMM_WORLD};
    need_mpi!();
    let (run, logs) = check_app("idup", 3, &["256"]);
    let idup = functions::id_of("MPI_Comm_idup").unwrap();
    let with_info = functions::id_of("MPI_Comm_idup_with_info").unwrap();
    let mut mpi4 = false;
    for (rank, log) in logs.iter().enumerate() {
        let recs: Vec<_> = log.records.iter().filter(|r| r.kind() != Kind::Step).collect();
        // each call: its other_req, then at once the untimed comm_create (idup) of the new
        // communicator, listing the parent's members (the world)
        let made: Vec<(u32, u32, u32)> = recs
            .windows(2)
            .filter_map(|w| match (w[0].op, w[1].op) {
                (
                    Op::OtherReq { func, persistent: false, .. },
                    Op::CommCreate { func: CommFn::Idup, parent, comm, split: 0 },
                ) => {
                    assert_eq!((w[1].gap_ns, w[1].dur_ns), (0, 0), "rank {rank}: the call's time is its other_req's");
                    assert_eq!(w[1].list, [0, 1, 2], "rank {rank}: members");
                    Some((func, parent, comm))
                }
                _ => None,
            })
            .collect();
        mpi4 = made.len() == 2;
        let want: &[u32] = if mpi4 { &[idup, with_info] } else { &[idup] };
        assert_eq!(made.iter().map(|m| m.0).collect::<Vec<_>>(), want, "rank {rank}: {made:?}");
        let dup = made[0].2;
        assert_eq!(made[0].1, COMM_WORLD, "rank {rank}: MPI_Comm_idup's parent");
        if mpi4 {
            assert_eq!(made[1].1, dup, "rank {rank}: MPI_Comm_idup_with_info's parent is the first duplicate");
        }
        // nothing registered at first use, and every call on it names it
        let ops: Vec<Op> = recs.iter().map(|r| r.op).collect();
        assert!(!ops.iter().any(|o| matches!(o, Op::CommCreate { func: CommFn::Other, .. })), "rank {rank}: {ops:?}");
        let on_dup = ops.iter().filter(|o| o.comm() == Some(dup) && !matches!(o, Op::CommCreate { .. })).count();
        // rank 0 sends and rank 1 receives on it; all reduce on it and free it
        assert_eq!(on_dup, if rank < 2 { 2 } else { 1 }, "rank {rank}: {ops:?}");
        assert!(ops.iter().any(|o| matches!(o, Op::Coll { coll: Coll::Allreduce, comm, .. } if *comm == dup)));
        assert!(ops.contains(&Op::CommFree { comm: dup }), "rank {rank}: {ops:?}");
    }

    // consolidated: the allreduce is on one global communicator on every rank, not the
    // barrier's (the blocking duplicate), and rank 1 receives on the communicator rank 0
    // sent on
    let trace = run.dir.join("idup.psins");
    run_tool("psins-consolidate", &[run.job_dir().as_os_str(), "-o".as_ref(), trace.as_os_str()]);
    let tasks = TraceReader::open(&trace).unwrap().read_tasks().unwrap();
    let comm_of = |t: usize, pick: &dyn Fn(&Op) -> bool| {
        tasks[t].iter().find(|r| pick(&r.op)).and_then(|r| r.op.comm()).unwrap_or_else(|| panic!("task {t}"))
    };
    let allreduce = |o: &Op| matches!(o, Op::Coll { coll: Coll::Allreduce, .. });
    let barrier = |o: &Op| matches!(o, Op::Coll { coll: Coll::Barrier, .. });
    let g = comm_of(0, &allreduce);
    assert_eq!([comm_of(1, &allreduce), comm_of(2, &allreduce)], [g, g]);
    let b = comm_of(0, &barrier);
    assert_ne!(g, b);
    assert_eq!([comm_of(1, &barrier), comm_of(2, &barrier)], [b, b]);
    assert_eq!(comm_of(0, &|o| matches!(o, Op::Send { .. })), g);
    assert_eq!(comm_of(1, &|o| matches!(o, Op::Recv { .. })), g);

    // replayed to the end, each call counted once (the comm_create is no call of its own)
    let json = run.dir.join("idup.json");
    let m = root().join("configs/bus-cluster.toml");
    let args: [&OsStr; 6] =
        [trace.as_os_str(), "-m".as_ref(), m.as_os_str(), "-q".as_ref(), "--json".as_ref(), json.as_os_str()];
    run_tool("psins-sim", &args);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let count = |f: &str| v["functions"][f]["count"].as_u64().unwrap_or(0);
    let mut want = vec![
        ("MPI_Comm_idup", 3),
        ("MPI_Wait", 3),
        ("MPI_Send", 1),
        ("MPI_Recv", 1),
        ("MPI_Comm_dup", 3),
        ("MPI_Allreduce", 3),
        ("MPI_Barrier", 3),
        ("MPI_Comm_free", 6),
        ("MPI_Comm_idup_with_info", 0),
        ("MPI_Bcast", 0),
    ];
    if mpi4 {
        want.extend([("MPI_Wait", 6), ("MPI_Comm_free", 9), ("MPI_Comm_idup_with_info", 3), ("MPI_Bcast", 3)]);
    }
    let want: std::collections::BTreeMap<&str, u64> = want.into_iter().collect();
    let got: std::collections::BTreeMap<&str, u64> = want.keys().map(|&f| (f, count(f))).collect();
    assert_eq!(got, want, "{}", v["functions"]);
    assert_eq!(count("MPI_Comm_other"), 0);

    // The measured profile counts them alike (Op::is_call: every view's one rule).
    let out = std::process::Command::new(tool("psins-dump"))
        .args(["--profile".as_ref(), "--json".as_ref(), trace.as_os_str()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let p: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let calls = |f: &str| p["functions"][f]["count"].as_u64().unwrap_or(0);
    for (f, n) in &want {
        if f.starts_with("MPI_Comm_idup") {
            assert_eq!(calls(f), *n, "{f} in the profile: {}", p["functions"]);
        }
    }
}
