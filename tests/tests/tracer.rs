//! End-to-end tests of the tracer (libpsinstrace.so) under real `mpirun`; the harness
//! (finding and running things) is the `psins-e2e` library.

use psins_e2e::*;
use psins_formats::{Kind, LogEnd, Op, StepOp, NO_RANK};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

// ------------------------------------------------------------------------------ per-app tests

#[test]
fn pingpong_2_and_4() {
    need_mpi!();
    check_app("pingpong", 2, &[]);
    check_app("pingpong", 4, &[]);
}

/// One-sided calls: one record each, as the app counted them. Open MPI 4.1.4's default
/// one-sided component (osc/rdma) crashes in MPI_Compare_and_swap over shared memory even
/// untraced, so the run selects osc/pt2pt; MPICH ignores the variable.
#[test]
fn rma_2_and_4() {
    need_mpi!();
    let env = [("OMPI_MCA_osc", "pt2pt")];
    check_app_env("rma", 2, &[], &env);
    check_app_env("rma", 4, &[], &env);
}

#[test]
fn ring_2_and_4() {
    need_mpi!();
    check_app("ring", 2, &[]);
    check_app("ring", 4, &[]);
}

#[test]
fn stencil2d_2_and_4() {
    need_mpi!();
    check_app("stencil2d", 2, &[]);
    check_app("stencil2d", 4, &[]);
}

#[test]
fn stencil3d_2_and_4() {
    need_mpi!();
    check_app("stencil3d", 2, &[]);
    check_app("stencil3d", 4, &[]);
}

#[test]
fn cg_2_and_4() {
    need_mpi!();
    check_app("cg", 2, &[]);
    check_app("cg", 4, &[]);
}

#[test]
fn is_2_and_4() {
    need_mpi!();
    check_app("is", 2, &[]);
    check_app("is", 4, &[]);
}

#[test]
fn comms_2_and_4() {
    need_mpi!();
    for n in [2, 4] {
        let (_, logs) = check_app("comms", n, &[]);
        // member lists are world ranks, in comm-rank order; the one from a dup of world is all
        for log in &logs {
            for r in &log.records {
                if let Op::CommCreate { func: psins_formats::CommFn::Dup, parent: 0, .. } = r.op {
                    assert_eq!(r.list, (0..n as i64).collect::<Vec<_>>());
                }
            }
        }
    }
}

/// An intercommunicator's comm_create lists the local group, then the remote group (world
/// ranks r % 3 == 0 form group 0; group 1 is in reverse world order), and so does its dup.
#[test]
fn intercomm_records_both_groups() {
    need_mpi!();
    for n in [2u32, 4] {
        let (_, logs) = check_app("intercomm", n, &[]);
        let group = |g: u32| -> Vec<i64> {
            let mut m: Vec<i64> = (0..n).filter(|r| (r % 3 == 0) == (g == 0)).map(i64::from).collect();
            if g == 1 {
                m.reverse();
            }
            m
        };
        for (rank, log) in logs.iter().enumerate() {
            let mine = u32::from(rank % 3 != 0);
            let want = [group(mine), group(1 - mine)].concat();
            let inter: Vec<_> =
                log.records.iter().filter(|r| matches!(r.op, Op::CommCreate { split: 1.., .. })).collect();
            assert_eq!(inter.len(), 2, "rank {rank}: Intercomm_create and Comm_dup");
            for r in inter {
                assert_eq!(r.list, want, "rank {rank}: {:?}", r.op);
                assert!(matches!(r.op, Op::CommCreate { split, .. } if split as usize == group(mine).len()));
            }
        }
    }
}

#[test]
fn requests_2_and_4() {
    need_mpi!();
    check_app("requests", 2, &[]);
    check_app("requests", 4, &[]);
}

#[test]
fn master_worker_records_real_sources() {
    need_mpi!();
    for n in [2, 4] {
        let (_, logs) = check_app("master_worker", n, &[]);
        let mut sources = std::collections::BTreeSet::new();
        for r in &logs[0].records {
            if let Op::Recv { peer, tag, .. } = r.op {
                assert!(peer >= 1 && (peer as u32) < n, "master recorded source {peer}");
                assert!(tag >= 0, "master recorded tag {tag}");
                sources.insert(peer);
            }
        }
        assert_eq!(sources, (1..n as i32).collect(), "every worker is seen as a source");
    }
}

#[test]
fn collectives_2_and_4() {
    need_mpi!();
    check_app("collectives", 2, &[]);
    check_app("collectives", 4, &[]);
}

