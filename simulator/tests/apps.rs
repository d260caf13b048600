//! Real traces of the MPI test apps (4 ranks, traced and consolidated by the project's own
//! tracer; `tests/data/regen-app-traces.sh` rebuilds them when the format changes) replay
//! without deadlock or error under every model, analytic and expanded.

use crate::common;
use common::machine;
use psins_machine::MODELS;
use psins_sim::source::compact::CompactTrace;
use psins_sim::{simulate, Options};
use std::path::Path;

#[test]
fn every_app_trace_replays_under_every_model() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/apps");
    let mut traces: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    traces.sort();
    assert!(traces.len() >= 10, "fixtures missing in {}", dir.display());
    let calibration = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/pmac-calibration.toml");
    let cal = format!("network.calibration=\"{}\"", calibration.display());
    for trace in &traces {
        for &(model, _) in MODELS {
            for mode in ["analytic", "expanded"] {
                let mut sets = vec![format!("network.model={}", model), format!("mpi.collectives={mode}"), cal.clone()];
                if model == "torus" {
                    // One router per node: the test machine's 8 nodes as a 2×4 torus.
                    sets.push("network.torus.dims=2x4".into());
                }
                // The packet networks' default designs: a 4-ary 2-tree of 16 nodes (also the
                // flow model's default graph), a dragonfly of 72 (p = 2, a = 4, g = 9).
                if model == "fattree" || model == "flow" {
                    sets.push("machine.nodes=16".into());
                }
                if model == "dragonfly" {
                    sets.push("machine.nodes=72".into());
                }
                let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
                let m = machine(&sets);
                let r = simulate(CompactTrace::open(trace).unwrap(), &m, Options::default())
                    .unwrap_or_else(|e| panic!("{} under {} ({mode}): {e}", trace.display(), model));
                assert!(r.predicted > 0);
                assert_eq!(
                    r.stats.open_requests + r.stats.unresolved_wildcards + r.stats.unreceived,
                    0,
                    "{}",
                    trace.display()
                );
            }
        }
    }
}
