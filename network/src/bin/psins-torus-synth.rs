//! Synthetic traffic on the torus model: one load point, or a latency-versus-load sweep
//! written as CSV. Also prints the simulation speed (packet-hops per second of wall time).

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use psins_formats::exit::Exit;
use psins_network::synth::{self, Pattern, SynthResult, CSV_HEADER};
use psins_network::{Routing, TorusConfig};

#[derive(Parser)]
#[command(
    name = "psins-torus-synth",
    about = "Synthetic traffic on the psins torus network model",
    after_help = "Exit codes (docs/exit-codes.md): 0 success, 2 bad arguments, 3 an output (--sweep, standard output) cannot be written, 4 network deadlock (the watchdog fired).\n--sweep follows the output rule: `-` is standard output, a file is replaced only when complete."
)]
struct Args {
    /// k per dimension, e.g. 8x8 or 4x4x4.
    #[arg(long, default_value = "8x8")]
    dims: String,
    /// No wrap-around links.
    #[arg(long)]
    mesh: bool,
    #[arg(long, default_value_t = 1)]
    vcs: u32,
    /// dor or adaptive.
    #[arg(long, default_value = "dor")]
    routing: String,
    /// uniform, transpose, bit-reversal, shuffle, shift, shift:K, neighbour, hotspot, hotspot:FRACTION, hotspot:FRACTION:NODE.
    #[arg(long, default_value = "uniform")]
    pattern: String,
    /// Offered load as a fraction of the uniform-traffic capacity (8/k phits/node/cycle).
    #[arg(long, default_value_t = 0.3)]
    load: f64,
    /// Write a latency-versus-load CSV to this file instead of one run (`-`: stdout).
    #[arg(long)]
    sweep: Option<String>,
    /// Loads for --sweep, comma-separated.
    #[arg(long, default_value = psins_network::synth::DEFAULT_LOADS)]
    loads: String,
    #[arg(long, default_value_t = 2000)]
    warmup: u64,
    #[arg(long, default_value_t = 10000)]
    measure: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Packets per VC buffer.
    #[arg(long, default_value_t = 4)]
    buffer: u32,
    #[arg(long, default_value_t = 64)]
    packet_bytes: u32,
    #[arg(long, default_value_t = 32)]
    link_bits: u32,
    #[arg(long, default_value_t = 1)]
    router_delay: u32,
    #[arg(long, default_value_t = 1_000_000)]
    watchdog: u64,
    /// Disable bubble flow control (debug: rings can deadlock).
    #[arg(long)]
    no_bubble: bool,
}

/// Why the run failed, each with its exit code.
enum Fail {
    Usage(String),
    Output(String),
    Deadlock(String),
}

impl From<String> for Fail {
    fn from(m: String) -> Fail {
        Fail::Usage(m)
    }
}

impl From<synth::SynthError> for Fail {
    fn from(e: synth::SynthError) -> Fail {
        match e {
            synth::SynthError::Deadlock(d) => Fail::Deadlock(d.to_string()),
            synth::SynthError::Invalid(m) => Fail::Usage(m),
        }
    }
}

/// `println!` that returns an error instead of panicking when stdout cannot be written.
macro_rules! out {
    ($($t:tt)*) => {
        writeln!(std::io::stdout(), $($t)*).map_err(|e| Fail::Output(format!("cannot write standard output: {e}")))?
    };
}

fn main() -> ExitCode {
    psins_cli::generate_if_asked::<Args>();
    let r = run(Args::parse()).and_then(|()| {
        std::io::stdout().flush().map_err(|e| Fail::Output(format!("cannot write standard output: {e}")))
    });
    let (code, msg) = match r {
        Ok(()) => return ExitCode::SUCCESS,
        Err(Fail::Usage(m)) => (Exit::Usage, m),
        Err(Fail::Output(m)) => (Exit::Output, m),
        Err(Fail::Deadlock(m)) => (Exit::Deadlock, m),
    };
    psins_formats::note!("psins-torus-synth: {msg}");
    code.into()
}

fn run(args: Args) -> Result<(), Fail> {
    let cfg = config(&args)?;
    cfg.validate()?;
    let pattern = Pattern::parse(&args.pattern)?;
    match &args.sweep {
        Some(path) => sweep(&args, &cfg, &pattern, path),
        None => single(&args, &cfg, &pattern),
    }
}

