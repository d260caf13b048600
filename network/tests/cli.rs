//! psins-torus-synth as a user runs it: the exit-code scheme of every psins tool
//! (docs/exit-codes.md), a full stdout is exit 3 and no panic, `--sweep -` is stdout.

use std::process::{Command, Stdio};

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
fn torus_synth_tool_follows_the_scheme() {
    let bin = env!("CARGO_BIN_EXE_psins-torus-synth");
    let small = ["--dims", "4x4", "--warmup", "100", "--measure", "200"];
    let (c, err) = to_full(bin, &small);
    assert_eq!(c, 3, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(code(bin, &["--pattern", "tornado"]).0, 2);
    let (c, out, err) = code(bin, &[&small[..], &["--sweep", "-", "--loads", "0.1"]].concat());
    assert_eq!(c, 0, "{err}");
    assert!(out.contains("pattern,routing"), "{out}");
}
