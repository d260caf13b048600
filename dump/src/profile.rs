//! `psins-dump --profile TRACE`: the measured run as mpiP or IPM would report it, from the
//! durations the tracer recorded: per MPI function the calls and their total, mean and
//! largest time; per rank the span (MPI_Init to MPI_Finalize, as psins-sim's "measured") and
//! the time in MPI; the sizes of the point-to-point messages sent. MPI_Init and MPI_Finalize
//! are outside the span and not profiled. A rank's bursts are its span less its MPI time: the
//! computation between its calls, timed as the trace says (`PSINS_CLOCK`: wall or CPU time).
//! A predicted trace (`psins-sim --predicted-trace`) is profiled alike: its durations are
//! the prediction's, and the profile says so and names the machine.

use psins_formats::{functions, BurstClock, Op, Record, TraceReader};
use psins_units::{human_time_ns, size_bin};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

#[derive(Clone, Copy, Default)]
struct Fn {
    count: u64,
    total_ns: u64,
    max_ns: u64,
}

#[derive(Clone, Copy, Default)]
struct Rank {
    span_ns: u64,
    mpi_ns: u64,
    calls: u64,
}

impl Rank {
    /// The computation between the calls: the span less the time in MPI.
    fn bursts_ns(&self) -> u64 {
        self.span_ns.saturating_sub(self.mpi_ns)
    }
}

pub struct Profile {
    path: String,
    records: u64,
    fns: BTreeMap<String, Fn>,
    ranks: Vec<Rank>,
    /// The clock of the bursts, for a trace the tracer wrote.
    bursts: Option<BurstClock>,
    /// The machine file of a predicted trace (psins-sim --predicted-trace).
    predicted_on: Option<String>,
    /// Point-to-point sends by size: bucket i holds sizes in [2^(i-1), 2^i) (0: empty).
    sizes: [u64; 65],
}

impl Profile {
    pub fn read(path: &Path) -> Result<Profile, psins_formats::Error> {
        let reader = TraceReader::open(path)?;
        let mut p = Profile {
            path: path.display().to_string(),
            records: 0,
            fns: BTreeMap::new(),
            ranks: vec![Rank::default(); reader.tasks() as usize],
            bursts: reader.header.meta("tracer_version").and(reader.header.burst_clock()),
            predicted_on: predicted_machine(&reader.header),
            sizes: [0; 65],
        };
        let mut rec = Record::default();
        for t in 0..reader.tasks() {
            let mut c = reader.task(t, 64 << 10)?;
            while c.next(&mut rec)? {
                p.add(t as usize, &rec);
            }
        }
        Ok(p)
    }

    fn add(&mut self, t: usize, rec: &Record) {
        self.records += 1;
        let (gap, dur) = rec.span_part();
        let r = &mut self.ranks[t];
        r.span_ns = r.span_ns.saturating_add(gap.saturating_add(dur));
        // Init and Finalize are outside the span (mpiP's window): not profiled.
        // Nor are records that are no call of their own (expansion steps, an idup's comm_create).
        if matches!(rec.op, Op::Init { .. } | Op::Finalize) || !rec.op.is_call() {
            return;
        }
        let name = match (functions::of_op(&rec.op), rec.op) {
            (Some(id), _) => functions::name_of(id).unwrap_or("?").to_string(),
            (None, Op::Other { func } | Op::OtherReq { func, .. }) => format!("MPI_other_{func}"),
            (None, _) => "MPI_Comm_other".to_string(),
        };
        // A folded run of polls is `calls` calls (psins-sim counts them so too).
        let calls = if let Op::Poll { calls, .. } = rec.op { calls } else { 1 };
        r.mpi_ns = r.mpi_ns.saturating_add(dur);
        r.calls += calls;
        let f = self.fns.entry(name).or_default();
        f.count += calls;
        f.total_ns = f.total_ns.saturating_add(rec.dur_ns);
        f.max_ns = f.max_ns.max(rec.dur_ns);
        if let Op::Send { bytes, .. } | Op::Isend { bytes, .. } | Op::Sendrecv { bytes, .. } = rec.op {
            self.sizes[(64 - bytes.leading_zeros()) as usize] += 1;
        }
    }

    /// (slowest rank, its span), (total MPI time, total span) over the ranks.
    fn totals(&self) -> ((usize, u64), (u64, u64)) {
        let slowest =
            self.ranks.iter().enumerate().fold((0, 0), |b, (i, r)| if r.span_ns > b.1 { (i, r.span_ns) } else { b });
        let mpi = self.ranks.iter().map(|r| r.mpi_ns).sum();
        let span = self.ranks.iter().map(|r| r.span_ns).sum();
        (slowest, (mpi, span))
    }

    /// The non-empty size buckets: (lowest size, size bound exclusive, sends).
    pub fn size_rows(&self) -> Vec<(u64, u64, u64)> {
        let bound = |i: usize| if i == 0 { 0 } else { 1u64 << (i - 1) };
        let below = |i: usize| if i == 64 { u64::MAX } else { 1u64 << i };
        (0..65).filter(|&i| self.sizes[i] > 0).map(|i| (bound(i), below(i), self.sizes[i])).collect()
    }

    /// The message-size histogram as a chart (`--plot`).
    pub fn size_chart(&self) -> psins_plot::Bars {
        let name = Path::new(&self.path).file_name().map_or(self.path.clone(), |n| n.to_string_lossy().into_owned());
        let what = match &self.predicted_on {
            Some(m) => format!("predicted on {}", short_machine(m)),
            None => "measured".to_string(),
        };
        psins_plot::size_histogram(format!("Point-to-point message sizes sent: {name} ({what})"), &self.size_rows())
    }

