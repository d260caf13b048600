//! Which output ports bring a packet closer to its destination.
//!
//! Each packet carries a routing record (as FSIN's packets do): the signed number of hops
//! still to go in every dimension. Routing decisions read the record, not coordinates, and
//! a hop updates one entry, so a decision costs a short scan and no table lookups. Since
//! the record depends only on where the packet is, a packet that moves between adaptive
//! and escape channels is always routed from its current position.

use crate::config::MAX_DIMS;
use crate::topology::Topology;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RouteRecord {
    /// Hops left per dimension: > 0 going +, < 0 going −, 0 done.
    off: [i16; MAX_DIMS],
    /// Bit d: dimension d is exactly half a torus ring away, so both directions are
    /// minimal; `off[d]` then holds the + distance until the packet commits to one.
    tie: u8,
    /// The DOR output, kept up to date by `step` (asked for far more often than changed);
    /// `NONE` at the destination.
    dor: u8,
    /// `profitable()`, kept up to date by `step` like `dor` (it fills the packet's cache
    /// line exactly).
    prof: u16,
}

const NONE: u8 = u8::MAX;

impl RouteRecord {
    /// The record of a packet at `src` bound for `dst` (k ≤ 32767 keeps offsets in i16).
    pub fn new(topo: &Topology, src: u32, dst: u32) -> RouteRecord {
        let mut rec = RouteRecord::default();
        let pairs = topo.coord_slice(src).iter().zip(topo.coord_slice(dst));
        for (d, ((&x, &y), off)) in pairs.zip(rec.off.iter_mut()).enumerate() {
            let (hops, plus, minus) = topo.ring_distance(d, x as u32, y as u32);
            *off = if plus { hops as i16 } else { -(hops as i16) };
            rec.tie |= u8::from(plus && minus) << d;
        }
        rec.dor = rec.first_port_from(0);
        rec.prof = (0..MAX_DIMS).fold(0, |mask, d| mask | rec.dim_profitable(d));
        rec
    }

    fn first_port_from(&self, d0: usize) -> u8 {
        (d0..MAX_DIMS).find(|&d| self.off[d] != 0).map_or(NONE, |d| (2 * d + usize::from(self.off[d] < 0)) as u8)
    }

    /// The dimension-order output: the lowest dimension still to correct, in its shortest
    /// direction, + on a tie (so DOR paths are unique); None at the destination.
    #[inline]
    pub fn dor(&self) -> Option<usize> {
        (self.dor != NONE).then_some(self.dor as usize)
    }

    /// Bit o set when output port o lies on some minimal path.
    #[inline]
    pub fn profitable(&self) -> u32 {
        self.prof as u32
    }

    /// The profitable bits of dimension d's two ports.
    #[inline]
    fn dim_profitable(&self, d: usize) -> u16 {
        let (off, both) = (self.off[d], self.tie & 1 << d != 0);
        u16::from(off > 0) << (2 * d) | u16::from(off < 0 || both) << (2 * d + 1)
    }

    /// One hop through output port o (which must be profitable).
    #[inline]
    pub fn step(&mut self, o: usize) {
        let d = o / 2;
        let mut off = self.off[d];
        if self.tie & 1 << d != 0 {
            self.tie &= !(1 << d);
            if o % 2 == 1 {
                off = -off;
            }
        }
        off += if o.is_multiple_of(2) { -1 } else { 1 };
        self.off[d] = off;
        // The step resolved any tie in d: its profitable bits follow from the sign alone.
        self.prof = self.prof & !(0b11 << (2 * d)) | (u16::from(off > 0) | u16::from(off < 0) << 1) << (2 * d);
        // Minimal steps never touch a finished dimension, so only a step in the DOR
        // dimension changes the DOR output: its direction (a tie resolved), or, once
        // the dimension is done, the next dimension.
        if d == self.dor as usize / 2 {
            self.dor = if off != 0 { (2 * d + usize::from(off < 0)) as u8 } else { self.first_port_from(d + 1) };
        }
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
        assert_eq!(rec.dor(), Some(1)); // x: 0→6 is 2 hops going −
        rec.step(1);
        rec.step(1);
        assert_eq!(rec.dor(), Some(2));
        assert_eq!(RouteRecord::new(&t, dst, dst).dor(), None);
    }

    #[test]
    fn a_halved_ring_offers_both_ways_until_committed() {
        let t = Topology::new(&[8, 8], false);
        let mut rec = RouteRecord::new(&t, 0, t.node_at(&[4, 1]));
        assert_eq!(rec.profitable(), 0b0111);
        rec.step(1); // went − along x: now 3 hops − to go
        assert_eq!(rec.profitable(), 0b0110);
        assert_eq!(rec.off[0], -3);
        let m = Topology::new(&[8, 8], true);
        assert_eq!(RouteRecord::new(&m, 0, m.node_at(&[4, 1])).profitable(), 0b0101);
    }
}
