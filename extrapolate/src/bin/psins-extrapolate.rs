//! psins-extrapolate: the trace of an application at a rank count never run, from its traces
//! at three or more smaller ones, written through consolidation's checks like a traced run.

use clap::{Parser, ValueEnum};
use psins_consolidate::run::Failure;
use psins_extrapolate::fit::Scaling;
use psins_extrapolate::{from_paths, Options, Refusal};
use psins_formats::exit::Exit;
use psins_formats::{note, Output};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Extrapolate compact traces of one SPMD application at three or more rank counts (for
/// example 4, 8 and 16) to a larger rank count that was never run.
///
/// The ranks' programs are aligned into one program whose peers are said relative to a
/// process topology found in the traces (a 1-D line or ring, a 2-D or 3-D grid or torus laid
/// out as MPI_Dims_create does, in row- or column-major order; a fixed rank such as a root;
/// the last rank; on a line, a partner at a fixed bit mask); ranks at the edges of a grid may
/// skip a neighbour or call with MPI_PROC_NULL. Loops of up to 4 calls whose trip count
/// depends on P are found where no straight program explains the series: partners rank xor
/// 2^k (from the low bit up or the high bit down), rank +/- k mod P, rank k, or every other
/// rank in turn, tags the same or one up or down an iteration, the trip count a law of P given
/// exactly at every traced count (or log2 of P or of a grid dimension's extent); a loop of the
/// largest trace may run once in a smaller one. Each message size and element count is fitted as a law of
/// the rank count P (constant, a*P^b, a + b*log2 P, a/P + c, a + b*P), chosen by its
/// leave-one-out error over the series, or on a grid where none fits as a constant over some
/// dimensions' extents (a block's face: 30720/D1), or c/D1 + h (a face with its ghost planes:
/// checked by leaving one out over three extents, or with --scaling strong through two). Where ranks' sizes differ, the size inside the
/// grid is fitted and each face of the grid a rank lies on adds a constant (a global
/// boundary's points left out); a call made only by the ranks on a face of the grid (with
/// or without its neighbour there) is a form too. The CPU bursts before each kind of call are fitted
/// the same way, summed over the program, and each burst at the target takes the largest
/// trace's spread: the factor all its ranks shared at that iteration, times a rank's own
/// drawn from its slot's (its kind of call's where the slot has few). Sub-communicators that
/// are rows, columns or planes of the grid (MPI_Comm_split by a coordinate, MPI_Cart_sub), or
/// the caller alone, are one communicator per row at the target; others are refused. On a
/// square 2-D grid the rank across the diagonal (a transpose's partner; on the diagonal, none or
/// the rank itself) is a form too; receives
/// from MPI_ANY_SOURCE, one per neighbour, complete from the neighbours in rank order.
/// Collectives are expanded again at the target when the traces held expansions, with the
/// algorithms of the MPI library the traces ran under (Open MPI 4.1's or MPICH 4.0's; a series
/// traced under two libraries is refused). The result passes consolidation's checks like a
/// traced run.
///
/// Every fit is printed with its errors, the worst named; CPU-burst laws that grow past the
/// series are named in a note (growth that is the program's only where each traced rank had a
/// core of its own). Refused, with the record, the rank and the reason: traces of different
/// applications or whose programs cannot be aligned,
/// peers no topology explains, sizes that no law fits within --tolerance, sizes that differ
/// between ranks in a way the faces of the grid do not explain (or that the faces would take
/// below nothing at the target), fewer than three
/// rank counts (two with --scaling), and a target at or below the largest trace, that does
/// not lay the topology as a proper grid, or at which a loop's trip count is not whole (the
/// nearest rank counts that do are named).
/// Method, scope and validation: docs/extrapolate.md.
///
/// Exit status (docs/exit-codes.md): 0 trace written; 1 the traces cannot be read or
/// extrapolated; 2 bad arguments; 3 the output cannot be written.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Compact traces of one application at different rank counts.
    #[arg(required = true)]
    traces: Vec<PathBuf>,
    /// The rank count to extrapolate to.
    #[arg(short = 'n', long)]
    ranks: u32,
    /// The compact trace to write (`-`: stdout).
    #[arg(short, long)]
    output: PathBuf,
    /// How the application scales, when known: weak (per-rank work constant) or strong (a
    /// fixed problem divided among the ranks); restricts the laws, and lets two rank counts
    /// suffice (strong: also a face's c/D + h through two extents of D).
    #[arg(long, value_enum)]
    scaling: Option<ScalingArg>,
    /// The largest leave-one-out error a size's law may have, in percent; also how far ranks'
    /// sizes the faces of the grid do not explain may be from the most common one, which they
    /// then take.
    #[arg(long, default_value_t = 5.0, value_parser = percent)]
    tolerance: f64,
    /// Also write the fits and the topology as JSON to this file.
    #[arg(long)]
    fits_json: Option<PathBuf>,
    /// After writing, compare with this trace of the same application at the target rank
    /// count, rank by rank: peers, messages, collectives, bytes (for validation; exit 1 when
    /// any rank differs).
    #[arg(long, value_name = "TRACE")]
    against: Option<PathBuf>,
    /// zstd-compress each task's stream (level 1 to 19).
    #[arg(long, value_parser = clap::value_parser!(i32).range(1..=19))]
    compress: Option<i32>,
    /// No report on stdout.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum ScalingArg {
    Weak,
    Strong,
}

