//! psins-dump: print the records of a per-rank log or a compact trace, one per line.

mod fields;
mod header;
mod profile;
mod sources;
mod timeline;

use clap::Parser;
use psins_formats::exit::Exit;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Print the records of a psins per-rank log (rank-*.bin) or compact trace (.psins).
///
/// Peers are printed as world ranks (translated through the communicator's members);
/// `comm` is the communicator id. Exit status (docs/exit-codes.md): 0 ok, 1 the file cannot be
/// read or is damaged (the message names the file, rank, record and byte offset), 2 bad
/// arguments, 3 standard output (or the --timeline or --plot output) cannot be written.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// A per-rank log or a compact trace; the kind is read from the file itself.
    file: PathBuf,
    /// Only this task (rank).
    #[arg(long)]
    task: Option<u32>,
    /// One JSON object per line (fields task, kind, gap_ns, dur_ns and, where they apply,
    /// peer, comm, tag, bytes, root, request, ...).
    #[arg(long)]
    json: bool,
    /// Record counts by kind and bytes per record instead of the records.
    #[arg(long)]
    stats: bool,
    /// The file's header instead of its records: a log's rank, job, clock, host, MPI and
    /// settings, or a compact trace's tasks and metadata; and `bursts`, the clock the CPU
    /// bursts (gaps) were timed with: `wall`, or `cpu` (PSINS_CLOCK=cpu: the thread's CPU
    /// time). With --json: one JSON object.
    #[arg(long, conflicts_with_all = ["stats", "task", "profile", "timeline"])]
    header: bool,
    /// The measured profile of a compact trace (mpiP/IPM style): per MPI function calls and
    /// total, mean and largest time (in ns, µs, ms or s); per rank span and MPI time; message
    /// sizes. A predicted trace (psins-sim --predicted-trace) gives the predicted run's,
    /// naming the machine. With --json: one JSON object, times in seconds.
    #[arg(long, conflicts_with_all = ["stats", "task"])]
    profile: bool,
    /// Write the measured run as a Chrome trace-event timeline to OUT (`-`: stdout), with
    /// psins-sim --timeline's tracks (one per rank, computation and call slices with their
    /// args, a flow arrow per message) so that measured and predicted open side by side in
    /// Perfetto. Times are the recorded gaps and durations; every rank's MPI_Init returns at
    /// the same time. No counter tracks (in flight, busy links): the trace has no network.
    #[arg(long, value_name = "OUT", conflicts_with_all = ["stats", "task", "profile", "json"])]
    timeline: Option<PathBuf>,
    /// Ranks in the timeline, e.g. 0-15,64.
    #[arg(long, value_name = "LIST", requires = "timeline")]
    timeline_ranks: Option<String>,
    /// Time window of the timeline, e.g. 1ms..5ms (either side may be empty); slices are
    /// clipped to it, arrows kept when both ends are inside.
    #[arg(long, value_name = "START..END", requires = "timeline")]
    timeline_window: Option<String>,
    /// With --profile: also draw the message-size histogram (point-to-point sends, in
    /// power-of-two bins) as SVG.
    #[arg(long, value_name = "FILE.svg", requires = "profile")]
    plot: Option<PathBuf>,
}

fn main() -> ExitCode {
    psins_cli::generate_if_asked::<Args>();
    let args = Args::parse();
    if args.header {
        return header(&args);
    }
    if args.profile {
        return profile(&args);
    }
    if let Some(out) = &args.timeline {
        let sel =
            timeline::Selection { ranks: args.timeline_ranks.as_deref(), window: args.timeline_window.as_deref() };
        return match timeline::write(&args.file, out, &sel) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                psins_formats::note!("psins-dump: {}", psins_cli::chain(&e));
                // The tools' one scheme: 1 input, 2 usage, 3 output.
                e.exit().into()
            }
        };
    }
    match sources::run(
        &args.file,
        args.task,
        if args.stats {
            sources::Mode::Stats
        } else if args.json {
            sources::Mode::Json
        } else {
            sources::Mode::Text
        },
    ) {
        Ok(()) => ExitCode::SUCCESS,
        // Input errors are psins_formats::Error; a bare I/O error is standard output's.
        Err(e) if e.downcast_ref::<std::io::Error>().is_some() => {
            psins_formats::note!("psins-dump: cannot write standard output: {e}");
            ExitCode::from(Exit::Output)
        }
        Err(e) => {
            let _ = std::io::stdout().flush();
            psins_formats::note!("psins-dump: {e}");
            ExitCode::from(Exit::BadInput)
        }
    }
}

fn header(args: &Args) -> ExitCode {
    let fields = match header::read(&args.file) {
        Ok(f) => f,
        Err(e) => {
            psins_formats::note!("psins-dump: {e}");
            return ExitCode::from(Exit::BadInput);
        }
    };
    let text = if args.json { format!("{}\n", header::json(&fields)) } else { header::text(&fields) };
    match psins_formats::output::print(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            psins_formats::note!("psins-dump: {e}");
            ExitCode::from(Exit::Output)
        }
    }
}

fn profile(args: &Args) -> ExitCode {
    // The chart's place is checked before the trace is read (psins_formats::output's rule).
    let plot = match args.plot.as_ref().map(|p| psins_formats::Output::prepare(p, std::slice::from_ref(&args.file))) {
        Some(Err(e)) => {
            psins_formats::note!("psins-dump: {e}");
            return ExitCode::from(Exit::Output);
        }
        Some(Ok(o)) => Some(o),
        None => None,
    };
    let p = match profile::Profile::read(&args.file) {
        Ok(p) => p,
        Err(e) => {
            psins_formats::note!("psins-dump: {e}");
            return ExitCode::from(Exit::BadInput);
        }
    };
    if let Some(o) = plot {
        use psins_plot::Plot;
        let svg = match p.size_chart().svg() {
            Ok(svg) => svg,
            Err(e) => {
                psins_formats::note!(
                    "psins-dump: --plot {}: {e} (the trace has no point-to-point sends)",
                    o.path().display()
                );
                return ExitCode::from(Exit::BadInput);
            }
        };
        if let Err(e) = std::fs::write(o.temp_path(), svg) {
            psins_formats::note!("psins-dump: {}: cannot write: {e}", o.path().display());
            return ExitCode::from(Exit::Output);
        }
        if let Err(e) = o.commit() {
            psins_formats::note!("psins-dump: {e}");
            return ExitCode::from(Exit::Output);
        }
    }
    let text = if args.json { format!("{}\n", p.json()) } else { p.table() };
    match psins_formats::output::print(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            psins_formats::note!("psins-dump: {e}");
            ExitCode::from(Exit::Output)
        }
    }
}
