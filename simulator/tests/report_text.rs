//! The text report as a reader meets it: what the prediction assumes (the machine file, its
//! calibration and age, cpu_ratio, the rank mapping, the collectives mode) beside the
//! prediction and its ratio to the measured run, and every time in scaled units.

use crate::common;
use common::*;
use psins_formats::*;
use psins_sim::source::compact::CompactTrace;
use psins_sim::{simulate, Machine, Options};
use std::path::Path;
use std::process::Command;

const SIM: &str = env!("CARGO_BIN_EXE_psins-sim");

/// The test machine as psins-calibrate would have stamped it, cyclic, cores twice as fast.
const CALIBRATED: &str = r#"
[calibrated]
by = "psins-calibrate 0.1.0"
at = "2026-11-26T10:00:00Z"
host = "node1,node2"
launcher = "mpirun -n 2"
mpi_library = "MPICH 4.0.2"
buffers = "warm"
trials = 40
launches = 2

[machine]
nodes = 8
cores_per_node = 2
mapping = "cyclic"
cpu_ratio = 2.0

[mpi]
collectives = "analytic"

[network]
model = "simple"
latency = "1us"
bandwidth = "1GB/s"
"#;

/// 2026-11-26T10:00:00Z in seconds since 1970, the calibration's stamp.
const STAMPED: u64 = 1_795_687_200;

/// Four ranks: a 1000-byte ping-pong between 0 and 1 after 10 us of computation, then an
/// allreduce of all four.
fn trace() -> Vec<Vec<Record>> {
    vec![
        vec![send(10, 1, 1000), recv(0, 1, 1000), allreduce(0, 8, 0), fin()],
        vec![recv(0, 0, 1000), send(0, 0, 1000), allreduce(0, 8, 0), fin()],
        vec![allreduce(0, 8, 0), fin()],
        vec![allreduce(0, 8, 0), fin()],
    ]
}

/// The block of the table, from its heading to the blank line after it.
fn assumptions(table: &str) -> &str {
    let start = table.find("what the prediction assumes:\n").unwrap_or_else(|| panic!("no assumptions in {table}"));
    let block = &table[start..];
    &block[..block.find("\n\n").unwrap_or(block.len())]
}

#[test]
fn the_report_says_what_the_prediction_assumes() {
    let m = Machine::from_str(Path::new("calib/base.toml"), CALIBRATED, &[]).unwrap();
    let r = simulate(CompactTrace::open(&write("a.psins", &trace(), vec![])).unwrap(), &m, Options::default()).unwrap();
    let t = r.table_at(STAMPED + 3 * 86_400 + 60);
    let a = assumptions(&t);
    for want in [
        "  machine file       calib/base.toml\n",
        "  calibrated         2026-11-26T10:00:00Z (3 days old) on node1,node2 through `mpirun -n 2`, MPICH 4.0.2, by psins-calibrate 0.1.0\n",
        "`psins-calibrate --check calib/base.toml` says whether this host still matches it",
        // cpu_ratio: the traced bursts divided by it
        "  CPU bursts         replayed as the trace times them, divided by cpu_ratio = 2 (a target core 2× as fast as a traced one)",
        "  ranks              4 on 4 of 8 nodes (cyclic mapping, rank r on node r % 8, 2 cores a node)",
        "  collectives        analytic: a collective is one modelled operation",
        "sends no messages, so `messages` counts point-to-point traffic only",
    ] {
        assert!(a.contains(want), "{want:?} in\n{a}");
    }
    // cpu_ratio = 2 halves rank 0's 10 us burst.
    assert_eq!(r.tasks[0].compute, 5 * US);
    // The same in JSON, without the age (the JSON holds no wall-clock figure).
    let j = &r.json()["assumptions"];
    assert_eq!(j["machine_file"], "calib/base.toml");
    assert_eq!(j["calibrated"]["at"], "2026-11-26T10:00:00Z");
    assert_eq!(j["calibrated"]["launcher"], "mpirun -n 2");
    assert_eq!((j["cpu_ratio"].as_f64(), j["mapping"].as_str()), (Some(2.0), Some("cyclic")));
    assert_eq!((j["ranks"].as_u64(), j["nodes_used"].as_u64(), j["nodes"].as_u64()), (Some(4), Some(4), Some(8)));
    assert_eq!(j["collectives"], serde_json::json!({"mode": "analytic", "setting": "analytic"}));
    // An uncalibrated file has no calibration lines; a block mapping says how it places ranks.
    let plain = run(&trace(), &["machine.cores_per_node=2"]);
    let a = assumptions(&plain.table()).to_string();
    assert!(!a.contains("calibrated") && !a.contains("--check"), "{a}");
    assert!(a.contains("4 on 2 of 8 nodes (block mapping, rank r on node r / 2, 2 cores a node)"), "{a}");
    assert!(a.contains("divided by cpu_ratio = 1 (target cores as fast as the traced ones)"), "{a}");
}

