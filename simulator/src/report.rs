//! What a replay tells the user: a table for people, JSON for programs. The JSON is a pure
//! function of the replay (no wall-clock figures), so two runs give identical bytes; so is
//! the table but for one figure, the age of a calibrated machine file, which is counted to
//! today because a stale calibration is what it warns of.

mod assumptions;

pub use assumptions::Assumptions;

use crate::model::NetworkModel;
use crate::stats::{Log2Hist, Stats};
use crate::units::{human_time, human_time_ns, secs, size_bin, Ps};
use psins_formats::functions::fn_names;
use psins_machine::Machine;
use serde_json::{json, Map, Value};
use std::fmt::Write;
use std::time::Duration;

/// Times of one task.
#[derive(Clone, Copy, Debug)]
pub struct TaskTimes {
    pub compute: Ps,
    pub comm: Ps,
    pub wait: Ps,
    pub end: Ps,
}

pub struct Report {
    pub machine: String,
    pub model: String,
    pub source: String,
    pub collectives: &'static str,
    pub predicted: Ps,
    pub tasks: Vec<TaskTimes>,
    pub stats: Stats,
    pub records: u64,
    pub wall: Duration,
    pub network: Vec<(String, Value)>,
    /// Most messages in flight at once, and the engine's bytes per message.
    pub peak_messages: u64,
    pub message_bytes: u64,
    /// Set when the replay could not complete: the tasks were left blocked.
    pub deadlock: Option<Deadlock>,
    /// Where the report came from ([`crate::provenance`]), set by the caller that knows.
    pub provenance: Option<Value>,
    /// The traced run's own span, beside the prediction (traces the tracer wrote).
    pub measured: Option<crate::source::Measured>,
    /// The critical path, when tracked (`--critical-path`).
    pub critical: Option<crate::critpath::CriticalPath>,
    /// What the prediction assumes of the machine (the table's block, `assumptions` in JSON).
    pub assumptions: Assumptions,
}

/// A replay that stopped with tasks blocked.
#[derive(Clone, Debug)]
pub struct Deadlock {
    /// The message for the user (stderr), listing the blocked tasks.
    pub message: String,
    /// Simulated time when nothing could progress.
    pub at: Ps,
    pub blocked_total: u64,
    /// The first blocked tasks (at most 64), in rank order.
    pub blocked: Vec<BlockedTask>,
}

#[derive(Clone, Debug)]
pub struct BlockedTask {
    pub rank: u32,
    /// The MPI function the task is in.
    pub call: String,
    pub record: u64,
    pub called_at: Ps,
    /// E.g. "inside an expanded collective".
    pub notes: Vec<String>,
    /// One line per request it waits for.
    pub waits_for: Vec<String>,
}

impl BlockedTask {
    /// The task's lines in the deadlock message.
    pub fn text(&self) -> String {
        let mut s = format!(
            "\n  rank {}: {} (record {}, called at {})",
            self.rank,
            self.call,
            self.record,
            human_time(self.called_at)
        );
        for n in &self.notes {
            s.push_str(", ");
            s.push_str(n);
        }
        for w in &self.waits_for {
            s.push_str("\n    waits for ");
            s.push_str(w);
        }
        s
    }

    fn json(&self) -> Value {
        json!({"rank": self.rank, "call": self.call, "record": self.record, "called_at_s": secs(self.called_at),
               "notes": self.notes, "waits_for": self.waits_for})
    }
}

