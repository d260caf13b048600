//! The command line of `psins-sim sweep` (kept here so the binary stays a dispatcher).

use clap::{Args, Subcommand};
use psins_formats::{note, output::print, Output};
use psins_sim::error::{Result, SimError};
use psins_sim::provenance;
use psins_sim::source::{compact::CompactTrace, synth::SPEC_HELP};
use psins_sim::sweep::{merge, run, Axis, Shard, Sweep};
use std::path::{Path, PathBuf};

pub const HELP: &str = "\
Writes DIR/sweep.def.json, DIR/part-I-of-N.jsonl (one row per finished point; a rerun skips
them), and for a whole sweep (one shard) DIR/sweep.csv and DIR/sweep.jsonl.

Examples:
  psins-sim sweep app.psins -m configs/fat-simple.toml --vary network.bandwidth=1GB/s..16GB/s*2 -o bw
  psins-sim sweep app.psins -m a.toml -m b.toml --vary network.latency=1us,2us --vary mpi.call_overhead=0ns,100ns -o grid
  psins-sim sweep app.psins -m a.toml --vary network.bandwidth=1GB/s..64GB/s*2 -o bw --shard 3/8
  psins-sim sweep merge bw
  psins-sim sweep app.psins -m a.toml --vary network.bandwidth=1GB/s..16GB/s*2 --vary network.latency=1us,4us -o bw --plot bw.svg

--plot FILE.svg draws predicted time against the first --vary axis whose values are numbers
(log scale when they span a factor of 10 or more), one line per value of the other axes and
machine files; a sweep of machine files alone puts the files on the x axis.";

#[derive(Args)]
pub struct SweepCmd {
    #[command(subcommand)]
    pub merge: Option<SweepSub>,
    #[command(flatten)]
    pub args: SweepArgs,
}

#[derive(Subcommand)]
pub enum SweepSub {
    /// Join the part files of DIR into DIR/sweep.csv and DIR/sweep.jsonl.
    Merge {
        dir: PathBuf,
        /// Do not print the result table.
        #[arg(short, long)]
        quiet: bool,
        /// Also draw the result as an SVG chart (see `psins-sim sweep --help`).
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<PathBuf>,
    },
}

