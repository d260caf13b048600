//! Packet statistics: a fixed-size latency histogram and the counters behind
//! [`NetworkStats`].

use crate::fabric::{Fabric, NO_LINK};
use crate::network::Network;

/// Values below this are counted exactly.
const EXACT: u64 = 2048;
/// Sub-buckets per power of two above `EXACT`: relative error below 1/64.
const SUB_BITS: u32 = 6;
const FIRST_LOG: u32 = EXACT.trailing_zeros();
const BUCKETS: usize = EXACT as usize + (64 - FIRST_LOG as usize) * (1 << SUB_BITS);

/// Latencies in cycles; constant memory however many packets are recorded, which a replay
/// of millions of packets needs.
#[derive(Clone)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    sum: u128,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram { counts: vec![0; BUCKETS], total: 0, sum: 0, max: 0 }
    }
}

impl Histogram {
    #[inline]
    pub fn record(&mut self, v: u64) {
        self.counts[bucket_of(v)] += 1;
        self.total += 1;
        self.sum += v as u128;
        self.max = self.max.max(v);
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    pub fn mean(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.sum as f64 / self.total as f64
        }
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    /// The smallest recorded-bucket value with at least fraction `q` of samples at or
    /// below it: exact below 2048 cycles, within 1/64 above (never above the true max).
    pub fn percentile(&self, q: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return bucket_top(i).min(self.max);
            }
        }
        self.max
    }
}

fn bucket_of(v: u64) -> usize {
    if v < EXACT {
        return v as usize;
    }
    let log = 63 - v.leading_zeros();
    let sub = (v >> (log - SUB_BITS)) & ((1 << SUB_BITS) - 1);
    EXACT as usize + ((log - FIRST_LOG) as usize) * (1 << SUB_BITS) + sub as usize
}

/// Largest value falling in bucket i.
fn bucket_top(i: usize) -> u64 {
    if i < EXACT as usize {
        return i as u64;
    }
    let j = i - EXACT as usize;
    let log = FIRST_LOG + (j >> SUB_BITS) as u32;
    let sub = (j & ((1 << SUB_BITS) - 1)) as u64;
    let base = ((1u64 << SUB_BITS) + sub) << (log - SUB_BITS);
    base.saturating_add((1u64 << (log - SUB_BITS)) - 1)
}

/// Counters since the last reset; the network fills them as packets move.
#[derive(Clone, Default)]
pub struct Counters {
    /// First cycle of the statistics window.
    pub since: u64,
    pub messages_injected: u64,
    pub messages_delivered: u64,
    /// Packets that left their source queue into the network.
    pub packets_injected: u64,
    pub packets_delivered: u64,
    /// Link traversals (ejection not counted).
    pub packet_hops: u64,
    pub latency: Histogram,
    /// Of delivered packets: cycles waiting at a router beyond the router delay.
    pub blocked_cycles: u64,
    /// Of delivered packets: cycles in the source queue beyond the router delay.
    pub source_queue_cycles: u64,
    /// Of delivered packets: hops.
    pub delivered_hops: u64,
}

/// The network links' use at [`Network::now`] ([`Network::link_use`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkUse {
    /// Link-cycles busy before now, since the statistics window began.
    pub busy_cycles: u64,
    /// Links with a packet on them at now.
    pub busy_links: u64,
}

/// What the network did during the statistics window. Latencies are in cycles from the
/// packet's message being injected to the packet's tail leaving the ejection port.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkStats {
    /// Length of the window: from the last reset (or 0) to the last simulated cycle.
    pub cycles: u64,
    pub messages_injected: u64,
    pub messages_delivered: u64,
    pub packets_injected: u64,
    pub packets_delivered: u64,
    /// Packets currently between source queue and ejection.
    pub packets_in_network: u64,
    pub packet_hops: u64,
    pub avg_latency: f64,
    pub p99_latency: u64,
    pub max_latency: u64,
    pub avg_hops: f64,
    /// Σ over delivered packets of cycles spent waiting in routers (after the router delay),
    /// for a free output, room downstream, or the packets ahead in their VC.
    pub blocked_cycles: u64,
    /// Σ over delivered packets of cycles waiting in the source queue (after the router
    /// delay) — includes the serialisation of long messages.
    pub source_queue_cycles: u64,
    /// Per link class (torus: dimension): busy link-cycles / (links of the class × window),
    /// both directions.
    pub dim_utilisation: Vec<f64>,
    /// Busiest single link's busy fraction of the window.
    pub max_link_utilisation: f64,
}

