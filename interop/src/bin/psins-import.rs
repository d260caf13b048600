//! psins-import: a trace in another tool's format as a psins compact trace, through
//! consolidation's checks (psins_consolidate), like a traced run.

use clap::{Parser, ValueEnum};
use indicatif::ProgressBar;
use psins_consolidate::run::{self, Failure};
use psins_consolidate::RankInput;
use psins_formats::exit::Exit;
use psins_formats::{note, Output};
use psins_interop::{dumpi, otf2, ti};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Import a trace written by another tool as a psins compact trace.
///
/// `--from dumpi`: sst-dumpi (libdumpi) traces: INPUT is the `.meta` file or the directory
/// holding exactly one; each rank's `PREFIX-NNNN.bin` is read natively. The gap before each
/// call is wall-clock time since the previous call returned. Calls without communication
/// (MPI_Comm_rank, MPI_Wtime, ...) fold into that computation, counted in the summary; so do
/// calls psins does not replay from a DUMPI trace (one-sided, MPI-IO, communicators it does
/// not follow), counted apart, unless `--strict`. Every function sst-dumpi writes can be read
/// (a table generated from its sources); the few refused say why. What is kept, approximated
/// and refused: docs/interop-dumpi.md.
///
/// `--from ti`: SimGrid time-independent traces (SimGrid 3.32's replay syntax, e.g. written by
/// `smpirun -trace-ti` or by psins-export): INPUT is the list file `-replay` takes (one action
/// file per rank), a directory holding `replay.txt`, or one shared action file. `compute`
/// amounts become CPU bursts at --host-speed (SMPI's default is 20000). Receives from any
/// source become wildcard receives and each `waitAny` completes the oldest pending request
/// (the trace says neither sender nor request): one warning each says how many. The records
/// then go through the same checks as a
/// traced run (psins-consolidate): the same guarantees, the same messages. What is kept,
/// approximated and refused: docs/interop-simgrid.md.
///
/// `--from otf2`: an OTF2 archive (e.g. Score-P's), read through libotf2: INPUT is its anchor
/// file (NAME.otf2). Each location of the MPI ranks is a rank; each outermost MPI region a
/// call, its MPI events (point-to-point, requests, collectives, communicators and
/// intercommunicators, one-sided windows, epochs and operations) giving peers, tags and sizes;
/// the time between MPI regions is computation (user, compiler, OpenMP and I/O regions,
/// Score-P's measurement events, counted in the summary). Calls without
/// communication before MPI_Init or after MPI_Finalize (MPI_Initialized...) are left out,
/// counted. Only each rank's master thread is read (a warning names the other threads). What
/// is kept, approximated and refused: docs/interop-otf2.md. A build without libotf2 says so.
///
/// A rank without any MPI call (an OTF2 location without MPI events) is written as an empty
/// rank, with a warning naming it; a trace whose ranks are all empty is refused, and so is an
/// archive in which other ranks need an empty rank (a member of a communicator they use, or
/// the peer of their message): it is incomplete.
///
/// An INPUT that is plainly another of these formats (a `.meta` file or a directory of them,
/// an `.otf2` anchor or a directory holding one, text action files) is refused with the
/// `--from` to use.
///
/// Exit status (docs/exit-codes.md): 0 trace written; 1 the input cannot be read or holds an
/// action that cannot be imported (the message names the file, rank, record and line, or byte
/// offset for dumpi); 2 bad arguments (a `--from` that does not match INPUT); 3 the output
/// could not be written.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// The format to read.
    #[arg(long, value_enum)]
    from: Format,
    /// The trace to import (ti: list file, directory or shared action file; dumpi: .meta
    /// file or its directory; otf2: the anchor file).
    input: PathBuf,
    /// The compact trace to write (`-`: stdout).
    #[arg(short, long)]
    output: PathBuf,
    /// Speed in flop/s of the hosts the trace's computation amounts are for (ti).
    #[arg(long, default_value_t = 1e9, value_parser = positive)]
    host_speed: f64,
    /// zstd-compress each task's stream (level 1 to 19).
    #[arg(long, value_parser = clap::value_parser!(i32).range(1..=19))]
    compress: Option<i32>,
    /// No summary on stderr.
    #[arg(short, long)]
    quiet: bool,
    /// dumpi: refuse a call psins does not replay (one-sided, MPI-IO, a communicator the
    /// importer does not follow) instead of folding it into computation. Calls without
    /// communication (MPI_Comm_rank, MPI_Wtime, the group calls, ...) still fold.
    #[arg(long)]
    strict: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// SimGrid time-independent traces.
    Ti,
    /// sst-dumpi traces (.meta and per-rank .bin files).
    Dumpi,
    /// An OTF2 archive (Score-P), through libotf2.
    Otf2,
}

fn positive(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("{s:?} is not a positive number of flop/s")),
    }
}