#[derive(Args)]
pub struct SweepArgs {
    /// A compact trace (.psins) or a synthetic workload spec (gen:...).
    pub trace: Option<String>,
    /// Machine file or bundled machine (repeatable: each is a row of the grid).
    #[arg(short, long = "machine", value_name = "FILE")]
    pub machines: Vec<PathBuf>,
    /// Override a value at every point: `network.model=bus` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// An axis: `network.bandwidth=1GB/s,2GB/s` or a range `1GB/s..16GB/s*2`, `1us..4us+1us`
    /// (repeatable: the grid is the product).
    #[arg(long = "vary", value_name = "KEY=VALUES")]
    pub vary: Vec<String>,
    /// The sweep's directory.
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Run only shard I of N (default: from SLURM_ARRAY_TASK_ID/COUNT or mpirun's rank, else 0/1).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Points replayed at once (default: the cores available).
    #[arg(short, long)]
    pub jobs: Option<usize>,
    /// The tracer's own cost to take off traced CPU bursts, as in a single replay.
    #[arg(long, value_name = "auto|TIME", default_value = "auto", value_parser = psins_sim::source::parse_tracer_overhead)]
    pub tracer_overhead: psins_sim::source::TracerOverhead,
    /// Also write each point's full JSON report to DIR/reports/point-K.json.
    #[arg(long)]
    pub reports: bool,
    /// No progress lines on stderr, no result table.
    #[arg(short, long)]
    pub quiet: bool,
    /// Draw predicted time against the first numeric --vary axis, one line per value of the
    /// others, as SVG (written once the sweep is whole; a shard leaves it to `sweep merge`).
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

/// `psins-sim sweep ...` and `psins-sim sweep merge DIR`.
pub fn main(c: &SweepCmd) -> Result<()> {
    if let Some(SweepSub::Merge { dir, quiet, plot }) = &c.merge {
        let out = plot.as_ref().map(|p| Output::prepare(p, &[])).transpose().map_err(SimError::OutputFile)?;
        let m = merge::merge(dir)?;
        if let Some(o) = out {
            psins_sim::plot::write(&psins_sim::sweep::plot::chart(&m), o)?;
        }
        note!("psins-sim: sweep: merged {} points from {} part files into {}", m.rows.len(), m.parts, dir.display());
        return if *quiet { Ok(()) } else { print(&merge::table(&m)).map_err(SimError::OutputFile) };
    }
    let a = &c.args;
    let usage = |m: &str| SimError::Usage(format!("{m}; see psins-sim sweep --help"));
    let trace = a.trace.clone().ok_or_else(|| usage("missing TRACE (a .psins file or a gen: spec)"))?;
    let dir = a.out.clone().ok_or_else(|| usage("missing -o DIR (the sweep's directory)"))?;
    if a.machines.is_empty() {
        return Err(usage("missing -m FILE"));
    }
    let axes = a
        .vary
        .iter()
        .map(|v| Axis::parse(v))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| SimError::Usage(e.to_string()))?;
    for (i, x) in axes.iter().enumerate() {
        if axes[..i].iter().any(|y| y.key == x.key) {
            return Err(SimError::Usage(format!("--vary {}: the key is varied twice", x.key)));
        }
    }
    let shard = match &a.shard {
        Some(s) => Shard::parse(s).map_err(|e| SimError::Usage(e.to_string()))?,
        None => match Shard::from_env(|k| std::env::var(k).ok()).map_err(|e| SimError::Usage(e.to_string()))? {
            Some((s, from)) => {
                note!("psins-sim: sweep: shard {}/{} (from {from})", s.index, s.count);
                s
            }
            None => Shard::WHOLE,
        },
    };
    if !trace.starts_with("gen:") {
        if !Path::new(&trace).exists() && trace.contains(':') {
            return Err(SimError::Usage(format!("`{trace}`: no such file (a workload spec looks like {SPEC_HELP})")));
        }
        // The reader's own error for a missing or corrupt trace, before its checksum is taken.
        CompactTrace::open(Path::new(&trace))?;
    }
    let origin = provenance::trace(&trace)?;
    let sweep = Sweep {
        trace,
        origin,
        machines: a.machines.clone(),
        sets: a.set.clone(),
        axes,
        tracer_overhead: a.tracer_overhead,
    };
    let jobs = a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let opts = run::RunOptions { dir: dir.clone(), shard, jobs, reports: a.reports, quiet: a.quiet };
    // The chart's place is checked before the points run (psins_formats::output's rule).
    let plot = match &a.plot {
        Some(_) if shard.count > 1 => {
            note!(
                "psins-sim: sweep: --plot is drawn when the sweep is whole: psins-sim sweep merge DIR --plot FILE.svg"
            );
            None
        }
        Some(p) => Some(Output::prepare(p, &[]).map_err(SimError::OutputFile)?),
        None => None,
    };
    let out = run::run(&sweep, &opts)?;
    if let (Some(m), Some(o)) = (&out.merged, plot) {
        psins_sim::plot::write(&psins_sim::sweep::plot::chart(m), o)?;
    }
    match out.merged {
        Some(m) if !a.quiet => print(&merge::table(&m)).map_err(SimError::OutputFile),
        Some(_) => Ok(()),
        None => {
            if !a.quiet {
                note!(
                    "psins-sim: sweep: shard {}/{} done ({} points, {} from an earlier run); once every shard is, run: psins-sim sweep merge {}",
                    shard.index,
                    shard.count,
                    out.owned,
                    out.skipped,
                    dir.display()
                );
            }
            Ok(())
        }
    }
}
