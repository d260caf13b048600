//! The cost of one point-to-point message on one kind of path (inter-node network or
//! intra-node memory): LogGP per size band, the shape SimGrid's SMPI gives its piecewise
//! `smpi/os`, `smpi/or` and latency/bandwidth factors.
//!
//! A message of S bytes falls in the first band whose `upto` is ≥ S. In that band:
//! - the sender's CPU is busy `o_s(S) = send.fixed + S × send.per_byte` before the data leaves
//!   (the eager copy into the transport, or posting a rendezvous request);
//! - the wire takes `latency + S × per_byte` (per_byte = 1 / bandwidth);
//! - the receive completes `o_r(S) = recv.fixed + S × recv.per_byte` after the data is there
//!   (matching, copying out);
//! - a *crossing* message — posted while one from its destination back to its source is
//!   still on its way — costs its sender `x(S) = cross.fixed + S × cross.per_byte` more
//!   (0: the two directions are independent). TCP over loopback is the case: both
//!   directions' kernel work meets on the same CPUs and socket locks, so an exchange costs
//!   clearly more than a one-way message, though a ping-pong's messages never cross.
//!
//! Control messages (rendezvous request-to-send and clear-to-send, synchronous
//! acknowledgements) take [`Link::latency`], the 0-byte latency. A link written with only
//! `latency` and `bandwidth` is one band with no overheads, as before bands existed.

use psins_units::Ps;

/// Most bands a link may have: enough for a calibration's size classes, small enough that a
/// [`Link`] stays `Copy` and the lookup is a short scan on the replay's hot path.
pub const MAX_BANDS: usize = 8;

/// A CPU cost that grows with the message: `fixed + bytes × per_byte`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Overhead {
    pub fixed: Ps,
    /// Picoseconds per byte.
    pub per_byte: f64,
}

impl Overhead {
    #[inline]
    pub fn at(&self, bytes: u64) -> Ps {
        if self.per_byte == 0.0 {
            return self.fixed;
        }
        self.fixed + (bytes as f64 * self.per_byte + 0.5) as Ps
    }
}

/// The costs of messages up to `upto` bytes (and above the previous band's `upto`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Band {
    /// Largest message in the band, inclusive; `u64::MAX` for the last band.
    pub upto: u64,
    pub latency: Ps,
    /// Bytes per second on the wire.
    pub bandwidth: f64,
    pub send: Overhead,
    pub recv: Overhead,
    /// x(S): the extra sender time of a crossing message (0: directions independent).
    pub cross: Overhead,
    /// Intra-node bands: the node's copy bandwidth, bytes per second, for copies of this
    /// band's sizes (0: the machine's `memory_bandwidth`).
    pub memory: f64,
    /// Intra-node bands: the receiving rank makes this band's copies one at a time (its one
    /// thread copies each incoming message out in turn), so two arriving together take twice
    /// as long as one.
    pub serial: bool,
}

impl Band {
    /// Picoseconds per byte on the wire.
    #[inline]
    fn ps_per_byte(&self) -> f64 {
        1e12 / self.bandwidth
    }
}

/// Bands that do not make a link.
#[derive(Debug, thiserror::Error)]
pub enum BandsError {
    #[error("a link needs 1 to {MAX_BANDS} bands, got {0}")]
    Count(usize),
    #[error("bands must be in increasing order of `upto`")]
    Order,
    #[error("the last band must have no `upto` (it covers every larger message)")]
    LastBounded,
    #[error("band up to {upto} bytes: bandwidth must be positive")]
    Bandwidth { upto: u64 },
    #[error("band up to {upto} bytes: memory_bandwidth must be positive")]
    Memory { upto: u64 },
}

/// One kind of path: the control latency plus up to [`MAX_BANDS`] size bands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// Latency of control messages: the 0-byte latency.
    pub latency: Ps,
    /// Nominal bandwidth (the largest band's), for models that need one figure.
    pub bandwidth: f64,
    bands: [Band; MAX_BANDS],
    len: u8,
}

impl Link {
    /// One band, no overheads: `latency + bytes / bandwidth` for every size.
    pub fn new(latency: Ps, bandwidth: f64) -> Link {
        let band = Band {
            upto: u64::MAX,
            latency,
            bandwidth,
            send: Overhead::default(),
            recv: Overhead::default(),
            cross: Overhead::default(),
            memory: 0.0,
            serial: false,
        };
        Link::with_bands(latency, &[band]).expect("one unbounded band is valid")
    }

