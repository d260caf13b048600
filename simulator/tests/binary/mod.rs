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

/// The seconds of a report's `predicted:` line.
pub fn predicted(out: &str) -> f64 {
    let line = out.lines().find(|l| l.starts_with("predicted:")).unwrap_or_else(|| panic!("{out}"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}