impl Report {
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        m: &Machine,
        model: &dyn NetworkModel,
        source: &str,
        tasks: &[TaskTimes],
        stats: Stats,
        records: u64,
        wall: Duration,
        expanded: bool,
    ) -> Report {
        Report {
            machine: m.name.clone(),
            model: model.name().to_string(),
            source: source.to_string(),
            collectives: if expanded { "expanded" } else { "analytic" },
            predicted: tasks.iter().map(|t| t.end).max().unwrap_or(0),
            tasks: tasks.to_vec(),
            stats,
            records,
            wall,
            network: model.stats(),
            peak_messages: 0,
            message_bytes: 0,
            deadlock: None,
            provenance: None,
            measured: None,
            critical: None,
            assumptions: Assumptions::of(m, tasks.len() as u32),
        }
    }

    /// Predicted over measured time, for a completed replay of a trace with a measured span.
    pub fn predicted_over_measured(&self) -> Option<f64> {
        let m = self.measured.as_ref().filter(|m| m.span_ns > 0 && self.deadlock.is_none())?;
        Some(secs(self.predicted) / (m.span_ns as f64 / 1e9))
    }

    /// Records replayed per second of wall-clock time.
    pub fn records_per_second(&self) -> f64 {
        self.records as f64 / self.wall.as_secs_f64().max(1e-9)
    }

    /// Functions with at least one call, by name.
    fn functions(&self) -> Vec<(String, crate::stats::FnStat)> {
        let names = fn_names();
        let mut v: Vec<(String, crate::stats::FnStat)> = self
            .stats
            .fns
            .iter()
            .enumerate()
            .filter(|(_, s)| s.count > 0)
            .map(|(i, s)| (names[i].clone(), *s))
            .collect();
        v.extend(self.stats.others.iter().map(|(f, s)| (format!("MPI_other_{f}"), *s)));
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    pub fn json(&self) -> Value {
        let names = fn_names();
        let no_waits = Vec::new();
        let tasks: Vec<Value> = self
            .tasks
            .iter()
            .enumerate()
            .map(|(r, t)| {
                // Only the functions the rank waited in (a Map sorts them by name).
                let w = self.stats.rank_waits.get(r).unwrap_or(&no_waits);
                let waits: Map<String, Value> =
                    w.iter().map(|&(f, ps)| (names[f as usize].clone(), json!(secs(ps)))).collect();
                json!({"rank": r, "compute_s": secs(t.compute), "comm_s": secs(t.comm), "wait_s": secs(t.wait), "end_s": secs(t.end), "wait_by_function_s": waits})
            })
            .collect();
        let mut functions = Map::new();
        for (name, s) in self.functions() {
            functions.insert(name, json!({"count": s.count, "time_s": secs(s.time), "wait_s": secs(s.wait)}));
        }
        let network: Map<String, Value> = self.network.iter().cloned().collect();
        let mut regions = Map::new();
        for (level, r) in &self.stats.regions {
            regions.insert(
                level.to_string(),
                json!({"compute_s": secs(r.compute), "comm_s": secs(r.comm), "wait_s": secs(r.wait)}),
            );
        }
        // A deadlocked replay predicts nothing: its times are those reached when it stopped.
        let (predicted_s, predicted_ps) = match self.deadlock {
            None => (json!(secs(self.predicted)), json!(self.predicted)),
            Some(_) => (Value::Null, Value::Null),
        };
        let mut v = json!({
            "status": if self.deadlock.is_some() { "deadlock" } else { "ok" },
            "predicted_seconds": predicted_s,
            "predicted_ps": predicted_ps,
            "machine": self.machine,
            "model": self.model,
            "collectives": self.collectives,
            "source": self.source,
            "records": self.records,
            "tasks": tasks,
            "functions": functions,
            "regions": regions,
            "messages": {
                "count": self.stats.messages,
                "bytes": self.stats.bytes as f64,
                "intra_node": self.stats.intra_messages,
            },
            "rma": {
                "operations": self.stats.rma_ops,
                "bytes": self.stats.rma_bytes as f64,
            },
            "message_sizes": hist_json(&self.stats.sizes, "bytes"),
            "bandwidths": hist_json(&self.stats.bandwidths, "bytes_per_s"),
            "network": network,
            "warnings": {
                "open_requests": self.stats.open_requests,
                "open_request_ranks": self.stats.open_request_ranks,
                "unresolved_wildcards": self.stats.unresolved_wildcards,
                "unreceived_messages": self.stats.unreceived,
            },
        });
        if let Some(d) = &self.deadlock {
            let blocked: Vec<Value> = d.blocked.iter().map(BlockedTask::json).collect();
            v["deadlock"] =
                json!({"message": d.message, "at_s": secs(d.at), "blocked_total": d.blocked_total, "blocked": blocked});
        }
        if let Some(m) = &self.measured {
            let (span, comm) = (m.span_ns as f64 / 1e9, m.comm_ns as f64 / 1e9);
            let bursts = m.bursts.map(psins_formats::BurstClock::name);
            v["measured"] = json!({"span_s": span, "slowest_rank": m.rank, "comm_s": comm, "bursts": bursts,
                                   "predicted_over_measured": self.predicted_over_measured()});
        }
        if let Some(p) = &self.provenance {
            v["provenance"] = p.clone();
        }
        if let Some(c) = &self.critical {
            v["critical_path"] = c.json();
        }
        let mut ext = Map::new();
        for (name, f) in [
            ("compute", (|t: &TaskTimes| t.compute) as fn(&TaskTimes) -> Ps),
            ("comm", |t| t.comm),
            ("wait", |t| t.wait),
        ] {
            let e = extremes(&self.tasks, f);
            ext.insert(name.into(), json!({"min_rank": e.min.0, "min_s": secs(e.min.1), "max_rank": e.max.0, "max_s": secs(e.max.1), "mean_s": secs(e.mean)}));
        }
        v["extremes"] = ext.into();
        v["assumptions"] = self.assumptions.json(self.collectives);
        v["most_waiting"] =
            most_waiting(&self.tasks, 5).iter().map(|&(r, w)| json!({"rank": r, "wait_s": secs(w)})).collect();
        v
    }

    /// The messages sent and never received, when there are any: the receiving side of them
    /// is missing from the prediction.
    pub fn unreceived_warning(&self) -> Option<String> {
        let st = &self.stats;
        let first = st.first_unreceived.as_deref()?;
        Some(format!(
            "{} messages were sent and never received (the first: {first}); the trace may lack a rank's records, and the prediction has no receive for them",
            st.unreceived
        ))
    }

    /// The table, a calibrated machine file's age counted to now.
    pub fn table(&self) -> String {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        self.table_at(now)
    }

    /// The table, a calibrated machine file's age counted to `now` (seconds since 1970).
    pub fn table_at(&self, now: u64) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "source:      {}", self.source);
        let _ = writeln!(s, "machine:     {} (model {}, collectives {})", self.machine, self.model, self.collectives);
        if let Some(p) = &self.provenance {
            s.push_str(&crate::provenance::table_lines(p));
        }
        let _ = writeln!(s, "predicted:   {}", human_time(self.predicted));
        if let Some(m) = &self.measured {
            let _ = writeln!(
                s,
                "measured:    {} (the traced run, MPI_Init to MPI_Finalize of rank {}; at most {} in MPI)",
                human_time_ns(m.span_ns),
                m.rank,
                human_time_ns(m.comm_ns)
            );
            if let Some(r) = self.predicted_over_measured() {
                let _ = writeln!(s, "ratio:       {}", ratio_text(r));
            }
            let bursts = match m.bursts {
                Some(b @ psins_formats::BurstClock::Cpu) => {
                    format!("{}: the measured span is that CPU time plus the calls' wall time", b.describe())
                }
                Some(b) => b.describe().to_string(),
                None => "timed with a PSINS_CLOCK this psins-sim does not know".to_string(),
            };
            let _ = writeln!(s, "bursts:      {bursts}");
        }
        let named = self.provenance.as_ref().and_then(|p| p["machine"]["path"].as_str());
        s.push_str(&self.assumptions.table(named, self.collectives, now));
        self.task_table(&mut s);
        self.function_table(&mut s);
        self.region_table(&mut s);
        if let Some(c) = &self.critical {
            c.table(&mut s);
        }
        let st = &self.stats;
        let _ = writeln!(s, "\nmessages:    {} ({} bytes, {} intra-node)", st.messages, st.bytes, st.intra_messages);
        if st.rma_ops > 0 {
            let _ = writeln!(s, "one-sided:   {} operations ({} bytes moved)", st.rma_ops, st.rma_bytes);
        }
        hist_table(&mut s, "message size", &st.sizes, |lo, _| size_bin(lo));
        hist_table(&mut s, "achieved bandwidth", &st.bandwidths, |lo, hi| {
            format!("[{}, {})", short_bandwidth(lo), short_bandwidth(hi))
        });
        if !self.network.is_empty() {
            let _ = writeln!(s, "\nnetwork ({}):", self.model);
            for (k, v) in &self.network {
                let _ = writeln!(s, "  {k:<22} {v}");
            }
        }
        if st.open_requests > 0 {
            let _ = writeln!(
                s,
                "\nwarning: {} requests left open at the end (MPI_Finalize) on {} ranks: their messages were replayed, never waited for",
                st.open_requests, st.open_request_ranks
            );
        }
        if st.unresolved_wildcards > 0 {
            let _ = writeln!(
                s,
                "\nwarning: {} wildcard receives with no sender in the trace (no completion, or one without its source): replayed as wildcards, the simulated arrivals picking the sender",
                st.unresolved_wildcards
            );
        }
        if let Some(w) = self.unreceived_warning() {
            let _ = writeln!(s, "\nwarning: {w}");
        }
        s
    }

    fn task_table(&self, s: &mut String) {
        let n = self.tasks.len();
        if n == 0 {
            return;
        }
        let _ = writeln!(s, "\n{:<12} {:>14} {:>14} {:>14}", "per task", "compute", "communication", "of which wait");
        if n <= 16 {
            for (r, t) in self.tasks.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "{:<12} {:>14} {:>14} {:>14}",
                    format!("rank {r}"),
                    human_time(t.compute),
                    human_time(t.comm),
                    human_time(t.wait)
                );
            }
            return;
        }
        let cols = [
            extremes(&self.tasks, |t| t.compute),
            extremes(&self.tasks, |t| t.comm),
            extremes(&self.tasks, |t| t.wait),
        ];
        for (label, pick) in [("min", 0), ("mean", 1), ("max", 2)] {
            let v = |e: &Extremes| [e.min.1, e.mean, e.max.1][pick];
            let _ = writeln!(
                s,
                "{:<12} {:>14} {:>14} {:>14}",
                label,
                human_time(v(&cols[0])),
                human_time(v(&cols[1])),
                human_time(v(&cols[2]))
            );
            if pick != 1 {
                let r = |e: &Extremes| format!("rank {}", if pick == 0 { e.min.0 } else { e.max.0 });
                let _ = writeln!(
                    s,
                    "{:<12} {:>14} {:>14} {:>14}",
                    format!("  {label} at"),
                    r(&cols[0]),
                    r(&cols[1]),
                    r(&cols[2])
                );
            }
        }
        let top: Vec<String> =
            most_waiting(&self.tasks, 5).iter().map(|&(r, w)| format!("rank {r} ({})", human_time(w))).collect();
        let _ = writeln!(s, "most waiting: {}", top.join(", "));
    }

    fn function_table(&self, s: &mut String) {
        let f = self.functions();
        if f.is_empty() {
            return;
        }
        let total: Ps = f.iter().map(|(_, x)| x.time).sum();
        let _ = writeln!(s, "\n{:<28} {:>12} {:>14} {:>14} {:>7}", "MPI function", "calls", "time", "wait", "%comm");
        let mut f = f;
        f.sort_by(|a, b| b.1.time.cmp(&a.1.time).then(a.0.cmp(&b.0)));
        for (name, x) in f {
            let pct = if total > 0 { 100.0 * x.time as f64 / total as f64 } else { 0.0 };
            let (time, wait) = (human_time(x.time), human_time(x.wait));
            let _ = writeln!(s, "{:<28} {:>12} {:>14} {:>14} {:>6.1}%", name, x.count, time, wait, pct);
        }
    }
}