/// The nonblocking-collectives app at 4 ranks: exact call counts, and every world
/// collective's expansion (the library's nonblocking schedules, and the batches of the
/// blocking alltoall and gatherv) checked over all ranks with psins-collectives' checker: sends and
/// receives pair up FIFO with equal sizes, every batch is closed, and the ranks' step lists
/// run to completion under rendezvous semantics. Then the trace replays with every
/// collective expanded, the nonblocking ones as background schedules.
#[test]
fn nbc_at_4_expansions_verify_and_replay() {
    need_mpi!();
    let iters = 5;
    let (run, logs) = check_app("nbc", 4, &[&iters.to_string()]);
    let per_rank: Vec<Vec<(psins_formats::Coll, u8, Vec<psins_collectives::Step>)>> =
        logs.iter().map(world_steps).collect();
    let calls = 2 + 4 * iters;
    for (r, e) in per_rank.iter().enumerate() {
        assert_eq!(e.len(), calls, "rank {r}: world collectives");
    }
    let (mut batches, mut nonblocking) = (0, 0);
    for i in 0..calls {
        let lists: Vec<Vec<psins_collectives::Step>> = per_rank.iter().map(|e| e[i].2.clone()).collect();
        let (coll, flags) = (per_rank[0][i].0, per_rank[0][i].1);
        let summary = psins_collectives::check::verify(&lists)
            .unwrap_or_else(|e| panic!("collective #{i} ({coll:?}, flags {flags}): {e}"));
        assert!(summary.messages > 0, "collective #{i} ({coll:?}) has no messages");
        let waits = lists.iter().flatten().filter(|s| **s == psins_collectives::Step::WaitAll).count();
        batches += (waits > 0) as usize;
        nonblocking += (flags & psins_formats::CollFlags::NONBLOCKING != 0) as usize;
    }
    assert_eq!(nonblocking, 4 * iters, "Iallreduce, Ialltoall, Ibcast, Ibarrier per iteration");
    // Under Open MPI the blocking alltoall and gatherv are expanded with Open MPI's
    // algorithms (the trace names its library), whose batches depend on the sizes.
    match psins_collectives::Library::of_version_string(&logs[0].header.mpi_version) {
        Some(psins_collectives::Library::OpenMpi) => assert!(batches >= nonblocking, "every schedule uses batches"),
        _ => assert_eq!(batches, calls, "every schedule, the scattered alltoall and the gatherv use batches"),
    }
    // The nonblocking collectives follow the traced library's schedules: at 4 ranks, Open
    // MPI's libnbc broadcasts linearly (the root sends to each in one round), MPICH's
    // binomial ibcast sends to 2 and then 1.
    let bytes = 1024 * 8;
    let ibcast = per_rank[0]
        .iter()
        .find(|(coll, flags, _)| {
            *coll == psins_formats::Coll::Bcast && flags & psins_formats::CollFlags::NONBLOCKING != 0
        })
        .map(|e| e.2.clone())
        .expect("an Ibcast");
    let send = |peer| psins_collectives::Step::ISend { peer, bytes };
    let linear = vec![send(1), send(2), send(3), psins_collectives::Step::WaitAll];
    match psins_collectives::Library::of_version_string(&logs[0].header.mpi_version) {
        Some(psins_collectives::Library::OpenMpi) => assert_eq!(ibcast, linear, "libnbc's ibcast at 4 ranks"),
        _ => assert_ne!(ibcast, linear, "MPICH's ibcast at 4 ranks is a tree"),
    }

    let trace = run.dir.join("nbc.psins");
    run_tool("psins-consolidate", &[run.job_dir().as_os_str(), "-o".as_ref(), trace.as_os_str()]);
    for mode in ["expanded", "analytic"] {
        let json = run.dir.join(format!("nbc-{mode}.json"));
        let set = format!("mpi.collectives={mode}");
        let m = root().join("configs/bus-cluster.toml");
        let args = [trace.as_os_str(), "-m".as_ref(), m.as_os_str(), "--set".as_ref(), set.as_ref(), "-q".as_ref()];
        run_tool("psins-sim", &[&args[..], &["--json".as_ref(), json.as_os_str()]].concat());
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let t = v["predicted_seconds"].as_f64().unwrap();
        assert!(t > 0.0 && t < 100.0, "{mode}: predicted {t} s");
    }
}

/// One rank's collectives on MPI_COMM_WORLD in call order: (collective, flags, its steps).
fn world_steps(log: &Log) -> Vec<(psins_formats::Coll, u8, Vec<psins_collectives::Step>)> {
    let mut v = Vec::new();
    let mut current = None;
    for r in &log.records {
        match r.op {
            Op::Coll { coll, comm, instance, flags, .. } => {
                current = (comm == 0).then_some(instance);
                if comm == 0 {
                    v.push((coll, flags, Vec::new()));
                }
            }
            Op::Step { instance, .. } if current == Some(instance) => {
                let step = psins_collectives::Step::from_op(&r.op).expect("a valid step");
                v.last_mut().unwrap().2.push(step);
            }
            _ => {}
        }
    }
    v
}