/// The same trace sends 2 messages with analytic collectives and more when they are
/// expanded: each report says why its count is what it is.
#[test]
fn the_collectives_mode_explains_the_message_count() {
    let analytic = run(&trace(), &[]);
    let expanded = run(&trace(), &["mpi.collectives=expanded"]);
    assert_eq!(analytic.stats.messages, 2);
    assert!(expanded.stats.messages > 2, "{}", expanded.stats.messages);
    let line = |t: &str| t.lines().find(|l| l.starts_with("  collectives ")).unwrap().to_string();
    let (a, x) = (line(&analytic.table()), line(&expanded.table()));
    assert!(a.contains("analytic:") && a.contains("`messages` counts point-to-point traffic only"), "{a}");
    assert!(x.contains("expanded:") && x.contains("replayed as its point-to-point steps"), "{x}");
    assert!(x.contains("which `messages` counts beside the point-to-point traffic"), "{x}");
    // "auto" says the model chose.
    let auto = run(&trace(), &["mpi.collectives=auto"]);
    let l = line(&auto.table());
    assert!(l.contains("analytic (collectives = \"auto\": the model's choice)"), "{l}");
    assert_eq!(auto.json()["assumptions"]["collectives"], serde_json::json!({"mode": "analytic", "setting": "auto"}));
}

/// A trace the tracer wrote has a measured span: the report gives predicted / measured,
/// the same figure as the JSON's `measured.predicted_over_measured`; a bundled machine named
/// by `-m NAME` is shown with the file it resolved to.
#[test]
fn the_ratio_to_the_measured_run_and_the_bundled_machine() {
    let tasks = [
        vec![Record::new(0, 0, Op::Init { thread_level: 0 }), send(10, 1, 8), Record::new(3000, 0, Op::Finalize)],
        vec![Record::new(0, 0, Op::Init { thread_level: 0 }), recv(1, 0, 8), Record::new(1000, 0, Op::Finalize)],
    ];
    let path = tmp("measured.psins");
    TraceWriter::write_tasks(&path, &tasks, vec![("tracer_version".into(), "test".into())], vec![]).unwrap();
    let stdout = |args: &[&str]| {
        let o = Command::new(SIM).arg(&path).args(["-m", "fat-simple"]).args(args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let json: serde_json::Value = serde_json::from_str(&stdout(&["-q", "--json", "-"])).unwrap();
    let out = stdout(&[]);
    let ratio = json["measured"]["predicted_over_measured"].as_f64().unwrap();
    let want = json["predicted_seconds"].as_f64().unwrap() / json["measured"]["span_s"].as_f64().unwrap();
    assert!((ratio - want).abs() < 1e-12, "{ratio} against {want}");
    let line = out.lines().find(|l| l.starts_with("ratio:")).unwrap_or_else(|| panic!("{out}"));
    assert!(line.starts_with(&format!("ratio:       {ratio:.3} predicted / measured (the prediction ")), "{line}");
    assert!(line.contains("% shorter than the measured run") || line.contains("% longer than"), "{line}");
    let file = out.lines().find(|l| l.starts_with("  machine file")).unwrap();
    assert!(file.contains("the bundled machine `fat-simple`: ") && file.ends_with("configs/fat-simple.toml"), "{file}");
    assert_eq!(
        json["assumptions"]["machine_file"].as_str().map(|f| f.ends_with("configs/fat-simple.toml")),
        Some(true)
    );
}

/// Every time of the table in scaled units with 4 significant digits, the critical path's
/// too, and message sizes in binary units: rank 0 computes 10 us, sends 1000 B (delivered
/// at 12 us), and its receive waits 2 us for rank 1's reply (sent at 12 us, delivered at 14).
#[test]
fn times_and_sizes_are_printed_for_people() {
    let path = write(
        "t.psins",
        &trace()[..2].iter().map(|t| vec![t[0].clone(), t[1].clone(), fin()]).collect::<Vec<_>>(),
        vec![],
    );
    let m = machine(&[]);
    let opts = Options { critical_path: true, ..Default::default() };
    let r = simulate(CompactTrace::open(&path).unwrap(), &m, opts).unwrap();
    let t = r.table();
    let lines: Vec<&str> = t.lines().collect();
    let find = |p: &str| *lines.iter().find(|l| l.starts_with(p)).unwrap_or_else(|| panic!("{p:?} in {t}"));
    assert_eq!(find("predicted:"), "predicted:   14.00 µs");
    let words = |l: &str| l.split_whitespace().map(String::from).collect::<Vec<_>>();
    assert_eq!(words(find("per task")), ["per", "task", "compute", "communication", "of", "which", "wait"]);
    assert_eq!(words(find("rank 0 ")), ["rank", "0", "10.00", "µs", "4.000", "µs", "2.000", "µs"]);
    assert_eq!(words(find("rank 1 ")), ["rank", "1", "0", "s", "12.00", "µs", "10.00", "µs"]);
    assert_eq!(words(find("MPI_Recv ")), ["MPI_Recv", "2", "16.00", "µs", "12.00", "µs", "100.0%"]);
    assert_eq!(find("critical path:"), "critical path: 14.00 µs, ending on rank 0");
    assert!(t.contains("computation 10.00 µs  latency "), "{t}");
    assert!(t.contains("\n      10.00 µs  rank 0 computation (computation)\n"), "{t}");
    // The size bin of two 1000-byte messages, as psins-dump --profile writes it.
    assert!(t.contains("\nmessage size:\n            [512 B, 1 KiB)             2  #"), "{t}");
    // No time is left in nine-decimal seconds.
    assert!(!t.contains("0.0000"), "{t}");
}