impl Report {
    /// Time by MPI_Pcontrol level, summed over the tasks (only for traces with `pcontrol`).
    fn region_table(&self, s: &mut String) {
        if self.stats.regions.is_empty() {
            return;
        }
        let _ = writeln!(
            s,
            "\n{:<28} {:>14} {:>14} {:>14}",
            "MPI_Pcontrol region", "compute", "communication", "of which wait"
        );
        for (level, r) in &self.stats.regions {
            let name = format!("level {level}{}", if *level == 0 { " (paused, untraced)" } else { "" });
            let (compute, comm, wait) = (human_time(r.compute), human_time(r.comm), human_time(r.wait));
            let _ = writeln!(s, "{:<28} {:>14} {:>14} {:>14}", name, compute, comm, wait);
        }
    }
}

/// A per-task column's smallest and largest values with their ranks (the lowest rank on
/// ties) and its mean.
struct Extremes {
    min: (usize, Ps),
    mean: Ps,
    max: (usize, Ps),
}

fn extremes(tasks: &[TaskTimes], f: fn(&TaskTimes) -> Ps) -> Extremes {
    let v = || tasks.iter().map(f).enumerate();
    let sum: u128 = v().map(|(_, x)| x as u128).sum();
    Extremes {
        min: v().min_by_key(|&(r, x)| (x, r)).unwrap_or((0, 0)),
        mean: (sum / tasks.len().max(1) as u128) as Ps,
        max: v().max_by_key(|&(r, x)| (x, std::cmp::Reverse(r))).unwrap_or((0, 0)),
    }
}

