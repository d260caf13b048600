//! End-to-end tests of what real codes' habits make of a trace:
//! polling loops folded into `poll` records, MPI_Pcontrol regions and pauses, and the
//! collective thresholds among the tracer's settings. Real `mpirun`, real apps
//! (`mpi-test-apps/poll.c`, `pcontrol.c`), their own call counts.

use psins_e2e::*;
use psins_formats::{Kind, LogEncoder, LogReader, Op, PollKey, PollRun, Record, TraceReader};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Unsuccessful polls the poll app made on rank 1, from its summary line.
fn app_polls(stdout: &str) -> u64 {
    let line = stdout.lines().find(|l| l.starts_with("poll: ")).unwrap_or_else(|| panic!("no summary in\n{stdout}"));
    line.split(", ").nth(1).and_then(|s| s.split(' ').next()).unwrap().parse().unwrap()
}

/// Unsuccessful polls in a log: the calls of its `poll` records and the single ones.
fn logged_polls(log: &Log) -> (u64, u64) {
    let (mut calls, mut records) = (0, 0);
    for r in &log.records {
        if let Some((_, n)) = r.op.unfold_poll() {
            calls += n;
            records += 1;
        } else if PollKey::of(&r.op, &r.list).is_some() {
            calls += 1;
        }
    }
    (calls, records)
}

fn consolidate(job: &Path, out: &Path) {
    run_tool("psins-consolidate", &[job.as_os_str(), "-o".as_ref(), out.as_os_str()]);
}

/// `psins-sim --json` of `trace` on bus-cluster with extra `--set`s and `--tracer-overhead`.
fn simulate(trace: &Path, sets: &[&str], tracer: &str) -> serde_json::Value {
    let json = trace.with_extension(format!("{}{tracer}.json", sets.join("_").replace(['=', '.'], "-")));
    let m = root().join("configs/bus-cluster.toml");
    let mut args: Vec<&OsStr> = vec![trace.as_os_str(), "-m".as_ref(), m.as_os_str(), "-q".as_ref()];
    args.extend(["--tracer-overhead".as_ref(), OsStr::new(tracer)]);
    for s in sets {
        args.extend(["--set".as_ref(), OsStr::new(s)]);
    }
    args.extend(["--json".as_ref(), json.as_os_str()]);
    run_tool("psins-sim", &args);
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

/// The job directory `job` with every log folded as the tracer folds (the same
/// `psins_formats::PollRun`), into `out`.
fn fold_job(job: &Path, out: &Path) {
    std::fs::create_dir_all(out).unwrap();
    for e in std::fs::read_dir(job).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_owned();
        if p.extension() != Some(OsStr::new("bin")) {
            std::fs::copy(&p, out.join(&name)).unwrap();
            continue;
        }
        let mut r = LogReader::open(&p).unwrap();
        let (mut buf, mut enc, mut run) = (Vec::new(), LogEncoder::new(), PollRun::default());
        r.header.write(&mut buf);
        let mut rec = Record::default();
        while r.next(&mut rec).unwrap() {
            if let Some(key) = PollKey::of(&rec.op, &rec.list) {
                if let Some(done) = run.add(key, rec.gap_ns, rec.dur_ns) {
                    enc.push(&mut buf, &Record::new(done.gap, done.dur, done.op()));
                }
                continue;
            }
            if let Some(done) = run.take() {
                enc.push(&mut buf, &Record::new(done.gap, done.dur, done.op()));
            }
            enc.push(&mut buf, &rec);
        }
        enc.finish(&mut buf);
        std::fs::write(out.join(name), buf).unwrap();
    }
}

#[test]
fn polling_is_folded_and_every_call_still_counted() {
    need_mpi!();
    let (run, logs) = check_app("poll", 2, &["12", "20000"]);
    let (calls, records) = logged_polls(&logs[1]);
    assert_eq!(calls, app_polls(&run.stdout), "every unsuccessful poll the app made is in a poll record");
    assert!(calls >= 12 * 20000, "{calls}");
    // each message: a run before the go message and one after it, at most
    assert!((12..=24).contains(&records), "{records} poll records for 12 messages");
    assert!(logs[1].records.len() < 200, "{} records on the polling rank", logs[1].records.len());
    let settings = std::fs::read_to_string(run.job_dir().join("settings.txt")).unwrap();
    assert!(settings.contains("PSINS_FOLD_POLLS=1    # default\n"), "{settings}");
    // every poll function of the app was folded
    let mut funcs: Vec<Op> = logs[1].records.iter().filter_map(|r| r.op.unfold_poll()).map(|(op, _)| op).collect();
    funcs.dedup();
    assert!(funcs.len() >= 6, "{funcs:?}");
}

