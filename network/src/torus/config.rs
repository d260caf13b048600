//! The torus's parameters, their validation, and the closed-form figures derived from
//! them (zero-load latency, ideal uniform-traffic capacity). The router and link keys are
//! the engine's [`RouterConfig`]; the shape, routing and bubble keys are the torus's own.

use std::collections::VecDeque;
use std::mem::size_of;

use super::routing::Ports;
use crate::error::ConfigError;
use crate::network::{Node, Output, Vc};
use crate::params::RouterConfig;

/// Largest number of dimensions: keeps every router's input VCs in one 64-bit mask
/// (2·6 ports · 4 VCs + injection = 49 bits).
pub const MAX_DIMS: usize = 6;
/// Largest node count: router and packet ids are `u32`, and a bigger network would not fit
/// in memory anyway.
pub const MAX_NODES: u64 = 1 << 24;
/// Largest router state `validate` accepts: beyond it an allocation failure would abort
/// the process instead of reporting an error.
pub const MAX_STATE_BYTES: u64 = 4 << 30;

/// How a packet picks its next hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routing {
    /// Dimension order, shortest direction in each ring (ties go +); all VCs are lanes.
    Dor,
    /// Minimal adaptive over VCs 1..V−1; VC 0 is the bubble-DOR escape channel.
    Adaptive,
}

impl Routing {
    pub fn parse(s: &str) -> Result<Routing, ConfigError> {
        match s {
            "dor" => Ok(Routing::Dor),
            "adaptive" => Ok(Routing::Adaptive),
            _ => Err(ConfigError::UnknownRouting { topology: "", name: s.into(), expected: "dor or adaptive" }),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Routing::Dor => "dor",
            Routing::Adaptive => "adaptive",
        }
    }
}

/// A k-ary n-cube (torus, or mesh without wrap-around links).
#[derive(Clone, Debug, PartialEq)]
pub struct TorusConfig {
    /// k for each dimension; dimension 0 varies fastest in node ids.
    pub dims: Vec<u32>,
    /// No wrap-around links.
    pub mesh: bool,
    /// Virtual channels per link, 1..=4.
    pub vcs: u32,
    /// Packets each VC buffer holds (whatever their size).
    pub buffer_packets: u32,
    /// Payload bytes per packet; the last packet of a message may be shorter.
    pub packet_bytes: u32,
    /// Link width: bits moved per cycle per link (also the injection and ejection rate).
    pub link_bits_per_cycle: u32,
    /// Router clock, used only to convert cycles to seconds.
    pub clock_hz: f64,
    /// Cycles from a packet's head reaching a router to the head being able to leave it.
    pub router_delay_cycles: u32,
    pub routing: Routing,
    /// Bubble flow control on every ring; `false` only to demonstrate deadlock.
    pub bubble: bool,
    /// Packets in the network and none moved for this many cycles → deadlock error.
    pub watchdog_cycles: u64,
    /// Largest message in packets ([`RouterConfig::max_message_packets`]).
    pub max_message_packets: u64,
}

impl Default for TorusConfig {
    /// INSEE §6.1's network: 8×8 torus, 64-byte packets, 4-packet buffers, 32-bit links.
    fn default() -> Self {
        TorusConfig {
            dims: vec![8, 8],
            mesh: false,
            vcs: 1,
            buffer_packets: 4,
            packet_bytes: 64,
            link_bits_per_cycle: 32,
            clock_hz: 1e9,
            router_delay_cycles: 1,
            routing: Routing::Dor,
            bubble: true,
            watchdog_cycles: 1_000_000,
            max_message_packets: crate::params::DEFAULT_MAX_MESSAGE_PACKETS,
        }
    }
}

