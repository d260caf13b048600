//! Where the tracer's logs lie: a traced run is a job directory of `rank-*.bin` logs, made
//! under `$PSINS_DIR` (default `psins-trace/`) and named by its start (`YYYYMMDD-HHMMSS-PID`,
//! so that names sort by time). Readers handed the parent of the runs, or a run's logs where a
//! compact trace was expected, say what to do instead.

use std::path::{Path, PathBuf};

/// Whether `name` is a per-rank log's file name.
pub fn is_log_name(name: &str) -> bool {
    name.starts_with("rank-") && name.ends_with(".bin")
}

/// The `rank-*.bin` logs directly in `dir`, sorted.
pub fn logs_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(is_log_name))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The traced runs in `dir` (its subdirectories holding logs), newest first.
pub fn runs_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_dir() && !logs_in(p).is_empty()).collect()
        })
        .unwrap_or_default();
    v.sort();
    v.reverse();
    v
}

/// What to say of a directory that holds traced runs rather than one run's logs.
pub fn runs_hint(runs: &[PathBuf]) -> String {
    let shown: Vec<String> = runs.iter().skip(1).take(4).map(|r| r.display().to_string()).collect();
    format!(
        "holds {} traced run{}, not the logs of one: consolidate one of them, e.g. `psins-consolidate {} -o app.psins` (the newest){}",
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        runs[0].display(),
        if shown.is_empty() {
            String::new()
        } else {
            format!("; the others: {}{}", shown.join(", "), if runs.len() > 5 { ", …" } else { "" })
        }
    )
}
