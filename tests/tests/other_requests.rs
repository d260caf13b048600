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
