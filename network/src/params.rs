//! What every packet-level network shares whatever its topology: the router and link
//! parameters, their limits, and the arithmetic of packets, phits and cycles.

use crate::error::{ConfigError, MessageError};

/// Largest packet in phits: bounds the calendar's horizon and keeps per-hop arithmetic in
/// `u64` without overflow.
pub const MAX_PACKET_PHITS: u64 = 1 << 20;
/// Largest router delay in cycles.
pub const MAX_ROUTER_DELAY: u32 = 1 << 20;
/// Default of [`RouterConfig::max_message_packets`]: 2^24 packets (1 GiB of 64-byte packets).
/// The engine costs one event per packet-hop, and docs/performance.md measured 2 to 13 M
/// packet-hops per second: such a message over a few hops is simulated in seconds to a
/// minute, while a crafted u64::MAX-byte send would run for years.
pub const DEFAULT_MAX_MESSAGE_PACKETS: u64 = 1 << 24;

/// Routers, links and packets: each topology's configuration holds these keys beside its
/// own and hands them to the engine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RouterConfig {
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
    /// Packets in the network and none moved for this many cycles → deadlock error.
    pub watchdog_cycles: u64,
    /// Largest message, in packets, the network accepts: a bigger one is refused (an error
    /// naming its size and this limit) rather than simulated packet by packet for hours.
    pub max_message_packets: u64,
}

impl Default for RouterConfig {
    /// INSEE §6.1's router: 64-byte packets, 4-packet buffers, 32-bit links, 1 GHz.
    fn default() -> Self {
        RouterConfig {
            vcs: 1,
            buffer_packets: 4,
            packet_bytes: 64,
            link_bits_per_cycle: 32,
            clock_hz: 1e9,
            router_delay_cycles: 1,
            watchdog_cycles: 1_000_000,
            max_message_packets: DEFAULT_MAX_MESSAGE_PACKETS,
        }
    }
}

impl RouterConfig {
    /// The VC, buffer, packet, link and delay limits; `min_buffer` is the smallest buffer the
    /// topology's flow control works with, `why` says why when it is more than 1.
    pub fn validate_router(&self, min_buffer: u32, why: &str) -> Result<(), ConfigError> {
        if !(1..=4).contains(&self.vcs) {
            return Err(ConfigError::range("vcs", "1..=4", self.vcs));
        }
        if !(min_buffer..=255).contains(&self.buffer_packets) {
            return Err(ConfigError::range("buffer_packets", format!("{min_buffer}..=255{why}"), self.buffer_packets));
        }
        if self.packet_bytes == 0 {
            return Err(ConfigError::range("packet_bytes", "at least 1", 0));
        }
        if self.max_message_packets == 0 {
            return Err(ConfigError::range("max_message_packets", "at least 1", 0));
        }
        if self.link_bits_per_cycle == 0 {
            return Err(ConfigError::range("link_bits_per_cycle", "at least 1", 0));
        }
        if self.phits(self.packet_bytes as u64) > MAX_PACKET_PHITS {
            return Err(ConfigError::Shape(format!(
                "a packet may take at most {MAX_PACKET_PHITS} cycles on a link: packet_bytes = {} over link_bits_per_cycle = {} takes {}",
                self.packet_bytes,
                self.link_bits_per_cycle,
                self.phits(self.packet_bytes as u64)
            )));
        }
        if self.router_delay_cycles > MAX_ROUTER_DELAY {
            return Err(ConfigError::range(
                "router_delay_cycles",
                format!("at most {MAX_ROUTER_DELAY}"),
                self.router_delay_cycles,
            ));
        }
        Ok(())
    }

    /// The clock is a positive finite rate.
    pub fn validate_clock(&self) -> Result<(), ConfigError> {
        if !(self.clock_hz.is_finite() && self.clock_hz > 0.0) {
            return Err(ConfigError::range("clock_hz", "a positive finite number", self.clock_hz));
        }
        Ok(())
    }

    /// The watchdog outlasts one packet's hop, so a moving network never trips it.
    pub fn validate_watchdog(&self) -> Result<(), ConfigError> {
        let worst_hop = self.phits(self.packet_bytes as u64) + self.router_delay_cycles as u64 + 1;
        if self.watchdog_cycles <= worst_hop {
            return Err(ConfigError::range(
                "watchdog_cycles",
                format!("more than one packet's hop time ({worst_hop} cycles)"),
                self.watchdog_cycles,
            ));
        }
        Ok(())
    }

