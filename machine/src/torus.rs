//! `[network.torus]`: the packet-level torus model's keys. Per-key checks (ranges, units,
//! the dims syntax) happen while deserialising, so their errors carry the line; checks that
//! involve several keys (bubbles need two-packet buffers, the watchdog must outlast a hop,
//! the node count) come after, naming the keys.

use psins_network::{Routing, TorusConfig, MAX_DIMS};
use psins_units::Bytes;
use psins_units::Frequency;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Debug, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct TorusSection {
    /// k per dimension, dimension 0 first: `[8, 8]` or `"8x8"`.
    pub dims: Option<Dims>,
    /// No wrap-around links.
    pub mesh: Option<bool>,
    pub vcs: Option<Bounded<1, 4>>,
    /// Packets per VC buffer (B).
    pub buffer_packets: Option<Bounded<1, 255>>,
    /// Payload bytes per packet (P).
    pub packet_bytes: Option<Bytes>,
    /// Link width (W).
    pub link_bits_per_cycle: Option<Bounded<1, { u32::MAX as u64 }>>,
    /// Router clock: converts cycles to the engine's picoseconds.
    pub clock: Option<Frequency>,
    /// Router delay (R).
    pub router_delay_cycles: Option<Bounded<0, { 1 << 20 }>>,
    pub routing: Option<RoutingKey>,
    /// Bubble flow control; `false` is a debug switch that lets rings deadlock.
    pub bubble: Option<bool>,
    pub watchdog_cycles: Option<Bounded<1, { i64::MAX as u64 }>>,
    /// Largest message in packets; a bigger one is an error naming its record.
    pub max_message_packets: Option<Bounded<1, { i64::MAX as u64 }>>,
}

#[derive(Debug, Serialize, Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum RoutingKey {
    Dor,
    Adaptive,
}

/// An integer key with its allowed range, checked where it is read (so the error has a line).
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(transparent)]
pub struct Bounded<const LO: u64, const HI: u64>(pub u64);

impl<'de, const LO: u64, const HI: u64> Deserialize<'de> for Bounded<LO, HI> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = i64::deserialize(d)?;
        match u64::try_from(v) {
            Ok(u) if (LO..=HI).contains(&u) => Ok(Bounded(u)),
            _ => Err(de::Error::custom(format!("{v} is out of range: expected {LO} to {HI}"))),
        }
    }
}

/// Torus extents, written `[8, 8]` or `"8x8"` (written back as `"8x8"`).
#[derive(Debug, Clone)]
pub struct Dims(pub Vec<u32>);

impl Serialize for Dims {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&dims_text(&self.0))
    }
}

