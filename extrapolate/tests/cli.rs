//! psins-extrapolate as a user runs it: the report, the written trace and its metadata,
//! `--against`, and the exit code and message of each refusal.

use psins_formats::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const TOOL: &str = env!("CARGO_BIN_EXE_psins-extrapolate");

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("psins-extrapolate-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A ring exchange: each rank sends `bytes(P)` to the next and receives from the previous,
/// then an allreduce, `iters` times.
fn ring(path: &Path, p: u32, bytes: u64) {
    let tasks: Vec<Vec<Record>> = (0..p)
        .map(|me| {
            let mut v = vec![Record::new(0, 0, Op::Init { thread_level: 0 })];
            for i in 0..4 {
                let (to, from) = ((me + 1) % p, (me + p - 1) % p);
                let op = Op::Sendrecv {
                    peer: to as i32,
                    tag: 1,
                    bytes,
                    src: from as i32,
                    rtag: 1,
                    rbytes: bytes,
                    comm: 0,
                    replace: false,
                };
                v.push(Record::new(30_000, 0, op));
                let flags = CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE;
                let coll = Op::Coll {
                    coll: Coll::Allreduce,
                    comm: 0,
                    root: NO_RANK,
                    send_bytes: 8,
                    recv_bytes: 8,
                    count: 1,
                    flags,
                    req: 0,
                    instance: i + 1,
                };
                v.push(Record::new(0, 0, coll));
            }
            v.push(Record::new(0, 0, Op::Finalize));
            v
        })
        .collect();
    TraceWriter::write_tasks(path, &tasks, vec![("generator".into(), "test".into())], Vec::new()).unwrap();
}

fn run(args: &[&str]) -> Output {
    Command::new(TOOL).args(args).output().unwrap()
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn writes_a_trace_with_its_fits_and_compares_it() {
    let d = scratch("ok");
    let p = |n: u32| d.join(format!("ring-{n}.psins")).display().to_string();
    for n in [4, 8, 16, 64] {
        ring(Path::new(&p(n)), n, 1 << 20 >> n.ilog2());
    }
    let out = d.join("x.psins").display().to_string();
    let fits = d.join("fits.json").display().to_string();
    let o = run(&[&p(4), &p(16), &p(8), "-n", "64", "-o", &out, "--fits-json", &fits, "--against", &p(64)]);
    let (so, se) = text(&o);
    assert!(o.status.success(), "{se}");
    assert!(so.contains("topology: 1-D ring"), "{so}");
    assert!(so.contains("sendrecv (+1) / (-1): bytes sent") && so.contains("-> 16384"), "{so}");
    assert!(so.contains("worst size fit:") && so.contains("worst CPU-burst fit:"), "{so}");
    assert!(
        so.contains("64 ranks: same peers on 64, same messages on 64, same collectives on 64, bytes within 1 % on 64"),
        "{so}"
    );
    let r = TraceReader::open(Path::new(&out)).unwrap();
    assert_eq!(r.tasks(), 64);
    assert_eq!(r.header.meta("clock"), Some("extrapolated"));
    assert_eq!(r.header.meta("tracer_version"), None, "an extrapolated trace is not a measured run");
    assert_eq!(r.header.meta("extrapolated_topology"), Some("1-D ring 64"));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&fits).unwrap()).unwrap();
    assert_eq!(json["inputs"].as_array().unwrap().len(), 3);
    let law = |f: &serde_json::Value| f["law"].as_str().unwrap().to_string();
    assert!(json["fits"].as_array().unwrap().iter().any(|f| law(f).contains("/P") || law(f).contains("P^")), "{json}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn refusals_have_one_message_and_their_exit_code() {
    let d = scratch("bad");
    let p = |n: u32| d.join(format!("ring-{n}.psins")).display().to_string();
    for n in [4, 8, 16, 32] {
        ring(Path::new(&p(n)), n, 4096);
    }
    let out = d.join("x.psins").display().to_string();
    // Two rank counts without --scaling: usage (2); with it, accepted.
    let o = run(&[&p(4), &p(8), "-n", "64", "-o", &out]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("an extrapolation needs traces at 3 or more rank counts"), "{}", text(&o).1);
    assert!(run(&[&p(4), &p(8), "-n", "64", "-o", &out, "--scaling", "weak", "-q"]).status.success());
    // A target below the largest trace.
    let o = run(&[&p(4), &p(8), &p(16), "-n", "8", "-o", &out]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("larger than the largest trace (16 ranks"), "{}", text(&o).1);
    // A missing trace: input (1), naming it.
    let o = run(&[&p(4), &p(8), "/nonexistent/t.psins", "-n", "64", "-o", &out]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).1.contains("/nonexistent/t.psins"), "{}", text(&o).1);
    // --against a trace of another rank count.
    let o = run(&[&p(4), &p(8), &p(16), "-n", "64", "-o", &out, "-q", "--against", &p(32)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).1.contains("64 ranks extrapolated, 32 traced"), "{}", text(&o).1);
    // One message, prefixed with the tool's name; no panic.
    let (_, se) = text(&o);
    assert_eq!(se.lines().count(), 1, "{se}");
    assert!(se.starts_with("psins-extrapolate: "), "{se}");
    std::fs::remove_dir_all(&d).ok();
}
