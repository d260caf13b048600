//! The wiring of a fat-tree as an extended generalised fat-tree XGFT(h; m₁…m_h; w₁…w_h):
//! h levels of switches; a switch of level l has m_l children (level l−1) and w_{l+1}
//! parents (level l+1); w₁ = 1 (each node has one link, to its leaf switch). A k-ary n-tree
//! is m = (k, …, k), w = (1, k, …, k); a tapered leaf has fewer parents than children.
//!
//! Numbering. Node n has digits a₁…a_h (a₁ fastest: n = a₁ + m₁·(a₂ + m₂·(…))). A switch
//! of level l is (A, B): A the node digits above l (the subtree it serves: nodes
//! A·M_l … A·M_l + M_l − 1, M_l = m₁·…·m_l) and B in 0..B_l (B_l = w₁·…·w_l) which of the
//! subtree's B_l level-l switches it is. Its index in the level is A·B_l + B. Its down port
//! i leads to child (A·m_l + i, B mod B_{l−1}), entering that child's up port ⌊B/B_{l−1}⌋;
//! its up port j leads to parent (⌊A/m_{l+1}⌋, B + B_l·j), entering down port A mod m_{l+1}.
//!
//! Routers: nodes 0..N−1 first (each node's interface is a one-port router, port 0 up to
//! its leaf), then the switches level by level. Switch ports: down 0..m_l−1, then up.

use std::sync::OnceLock;

use crate::fabric::NO_LINK;

pub struct Shape {
    /// m_l and w_l per level 0..=h (m₀ = 0: nodes have no children; w₁ = 1; w_{h+1} = 0).
    pub down: Vec<u32>,
    pub up: Vec<u32>,
    /// M_l: nodes under one switch of level l (M₀ = 1).
    pub below: Vec<u64>,
    /// B_l: switches of level l per subtree (B₀ = B₁ = 1).
    pub per_subtree: Vec<u64>,
    /// First router id of each level 0..=h, and the total after the last.
    pub first: Vec<u32>,
    pub nodes: usize,
    /// Network ports per router: the largest switch's m_l + w_{l+1}.
    pub ports: usize,
    /// Per router: the first node under it and its level (what routing reads).
    pub place: Vec<Place>,
    /// `links[r·ports + o]`: the router output o of r leads to and the input port it enters.
    /// Made on first use: the packet-level network reads it when it is built and, for the
    /// entry port, at each hop; the flow model's routes are arithmetic and never need it, and
    /// on a large tree making it would be most of psins-sim's start.
    links: OnceLock<Vec<(u32, u8)>>,
}

#[derive(Clone, Copy, Default)]
pub struct Place {
    pub lo: u32,
    pub level: u32,
}

impl Shape {
    /// `down` = m₁…m_h, `up` = w₂…w_h (validated by the config).
    pub fn new(down: &[u32], up: &[u32]) -> Shape {
        let h = down.len();
        let mut m = vec![0u32];
        m.extend_from_slice(down);
        let mut w = vec![0u32, 1];
        w.extend_from_slice(up);
        w.push(0);
        let (mut below, mut per_subtree) = (vec![1u64], vec![1u64]);
        for l in 1..=h {
            below.push(below[l - 1] * m[l] as u64);
            per_subtree.push(per_subtree[l - 1] * w[l] as u64);
        }
        let nodes = below[h] as usize;
        let mut first = vec![0u32, nodes as u32];
        for l in 1..=h {
            let count = (below[h] / below[l]) * per_subtree[l];
            first.push(first[l] + count as u32);
        }
        let ports = (1..=h).map(|l| (m[l] + w[l + 1]) as usize).max().unwrap_or(1).max(1);
        let mut shape = Shape {
            down: m,
            up: w,
            below,
            per_subtree,
            first,
            nodes,
            ports,
            place: Vec::new(),
            links: OnceLock::new(),
        };
        let routers = shape.routers();
        let place = (0..routers as u32).map(|r| shape.place_of(r)).collect();
        shape.place = place;
        shape
    }

    pub fn levels(&self) -> usize {
        self.down.len() - 1
    }

    pub fn routers(&self) -> usize {
        *self.first.last().expect("levels") as usize
    }

    /// Level and index within the level of router r.
    pub fn level_of(&self, r: u32) -> (usize, u64) {
        let l = self.first.partition_point(|&f| f <= r) - 1;
        (l, (r - self.first[l]) as u64)
    }