fn config(a: &Args) -> Result<TorusConfig, String> {
    let dims = a
        .dims
        .split('x')
        .map(|k| k.trim().parse::<u32>().map_err(|_| format!("--dims {:?}: expected e.g. 8x8", a.dims)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(TorusConfig {
        dims,
        mesh: a.mesh,
        vcs: a.vcs,
        buffer_packets: a.buffer,
        packet_bytes: a.packet_bytes,
        link_bits_per_cycle: a.link_bits,
        router_delay_cycles: a.router_delay,
        routing: Routing::parse(&a.routing)?,
        bubble: !a.no_bubble,
        watchdog_cycles: a.watchdog,
        ..TorusConfig::default()
    })
}

fn single(a: &Args, cfg: &TorusConfig, pattern: &Pattern) -> Result<(), Fail> {
    let (start, cpu0) = (Instant::now(), synth::cpu_seconds());
    let r = synth::run(cfg, pattern, a.load, a.seed, a.warmup, a.measure)?;
    let (wall, cpu) = (start.elapsed().as_secs_f64(), synth::cpu_seconds() - cpu0);
    print_result(cfg, pattern, &r)?;
    out!("time (whole run)          {wall:.3} s wall, {cpu:.3} s CPU (warm-up and drain included)");
    let hops = r.total_packet_hops as f64;
    out!(
        "packet-hops (whole run)   {} = {:.2} M/s of CPU time, {:.2} M/s wall",
        r.total_packet_hops,
        hops / cpu / 1e6,
        hops / wall / 1e6
    );
    Ok(())
}

fn print_result(cfg: &TorusConfig, pattern: &Pattern, r: &SynthResult) -> Result<(), Fail> {
    let dims: Vec<String> = cfg.dims.iter().map(u32::to_string).collect();
    let kind = if cfg.mesh { "mesh" } else { "torus" };
    out!(
        "network                   {} {kind}, {} {} VC, pattern {}",
        dims.join("x"),
        cfg.routing.name(),
        cfg.vcs,
        pattern.name()
    );
    out!("capacity (uniform)        {:.4} phits/node/cycle", cfg.uniform_capacity());
    out!(
        "offered                   {:.6} packets/node/cycle, {:.3} B/node/cycle, {:.4} of capacity",
        r.offered_packets,
        r.offered_bytes,
        r.offered_fraction
    );
    out!(
        "accepted                  {:.6} packets/node/cycle, {:.3} B/node/cycle, {:.4} of capacity",
        r.accepted_packets,
        r.accepted_bytes,
        r.accepted_fraction
    );
    out!("latency avg / p99         {:.2} / {} cycles", r.avg_latency, r.p99_latency);
    out!("measured / unfinished     {} / {}", r.measured_packets, r.unfinished);
    out!("avg hops, max link util   {:.3}, {:.3}", r.network.avg_hops, r.network.max_link_utilisation);
    Ok(())
}

fn sweep(a: &Args, cfg: &TorusConfig, pattern: &Pattern, path: &str) -> Result<(), Fail> {
    // The CSV's place is checked before the runs (psins_formats::output's rule).
    let file = psins_formats::Output::prepare(path.as_ref(), &[]).map_err(|e| Fail::Output(e.to_string()))?;
    let loads = a
        .loads
        .split(',')
        .map(|l| l.trim().parse::<f64>().map_err(|_| format!("--loads: {l:?} is not a number")))
        .collect::<Result<Vec<_>, _>>()?;
    let mut csv = vec![CSV_HEADER.to_string()];
    for &load in &loads {
        let r = synth::run(cfg, pattern, load, a.seed, a.warmup, a.measure)?;
        out!(
            "load {load:.3}: accepted {:.4} of capacity, latency {:.1} (p99 {})",
            r.accepted_fraction,
            r.avg_latency,
            r.p99_latency
        );
        csv.push(r.csv_row(cfg, pattern));
    }
    std::fs::write(file.temp_path(), csv.join("\n") + "\n")
        .map_err(|e| Fail::Output(format!("writing {path}: {e}")))?;
    file.commit().map_err(|e| Fail::Output(e.to_string()))
}