// With MPICH, `mpif.h` calls reach the C wrappers and mpi_f08 calls its f08 wrappers; with
// Open MPI both reach its Fortran wrappers (docs/tracer.md, Fortran). Exact record counts
// against the app's own counts also prove that no call is recorded twice (Open MPI's mpi_f08
// bindings reach its `ompi_<name>_f` or `pmpi_<name>_` entry points, which the tracer does not
// wrap, from inside the wrapper of `mpi_<name>_f08_`).
#[test]
fn fortran_mpif_h_is_traced() {
    need_mpi!();
    if !fortran_app_built("stencil_f") {
        return;
    }
    check_app("stencil_f", 2, &[]);
    check_app("stencil_f", 4, &[]);
}

#[test]
fn fortran_mpi_f08_is_traced() {
    need_mpi!();
    if !fortran_app_built("stencil_f08") {
        return;
    }
    check_app("stencil_f08", 2, &[]);
    check_app("stencil_f08", 4, &[]);
}

// ------------------------------------------------------------------------------ expansion

/// One rank's steps of each collective on MPI_COMM_WORLD, in call order.
/// (op, peer, bytes, peer2, bytes2) of one step.
type StepT = (StepOp, i32, u64, i32, u64);

fn world_expansions(log: &Log) -> Vec<(psins_formats::Coll, Vec<StepT>)> {
    let mut v: Vec<(psins_formats::Coll, Vec<_>)> = Vec::new();
    let mut current: Option<u32> = None;
    for r in &log.records {
        match r.op {
            Op::Coll { coll, comm, instance, .. } => {
                if comm == 0 {
                    v.push((coll, Vec::new()));
                    current = Some(instance);
                } else {
                    current = None;
                }
            }
            Op::Step { instance, op, peer, bytes, peer2, bytes2 } if current == Some(instance) => {
                v.last_mut().unwrap().1.push((op, peer, bytes, peer2, bytes2));
            }
            _ => {}
        }
    }
    v
}

fn check_expansions_match(logs: &[Log]) {
    let per_rank: Vec<_> = logs.iter().map(world_expansions).collect();
    let ncoll = per_rank[0].len();
    assert!(ncoll > 0);
    for (r, e) in per_rank.iter().enumerate() {
        assert_eq!(e.len(), ncoll, "rank {r} has a different number of world collectives");
    }
    for i in 0..ncoll {
        let coll = per_rank[0][i].0;
        // every (from, to, bytes) sent is received exactly once
        let mut sends: BTreeMap<(i32, i32, u64), i64> = BTreeMap::new();
        for (r, e) in per_rank.iter().enumerate() {
            assert_eq!(e[i].0, coll, "collective #{i} differs between ranks");
            let me = r as i32;
            for &(op, peer, bytes, peer2, bytes2) in &e[i].1 {
                match op {
                    StepOp::Send | StepOp::ISend => *sends.entry((me, peer, bytes)).or_insert(0) += 1,
                    StepOp::Recv | StepOp::IRecv => *sends.entry((peer, me, bytes)).or_insert(0) -= 1,
                    StepOp::WaitAll => {}
                    StepOp::SendRecv => {
                        *sends.entry((me, peer, bytes)).or_insert(0) += 1;
                        *sends.entry((peer2, me, bytes2)).or_insert(0) -= 1;
                    }
                }
            }
        }
        let unmatched: Vec<_> = sends.iter().filter(|(_, &c)| c != 0).collect();
        assert!(
            unmatched.is_empty(),
            "collective #{i} ({coll:?}) at {} ranks: unmatched (from, to, bytes): {unmatched:?}",
            logs.len()
        );
    }
}

#[test]
fn expansions_of_all_ranks_match_at_2_3_4() {
    need_mpi!();
    for n in [2, 3, 4] {
        let run = run_traced("collectives", n, &[], &[]);
        run.ok();
        let logs = read_logs(&run, n);
        let steps: usize = logs.iter().map(|l| l.records.iter().filter(|r| r.kind() == Kind::Step).count()).sum();
        assert!(steps > 0, "no expansion steps at {n} ranks");
        check_expansions_match(&logs);
    }
}

#[test]
fn expand_off_writes_no_steps() {
    need_mpi!();
    let run = run_traced("collectives", 2, &[], &[("PSINS_EXPAND", "0")]);
    run.ok();
    for log in read_logs(&run, 2) {
        assert!(log.records.iter().all(|r| r.kind() != Kind::Step));
        assert!(log.records.iter().any(|r| r.kind() == Kind::Coll));
        assert!(log.header.settings.contains("PSINS_EXPAND=0"));
    }
}

// ------------------------------------------------------------------------------ robustness

#[test]
fn crash_leaves_readable_prefix() {
    need_mpi!();
    let run = run_traced("crash", 2, &["3", "10"], &[]);
    assert!(!run.out.status.success(), "the crash app must fail");
    let logs = run.logs();
    assert_eq!(logs.len(), 2);
    // the crashing rank (the last) wrote its buffer from the SIGSEGV handler
    let last = read_log(logs.last().unwrap());
    assert!(matches!(last.end, LogEnd::Truncated { .. }), "{:?}", last.end);
    assert!(last.records.len() >= 4, "only {} records", last.records.len());
    let before = parse_app(&run.stdout, "PSINS_COUNTS_BEFORE_CRASH");
    if let Some(c) = before.get(&1) {
        // everything counted before the crash was recorded (the crash happens between calls)
        assert_eq!(recorded_kinds(&last), expected_kinds(&c.calls));
    }
    // the other rank's log is readable too (at least its header and Init)
    let first = read_log(&logs[0]);
    assert!(!first.records.is_empty());
}

