//! Synthetic traffic patterns (TrGen's spatial distributions): who sends to whom.

use super::rng::Rng;
use crate::topology::{Topology, NO_LINK};

#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    /// Any other node, uniformly.
    Uniform,
    /// Coordinates reversed: (x, y, z) → (z, y, x). Needs a symmetric shape (k_i = k_{n−1−i}).
    Transpose,
    /// Node id with its bits reversed. Needs a power-of-two node count.
    BitReversal,
    /// With probability `fraction` to `node`, otherwise uniform.
    Hotspot { node: u32, fraction: f64 },
    /// One of the node's direct neighbours, uniformly.
    Neighbour,
}

impl Pattern {
    /// `uniform`, `transpose`, `bit-reversal`, `neighbour`, `hotspot` (10 % to node 0), or
    /// `hotspot:FRACTION` / `hotspot:FRACTION:NODE`.
    pub fn parse(s: &str) -> Result<Pattern, String> {
        match s {
            "uniform" => Ok(Pattern::Uniform),
            "transpose" => Ok(Pattern::Transpose),
            "bit-reversal" | "bitrev" => Ok(Pattern::BitReversal),
            "neighbour" | "neighbor" => Ok(Pattern::Neighbour),
            "hotspot" => Ok(Pattern::Hotspot { node: 0, fraction: 0.1 }),
            _ => Self::parse_hotspot(s)
                .ok_or_else(|| format!("unknown pattern {s:?}: expected uniform, transpose, bit-reversal, hotspot[:FRACTION[:NODE]] or neighbour")),
        }
    }

    fn parse_hotspot(s: &str) -> Option<Pattern> {
        let mut parts = s.strip_prefix("hotspot:")?.split(':');
        let fraction: f64 = parts.next()?.parse().ok()?;
        let node = parts.next().map_or(Some(0), |n| n.parse().ok())?;
        (parts.next().is_none() && (0.0..=1.0).contains(&fraction)).then_some(Pattern::Hotspot { node, fraction })
    }

    pub fn name(&self) -> String {
        match self {
            Pattern::Uniform => "uniform".into(),
            Pattern::Transpose => "transpose".into(),
            Pattern::BitReversal => "bit-reversal".into(),
            Pattern::Neighbour => "neighbour".into(),
            Pattern::Hotspot { node, fraction } => format!("hotspot:{fraction}:{node}"),
        }
    }

    /// Whether the pattern is defined on this network.
    pub fn check(&self, topo: &Topology) -> Result<(), String> {
        let n = topo.nodes();
        match self {
            Pattern::Transpose if topo.dims.len() < 2 => Err("transpose needs at least two dimensions".into()),
            Pattern::Transpose if topo.dims.iter().ne(topo.dims.iter().rev()) => {
                Err(format!("transpose needs a symmetric shape (k_i = k_(n-1-i)), not {:?}", topo.dims))
            }
            Pattern::BitReversal if !n.is_power_of_two() => {
                Err(format!("bit-reversal needs a power-of-two node count, not {n}"))
            }
            Pattern::Hotspot { node, .. } if *node as usize >= n => Err(format!("hotspot node {node} ≥ {n} nodes")),
            Pattern::Hotspot { fraction, .. } if !(0.0..=1.0).contains(fraction) => {
                Err("hotspot fraction must be in 0..=1".into())
            }
            _ => Ok(()),
        }
    }

    /// Whether `src` ever sends: transpose and bit-reversal map some nodes onto themselves,
    /// and those stay silent rather than loading only their own ejection port.
    pub fn sends(&self, topo: &Topology, src: u32) -> bool {
        match self {
            Pattern::Transpose | Pattern::BitReversal => self.fixed(topo, src) != src,
            _ => topo.nodes() > 1,
        }
    }

    /// A destination for a packet from `src` (≠ src).
    pub fn destination(&self, topo: &Topology, src: u32, rng: &mut Rng) -> u32 {
        match self {
            Pattern::Uniform => uniform_other(topo, src, rng),
            Pattern::Transpose | Pattern::BitReversal => self.fixed(topo, src),
            Pattern::Hotspot { node, fraction } if *node != src && rng.unit() <= *fraction => *node,
            Pattern::Hotspot { .. } => uniform_other(topo, src, rng),
            Pattern::Neighbour => neighbour(topo, src, rng),
        }
    }

    fn fixed(&self, topo: &Topology, src: u32) -> u32 {
        match self {
            Pattern::Transpose => {
                let c: Vec<u32> = topo.coords_of(src).into_iter().rev().collect();
                topo.node_at(&c)
            }
            Pattern::BitReversal => {
                let bits = topo.nodes().trailing_zeros();
                if bits == 0 {
                    src
                } else {
                    src.reverse_bits() >> (32 - bits)
                }
            }
            _ => src,
        }
    }
}

fn uniform_other(topo: &Topology, src: u32, rng: &mut Rng) -> u32 {
    let d = rng.below(topo.nodes() as u64 - 1) as u32;
    if d >= src {
        d + 1
    } else {
        d
    }
}

fn neighbour(topo: &Topology, src: u32, rng: &mut Rng) -> u32 {
    let links: Vec<u32> = (0..topo.ports).map(|o| topo.neighbour(src, o)).filter(|&n| n != NO_LINK).collect();
    links[rng.below(links.len() as u64) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_and_bit_reversal_map_as_defined() {
        let t = Topology::new(&[4, 4], false);
        assert_eq!(Pattern::Transpose.fixed(&t, t.node_at(&[1, 3])), t.node_at(&[3, 1]));
        assert!(!Pattern::Transpose.sends(&t, t.node_at(&[2, 2])));
        assert_eq!(Pattern::BitReversal.fixed(&t, 0b0001), 0b1000);
        assert_eq!(Pattern::BitReversal.fixed(&t, 0b0110), 0b0110);
        assert!(Pattern::Transpose.check(&Topology::new(&[4, 2], false)).is_err());
        assert!(Pattern::BitReversal.check(&Topology::new(&[3, 4], false)).is_err());
    }

    #[test]
    fn random_patterns_never_pick_the_source() {
        let t = Topology::new(&[3, 3], true);
        let mut rng = Rng::new(3);
        for p in [Pattern::Uniform, Pattern::Neighbour, Pattern::Hotspot { node: 4, fraction: 0.5 }] {
            for src in 0..9 {
                for _ in 0..50 {
                    let d = p.destination(&t, src, &mut rng);
                    assert!(d != src && d < 9);
                    if p == Pattern::Neighbour {
                        assert_eq!(t.distance(src, d), 1);
                    }
                }
            }
        }
    }

    #[test]
    fn parses_hotspot_variants() {
        assert_eq!(Pattern::parse("hotspot:0.2:5"), Ok(Pattern::Hotspot { node: 5, fraction: 0.2 }));
        assert!(Pattern::parse("hotspot:2").is_err());
        assert!(Pattern::parse("ring").is_err());
    }
}
