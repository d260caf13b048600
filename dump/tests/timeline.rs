//! `psins-dump --timeline` on a hand-built trace: every slice's time and duration worked out
//! by hand from the recorded gaps and durations (odd nanoseconds, so nothing rounds away).

use psins_formats::{Op, Record, SendMode, TraceWriter, COMM_WORLD};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const DUMP: &str = env!("CARGO_BIN_EXE_psins-dump");

fn dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dump-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn trace() -> PathBuf {
    let init = |gap, dur| Record::new(gap, dur, Op::Init { thread_level: 0 });
    let send = |gap, dur, bytes| {
        Record::new(gap, dur, Op::Send { mode: SendMode::Standard, peer: 1, tag: 7, bytes, comm: COMM_WORLD })
    };
    let recv = |gap, dur, bytes| Record::new(gap, dur, Op::Recv { peer: 0, tag: 7, bytes, comm: COMM_WORLD });
    let tasks = [
        vec![
            init(100, 50),
            send(10_003, 2_001, 1000),
            send(1_000, 4_007, 3000),
            Record::new(3_000, 7_000, Op::Finalize),
        ],
        vec![init(900, 60), recv(1_000, 20_011, 1000), recv(0, 999, 3000), Record::new(1_000, 4_000, Op::Finalize)],
    ];
    // One file per call: the tests run in parallel and each writes its own.
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let path = dir().join(format!("t{}.psins", N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    TraceWriter::write_tasks(&path, &tasks, vec![], vec![]).unwrap();
    path
}

fn timeline(extra: &[&str]) -> Vec<Value> {
    let out = dir().join(format!("tl-{}.json", extra.join("_").replace(['/', '.'], "-")));
    let o = Command::new(DUMP).arg("--timeline").arg(&out).arg(trace()).args(extra).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).expect("the file parses");
    v["traceEvents"].as_array().unwrap().clone()
}

/// (name, start ns, duration ns) of rank `t`'s slices, in file order.
fn slices(ev: &[Value], t: u64) -> Vec<(String, u64, u64)> {
    let ns = |v: &Value| (v.as_f64().unwrap() * 1000.0).round() as u64;
    ev.iter()
        .filter(|e| e["ph"] == "X" && e["tid"] == t)
        .map(|e| (e["name"].as_str().unwrap().to_string(), ns(&e["ts"]), ns(&e["dur"])))
        .collect()
}

fn s(name: &str, start: u64, dur: u64) -> (String, u64, u64) {
    (name.to_string(), start, dur)
}

/// Both ranks' Init return at 60 ns (the longer Init); then each record's gap is a compute
/// slice and its duration the call's, exactly as recorded.
#[test]
fn measured_slices_are_the_recorded_times() {
    let ev = timeline(&[]);
    assert_eq!(ev[0]["args"]["name"], "measured");
    assert_eq!(
        slices(&ev, 0),
        vec![
            s("MPI_Init", 10, 50),
            s("compute", 60, 10_003),
            s("MPI_Send", 10_063, 2_001),
            s("compute", 12_064, 1_000),
            s("MPI_Send", 13_064, 4_007),
            s("compute", 17_071, 3_000),
            s("MPI_Finalize", 20_071, 7_000),
        ]
    );
    assert_eq!(
        slices(&ev, 1),
        vec![
            s("MPI_Init", 0, 60),
            s("compute", 60, 1_000),
            s("MPI_Recv", 1_060, 20_011),
            s("MPI_Recv", 21_071, 999),
            s("compute", 22_070, 1_000),
            s("MPI_Finalize", 23_070, 4_000),
        ]
    );
    let send = ev.iter().find(|e| e["name"] == "MPI_Send").unwrap();
    assert_eq!(send["args"], serde_json::json!({"record": 1, "peer": 1, "bytes": 1000, "tag": 7, "comm": 0}));
}

/// Per flow id, its events as (phase, rank, time in ps), in file order.
fn flows(ev: &[Value]) -> std::collections::BTreeMap<u64, Vec<(String, u64, u64)>> {
    let mut f = std::collections::BTreeMap::<u64, Vec<_>>::new();
    for e in ev.iter().filter(|e| e["cat"] == "msg") {
        let ps = (e["ts"].as_f64().unwrap() * 1e6).round() as u64;
        f.entry(e["id"].as_u64().unwrap()).or_default().push((
            e["ph"].as_str().unwrap().to_string(),
            e["tid"].as_u64().unwrap(),
            ps,
        ));
    }
    f
}

/// One arrow per message, each with one start and one finish, from the middle of the send
/// to the middle of the receive that took it (in order: the first send to the first
/// receive). Send 1 [10_063, 12_064) ns → receive [1_060, 21_071); send 2 [13_064, 17_071)
/// → receive [21_071, 22_070).
#[test]
fn an_arrow_per_message() {
    let ev = timeline(&[]);
    let got: Vec<Vec<(String, u64, u64)>> = flows(&ev).into_values().collect();
    let e = |ph: &str, rank, ps| (ph.to_string(), rank, ps);
    assert_eq!(
        got,
        vec![vec![e("s", 0, 11_063_500), e("f", 1, 11_065_500)], vec![e("s", 0, 15_067_500), e("f", 1, 21_570_500)],]
    );
    let finish = ev.iter().find(|e| e["ph"] == "f").unwrap();
    assert_eq!(finish["bp"], "e", "a finish binds to the slice around it");
}

/// Rank 1 only, window [1.5us, 21.5us]: its first receive and second, clipped; no arrows
/// (rank 0 is not shown). Both ranks in [1.5us, 21.5us]: only the first message has both
/// ends inside.
#[test]
fn rank_and_window_selection() {
    let ev = timeline(&["--timeline-ranks", "1", "--timeline-window", "1.5us..21.5us"]);
    assert!(slices(&ev, 0).is_empty());
    assert_eq!(slices(&ev, 1), vec![s("MPI_Recv", 1_500, 19_571), s("MPI_Recv", 21_071, 429)]);
    assert!(flows(&ev).is_empty());
    let ev = timeline(&["--timeline-window", "1.5us..21.5us"]);
    let f: Vec<_> = flows(&ev).into_values().map(|v| v.iter().map(|x| x.2).collect::<Vec<_>>()).collect();
    assert_eq!(f, vec![vec![11_063_500, 11_065_500]]);
}

#[test]
fn bad_arguments_and_inputs() {
    let out = dir().join("bad.json");
    let o = Command::new(DUMP)
        .arg("--timeline")
        .arg(&out)
        .arg(trace())
        .args(["--timeline-window", "5us..1us"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--timeline-window"));
    let bad = dir().join("garbage");
    std::fs::write(&bad, b"garbage!").unwrap();
    let o = Command::new(DUMP).arg("--timeline").arg(&out).arg(&bad).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("garbage"));
    assert!(!out.exists(), "no partial output");
}
