//! Synthetic traffic patterns (TrGen's spatial distributions): who sends to whom, on any
//! fabric whose nodes form a [`NodeSpace`].

use super::rng::Rng;
use crate::fabric::NO_LINK;
use crate::torus::topology::Topology;

/// The nodes as patterns see them: a count, coordinates when the topology has them
/// (transpose), and each node's direct neighbours.
pub trait NodeSpace {
    fn nodes(&self) -> usize;
    /// Extents per dimension, when nodes have coordinates.
    fn dims(&self) -> Option<&[u32]> {
        None
    }
    /// Coordinates of node n (only called when `dims` is Some).
    fn coords_of(&self, _n: u32) -> Vec<u32> {
        Vec::new()
    }
    /// Node at coordinates c (only called when `dims` is Some).
    fn node_at(&self, _c: &[u32]) -> u32 {
        0
    }
    /// Nodes per group, when the topology has groups (the dragonfly's group shift).
    fn group_size(&self) -> Option<usize> {
        None
    }
    /// The nodes one link (torus) or one switch (fat-tree: the same leaf) away.
    fn neighbours(&self, n: u32) -> Vec<u32>;
}

impl NodeSpace for Topology {
    fn nodes(&self) -> usize {
        Topology::nodes(self)
    }
    fn dims(&self) -> Option<&[u32]> {
        Some(&self.dims)
    }
    fn coords_of(&self, n: u32) -> Vec<u32> {
        Topology::coords_of(self, n)
    }
    fn node_at(&self, c: &[u32]) -> u32 {
        Topology::node_at(self, c)
    }
    fn neighbours(&self, n: u32) -> Vec<u32> {
        (0..self.ports).map(|o| self.neighbour(n, o)).filter(|&x| x != NO_LINK).collect()
    }
}

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
    /// One of the node's direct neighbours, uniformly (fat-tree: a node on the same leaf).
    Neighbour,
    /// Node id rotated left by one bit (the perfect shuffle). Needs a power-of-two count.
    Shuffle,
    /// Node (id + k) mod N; k = N/2 by default.
    Shift { by: Option<u32> },
    /// The dragonfly's adversarial pattern: the node one group further on (id + p·a mod N).
    GroupShift,
}

/// Why a pattern is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PatternError {
    #[error("unknown pattern {0:?}: expected uniform, transpose, bit-reversal, shuffle, shift[:K], group-shift, hotspot[:FRACTION[:NODE]] or neighbour")]
    Unknown(String),
    /// Not defined on this network (the message says what it needs).
    #[error("{0}")]
    Undefined(String),
}

impl Pattern {
    /// `uniform`, `transpose`, `bit-reversal`, `neighbour`, `hotspot` (10 % to node 0), or
    /// `hotspot:FRACTION` / `hotspot:FRACTION:NODE`.
    pub fn parse(s: &str) -> Result<Pattern, PatternError> {
        match s {
            "uniform" => Ok(Pattern::Uniform),
            "transpose" => Ok(Pattern::Transpose),
            "bit-reversal" | "bitrev" => Ok(Pattern::BitReversal),
            "neighbour" | "neighbor" => Ok(Pattern::Neighbour),
            "hotspot" => Ok(Pattern::Hotspot { node: 0, fraction: 0.1 }),
            "shuffle" => Ok(Pattern::Shuffle),
            "group-shift" => Ok(Pattern::GroupShift),
            "shift" => Ok(Pattern::Shift { by: None }),
            _ => Self::parse_hotspot(s)
                .or_else(|| Some(Pattern::Shift { by: Some(s.strip_prefix("shift:")?.parse().ok()?) }))
                .ok_or_else(|| PatternError::Unknown(s.into())),
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
            Pattern::Shuffle => "shuffle".into(),
            Pattern::Shift { by: None } => "shift".into(),
            Pattern::Shift { by: Some(k) } => format!("shift:{k}"),
            Pattern::GroupShift => "group-shift".into(),
        }
    }

