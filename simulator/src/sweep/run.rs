//! Running a sweep's points on the local cores: checked first (every machine and varied
//! value), then replayed by `jobs` threads; each finished row is appended to the shard's part
//! file at once (and its report written before it), so an interrupted sweep resumes where it
//! stopped.

use super::{merge, row, Shard, Sweep, DEF_FILE};
use crate::error::{Result, SimError};
use crate::source::{compact::CompactTrace, synth::SynthSource, synth::Workload};
use crate::{model, simulate_report, Machine, Options, Report};
use psins_cli::chain;
use psins_formats::note;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

pub struct RunOptions {
    pub dir: PathBuf,
    pub shard: Shard,
    /// Points replayed at once.
    pub jobs: usize,
    /// Also write each point's full report to `DIR/reports/point-K.json`.
    pub reports: bool,
    /// No line per finished point on stderr.
    pub quiet: bool,
}

pub struct Outcome {
    /// Points of this shard, and how many a previous run had finished.
    pub owned: u64,
    pub skipped: u64,
    /// The merged result, when this run was the whole sweep (one shard).
    pub merged: Option<merge::Merged>,
}

pub fn run(sweep: &Sweep, o: &RunOptions) -> Result<Outcome> {
    check(sweep)?;
    std::fs::create_dir_all(&o.dir).map_err(|e| SimError::output(&o.dir, e))?;
    let def = sweep.definition();
    let id = def["sweep"].as_str().expect("definition has an id").to_string();
    write_def(&o.dir, &def)?;
    let part_path = o.dir.join(o.shard.part_name());
    let done = resume(&part_path, &id, o.shard, sweep.points())?;
    let owned = (0..sweep.points()).filter(|&k| o.shard.owns(k)).count() as u64;
    let todo: Vec<u64> = (0..sweep.points()).filter(|&k| o.shard.owns(k) && !done.contains(&k)).collect();
    if !done.is_empty() && !o.quiet {
        note!("psins-sim: sweep: {} of {owned} points already done in {}", done.len(), part_path.display());
    }
    let mut part = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&part_path)
        .map_err(|e| SimError::output(&part_path, e))?;
    if o.reports {
        std::fs::create_dir_all(o.dir.join("reports")).map_err(|e| SimError::output(&o.dir.join("reports"), e))?;
    }
    let (next, stop) = (AtomicUsize::new(0), AtomicBool::new(false));
    let mut failure: Option<SimError> = None;
    let mut finished = done.len() as u64;
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel::<(u64, Result<Report>)>();
        for _ in 0..o.jobs.clamp(1, todo.len().max(1)) {
            let (tx, next, stop, todo) = (tx.clone(), &next, &stop, &todo);
            s.spawn(move || {
                while !stop.load(Relaxed) {
                    let Some(&k) = todo.get(next.fetch_add(1, Relaxed)) else { break };
                    if tx.send((k, replay_point(sweep, k))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (k, r) in rx {
            if failure.is_some() {
                continue;
            }
            let written = r.and_then(|report| {
                let point = sweep.point(k);
                let row = row::of_report(&id, &point, &report);
                if o.reports {
                    write_report(&o.dir, k, &report)?;
                }
                writeln!(part, "{row}").and_then(|_| part.flush()).map_err(|e| SimError::output(&part_path, e))?;
                finished += 1;
                if !o.quiet {
                    let what = match &report.deadlock {
                        None => crate::units::human_time(report.predicted),
                        Some(_) => "deadlock".into(),
                    };
                    note!(
                        "psins-sim: sweep: {finished}/{owned} point {k} ({}): {what}",
                        point.label(sweep.machines.len())
                    );
                }
                Ok(())
            });
            if let Err(e) = written {
                stop.store(true, Relaxed);
                failure = Some(e);
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let merged = if o.shard.count == 1 { Some(merge::merge(&o.dir)?) } else { None };
    Ok(Outcome { owned, skipped: done.len() as u64, merged })
}

/// Loads a point's machine, with `--set` errors as the loader words them.
fn machine(path: &Path, sets: &[String]) -> Result<Machine> {
    let m = Machine::load(path, sets)?;
    model::build(&m).map_err(|source| SimError::Model { path: path.to_path_buf(), source })?;
    Ok(m)
}

/// Every machine, every varied value and every point loads before any replay; an error names
/// the argument that caused it.
fn check(sweep: &Sweep) -> Result<()> {
    if sweep.trace.starts_with("gen:") {
        Workload::parse(&sweep.trace)?;
    } else {
        CompactTrace::open(Path::new(&sweep.trace))?;
    }
    for m in &sweep.machines {
        machine(m, &sweep.sets)?;
    }
    for a in &sweep.axes {
        for v in &a.values {
            let mut sets = sweep.sets.clone();
            sets.push(format!("{}={v}", a.key));
            machine(&sweep.machines[0], &sets)
                .map_err(|e| SimError::Usage(format!("--vary {}={v}: {}", a.key, chain(&e))))?;
        }
    }
    for k in 0..sweep.points() {
        let p = sweep.point(k);
        machine(p.machine, &p.sets(&sweep.sets))
            .map_err(|e| SimError::Usage(format!("point {k} ({}): {}", p.label(sweep.machines.len()), chain(&e))))?;
    }
    Ok(())
}

fn replay_point(sweep: &Sweep, k: u64) -> Result<Report> {
    let p = sweep.point(k);
    let sets = p.sets(&sweep.sets);
    let m = machine(p.machine, &sets)?;
    let mut report = if sweep.trace.starts_with("gen:") {
        simulate_report(SynthSource::new(Workload::parse(&sweep.trace)?), &m, Options::default())?
    } else {
        let src = CompactTrace::open(Path::new(&sweep.trace))?.with_tracer_overhead(sweep.tracer_overhead)?;
        simulate_report(src, &m, Options::default())?
    };
    report.provenance = Some(crate::provenance::of_run(&sweep.origin, p.machine, &sets, &m, sweep.tracer_overhead));
    Ok(report)
}

/// `DIR/reports/point-K.json`: the bytes `psins-sim --json` writes for the same point.
fn write_report(dir: &Path, k: u64, report: &Report) -> Result<()> {
    let path = dir.join("reports").join(format!("point-{k}.json"));
    let mut text = serde_json::to_string_pretty(&report.json()).expect("report JSON serialises");
    text.push('\n');
    write_atomic(&path, &text)
}

/// Writes `text` to a temporary file beside `path` and renames it over `path`.
fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text).and_then(|_| std::fs::rename(&tmp, path)).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        SimError::output(path, e)
    })
}

/// Writes the definition, or checks that the directory's is the same sweep.
fn write_def(dir: &Path, def: &serde_json::Value) -> Result<()> {
    let path = dir.join(DEF_FILE);
    let text = serde_json::to_string_pretty(def).expect("definition serialises") + "\n";
    match std::fs::read_to_string(&path) {
        Ok(old) if old == text => Ok(()),
        Ok(old) => {
            let old_id = serde_json::from_str::<serde_json::Value>(&old)
                .ok()
                .and_then(|v| v["sweep"].as_str().map(String::from));
            Err(SimError::Input(format!(
                "{}: the directory holds another sweep (id {}; this one is {}): the trace, a machine, --set or --vary differ; use another directory",
                path.display(),
                old_id.unwrap_or_else(|| "unreadable".into()),
                def["sweep"].as_str().unwrap_or("?")
            )))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => write_atomic(&path, &text),
        Err(e) => Err(SimError::Input(format!("{}: cannot read: {e}", path.display()))),
    }
}

/// The points a previous run of this shard finished; a row cut short by an interruption is
/// removed from the file.
fn resume(path: &Path, id: &str, shard: Shard, points: u64) -> Result<BTreeSet<u64>> {
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeSet::new()),
        Err(e) => return Err(SimError::Input(format!("{}: cannot read: {e}", path.display()))),
    };
    let complete = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if complete < text.len() {
        let f = std::fs::OpenOptions::new().write(true).open(path).map_err(|e| SimError::output(path, e))?;
        f.set_len(complete as u64).map_err(|e| SimError::output(path, e))?;
    }
    let mut done = BTreeSet::new();
    for (i, line) in text[..complete].split(|&b| b == b'\n').enumerate().filter(|(_, l)| !l.is_empty()) {
        let bad = |m: String| SimError::Input(format!("{}: line {}: {m}", path.display(), i + 1));
        let row: serde_json::Value = serde_json::from_slice(line).map_err(|e| bad(format!("not a sweep row: {e}")))?;
        if row["sweep"] != id {
            return Err(bad(format!(
                "a row of another sweep ({}), not of this one ({id})",
                row["sweep"].as_str().unwrap_or("?")
            )));
        }
        match row["point"].as_u64() {
            Some(k) if k < points && shard.owns(k) => done.insert(k),
            _ => {
                return Err(bad(format!("point {} is not one of shard {}/{}", row["point"], shard.index, shard.count)))
            }
        };
    }
    Ok(done)
}
