//! The binaries as a user runs them: exit codes, outputs, error messages.

use crate::common;
use common::*;
use std::process::Command;

const SIM: &str = env!("CARGO_BIN_EXE_psins-sim");
const SYNTH: &str = env!("CARGO_BIN_EXE_psins-synth");

fn machine_file(extra: &str) -> std::path::PathBuf {
    let p = tmp("m.toml");
    std::fs::write(&p, format!("{BASE}{extra}")).unwrap();
    p
}

fn sim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(SIM).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn replay_writes_table_json_and_timeline() {
    let trace = tmp("s.psins");
    let st = Command::new(SYNTH).args(["gen:stencil2d:ranks=8,iters=3", "-o"]).arg(&trace).status().unwrap();
    assert!(st.success());
    let (m, json, tl) = (machine_file(""), tmp("r.json"), tmp("tl.json"));
    let args = [
        trace.to_str().unwrap(),
        "-m",
        m.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--timeline",
        tl.to_str().unwrap(),
        "--timeline-ranks",
        "0-1",
    ];
    let (code, out, err) = sim(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("predicted:") && out.contains("MPI_Waitall"), "{out}");
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(j["predicted_seconds"].as_f64().unwrap() > 0.0);
    assert_eq!(j["tasks"].as_array().unwrap().len(), 8);
    for t in j["tasks"].as_array().unwrap() {
        let sum = t["compute_s"].as_f64().unwrap() + t["comm_s"].as_f64().unwrap();
        assert!((sum - t["end_s"].as_f64().unwrap()).abs() < 1e-12, "compute + comm = end: {t}");
    }
    let tl: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&tl).unwrap()).unwrap();
    let events = tl["traceEvents"].as_array().unwrap();
    assert!(events.iter().any(|e| e["name"] == "MPI_Allreduce" && e["ph"] == "X"));
    assert!(events.iter().all(|e| e["tid"].as_u64().unwrap() <= 1), "rank filter");
    // Same input, same bytes.
    let first = std::fs::read(&json).unwrap();
    assert_eq!(sim(&args).0, 0);
    assert_eq!(std::fs::read(&json).unwrap(), first);
}

#[test]
fn deadlock_exits_with_4() {
    let trace = write("dl.psins", &[vec![recv(0, 1, 8), fin()], vec![recv(0, 0, 8), fin()]], vec![]);
    let m = machine_file("");
    let (code, _, err) = sim(&[trace.to_str().unwrap(), "-m", m.to_str().unwrap()]);
    assert_eq!(code, 4);
    assert!(err.contains("deadlock") && err.contains("rank 1: MPI_Recv"), "{err}");
}

