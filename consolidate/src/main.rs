//! psins-consolidate: validate the per-rank logs of one traced run and merge them into one
//! compact trace (PSINS's mpi2psins).

mod comms;
mod inputs;
mod live;
mod normalise;
mod passes;
mod requests;
mod windows;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use psins_formats::{note, Error, LogEnd, TraceWriter};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Merge the per-rank logs of one traced run (rank-*.bin, or the directory holding them) into
/// one compact trace.
///
/// The logs are checked first: every rank 0..N-1 exactly once, all from the same run, block
/// checksums, communicator definitions that agree across ranks, and requests completed (one
/// left open at MPI_Finalize is a warning with a count per rank). The trace is written to a temporary file and renamed only when complete; `-o -`
/// writes it to stdout, `-o` onto an input is refused, a symlink's target is written, a device
/// written through (docs/exit-codes.md).
///
/// Exit status (docs/exit-codes.md): 0 trace written; 1 the logs are invalid or damaged (the
/// message names the file, rank and record); 2 bad arguments; 3 the output could not be written.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Per-rank logs, or directories holding rank-*.bin logs.
    #[arg(required = true)]
    logs: Vec<PathBuf>,
    /// The compact trace to write (`-`: stdout).
    #[arg(short, long)]
    output: PathBuf,
    /// zstd-compress each task's stream (random access per task is kept); `--compress=LEVEL` for a level from 1 to 19 (default 3).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "3", value_parser = clap::value_parser!(i32).range(1..=19))]
    compress: Option<i32>,
    /// Write no repeat records: a larger trace (about 1.5x for iterative codes), consolidated
    /// ~30 % faster, and cheaper to replay with very many tasks (docs/format.md §3.3).
    #[arg(long)]
    no_repeats: bool,
    /// Accept truncated logs (a crashed run): cut every task after the last collective on
    /// MPI_COMM_WORLD that all ranks reached, and report per rank what was lost.
    #[arg(long)]
    allow_partial: bool,
    /// No summary on stderr.
    #[arg(short, long)]
    quiet: bool,
}

enum Failure {
    Input(String),
    Output(String),
}

fn main() -> ExitCode {
    let args = Args::parse();
    let started = Instant::now();
    match run(&args, started) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(m)) => {
            note!("psins-consolidate: {m}");
            ExitCode::from(1)
        }
        Err(Failure::Output(m)) => {
            note!("psins-consolidate: {m}");
            ExitCode::from(3)
        }
    }
}

fn input(e: Error) -> Failure {
    Failure::Input(e.to_string())
}

fn run(args: &Args, started: Instant) -> Result<(), Failure> {
    let files = inputs::expand(&args.logs).map_err(Failure::Input)?;
    let inputs = inputs::open_all(&files).map_err(input)?;
    let in_bytes: u64 = inputs.iter().map(|i| i.bytes).sum();
    let mut footers = Vec::with_capacity(inputs.len());
    for i in &inputs {
        footers.push(psins_formats::has_footer(&i.path).map_err(input)?);
    }
    // Checked before any work: not an input, writable; written to a temporary file.
    let out = psins_formats::Output::prepare(&args.output, &files).map_err(|e| Failure::Output(e.to_string()))?;
    let tmp = out.temp_path().to_path_buf();
    let bar = progress(in_bytes);
    // A finished run needs one pass; a crashed one needs a scan first to find the cut.
    let result = if footers.iter().all(|&f| f) { one_pass(args, &inputs, &tmp, &bar) } else { Err(Retry) };
    let result = match result {
        Err(Retry) => {
            bar.set_position(0);
            bar.set_length(2 * in_bytes);
            two_passes(args, &inputs, &tmp, &bar)
        }
        Ok(r) => r,
    };
    bar.finish_and_clear();
    let written = result?;
    let out_bytes = std::fs::metadata(&tmp).map(|m| m.len()).unwrap_or(0);
    out.commit().map_err(|e| Failure::Output(e.to_string()))?;
    if !args.quiet {
        let records: u64 = written.iter().map(|w| w.records).sum();
        note!(
            "psins-consolidate: {} ranks, {records} records, input {in_bytes} bytes, output {out_bytes} bytes ({:.2} bytes/record), {:.2} s -> {}",
            inputs.len(),
            out_bytes as f64 / records.max(1) as f64,
            started.elapsed().as_secs_f64(),
            args.output.display()
        );
    }
    Ok(())
}

/// The one-pass path found a damaged log: go the careful way.
struct Retry;

type Written = Vec<passes::RankResult>;

fn one_pass(
    args: &Args,
    inputs: &[inputs::Input],
    tmp: &Path,
    bar: &ProgressBar,
) -> Result<Result<Written, Failure>, Retry> {
    let n = inputs[0].header.world_size;
    let mut comms = comms::Comms::new(n);
    let mut w = match create(args, inputs, tmp, false) {
        Ok(w) => w,
        Err(f) => return Ok(Err(f)),
    };
    let mut results = Vec::with_capacity(inputs.len());
    for i in inputs {
        match passes::read_rank(i, u64::MAX, &mut comms, Some(&mut w)) {
            Ok(r) if r.end != LogEnd::Complete => {
                return if args.allow_partial { Err(Retry) } else { Ok(Err(truncated(i, &r))) };
            }
            Ok(r) => results.push(r),
            Err(e) => return Ok(Err(classify(e, tmp))),
        }
        bar.inc(i.bytes);
    }
    warn_open_requests(inputs, &results);
    if let Err(m) = comms.check(&vec![false; n as usize]) {
        return Ok(Err(input(Error::new(&inputs[0].path, m))));
    }
    w.set_comms(comms.table(n));
    Ok(w.finish().map(|_| results).map_err(|e| Failure::Output(e.to_string())))
}