    /// Bands in increasing `upto`, the last one unbounded. `latency` is the control latency.
    pub fn with_bands(latency: Ps, bands: &[Band]) -> Result<Link, BandsError> {
        if bands.is_empty() || bands.len() > MAX_BANDS {
            return Err(BandsError::Count(bands.len()));
        }
        if bands.windows(2).any(|w| w[0].upto >= w[1].upto) {
            return Err(BandsError::Order);
        }
        if bands.last().map(|b| b.upto) != Some(u64::MAX) {
            return Err(BandsError::LastBounded);
        }
        if let Some(b) = bands.iter().find(|b| !(b.bandwidth.is_finite() && b.bandwidth > 0.0)) {
            return Err(BandsError::Bandwidth { upto: b.upto });
        }
        if let Some(b) = bands.iter().find(|b| !(b.memory.is_finite() && b.memory >= 0.0)) {
            return Err(BandsError::Memory { upto: b.upto });
        }
        let mut arr = [bands[0]; MAX_BANDS];
        arr[..bands.len()].copy_from_slice(bands);
        let bandwidth = bands[bands.len() - 1].bandwidth;
        Ok(Link { latency, bandwidth, bands: arr, len: bands.len() as u8 })
    }

    /// The largest message whose every cost on this link — wire time, o_s, o_r — stays
    /// below `limit` picoseconds: the worst band's fixed part plus S times its worst rate
    /// bounds them all. The engine refuses larger messages, whose time sums would overflow.
    pub fn max_bytes_within(&self, limit: Ps) -> u64 {
        let bands = self.bands();
        let fixed = bands.iter().map(|b| b.latency.max(b.send.fixed).max(b.recv.fixed)).max().unwrap_or(0);
        let rate = bands.iter().map(|b| b.ps_per_byte().max(b.send.per_byte).max(b.recv.per_byte)).fold(0.0, f64::max);
        if fixed >= limit {
            return 0;
        }
        // A relative margin far above f64's rounding (the quotient may round up past the exact
        // bound); f64 → u64 truncates and saturates.
        ((limit - fixed) as f64 / rate * (1.0 - 1e-12)) as u64
    }

    pub fn bands(&self) -> &[Band] {
        &self.bands[..self.len as usize]
    }

    /// True when the link is one band without overheads (written as latency and bandwidth only).
    pub fn is_plain(&self) -> bool {
        let b = &self.bands[0];
        self.len == 1
            && b.send == Overhead::default()
            && b.recv == Overhead::default()
            && b.cross == Overhead::default()
            && b.latency == self.latency
    }

    #[inline]
    fn band(&self, bytes: u64) -> &Band {
        // The last band is unbounded, so the scan always stops inside the array.
        let mut i = 0;
        while bytes > self.bands[i].upto {
            i += 1;
        }
        &self.bands[i]
    }

    /// Picoseconds to serialise `bytes` at its band's bandwidth.
    #[inline]
    pub fn transfer(&self, bytes: u64) -> Ps {
        // +0.5 and truncate: round-half-up without a libm call on the hot path.
        (bytes as f64 * self.band(bytes).ps_per_byte() + 0.5) as Ps
    }

    /// Wire latency of a message of `bytes` (its band's).
    #[inline]
    pub fn wire_latency(&self, bytes: u64) -> Ps {
        self.band(bytes).latency
    }

    /// The node's copy bandwidth (bytes per second) for a copy of `bytes`, where its band
    /// sets one.
    #[inline]
    pub fn memory_bandwidth(&self, bytes: u64) -> Option<f64> {
        let m = self.band(bytes).memory;
        (m > 0.0).then_some(m)
    }

    /// Whether the receiver makes the copies of `bytes`'s band one at a time.
    pub fn serial_receive(&self, bytes: u64) -> bool {
        self.band(bytes).serial
    }

    /// Whether any band's copies are made one at a time by their receiver.
    pub fn sets_serial(&self) -> bool {
        self.bands().iter().any(|b| b.serial)
    }

    /// The same costs with no band's node copy bandwidth: a rank's messages to itself, which
    /// copy nothing between processes, take the intra-node bands where no `[self]` is given.
    pub fn without_memory(mut self) -> Link {
        self.bands.iter_mut().for_each(|b| {
            b.memory = 0.0;
            b.serial = false;
        });
        self
    }

    /// Whether any band sets the node's copy bandwidth.
    pub fn sets_memory(&self) -> bool {
        self.bands().iter().any(|b| b.memory > 0.0)
    }

    /// Latency plus transfer: the uncontended delivery delay once the data has left.
    #[inline]
    pub fn delay(&self, bytes: u64) -> Ps {
        let b = self.band(bytes);
        b.latency + (bytes as f64 * b.ps_per_byte() + 0.5) as Ps
    }

    /// o_s: the sender's CPU time before the data of a `bytes` message leaves.
    #[inline]
    pub fn send_overhead(&self, bytes: u64) -> Ps {
        self.band(bytes).send.at(bytes)
    }