#[test]
fn unfolded_polling_replays_the_same_and_is_100_times_larger() {
    need_mpi!();
    let (run, logs) = check_app_env("poll", 2, &["12", "20000"], &[("PSINS_FOLD_POLLS", "0")]);
    let (calls, records) = logged_polls(&logs[1]);
    assert_eq!((calls, records), (app_polls(&run.stdout), 0), "one record per poll, none folded");
    let settings = std::fs::read_to_string(run.job_dir().join("settings.txt")).unwrap();
    assert!(settings.contains("PSINS_FOLD_POLLS=0    # env\n"), "{settings}");

    // the same execution folded as the tracer folds, then both consolidated and replayed
    let job = run.job_dir();
    let folded_job: PathBuf = run.dir.parent().unwrap().join("folded");
    fold_job(&job, &folded_job);
    let (plain, folded) = (run.dir.join("plain.psins"), run.dir.join("folded.psins"));
    consolidate(&job, &plain);
    consolidate(&folded_job, &folded);
    let (pb, fb) = (std::fs::metadata(&plain).unwrap().len(), std::fs::metadata(&folded).unwrap().len());
    assert!(pb >= 100 * fb, "unfolded trace {pb} bytes, folded {fb} bytes: less than 100 times smaller");
    let folded_records: u64 = TraceReader::open(&folded).unwrap().header.tasks.iter().map(|t| t.records).sum();
    assert!(folded_records < 300, "{folded_records}");

    // gaps as traced, then a fixed tracer cost taken off each (psins-sim --tracer-overhead)
    for sets in [&[][..], &["mpi.call_overhead=100ns"]] {
        let (a, b) = (simulate(&plain, sets, "0"), simulate(&folded, sets, "0"));
        assert_eq!(a["predicted_ps"], b["predicted_ps"], "{sets:?}: the folded trace predicts the same time");
        assert_eq!(a["tasks"], b["tasks"], "{sets:?}: per-task compute, communication and wait");
        assert_eq!(a["functions"], b["functions"], "{sets:?}: calls and time per MPI function");
        assert_eq!(a["measured"], b["measured"], "{sets:?}: the traced span beside the prediction");
    }
    // a CPU ratio rounds each burst to the picosecond: one burst per poll record instead of
    // one per call, so within a picosecond per folded call
    let cpu = ["machine.cpu_ratio=3"];
    let (a, b) = (simulate(&plain, &cpu, "0"), simulate(&folded, &cpu, "0"));
    let (pa, pf) = (a["predicted_ps"].as_u64().unwrap(), b["predicted_ps"].as_u64().unwrap());
    assert!(pa.abs_diff(pf) <= calls, "cpu_ratio 3: {pa} vs {pf} ps");
    // a fixed tracer cost comes off every call's gap, folded or not (no gap here is that short)
    let (a, b) = (simulate(&plain, &[], "5ns"), simulate(&folded, &[], "5ns"));
    assert_eq!(a["predicted_ps"], b["predicted_ps"], "--tracer-overhead 5ns");
    assert_eq!(a["tasks"], b["tasks"], "--tracer-overhead 5ns");
    // `auto` samples the smallest gap among each rank's first records as the tracer folds
    // them, so both traces get the same floor
    let (a, b) = (simulate(&plain, &[], "auto"), simulate(&folded, &[], "auto"));
    let (pa, pf) = (a["predicted_ps"].as_u64().unwrap(), b["predicted_ps"].as_u64().unwrap());
    assert_eq!(pa, pf, "--tracer-overhead auto");
    assert_eq!(
        a["source"].as_str().unwrap().split(", the").nth(1),
        b["source"].as_str().unwrap().split(", the").nth(1)
    );
}

