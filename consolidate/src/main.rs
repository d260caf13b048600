//! psins-consolidate: validate the per-rank logs of one traced run and merge them into one
//! compact trace (PSINS's mpi2psins).

mod comms;
mod inputs;
mod requests;
mod scan;
mod write;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use psins_formats::{Error, LogEnd, TraceWriter};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Merge the per-rank logs of one traced run (rank-*.bin, or the directory holding them) into
/// one compact trace.
///
/// The logs are checked first: every rank 0..N-1 exactly once, all from the same run, block
/// checksums, communicator definitions that agree across ranks, and every request started and
/// completed. The trace is written to a temporary file and renamed only when complete.
///
/// Exit status: 0 trace written; 1 the logs are invalid or damaged (the message names the file,
/// rank and record); 2 bad arguments; 3 the output could not be written.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Per-rank logs, or directories holding rank-*.bin logs.
    #[arg(required = true)]
    logs: Vec<PathBuf>,
    /// The compact trace to write.
    #[arg(short, long)]
    output: PathBuf,
    /// zstd-compress each task's stream (random access per task is kept); optional level 1-19.
    #[arg(long, num_args = 0..=1, default_missing_value = "3", value_parser = clap::value_parser!(i32).range(1..=19))]
    compress: Option<i32>,
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
            eprintln!("psins-consolidate: {m}");
            ExitCode::from(1)
        }
        Err(Failure::Output(m)) => {
            eprintln!("psins-consolidate: {m}");
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
    let n = inputs[0].header.world_size;
    let in_bytes: u64 = inputs.iter().map(|i| i.bytes).sum();
    let bar = progress(2 * in_bytes);

    let mut comms = comms::Comms::new(n);
    let mut scans = Vec::with_capacity(inputs.len());
    for i in &inputs {
        scans.push(scan::scan(i, &mut comms, &mut |b| bar.inc(b)).map_err(input)?);
    }
    let truncated: Vec<bool> = scans.iter().map(|s| s.end != LogEnd::Complete).collect();
    if !args.allow_partial {
        if let Some((i, s)) = inputs
            .iter()
            .zip(&scans)
            .find(|(_, s)| s.end != LogEnd::Complete)
        {
            let LogEnd::Truncated {
                offset,
                unusable_bytes,
                reason,
            } = &s.end
            else {
                unreachable!()
            };
            let e = Error::new(&i.path, format!("{reason}; {} records readable, {unusable_bytes} bytes unusable (use --allow-partial to build a trace cut at a consistent point)", s.records));
            return Err(input(e.task(i.header.rank).at(*offset)));
        }
        if let Some(e) = scan::pending_error(&inputs, &scans) {
            return Err(input(e));
        }
    }
    comms
        .check(&truncated)
        .map_err(|m| input(Error::new(&inputs[0].path, m)))?;
    let keep = scan::cut_points(&scans);

    let tmp = temp_name(&args.output);
    let result = write_trace(args, &inputs, &mut comms, &keep, &tmp, &bar);
    bar.finish_and_clear();
    let written = match result {
        Ok(w) => w,
        Err(f) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(f);
        }
    };
    std::fs::rename(&tmp, &args.output).map_err(|e| {
        Failure::Output(format!(
            "{}: cannot rename from {}: {e}",
            args.output.display(),
            tmp.display()
        ))
    })?;
    if !args.quiet {
        if args.allow_partial {
            report_losses(&inputs, &scans, &written);
        }
        let out_bytes = std::fs::metadata(&args.output)
            .map(|m| m.len())
            .unwrap_or(0);
        let records: u64 = written.iter().map(|w| w.records).sum();
        eprintln!(
            "psins-consolidate: {} ranks, {records} records, input {in_bytes} bytes, output {out_bytes} bytes ({:.2} bytes/record), {:.2} s -> {}",
            n,
            out_bytes as f64 / records.max(1) as f64,
            started.elapsed().as_secs_f64(),
            args.output.display()
        );
    }
    Ok(())
}

fn write_trace(
    args: &Args,
    inputs: &[inputs::Input],
    comms: &mut comms::Comms,
    keep: &[u64],
    tmp: &Path,
    bar: &ProgressBar,
) -> Result<Vec<write::Written>, Failure> {
    let out_err = |e: Error| Failure::Output(e.to_string());
    let h = &inputs[0].header;
    let partial = keep.iter().zip(inputs).any(|(&k, _)| k == 0) || args.allow_partial;
    let meta = vec![
        ("job_id".to_string(), format!("{:#x}", h.job_id)),
        ("world_size".to_string(), h.world_size.to_string()),
        ("mpi_version".to_string(), h.mpi_version.clone()),
        ("clock".to_string(), h.clock.clone()),
        ("tracer_version".to_string(), h.tracer_version.clone()),
        ("tracer_settings".to_string(), h.settings.clone()),
        ("host".to_string(), h.host.clone()),
        (
            "consolidated_by".to_string(),
            format!("psins-consolidate {}", env!("CARGO_PKG_VERSION")),
        ),
        ("partial".to_string(), partial.to_string()),
    ];
    comms.reset_locals();
    let mut w = TraceWriter::create(
        tmp,
        h.world_size,
        meta,
        comms.table(h.world_size),
        args.compress,
    )
    .map_err(out_err)?;
    let mut written = Vec::with_capacity(inputs.len());
    for (i, &k) in inputs.iter().zip(keep) {
        // Read errors name the input; write errors name the output.
        let r = write::write_rank(i, k, comms, &mut w).map_err(|e| {
            if e.path == tmp {
                out_err(e)
            } else {
                input(e)
            }
        })?;
        written.push(r);
        bar.inc(i.bytes);
    }
    w.finish().map_err(out_err)?;
    Ok(written)
}

fn report_losses(inputs: &[inputs::Input], scans: &[scan::Scan], written: &[write::Written]) {
    for ((i, s), w) in inputs.iter().zip(scans).zip(written) {
        let lost = s.records - w.records;
        let tail = match &s.end {
            LogEnd::Truncated {
                unusable_bytes,
                reason,
                ..
            } => format!("; log damaged: {reason}, {unusable_bytes} bytes unusable"),
            _ => String::new(),
        };
        let pend = if w.pending.is_empty() {
            String::new()
        } else {
            format!("; {} requests pending at the cut", w.pending.len())
        };
        if lost > 0 || !tail.is_empty() || !pend.is_empty() {
            eprintln!(
                "psins-consolidate: rank {}: kept {} of {} readable records{tail}{pend}",
                i.header.rank, w.records, s.records
            );
        }
    }
}

fn temp_name(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "trace".into());
    out.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
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
