//! psins-sim --predicted-trace on test apps traced under real mpirun: the predicted trace's
//! profile (psins-dump --profile) has the report's calls and times per MPI function and each
//! rank's span is its predicted end; replayed again on the same machine it predicts the same
//! time to the picosecond; exported to Paraver and OTF2 (printed by the real otf2-print) it
//! has the messages and collectives of the measured run's export.

use psins_e2e::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn os(s: &str) -> &std::ffi::OsStr {
    s.as_ref()
}

fn json_of(o: std::process::Output) -> Value {
    serde_json::from_slice(&o.stdout).expect("JSON on stdout")
}

/// psins-sim's JSON report of `trace` on bus-cluster (CPU ratio 1, no call overhead),
/// writing the predicted trace to `out` if given.
fn simulate(trace: &Path, out: Option<&Path>) -> Value {
    let m = root().join("configs/bus-cluster.toml");
    let mut args =
        vec![trace.as_os_str(), os("-m"), m.as_os_str(), os("-q"), os("--json"), os("-"), os("--no-progress")];
    if let Some(o) = out {
        args.extend([os("--predicted-trace"), o.as_os_str()]);
    }
    json_of(run_tool("psins-sim", &args))
}

/// Communication records (type 3) of a Paraver export, and its header's duration (ns).
fn paraver(trace: &Path, prv: &Path) -> (u64, u64) {
    run_tool("psins-export", &[os("--to"), os("paraver"), trace.as_os_str(), os("-o"), prv.as_os_str()]);
    let text = std::fs::read_to_string(prv).unwrap();
    let head = text.lines().next().unwrap();
    let ftime = head.split("):").nth(1).unwrap().split("_ns").next().unwrap().parse().unwrap();
    (text.lines().filter(|l| l.starts_with("3:")).count() as u64, ftime)
}

/// otf2-print's message and collective event lines by kind, of `trace` exported to OTF2;
/// None when this build or host has no libotf2 / otf2-print.
fn otf2(trace: &Path, dir: &Path) -> Option<BTreeMap<String, u64>> {
    let o = Command::new(tool("psins-export"))
        .args([os("--to"), os("otf2"), trace.as_os_str(), os("-o"), dir.as_os_str()])
        .output()
        .unwrap();
    if String::from_utf8_lossy(&o.stderr).contains("built without libotf2") {
        eprintln!("skipped the OTF2 part: {}", String::from_utf8_lossy(&o.stderr).trim());
        return None;
    }
    assert!(o.status.success(), "psins-export --to otf2: {}", String::from_utf8_lossy(&o.stderr));
    let Ok(p) = Command::new("otf2-print").arg(dir.join("traces.otf2")).output() else {
        eprintln!("skipped the OTF2 part: otf2-print not found (Debian's otf2-tools)");
        return None;
    };
    assert!(p.status.success(), "otf2-print: {}", String::from_utf8_lossy(&p.stderr));
    let mut n = BTreeMap::new();
    for line in String::from_utf8(p.stdout).unwrap().lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() >= 3 && f[0].starts_with("MPI_") && f[1].parse::<u64>().is_ok() && f[2].parse::<u64>().is_ok() {
            *n.entry(f[0].to_string()).or_insert(0) += 1;
        }
    }
    Some(n)
}

#[test]
fn predicted_trace_profiles_replays_and_exports_as_the_prediction() {
    need_mpi!();
    // Nonblocking halos and allreduces (stencil2d), sub-communicators and sendrecv (cg),
    // persistent requests (requests).
    for app in ["stencil2d", "cg", "requests"] {
        let run = run_traced(app, 4, &[], &[]);
        run.ok();
        let trace = run.dir.join(format!("{app}.psins"));
        run_tool("psins-consolidate", &[run.job_dir().as_os_str(), os("-o"), trace.as_os_str()]);
        let pred = run.dir.join("predicted.psins");
        let report = simulate(&trace, Some(&pred));

        // The profile of the predicted trace is the report's: the same calls per function, the
        // same time within the nanosecond each call's start and end are rounded to.
        let profile = json_of(run_tool("psins-dump", &[os("--profile"), os("--json"), pred.as_os_str()]));
        let funcs = report["functions"].as_object().unwrap();
        for (name, p) in profile["functions"].as_object().unwrap() {
            let r = &funcs[name];
            let calls = p["count"].as_u64().unwrap();
            assert_eq!(calls, r["count"].as_u64().unwrap(), "{app}: {name} calls");
            let (pt, rt) = (p["total_s"].as_f64().unwrap(), r["time_s"].as_f64().unwrap());
            assert!((pt - rt).abs() <= calls as f64 * 1e-9 + 1e-12, "{app}: {name}: profile {pt} s, report {rt} s");
        }
        for (name, r) in funcs {
            // MPI_Init and MPI_Finalize are outside the profiled span; they take no time here.
            if name == "MPI_Init" || name == "MPI_Finalize" {
                assert_eq!(r["time_s"].as_f64(), Some(0.0), "{app}: {name}");
            } else {
                assert!(profile["functions"].get(name).is_some(), "{app}: {name} missing from the profile");
            }
        }
        // Each rank's span is its predicted end, rounded down to the nanosecond.
        for (t, p) in report["tasks"].as_array().unwrap().iter().zip(profile["per_rank"].as_array().unwrap()) {
            let end_ns = t["end_s"].as_f64().unwrap() * 1e9;
            let span_ns = (p["span_s"].as_f64().unwrap() * 1e9).round();
            assert!(
                end_ns - span_ns > -1e-3 && end_ns - span_ns < 1.0,
                "{app}: rank {}: span {span_ns} ns, end {end_ns} ns",
                t["rank"]
            );
        }

        // Replayed again on the same machine: the same prediction, to the picosecond.
        let again = simulate(&pred, None);
        assert_eq!(again["predicted_ps"], report["predicted_ps"], "{app}: the predicted trace replayed again");

        // Paraver: the measured run's messages, over the predicted span.
        let (msgs, span) = paraver(&pred, &run.dir.join("predicted.prv"));
        let (measured_msgs, _) = paraver(&trace, &run.dir.join("measured.prv"));
        assert_eq!(msgs, measured_msgs, "{app}: Paraver communications");
        assert_eq!(span, report["predicted_ps"].as_u64().unwrap() / 1000, "{app}: Paraver duration = the prediction");

        // OTF2, read back by otf2-print: the measured run's message and collective events.
        if let Some(p) = otf2(&pred, &run.dir.join("predicted-otf2")) {
            let m = otf2(&trace, &run.dir.join("measured-otf2")).unwrap();
            let sends = p.get("MPI_SEND").or(p.get("MPI_ISEND"));
            assert!(p.contains_key("MPI_COLLECTIVE_END") && sends.is_some(), "{app}: {p:?}");
            assert_eq!(p, m, "{app}: OTF2 MPI events of the predicted and the measured run");
        }
    }
}
