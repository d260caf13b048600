//! `PSINS_CLOCK=cpu` under real `mpirun` (docs/tracer.md, "Timing"): a rank that sleeps
//! between its calls and one that computes for as long (`mpi-test-apps/sleepspin.c`), traced
//! on each clock. On the CPU clock the sleeping rank's bursts are almost nothing and the
//! computing rank's are its CPU time; on the wall clock both are the time that passed; either
//! way the traced bursts are what the app measured around them itself. The log header, the
//! compact trace, `psins-dump --header` and `psins-sim` say which clock timed the bursts; a
//! value that is no clock is one message and no trace.

use psins_e2e::*;
use psins_formats::{BurstClock, Op, TraceReader};
use std::collections::BTreeMap;

const ITERS: u64 = 40;
const USEC: u64 = 2000;

/// PSINS_SLEEPSPIN per rank: (mode, cpu_ns, wall_ns) the app measured around its bursts.
fn app_bursts(stdout: &str) -> BTreeMap<u32, (String, u64, u64)> {
    let mut m = BTreeMap::new();
    for line in stdout.lines().filter(|l| l.starts_with("PSINS_SLEEPSPIN ")) {
        let kv: BTreeMap<&str, &str> = line.split_whitespace().skip(1).filter_map(|t| t.split_once('=')).collect();
        let n = |k: &str| kv[k].parse::<u64>().unwrap();
        m.insert(n("rank") as u32, (kv["mode"].to_string(), n("cpu_ns"), n("wall_ns")));
    }
    m
}

/// The traced bursts of the loop: the gaps of the barriers after the first one (each comes
/// after one sleep or spin), summed.
fn loop_bursts(log: &Log) -> u64 {
    let gaps: Vec<u64> = log.records.iter().filter(|r| matches!(r.op, Op::Coll { .. })).map(|r| r.gap_ns).collect();
    assert_eq!(
        gaps.len() as u64,
        ITERS + 1,
        "rank {}: one barrier before the loop and one per iteration",
        log.header.rank
    );
    gaps[1..].iter().sum()
}

/// Runs sleepspin at 2 ranks with PSINS_CLOCK=`clock` (None: unset) and checks each rank's
/// traced bursts against what the app measured: `cpu` — the CPU clock — the app's CPU time,
/// else its wall time. Returns the run.
fn traced_against_the_app(clock: Option<&str>, cpu: bool) -> Run {
    let (iters, usec) = (ITERS.to_string(), USEC.to_string());
    let env: Vec<(&str, &str)> = clock.iter().map(|c| ("PSINS_CLOCK", *c)).collect();
    let run = run_traced("sleepspin", 2, &[&iters, &usec], &env);
    run.ok();
    let app = app_bursts(&run.stdout);
    assert_eq!(app.len(), 2, "stdout:\n{}", run.stdout);
    let logs = read_logs(&run, 2);
    let slept = ITERS * USEC * 1000;
    for log in &logs {
        let rank = log.header.rank;
        let (mode, app_cpu, app_wall) = &app[&rank];
        let traced = loop_bursts(log);
        // the tracer's own work, the app's clock reads and a reading of the CPU clock when the
        // thread slept: a few microseconds per burst, at most 20
        let slack = ITERS * 20_000;
        let what = format!(
            "rank {rank} ({mode}, PSINS_CLOCK={clock:?}): traced {traced} ns, app cpu {app_cpu} wall {app_wall}"
        );
        if cpu {
            // CPU time is what the app measured, however loaded the host
            assert!(traced + slack >= *app_cpu && traced <= app_cpu + app_cpu / 20 + slack, "{what}");
        } else {
            // wall time holds the app's and more: a loaded host may take the CPU away between
            // the app's clock read and the call
            assert!(traced + slack >= *app_wall && traced <= 2 * app_wall + slack, "{what}");
        }
        match (mode.as_str(), cpu) {
            // asleep for 80 ms: on the CPU clock a few percent of it at most
            ("sleep", true) => assert!(traced < slept / 10, "{what}"),
            // the wall clock sees the sleep whole
            ("sleep", false) => assert!(traced >= slept, "{what}"),
            // 80 ms of CPU time on either clock (the wall clock's more when the spin waited for a CPU)
            _ => assert!(traced + slack >= slept, "{what}"),
        }
    }
    run
}