/// The `n` ranks that waited most, most first (lower rank first on ties).
pub fn most_waiting(tasks: &[TaskTimes], n: usize) -> Vec<(usize, Ps)> {
    let mut v: Vec<(usize, Ps)> = tasks.iter().map(|t| t.wait).enumerate().collect();
    v.sort_by_key(|&(r, w)| (std::cmp::Reverse(w), r));
    v.truncate(n);
    v
}

/// Predicted over measured, and by how much the prediction is off in words.
fn ratio_text(r: f64) -> String {
    let off = (r - 1.0) * 100.0;
    let how = if off.abs() < 0.05 {
        "the prediction equals the measured run".to_string()
    } else if off > 0.0 {
        format!("the prediction {off:.1} % longer than the measured run")
    } else {
        format!("the prediction {:.1} % shorter than the measured run", -off)
    };
    format!("{r:.3} predicted / measured ({how})")
}

/// Bandwidth bucket bounds with three significant digits ("16.8 MB/s").
fn short_bandwidth(v: u64) -> String {
    let v = v as f64;
    for (scale, unit) in [(1e12, "TB/s"), (1e9, "GB/s"), (1e6, "MB/s"), (1e3, "KB/s")] {
        if v >= scale {
            let x = v / scale;
            let decimals = if x >= 100.0 {
                0
            } else if x >= 10.0 {
                1
            } else {
                2
            };
            return format!("{x:.decimals$} {unit}");
        }
    }
    format!("{v:.0} B/s")
}

