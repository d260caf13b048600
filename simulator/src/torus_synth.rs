//! `psins-sim synth`: synthetic traffic (INSEE's TrGen) on a machine file's torus, through
//! `psins_torus::synth`: one load point, or a latency-versus-load sweep written as CSV.

use crate::error::{Result, SimError};
use crate::Machine;
use psins_torus::synth::{self, Pattern, SynthResult, CSV_HEADER};
use psins_torus::TorusConfig;
use std::io::Write;
use std::path::PathBuf;

pub use psins_torus::synth::DEFAULT_LOADS;

pub struct SynthRequest {
    pub pattern: String,
    /// Fraction of the uniform-traffic capacity (8/k phits/node/cycle on an even torus).
    pub load: f64,
    /// With `sweep`: the loads of the curve.
    pub loads: Vec<f64>,
    pub sweep: Option<PathBuf>,
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

/// Runs the request on `m`'s torus, printing results on `out`.
pub fn run(m: &Machine, r: &SynthRequest, out: &mut dyn Write) -> Result<()> {
    let cfg = m.torus.as_ref().ok_or_else(|| SimError::Config {
        path: m.path.clone(),
        msg: format!("synth needs a torus: [network] model = \"torus\" (the model is `{}`)", m.model),
    })?;
    let pattern = Pattern::parse(&r.pattern).map_err(|e| SimError::Usage(format!("--pattern: {e}")))?;
    // The CSV's place is checked before the runs (psins_formats::output's rule).
    let csv = match &r.sweep {
        Some(p) => {
            Some(psins_formats::Output::prepare(p, std::slice::from_ref(&m.path)).map_err(SimError::OutputFile)?)
        }
        None => None,
    };
    header(m, cfg, &pattern, out);
    match csv {
        Some(csv) => sweep(cfg, &pattern, r, csv, out),
        None => single(cfg, &pattern, r, out),
    }
}

/// The watchdog's deadlock keeps its exit code; every other synth error is about the arguments.
fn synth_error(e: synth::SynthError) -> SimError {
    match e {
        synth::SynthError::Deadlock(d) => SimError::Deadlock(d.to_string()),
        synth::SynthError::Invalid(m) => SimError::Usage(m),
    }
}

fn one(cfg: &TorusConfig, pattern: &Pattern, load: f64, r: &SynthRequest) -> Result<SynthResult> {
    synth::run(cfg, pattern, load, r.seed, r.warmup, r.measure).map_err(synth_error)
}

fn header(m: &Machine, cfg: &TorusConfig, pattern: &Pattern, out: &mut dyn Write) {
    let kind = if cfg.mesh { "mesh" } else { "torus" };
    let dims = crate::config::torus::dims_text(&cfg.dims);
    let _ = writeln!(
        out,
        "machine                   {}: {dims} {kind}, {} {} VC, pattern {}",
        m.name,
        cfg.routing.name(),
        cfg.vcs,
        pattern.name()
    );
    let _ = writeln!(out, "capacity (uniform)        {:.4} phits/node/cycle (load 1.0)", cfg.uniform_capacity());
}

fn single(cfg: &TorusConfig, pattern: &Pattern, r: &SynthRequest, out: &mut dyn Write) -> Result<()> {
    let cpu0 = psins_torus::synth::cpu_seconds();
    let res = one(cfg, pattern, r.load, r)?;
    let cpu = psins_torus::synth::cpu_seconds() - cpu0;
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
    cfg: &TorusConfig,
    pattern: &Pattern,
    r: &SynthRequest,
    file: psins_formats::Output,
    out: &mut dyn Write,
) -> Result<()> {
    let mut csv = vec![CSV_HEADER.to_string()];
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
            if res.unfinished > 0 { format!(", {} unfinished: saturated", res.unfinished) } else { String::new() }
        );
        csv.push(res.csv_row(cfg, pattern));
    }
    let tmp = file.temp_path();
    std::fs::write(tmp, csv.join("\n") + "\n").map_err(|e| SimError::output(file.path(), e))?;
    let path = file.path().to_path_buf();
    file.commit().map_err(SimError::OutputFile)?;
    let _ = writeln!(out, "wrote {}", path.display());
    Ok(())
}
