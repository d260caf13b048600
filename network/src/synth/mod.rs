//! Synthetic traffic (INSEE's TrGen): open-loop Bernoulli injection of single-packet
//! messages at a given load, a warm-up phase, a measurement phase, and a drain.
//!
//! **Load** is a fraction of the network's ideal uniform-traffic capacity
//! ([`TorusConfig::uniform_capacity`]: 8/k phits per node per cycle on a torus with even
//! k, a phit being one link cycle of W bits). At load L every sending node starts a packet
//! of `packet_bytes` with probability p = L · capacity / phits-per-packet each cycle, so
//! load 1.0 offers exactly what the bisection can carry under uniform traffic.
//!
//! Offered and accepted throughput count packets created, respectively ejected, during
//! the measurement window, per node (all nodes) per cycle. Latency is over the packets
//! created in the window, from creation to ejection of the tail, source queueing
//! included; after the window the run keeps injecting until they are all delivered or a
//! drain limit (4 windows) passes, in which case `unfinished` counts the ones left and
//! the network is past saturation.

mod pattern;
mod rng;

pub use pattern::{NodeSpace, Pattern, PatternError};

/// Why a synthetic run stopped: bad parameters, or the watchdog's deadlock (a typed variant,
/// so callers give it its own exit code without reading the message).
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    /// The run's parameters.
    #[error("{0}")]
    Invalid(String),
    /// The network's configuration.
    #[error(transparent)]
    Config(#[from] crate::ConfigError),
    #[error(transparent)]
    Pattern(#[from] PatternError),
    #[error(transparent)]
    Deadlock(crate::Deadlock),
}

impl From<String> for SynthError {
    fn from(m: String) -> SynthError {
        SynthError::Invalid(m)
    }
}
pub use rng::Rng;

use crate::calendar::Calendar;
use crate::fabric::Fabric;
use crate::network::Network;
use crate::stats::{Histogram, NetworkStats};
use crate::torus::config::TorusConfig;
use crate::torus::{Torus, TorusFabric};

/// What synthetic traffic needs of a fabric beyond the engine: its nodes as patterns see
/// them, and the load that counts as 1.0.
pub trait SynthFabric: Fabric {
    type Space: NodeSpace;
    fn space(&self) -> &Self::Space;
    /// Ideal uniform-traffic throughput in phits per node per cycle (load 1.0).
    fn uniform_capacity(&self) -> f64;
    /// The routing's name, for reports and the CSV.
    fn routing_name(&self) -> &'static str;
}

impl SynthFabric for TorusFabric {
    type Space = crate::torus::topology::Topology;
    fn space(&self) -> &Self::Space {
        &self.topo
    }
    fn uniform_capacity(&self) -> f64 {
        self.cfg.uniform_capacity()
    }
    fn routing_name(&self) -> &'static str {
        self.cfg.routing.name()
    }
}

/// Loads of a sweep when none are given: up to and past saturation of every design.
pub const DEFAULT_LOADS: &str = "0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.9,1.0";

/// Drain limit in measurement windows.
const DRAIN_WINDOWS: u64 = 4;
/// Cycles of arrivals injected before the network catches up: fewer, longer calls into
/// the network, with no effect on what it computes.
const BATCH: u64 = 32;

#[derive(Clone, Debug, PartialEq)]
pub struct SynthResult {
    /// Requested load (fraction of the uniform capacity).
    pub load: f64,
    /// Packets per node per cycle created / ejected in the window.
    pub offered_packets: f64,
    pub accepted_packets: f64,
    /// The same in payload bytes.
    pub offered_bytes: f64,
    pub accepted_bytes: f64,
    /// The same in phits, as fractions of the uniform capacity.
    pub offered_fraction: f64,
    pub accepted_fraction: f64,
    pub avg_latency: f64,
    pub p99_latency: u64,
    /// Packets created in the window / of those, not delivered by the drain limit.
    pub measured_packets: u64,
    pub unfinished: u64,
    /// Network statistics over the measurement window.
    pub network: NetworkStats,
    /// Link traversals over the whole run (warm-up and drain included).
    pub total_packet_hops: u64,
}

