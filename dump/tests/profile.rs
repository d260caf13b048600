//! `psins-dump --profile` on a hand-built trace whose figures are computed by hand.

use psins_formats::{Op, Record, SendMode, TraceWriter, COMM_WORLD};
use std::process::Command;

const DUMP: &str = env!("CARGO_BIN_EXE_psins-dump");

fn send(gap_ns: u64, dur_ns: u64, bytes: u64) -> Record {
    Record::new(gap_ns, dur_ns, Op::Send { mode: SendMode::Standard, peer: 1, tag: 7, bytes, comm: COMM_WORLD })
}
fn recv(gap_ns: u64, dur_ns: u64, bytes: u64) -> Record {
    Record::new(gap_ns, dur_ns, Op::Recv { peer: 0, tag: 7, bytes, comm: COMM_WORLD })
}

#[test]
fn profile_of_a_hand_built_trace() {
    let init = |gap, dur| Record::new(gap, dur, Op::Init { thread_level: 0 });
    // Rank 0: spans 10 + 2 + 1 + 4 + 3 = 20 us, 6 us in MPI_Send (1000 and 3000 bytes).
    // Rank 1: 1 + 20 + 0 + 1 + 1 = 23 us, 21 us in MPI_Recv. Init and Finalize do not count.
    let tasks = [
        vec![init(100, 50), send(10_000, 2000, 1000), send(1000, 4000, 3000), Record::new(3000, 7000, Op::Finalize)],
        vec![init(900, 60), recv(1000, 20_000, 1000), recv(0, 1000, 3000), Record::new(1000, 4000, Op::Finalize)],
    ];
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dump-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("p.psins");
    TraceWriter::write_tasks(&path, &tasks, vec![], vec![]).unwrap();
    let o = Command::new(DUMP).arg(&path).args(["--profile", "--json"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["records"], 8);
    assert_eq!(v["span_s"], 23e-6);
    assert_eq!(v["slowest_rank"], 1);
    assert_eq!(v["mpi_s"], 27e-6);
    assert_eq!(
        v["functions"]["MPI_Send"],
        serde_json::json!({"count": 2, "total_s": 6e-6, "mean_s": 3e-6, "max_s": 4e-6})
    );
    assert_eq!(
        v["functions"]["MPI_Recv"],
        serde_json::json!({"count": 2, "total_s": 21e-6, "mean_s": 10.5e-6, "max_s": 20e-6})
    );
    assert_eq!(v["functions"].as_object().unwrap().len(), 2, "Init and Finalize are not profiled: {v}");
    assert_eq!(
        v["per_rank"][0],
        serde_json::json!({"rank": 0, "span_s": 20e-6, "mpi_s": 6e-6, "bursts_s": 14e-6, "calls": 2})
    );
    // a trace no tracer wrote names no burst clock
    assert_eq!(v["bursts"], serde_json::Value::Null);
    assert_eq!(
        v["message_sizes"],
        serde_json::json!([{"min_bytes": 512, "below_bytes": 1024, "count": 1}, {"min_bytes": 2048, "below_bytes": 4096, "count": 1}])
    );
    let o = Command::new(DUMP).arg(&path).arg("--profile").output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("profile of ") && text.contains("(durations as traced)"), "{text}");
    assert!(text.contains("span:        23.00 µs (rank 1, MPI_Init to MPI_Finalize)"), "{text}");
    assert!(text.contains("in MPI:      27.00 µs of 43.00 µs summed over the ranks (62.8 %)"), "{text}");
    let recv_line = text.lines().find(|l| l.starts_with("MPI_Recv")).unwrap();
    assert_eq!(
        recv_line.split_whitespace().collect::<Vec<_>>(),
        ["MPI_Recv", "2", "21.00", "µs", "10.50", "µs", "20.00", "µs", "77.8%"]
    );
    let rank0 = text.lines().find(|l| l.starts_with("rank 0")).unwrap();
    assert_eq!(
        rank0.split_whitespace().collect::<Vec<_>>(),
        ["rank", "0", "20.00", "µs", "6.000", "µs", "30.0%", "14.00", "µs", "2"]
    );
    // The size bins in binary units, as psins-sim's report writes them.
    for bin in ["[512 B, 1 KiB)  ", "[2 KiB, 4 KiB)  "] {
        assert!(text.contains(bin), "{bin} in {text}");
    }
    // --plot: the histogram of the two sends, 1000 B in the bar of 512 and 3000 B in the bar
    // of 2Ki, the empty 1Ki bin between drawn as a gap.
    let svg = dir.join("sizes.svg");
    let o = Command::new(DUMP).arg(&path).arg("--profile").arg("--plot").arg(&svg).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
    let texts: Vec<&str> =
        doc.descendants().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).map(str::trim).collect();
    assert_eq!(texts[0], "Point-to-point message sizes sent: p.psins (measured)");
    for want in ["512", "1Ki", "2Ki", "messages"] {
        assert!(texts.contains(&want), "{want} in {texts:?}");
    }
    // The background and one bar per bin (the empty one of height 0).
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("rect")).count(), 1 + 3);
    // A per-rank log is not a trace: one error naming the file, exit 1.
    let bad = dir.join("not-a-trace");
    std::fs::write(&bad, b"garbage!").unwrap();
    let o = Command::new(DUMP).arg(&bad).arg("--profile").output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not-a-trace"));
}

/// A predicted trace (psins-sim --predicted-trace: `clock` = `predicted`) is profiled as the
/// prediction it is: the heading and the chart's title name the machine, not "as traced".
#[test]
fn a_predicted_trace_profile_says_predicted_and_on_which_machine() {
    let init = || Record::new(0, 0, Op::Init { thread_level: 0 });
    let fin = || Record::new(0, 0, Op::Finalize);
    let tasks = [vec![init(), send(1000, 1500, 64), fin()], vec![init(), recv(0, 2500, 64), fin()]];
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dump-predicted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("pred.psins");
    let meta = [("clock", "predicted"), ("predicted_machine", "configs/torus-8x8.toml")];
    TraceWriter::write_tasks(&path, &tasks, meta.map(|(k, v)| (k.to_string(), v.to_string())).to_vec(), vec![])
        .unwrap();
    let svg = dir.join("sizes.svg");
    let o = Command::new(DUMP).arg(&path).arg("--profile").arg("--plot").arg(&svg).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let first = text.lines().next().unwrap();
    assert!(
        first.ends_with("2 ranks, 6 records (durations as predicted by psins-sim on configs/torus-8x8.toml)"),
        "{first}"
    );
    assert!(!text.contains("as traced"), "{text}");
    assert!(text.contains("span:        2.500 µs (rank 0, MPI_Init to MPI_Finalize)"), "{text}");
    assert!(text.contains("[64 B, 128 B)"), "{text}");
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(chart.contains("Point-to-point message sizes sent: pred.psins (predicted on torus-8x8)"), "{chart}");
}
