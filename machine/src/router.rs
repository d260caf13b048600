//! The router and link keys the packet-level sections built on `RouterConfig` share
//! (`[network.fattree]`, `[network.dragonfly]`), resolved in one place. Each section keeps its
//! own fields — serde's `flatten` cannot be combined with `deny_unknown_fields`, which is what
//! names a mistyped key — and hands them over with [`router_keys!`].

use psins_network::RouterConfig;

/// A router key out of range.
#[derive(Debug, thiserror::Error)]
pub enum RouterError {
    #[error("{section} packet_bytes = {bytes} must be 1 to {}", u32::MAX)]
    PacketBytes { section: String, bytes: u64 },
}

/// The shared keys as read (None: the default).
pub struct RouterKeys {
    pub vcs: Option<u64>,
    pub buffer_packets: Option<u64>,
    pub packet_bytes: Option<u64>,
    pub link_bits_per_cycle: Option<u64>,
    pub clock_hz: Option<f64>,
    pub router_delay_cycles: Option<u64>,
    pub watchdog_cycles: Option<u64>,
    pub max_message_packets: Option<u64>,
}

/// A section's shared keys: any section struct with the fields of the same names.
macro_rules! router_keys {
    ($s:expr) => {
        $crate::router::RouterKeys {
            vcs: $s.vcs.map(|v| v.0),
            buffer_packets: $s.buffer_packets.map(|v| v.0),
            packet_bytes: $s.packet_bytes.map(|v| v.0),
            link_bits_per_cycle: $s.link_bits_per_cycle.map(|v| v.0),
            clock_hz: $s.clock.map(|f| f.0),
            router_delay_cycles: $s.router_delay_cycles.map(|v| v.0),
            watchdog_cycles: $s.watchdog_cycles.map(|v| v.0),
            max_message_packets: $s.max_message_packets.map(|v| v.0),
        }
    };
}
pub(crate) use router_keys;

/// A section struct with the router keys of `$r` (a `RouterConfig`) written out and the
/// section's own fields given: the way back of [`router_keys!`], for `psins-sim check`.
macro_rules! router_section {
    ($section:ident, $r:expr, { $($field:ident: $value:expr),* $(,)? }) => {{
        use $crate::torus::Bounded;
        let r = $r;
        $section {
            $($field: $value,)*
            vcs: Some(Bounded(r.vcs as u64)),
            buffer_packets: Some(Bounded(r.buffer_packets as u64)),
            packet_bytes: Some(psins_units::Bytes(r.packet_bytes as u64)),
            link_bits_per_cycle: Some(Bounded(r.link_bits_per_cycle as u64)),
            clock: Some(psins_units::Frequency(r.clock_hz)),
            router_delay_cycles: Some(Bounded(r.router_delay_cycles as u64)),
            watchdog_cycles: Some(Bounded(r.watchdog_cycles)),
            max_message_packets: Some(Bounded(r.max_message_packets)),
        }
    }};
}
pub(crate) use router_section;

impl RouterKeys {
    /// The keys over the defaults `d`; `section` names the section in errors. The bounded
    /// keys were range-checked when read; only `packet_bytes` (a size with units) is checked
    /// here.
    pub fn resolve(&self, section: &str, d: RouterConfig) -> Result<RouterConfig, RouterError> {
        let packet_bytes = match self.packet_bytes {
            Some(b) if b == 0 || b > u32::MAX as u64 => {
                return Err(RouterError::PacketBytes { section: section.into(), bytes: b })
            }
            Some(b) => b as u32,
            None => d.packet_bytes,
        };
        Ok(RouterConfig {
            vcs: self.vcs.map_or(d.vcs, |v| v as u32),
            buffer_packets: self.buffer_packets.map_or(d.buffer_packets, |v| v as u32),
            packet_bytes,
            link_bits_per_cycle: self.link_bits_per_cycle.map_or(d.link_bits_per_cycle, |v| v as u32),
            clock_hz: self.clock_hz.unwrap_or(d.clock_hz),
            router_delay_cycles: self.router_delay_cycles.map_or(d.router_delay_cycles, |v| v as u32),
            watchdog_cycles: self.watchdog_cycles.unwrap_or(d.watchdog_cycles),
            max_message_packets: self.max_message_packets.unwrap_or(d.max_message_packets),
        })
    }
}