fn percent(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('%').parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("{s:?} is not a percentage")),
    }
}

fn main() -> ExitCode {
    psins_cli::generate_if_asked::<Args>();
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, m)) => {
            note!("psins-extrapolate: {m}");
            code.into()
        }
    }
}

fn run(args: &Args) -> Result<(), (Exit, String)> {
    let scaling = match args.scaling {
        None => Scaling::Unknown,
        Some(ScalingArg::Weak) => Scaling::Weak,
        Some(ScalingArg::Strong) => Scaling::Strong,
    };
    let refused = |r: Refusal| match r {
        Refusal::Usage(m) => (Exit::Usage, m),
        Refusal::Input(m) => (Exit::BadInput, m),
        Refusal::Trace(e) => (Exit::BadInput, e.to_string()),
    };
    let opts = Options { ranks: args.ranks, scaling, tolerance: args.tolerance / 100.0 };
    let (series, ex) = from_paths(&args.traces, &opts).map_err(refused)?;
    let provenance = ex.provenance();
    if let Some(path) = &args.fits_json {
        let out = Output::prepare(path, &args.traces).map_err(|e| (Exit::Output, e.to_string()))?;
        let text = serde_json::to_string_pretty(&provenance).expect("JSON of plain values");
        std::fs::write(out.temp_path(), text + "\n").map_err(|e| (Exit::Output, format!("{}: {e}", path.display())))?;
        out.commit().map_err(|e| (Exit::Output, e.to_string()))?;
    }
    let out = Output::prepare(&args.output, &args.traces).map_err(|e| (Exit::Output, e.to_string()))?;
    let ex = Arc::new(ex);
    match psins_extrapolate::write::trace(&ex, &series, out.temp_path(), &args.output, args.compress) {
        Ok(()) => {}
        Err(Failure::Input(m)) => return Err((Exit::BadInput, m)),
        Err(Failure::Output(m)) => return Err((Exit::Output, m)),
    }
    out.commit().map_err(|e| (Exit::Output, e.to_string()))?;
    if !args.quiet {
        let report = ex.report(&series);
        psins_formats::output::print(&report).map_err(|e| (Exit::Output, e.to_string()))?;
        let _ = psins_formats::output::print(&format!("wrote {} ranks -> {}\n", args.ranks, args.output.display()));
    }
    if let Some(truth) = &args.against {
        let read = |p: &Path| {
            psins_formats::TraceReader::open(p)
                .and_then(|r| r.read_tasks())
                .map_err(|e| (Exit::BadInput, e.to_string()))
        };
        let c = psins_extrapolate::compare(&read(&args.output)?, &read(truth)?)
            .map_err(|m| (Exit::BadInput, format!("{}: {m}", truth.display())))?;
        let _ = psins_formats::output::print(&format!("against {}: {c}\n", truth.display()));
        if c.first.is_some() {
            return Err((
                Exit::BadInput,
                format!("the extrapolated trace differs from {}: {}", truth.display(), c.first.unwrap_or_default()),
            ));
        }
    }
    Ok(())
}