impl Format {
    fn flag(self) -> &'static str {
        match self {
            Format::Ti => "ti",
            Format::Dumpi => "dumpi",
            Format::Otf2 => "otf2",
        }
    }
    fn what(self) -> &'static str {
        match self {
            Format::Ti => "SimGrid time-independent actions (text)",
            Format::Dumpi => "an sst-dumpi trace (.meta)",
            Format::Otf2 => "an OTF2 archive (.otf2 anchor)",
        }
    }
}

/// The format INPUT plainly is, from its names and first bytes; `None` when it is not plain
/// (the importer asked for then says what it finds).
fn looks_like(input: &Path) -> Option<Format> {
    let ext = |p: &Path, e: &str| p.extension().is_some_and(|x| x == e);
    let text = |p: &Path| {
        let mut buf = [0u8; 512];
        let n = std::fs::File::open(p).and_then(|mut f| std::io::Read::read(&mut f, &mut buf)).unwrap_or(0);
        n > 0 && std::str::from_utf8(&buf[..n]).is_ok_and(|s| !s.contains('\0'))
    };
    if input.is_dir() {
        let names: Vec<PathBuf> =
            std::fs::read_dir(input).ok()?.filter_map(|e| e.ok().map(|e| e.path())).take(4096).collect();
        if names.iter().any(|p| ext(p, "meta")) {
            return Some(Format::Dumpi);
        }
        if names.iter().any(|p| ext(p, "otf2")) {
            return Some(Format::Otf2);
        }
        let files: Vec<&PathBuf> = names.iter().filter(|p| p.is_file()).collect();
        return (!files.is_empty() && files.iter().all(|p| text(p))).then_some(Format::Ti);
    }
    if ext(input, "meta") {
        return Some(Format::Dumpi);
    }
    if ext(input, "otf2") || ext(input, "def") || ext(input, "evt") {
        return Some(Format::Otf2);
    }
    (input.is_file() && text(input)).then_some(Format::Ti)
}

fn main() -> ExitCode {
    psins_cli::generate_if_asked::<Args>();
    let args = Args::parse();
    if let Some(f) = looks_like(&args.input).filter(|&f| f != args.from) {
        note!(
            "psins-import: {}: this is {}, not {}: use --from {}",
            args.input.display(),
            f.what(),
            args.from.what(),
            f.flag()
        );
        return Exit::Usage.into();
    }
    if args.strict && args.from != Format::Dumpi {
        note!("psins-import: --strict applies to --from dumpi only");
        return Exit::Usage.into();
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(m)) => {
            note!("psins-import: {m}");
            Exit::BadInput.into()
        }
        Err(Failure::Output(m)) => {
            note!("psins-import: {m}");
            Exit::Output.into()
        }
    }
}

fn run(args: &Args) -> Result<(), Failure> {
    match args.from {
        Format::Ti => {
            let ranks = ti::read::ranks(&args.input, args.host_speed).map_err(|e| Failure::Input(e.to_string()))?;
            let meta = vec![("host_speed".to_string(), args.host_speed.to_string())];
            write(args, &ranks, "simgrid-ti", meta, &[], &|| Ok(()))?;
            let (wildcards, waitany) =
                ranks.iter().map(|r| r.guessed()).fold((0, 0), |(w, a), g| (w + g.wildcards, a + g.waitany));
            if wildcards > 0 {
                note!(
                    "psins-import: warning: {wildcards} receives from any source: the trace names no sender, so \
                     psins-sim replays them as wildcards (the simulated arrivals pick the sender)"
                );
            }
            if waitany > 0 {
                note!(
                    "psins-import: warning: {waitany} waitAny calls: the trace says how many requests each was \
                     given, not which completed; each completes the oldest request pending"
                );
            }
            Ok(())
        }
        Format::Dumpi => {
            let trace = dumpi::Trace::open_with(&args.input, args.strict).map_err(|e| Failure::Input(e.to_string()))?;
            write(args, &trace.ranks, "dumpi", Vec::new(), std::slice::from_ref(&trace.meta), &|| Ok(()))?;
            if !args.quiet {
                let folded = trace.folded_calls();
                if !folded.is_empty() {
                    let list: Vec<String> = folded.iter().map(|(f, n)| format!("{f} {n}")).collect();
                    let total: u64 = folded.iter().map(|f| f.1).sum();
                    note!(
                        "psins-import: warning: {total} calls without communication folded into computation ({})",
                        list.join(", ")
                    );
                }
                let lost = trace.unmodelled_calls();
                if !lost.is_empty() {
                    let list: Vec<String> = lost.iter().map(|(f, n)| format!("{f} {n}")).collect();
                    let total: u64 = lost.iter().map(|f| f.1).sum();
                    note!(
                        "psins-import: warning: {total} calls psins does not replay (one-sided, MPI-IO, communicators \
                         not followed) folded into computation ({}); --strict refuses them",
                        list.join(", ")
                    );
                }
            }
            Ok(())
        }
        Format::Otf2 => from_otf2(args),
    }
}