#[test]
fn bad_machine_file_points_at_the_line() {
    let m = machine_file("\n[extra]\nfoo = 1\n");
    let (code, _, err) = sim(&["check", m.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("line 22") && err.contains("unknown field `extra`"), "{err}");
    let (code, out, err) =
        sim(&["check", machine_file("").to_str().unwrap(), "--set", "network.model=bus", "--set", "network.buses=3"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("model = \"bus\"") && out.contains("buses = 3"), "{out}");
}

#[test]
fn missing_or_corrupt_trace_is_bad_input() {
    let m = machine_file("");
    let (code, _, err) = sim(&["/nonexistent.psins", "-m", m.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent.psins"), "{err}");
    let bad = tmp("bad.psins");
    std::fs::write(&bad, b"PSINSTRC garbage").unwrap();
    assert_eq!(sim(&[bad.to_str().unwrap(), "-m", m.to_str().unwrap()]).0, 1);
    assert_eq!(sim(&["--bogus"]).0, 2);
    assert_eq!(sim(&["--help"]).0, 0);
}

#[test]
fn list_models_names_every_model() {
    let (code, out, _) = sim(&["--list-models"]);
    assert_eq!(code, 0);
    for m in ["simple", "bus", "inlink", "outlink", "pmac", "torus"] {
        assert!(out.lines().any(|l| l.starts_with(m)), "{out}");
    }
}

#[test]
fn every_report_says_where_it_came_from() {
    let trace = tmp("prov.psins");
    let st = Command::new(SYNTH).args(["gen:pingpong:ranks=2,iters=2", "-o"]).arg(&trace).status().unwrap();
    assert!(st.success());
    let (m, json) = (machine_file(""), tmp("prov.json"));
    let sets = ["--set", "network.bandwidth=2GB/s", "--set", "mpi.call_overhead=1us"];
    let args = [trace.to_str().unwrap(), "-m", m.to_str().unwrap(), "--json", json.to_str().unwrap()];
    let (code, out, err) = sim(&[&args[..], &sets[..]].concat());
    assert_eq!(code, 0, "{err}");
    let bytes = std::fs::read(&trace).unwrap();
    let crc = format!("{:08x}", crc32fast::hash(&bytes));
    assert!(out.contains("settings:    network.bandwidth=2GB/s, mpi.call_overhead=1us"), "{out}");
    assert!(out.contains(&format!("trace crc32 {crc}, {} bytes", bytes.len())), "{out}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let p = &v["provenance"];
    assert_eq!(v["status"], "ok");
    assert_eq!(p["tool"], "psins-sim");
    assert_eq!(p["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(p["format_version"], psins_formats::magic::TRACE_VERSION);
    assert_eq!(p["trace"], serde_json::json!({"path": trace.to_str().unwrap(), "bytes": bytes.len(), "crc32": crc}));
    assert_eq!(p["machine"]["path"], m.to_str().unwrap());
    assert_eq!(p["machine"]["sets"], serde_json::json!(["network.bandwidth=2GB/s", "mpi.call_overhead=1us"]));
    let eff = p["machine"]["effective"].as_str().unwrap();
    assert!(eff.contains("bandwidth = \"2GB/s\"") && eff.contains("call_overhead = \"1us\""), "{eff}");
    assert_eq!(p["options"], serde_json::json!({"tracer_overhead": "auto"}));
    assert_eq!(p["seeds"], serde_json::json!({}));
    // A workload spec is named as such.
    let (code, _, err) =
        sim(&["gen:pingpong:ranks=2,iters=2", "-m", m.to_str().unwrap(), "-q", "--json", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["provenance"]["trace"], serde_json::json!({"spec": "gen:pingpong:ranks=2,iters=2"}));
}

#[test]
fn the_measured_span_stands_beside_the_prediction() {
    use psins_formats::{Op, Record, TraceWriter};
    // Rank 0: 10 us, a 2 us send, 3 us to Finalize (whose 7 us are not the run) = 15 us;
    // rank 1: 1 us, a 20 us receive, 1 us = 22 us. Init's gap and duration do not count.
    let with_dur = |mut r: Record, ns: u64| {
        r.dur_ns = ns;
        r
    };
    let tasks = [
        vec![
            Record::new(100, 50, Op::Init { thread_level: 0 }),
            with_dur(send(10, 1, 8), 2000),
            Record::new(3000, 7000, Op::Finalize),
        ],
        vec![
            Record::new(900, 60, Op::Init { thread_level: 0 }),
            with_dur(recv(1, 0, 8), 20_000),
            Record::new(1000, 4000, Op::Finalize),
        ],
    ];
    let trace = tmp("measured.psins");
    let meta = vec![("tracer_version".to_string(), "test".to_string())];
    TraceWriter::write_tasks(&trace, &tasks, meta, vec![]).unwrap();
    let (m, json) = (machine_file(""), tmp("measured.json"));
    let (code, out, err) = sim(&[trace.to_str().unwrap(), "-m", m.to_str().unwrap(), "--json", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "measured:    22.00 µs (the traced run, MPI_Init to MPI_Finalize of rank 1; at most 20.00 µs in MPI)"
        ),
        "{out}"
    );
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    // predicted / measured, to the rounding of JSON's decimal figures.
    let mut measured = v["measured"].clone();
    let ratio = measured.as_object_mut().unwrap().remove("predicted_over_measured").unwrap().as_f64().unwrap();
    assert!((ratio - v["predicted_seconds"].as_f64().unwrap() / 2.2e-5).abs() < 1e-12, "{ratio}");
    assert_eq!(measured, serde_json::json!({"span_s": 2.2e-5, "slowest_rank": 1, "comm_s": 2e-5, "bursts": "wall"}));
    assert!(out.contains("\nbursts:      wall-clock time between calls\n"), "{out}");
    // The same records timed with PSINS_CLOCK=cpu: the report says the bursts are CPU time.
    let cpu_trace = tmp("measured-cpu.psins");
    let meta = vec![
        ("tracer_version".to_string(), "test".to_string()),
        ("tracer_settings".to_string(), "PSINS_TRACE=1 PSINS_CLOCK=cpu PSINS_QUIET=0".to_string()),
    ];
    TraceWriter::write_tasks(&cpu_trace, &tasks, meta, vec![]).unwrap();
    let (code, out, err) =
        sim(&[cpu_trace.to_str().unwrap(), "-m", m.to_str().unwrap(), "--json", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("\nbursts:      the calling thread's CPU time between calls (PSINS_CLOCK=cpu): the measured span"),
        "{out}"
    );
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["measured"]["bursts"], "cpu");
    // A generated workload was never run: no measured span.
    let (code, out, err) =
        sim(&["gen:pingpong:ranks=2,iters=2", "-m", m.to_str().unwrap(), "--json", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("measured:"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(v.get("measured").is_none(), "{v}");
}