/// When one rank crashes, mpiexec SIGKILLs the others: no handler runs in them, so only what
/// they wrote before survives. Every closed block must be in the file by then. Rank 1
/// crashes at iteration 3000; with 4 KiB blocks rank 0 (killed while blocked in iteration
/// 3000 or 3001) must have at least 2500 of its Sendrecvs on disk (a 4 KiB block holds well
/// under 500 iterations' records). Before blocks were written as they closed, the 4 MiB
/// buffer never filled and the log held only its header and Init.
#[test]
fn a_killed_rank_keeps_every_closed_block() {
    need_mpi!();
    let run = run_traced("crash", 2, &["3000", "4000"], &[("PSINS_BLOCK", "4k")]);
    assert!(!run.out.status.success(), "the crash app must fail");
    let logs = run.logs();
    let survivor = read_log(&logs[0]);
    let sendrecvs = survivor.records.iter().filter(|r| r.kind() == Kind::Sendrecv).count();
    assert!(sendrecvs >= 2500, "rank 0 kept only {sendrecvs} of its ~3000 Sendrecvs");
}

/// An application that handles SIGTERM itself (handler installed before MPI_Init), or
/// ignores it, survives the signal: the run goes on to MPI_Finalize and must be traced to the
/// end, every call counted. Before, the tracer's handler closed the log at the signal, so
/// the log had no footer and nothing after it.
#[test]
fn a_survived_sigterm_keeps_tracing() {
    need_mpi!();
    for how in ["handle", "ignore"] {
        let (_, logs) = check_app("sigterm", 2, &[how, "200"]);
        assert_eq!(logs.len(), 2, "{how}");
    }
}

#[test]
fn abort_leaves_readable_prefix() {
    need_mpi!();
    let run = run_traced("abort", 2, &["3"], &[]);
    assert!(!run.out.status.success(), "the abort app must fail");
    let logs = run.logs();
    assert_eq!(logs.len(), 2);
    let l0 = read_log(&logs[0]);
    assert!(matches!(l0.end, LogEnd::Truncated { .. }), "{:?}", l0.end);
    assert!(l0.records.len() >= 2);
    assert!(matches!(l0.records.last().unwrap().op, Op::Abort { code: 3 }), "{:?}", l0.records.last());
    let before = parse_app(&run.stdout, "PSINS_COUNTS_BEFORE_ABORT");
    if let Some(c) = before.get(&0) {
        assert_eq!(recorded_kinds(&l0), expected_kinds(&c.calls));
    }
    let l1 = read_log(&logs[1]);
    assert!(!l1.records.is_empty());
}

fn run_plain(cmd: &str, args: &[&str], preload: Option<&Path>) -> Output {
    let mut c = Command::new("timeout");
    c.arg("60").arg(cmd).args(args).current_dir(root());
    if let Some(p) = preload {
        c.env("LD_PRELOAD", p);
    }
    c.output().unwrap()
}

