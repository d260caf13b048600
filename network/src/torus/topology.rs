//! Node coordinates, port numbering and neighbours of a k-ary n-cube.
//!
//! Ports are numbered by direction of travel: port `2·d` moves +1 along dimension d,
//! port `2·d + 1` moves −1. An output port `o` of router r feeds input port `o` of the
//! neighbour it leads to, so a packet's input port tells which way it was going — the
//! bubble rule needs exactly that to tell "continuing along a ring" from "entering it".

pub use crate::fabric::NO_LINK;

pub struct Topology {
    pub dims: Vec<u32>,
    pub mesh: bool,
    /// Network ports per router (2n); the ejection port is numbered `ports`.
    pub ports: usize,
    nodes: usize,
    /// `coords[r·n + d]`: tables beat divisions in the per-hop routing code.
    coords: Vec<u16>,
    /// `nbr[r·ports + o]`: the router output port o leads to, or [`NO_LINK`].
    nbr: Vec<u32>,
}

impl Topology {
    pub fn new(dims: &[u32], mesh: bool) -> Topology {
        let n = dims.len();
        let nodes: usize = dims.iter().map(|&k| k as usize).product();
        let mut coords = Vec::with_capacity(nodes * n);
        for r in 0..nodes {
            let mut rest = r;
            for &k in dims {
                coords.push((rest % k as usize) as u16);
                rest /= k as usize;
            }
        }
        let mut topo = Topology { dims: dims.to_vec(), mesh, ports: 2 * n, nodes, coords, nbr: Vec::new() };
        topo.nbr =
            (0..nodes as u32).flat_map(|r| (0..2 * n).map(move |o| (r, o))).map(|(r, o)| topo.link(r, o)).collect();
        topo
    }

    pub fn nodes(&self) -> usize {
        self.nodes
    }

    #[inline]
    pub fn coord(&self, r: u32, d: usize) -> u32 {
        self.coords[r as usize * self.dims.len() + d] as u32
    }

    /// Node r's coordinates as stored (one bounds check for all of them).
    #[inline]
    pub fn coord_slice(&self, r: u32) -> &[u16] {
        let n = self.dims.len();
        &self.coords[r as usize * n..r as usize * n + n]
    }

    /// All coordinates of node r, dimension 0 first.
    pub fn coords_of(&self, r: u32) -> Vec<u32> {
        (0..self.dims.len()).map(|d| self.coord(r, d)).collect()
    }

    /// Node id of a coordinate vector.
    pub fn node_at(&self, c: &[u32]) -> u32 {
        c.iter().zip(&self.dims).rev().fold(0u32, |acc, (&x, &k)| acc * k + x)
    }

    /// The router that output port `o` of `r` leads to (also: the router whose input port
    /// `o` is fed by `r`).
    #[inline]
    pub fn neighbour(&self, r: u32, o: usize) -> u32 {
        self.nbr[r as usize * self.ports + o]
    }

    /// The router feeding input port `i` of `r`: one step against the direction of travel.
    #[inline]
    pub fn upstream(&self, r: u32, i: usize) -> u32 {
        self.nbr[r as usize * self.ports + (i ^ 1)]
    }

    /// Whether output port o of r uses a wrap-around link (the step from k−1 to 0 or back).
    pub fn is_wrap(&self, r: u32, o: usize) -> bool {
        let d = o / 2;
        let x = self.coord(r, d);
        let k = self.dims[d];
        if o.is_multiple_of(2) {
            x == k - 1
        } else {
            x == 0
        }
    }

    fn link(&self, r: u32, o: usize) -> u32 {
        let d = o / 2;
        let k = self.dims[d];
        let x = self.coord(r, d);
        let plus = o.is_multiple_of(2);
        let y = match (plus, self.mesh) {
            (true, true) if x + 1 == k => return NO_LINK,
            (false, true) if x == 0 => return NO_LINK,
            (true, _) => (x + 1) % k,
            (false, _) => (x + k - 1) % k,
        };
        let stride: u32 = self.dims[..d].iter().product();
        r - x * stride + y * stride
    }

    /// Minimal hop count between two nodes.
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        (0..self.dims.len()).map(|d| self.ring_distance(d, self.coord(a, d), self.coord(b, d)).0).sum()
    }

    /// (hops, whether + is a shortest direction, whether − is) from coordinate x to y in
    /// dimension d. Both are shortest when a torus ring is exactly halved.
    #[inline]
    pub fn ring_distance(&self, d: usize, x: u32, y: u32) -> (u32, bool, bool) {
        if x == y {
            return (0, false, false);
        }
        if self.mesh {
            return if y > x { (y - x, true, false) } else { (x - y, false, true) };
        }
        // A branch instead of `% k`: this runs for every message injected.
        let fwd = if y > x { y - x } else { y + self.dims[d] - x };
        let back = self.dims[d] - fwd;
        (fwd.min(back), fwd <= back, back <= fwd)
    }

    /// Human-readable port name for reports ("x+", "y-", "eject", "inject").
    pub fn port_name(&self, p: usize) -> String {
        const AXES: [&str; 6] = ["x", "y", "z", "w", "v", "u"];
        match p {
            p if p < self.ports => format!("{}{}", AXES[p / 2], if p % 2 == 0 { '+' } else { '-' }),
            p if p == self.ports => "eject".into(),
            _ => "inject".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_wrap_in_torus_not_mesh() {
        let t = Topology::new(&[4, 3], false);
        assert_eq!(t.neighbour(3, 0), 0); // (3,0) x+ wraps to (0,0)
        assert_eq!(t.neighbour(0, 3), 8); // (0,0) y- wraps to (0,2)
        assert_eq!(t.upstream(0, 0), 3);
        let m = Topology::new(&[4, 3], true);
        assert_eq!(m.neighbour(3, 0), NO_LINK);
        assert_eq!(m.neighbour(5, 2), 9);
        assert_eq!(t.node_at(&[1, 2]), 9);
    }

    #[test]
    fn ring_distance_ties_both_ways() {
        let t = Topology::new(&[8], false);
        assert_eq!(t.ring_distance(0, 1, 5), (4, true, true));
        assert_eq!(t.ring_distance(0, 1, 7), (2, false, true));
        assert_eq!(t.distance(0, 6), 2);
    }
}
