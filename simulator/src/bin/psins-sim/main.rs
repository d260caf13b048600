//! `psins-sim`: replay a compact trace (or a synthetic workload) on a target machine.

mod sweep;
mod synth;

use clap::{Args, Parser, Subcommand};
use psins_cli::chain;
use psins_formats::{note, output::print, Output};
use psins_sim::error::{parse_args, SimError};
use psins_sim::plot::short_name;
use psins_sim::predicted::PredictedTrace;
use psins_sim::source::TraceSource;
use psins_sim::source::{compact::CompactTrace, synth::SynthSource, synth::Workload, synth::SPEC_HELP, TracerOverhead};
use psins_sim::timeline::Timeline;
use psins_sim::{model, provenance, simulate_report, Machine, Options, Report, Result};
use std::path::{Path, PathBuf};

const AFTER_HELP: &str = "\
Exit codes (the same for every psins tool; docs/exit-codes.md):
  0  success
  1  bad input: unreadable or corrupt trace, malformed record, invalid machine file
  2  bad command-line usage or arguments
  3  an output (--json, --timeline, --predicted-trace, --plot, --plot-sizes, --sweep, standard output) cannot be written
  4  deadlock: the trace cannot complete on the target (the report lists the blocked tasks)

Outputs: `-` is standard output; an output that is an input is refused; a symlink's target
is written; a device (/dev/null) is written through; a file is replaced only when complete.

Examples:
  psins-sim app.psins --machine configs/bus-cluster.toml --json out.json
  psins-sim app.psins -m configs/fat-simple.toml --set network.bandwidth=25GB/s
  psins-sim app.psins -m configs/bus-cluster.toml --plot ranks.svg --plot-sizes sizes.svg
  psins-sim gen:stencil2d:ranks=1024,iters=100 -m configs/fat-simple.toml
  psins-sim extrapolate:app-4.psins,app-8.psins,app-16.psins:ranks=65536 -m fattree-64k-flow
  psins-sim check configs/bus-cluster.toml
  psins-sim sweep app.psins -m configs/fat-simple.toml --vary network.bandwidth=1GB/s..16GB/s*2 -o bw
  psins-sim synth -m configs/torus-8x8.toml --pattern uniform --load 0.3
  psins-sim synth -m configs/torus-8x8.toml --sweep curve.csv --plot curve.svg
  psins-sim --list-models";

#[derive(Parser)]
#[command(name = "psins-sim", version, about = "Predict an MPI application's run time on a target machine by replaying its psins trace", after_help = AFTER_HELP, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    /// List the network models and exit.
    #[arg(long)]
    list_models: bool,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand)]