#[test]
fn pcontrol_pauses_recording_and_marks_regions() {
    need_mpi!();
    let (run, logs) = check_app("pcontrol", 2, &["5"]);
    for log in &logs {
        let levels: Vec<i32> = log
            .records
            .iter()
            .filter_map(|r| if let Op::Pcontrol { level } = r.op { Some(level) } else { None })
            .collect();
        assert_eq!(levels, [2, 3, 0, 1, 0]);
        // nothing between the pause and the resume
        let at = |lv: i32, nth: usize| {
            log.records.iter().enumerate().filter(|(_, r)| r.op == Op::Pcontrol { level: lv }).nth(nth).unwrap().0
        };
        assert_eq!(at(1, 0), at(0, 0) + 1, "records while paused");
        // the paused span (five iterations of work) is the resume's burst
        assert!(log.records[at(1, 0)].gap_ns > 500_000, "{:?}", log.records[at(1, 0)]);
        assert_eq!(log.records.last().unwrap().kind(), Kind::Finalize, "finalize recorded while paused");
    }
    let trace = run.dir.join("pcontrol.psins");
    consolidate(&run.job_dir(), &trace);
    let dump = run_tool("psins-dump", &[trace.as_os_str(), "--task".as_ref(), "1".as_ref()]);
    let text = String::from_utf8(dump.stdout).unwrap();
    assert!(text.contains(" pcontrol ") && text.contains(" level=0") && text.contains(" level=3"), "{text}");
    let v = simulate(&trace, &[], "auto");
    let regions = v["regions"].as_object().unwrap();
    let keys: Vec<&str> = regions.keys().map(String::as_str).collect();
    assert_eq!(keys, ["0", "1", "2", "3"]);
    let secs = |lv: &str, k: &str| regions[lv][k].as_f64().unwrap();
    assert!(secs("0", "compute_s") > 0.0 && secs("2", "comm_s") > 0.0 && secs("3", "comm_s") > 0.0, "{regions:?}");
    // the regions split the tasks' times, nothing more, nothing less
    let tasks = v["tasks"].as_array().unwrap();
    for k in ["compute_s", "comm_s", "wait_s"] {
        let by_task: f64 = tasks.iter().map(|t| t[k].as_f64().unwrap()).sum();
        let by_region: f64 = keys.iter().map(|lv| secs(lv, k)).sum();
        assert!((by_task - by_region).abs() <= 1e-9 * by_task.max(1.0), "{k}: {by_task} vs {by_region}");
    }
    let table =
        run_tool("psins-sim", &[trace.as_os_str(), "-m".as_ref(), root().join("configs/bus-cluster.toml").as_os_str()]);
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(table.contains("MPI_Pcontrol region") && table.contains("level 0 (paused, untraced)"), "{table}");
}

#[test]
fn a_malformed_collective_threshold_is_one_message_naming_it() {
    need_mpi!();
    let env = [("PSINS_COLL_BCAST_SHORT_MSG_SIZE", "4096"), ("PSINS_COLL_ALLTOALL_THROTTLE", "lots")];
    let run = run_traced("ring", 2, &[], &env);
    run.ok();
    let msgs: Vec<&str> = run.stderr.lines().filter(|l| l.contains("psins")).collect();
    assert_eq!(msgs.len(), 1, "stderr:\n{}", run.stderr);
    assert!(msgs[0].contains("PSINS_COLL_ALLTOALL_THROTTLE=\"lots\""), "{}", msgs[0]);
    assert!(run.job_dirs().is_empty(), "not traced with the defaults instead");
    assert_eq!(parse_app(&run.stdout, "PSINS_COUNTS").len(), 2, "the app ran");
}

#[test]
fn collective_thresholds_are_recorded_in_settings() {
    need_mpi!();
    let run = run_traced("ring", 2, &[], &[("PSINS_COLL_BCAST_SHORT_MSG_SIZE", "4096")]);
    run.ok();
    let s = std::fs::read_to_string(run.job_dir().join("settings.txt")).unwrap();
    assert!(s.contains("PSINS_COLL_BCAST_SHORT_MSG_SIZE=4096    # env\n"), "{s}");
    assert!(s.contains("PSINS_COLL_ALLREDUCE_SHORT_MSG_SIZE=8    # default\n"), "{s}");
    let log = read_logs(&run, 2).remove(0);
    assert!(log.header.settings.contains("PSINS_COLL_BCAST_SHORT_MSG_SIZE=4096"), "{}", log.header.settings);
}
