//! Timelines of a real traced run (the stencil2d test app at 4 ranks under real `mpirun`):
//! the measured one (`psins-dump --timeline`) has every call with exactly its recorded
//! duration (a poll record's run); both one flow arrow per point-to-point message of the
//! trace, from its sender to its receiver. Both files parse.

use psins_e2e::*;
use psins_formats::{Op, Record, TraceReader, PROC_NULL};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

fn events(path: &Path) -> Vec<Value> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).expect("the timeline parses");
    v["traceEvents"].as_array().unwrap().clone()
}

#[test]
fn measured_and_predicted_timelines_of_a_traced_stencil() {
    need_mpi!();
    let run = run_traced("stencil2d", 4, &[], &[]);
    run.ok();
    let trace = run.dir.join("st.psins");
    run_tool("psins-consolidate", &[run.job_dir().as_os_str(), "-o".as_ref(), trace.as_os_str()]);
    let tr = TraceReader::open(&trace).unwrap();
    // Per rank, the recorded durations of the records that are calls with a slice (not
    // expansion steps, not unknown `Other` functions), and the point-to-point sends.
    let mut durs: Vec<Vec<u64>> = Vec::new();
    let mut sends: BTreeMap<(u64, u64), usize> = BTreeMap::new();
    let mut rec = Record::default();
    for t in 0..tr.tasks() {
        let mut c = tr.task(t, 1 << 16).unwrap();
        let mut d = Vec::new();
        while c.next(&mut rec).unwrap() {
            match rec.op {
                Op::Step { .. } | Op::Other { .. } => {}
                // A poll record's slice is its run: its calls and the computation between them.
                Op::Poll { between_ns, .. } => d.push(rec.dur_ns + between_ns.min(rec.gap_ns)),
                _ => d.push(rec.dur_ns),
            }
            if let Op::Send { peer, comm: 0, .. }
            | Op::Isend { peer, comm: 0, .. }
            | Op::Sendrecv { peer, comm: 0, .. } = rec.op
            {
                if peer != PROC_NULL {
                    *sends.entry((t as u64, peer as u64)).or_default() += 1;
                }
            }
        }
        durs.push(d);
    }
    assert!(sends.values().sum::<usize>() > 0, "the stencil exchanges halos");

    let measured = run.dir.join("measured.json");
    run_tool("psins-dump", &["--timeline".as_ref(), measured.as_os_str(), trace.as_os_str()]);
    let ev = events(&measured);
    for (t, want) in durs.iter().enumerate() {
        let got: Vec<u64> = ev
            .iter()
            .filter(|e| e["ph"] == "X" && e["cat"] == "mpi" && e["tid"] == t as u64)
            .map(|e| (e["dur"].as_f64().unwrap() * 1000.0).round() as u64)
            .collect();
        assert_eq!(&got, want, "rank {t}: measured slice durations are the recorded ones");
    }
    assert_eq!(arrows(&ev), sends, "measured: one arrow per message of the trace, sender to receiver");

    let predicted = run.dir.join("predicted.json");
    let m = root().join("configs/fat-simple.toml");
    run_tool(
        "psins-sim",
        &[trace.as_os_str(), "-m".as_ref(), m.as_os_str(), "-q".as_ref(), "--timeline".as_ref(), predicted.as_os_str()],
    );
    let ev = events(&predicted);
    assert_eq!(arrows(&ev), sends, "one arrow per message of the trace, sender to receiver");
}

/// Arrows per (sender, receiver), checking every flow has one start and then one finish.
fn arrows(ev: &[Value]) -> BTreeMap<(u64, u64), usize> {
    let mut ends: BTreeMap<u64, Vec<(String, u64)>> = BTreeMap::new();
    for e in ev.iter().filter(|e| e["ph"] == "s" || e["ph"] == "f") {
        ends.entry(e["id"].as_u64().unwrap())
            .or_default()
            .push((e["ph"].as_str().unwrap().into(), e["tid"].as_u64().unwrap()));
    }
    let mut pairs: BTreeMap<(u64, u64), usize> = BTreeMap::new();
    for (id, e) in &ends {
        assert_eq!(e.len(), 2, "flow {id}: {e:?}");
        assert_eq!((e[0].0.as_str(), e[1].0.as_str()), ("s", "f"), "flow {id}");
        *pairs.entry((e[0].1, e[1].1)).or_default() += 1;
    }
    pairs
}