#[test]
fn a_sleeping_rank_has_no_cpu_bursts_and_a_spinning_one_has_them_all() {
    need_mpi!();
    let run = traced_against_the_app(Some("cpu"), true);
    for log in read_logs(&run, 2) {
        let h = &log.header;
        assert_eq!(h.burst_clock(), Some(BurstClock::Cpu), "{}", h.settings);
        assert!(h.settings.split(' ').any(|kv| kv == "PSINS_CLOCK=cpu"), "{}", h.settings);
        // both clocks named: the bursts' and the calls'
        assert!(h.clock.starts_with("bursts: thread CPU time, clock_gettime(CLOCK_THREAD_CPUTIME_ID)"), "{}", h.clock);
        assert!(h.clock.contains("; calls: "), "{}", h.clock);
    }
    let settings = std::fs::read_to_string(run.job_dir().join("settings.txt")).unwrap();
    assert!(settings.contains("PSINS_CLOCK=cpu    # env\n") && settings.contains("clock=bursts: "), "{settings}");
    // the compact trace carries it, and the tools show it
    let trace = run.dir.join("sleepspin.psins");
    run_tool("psins-consolidate", &[run.job_dir().as_os_str(), "-o".as_ref(), trace.as_os_str()]);
    assert_eq!(TraceReader::open(&trace).unwrap().header.burst_clock(), Some(BurstClock::Cpu));
    let head = run_tool("psins-dump", &["--header".as_ref(), "--json".as_ref(), trace.as_os_str()]);
    let v: serde_json::Value = serde_json::from_slice(&head.stdout).unwrap();
    assert_eq!(v["bursts"], "cpu", "{v}");
    let m = root().join("configs/bus-cluster.toml");
    let json = run.dir.join("sleepspin.json");
    let sim = run_tool(
        "psins-sim",
        &[
            trace.as_os_str(),
            "-m".as_ref(),
            m.as_os_str(),
            "--no-progress".as_ref(),
            "--json".as_ref(),
            json.as_os_str(),
        ],
    );
    let text = String::from_utf8_lossy(&sim.stdout);
    assert!(text.contains("\nbursts:      the calling thread's CPU time between calls (PSINS_CLOCK=cpu)"), "{text}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["measured"]["bursts"], "cpu", "{v}");
}

/// The same clock read by a system call at every call's entry and exit: what `cpu` does where
/// the kernel's rseq area cannot say when the thread left its CPU.
#[test]
fn the_cpu_clock_read_at_every_call_agrees() {
    need_mpi!();
    let run = traced_against_the_app(Some("cpu-syscall"), true);
    for log in read_logs(&run, 2) {
        assert_eq!(log.header.burst_clock(), Some(BurstClock::Cpu));
        assert!(log.header.clock.contains("read at every call's entry and exit; calls: "), "{}", log.header.clock);
    }
}

#[test]
fn the_wall_clock_sees_the_sleep() {
    need_mpi!();
    let run = traced_against_the_app(None, false);
    for log in read_logs(&run, 2) {
        assert_eq!(log.header.burst_clock(), Some(BurstClock::Wall));
        assert!(log.header.settings.split(' ').any(|kv| kv == "PSINS_CLOCK=wall"), "{}", log.header.settings);
        assert!(!log.header.clock.contains("bursts:"), "{}", log.header.clock);
    }
}

#[test]
fn a_clock_that_is_none_is_one_message_and_no_trace() {
    need_mpi!();
    let run = run_traced("sleepspin", 2, &["2", "100"], &[("PSINS_CLOCK", "thread")]);
    run.ok();
    let msgs: Vec<&str> = run.stderr.lines().filter(|l| l.contains("psins")).collect();
    assert_eq!(msgs.len(), 1, "stderr:\n{}", run.stderr);
    assert!(
        msgs[0].contains("PSINS_CLOCK=\"thread\" is not valid: expected one of wall, cpu, cpu-syscall"),
        "{}",
        msgs[0]
    );
    assert!(run.job_dirs().is_empty());
    assert_eq!(app_bursts(&run.stdout).len(), 2, "the app runs normally:\n{}", run.stdout);
}