    /// Whether the pattern is defined on this network.
    pub fn check<S: NodeSpace + ?Sized>(&self, topo: &S) -> Result<(), PatternError> {
        let n = topo.nodes();
        let dims = topo.dims().unwrap_or(&[]);
        match self {
            Pattern::Transpose if topo.dims().is_none() => {
                Err(PatternError::Undefined("transpose needs a topology with coordinates (a torus)".into()))
            }
            Pattern::Transpose if dims.len() < 2 => {
                Err(PatternError::Undefined("transpose needs at least two dimensions".into()))
            }
            Pattern::Transpose if dims.iter().ne(dims.iter().rev()) => Err(PatternError::Undefined(format!(
                "transpose needs a symmetric shape (k_i = k_(n-1-i)), not {dims:?}"
            ))),
            Pattern::BitReversal if !n.is_power_of_two() => {
                Err(PatternError::Undefined(format!("bit-reversal needs a power-of-two node count, not {n}")))
            }
            Pattern::Shuffle if !n.is_power_of_two() => {
                Err(PatternError::Undefined(format!("shuffle needs a power-of-two node count, not {n}")))
            }
            Pattern::GroupShift if topo.group_size().is_none_or(|s| s >= n) => {
                Err(PatternError::Undefined("group-shift needs a topology of several groups (a dragonfly)".into()))
            }
            Pattern::Shift { by: Some(k) } if (*k as usize).is_multiple_of(n.max(1)) => {
                Err(PatternError::Undefined(format!("shift:{k} maps every node onto itself on {n} nodes")))
            }
            Pattern::Hotspot { node, .. } if *node as usize >= n => {
                Err(PatternError::Undefined(format!("hotspot node {node} ≥ {n} nodes")))
            }
            Pattern::Hotspot { fraction, .. } if !(0.0..=1.0).contains(fraction) => {
                Err(PatternError::Undefined("hotspot fraction must be in 0..=1".into()))
            }
            _ => Ok(()),
        }
    }

    /// Whether `src` ever sends: transpose and bit-reversal map some nodes onto themselves,
    /// and those stay silent rather than loading only their own ejection port.
    pub fn sends<S: NodeSpace + ?Sized>(&self, topo: &S, src: u32) -> bool {
        match self {
            Pattern::Transpose
            | Pattern::BitReversal
            | Pattern::Shuffle
            | Pattern::Shift { .. }
            | Pattern::GroupShift => self.fixed(topo, src) != src,
            _ => topo.nodes() > 1,
        }
    }

    /// A destination for a packet from `src` (≠ src).
    pub fn destination<S: NodeSpace + ?Sized>(&self, topo: &S, src: u32, rng: &mut Rng) -> u32 {
        match self {
            Pattern::Uniform => uniform_other(topo, src, rng),
            Pattern::Transpose
            | Pattern::BitReversal
            | Pattern::Shuffle
            | Pattern::Shift { .. }
            | Pattern::GroupShift => self.fixed(topo, src),
            Pattern::Hotspot { node, fraction } if *node != src && rng.unit() <= *fraction => *node,
            Pattern::Hotspot { .. } => uniform_other(topo, src, rng),
            Pattern::Neighbour => neighbour(topo, src, rng),
        }
    }

    fn fixed<S: NodeSpace + ?Sized>(&self, topo: &S, src: u32) -> u32 {
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
            Pattern::Shuffle => {
                let bits = topo.nodes().trailing_zeros();
                if bits == 0 {
                    src
                } else {
                    (src << 1 | src >> (bits - 1)) & ((1u64 << bits) - 1) as u32
                }
            }
            Pattern::GroupShift => {
                let n = topo.nodes() as u64;
                ((src as u64 + topo.group_size().unwrap_or(0) as u64) % n) as u32
            }
            Pattern::Shift { by } => {
                let n = topo.nodes() as u64;
                ((src as u64 + by.map_or(n / 2, u64::from)) % n) as u32
            }
            _ => src,
        }
    }
}

fn uniform_other<S: NodeSpace + ?Sized>(topo: &S, src: u32, rng: &mut Rng) -> u32 {
    let d = rng.below(topo.nodes() as u64 - 1) as u32;
    if d >= src {
        d + 1
    } else {
        d
    }
}

fn neighbour<S: NodeSpace + ?Sized>(topo: &S, src: u32, rng: &mut Rng) -> u32 {
    let links = topo.neighbours(src);
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
        assert_eq!(Pattern::Shuffle.fixed(&t, 0b1001), 0b0011);
        assert_eq!(Pattern::Shift { by: None }.fixed(&t, 11), 3);
        assert_eq!(Pattern::Shift { by: Some(3) }.fixed(&t, 14), 1);
        assert_eq!(Pattern::parse("shift:5"), Ok(Pattern::Shift { by: Some(5) }));
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