#[cfg(has_otf2)]
fn from_otf2(args: &Args) -> Result<(), Failure> {
    let ranks = otf2::import::ranks(&args.input).map_err(|e| Failure::Input(e.to_string()))?;
    let needed = || otf2::import::check_empty_ranks(&ranks).map_err(|e| e.to_string());
    write(args, &ranks, "otf2", Vec::new(), &[], &needed)?;
    // A hybrid run's other threads (Score-P writes a location per thread): only each rank's
    // master thread is read, the others' time is its computation. Said, like empty ranks,
    // even with -q.
    let others = otf2::import::other_locations(&ranks);
    if let Some(&(rank, location)) = others.first() {
        let n = others.len();
        let whose = rank.map_or("no rank's process".to_string(), |r| format!("rank {r}'s process"));
        let (s, are) = if n == 1 { ("", "is") } else { ("s", "are") };
        note!(
            "psins-import: warning: {n} location{s} besides the ranks' {are} not read (other threads; the first: \
             location {location}, in {whose}): each rank's MPI calls are its master thread's, the other threads' \
             events are folded into its computation"
        );
    }
    if !args.quiet {
        let folded = otf2::import::folded(&ranks);
        let list = |m: &std::collections::BTreeMap<String, u64>| {
            let total: u64 = m.values().sum();
            (total, m.iter().map(|(f, n)| format!("{f} {n}")).collect::<Vec<_>>().join(", "))
        };
        if !folded.calls.is_empty() {
            let (total, names) = list(&folded.calls);
            note!(
                "psins-import: warning: {total} calls without communication before MPI_Init or after MPI_Finalize \
                 folded ({names})"
            );
        }
        if !folded.other.is_empty() {
            let (total, names) = list(&folded.other);
            note!("psins-import: {total} regions and measurement events besides MPI folded into computation ({names})");
        }
    }
    Ok(())
}

#[cfg(not(has_otf2))]
fn from_otf2(args: &Args) -> Result<(), Failure> {
    let why = otf2::available().expect_err("built without libotf2");
    Err(Failure::Input(format!("{}: {why}", args.input.display())))
}

/// Consolidates `ranks` into the output, with the format's own metadata `extra` after the
/// common keys. `complete` runs after consolidation, before the output is kept, whether it
/// succeeded or refused the input: its error (an archive lacking a rank others need) is the
/// cause of consolidation's, so it wins.
fn write<R: RankInput>(
    args: &Args,
    ranks: &[R],
    format: &str,
    extra: Vec<(String, String)>,
    more_inputs: &[PathBuf],
    complete: &dyn Fn() -> Result<(), String>,
) -> Result<(), Failure> {
    let mut inputs: Vec<PathBuf> = ranks.iter().map(|r| r.path().to_path_buf()).collect();
    inputs.push(args.input.clone());
    inputs.extend(more_inputs.iter().cloned());
    let out = Output::prepare(&args.output, &inputs).map_err(|e| Failure::Output(e.to_string()))?;
    let mut meta = vec![
        ("world_size".to_string(), ranks.len().to_string()),
        ("source_format".to_string(), format.to_string()),
        ("imported_from".to_string(), args.input.display().to_string()),
    ];
    meta.extend(extra);
    meta.push(("consolidated_by".to_string(), format!("psins-import {}", env!("CARGO_PKG_VERSION"))));
    let opts = run::Options { compress: args.compress, repeats: true, allow_partial: false, quiet: args.quiet };
    let written = run::consolidate(ranks, &meta, &opts, out.temp_path(), &ProgressBar::hidden());
    if matches!(written, Ok(_) | Err(Failure::Input(_))) {
        complete().map_err(Failure::Input)?;
    }
    let written = written?;
    // A rank without MPI calls, from any of the formats (an OTF2 location without MPI events is
    // the usual one), is written as an empty rank, saying so; a trace of empty ranks only is
    // refused (nothing to replay), not written.
    let empty: Vec<u32> = (0..ranks.len() as u32).filter(|&r| written[r as usize].records == 0).collect();
    if empty.len() == ranks.len() {
        let n = ranks.len();
        return Err(Failure::Input(format!(
            "{}: no rank holds an MPI call ({n} ranks, all empty): nothing to import",
            args.input.display()
        )));
    }
    out.commit().map_err(|e| Failure::Output(e.to_string()))?;
    if let Some(&first) = empty.first() {
        note!(
            "psins-import: warning: {} of {} ranks hold no MPI call, written as empty ranks (no records): {} (rank {first}: {})",
            empty.len(),
            ranks.len(),
            psins_consolidate::inputs::ranges(&empty),
            ranks[first as usize].path().display()
        );
    }
    if !args.quiet {
        let records: u64 = written.iter().map(|w| w.records).sum();
        note!("psins-import: {} ranks, {records} records -> {}", ranks.len(), args.output.display());
    }
    Ok(())
}