/// Simulates `pattern` at `load` on `cfg` for `warmup` + `measure` cycles (plus drain).
pub fn run(
    cfg: &TorusConfig,
    pattern: &Pattern,
    load: f64,
    seed: u64,
    warmup: u64,
    measure: u64,
) -> Result<SynthResult, SynthError> {
    if !(load.is_finite() && load >= 0.0) {
        return Err(format!("load must be a finite non-negative number, not {load}").into());
    }
    if measure == 0 {
        return Err(SynthError::Invalid("the measurement window must be at least one cycle".into()));
    }
    run_on(Torus::new(cfg.clone())?, pattern, load, seed, warmup, measure)
}

/// [`run`] on a network already built, of any fabric.
pub fn run_on<F: SynthFabric>(
    net: Network<F>,
    pattern: &Pattern,
    load: f64,
    seed: u64,
    warmup: u64,
    measure: u64,
) -> Result<SynthResult, SynthError> {
    if !(load.is_finite() && load >= 0.0) {
        return Err(format!("load must be a finite non-negative number, not {load}").into());
    }
    if measure == 0 {
        return Err(SynthError::Invalid("the measurement window must be at least one cycle".into()));
    }
    pattern.check(net.fabric().space())?;
    let cfg = *net.router_config();
    let phits = cfg.phits(cfg.packet_bytes as u64) as f64;
    let p = (load * net.fabric().uniform_capacity() / phits).min(1.0);
    let ln_miss = Rng::ln_miss(p);
    let mut gen = Generator {
        net,
        pattern: pattern.clone(),
        rng: Rng::new(seed),
        p,
        ln_miss,
        warmup,
        end: warmup.saturating_add(measure),
        tally: Tally::default(),
    };
    let window = gen.simulate(measure.saturating_mul(DRAIN_WINDOWS))?;
    Ok(gen.result(load, measure, window))
}

/// [`run`] at each load, for a latency-versus-load curve.
pub fn sweep(
    cfg: &TorusConfig,
    pattern: &Pattern,
    loads: &[f64],
    seed: u64,
    warmup: u64,
    measure: u64,
) -> Result<Vec<SynthResult>, SynthError> {
    loads.iter().map(|&l| run(cfg, pattern, l, seed, warmup, measure)).collect()
}

/// Header of the CSV rows [`SynthResult::csv_row`] writes.
pub const CSV_HEADER: &str = "pattern,routing,vcs,load,offered_packets,accepted_packets,offered_bytes,accepted_bytes,offered_fraction,accepted_fraction,avg_latency,p99_latency,unfinished";

/// Accepted throughput below this share of the offered load means the network no longer
/// keeps up (the usual knee of a latency-versus-load curve).
pub const SATURATED_BELOW: f64 = 0.95;

impl SynthResult {
    /// A load point past saturation: packets left undelivered, or accepted throughput below
    /// [`SATURATED_BELOW`] of the offered.
    pub fn saturated(&self) -> bool {
        self.unfinished > 0 || self.accepted_fraction < SATURATED_BELOW * self.offered_fraction
    }

    pub fn csv_row(&self, cfg: &TorusConfig, pattern: &Pattern) -> String {
        self.csv_row_of(cfg.routing.name(), cfg.vcs, pattern)
    }

    /// The CSV row of a run on any fabric, given its routing's name and VC count.
    pub fn csv_row_of(&self, routing: &str, vcs: u32, pattern: &Pattern) -> String {
        format!(
            "{},{},{},{:.4},{:.6},{:.6},{:.4},{:.4},{:.4},{:.4},{:.2},{},{}",
            pattern.name(),
            routing,
            vcs,
            self.load,
            self.offered_packets,
            self.accepted_packets,
            self.offered_bytes,
            self.accepted_bytes,
            self.offered_fraction,
            self.accepted_fraction,
            self.avg_latency,
            self.p99_latency,
            self.unfinished
        )
    }
}

#[derive(Default)]
struct Tally {
    offered: u64,
    accepted: u64,
    outstanding: u64,
    latency: Histogram,
}

struct Generator<F: SynthFabric> {
    net: Network<F>,
    pattern: Pattern,
    rng: Rng,
    p: f64,
    /// ln(1 − p), so each arrival costs one logarithm, not two.
    ln_miss: f64,
    warmup: u64,
    end: u64,
    tally: Tally,
}