    /// o_r: the receiver's CPU time after the data of a `bytes` message is there.
    #[inline]
    pub fn recv_overhead(&self, bytes: u64) -> Ps {
        self.band(bytes).recv.at(bytes)
    }

    /// (o_s, o_r) of a `bytes` message: both from one band lookup (every send needs both).
    #[inline]
    pub fn overheads(&self, bytes: u64) -> (Ps, Ps) {
        let b = self.band(bytes);
        (b.send.at(bytes), b.recv.at(bytes))
    }

    /// x: the extra sender time of a crossing `bytes` message.
    #[inline]
    pub fn cross_overhead(&self, bytes: u64) -> Ps {
        self.band(bytes).cross.at(bytes)
    }

    /// True if some band charges crossing messages (the engine then tracks the pairs).
    pub fn has_crossing(&self) -> bool {
        self.bands().iter().any(|b| b.cross != Overhead::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn band(upto: u64, latency: Ps, gbps: f64, os: Ps, or: Ps) -> Band {
        Band {
            upto,
            latency,
            bandwidth: gbps * 1e9,
            send: Overhead { fixed: os, per_byte: 0.0 },
            recv: Overhead { fixed: or, per_byte: 0.0 },
            cross: Overhead::default(),
            memory: 0.0,
            serial: false,
        }
    }

    #[test]
    fn the_size_limit_keeps_every_cost_below_the_bound() {
        let l = Link::new(1_000_000, 1e9); // 1000 ps per byte
                                           // Below the exact bound, by a hair: (2^61 - latency) / 1000 ps per byte.
        let near = |got: u64, exact: u64| got <= exact && got >= exact - exact / 100_000_000_000;
        let max = l.max_bytes_within(1 << 61);
        assert!(near(max, ((1u64 << 61) - 1_000_000) / 1000), "{max}");
        assert!(l.delay(max) < 1 << 61 && l.delay(max + 100_000) >= 1 << 61);
        // A fast small band with a 2 us o_s; a slow last band: 1 MB/s, 1e6 ps per byte.
        let slow = band(u64::MAX, 5, 1e-3, 7, 0);
        let banded = Link::with_bands(5, &[band(100, 5, 1.0, 2_000_000, 0), slow]).unwrap();
        let max = banded.max_bytes_within(1 << 61);
        assert!(near(max, ((1u64 << 61) - 2_000_000) / 1_000_000), "{max}");
        assert_eq!(Link::new(1 << 62, 1e9).max_bytes_within(1 << 61), 0);
    }

    #[test]
    fn plain_link_is_latency_plus_size_over_bandwidth() {
        let l = Link::new(1_000_000, 1e9); // 1 us, 1 GB/s: 1000 ps per byte
        assert_eq!(l.delay(0), 1_000_000);
        assert_eq!(l.delay(1000), 2_000_000);
        assert_eq!(l.send_overhead(1 << 20), 0);
        assert!(l.is_plain());
    }

    #[test]
    fn sizes_pick_their_band_at_inclusive_bounds() {
        // 0..=1024 B: 1 us, 1 GB/s, o_s 100 ns; above: 5 us, 10 GB/s, o_s 1 us.
        let l = Link::with_bands(
            1_000_000,
            &[band(1024, 1_000_000, 1.0, 100_000, 50_000), band(u64::MAX, 5_000_000, 10.0, 1_000_000, 0)],
        )
        .unwrap();
        assert_eq!(l.delay(1024), 1_000_000 + 1_024_000);
        assert_eq!(l.delay(1025), 5_000_000 + 102_500);
        assert_eq!(l.send_overhead(1024), 100_000);
        assert_eq!(l.send_overhead(1025), 1_000_000);
        assert_eq!(l.recv_overhead(10), 50_000);
        assert_eq!(l.bandwidth, 10e9);
        assert!(!l.is_plain());
    }

    #[test]
    fn overhead_grows_per_byte() {
        let o = Overhead { fixed: 200_000, per_byte: 100.0 }; // 0.2 us + 0.1 ns/B
        assert_eq!(o.at(0), 200_000);
        assert_eq!(o.at(1000), 300_000);
    }

    #[test]
    fn malformed_bands_are_refused() {
        let b = band(u64::MAX, 0, 1.0, 0, 0);
        assert!(Link::with_bands(0, &[]).is_err());
        assert!(Link::with_bands(0, &[band(10, 0, 1.0, 0, 0)]).is_err(), "last band bounded");
        assert!(Link::with_bands(0, &[band(10, 0, 1.0, 0, 0), band(10, 0, 1.0, 0, 0), b]).is_err());
        assert!(Link::with_bands(0, &[band(u64::MAX, 0, 0.0, 0, 0)]).is_err());
    }
}