#[test]
fn non_mpi_processes_are_unaffected() {
    need_mpi!();
    let so = tracer_so();
    let _g = serial();
    let mr = mpirun();
    for (cmd, args) in
        [("ls", vec!["-la", "c-headers"]), (mr.as_str(), vec!["--version"]), ("sh", vec!["-c", "echo hi; exit 3"])]
    {
        let a = run_plain(cmd, &args, None);
        let b = run_plain(cmd, &args, Some(&so));
        assert_eq!(a.status.code(), b.status.code(), "{cmd}");
        assert_eq!(a.stdout, b.stdout, "{cmd}: stdout differs under LD_PRELOAD");
        assert_eq!(a.stderr, b.stderr, "{cmd}: stderr differs under LD_PRELOAD");
    }
    // even with immediate binding
    let mut c = Command::new("ls");
    c.arg("/").env("LD_PRELOAD", &so).env("LD_BIND_NOW", "1");
    let o = c.output().unwrap();
    assert!(o.status.success() && o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn unwritable_directory_one_message_app_unharmed() {
    need_mpi!();
    let run = run_traced("ring", 2, &[], &[("PSINS_DIR", "/proc/psins-cannot-write-here")]);
    run.ok();
    let msgs: Vec<&str> = run.stderr.lines().filter(|l| l.contains("psins")).collect();
    assert_eq!(msgs.len(), 1, "stderr:\n{}", run.stderr);
    assert!(msgs[0].contains("/proc/psins-cannot-write-here"), "{}", msgs[0]);
    assert_eq!(parse_app(&run.stdout, "PSINS_COUNTS").len(), 2);
}

#[test]
fn bad_setting_one_message_app_unharmed() {
    need_mpi!();
    let run = run_traced("ring", 2, &[], &[("PSINS_BUFFER", "lots")]);
    run.ok();
    let msgs: Vec<&str> = run.stderr.lines().filter(|l| l.contains("psins")).collect();
    assert_eq!(msgs.len(), 1, "stderr:\n{}", run.stderr);
    assert!(msgs[0].contains("PSINS_BUFFER"), "{}", msgs[0]);
    assert!(run.job_dirs().is_empty());
}

#[test]
fn trace_off_writes_nothing() {
    need_mpi!();
    let run = run_traced("ring", 2, &[], &[("PSINS_TRACE", "0")]);
    run.ok();
    assert!(run.job_dirs().is_empty());
    assert!(!run.stderr.contains("psins"), "{}", run.stderr);
}

#[test]
fn two_runs_never_overwrite_and_settings_are_written() {
    need_mpi!();
    let a = run_traced("ring", 2, &[], &[]);
    a.ok();
    // a second run into the same PSINS_DIR
    let so = tracer_so();
    let _g = serial();
    let mut second = launcher(&["LD_PRELOAD", "PSINS_DIR"]);
    let st =
        second.args(["-n", "2"]).arg(app("ring")).env("LD_PRELOAD", &so).env("PSINS_DIR", &a.dir).output().unwrap();
    assert!(st.status.success());
    let dirs = a.job_dirs();
    assert_eq!(dirs.len(), 2, "{dirs:?}");
    for d in dirs {
        let s = std::fs::read_to_string(d.join("settings.txt")).unwrap();
        assert!(s.contains("PSINS_BUFFER=4M") && s.contains("clock="), "{s}");
        assert!(d.join("rank-000000.bin").exists() && d.join("rank-000001.bin").exists());
    }
    // rank 0 says where the logs are, once
    assert_eq!(a.stderr.lines().filter(|l| l.starts_with("psins: tracing")).count(), 1, "{}", a.stderr);
}

#[test]
fn small_buffer_flushes_many_blocks() {
    need_mpi!();
    let run = run_traced("stencil2d", 2, &[], &[("PSINS_BUFFER", "64K"), ("PSINS_BLOCK", "4K")]);
    run.ok();
    let app = parse_app(&run.stdout, "PSINS_COUNTS");
    for (rank, log) in read_logs(&run, 2).iter().enumerate() {
        assert_eq!(log.end, LogEnd::Complete);
        assert_eq!(recorded_kinds(log), expected_kinds(&app[&(rank as u32)].calls));
    }
}

#[test]
fn headers_describe_the_run() {
    need_mpi!();
    let run = run_traced("ring", 2, &[], &[]);
    run.ok();
    let logs = read_logs(&run, 2);
    assert_eq!(logs[0].header.job_id, logs[1].header.job_id);
    for l in &logs {
        assert!(l.header.clock.contains("rdtsc") || l.header.clock.contains("CLOCK_MONOTONIC"));
        assert!(!l.header.mpi_version.is_empty());
        assert!(matches!(l.records[0].op, Op::Init { .. }));
        assert!(matches!(l.records.last().unwrap().op, Op::Finalize));
        // sends complete with NO_RANK, receives with the actual source
        for r in &l.records {
            if let Op::Wait { .. } = r.op {
                for q in r.list.chunks(4) {
                    assert!(q[1] == NO_RANK as i64 || q[1] >= 0, "{:?}", r.list);
                }
            }
        }
    }
}

// ------------------------------------------------------------------------------ threads, fork

/// tests/tests/tracer_apps/misc.c, built with mpicc.
fn misc_app() -> PathBuf {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        let d = scratch("misc-build");
        let exe = d.join("misc");
        let src = root().join("tests/tests/tracer_apps/misc.c");
        let st = Command::new(std::env::var("MPICC").unwrap_or_else(|_| "mpicc".into()))
            .args(["-O2", "-o"])
            .arg(&exe)
            .arg(&src)
            .arg("-lpthread")
            .status()
            .expect("cannot run mpicc");
        assert!(st.success(), "mpicc {} failed", src.display());
        exe
    })
    .clone()
}

#[test]
fn thread_multiple_traces_the_init_thread_only() {
    need_mpi!();
    let run = run_exe("misc-threads", &misc_app(), 2, &["threads"], &[]);
    run.ok();
    let logs = read_logs(&run, 2);
    for (rank, log) in logs.iter().enumerate() {
        assert_eq!(log.end, LogEnd::Complete);
        assert!(matches!(log.records[0].op, Op::Init { thread_level: 3 }));
        // Init + the main thread's calls (dup, 200 p2p, free, finalize); none of the other
        // thread's 200 calls (they are counted in counts-NNNNNN.txt)
        assert_eq!(log.records.len(), 1 + 203, "rank {rank}");
        assert!(
            log.records.iter().all(|r| match r.op.comm() {
                None => true,
                Some(c) => c == 0 || r.kind() == Kind::Coll,
            }),
            "only MPI_COMM_WORLD traffic (the main thread's) is recorded"
        );
        let counts = std::fs::read_to_string(run.job_dir().join(format!("counts-{rank:06}.txt"))).unwrap();
        assert!(counts.contains("not traced): 200"), "{counts}");
    }
}