impl<'de> Deserialize<'de> for Dims {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Dims;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("torus dims such as [8, 8] or \"8x8\"")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Dims, E> {
                let ks: Result<Vec<i64>, _> = s.split(['x', 'X']).map(|k| k.trim().parse::<i64>()).collect();
                let ks = ks.map_err(|_| E::custom(format!("`{s}`: expected k per dimension like \"8x8\"")))?;
                check_dims(&ks).map(Dims).map_err(E::custom)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Dims, A::Error> {
                let mut ks = Vec::new();
                while let Some(k) = seq.next_element::<i64>()? {
                    ks.push(k);
                }
                check_dims(&ks).map(Dims).map_err(de::Error::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// A `[network.torus]` section that does not make a torus.
#[derive(Debug, thiserror::Error)]
pub enum TorusError {
    #[error("a torus has 1 to {MAX_DIMS} dimensions, not {0}")]
    DimCount(usize),
    #[error("every dimension needs 2 ≤ k ≤ 32767, not {0}")]
    Dim(i64),
    #[error("[network.torus] packet_bytes = {0} must be 1 to {}", u32::MAX)]
    PacketBytes(u64),
    #[error("[network.torus] {0}")]
    Invalid(#[source] psins_network::ConfigError),
}

fn check_dims(ks: &[i64]) -> Result<Vec<u32>, TorusError> {
    if ks.is_empty() || ks.len() > MAX_DIMS {
        return Err(TorusError::DimCount(ks.len()));
    }
    ks.iter()
        .map(|&k| match u32::try_from(k) {
            Ok(k) if (2..=32767).contains(&k) => Ok(k),
            _ => Err(TorusError::Dim(k)),
        })
        .collect()
}

/// The model's parameters from the section (defaults: `TorusConfig::default()`, INSEE's 8×8),
/// checked as a whole.
pub fn resolve(s: &TorusSection) -> Result<TorusConfig, TorusError> {
    let d = TorusConfig::default();
    let packet_bytes = match s.packet_bytes {
        Some(Bytes(b)) if b == 0 || b > u32::MAX as u64 => return Err(TorusError::PacketBytes(b)),
        Some(Bytes(b)) => b as u32,
        None => d.packet_bytes,
    };
    let cfg = TorusConfig {
        dims: s.dims.as_ref().map(|x| x.0.clone()).unwrap_or(d.dims),
        mesh: s.mesh.unwrap_or(d.mesh),
        vcs: s.vcs.map_or(d.vcs, |v| v.0 as u32),
        buffer_packets: s.buffer_packets.map_or(d.buffer_packets, |v| v.0 as u32),
        packet_bytes,
        link_bits_per_cycle: s.link_bits_per_cycle.map_or(d.link_bits_per_cycle, |v| v.0 as u32),
        clock_hz: s.clock.map_or(d.clock_hz, |f| f.0),
        router_delay_cycles: s.router_delay_cycles.map_or(d.router_delay_cycles, |v| v.0 as u32),
        routing: match s.routing {
            Some(RoutingKey::Adaptive) => Routing::Adaptive,
            Some(RoutingKey::Dor) => Routing::Dor,
            None => d.routing,
        },
        bubble: s.bubble.unwrap_or(d.bubble),
        watchdog_cycles: s.watchdog_cycles.map_or(d.watchdog_cycles, |v| v.0),
        max_message_packets: s.max_message_packets.map_or(d.max_message_packets, |v| v.0),
    };
    cfg.validate().map_err(TorusError::Invalid)?;
    Ok(cfg)
}

/// `8x8`.
pub fn dims_text(dims: &[u32]) -> String {
    dims.iter().map(u32::to_string).collect::<Vec<_>>().join("x")
}

/// The section as the file would give it, every default written out.
pub fn section(c: &TorusConfig) -> TorusSection {
    TorusSection {
        dims: Some(Dims(c.dims.clone())),
        mesh: Some(c.mesh),
        vcs: Some(Bounded(c.vcs as u64)),
        buffer_packets: Some(Bounded(c.buffer_packets as u64)),
        packet_bytes: Some(Bytes(c.packet_bytes as u64)),
        link_bits_per_cycle: Some(Bounded(c.link_bits_per_cycle as u64)),
        clock: Some(Frequency(c.clock_hz)),
        router_delay_cycles: Some(Bounded(c.router_delay_cycles as u64)),
        routing: Some(match c.routing {
            Routing::Dor => RoutingKey::Dor,
            Routing::Adaptive => RoutingKey::Adaptive,
        }),
        bubble: Some(c.bubble),
        watchdog_cycles: Some(Bounded(c.watchdog_cycles)),
        max_message_packets: Some(Bounded(c.max_message_packets)),
    }
}

/// The design's derived figures, for a comment.
pub fn summary(c: &TorusConfig) -> String {
    format!(
        "{} routers; a full packet holds a link {} cycles; one packet over h hops takes {} + {}·h cycles at zero load; uniform capacity {:.4} phits/node/cycle; router state {}",
        c.nodes(),
        c.phits(c.packet_bytes as u64),
        c.zero_load_cycles(0, c.packet_bytes as u64),
        c.router_delay_cycles + 1,
        c.uniform_capacity(),
        fmt_size(c.state_bytes())
    )
}

fn fmt_size(b: u64) -> String {
    if b >= 1 << 20 {
        format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64)
    } else {
        format!("{:.1} KiB", b as f64 / 1024.0)
    }
}