impl<F: Fabric> Network<F> {
    /// Starts a new statistics window at the next cycle to simulate (after a warm-up).
    pub fn reset_stats(&mut self) {
        self.hops_before_reset += self.counters.packet_hops;
        self.counters = Counters { since: self.now, ..Counters::default() };
        self.out.iter_mut().for_each(|o| o.used = 0);
    }

    pub fn stats(&self) -> NetworkStats {
        let c = &self.counters;
        let cycles = self.now.saturating_sub(c.since);
        let (dim_utilisation, max_link_utilisation) = self.link_utilisation(cycles);
        NetworkStats {
            cycles,
            messages_injected: c.messages_injected,
            messages_delivered: c.messages_delivered,
            packets_injected: c.packets_injected,
            packets_delivered: c.packets_delivered,
            packets_in_network: self.in_network,
            packet_hops: c.packet_hops,
            avg_latency: c.latency.mean(),
            p99_latency: c.latency.percentile(0.99),
            max_latency: c.latency.max(),
            avg_hops: c.delivered_hops as f64 / c.packets_delivered.max(1) as f64,
            blocked_cycles: c.blocked_cycles,
            source_queue_cycles: c.source_queue_cycles,
            dim_utilisation,
            max_link_utilisation,
        }
    }

    /// The network links' (router to router, not ejection) use up to the earliest cycle not
    /// yet simulated, [`Network::now`]: link-cycles busy before it since the statistics
    /// window began, and links transmitting at it. A packet counts its link cycles when
    /// it is granted its output, which may be ahead of now, so the part at or after now is
    /// taken off: a link's packets follow each other, only its last can reach that far.
    ///
    /// For a caller sampling the load (psins-sim's timeline): the difference between two
    /// calls is the link-cycles between them. It reads every output, so it costs
    /// O(routers × ports) a call and the packets' path nothing.
    pub fn link_use(&self) -> LinkUse {
        let now = self.now;
        let mut u = LinkUse::default();
        // Missing links (mesh edges, unused switch ports) are never granted: they add 0.
        for links in self.out.chunks_exact(self.ports + 1) {
            for o in &links[..self.ports] {
                let ahead = o.busy_until.saturating_sub(now);
                u.busy_cycles += o.used.saturating_sub(ahead);
                u.busy_links += u64::from(ahead > 0);
            }
        }
        u
    }

    fn link_utilisation(&self, cycles: u64) -> (Vec<f64>, f64) {
        let n = self.fabric.link_classes();
        let (mut used, mut links) = (vec![0u64; n], vec![0u64; n]);
        let mut max = 0u64;
        for r in 0..self.fabric.routers() {
            for o in (0..self.ports).filter(|&o| self.fabric.neighbour(r as u32, o) != NO_LINK) {
                let u = self.out[r * (self.ports + 1) + o].used;
                let class = self.fabric.link_class(r as u32, o);
                used[class] += u;
                links[class] += 1;
                max = max.max(u);
            }
        }
        let span = cycles.max(1) as f64;
        let per_dim = used.iter().zip(&links).map(|(&u, &l)| (u as f64 / (l.max(1) as f64 * span)).min(1.0)).collect();
        (per_dim, (max as f64 / span).min(1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_is_exact_for_small_values() {
        let mut h = Histogram::default();
        for v in 1..=100 {
            h.record(v);
        }
        assert_eq!(h.percentile(0.99), 99);
        assert_eq!(h.percentile(0.5), 50);
        assert!((h.mean() - 50.5).abs() < 1e-9);
    }

    #[test]
    fn histogram_large_values_within_one_64th() {
        for v in [2048u64, 5000, 123_456, 1 << 40, u64::MAX / 3] {
            let top = bucket_top(bucket_of(v));
            assert!(top >= v && (top - v) as f64 <= v as f64 / 64.0, "{v} -> {top}");
        }
        assert!(bucket_of(u64::MAX) < BUCKETS);
    }
}
