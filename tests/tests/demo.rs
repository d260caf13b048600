//! `scripts/demo.sh --table`: the README's table printed again from the trace and calibration
//! a demo left, without tracing or calibrating. Each machine's row is psins-sim's prediction
//! and the ranks' largest predicted time in communication, not the traced run's own (which
//! the report keeps apart, under "measured").

use psins_e2e::*;
use psins_formats::*;
use std::process::Command;

#[test]
fn the_demo_table_is_printed_again_from_its_trace() {
    let out = scratch("demo-table");
    std::fs::create_dir_all(out.join("calib")).unwrap();
    // Two ranks, one message; rank 1 waited a whole second in its receive as traced, far
    // above any prediction of an 8-byte message.
    let (w, second) = (COMM_WORLD, 1_000_000_000);
    let init = Record::new(0, 1_000, Op::Init { thread_level: 0 });
    let send = Op::Send { mode: SendMode::Standard, peer: 1, tag: 0, bytes: 8, comm: w };
    let recv = Op::Recv { peer: 0, tag: 0, bytes: 8, comm: w };
    let tasks = vec![
        vec![init.clone(), Record::new(1_000, 1_000, send), Record::new(0, 1_000, Op::Finalize)],
        vec![init, Record::new(0, second, recv), Record::new(1_000, 1_000, Op::Finalize)],
    ];
    let trace = out.join("stencil2d.psins");
    // As traced (a generated trace's times are no run's, and have no measured row).
    let meta = vec![("tracer_version".to_string(), "0.1.0".to_string())];
    TraceWriter::write_tasks(&trace, &tasks, meta, vec![]).unwrap();
    std::fs::copy(root().join("configs/bus-cluster.toml"), out.join("calib/base-machine.toml")).unwrap();
    let run = || {
        let o = Command::new("bash")
            .arg(root().join("scripts/demo.sh"))
            .arg("--table")
            .env("BIN", tools_dir())
            .env("DEMO_OUT", &out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let table = run();
    assert_eq!(run(), table, "the same table every time");
    let rows: Vec<Vec<&str>> = table
        .lines()
        .filter(|l| l.starts_with(&*out.to_string_lossy()) || l.starts_with("configs/"))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 3, "{table}");
    for row in &rows {
        let json = out.join("p.json");
        let machine = root().join(row[0]);
        let machine = if machine.exists() { machine } else { row[0].into() };
        run_tool(
            "psins-sim",
            &[
                trace.as_os_str(),
                "-m".as_ref(),
                machine.as_os_str(),
                "-q".as_ref(),
                "--json".as_ref(),
                json.as_os_str(),
            ],
        );
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let pred = v["predicted_seconds"].as_f64().unwrap();
        assert_eq!(row[2].parse::<f64>().unwrap(), pred, "{table}");
        let comm = v["tasks"].as_array().unwrap().iter().map(|t| t["comm_s"].as_f64().unwrap()).fold(0.0, f64::max);
        let shown: f64 = row[3].parse().unwrap();
        assert!((shown - comm).abs() < 1e-9 && shown < 0.5, "{table}: the predicted communication, not the traced 1 s");
    }
    // The traced run's own time heads the table.
    assert!(table.contains("(measured: the traced run, Init to Finalize)"), "{table}");
}
