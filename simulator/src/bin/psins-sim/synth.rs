//! `psins-sim synth`: synthetic traffic (INSEE's TrGen) on a machine file's packet network
//! (torus or fat-tree), through `psins_network::synth`: one load point, or a
//! latency-versus-load sweep written as CSV.

use psins_machine::Fabric;
use psins_network::synth::{self, Pattern, SynthResult, CSV_HEADER};
use psins_network::{DragonflyConfig, FatTreeConfig, TorusConfig};
use psins_sim::error::{Result, SimError};
use psins_sim::Machine;
use std::io::Write;
use std::path::PathBuf;

pub use psins_network::synth::DEFAULT_LOADS;

pub struct SynthRequest {
    pub pattern: String,
    /// Fraction of the uniform-traffic capacity (8/k phits/node/cycle on an even torus, 1 on
    /// a full-bisection fat-tree).
    pub load: f64,
    /// With `sweep`: the loads of the curve.
    pub loads: Vec<f64>,
    pub sweep: Option<PathBuf>,
    /// With `sweep`: the latency-versus-load chart (SVG).
    pub plot: Option<PathBuf>,
    pub warmup: u64,
    pub measure: u64,
    pub seed: u64,
}

/// Parses `0.1,0.2,…`.
pub fn parse_loads(s: &str) -> Result<Vec<f64>> {
    s.split(',')
        .map(|l| l.trim().parse::<f64>().map_err(|_| SimError::Usage(format!("--loads: `{l}` is not a number"))))
        .collect()
}

/// The packet network a synthetic run drives.
#[derive(Clone, Copy)]
enum Net<'a> {
    Torus(&'a TorusConfig),
    FatTree(&'a FatTreeConfig),
    Dragonfly(&'a DragonflyConfig),
}

impl Net<'_> {
    /// The packet network the machine's model runs on (as packets or as the flow model's graph).
    fn of(m: &Machine) -> Option<Net<'_>> {
        Some(match m.network.fabric()? {
            Fabric::Torus(c) => Net::Torus(c),
            Fabric::FatTree(c) => Net::FatTree(c),
            Fabric::Dragonfly(c) => Net::Dragonfly(c),
        })
    }

    fn capacity(self) -> f64 {
        match self {
            Net::Torus(c) => c.uniform_capacity(),
            Net::FatTree(c) => c.uniform_capacity(),
            Net::Dragonfly(c) => c.uniform_capacity(),
        }
    }

    fn csv_row(self, res: &SynthResult, pattern: &Pattern) -> String {
        match self {
            Net::Torus(c) => res.csv_row(c, pattern),
            Net::FatTree(c) => res.csv_row_of(c.routing.name(), c.router.vcs, pattern),
            Net::Dragonfly(c) => res.csv_row_of(c.routing.name(), c.router.vcs, pattern),
        }
    }
}

/// Runs the request on `m`'s packet network, printing results on `out`.
pub fn run(m: &Machine, r: &SynthRequest, out: &mut dyn Write) -> Result<()> {
    let cfg = Net::of(m).ok_or_else(|| SimError::Config {
        path: m.path.clone(),
        msg: format!(
            "synth needs a torus or a fat-tree or a dragonfly: [network] model = \"torus\", \"fattree\" or \"dragonfly\" (the model is `{}`)",
            m.network.name()
        ),
    })?;
    let pattern = Pattern::parse(&r.pattern).map_err(|e| SimError::Usage(format!("--pattern: {e}")))?;
    // The CSV's place is checked before the runs (psins_formats::output's rule).
    let csv = match &r.sweep {
        Some(p) => {
            Some(psins_formats::Output::prepare(p, std::slice::from_ref(&m.path)).map_err(SimError::OutputFile)?)
        }
        None => None,
    };
    let plot = match &r.plot {
        Some(p) => {
            Some(psins_formats::Output::prepare(p, std::slice::from_ref(&m.path)).map_err(SimError::OutputFile)?)
        }
        None => None,
    };
    header(m, cfg, &pattern, out);
    match csv {
        Some(csv) => {
            let what = format!("{}, {}, pattern {}", m.name, design(cfg), pattern.name());
            sweep(cfg, &pattern, r, csv, plot.map(|p| (p, what)), out)
        }
        None => single(cfg, &pattern, r, out),
    }
}

/// The watchdog's deadlock keeps its exit code; every other synth error is about the arguments
/// (the machine's network was validated when its file was read).
fn synth_error(e: synth::SynthError) -> SimError {
    match e {
        synth::SynthError::Deadlock(d) => SimError::Deadlock(d.to_string()),
        synth::SynthError::Invalid(m) => SimError::Usage(m),
        e @ (synth::SynthError::Config(_) | synth::SynthError::Pattern(_)) => SimError::Usage(e.to_string()),
    }
}