#[test]
fn forked_child_is_not_traced() {
    need_mpi!();
    let run = run_exe("misc-fork", &misc_app(), 2, &["fork"], &[]);
    run.ok();
    for log in read_logs(&run, 2) {
        // exactly one complete log: the child's exit wrote nothing into it
        assert_eq!(log.end, LogEnd::Complete);
        let kinds = recorded_kinds(&log);
        assert_eq!(kinds.get(&Kind::Coll), Some(&2));
        assert_eq!(kinds.get(&Kind::Finalize), Some(&1));
    }
}

#[test]
fn exit_without_finalize_leaves_readable_log() {
    need_mpi!();
    // One rank: when a rank exits without MPI_Finalize, MPICH's mpiexec SIGKILLs the ranks
    // still running, so with two the second log exists only if both exit in the same instant
    // (a loaded machine loses that race; nothing in the tracer can survive SIGKILL).
    let run = run_exe("misc-exit", &misc_app(), 1, &["exit"], &[]);
    let logs = run.logs();
    assert_eq!(logs.len(), 1, "{}", run.stderr);
    for p in logs {
        let log = read_log(&p);
        assert!(matches!(log.end, LogEnd::Truncated { .. }), "{:?}", log.end);
        assert_eq!(recorded_kinds(&log).get(&Kind::Coll), Some(&2), "both barriers written by the atexit hook");
    }
}

/// tests/tests/tracer_apps/f08.f90 built with `$MPIFORT` (default mpifort) as a `use mpi_f08`
/// program, or with `-DPSINS_USE_MPI` as a `use mpi` one; None if it cannot be.
fn fortran_app(use_mpi: bool) -> Option<PathBuf> {
    static P: [OnceLock<Option<PathBuf>>; 2] = [OnceLock::new(), OnceLock::new()];
    P[use_mpi as usize]
        .get_or_init(|| {
            let d = scratch(if use_mpi { "usempi-build" } else { "f08-build" });
            let exe = d.join("f08");
            let mut c = Command::new(std::env::var("MPIFORT").unwrap_or_else(|_| "mpifort".into()));
            c.args(["-cpp", "-O1", "-J"]).arg(&d);
            if use_mpi {
                c.arg("-DPSINS_USE_MPI");
            }
            let st = c.arg("-o").arg(&exe).arg(root().join("tests/tests/tracer_apps/f08.f90")).status().ok()?;
            st.success().then_some(exe)
        })
        .clone()
}

#[test]
fn fortran_f08_wrappers_record_details() {
    need_mpi!();
    check_fortran_details(false);
}

/// The same calls through `use mpi`, whose binding symbols `mpif.h` programs call too.
#[test]
fn fortran_use_mpi_wrappers_record_details() {
    need_mpi!();
    check_fortran_details(true);
}

fn check_fortran_details(use_mpi: bool) {
    let Some(exe) = fortran_app(use_mpi) else {
        skip_fortran(&format!("mpifort cannot build a `use {}` program", if use_mpi { "mpi" } else { "mpi_f08" }));
        return;
    };
    let run = run_exe("f08", &exe, 2, &[], &[]);
    run.ok();
    let logs = read_logs(&run, 2);
    for (rank, log) in logs.iter().enumerate() {
        assert_eq!(log.end, LogEnd::Complete);
        let ops: Vec<&Op> = log.records.iter().filter(|r| r.kind() != Kind::Step).map(|r| &r.op).collect();
        check_fortran_kinds(rank, log, &ops);
        check_fortran_colls(rank, log);
        check_fortran_waits(rank, log);
        // counted-only calls go through their Fortran wrappers too
        let counts = std::fs::read_to_string(run.job_dir().join(format!("counts-{rank:06}.txt"))).unwrap();
        for line in ["MPI_Comm_rank 1 count +f08", "MPI_Get_processor_name 1 count +f08"] {
            assert!(counts.lines().any(|l| l == line), "{line} not in\n{counts}");
        }
        // the receive with MPI_ANY_SOURCE (and MPI_STATUS_IGNORE on rank 0) records the truth
        let recv = ops.iter().find_map(|o| match o {
            Op::Recv { peer, tag, bytes, .. } => Some((*peer, *tag, *bytes)),
            _ => None,
        });
        assert_eq!(recv, Some(if rank == 0 { (1, 12, 8) } else { (0, 11, 16) }));
    }
    assert!(matches!(
        logs[1].records.iter().find(|r| r.kind() == Kind::Probe).unwrap().op,
        Op::Probe { peer: 0, tag: 11, bytes: 16, flags: 3, .. }
    ));
}

