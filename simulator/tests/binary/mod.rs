//! Helpers for the tests that run `psins-sim` as a user does (fattree.rs, dragonfly.rs, torus.rs,
//! flow.rs): the binary with its exit code and output, a bundled machine file, the test
//! apps' traces, the predicted time of a report.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

const SIM: &str = env!("CARGO_BIN_EXE_psins-sim");

/// `psins-sim args…`: (exit code, stdout, stderr).
pub fn sim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(SIM).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// The path of bundled machine file `configs/NAME`.
pub fn config(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs").join(name).to_string_lossy().into_owned()
}

/// The test apps' traces (tests/data/apps/*.psins), sorted.
pub fn apps() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/apps");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "psins"))
        .collect();
    v.sort();
    v
}

/// The seconds of a report's `predicted:` line ("predicted:   1.234 ms"), to its 4
/// significant digits.
pub fn predicted(out: &str) -> f64 {
    let line = out.lines().find(|l| l.starts_with("predicted:")).unwrap_or_else(|| panic!("{out}"));
    let mut words = line.split_whitespace().skip(1);
    let value: f64 = words.next().unwrap().parse().unwrap();
    let scale = match words.next() {
        Some("s") => 1.0,
        Some("ms") => 1e-3,
        Some("µs") => 1e-6,
        Some("ns") => 1e-9,
        Some("ps") => 1e-12,
        unit => panic!("unit {unit:?} in {line}"),
    };
    value * scale
}

/// The exact predicted seconds of `psins-sim args…` (its JSON report's `predicted_seconds`).
pub fn predicted_exact(args: &[&str]) -> f64 {
    let (code, out, err) = sim(&[args, &["-q", "--json", "-"]].concat());
    assert_eq!(code, 0, "{args:?}: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    v["predicted_seconds"].as_f64().unwrap()
}