    pub fn json(&self) -> Value {
        let ((rank, span), (mpi, _)) = self.totals();
        let fns: Map<String, Value> = self
            .fns
            .iter()
            .map(|(n, f)| {
                let mean = f.total_ns as f64 / f.count.max(1) as f64;
                (
                    n.clone(),
                    json!({"count": f.count, "total_s": s(f.total_ns), "mean_s": mean / 1e9, "max_s": s(f.max_ns)}),
                )
            })
            .collect();
        let ranks: Vec<Value> = self
            .ranks
            .iter()
            .enumerate()
            .map(|(i, r)| {
                json!({"rank": i, "span_s": s(r.span_ns), "mpi_s": s(r.mpi_ns), "bursts_s": s(r.bursts_ns()), "calls": r.calls})
            })
            .collect();
        let sizes: Vec<Value> = self
            .size_rows()
            .iter()
            .map(|&(lo, hi, c)| json!({"min_bytes": lo, "below_bytes": hi, "count": c}))
            .collect();
        json!({"trace": self.path, "ranks": self.ranks.len(), "records": self.records,
               "bursts": self.bursts.map(BurstClock::name), "span_s": s(span),
               "slowest_rank": rank, "mpi_s": s(mpi), "functions": fns, "per_rank": ranks, "message_sizes": sizes})
    }

    pub fn table(&self) -> String {
        let ((rank, span), (mpi, spans)) = self.totals();
        let pct = |a: u64, b: u64| if b > 0 { 100.0 * a as f64 / b as f64 } else { 0.0 };
        let mut o = String::new();
        let durations = match &self.predicted_on {
            Some(m) => format!("durations as predicted by psins-sim on {m}"),
            None => "durations as traced".to_string(),
        };
        let _ =
            writeln!(o, "profile of {}: {} ranks, {} records ({durations})", self.path, self.ranks.len(), self.records);
        if let Some(b) = self.bursts {
            let _ = writeln!(o, "bursts:      {}", b.describe());
        }
        let _ = writeln!(o, "span:        {} (rank {rank}, MPI_Init to MPI_Finalize)", human_time_ns(span));
        let (mpi_t, spans_t) = (human_time_ns(mpi), human_time_ns(spans));
        let _ = writeln!(o, "in MPI:      {mpi_t} of {spans_t} summed over the ranks ({:.1} %)", pct(mpi, spans));
        let _ = writeln!(
            o,
            "\n{:<28} {:>10} {:>14} {:>14} {:>14} {:>6}",
            "MPI function", "calls", "total", "mean", "max", "%MPI"
        );
        let mut fns: Vec<(&String, &Fn)> = self.fns.iter().collect();
        fns.sort_by(|a, b| b.1.total_ns.cmp(&a.1.total_ns).then(a.0.cmp(b.0)));
        for (n, f) in fns {
            let mean = human_time_ns((f.total_ns as f64 / f.count.max(1) as f64).round() as u64);
            let (total, max) = (human_time_ns(f.total_ns), human_time_ns(f.max_ns));
            let _ =
                writeln!(o, "{n:<28} {:>10} {total:>14} {mean:>14} {max:>14} {:>5.1}%", f.count, pct(f.total_ns, mpi));
        }
        let _ = writeln!(
            o,
            "\n{:<16} {:>14} {:>14} {:>6} {:>14} {:>10}",
            "per rank", "span", "MPI", "%MPI", "bursts", "calls"
        );
        let row = |o: &mut String, label: String, r: &Rank| {
            let _ = writeln!(
                o,
                "{label:<16} {:>14} {:>14} {:>5.1}% {:>14} {:>10}",
                human_time_ns(r.span_ns),
                human_time_ns(r.mpi_ns),
                pct(r.mpi_ns, r.span_ns),
                human_time_ns(r.bursts_ns()),
                r.calls
            );
        };
        if self.ranks.len() <= 16 {
            for (i, r) in self.ranks.iter().enumerate() {
                row(&mut o, format!("rank {i}"), r);
            }
        } else {
            // Beyond 16 ranks: the ranks at the extremes of MPI time, named.
            let by = |f: fn(&Rank) -> u64| {
                let lo = (0..self.ranks.len()).min_by_key(|&i| f(&self.ranks[i])).unwrap_or(0);
                let hi = (0..self.ranks.len()).max_by_key(|&i| f(&self.ranks[i])).unwrap_or(0);
                (lo, hi)
            };
            let (lo, hi) = by(|r| r.mpi_ns);
            row(&mut o, format!("least MPI: {lo}"), &self.ranks[lo]);
            row(&mut o, format!("most MPI: {hi}"), &self.ranks[hi]);
            row(&mut o, format!("slowest: {rank}"), &self.ranks[rank]);
        }
        let rows = self.size_rows();
        if !rows.is_empty() {
            let max = rows.iter().map(|r| r.2).max().unwrap_or(1);
            let _ = writeln!(o, "\nmessage size (point-to-point sends):");
            for (lo, _, c) in rows {
                let bar = "#".repeat(((c as f64 / max as f64) * 40.0).ceil() as usize);
                let _ = writeln!(o, "  {:>24}  {c:>12}  {bar}", size_bin(lo));
            }
        }
        o
    }
}

fn s(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// The machine a predicted trace was predicted on (its `predicted_machine` metadata, which
/// psins-sim writes with `clock` = `predicted`).
fn predicted_machine(h: &psins_formats::TraceHeader) -> Option<String> {
    (h.meta("clock") == Some("predicted"))
        .then(|| h.meta("predicted_machine").unwrap_or("an unnamed machine").to_string())
}

/// A machine file's name without its directory and `.toml`, for a chart title.
fn short_machine(path: &str) -> String {
    Path::new(path).file_stem().map_or(path.to_string(), |s| s.to_string_lossy().into_owned())
}