enum Cmd {
    /// Validate a machine file and print its effective configuration.
    Check {
        machine: PathBuf,
        /// Override a value: `network.bandwidth=25GB/s` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// Synthetic traffic on a torus, fat-tree or dragonfly machine: throughput and latency at a load.
    Synth(SynthArgs),
    /// Replay one trace on a grid of machine variants (docs/sweep.md); `sweep merge DIR` joins
    /// the shards' parts.
    #[command(args_conflicts_with_subcommands = true, after_help = sweep::HELP)]
    Sweep(sweep::SweepCmd),
}

#[derive(Args)]
struct SynthArgs {
    /// Machine file with [network] model = "torus", "fattree" or "dragonfly".
    #[arg(short, long, value_name = "FILE")]
    machine: PathBuf,
    /// Override a machine-file value: `network.torus.vcs=3` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// uniform, transpose (torus), bit-reversal, shuffle, shift[:K], group-shift (dragonfly), neighbour, hotspot[:FRACTION[:NODE]].
    #[arg(long, default_value = "uniform")]
    pattern: String,
    /// Offered load as a fraction of the uniform-traffic capacity (8/k phits/node/cycle on a torus of even k, 1 on a full-bisection fat-tree).
    #[arg(long, default_value_t = 0.3)]
    load: f64,
    /// Write a latency-versus-load CSV (one run per --loads value) instead of one run (`-`: stdout).
    #[arg(long, value_name = "FILE.csv")]
    sweep: Option<PathBuf>,
    /// With --sweep: also draw latency (average and 99th percentile) against load as SVG,
    /// the first load that leaves packets undelivered marked as saturation.
    #[arg(long, value_name = "FILE.svg", requires = "sweep")]
    plot: Option<PathBuf>,
    /// Loads of the sweep, comma-separated.
    #[arg(long, default_value = synth::DEFAULT_LOADS, requires = "sweep")]
    loads: String,
    /// Cycles before the measurement window.
    #[arg(long, default_value_t = 2000)]
    warmup: u64,
    /// Cycles of the measurement window.
    #[arg(long, default_value_t = 10000)]
    measure: u64,
    /// Random seed: runs repeat bit for bit from it.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(Args)]
struct RunArgs {
    /// A compact trace (.psins), a synthetic workload spec (gen:stencil2d:ranks=64,...), or an
    /// extrapolation streamed without a file (extrapolate:A.psins,B.psins,C.psins:ranks=N,
    /// docs/extrapolate.md).
    trace: Option<String>,
    /// Target machine file (TOML), or a bundled machine by name (`-m torus-8x8`; configs/).
    #[arg(short, long, value_name = "FILE")]
    machine: Option<PathBuf>,
    /// Override a machine-file value: `network.model=bus` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Write the report as JSON (`-`: stdout).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write a Chrome trace-event timeline (open it in Perfetto; `-`: stdout): a track per
    /// rank with computation and call slices (args: record, peer, bytes, tag, communicator,
    /// wait), a nested `wait` slice for waiting on a partner, a flow arrow per message, a
    /// messages/bytes-in-flight counter and the network's busy resources where the model
    /// counts them: busy servers (bus, inlink, outlink), links carrying a flow (flow), busy
    /// links as a mean over 1 us (torus, fattree, dragonfly). `psins-dump --timeline`
    /// writes the measured run alike (no network counter: the trace has none).
    #[arg(long, value_name = "FILE")]
    timeline: Option<PathBuf>,
    /// Ranks in the timeline, e.g. 0-15,64 (arrows only between shown ranks).
    #[arg(long, value_name = "LIST", requires = "timeline")]
    timeline_ranks: Option<String>,
    /// Time window of the timeline, e.g. 1ms..5ms (either side may be empty; `:` also
    /// separates): slices are clipped to it, arrows kept when both ends are inside.
    #[arg(long, value_name = "START..END", requires = "timeline")]
    timeline_window: Option<String>,
    /// Write the predicted run as a compact trace: the trace's records with the predicted
    /// computation and call times (metadata `clock` = predicted, the machine, the provenance),
    /// for psins-dump --profile/--timeline and psins-export --to ti|otf2|paraver.
    #[arg(long, value_name = "FILE.psins")]
    predicted_trace: Option<PathBuf>,
    /// Draw each rank's predicted time (computation, communication, waiting) as stacked
    /// bars in SVG; beyond 256 ranks a bar is the mean of a block of neighbouring ranks.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Draw the replayed messages' sizes as a histogram in SVG (power-of-two bins, as the
    /// report's message-size table; `psins-dump --profile --plot` draws the measured ones).
    #[arg(long, value_name = "FILE.svg")]
    plot_sizes: Option<PathBuf>,
    /// Track the critical path (the chain of bursts, messages and waits ending at the
    /// predicted time) and report it split into computation, latency, transfer and waiting.
    #[arg(long)]
    critical_path: bool,
    /// Do not print the report table.
    #[arg(short, long)]
    quiet: bool,
    /// Print replay speed and peak memory on stderr.
    #[arg(long)]
    perf: bool,
    /// Show no progress. Otherwise a long replay shows a bar on a terminal and, without one (a
    /// batch job's log), a line on stderr every minute (`PSINS_PROGRESS_SECONDS` sets another
    /// interval).
    #[arg(long)]
    no_progress: bool,
    /// The tracer's own cost to take off every traced CPU burst: `auto` (per rank, the
    /// smallest gap between two calls in its first 4096 records; traces the tracer wrote
    /// only), `0` (gaps as recorded) or a time such as `50ns`.
    #[arg(long, value_name = "auto|TIME", default_value = "auto", value_parser = psins_sim::source::parse_tracer_overhead)]
    tracer_overhead: TracerOverhead,
}

fn main() {
    psins_cli::generate_if_asked::<Cli>();
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if let Some(msg) = Cli::try_parse().err().filter(|e| e.use_stderr()).and_then(|_| slip(&argv)) {
        note!("psins-sim: {msg}");
        psins_sim::error::Exit::Usage.exit();
    }
    let cli: Cli = parse_args();
    let result = match (&cli.cmd, cli.list_models) {
        (_, true) => list_models(),
        (Some(Cmd::Check { machine, set }), _) => check(machine, set),
        (Some(Cmd::Synth(a)), _) => synth(a),
        (Some(Cmd::Sweep(c)), _) => sweep::main(c),
        (None, _) => run(&cli.run),
    };
    if let Err(e) = result {
        note!("psins-sim: {}", chain(&e));
        e.exit_code().exit();
    }
}

/// What a command line clap refuses most likely meant, where it is one of the usual slips:
/// `--set KEY VALUE` without `=`, two machines for one replay, several traces (a glob).
/// `None`: clap's own message says it well enough.
fn slip(argv: &[String]) -> Option<String> {
    use clap::CommandFactory;
    if argv.first().is_some_and(|a| ["check", "synth", "sweep", "help"].contains(&a.as_str())) {
        return None;
    }
    let cmd = Cli::command();
    let takes_value = |a: &str| {
        cmd.get_arguments().any(|arg| {
            arg.get_action().takes_values()
                && (arg.get_long().is_some_and(|l| a == format!("--{l}"))
                    || arg.get_short().is_some_and(|s| a == format!("-{s}")))
        })
    };
    let mut machines = Vec::new();
    let mut positional = Vec::new();
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].as_str();
        if a == "--set" {
            if let (Some(k), Some(v)) = (argv.get(i + 1), argv.get(i + 2)) {
                if !k.contains('=') && !v.starts_with('-') {
                    return Some(format!("--set takes KEY=VALUE as one word: `--set {k}={v}`"));
                }
            }
        }
        if a == "-m" || a == "--machine" {
            machines.extend(argv.get(i + 1).cloned());
        } else if let Some(m) = a.strip_prefix("--machine=") {
            machines.push(m.to_string());
        }
        if takes_value(a) {
            i += 2;
            continue;
        }
        if !a.starts_with('-') || a == "-" {
            positional.push(a.to_string());
        }
        i += 1;
    }
    if machines.len() > 1 {
        return Some(format!(
            "one machine per replay (-m given {} times: {}); to replay one trace on several machines: `psins-sim sweep TRACE -m {}` (docs/sweep.md)",
            machines.len(),
            machines.join(", "),
            machines.join(" -m ")
        ));
    }
    if positional.len() > 1 {
        return Some(format!(
            "one TRACE per replay, {} given ({}{}): a shell glob that matched several? replay each in turn: `for t in {}; do psins-sim \"$t\" -m …; done`",
            positional.len(),
            positional.iter().take(4).cloned().collect::<Vec<_>>().join(", "),
            if positional.len() > 4 { ", …" } else { "" },
            positional.iter().take(2).cloned().collect::<Vec<_>>().join(" ")
        ));
    }
    None
}