    /// Cycles a packet of `bytes` payload occupies a link: ⌈8·bytes / W⌉, at least 1 (a
    /// zero-byte message still sends one header-sized phit).
    pub fn phits(&self, bytes: u64) -> u64 {
        let w = self.link_bits_per_cycle.max(1) as u64;
        (bytes.saturating_mul(8).div_ceil(w)).max(1)
    }

    /// Link cycles of each packet of a `bytes` message, as (full packets, phits of a full
    /// packet, phits of the last shorter packet or 0).
    pub fn packetise(&self, bytes: u64) -> (u64, u64, u64) {
        let p = self.packet_bytes.max(1) as u64;
        if bytes <= p {
            // One packet (most messages of a synthetic run): no divisions.
            return if bytes == p { (1, self.phits(p), 0) } else { (0, self.phits(p), self.phits(bytes)) };
        }
        let full = bytes / p;
        let rest = bytes % p;
        let last = if rest > 0 || full == 0 { self.phits(rest) } else { 0 };
        (full, self.phits(p), last)
    }

    /// Packets a `bytes` message is cut into.
    pub fn packets(&self, bytes: u64) -> u64 {
        let p = self.packet_bytes.max(1) as u64;
        if bytes <= p {
            1
        } else {
            bytes.div_ceil(p)
        }
    }

    /// The largest message in bytes the network accepts: `max_message_packets` full packets.
    pub fn max_message_bytes(&self) -> u64 {
        self.max_message_packets.saturating_mul(self.packet_bytes.max(1) as u64)
    }

    /// Refuses a message of more than `max_message_packets` packets, saying why.
    pub fn check_message(&self, bytes: u64) -> Result<(), MessageError> {
        let packets = self.packets(bytes);
        if packets <= self.max_message_packets {
            return Ok(());
        }
        Err(MessageError::TooLarge {
            msg: None,
            bytes,
            packets,
            packet_bytes: self.packet_bytes,
            max: self.max_message_packets,
        })
    }

    /// Zero-load delivery time (cycles after injection) of a `bytes` message over `hops`
    /// links: (h+1)·R + h + Σ Lᵢ, Lᵢ the link cycles of packet i. Each of the h+1 routers
    /// adds R, each link adds 1 cycle for the head, and the packets stream back to back
    /// behind the head. Exact for one packet; for several it holds while buffers do not
    /// throttle the stream (docs/torus.md).
    pub fn zero_load_cycles(&self, hops: u32, bytes: u64) -> u64 {
        let (full, l_full, l_last) = self.packetise(bytes);
        let r = self.router_delay_cycles as u64;
        let h = hops as u64;
        (h + 1) * r + h + full.saturating_mul(l_full).saturating_add(l_last)
    }

    /// Cycles → seconds at `clock_hz`.
    pub fn cycles_to_seconds(&self, cycles: u64) -> f64 {
        cycles as f64 / self.clock_hz
    }

    /// Cycles → picoseconds, rounded to nearest.
    pub fn cycles_to_ps(&self, cycles: u64) -> u64 {
        (cycles as f64 * 1e12 / self.clock_hz).round() as u64
    }

    /// Picoseconds → the first cycle boundary at or after that instant (data ready
    /// mid-cycle waits for the next cycle). Instants within half a picosecond of a
    /// boundary count as on it, so `ps_to_cycle(cycles_to_ps(c)) == c`.
    pub fn ps_to_cycle(&self, ps: u64) -> u64 {
        ((ps as f64 - 0.5) * self.clock_hz / 1e12).ceil().max(0.0) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_over_the_packet_limit_are_refused() {
        let c = RouterConfig { max_message_packets: 4, ..Default::default() };
        assert_eq!(c.max_message_bytes(), 256);
        assert!(c.check_message(0).is_ok() && c.check_message(256).is_ok());
        let e = c.check_message(257).unwrap_err().to_string();
        assert!(e.contains("257 bytes is 5 packets of 64 bytes") && e.contains("max_message_packets = 4"), "{e}");
        let d = RouterConfig::default();
        assert!(d.check_message(u64::MAX).is_err());
        assert_eq!(d.max_message_bytes(), 1 << 30);
        let zero = RouterConfig { max_message_packets: 0, ..Default::default() };
        assert!(zero.validate_router(1, "").is_err());
        // The network refuses it before cutting a single packet, and takes the next message.
        let t = crate::TorusConfig { max_message_packets: 4, ..Default::default() };
        let mut net = crate::Torus::new(t).unwrap();
        let e = net.try_inject(9, 0, 1, 1 << 40, 0).unwrap_err().to_string();
        assert!(e.starts_with("message 9: a message of 1099511627776 bytes"), "{e}");
        net.try_inject(10, 0, 1, 256, 0).unwrap();
        assert_eq!(net.messages_in_flight(), 1);
    }
}
