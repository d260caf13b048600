//! A long replay without a terminal (a batch job's log) prints a progress line now and then on
//! stderr; `--no-progress` silences it.

use std::process::Command;

const SIM: &str = env!("CARGO_BIN_EXE_psins-sim");

fn run(extra: &[&str]) -> String {
    // 64 ranks x 300 iterations: 192,128 records, progress looked at every 65,536; with
    // PSINS_PROGRESS_SECONDS=0 every look prints a line.
    let o = Command::new(SIM)
        .args(["gen:stencil2d:ranks=64,iters=300", "-m", "fat-simple", "-q"])
        .args(extra)
        .env("PSINS_PROGRESS_SECONDS", "0")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_batch_replay_prints_progress_lines() {
    let err = run(&[]);
    let line = err.lines().find(|l| l.starts_with("psins-sim: replaying: ")).unwrap_or_else(|| panic!("{err}"));
    assert!(line.contains(" % of ") && line.contains(" records, ") && line.ends_with(" so far"), "{line}");
    assert!(!run(&["--no-progress"]).contains("replaying"));
}