fn list_models() -> Result<()> {
    let text: String = psins_machine::MODELS.iter().map(|(name, what)| format!("{name:<10} {what}\n")).collect();
    print(&text).map_err(SimError::OutputFile)
}

/// Loads a machine file; warns when psins-calibrate flagged its figures as measured on a noisy host.
fn load_machine(path: &Path, set: &[String]) -> Result<Machine> {
    let m = Machine::load(path, set)?;
    if let Some(why) = m.calibrated.as_ref().and_then(|c| c.noisy.as_deref()) {
        note!("psins-sim: warning: {}: calibrated on a noisy host ({why}); predictions may be off", path.display());
    }
    Ok(m)
}

fn check(path: &Path, set: &[String]) -> Result<()> {
    let m = load_machine(path, set)?;
    model::build(&m).map_err(|source| SimError::Model { path: path.to_path_buf(), source })?;
    print(&m.effective()).map_err(SimError::OutputFile)
}

fn synth(a: &SynthArgs) -> Result<()> {
    let m = load_machine(&a.machine, &a.set)?;
    let req = synth::SynthRequest {
        pattern: a.pattern.clone(),
        load: a.load,
        loads: synth::parse_loads(&a.loads)?,
        sweep: a.sweep.clone(),
        plot: a.plot.clone(),
        warmup: a.warmup,
        measure: a.measure,
        seed: a.seed,
    };
    let mut out = Checked { inner: std::io::stdout().lock(), error: None };
    let r = synth::run(&m, &req, &mut out);
    let flushed = std::io::Write::flush(&mut out.inner);
    match out.error.map_or(flushed, Err) {
        Err(e) => Err(SimError::OutputFile(psins_formats::Error::io(
            Path::new(psins_formats::output::STDOUT_NAME),
            "cannot write",
            e,
        ))),
        Ok(()) => r,
    }
}