fn two_passes(args: &Args, inputs: &[inputs::Input], tmp: &Path, bar: &ProgressBar) -> Result<Written, Failure> {
    let n = inputs[0].header.world_size;
    let mut comms = comms::Comms::new(n);
    let mut scans = Vec::with_capacity(inputs.len());
    for i in inputs {
        let r = passes::read_rank(i, u64::MAX, &mut comms, None).map_err(input)?;
        if r.end != LogEnd::Complete && !args.allow_partial {
            return Err(truncated(i, &r));
        }
        scans.push(r);
        bar.inc(i.bytes);
    }
    let excused: Vec<bool> = scans.iter().map(|s| s.end != LogEnd::Complete).collect();
    comms.check(&excused).map_err(|m| input(Error::new(&inputs[0].path, m)))?;
    let keep = passes::cut_points(&scans);
    comms.reset_locals();
    let mut w = create(args, inputs, tmp, true)?;
    let mut written = Vec::with_capacity(inputs.len());
    for (i, &k) in inputs.iter().zip(&keep) {
        written.push(passes::read_rank(i, k, &mut comms, Some(&mut w)).map_err(|e| classify(e, tmp))?);
        bar.inc(i.bytes);
    }
    w.set_comms(comms.table(n));
    w.finish().map_err(|e| Failure::Output(e.to_string()))?;
    if !args.quiet {
        report_losses(inputs, &scans, &written);
    }
    Ok(written)
}

fn create(args: &Args, inputs: &[inputs::Input], tmp: &Path, partial: bool) -> Result<TraceWriter, Failure> {
    let h = &inputs[0].header;
    let meta = vec![
        ("job_id".to_string(), format!("{:#x}", h.job_id)),
        ("world_size".to_string(), h.world_size.to_string()),
        ("mpi_version".to_string(), h.mpi_version.clone()),
        ("clock".to_string(), h.clock.clone()),
        ("tracer_version".to_string(), h.tracer_version.clone()),
        ("tracer_settings".to_string(), h.settings.clone()),
        ("host".to_string(), h.host.clone()),
        ("consolidated_by".to_string(), format!("psins-consolidate {}", env!("CARGO_PKG_VERSION"))),
        ("partial".to_string(), partial.to_string()),
    ];
    let mut w = TraceWriter::create(tmp, h.world_size, meta, Vec::new(), args.compress)
        .map_err(|e| Failure::Output(e.to_string()))?;
    w.set_repeats(!args.no_repeats);
    Ok(w)
}

/// Errors about the temporary output are output failures; the rest name an input.
fn classify(e: Error, tmp: &Path) -> Failure {
    if e.path == tmp {
        Failure::Output(e.to_string())
    } else {
        input(e)
    }
}

fn truncated(i: &inputs::Input, r: &passes::RankResult) -> Failure {
    let LogEnd::Truncated { offset, unusable_bytes, reason } = &r.end else {
        return input(Error::new(&i.path, "log not read to its end"));
    };
    let msg = format!(
        "{reason}; {} records readable, {unusable_bytes} bytes unusable (use --allow-partial to build a trace cut at a consistent point)",
        r.records
    );
    input(Error::new(&i.path, msg).task(i.header.rank).at(*offset))
}

/// Requests still open at MPI_Finalize in a complete log (SNAP only tests some isends): real
/// programs do this, so each rank's count is a warning, not an error. The records stay; the
/// simulator moves their messages as usual and no one waits for them (docs/simulator.md).
fn warn_open_requests(inputs: &[inputs::Input], results: &[passes::RankResult]) {
    for (i, r) in inputs.iter().zip(results).filter(|(_, r)| !r.pending.is_empty()) {
        note!(
            "psins-consolidate: warning: rank {} ({}): {} requests left open at MPI_Finalize (ids {}); kept, their messages replayed, never waited for",
            i.header.rank,
            i.path.display(),
            r.pending.len(),
            inputs::ranges(&r.pending)
        );
    }
}

fn report_losses(inputs: &[inputs::Input], scans: &[passes::RankResult], written: &[passes::RankResult]) {
    for ((i, s), w) in inputs.iter().zip(scans).zip(written) {
        let tail = match &s.end {
            LogEnd::Truncated { unusable_bytes, reason, .. } => {
                format!("; log damaged: {reason}, {unusable_bytes} bytes unusable")
            }
            _ => String::new(),
        };
        let pend = if w.pending.is_empty() {
            String::new()
        } else {
            format!("; {} requests pending at the cut", w.pending.len())
        };
        if w.records < s.records || !tail.is_empty() || !pend.is_empty() {
            note!(
                "psins-consolidate: rank {}: kept {} of {} readable records{tail}{pend}",
                i.header.rank,
                w.records,
                s.records
            );
        }
    }
}

fn progress(total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
