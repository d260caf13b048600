//! psins-consolidate: validate the per-rank logs of one traced run and merge them into one
//! compact trace (PSINS's mpi2psins).

//!
//! A thin shell over the library: the logs are found and checked here, consolidated by
//! [`psins_consolidate::run::consolidate`].

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use psins_consolidate::run::{self, Failure};
use psins_consolidate::{inputs, LogInput};
use psins_formats::exit::Exit;
use psins_formats::{note, Error};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Merge the per-rank logs of one traced run (rank-*.bin, or the directory holding them) into
/// one compact trace.
///
/// The logs are checked first: every rank 0..N-1 exactly once, all from the same run, block
/// checksums, communicator definitions that agree across ranks, every peer and root a rank of
/// its record's communicator (docs/format.md §4), and requests completed (one left open at
/// MPI_Finalize is a warning with a count per rank). The trace is written to a temporary file
/// and renamed only when complete; `-o -`
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

fn main() -> ExitCode {
    psins_cli::generate_if_asked::<Args>();
    let args = Args::parse();
    let started = Instant::now();
    match run(&args, started) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(m)) => {
            note!("psins-consolidate: {m}");
            Exit::BadInput.into()
        }
        Err(Failure::Output(m)) => {
            note!("psins-consolidate: {m}");
            Exit::Output.into()
        }
    }
}

fn input(e: Error) -> Failure {
    Failure::Input(e.to_string())
}

fn run(args: &Args, started: Instant) -> Result<(), Failure> {
    let files = inputs::expand(&args.logs).map_err(|e| Failure::Input(e.to_string()))?;
    let inputs = inputs::open_all(&files).map_err(input)?;
    let in_bytes: u64 = inputs.iter().map(|i| i.bytes).sum();
    let meta = metadata(&inputs[0].header);
    let ranks: Vec<LogInput> = inputs.into_iter().map(LogInput).collect();
    // Checked before any work: not an input, writable; written to a temporary file.
    let out = psins_formats::Output::prepare(&args.output, &files).map_err(|e| Failure::Output(e.to_string()))?;
    let tmp = out.temp_path().to_path_buf();
    let bar = progress(in_bytes);
    let opts = run::Options {
        compress: args.compress,
        repeats: !args.no_repeats,
        allow_partial: args.allow_partial,
        quiet: args.quiet,
    };
    let result = run::consolidate(&ranks, &meta, &opts, &tmp, &bar);
    bar.finish_and_clear();
    let written = result?;
    let out_bytes = std::fs::metadata(&tmp).map(|m| m.len()).unwrap_or(0);
    out.commit().map_err(|e| Failure::Output(e.to_string()))?;
    if !args.quiet {
        let records: u64 = written.iter().map(|w| w.records).sum();
        note!(
            "psins-consolidate: {} ranks, {records} records, input {in_bytes} bytes, output {out_bytes} bytes ({:.2} bytes/record), {:.2} s -> {}",
            ranks.len(),
            out_bytes as f64 / records.max(1) as f64,
            started.elapsed().as_secs_f64(),
            args.output.display()
        );
    }
    Ok(())
}

/// The trace's metadata from rank 0's log header (`partial` is added by the consolidation).
fn metadata(h: &psins_formats::LogHeader) -> Vec<(String, String)> {
    vec![
        ("job_id".to_string(), format!("{:#x}", h.job_id)),
        ("world_size".to_string(), h.world_size.to_string()),
        ("mpi_version".to_string(), h.mpi_version.clone()),
        ("clock".to_string(), h.clock.clone()),
        ("tracer_version".to_string(), h.tracer_version.clone()),
        ("tracer_settings".to_string(), h.settings.clone()),
        ("host".to_string(), h.host.clone()),
        ("consolidated_by".to_string(), format!("psins-consolidate {}", env!("CARGO_PKG_VERSION"))),
    ]
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
