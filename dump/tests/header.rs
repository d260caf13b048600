//! `psins-dump --header`: a log's header fields and a compact trace's metadata, with the
//! clock the bursts were timed with (`PSINS_CLOCK`).

use psins_formats::{LogEncoder, LogHeader, Op, Record, TraceWriter};
use std::path::{Path, PathBuf};
use std::process::Command;

const DUMP: &str = env!("CARGO_BIN_EXE_psins-dump");

fn dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dump-header-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The text's lines as (key, value), the padding between them dropped.
fn fields(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(|l| {
            let (k, v) = l.split_once(' ').unwrap_or((l, ""));
            (k.to_string(), v.trim_start().to_string())
        })
        .collect()
}

fn has(text: &str, key: &str, value: &str) -> bool {
    fields(text).iter().any(|(k, v)| k == key && v == value)
}

fn dump(args: &[&std::ffi::OsStr]) -> (String, String, Option<i32>) {
    let o = Command::new(DUMP).args(args).output().unwrap();
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned(), o.status.code())
}

#[test]
fn a_logs_header_names_its_burst_clock() {
    let h = LogHeader {
        rank: 1,
        world_size: 2,
        job_id: 0x2a,
        pid: 77,
        clock: "bursts: thread CPU time; calls: rdtsc".into(),
        host: "node7".into(),
        settings: "PSINS_TRACE=1 PSINS_CLOCK=cpu".into(),
        tracer_version: "psins-tracer 0.1.0".into(),
        ..Default::default()
    };
    let mut out = Vec::new();
    h.write(&mut out);
    let mut enc = LogEncoder::new();
    enc.push(&mut out, &Record::new(10, 20, Op::Init { thread_level: 0 }));
    enc.finish(&mut out);
    let p = dir().join("rank-000001.bin");
    std::fs::write(&p, out).unwrap();
    let (text, err, code) = dump(&["--header".as_ref(), p.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    for (k, v) in [
        ("file", "per-rank log"),
        ("rank", "1"),
        ("job_id", "0x2a"),
        ("clock", "bursts: thread CPU time; calls: rdtsc"),
        ("settings", "PSINS_TRACE=1 PSINS_CLOCK=cpu"),
        ("bursts", "cpu: the calling thread's CPU time between calls (PSINS_CLOCK=cpu)"),
    ] {
        assert!(has(&text, k, v), "{k} {v:?} in\n{text}");
    }
    let (json, _, _) = dump(&["--header".as_ref(), "--json".as_ref(), p.as_os_str()]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!((v["bursts"].as_str(), v["rank"].as_u64(), v["host"].as_str()), (Some("cpu"), Some(1), Some("node7")));
}

#[test]
fn a_traces_header_is_its_metadata() {
    let d = dir();
    let tasks = [vec![Record::new(0, 5, Op::Init { thread_level: 0 }), Record::new(3, 4, Op::Finalize)]];
    let meta = |settings: Option<&str>| {
        let mut m = vec![("world_size".to_string(), "1".to_string())];
        if let Some(s) = settings {
            m.push(("tracer_version".to_string(), "psins-tracer 0.1.0".to_string()));
            m.push(("tracer_settings".to_string(), s.to_string()));
        }
        m
    };
    // an older tracer's trace (no PSINS_CLOCK): the wall clock
    let old = d.join("old.psins");
    TraceWriter::write_tasks(&old, &tasks, meta(Some("PSINS_TRACE=1")), vec![]).unwrap();
    let (text, err, code) = dump(&["--header".as_ref(), old.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    let f = fields(&text);
    let keys: Vec<&str> = f.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["file", "tasks", "records", "world_size", "tracer_version", "tracer_settings", "bursts"]);
    assert!(has(&text, "tasks", "1") && has(&text, "records", "2"), "{text}");
    assert!(has(&text, "bursts", "wall: wall-clock time between calls"), "{text}");
    // a trace no tracer wrote (generated, imported): no burst clock
    let gen = d.join("gen.psins");
    TraceWriter::write_tasks(&gen, &tasks, meta(None), vec![]).unwrap();
    let (json, _, _) = dump(&["--header".as_ref(), "--json".as_ref(), gen.as_os_str()]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["bursts"], serde_json::Value::Null);
    assert_eq!(v["tasks"], 1);
    // --header takes the whole file
    let (_, err, code) = dump(&["--header".as_ref(), "--task".as_ref(), "0".as_ref(), old.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    // not a psins file: exit 1 naming it
    let junk = d.join("junk.bin");
    std::fs::write(&junk, b"not a trace at all").unwrap();
    let (_, err, code) = dump(&["--header".as_ref(), junk.as_os_str()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("junk.bin"), "{err}");
}
