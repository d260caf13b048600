//! psins-export: a compact trace (the measured run, or a predicted one from `psins-sim
//! --predicted-trace`) in a format other tools read.

use clap::{Parser, ValueEnum};
use psins_formats::note;
use psins_interop::{otf2, paraver, ti};
use std::path::PathBuf;
use std::process::ExitCode;

/// Write a compact trace in another tool's format.
///
/// `--to ti`: SimGrid time-independent traces for `smpirun -replay` (SimGrid 3.32): DIR gets
/// one action file per rank (rank-N.ti) and the list file replay.txt to pass to `-replay`. Its
/// paths are absolute: SMPI opens them from the directory smpirun runs in, not the list's. A
/// moved DIR imports again as it is; for smpirun, rewrite them (docs/interop-simgrid.md). CPU bursts become `compute` at --host-speed; blocking collectives their
/// expansion steps as point-to-point actions, as psins-sim replays them with
/// mpi.collectives = "expanded". What is kept, approximated and refused, and the SimGrid
/// settings under which SMPI and psins-sim agree: docs/interop-simgrid.md.
///
/// `--to paraver`: the run for BSC's Paraver: -o NAME.prv writes NAME.prv (a thread
/// per rank: computation and MPI-call states, an MPI event entering and leaving each call, a
/// communication record per message, send to receive), NAME.pcf (state and event names) and
/// NAME.row (rank names). docs/interop-paraver.md.
///
/// `--to otf2`: an OTF2 archive (Vampir, `otf2-print DIR/traces.otf2`) written through
/// libotf2: DIR gets traces.otf2, traces.def and traces/ (a location per rank; computation and
/// MPI calls as regions, MPI point-to-point, request and collective events, communicators in
/// the definitions). A build without libotf2 says so. docs/interop-otf2.md.
///
/// Every format writes the run the trace holds: the measured one, or the predicted one of a
/// trace `psins-sim --predicted-trace` wrote.
///
/// Exit status (docs/exit-codes.md): 0 written; 1 the trace is damaged or holds a record the
/// format cannot express (the message names the file, rank and record); 2 bad arguments;
/// 3 an output could not be written.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// The format to write.
    #[arg(long, value_enum)]
    to: Format,
    /// The compact trace (.psins) to export.
    trace: PathBuf,
    /// The output: a directory for ti and otf2 (created if missing), NAME.prv for paraver. Files are
    /// replaced only when complete.
    #[arg(short, long)]
    output: PathBuf,
    /// Speed of the replaying platform's hosts in flop/s (TI `compute` is in flops).
    #[arg(long, default_value_t = 1e9, value_parser = positive)]
    host_speed: f64,
    /// No summary on stderr.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// SimGrid time-independent traces (smpirun -replay).
    Ti,
    /// Paraver's .prv, .pcf and .row (BSC tools).
    Paraver,
    /// An OTF2 archive (Score-P's format; Vampir).
    Otf2,
}

fn positive(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("{s:?} is not a positive number of flop/s")),
    }
}

fn main() -> ExitCode {
    psins_cli::generate_if_asked::<Args>();
    let args = Args::parse();
    match args.to {
        Format::Paraver => return to_paraver(&args),
        Format::Otf2 => return to_otf2(&args),
        Format::Ti => {}
    }
    let opts = ti::TiOptions { host_speed: args.host_speed };
    match ti::export(&args.trace, &args.output, &opts) {
        Ok(s) => {
            let a = &s.approx;
            for (n, what) in [
                (a.synchronous, "synchronous sends exported as standard sends (TI has no MPI_Ssend)"),
                (a.buffered, "buffered sends exported as standard sends (TI has no MPI_Bsend)"),
                (a.probes, "probes left out (TI has none; the receive that follows carries the message)"),
            ] {
                if n > 0 {
                    note!("psins-export: warning: {n} {what}");
                }
            }
            if let Some(w) = s.library.warning.as_ref().filter(|_| s.expanded > 0) {
                note!("psins-export: warning: {w}");
            }
            if !args.quiet && s.expanded > 0 {
                note!(
                    "psins-export: {} collectives had no expansion steps in the trace: expanded with {}'s algorithms",
                    s.expanded,
                    s.library.library.algorithms()
                );
            }
            if !args.quiet {
                note!(
                    "psins-export: {} ranks, {} records -> {} TI actions in {} (replay with smpirun -replay {})",
                    s.tasks,
                    s.records,
                    s.actions,
                    args.output.display(),
                    args.output.join(ti::LIST_FILE).display()
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            note!("psins-export: {e}");
            e.exit_code().into()
        }
    }
}

fn to_paraver(args: &Args) -> ExitCode {
    match paraver::export(&args.trace, &args.output) {
        Ok(s) => {
            if s.lone_sends + s.lone_recvs > 0 {
                note!(
                    "psins-export: warning: {} sends and {} receives without a partner in the trace (a run cut short, a cancelled request): not drawn",
                    s.lone_sends,
                    s.lone_recvs
                );
            }
            if s.disordered > 0 {
                note!(
                    "psins-export: warning: {} messages end before they start although the ranks' clocks were shifted by up to {} ns (clocks that drift apart)",
                    s.disordered,
                    s.max_shift
                );
            }
            if !args.quiet {
                if s.max_shift > 0 {
                    note!(
                        "psins-export: ranks' clocks shifted by up to {} ns so that every message is received after it was sent",
                        s.max_shift
                    );
                }
                note!(
                    "psins-export: {} ranks, {} records -> {} states, {} events, {} messages in {} (with {} and {})",
                    s.tasks,
                    s.records,
                    s.states,
                    s.events,
                    s.messages,
                    s.files[0].display(),
                    s.files[1].display(),
                    s.files[2].display()
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            note!("psins-export: {e}");
            e.exit_code().into()
        }
    }
}

fn to_otf2(args: &Args) -> ExitCode {
    match otf2::export(&args.trace, &args.output) {
        Ok(s) => {
            if !args.quiet {
                note!(
                    "psins-export: {} ranks, {} records -> {} OTF2 events, {} regions, {} communicators in {}",
                    s.tasks,
                    s.records,
                    s.events,
                    s.regions,
                    s.comms,
                    otf2::anchor(&args.output).display()
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            note!("psins-export: {e}");
            e.exit_code().into()
        }
    }
}