    fn place_of(&self, r: u32) -> Place {
        let (l, s) = self.level_of(r);
        let subtree = s / self.per_subtree[l];
        Place { lo: (subtree * self.below[l]) as u32, level: l as u32 }
    }

    /// Router id of switch (A, B) at level l (l = 0: node A).
    fn switch(&self, l: usize, a: u64, b: u64) -> u32 {
        self.first[l] + (a * self.per_subtree[l] + b) as u32
    }

    /// Where output o of r leads (router, input port), or (NO_LINK, 0).
    fn wire(&self, r: u32, o: usize) -> (u32, u8) {
        let (l, s) = self.level_of(r);
        let (m, w) = (self.down[l] as usize, self.up[l + 1] as usize);
        let (a, b) = (s / self.per_subtree[l], s % self.per_subtree[l]);
        if o < m {
            // Down to child (a·m + o, b mod B_{l−1}), entering its up port ⌊b/B_{l−1}⌋.
            let bl = self.per_subtree[l - 1];
            let child = self.switch(l - 1, a * m as u64 + o as u64, b % bl);
            let port = self.down[l - 1] as u64 + b / bl;
            (child, port as u8)
        } else if o < m + w {
            let j = (o - m) as u64;
            let mp = self.down[l + 1] as u64;
            let parent = self.switch(l + 1, a / mp, b + self.per_subtree[l] * j);
            (parent, (a % mp) as u8)
        } else {
            (NO_LINK, 0)
        }
    }

    fn links(&self) -> &[(u32, u8)] {
        self.links.get_or_init(|| {
            let ports = self.ports;
            (0..self.routers() as u32)
                .flat_map(|r| (0..ports).map(move |o| (r, o)))
                .map(|(r, o)| self.wire(r, o))
                .collect()
        })
    }

    #[inline]
    pub fn neighbour(&self, r: u32, o: usize) -> u32 {
        self.links()[r as usize * self.ports + o].0
    }

    #[inline]
    pub fn entry_port(&self, r: u32, o: usize) -> usize {
        self.links()[r as usize * self.ports + o].1 as usize
    }

    /// The level of the lowest common ancestor of nodes a and b (0 when a = b): a packet
    /// between them crosses 2·L links.
    pub fn common_level(&self, a: u32, b: u32) -> usize {
        (0..=self.levels()).find(|&l| a as u64 / self.below[l] == b as u64 / self.below[l]).unwrap_or(self.levels())
    }

    /// Links on every minimal path from node a to node b.
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        2 * self.common_level(a, b) as u32
    }

    /// The nodes under the same leaf switch as n (n excluded).
    pub fn leaf_mates(&self, n: u32) -> impl Iterator<Item = u32> {
        let m = self.down[1];
        let lo = n - n % m;
        (lo..lo + m).filter(move |&x| x != n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_2_ary_3_tree_is_wired_both_ways() {
        let s = Shape::new(&[2, 2, 2], &[2, 2]);
        assert_eq!((s.nodes, s.routers(), s.ports), (8, 8 + 4 + 4 + 4, 4));
        // Every link leads back: output o of r enters input p of n, and n's output p
        // leads back to r's input o.
        for r in 0..s.routers() as u32 {
            for o in 0..s.ports {
                let n = s.neighbour(r, o);
                if n != NO_LINK {
                    let p = s.entry_port(r, o);
                    assert_eq!((s.neighbour(n, p), s.entry_port(n, p)), (r, o), "router {r} port {o}");
                }
            }
        }
        // Node 5's leaf is the third leaf switch, entered at down port 1.
        assert_eq!((s.neighbour(5, 0), s.entry_port(5, 0)), (8 + 2, 1));
        assert_eq!(s.distance(4, 5), 2);
        assert_eq!(s.distance(4, 6), 4);
        assert_eq!(s.distance(0, 7), 6);
        assert_eq!(s.distance(3, 3), 0);
    }

    #[test]
    fn a_tapered_two_level_tree_has_fewer_spines() {
        // Leaves of 4 nodes and 2 up links, 2 spines of 3 leaves each: 12 nodes.
        let s = Shape::new(&[4, 3], &[2]);
        assert_eq!((s.nodes, s.routers(), s.ports), (12, 12 + 3 + 2, 6));
        let spines = s.first[2]..s.first[3];
        assert_eq!(spines.len(), 2);
        for spine in spines {
            assert_eq!((0..3).filter(|&o| s.neighbour(spine, o) != NO_LINK).count(), 3);
        }
    }
}
