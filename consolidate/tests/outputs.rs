//! `psins-consolidate -o PATH` follows the shared output rule (psins_formats::output): an input
//! is never overwritten, a symlink's target is written, a device node is written through and
//! never replaced, `-` is stdout; and a full stdout or stderr is an error, not a panic.

use psins_formats::*;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("psins-cons-out-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Two ranks that only Init, Barrier and Finalize.
fn logs(d: &Path) -> Vec<PathBuf> {
    (0..2)
        .map(|rank| {
            let h = LogHeader { rank, world_size: 2, job_id: 9, clock: "test".into(), ..Default::default() };
            let mut out = Vec::new();
            h.write(&mut out);
            let mut enc = LogEncoder::new();
            enc.push(&mut out, &Record::new(0, 5, Op::Init { thread_level: 0 }));
            let barrier = Op::Coll {
                coll: Coll::Barrier,
                comm: COMM_WORLD,
                root: NO_RANK,
                send_bytes: 0,
                recv_bytes: 0,
                count: 0,
                flags: 0,
                req: 0,
                instance: 1,
            };
            enc.push(&mut out, &Record::new(3, 4, barrier));
            enc.push(&mut out, &Record::new(1, 3, Op::Finalize));
            enc.finish(&mut out);
            let p = d.join(format!("rank-{rank:06}.bin"));
            std::fs::write(&p, out).unwrap();
            p
        })
        .collect()
}

fn consolidate(d: &Path, out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psins-consolidate")).arg(d).arg("-o").arg(out).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn is_trace(p: &Path) -> bool {
    TraceReader::open(p).map(|t| t.tasks() == 2).unwrap_or(false)
}

#[test]
fn an_input_is_never_the_output() {
    let d = dir("input");
    let inputs = logs(&d);
    let before = std::fs::read(&inputs[0]).unwrap();
    // Named directly, and through a symlink.
    let link = d.join("link.psins");
    std::os::unix::fs::symlink(&inputs[0], &link).unwrap();
    for out in [inputs[0].clone(), link] {
        let o = consolidate(&d, &out);
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        assert!(stderr(&o).contains("is the input"), "{}", stderr(&o));
        assert_eq!(std::fs::read(&inputs[0]).unwrap(), before);
    }
    // No temporary file left behind.
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 3);
}

#[test]
fn a_symlink_target_is_written_and_the_link_kept() {
    let d = dir("symlink");
    logs(&d);
    let real = d.join("real.psins");
    std::fs::write(&real, b"old").unwrap();
    let link = d.join("out.psins");
    std::os::unix::fs::symlink("real.psins", &link).unwrap();
    let o = consolidate(&d, &link);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(is_trace(&real));
}

#[test]
fn a_device_node_is_written_through_not_replaced() {
    let d = dir("device");
    logs(&d);
    let node = d.join("null");
    // A character device like /dev/null (1, 3), made here so the test never touches /dev.
    let made = Command::new("mknod").arg(&node).args(["c", "1", "3"]).status().map(|s| s.success()).unwrap_or(false);
    if !made {
        // Without the privilege to make a device node, a FIFO is the other non-regular case.
        assert!(Command::new("mkfifo").arg(&node).status().unwrap().success());
        let reader = std::thread::spawn({
            let node = node.clone();
            move || std::fs::read(node).unwrap().len()
        });
        let o = consolidate(&d, &node);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(reader.join().unwrap() > 0);
        assert!(std::fs::symlink_metadata(&node).unwrap().file_type().is_fifo());
        return;
    }
    let o = consolidate(&d, &node);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&node).unwrap().file_type().is_char_device());
}

#[test]
fn dash_is_stdout_and_equals_the_file() {
    let d = dir("dash");
    logs(&d);
    let file = d.join("a.psins");
    assert!(consolidate(&d, &file).status.success());
    // Run inside d so that a file named "-" would appear there.
    let o =
        Command::new(env!("CARGO_BIN_EXE_psins-consolidate")).current_dir(&d).args([".", "-o", "-"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, std::fs::read(&file).unwrap());
    assert!(!d.join("-").exists());
}

#[test]
fn a_full_stdout_or_stderr_is_an_error_not_a_panic() {
    let d = dir("full");
    logs(&d);
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    // The trace on a full stdout: output error (3), one message.
    let o = Command::new(env!("CARGO_BIN_EXE_psins-consolidate"))
        .arg(&d)
        .args(["-o", "-"])
        .stdout(Stdio::from(full()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("standard output"), "{}", stderr(&o));
    // The summary on a full stderr: the trace is written; the lost summary is no panic.
    let out = d.join("b.psins");
    let o = Command::new(env!("CARGO_BIN_EXE_psins-consolidate"))
        .arg(&d)
        .arg("-o")
        .arg(&out)
        .stderr(Stdio::from(full()))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(is_trace(&out));
}
