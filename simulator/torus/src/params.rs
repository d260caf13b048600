//! What every packet-level network shares whatever its topology: the router and link
//! parameters, their limits, and the arithmetic of packets, phits and cycles.

/// Largest packet in phits: bounds the calendar's horizon and keeps per-hop arithmetic in
/// `u64` without overflow.
pub const MAX_PACKET_PHITS: u64 = 1 << 20;
/// Largest router delay in cycles.
pub const MAX_ROUTER_DELAY: u32 = 1 << 20;

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
        }
    }
}

impl RouterConfig {
    /// The VC, buffer, packet, link and delay limits; `min_buffer` is the smallest buffer the
    /// topology's flow control works with, `why` says why when it is more than 1.
    pub fn validate_router(&self, min_buffer: u32, why: &str) -> Result<(), String> {
        if !(1..=4).contains(&self.vcs) {
            return Err(format!("vcs must be 1..=4, got {}", self.vcs));
        }
        if !(min_buffer..=255).contains(&self.buffer_packets) {
            return Err(format!("buffer_packets must be {min_buffer}..=255{why}, got {}", self.buffer_packets));
        }
        if self.packet_bytes == 0 {
            return Err("packet_bytes must be at least 1".into());
        }
        if self.link_bits_per_cycle == 0 {
            return Err("link_bits_per_cycle must be at least 1".into());
        }
        if self.phits(self.packet_bytes as u64) > MAX_PACKET_PHITS {
            return Err(format!("a packet may take at most {MAX_PACKET_PHITS} cycles on a link"));
        }
        if self.router_delay_cycles > MAX_ROUTER_DELAY {
            return Err(format!(
                "router_delay_cycles must be at most {MAX_ROUTER_DELAY}, got {}",
                self.router_delay_cycles
            ));
        }
        Ok(())
    }

    /// The clock is a positive finite rate.
    pub fn validate_clock(&self) -> Result<(), String> {
        if !(self.clock_hz.is_finite() && self.clock_hz > 0.0) {
            return Err(format!("clock_hz must be a positive finite number, not {}", self.clock_hz));
        }
        Ok(())
    }

    /// The watchdog outlasts one packet's hop, so a moving network never trips it.
    pub fn validate_watchdog(&self) -> Result<(), String> {
        let worst_hop = self.phits(self.packet_bytes as u64) + self.router_delay_cycles as u64 + 1;
        if self.watchdog_cycles <= worst_hop {
            return Err(format!(
                "watchdog_cycles ({}) must exceed one packet's hop time ({worst_hop} cycles)",
                self.watchdog_cycles
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
