//! Which output ports bring a packet closer to its destination.
//!
//! Each packet carries a routing record (as FSIN's packets do): the signed number of hops
//! still to go in every dimension. Routing decisions read the record, not coordinates, and
//! a hop updates one entry, so a decision costs a short scan and no table lookups. Since
//! the record depends only on where the packet is, a packet that moves between adaptive
//! and escape channels is always routed from its current position.

use super::config::MAX_DIMS;
use super::topology::Topology;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouteRecord {
    /// Hops left per dimension: > 0 going +, < 0 going −, 0 done. A dimension exactly half
    /// a torus ring away holds the + distance until the packet commits to a direction.
    off: [i16; MAX_DIMS],
    prof: Ports,
}

/// The output ports on a minimal path from where a packet is: all a routing decision
/// needs, small enough for a VC to keep a copy for its head packet.
///
/// Bit o is set when output port o lies on some minimal path (both bits of a halved
/// dimension). It also gives the DOR output: the lowest dimension still to correct is the
/// lowest with a bit set, and its lower bit is + (the way a tie goes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ports(u16);

impl Ports {
    /// The dimension-order output: the lowest dimension still to correct, in its shortest
    /// direction, + on a tie (so DOR paths are unique); None at the destination.
    #[inline]
    pub fn dor(self) -> Option<usize> {
        (self.0 != 0).then_some(self.0.trailing_zeros() as usize)
    }

    /// Bit o set when output port o lies on some minimal path.
    #[inline]
    pub fn profitable(self) -> u32 {
        self.0 as u32
    }
}

impl RouteRecord {
    /// The record of a packet at `src` bound for `dst` (k ≤ 32767 keeps offsets in i16).
    #[inline]
    pub fn new(topo: &Topology, src: u32, dst: u32) -> RouteRecord {
        let (from, to) = (topo.coord_slice(src), topo.coord_slice(dst));
        let (mut off, mut prof) = ([0i16; MAX_DIMS], 0u16);
        // A fixed trip count lets the record be built in registers and stored whole: the
        // packet copies it right away, and a wide load of many narrow stores stalls.
        for (d, off) in off.iter_mut().enumerate() {
            if let (Some(&x), Some(&y)) = (from.get(d), to.get(d)) {
                let (hops, plus, minus) = topo.ring_distance(d, x as u32, y as u32);
                *off = if plus { hops as i16 } else { -(hops as i16) };
                prof |= (u16::from(plus) | u16::from(minus) << 1) << (2 * d);
            }
        }
        RouteRecord { off, prof: Ports(prof) }
    }

    /// Where the packet may go next.
    #[inline]
    pub fn ports(&self) -> Ports {
        self.prof
    }

    /// One hop through output port o (which must be profitable). It commits a halved
    /// dimension to o's direction (k/2 hops either way, so the count is the same), and
    /// leaves o the dimension's only profitable port until the dimension is done.
    #[inline]
    pub fn step(&mut self, o: usize) {
        let d = o / 2;
        let left = self.off[d].unsigned_abs() - 1;
        self.off[d] = if o.is_multiple_of(2) { left as i16 } else { -(left as i16) };
        self.prof.0 = self.prof.0 & !(0b11 << (2 * d)) | u16::from(left != 0) << o;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dor_corrects_x_first() {
        let t = Topology::new(&[8, 8], false);
        let dst = t.node_at(&[6, 3]);
        let mut rec = RouteRecord::new(&t, 0, dst);
        assert_eq!(rec.ports().dor(), Some(1)); // x: 0→6 is 2 hops going −
        rec.step(1);
        rec.step(1);
        assert_eq!(rec.ports().dor(), Some(2));
        assert_eq!(RouteRecord::new(&t, dst, dst).ports().dor(), None);
    }

    #[test]
    fn a_halved_ring_offers_both_ways_until_committed() {
        let t = Topology::new(&[8, 8], false);
        let mut rec = RouteRecord::new(&t, 0, t.node_at(&[4, 1]));
        assert_eq!(rec.ports().profitable(), 0b0111);
        rec.step(1); // went − along x: now 3 hops − to go
        assert_eq!(rec.ports().profitable(), 0b0110);
        assert_eq!(rec.off[0], -3);
        let m = Topology::new(&[8, 8], true);
        assert_eq!(RouteRecord::new(&m, 0, m.node_at(&[4, 1])).ports().profitable(), 0b0101);
    }
}