fn one(cfg: Net, pattern: &Pattern, load: f64, r: &SynthRequest) -> Result<SynthResult> {
    match cfg {
        Net::Torus(c) => synth::run(c, pattern, load, r.seed, r.warmup, r.measure),
        Net::FatTree(c) => psins_network::fattree::synth::run(c, pattern, load, r.seed, r.warmup, r.measure),
        Net::Dragonfly(c) => psins_network::dragonfly::synth::run(c, pattern, load, r.seed, r.warmup, r.measure),
    }
    .map_err(synth_error)
}

fn header(m: &Machine, cfg: Net, pattern: &Pattern, out: &mut dyn Write) {
    let _ = writeln!(out, "machine                   {}: {}, pattern {}", m.name, design(cfg), pattern.name());
    let _ = writeln!(out, "capacity (uniform)        {:.4} phits/node/cycle (load 1.0)", cfg.capacity());
}

/// The network in a line: `8x8 torus, dor 2 VC`.
fn design(cfg: Net) -> String {
    match cfg {
        Net::Torus(c) => {
            let kind = if c.mesh { "mesh" } else { "torus" };
            let dims = psins_machine::torus::dims_text(&c.dims);
            format!("{dims} {kind}, {} {} VC", c.routing.name(), c.vcs)
        }
        Net::FatTree(c) => {
            format!("fat-tree down {:?} up {:?}, {} {} VC", c.down, c.up, c.routing.name(), c.router.vcs)
        }
        Net::Dragonfly(c) => format!(
            "dragonfly p={} a={} h={} g={} {:?}, {} {} VC",
            c.p,
            c.a,
            c.h,
            c.g,
            c.arrangement,
            c.routing.name(),
            c.router.vcs
        ),
    }
}

fn single(cfg: Net, pattern: &Pattern, r: &SynthRequest, out: &mut dyn Write) -> Result<()> {
    let cpu0 = synth::cpu_seconds();
    let res = one(cfg, pattern, r.load, r)?;
    let cpu = synth::cpu_seconds() - cpu0;
    let _ = writeln!(out, "load                      {:.4} of capacity", r.load);
    let _ = writeln!(
        out,
        "offered                   {:.6} packets/node/cycle, {:.3} B/node/cycle, {:.4} of capacity",
        res.offered_packets, res.offered_bytes, res.offered_fraction
    );
    let _ = writeln!(
        out,
        "accepted                  {:.6} packets/node/cycle, {:.3} B/node/cycle, {:.4} of capacity",
        res.accepted_packets, res.accepted_bytes, res.accepted_fraction
    );
    let _ = writeln!(out, "latency avg / p99         {:.2} / {} cycles", res.avg_latency, res.p99_latency);
    let _ = writeln!(out, "measured / unfinished     {} / {} packets", res.measured_packets, res.unfinished);
    let _ =
        writeln!(out, "avg hops, max link util   {:.3}, {:.3}", res.network.avg_hops, res.network.max_link_utilisation);
    let hops = res.total_packet_hops as f64;
    let _ = writeln!(
        out,
        "speed (whole run)         {} packet-hops in {cpu:.3} s CPU = {:.2} M/s (warm-up and drain included)",
        res.total_packet_hops,
        hops / cpu / 1e6
    );
    Ok(())
}

fn sweep(
    cfg: Net,
    pattern: &Pattern,
    r: &SynthRequest,
    file: psins_formats::Output,
    plot: Option<(psins_formats::Output, String)>,
    out: &mut dyn Write,
) -> Result<()> {
    let mut csv = vec![CSV_HEADER.to_string()];
    let mut results = Vec::new();
    for &load in &r.loads {
        let res = one(cfg, pattern, load, r)?;
        let _ = writeln!(
            out,
            "load {load:.3}: accepted {:.4} of capacity ({:.6} packets, {:.3} B /node/cycle), latency {:.1} (p99 {}) cycles{}",
            res.accepted_fraction,
            res.accepted_packets,
            res.accepted_bytes,
            res.avg_latency,
            res.p99_latency,
            if res.unfinished > 0 {
                format!(", {} unfinished: saturated", res.unfinished)
            } else if res.saturated() {
                ", accepted below 95 % of offered: saturated".to_string()
            } else {
                String::new()
            }
        );
        csv.push(cfg.csv_row(&res, pattern));
        results.push(res);
    }
    let tmp = file.temp_path();
    std::fs::write(tmp, csv.join("\n") + "\n").map_err(|e| SimError::output(file.path(), e))?;
    let path = file.path().to_path_buf();
    file.commit().map_err(SimError::OutputFile)?;
    let _ = writeln!(out, "wrote {}", path.display());
    if let Some((o, what)) = plot {
        let path = o.path().to_path_buf();
        psins_sim::plot::write(&psins_sim::plot::latency_curve(&results, &what), o)?;
        let _ = writeln!(out, "wrote {}", path.display());
    }
    Ok(())
}