impl<F: SynthFabric> Generator<F> {
    /// Runs arrivals through the network in batches of cycles (packets created in a
    /// batch are injected with their own creation cycles, then the network catches up),
    /// with batch edges at the end of warm-up and of measurement. Returns the network
    /// statistics of the measurement window.
    fn simulate(&mut self, drain: u64) -> Result<NetworkStats, SynthError> {
        // Arrivals wait on a timing wheel like the network's own events: a heap costs
        // more per packet than the network does per hop.
        let mut arrivals = Calendar::new(512);
        self.first_arrivals(&mut arrivals);
        let limit = self.end.saturating_add(drain);
        let (mut delivered, mut due) = (Vec::new(), Vec::new());
        let mut window = None;
        let (mut t, mut from) = (0, 0);
        loop {
            if t == self.warmup && t > 0 {
                self.net.reset_stats();
            }
            if t == self.end {
                window = Some(self.net.stats());
            }
            let idle = arrivals.next_time(from).is_none();
            if (t >= self.end && (self.tally.outstanding == 0 || idle)) || t > limit {
                break;
            }
            let edge = if t < self.warmup {
                self.warmup
            } else if t < self.end {
                self.end
            } else {
                u64::MAX
            };
            let stop = (t + BATCH).min(edge);
            while let Some(at) = arrivals.next_time(from).filter(|&at| at < stop) {
                arrivals.take(at, &mut due);
                for &src in &due {
                    self.create_packet(src as u32, at);
                    arrivals.push(at + 1, at + self.rng.geometric_gap_ln(self.ln_miss), src);
                }
                from = at + 1;
            }
            self.advance(stop - 1, &mut delivered)?;
            t = stop;
        }
        Ok(window.unwrap_or_else(|| self.net.stats()))
    }

    fn first_arrivals(&mut self, arrivals: &mut Calendar) {
        if self.p <= 0.0 {
            return;
        }
        let topo = self.net.fabric().space();
        let senders: Vec<u32> = (0..topo.nodes() as u32).filter(|&s| self.pattern.sends(topo, s)).collect();
        for s in senders {
            arrivals.push(0, self.rng.geometric_gap_ln(self.ln_miss) - 1, s as u64);
        }
    }

    /// The message id carries the creation cycle and whether it is measured, so no
    /// per-packet table is needed to compute latencies.
    fn create_packet(&mut self, src: u32, t: u64) {
        let dst = self.pattern.destination(self.net.fabric().space(), src, &mut self.rng);
        let measured = t >= self.warmup && t < self.end;
        if measured {
            self.tally.offered += 1;
            self.tally.outstanding += 1;
        }
        let bytes = self.net.router_config().packet_bytes as u64;
        self.net.inject(t << 1 | measured as u64, src, dst, bytes, t);
    }

    fn advance(&mut self, cycle: u64, delivered: &mut Vec<(u64, u64)>) -> Result<(), SynthError> {
        self.net.advance_to(cycle, delivered).map_err(SynthError::Deadlock)?;
        for (msg, at) in delivered.drain(..) {
            if at >= self.warmup && at < self.end {
                self.tally.accepted += 1;
            }
            if msg & 1 == 1 {
                self.tally.latency.record(at - (msg >> 1));
                self.tally.outstanding -= 1;
            }
        }
        Ok(())
    }

    fn result(&self, load: f64, measure: u64, network: NetworkStats) -> SynthResult {
        let cfg = self.net.router_config();
        let per = (self.net.fabric().nodes() as f64) * measure as f64;
        let bytes = cfg.packet_bytes as f64;
        let frac = cfg.phits(cfg.packet_bytes as u64) as f64 / self.net.fabric().uniform_capacity();
        let (offered, accepted) = (self.tally.offered as f64 / per, self.tally.accepted as f64 / per);
        SynthResult {
            load,
            offered_packets: offered,
            accepted_packets: accepted,
            offered_bytes: offered * bytes,
            accepted_bytes: accepted * bytes,
            offered_fraction: offered * frac,
            accepted_fraction: accepted * frac,
            avg_latency: self.tally.latency.mean(),
            p99_latency: self.tally.latency.percentile(0.99),
            measured_packets: self.tally.offered,
            unfinished: self.tally.outstanding,
            network,
            total_packet_hops: self.net.lifetime_packet_hops(),
        }
    }
}

/// This process's CPU time: on a shared machine wall time also counts other jobs.
pub fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime only writes the timespec we own.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    if rc == 0 {
        ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
    } else {
        f64::NAN
    }
}