/// A writer that keeps its first error, for code that prints progress lines as it goes.
struct Checked<W> {
    inner: W,
    error: Option<std::io::Error>,
}

impl<W: std::io::Write> std::io::Write for Checked<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.error.is_some() {
            return Ok(buf.len());
        }
        self.inner.write(buf).or_else(|e| {
            self.error = Some(e);
            Ok(buf.len())
        })
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn run(a: &RunArgs) -> Result<()> {
    let trace = a.trace.as_deref().ok_or_else(|| {
        SimError::Usage("missing TRACE (a .psins file, a gen: spec or an extrapolate: spec); see --help".into())
    })?;
    let machine = a.machine.as_deref().ok_or_else(|| SimError::Usage("missing --machine FILE; see --help".into()))?;
    let m = load_machine(machine, &a.set)?;
    // Outputs are checked (and their temporary files made) before the replay.
    let inputs = [PathBuf::from(trace), machine.to_path_buf()];
    let prepare =
        |p: &Option<PathBuf>| p.as_ref().map(|p| Output::prepare(p, &inputs)).transpose().map_err(SimError::OutputFile);
    let (json, tl_out, plot) = (prepare(&a.json)?, prepare(&a.timeline)?, prepare(&a.plot)?);
    let plot_sizes = prepare(&a.plot_sizes)?;
    let pt_out = prepare(&a.predicted_trace)?;
    let timeline = match &tl_out {
        Some(o) => Some(
            Timeline::create(o.temp_path(), a.timeline_ranks.as_deref(), a.timeline_window.as_deref())?.named(o.path()),
        ),
        None => None,
    };
    let mut opts = Options { timeline, predicted: None, progress: !a.no_progress, critical_path: a.critical_path };
    // The trace's checksum is taken before the replay reads it.
    let provenance = |origin: &serde_json::Value| provenance::of_run(origin, machine, &a.set, &m, a.tracer_overhead);
    let predicted = |source: &[(String, String)], tasks: u32, prov: &serde_json::Value| {
        pt_out.as_ref().map(|o| {
            let meta = psins_sim::predicted::metadata(source, machine, prov, tasks);
            PredictedTrace::new(o.temp_path(), o.path(), tasks, meta)
        })
    };
    let report = if trace.starts_with("gen:") {
        let src = SynthSource::new(Workload::parse(trace)?);
        let prov = provenance(&provenance::trace(trace)?);
        opts.predicted = predicted(&[("generated".to_string(), trace.to_string())], src.tasks(), &prov);
        let mut r = simulate_report(src, &m, opts)?;
        r.provenance = Some(prov);
        r
    } else if trace.starts_with("extrapolate:") {
        let src = psins_sim::source::extrapolated::ExtrapolatedSource::open(trace)?;
        let mut prov = provenance(&provenance::trace(trace)?);
        prov["extrapolation"] = src.extrapolation().provenance();
        opts.predicted = predicted(&[("extrapolated".to_string(), trace.to_string())], src.tasks(), &prov);
        let mut r = simulate_report(src, &m, opts)?;
        r.provenance = Some(prov);
        r
    } else if Path::new(trace).exists() || !trace.contains(':') {
        let src = CompactTrace::open(Path::new(trace))?.with_tracer_overhead(a.tracer_overhead)?;
        let mut prov = provenance(&provenance::trace(trace)?);
        // An extrapolated trace's inputs, topology and fits (docs/extrapolate.md).
        if let Some(x) = src.reader().header.meta("extrapolation").and_then(|j| serde_json::from_str(j).ok()) {
            prov["extrapolation"] = x;
        }
        opts.predicted = predicted(&src.reader().header.meta, src.tasks(), &prov);
        let mut r = simulate_report(src, &m, opts)?;
        r.provenance = Some(prov);
        r
    } else {
        return Err(SimError::Usage(format!("`{trace}`: no such file (a workload spec looks like {SPEC_HELP})")));
    };
    // A deadlocked replay still closed its timeline and writes its JSON report (but no
    // predicted trace: there is no predicted run).
    if let Some(o) = tl_out {
        o.commit().map_err(SimError::OutputFile)?;
    }
    if let Some(o) = pt_out.filter(|_| report.deadlock.is_none()) {
        o.commit().map_err(SimError::OutputFile)?;
    }
    let what = format!("{} on {}", short_name(trace), short_name(&machine.to_string_lossy()));
    output(a, json, [plot, plot_sizes], &what, &report)
}