/// How many records of each kind, the communicator constructors, and the `other` records.
fn check_fortran_kinds(rank: usize, log: &Log, ops: &[&Op]) {
    let k = recorded_kinds(log);
    assert_eq!(k.get(&Kind::Init), Some(&1));
    assert_eq!(k.get(&Kind::Finalize), Some(&1));
    assert_eq!(
        k.get(&Kind::Coll),
        Some(&9),
        "bcast reduce allreduce barrier(sub) barrier(idup) iallgatherv alltoallw neighbor_allgather ibarrier"
    );
    assert_eq!(k.get(&Kind::CommCreate), Some(&3), "split idup cart_create");
    assert_eq!(k.get(&Kind::CommFree), Some(&3));
    // MPI_Comm_idup: its other_req, then its communicator (of the world's members), on which
    // the barrier is
    let idup = ops.iter().position(|o| matches!(o, Op::OtherReq { func: 107, .. })).expect("no Comm_idup");
    let Op::CommCreate { func: psins_formats::CommFn::Idup, parent: 0, comm: dup, .. } = *ops[idup + 1] else {
        panic!("rank {rank}: {:?} after MPI_Comm_idup", ops[idup + 1])
    };
    assert!(ops.iter().any(|o| matches!(o, Op::Coll { coll: psins_formats::Coll::Barrier, comm, .. } if *comm == dup)));
    assert_eq!(k.get(&Kind::Probe), Some(&[1, 3][rank]), "probe mprobe (rank 1), iprobe");
    assert_eq!(k.get(&Kind::Recv), Some(&[1, 2][rank]), "recv, mrecv (rank 1)");
    assert!(
        ops.iter().any(|o| matches!(o, Op::CommCreate { func: psins_formats::CommFn::CartCreate, .. })),
        "no cart_create"
    );
    // MPI-IO calls are `other` records (ids of c-headers/mpi_functions.tbl): File_open 537,
    // File_close 538, File_delete 539 (rank 0), File_write_at 551
    let mut others: Vec<u32> =
        ops.iter().filter_map(|o| if let Op::Other { func } = o { Some(*func) } else { None }).collect();
    others.sort();
    let mut want = vec![537, 538, 551];
    if rank == 0 {
        want.insert(2, 539);
    }
    assert_eq!(others, want);
    // one-sided: Win_create, Win_fence, Put of one integer to the other rank, Win_fence, Win_free
    let rma: Vec<Op> = ops
        .iter()
        .filter(|o| matches!(o, Op::Rma { .. } | Op::WinSync { .. } | Op::WinCreate { .. } | Op::WinFree { .. }))
        .map(|o| **o)
        .collect();
    let fence = Op::WinSync { func: psins_formats::WinSyncFn::Fence, win: 0, rank: NO_RANK, flags: 0 };
    let put = Op::Rma { func: psins_formats::RmaFn::Put, target: 1 - rank as i32, win: 0, bytes: 4, rbytes: 0, req: 0 };
    let create = Op::WinCreate { func: psins_formats::WinFn::Create, comm: 0, win: 0 };
    assert_eq!(rma, [create, fence, put, fence, Op::WinFree { win: 0 }], "rank {rank}");
}

/// The collectives, with what the Fortran arguments had to be converted for: MPI_IN_PLACE,
/// and Alltoallw's one datatype per peer (4 bytes to even ranks, 8 to odd ones).
fn check_fortran_colls(rank: usize, log: &Log) {
    use psins_formats::{Coll, CollFlags};
    let colls: Vec<(Coll, u8, &Vec<i64>)> = log
        .records
        .iter()
        .filter_map(|r| if let Op::Coll { coll, flags, .. } = r.op { Some((coll, flags, &r.list)) } else { None })
        .collect();
    let names: Vec<Coll> = colls.iter().map(|c| c.0).collect();
    assert!(names.contains(&Coll::Allgatherv) && names.contains(&Coll::NeighborAllgather), "{names:?}");
    let reduce = colls.iter().find(|c| c.0 == Coll::Reduce).unwrap();
    assert_eq!(reduce.1 & CollFlags::IN_PLACE != 0, rank == 0, "MPI_IN_PLACE at the root of the reduce");
    let alltoallw = colls.iter().find(|c| c.0 == Coll::Alltoallw).unwrap();
    let mine = [4, 8][rank];
    assert_eq!(alltoallw.2, &vec![4, 8, mine, mine], "alltoallw send then receive bytes per peer");
}