impl TorusConfig {
    /// Every limit the model relies on; `Torus::new` refuses a config that fails it.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_shape()?;
        // Entering a ring needs two free slots, so a 1-packet buffer could never be entered.
        let (min_buf, why) = if self.bubble && !self.mesh {
            (2, " (a packet entering a ring needs 2 free slots under bubble flow control)")
        } else {
            (1, "")
        };
        let router = self.router();
        router.validate_router(min_buf, why)?;
        router.validate_clock()?;
        if self.state_bytes() > MAX_STATE_BYTES {
            return Err(ConfigError::State { mib: self.state_bytes() >> 20, limit_mib: MAX_STATE_BYTES >> 20 });
        }
        router.validate_watchdog()
    }

    /// The router and link keys, as the engine takes them.
    pub fn router(&self) -> RouterConfig {
        RouterConfig {
            vcs: self.vcs,
            buffer_packets: self.buffer_packets,
            packet_bytes: self.packet_bytes,
            link_bits_per_cycle: self.link_bits_per_cycle,
            clock_hz: self.clock_hz,
            router_delay_cycles: self.router_delay_cycles,
            watchdog_cycles: self.watchdog_cycles,
            max_message_packets: self.max_message_packets,
        }
    }

    fn validate_shape(&self) -> Result<(), ConfigError> {
        if self.dims.is_empty() || self.dims.len() > MAX_DIMS {
            return Err(ConfigError::Shape(format!(
                "dims must list 1 to {MAX_DIMS} dimensions, got {}",
                self.dims.len()
            )));
        }
        // Packets carry per-dimension hop counts as i16.
        if let Some(k) = self.dims.iter().find(|&&k| !(2..=32767).contains(&k)) {
            return Err(ConfigError::Shape(format!("every dimension needs 2 ≤ k ≤ 32767, got {k}")));
        }
        let nodes = self.dims.iter().try_fold(1u64, |acc, &k| acc.checked_mul(k as u64));
        match nodes {
            Some(n) if n <= MAX_NODES => Ok(()),
            _ => Err(ConfigError::Shape(format!(
                "at most {MAX_NODES} nodes are supported, dims {:?} has more",
                self.dims
            ))),
        }
    }

    /// Memory for the routers' state (VCs, ports, topology tables), before any packet is
    /// in flight: 24 bytes per VC (a buffer is a list through its packets, so B costs
    /// nothing here) plus about 110 + 60·n bytes per router.
    pub fn state_bytes(&self) -> u64 {
        let nodes = self.dims.iter().map(|&k| k as u64).product::<u64>();
        let n = self.dims.len() as u64;
        let ports = 2 * n;
        let vcs = ports * self.vcs as u64 * size_of::<Vc<Ports>>() as u64;
        // Outputs and their round-robin pointers; neighbour ids; coordinates.
        let outputs = (ports + 1) * (size_of::<Output>() as u64 + 1) + ports * 4 + 2 * n;
        let node = (size_of::<Node<Ports>>() + size_of::<VecDeque<u32>>()) as u64;
        nodes.saturating_mul(vcs + outputs + node)
    }

    /// Number of nodes (= routers).
    pub fn nodes(&self) -> u32 {
        self.dims.iter().map(|&k| k as u64).product::<u64>().min(u32::MAX as u64) as u32
    }

    /// Cycles a packet of `bytes` payload occupies a link: [`RouterConfig::phits`].
    pub fn phits(&self, bytes: u64) -> u64 {
        self.router().phits(bytes)
    }

    /// [`RouterConfig::packetise`].
    pub fn packetise(&self, bytes: u64) -> (u64, u64, u64) {
        self.router().packetise(bytes)
    }

    /// Packets a `bytes` message is cut into.
    pub fn packets(&self, bytes: u64) -> u64 {
        self.router().packets(bytes)
    }

    /// Zero-load delivery time (cycles after injection) of a `bytes` message over `hops`
    /// links: (h+1)·R + h + Σ Lᵢ ([`RouterConfig::zero_load_cycles`]). Exact for one
    /// packet; for several it holds while buffers do not throttle the stream, i.e.
    /// ⌈(R+1)/L⌉ ≤ B − 2 (docs/torus.md).
    pub fn zero_load_cycles(&self, hops: u32, bytes: u64) -> u64 {
        self.router().zero_load_cycles(hops, bytes)
    }

    /// Ideal throughput under uniform random traffic, in phits per node per cycle (one phit
    /// = one link cycle, so a link carries 1): the inverse of the busiest channel's load per
    /// unit of injection. Torus, k even: 8/k; mesh, k even: 4/k (bisection bound; odd k in
    /// docs/torus.md). The largest k decides; destinations include the source here, as in
    /// the textbook bound.
    pub fn uniform_capacity(&self) -> f64 {
        let worst = self.dims.iter().map(|&k| self.channel_load(k as f64)).fold(0.0, f64::max);
        if worst > 0.0 {
            1.0 / worst
        } else {
            1.0
        }
    }

    /// Load on the busiest channel of a ring (or line) of k per unit injection.
    fn channel_load(&self, k: f64) -> f64 {
        let even = (k as u64).is_multiple_of(2);
        match (self.mesh, even) {
            (false, true) => k / 8.0,
            (false, false) => (k * k - 1.0) / (8.0 * k),
            (true, true) => k / 4.0,
            (true, false) => (k * k - 1.0) / (4.0 * k),
        }
    }

    /// Cycles → seconds at `clock_hz`.
    pub fn cycles_to_seconds(&self, cycles: u64) -> f64 {
        self.router().cycles_to_seconds(cycles)
    }

    /// Cycles → picoseconds, rounded to nearest.
    pub fn cycles_to_ps(&self, cycles: u64) -> u64 {
        self.router().cycles_to_ps(cycles)
    }

    /// Picoseconds → the first cycle boundary at or after that instant
    /// ([`RouterConfig::ps_to_cycle`]).
    pub fn ps_to_cycle(&self, ps: u64) -> u64 {
        self.router().ps_to_cycle(ps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packetise_splits_last_packet() {
        let c = TorusConfig::default();
        assert_eq!(c.packetise(0), (0, 16, 1));
        assert_eq!(c.packetise(64), (1, 16, 0));
        assert_eq!(c.packetise(100), (1, 16, 9));
        assert_eq!(c.packets(129), 3);
    }

    #[test]
    fn picoseconds_round_trip_at_1_ghz() {
        let c = TorusConfig { clock_hz: 1e9, ..Default::default() };
        assert_eq!(c.cycles_to_ps(7), 7000);
        assert_eq!(c.ps_to_cycle(7000), 7);
        assert_eq!(c.ps_to_cycle(7001), 8);
        assert_eq!(c.ps_to_cycle(0), 0);
        let c = TorusConfig { clock_hz: 1.5e9, ..Default::default() };
        assert_eq!(c.ps_to_cycle(c.cycles_to_ps(1234)), 1234);
    }

    #[test]
    fn capacity_is_eight_over_k() {
        let c = TorusConfig { dims: vec![8, 8], ..Default::default() };
        assert!((c.uniform_capacity() - 1.0).abs() < 1e-12);
        let c = TorusConfig { dims: vec![16, 4], ..Default::default() };
        assert!((c.uniform_capacity() - 0.5).abs() < 1e-12);
        let m = TorusConfig { dims: vec![8, 8], mesh: true, ..Default::default() };
        assert!((m.uniform_capacity() - 0.5).abs() < 1e-12);
    }
}
