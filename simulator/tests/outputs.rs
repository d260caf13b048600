//! Outputs and exit codes of psins-sim and psins-synth as a user meets them (docs/exit-codes.md):
//! outputs follow the shared rule (an input is never overwritten, `-` is stdout, checked before
//! the replay), a full stdout is exit 3 with one message, never a panic or a silent 0.

use crate::common;
use common::*;
use std::process::{Command, Stdio};

const SIM: &str = env!("CARGO_BIN_EXE_psins-sim");
const SYNTH: &str = env!("CARGO_BIN_EXE_psins-synth");

fn machine_file() -> std::path::PathBuf {
    let p = tmp("out-m.toml");
    std::fs::write(&p, BASE).unwrap();
    p
}

/// Runs `bin` with stdout on /dev/full: (exit code, stderr).
fn to_full(bin: &str, args: &[&str]) -> (i32, String) {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let o = Command::new(bin).args(args).stdout(Stdio::from(full)).output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into())
}

fn code(bin: &str, args: &[&str]) -> (i32, String, String) {
    let o = Command::new(bin).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

#[test]
fn a_full_stdout_is_exit_3_with_one_message() {
    let m = machine_file();
    let m = m.to_str().unwrap();
    let torus = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/torus-8x8.toml");
    for args in [
        vec!["gen:pingpong:ranks=2,iters=2", "-m", m],
        vec!["check", m],
        vec!["--list-models"],
        vec!["synth", "-m", torus, "--measure", "200", "--warmup", "100"],
    ] {
        let (c, err) = to_full(SIM, &args);
        assert_eq!(c, 3, "{args:?}: {err}");
        assert_eq!(err.lines().filter(|l| l.contains("standard output")).count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let (c, err) = to_full(SYNTH, &["gen:pingpong:ranks=2,iters=2", "-o", "-"]);
    assert_eq!(c, 3, "{err}");
}

#[test]
fn json_and_timeline_are_checked_before_the_replay() {
    // A trace that deadlocks: today the deadlock (found by the replay) would come first.
    let trace = write("out-dl.psins", &[vec![recv(0, 1, 8), fin()], vec![recv(0, 0, 8), fin()]], vec![]);
    let m = machine_file();
    for opt in ["--json", "--timeline"] {
        let (c, _, err) =
            code(SIM, &[trace.to_str().unwrap(), "-m", m.to_str().unwrap(), opt, "/proc/nonexistent-dir/x.json"]);
        assert_eq!(c, 3, "{opt}: {err}");
        assert!(err.contains("/proc/nonexistent-dir/x.json") && !err.contains("deadlock"), "{opt}: {err}");
    }
    // An output onto the trace itself is refused and the trace left intact.
    let before = std::fs::read(&trace).unwrap();
    let (c, _, err) =
        code(SIM, &[trace.to_str().unwrap(), "-m", m.to_str().unwrap(), "--json", trace.to_str().unwrap()]);
    assert_eq!(c, 3, "{err}");
    assert!(err.contains("is the input"), "{err}");
    assert_eq!(std::fs::read(&trace).unwrap(), before);
}

#[test]
fn a_failed_replay_leaves_the_old_json_untouched() {
    // A send to a rank outside the communicator: a bad record found during the replay.
    let trace = write("out-bad2.psins", &[vec![send(0, 5, 8), fin()], vec![fin()]], vec![]);
    let (m, json) = (machine_file(), tmp("out-old.json"));
    std::fs::write(&json, "old").unwrap();
    let (c, _, err) =
        code(SIM, &[trace.to_str().unwrap(), "-m", m.to_str().unwrap(), "--json", json.to_str().unwrap()]);
    assert_eq!(c, 1, "{err}");
    assert_eq!(std::fs::read_to_string(&json).unwrap(), "old");
    let dir = json.parent().unwrap();
    let stale = std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().contains("out-old.json.tmp"))
        .count();
    assert_eq!(stale, 0, "temporary file left behind");
}

#[test]
fn a_deadlock_still_writes_the_json_report_and_a_closed_timeline() {
    let trace = write("out-dl2.psins", &[vec![recv(0, 1, 8), fin()], vec![recv(3, 0, 8), fin()]], vec![]);
    let (m, json, tl) = (machine_file(), tmp("out-dl.json"), tmp("out-dl-tl.json"));
    let args = [trace.to_str().unwrap(), "-m", m.to_str().unwrap(), "--json", json.to_str().unwrap()];
    let (c, out, err) = code(SIM, &[&args[..], &["--timeline", tl.to_str().unwrap()][..]].concat());
    assert_eq!(c, 4, "{err}");
    assert!(out.is_empty(), "no prediction table: {out}");
    assert!(err.contains("rank 1: MPI_Recv (record 0, called at 3.000 µs)"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["status"], "deadlock");
    assert!(v["predicted_seconds"].is_null(), "no prediction: {v}");
    let d = &v["deadlock"];
    assert_eq!(d["blocked_total"], 2);
    assert_eq!(d["blocked"].as_array().unwrap().len(), 2);
    assert_eq!(d["blocked"][1]["rank"], 1);
    assert_eq!(d["blocked"][1]["call"], "MPI_Recv");
    assert_eq!(d["blocked"][1]["called_at_s"], 3e-6);
    let w = d["blocked"][0]["waits_for"][0].as_str().unwrap();
    assert!(w.contains("from world rank 1") && w.contains("never sent"), "{w}");
    assert!(d["message"].as_str().unwrap().starts_with("deadlock: no task can progress"));
    assert_eq!(v["provenance"]["trace"]["path"], trace.to_str().unwrap());
    // The timeline is complete JSON (closed), with the computation before the blocked receive.
    let t: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&tl).unwrap()).unwrap();
    let events = t["traceEvents"].as_array().unwrap();
    assert!(events.iter().any(|e| e["name"] == "compute" && e["tid"] == 1 && e["dur"] == 3.0), "{t}");
}

#[test]
fn dash_is_stdout_for_every_output_option() {
    let m = machine_file();
    let (c, out, err) = code(SIM, &["gen:pingpong:ranks=2,iters=2", "-m", m.to_str().unwrap(), "-q", "--json", "-"]);
    assert_eq!(c, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["predicted_seconds"].is_number() || v.is_object(), "{out}");
    let (c, out, err) =
        code(SIM, &["gen:pingpong:ranks=2,iters=2", "-m", m.to_str().unwrap(), "-q", "--timeline", "-"]);
    assert_eq!(c, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["traceEvents"].is_array(), "{out}");
    let o = Command::new(SYNTH).args(["gen:pingpong:ranks=2,iters=2", "-o", "-"]).output().unwrap();
    assert!(o.status.success());
    assert_eq!(&o.stdout[..8], psins_formats::magic::TRACE_MAGIC, "a trace on stdout");
}

#[test]
fn one_exit_code_scheme() {
    let m = machine_file();
    // 2: bad command-line usage, in both tools.
    assert_eq!(code(SIM, &["--bogus"]).0, 2);
    assert_eq!(code(SYNTH, &["--bogus"]).0, 2);
    assert_eq!(code(SYNTH, &["gen:nonsense", "-o", "/dev/null"]).0, 2);
    assert_eq!(code(SIM, &["gen:nonsense", "-m", m.to_str().unwrap()]).0, 2);
    // 4: deadlock.
    let trace = write("out-dl3.psins", &[vec![recv(0, 1, 8), fin()], vec![recv(0, 0, 8), fin()]], vec![]);
    assert_eq!(code(SIM, &[trace.to_str().unwrap(), "-m", m.to_str().unwrap()]).0, 4);
}
