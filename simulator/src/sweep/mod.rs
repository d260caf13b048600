//! `psins-sim sweep`: one trace replayed on a grid of machine variants (docs/sweep.md). The
//! points are the machine files (`-m`, outermost) times the `--vary` axes (the last fastest);
//! each point is an ordinary replay with `--set` overrides, so its report is the one a
//! separate `psins-sim` run with the same options writes. Rows go to a part file per shard
//! as they finish (a rerun skips them); [`merge`] joins the parts into `sweep.csv` and
//! `sweep.jsonl`.

pub mod grid;
pub mod merge;
pub mod plot;
mod row;
pub mod run;
pub mod shard;

pub use grid::Axis;
pub use shard::Shard;

use serde_json::{json, Value};
use std::path::PathBuf;

/// The sweep's definition file in its directory: every shard writes the same one.
pub const DEF_FILE: &str = "sweep.def.json";
pub const CSV_FILE: &str = "sweep.csv";
pub const JSONL_FILE: &str = "sweep.jsonl";

/// What a sweep is: everything that decides its rows.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The trace as named, or a `gen:` spec.
    pub trace: String,
    /// The trace's provenance ([`crate::provenance::trace`]).
    pub origin: Value,
    pub machines: Vec<PathBuf>,
    /// `--set` overrides common to every point (applied before the varied values).
    pub sets: Vec<String>,
    pub axes: Vec<Axis>,
    /// `--tracer-overhead`, as in a single replay.
    pub tracer_overhead: crate::source::TracerOverhead,
}

/// One point of the grid.
pub struct Point<'a> {
    pub index: u64,
    pub machine: &'a std::path::Path,
    /// (key, value) per axis, in `--vary` order.
    pub vary: Vec<(&'a str, &'a str)>,
}

impl Point<'_> {
    /// The point's `--set` list: the sweep's, then its varied values.
    pub fn sets(&self, common: &[String]) -> Vec<String> {
        let mut s = common.to_vec();
        s.extend(self.vary.iter().map(|(k, v)| format!("{k}={v}")));
        s
    }

    /// `network.bandwidth=2GB/s network.latency=1us` (and the machine when there are several).
    pub fn label(&self, machines: usize) -> String {
        let mut parts: Vec<String> = self.vary.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if machines > 1 || parts.is_empty() {
            parts.insert(0, format!("-m {}", self.machine.display()));
        }
        parts.join(" ")
    }
}

impl Sweep {
    pub fn points(&self) -> u64 {
        self.machines.len() as u64 * self.axes.iter().map(|a| a.values.len() as u64).product::<u64>()
    }

    pub fn point(&self, k: u64) -> Point<'_> {
        let lens: Vec<usize> = self.axes.iter().map(|a| a.values.len()).collect();
        let per_machine: u64 = lens.iter().map(|&n| n as u64).product();
        let idx = grid::decompose(k % per_machine, &lens);
        Point {
            index: k,
            machine: &self.machines[(k / per_machine) as usize],
            vary: self.axes.iter().zip(idx).map(|(a, i)| (a.key.as_str(), a.values[i].as_str())).collect(),
        }
    }

    /// The definition as written to [`DEF_FILE`]; `sweep` is a checksum of the rest, which
    /// every row carries, so rows of different sweeps are never merged.
    pub fn definition(&self) -> Value {
        let mut d = json!({
            "tool": "psins-sim",
            "version": env!("CARGO_PKG_VERSION"),
            "format_version": psins_formats::magic::TRACE_VERSION,
            "trace": self.origin,
            "machines": self.machines.iter().map(|m| m.display().to_string()).collect::<Vec<_>>(),
            "sets": self.sets,
            "vary": self.axes.iter().map(|a| json!({"key": a.key, "values": a.values})).collect::<Vec<_>>(),
            "points": self.points(),
            "tracer_overhead": self.tracer_overhead.to_string(),
        });
        let id = format!("{:08x}", crc32fast::hash(d.to_string().as_bytes()));
        d["sweep"] = id.into();
        d
    }
}