/// Writes the JSON report, the charts (`--plot`, `--plot-sizes`) and the table.
fn output(a: &RunArgs, json: Option<Output>, plots: [Option<Output>; 2], what: &str, report: &Report) -> Result<()> {
    if let Some(o) = json {
        let mut text = serde_json::to_string_pretty(&report.json()).expect("report JSON serialises");
        text.push('\n');
        std::fs::write(o.temp_path(), text).map_err(|e| SimError::output(o.path(), e))?;
        o.commit().map_err(SimError::OutputFile)?;
    }
    if let Some(d) = &report.deadlock {
        return Err(SimError::Deadlock(d.message.clone()));
    }
    // A deadlocked replay has no per-rank times to draw: its charts are not written.
    let [plot, plot_sizes] = plots;
    if let Some(o) = plot {
        psins_sim::plot::write(&psins_sim::plot::ranks(report, what), o)?;
    }
    if let Some(o) = plot_sizes {
        if report.stats.messages == 0 {
            let msg = format!("--plot-sizes {}: the replay sent no messages: no sizes to draw", o.path().display());
            return Err(SimError::Input(msg));
        }
        psins_sim::plot::write(&psins_sim::plot::sizes(report, what), o)?;
    }
    if let Some(w) = &report.assumptions.library.warning {
        note!("psins-sim: warning: {w}");
    }
    if !a.quiet {
        print(&report.table()).map_err(SimError::OutputFile)?;
    } else if let Some(w) = report.unreceived_warning() {
        // The table carries it otherwise; quiet or not, a prediction missing receives says so.
        note!("psins-sim: warning: {w}");
    }
    if a.perf {
        let cpu = cpu_seconds().unwrap_or(0.0);
        note!(
            "perf: {} records in {:.3} s wall = {:.0} records/s; process CPU time {:.2} s; peak RSS {} KiB; {} tasks; peak {} messages in flight of {} bytes",
            report.records,
            report.wall.as_secs_f64(),
            report.records_per_second(),
            cpu,
            peak_rss_kib().unwrap_or(0),
            report.tasks.len(),
            report.peak_messages,
            report.message_bytes
        );
    }
    Ok(())
}

/// User + system CPU time of this process so far (from /proc, in clock ticks of 10 ms), which
/// unlike wall time does not count time the process waited for a busy core.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// Peak resident set size (VmHWM) of this process, from /proc.
fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