/// Completions: Waitany's (a Fortran 1-based index) and Waitall's together complete the
/// irecv and isend of tag 14 once each, Waitsome's (1-based indices) those of tag 15, and the
/// nonblocking barrier completes with source NO_RANK.
fn check_fortran_waits(rank: usize, log: &Log) {
    use psins_formats::WaitFn;
    let other = 1 - rank as i64;
    let req_of = |t: i32, recv: bool| {
        log.records
            .iter()
            .find_map(|r| match r.op {
                Op::Irecv { tag, req, .. } if recv && tag == t => Some(req as i64),
                Op::Isend { tag, req, .. } if !recv && tag == t => Some(req as i64),
                _ => None,
            })
            .unwrap()
    };
    let completions = |fns: &[WaitFn]| -> Vec<Vec<i64>> {
        let mut v: Vec<Vec<i64>> = log
            .records
            .iter()
            .filter(|r| matches!(r.op, Op::Wait { func, .. } if fns.contains(&func)))
            .flat_map(|r| r.list.chunks(4).map(|q| q.to_vec()))
            .collect();
        v.sort();
        v
    };
    let nr = NO_RANK as i64;
    let want14 = {
        let mut w = vec![vec![req_of(14, true), other, 14, 12], vec![req_of(14, false), nr, 0, 0]];
        w.sort();
        w
    };
    assert_eq!(completions(&[WaitFn::Waitany]).len(), 1, "Waitany completes one request");
    assert_eq!(completions(&[WaitFn::Waitany, WaitFn::Waitall]), want14);
    let mut want15 = vec![vec![req_of(15, true), other, 15, 8], vec![req_of(15, false), nr, 0, 0]];
    want15.sort();
    assert_eq!(completions(&[WaitFn::Waitsome]), want15);
    let last = log.records.iter().rev().find(|r| matches!(r.op, Op::Wait { .. })).unwrap();
    assert_eq!(last.list.len(), 4);
    assert_eq!(last.list[1], nr);
}

/// tests/tests/tracer_apps/pcontrol.f90 built with `$MPIFORT` and `define` (None: `use
/// mpi_f08`); None if it cannot be.
fn fortran_pcontrol_app(define: Option<&str>) -> Option<PathBuf> {
    let d = scratch("pcontrol-f-build");
    let exe = d.join("pcontrol_f");
    let mut c = Command::new(std::env::var("MPIFORT").unwrap_or_else(|_| "mpifort".into()));
    c.args(["-cpp", "-O1", "-J"]).arg(&d).args(define);
    let st = c.arg("-o").arg(&exe).arg(root().join("tests/tests/tracer_apps/pcontrol.f90")).status().ok()?;
    st.success().then_some(exe)
}

/// MPI_Pcontrol from every Fortran binding is recorded as the C function is (with MPICH, the
/// `mpif.h`/`use mpi` binding calls the C function and mpi_f08 has its own wrapper; with Open
/// MPI all three have one): the same records, exactly, in each rank's log and in the trace.
#[test]
fn fortran_pcontrol_is_recorded_from_every_binding() {
    need_mpi!();
    // what pcontrol.f90 records on each rank: nothing between the pause and the resume
    let want = ["init", "pcontrol 2", "Barrier", "pcontrol -2", "pcontrol 0", "pcontrol 3", "Barrier", "pcontrol 0"];
    let want: Vec<&str> = want.into_iter().chain(["finalize"]).collect();
    for (binding, define) in
        [("mpi_f08", None), ("use mpi", Some("-DPSINS_USE_MPI")), ("mpif.h", Some("-DPSINS_MPIF_H"))]
    {
        let Some(exe) = fortran_pcontrol_app(define) else {
            skip_fortran(&format!("mpifort cannot build a {binding} program"));
            continue;
        };
        let run = run_exe("pcontrol-f", &exe, 2, &[], &[]);
        run.ok();
        assert_eq!(run.stdout.matches(" done").count(), 2, "{binding}: {}", run.stdout);
        for (rank, log) in read_logs(&run, 2).iter().enumerate() {
            assert_eq!(log.end, LogEnd::Complete);
            let ops: Vec<String> = log
                .records
                .iter()
                .filter(|r| r.kind() != Kind::Step)
                .map(|r| match r.op {
                    Op::Pcontrol { level } => format!("pcontrol {level}"),
                    Op::Coll { coll, .. } => format!("{coll:?}"),
                    op => op.kind().name().to_string(),
                })
                .collect();
            assert_eq!(ops, want, "{binding}, rank {rank}");
        }
        // the consolidated trace, as psins-dump shows it: the levels of each task in order
        let trace = run.dir.join("pcontrol-f.psins");
        run_tool("psins-consolidate", &[run.job_dir().as_os_str(), "-o".as_ref(), trace.as_os_str()]);
        for task in ["0", "1"] {
            let dump = run_tool("psins-dump", &[trace.as_os_str(), "--task".as_ref(), task.as_ref()]);
            let text = String::from_utf8(dump.stdout).unwrap();
            let levels: Vec<&str> = text
                .lines()
                .filter(|l| l.contains(" pcontrol "))
                .filter_map(|l| l.split_whitespace().find_map(|w| w.strip_prefix("level=")))
                .collect();
            assert_eq!(levels, ["2", "-2", "0", "3", "0"], "{binding}, task {task}:\n{text}");
        }
    }
}
