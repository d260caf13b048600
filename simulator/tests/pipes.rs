//! Outputs named by a path that is a pipe (`--json /dev/stdout | head`) are written through,
//! and a reader that goes away early ends the tool quietly, with success.

use std::process::Command;

const SIM: &str = env!("CARGO_BIN_EXE_psins-sim");

/// Runs `cmd` in bash with pipefail; (exit status, stdout, stderr).
fn bash(cmd: &str) -> (i32, String, String) {
    let o = Command::new("bash").args(["-o", "pipefail", "-c", cmd]).env("SIM", SIM).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

#[test]
fn json_to_dev_stdout_through_a_pipe() {
    let (code, out, err) = bash(r#""$SIM" gen:stencil2d:ranks=16,iters=2 -m bus-cluster -q --json /dev/stdout | cat"#);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert!(v["predicted_seconds"].as_f64().unwrap() > 0.0);
    assert!(err.is_empty(), "{err}");
}

#[test]
fn a_reader_that_leaves_early_is_no_error() {
    // A timeline of a few megabytes into `head -c 10`: the pipe closes long before the end.
    let cmd = r#""$SIM" gen:stencil2d:ranks=64,iters=50 -m bus-cluster -q --timeline /dev/stdout | head -c 10"#;
    let (code, out, err) = bash(cmd);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.len(), 10);
    assert!(err.is_empty(), "{err}");
    let (code, _, err) =
        bash(r#""$SIM" gen:stencil2d:ranks=64,iters=50 -m bus-cluster --json - | head -c 10 >/dev/null"#);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
}