fn hist_json(h: &Log2Hist, unit: &str) -> Value {
    Value::Array(
        h.rows()
            .into_iter()
            .map(|(lo, hi, c)| {
                let mut m = Map::new();
                m.insert(format!("min_{unit}"), lo.into());
                m.insert(format!("below_{unit}"), hi.into());
                m.insert("count".into(), c.into());
                Value::Object(m)
            })
            .collect(),
    )
}

/// A histogram's rows, each bin as `bin(lo, hi)` writes it.
fn hist_table(s: &mut String, title: &str, h: &Log2Hist, bin: impl Fn(u64, u64) -> String) {
    let rows = h.rows();
    if rows.is_empty() {
        return;
    }
    let max = rows.iter().map(|r| r.2).max().unwrap_or(1);
    let _ = writeln!(s, "\n{title}:");
    for (lo, hi, c) in rows {
        let bar = "#".repeat(((c as f64 / max as f64) * 40.0).ceil() as usize);
        let _ = writeln!(s, "  {:>24}  {:>12}  {bar}", bin(lo, hi), c);
    }
}

/// How a replay shows its progress on stderr: a bar on a terminal; without one (a batch
/// job's log) a line now and then, every `PSINS_PROGRESS_SECONDS` (default 60).
pub enum Progress {
    Bar(indicatif::ProgressBar),
    Lines { total: u64, start: std::time::Instant, last: std::time::Instant, every: Duration },
}

impl Progress {
    /// Progress over `total` records.
    pub fn new(total: u64) -> Progress {
        use std::io::IsTerminal;
        if std::io::stderr().is_terminal() {
            let p = indicatif::ProgressBar::new(total);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "replaying [{bar:30}] {percent:>3}% {human_pos}/{human_len} records, eta {eta}",
            ) {
                p.set_style(style.progress_chars("=> "));
            }
            return Progress::Bar(p);
        }
        let every = std::env::var("PSINS_PROGRESS_SECONDS").ok().and_then(|v| v.parse::<f64>().ok()).unwrap_or(60.0);
        let now = std::time::Instant::now();
        Progress::Lines { total, start: now, last: now, every: Duration::from_secs_f64(every.max(0.0)) }
    }

    /// `pos` records replayed.
    pub fn set_position(&mut self, pos: u64) {
        match self {
            Progress::Bar(p) => p.set_position(pos),
            Progress::Lines { total, start, last, every } => {
                if last.elapsed() >= *every {
                    *last = std::time::Instant::now();
                    eprintln!(
                        "psins-sim: replaying: {:.0} % of {total} records, {} so far",
                        100.0 * pos as f64 / (*total).max(1) as f64,
                        human_time_ns(start.elapsed().as_nanos() as u64)
                    );
                }
            }
        }
    }

    pub fn finish(&self) {
        if let Progress::Bar(p) = self {
            p.finish_and_clear();
        }
    }
}

impl std::fmt::Debug for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Report")
            .field("predicted_ps", &self.predicted)
            .field("tasks", &self.tasks.len())
            .field("records", &self.records)
            .finish_non_exhaustive()
    }
}
