//! The wiring of a dragonfly (p, a, h, g): g groups of a routers, each router with p nodes,
//! a link to every other router of its group, and h global links; the a·h global links of
//! a group reach the other g − 1 groups evenly, c = a·h / (g − 1) to each.
//!
//! Global port k = i·h + t of a group (router i, its global port t) is copy ⌊k / (g−1)⌋ of
//! the link to the group at offset d = k mod (g − 1):
//! - *absolute* (consecutive): group d, or d + 1 from d = G on (skipping itself);
//! - *relative* (circulant): group (G + 1 + d) mod g.
//!
//! A link and its way back have the same copy number.
//!
//! Routers: nodes 0..N−1 first (each node's interface is a one-port router, port 0 to its
//! router), then group G's router i as N + G·a + i. Router ports: nodes 0..p−1, local
//! p..p+a−2 (to the group's other routers in order), global p+a−1..p+a+h−2.

use crate::fabric::NO_LINK;

pub struct Shape {
    pub p: u32,
    pub a: u32,
    pub h: u32,
    pub g: u32,
    pub relative: bool,
    pub nodes: usize,
    pub ports: usize,
    /// Parallel global links between two groups.
    pub copies: u32,
    links: Vec<(u32, u8)>,
}

impl Shape {
    /// A validated design (see `DragonflyConfig::validate`).
    pub fn new(p: u32, a: u32, h: u32, g: u32, relative: bool) -> Shape {
        let nodes = (p * a * g) as usize;
        let ports = (p + a - 1 + h) as usize;
        let copies = if g > 1 { a * h / (g - 1) } else { 0 };
        let mut s = Shape { p, a, h, g, relative, nodes, ports, copies, links: Vec::new() };
        let routers = s.routers() as u32;
        let links = (0..routers).flat_map(|r| (0..ports).map(move |o| (r, o))).map(|(r, o)| s.wire(r, o)).collect();
        s.links = links;
        s
    }

    pub fn routers(&self) -> usize {
        self.nodes + (self.a * self.g) as usize
    }

    /// Router id of router i of group G.
    pub fn router(&self, group: u32, i: u32) -> u32 {
        self.nodes as u32 + group * self.a + i
    }

    /// (group, index in the group) of a router (not a node's interface).
    pub fn place(&self, r: u32) -> (u32, u32) {
        let x = r - self.nodes as u32;
        (x / self.a, x % self.a)
    }

    /// The router node n hangs off, as (group, index).
    pub fn home(&self, n: u32) -> (u32, u32) {
        let x = n / self.p;
        (x / self.a, x % self.a)
    }

    /// The group global port k of group G leads to.
    pub fn global_target(&self, group: u32, k: u32) -> u32 {
        let d = k % (self.g - 1);
        if self.relative {
            (group + 1 + d) % self.g
        } else if d < group {
            d
        } else {
            d + 1
        }
    }

    /// Global port index (i·h + t) of copy c of group G's link to group T.
    pub fn global_port(&self, group: u32, target: u32, copy: u32) -> u32 {
        let d = if self.relative {
            (target + self.g - group - 1) % self.g
        } else if target < group {
            target
        } else {
            target - 1
        };
        copy * (self.g - 1) + d
    }

    /// Router port of the local link from router i to router j of the same group.
    #[inline]
    pub fn local_port(&self, i: u32, j: u32) -> usize {
        (self.p + if j < i { j } else { j - 1 }) as usize
    }

    /// Router port of global port t of a router.
    #[inline]
    pub fn global_router_port(&self, t: u32) -> usize {
        (self.p + self.a - 1 + t) as usize
    }

    fn wire(&self, r: u32, o: usize) -> (u32, u8) {
        let (p, a, h) = (self.p as usize, self.a as usize, self.h as usize);
        if (r as usize) < self.nodes {
            return if o == 0 {
                let (group, i) = self.home(r);
                (self.router(group, i), (r % self.p) as u8)
            } else {
                (NO_LINK, 0)
            };
        }
        let (group, i) = self.place(r);
        if o < p {
            ((group * self.a + i) * self.p + o as u32, 0)
        } else if o < p + a - 1 {
            let q = (o - p) as u32;
            let j = if q < i { q } else { q + 1 };
            (self.router(group, j), self.local_port(j, i) as u8)
        } else if o < p + a - 1 + h {
            let k = i * self.h + (o - p - a + 1) as u32;
            let target = self.global_target(group, k);
            let back = self.global_port(target, group, k / (self.g - 1));
            (self.router(target, back / self.h), self.global_router_port(back % self.h) as u8)
        } else {
            (NO_LINK, 0)
        }
    }

    #[inline]
    pub fn neighbour(&self, r: u32, o: usize) -> u32 {
        self.links[r as usize * self.ports + o].0
    }

    #[inline]
    pub fn entry_port(&self, r: u32, o: usize) -> usize {
        self.links[r as usize * self.ports + o].1 as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links_lead_back(s: &Shape) {
        for r in 0..s.routers() as u32 {
            for o in 0..s.ports {
                let n = s.neighbour(r, o);
                if n != NO_LINK {
                    let back = s.entry_port(r, o);
                    assert_eq!((s.neighbour(n, back), s.entry_port(n, back)), (r, o), "router {r} port {o}");
                }
            }
        }
    }

    #[test]
    fn every_pair_of_groups_is_linked_in_both_arrangements() {
        for relative in [false, true] {
            // Balanced: a·h = g − 1, one link per pair.
            let s = Shape::new(2, 4, 2, 9, relative);
            assert_eq!((s.nodes, s.routers(), s.ports, s.copies), (72, 72 + 36, 7, 1));
            links_lead_back(&s);
            for group in 0..9 {
                let mut reached: Vec<u32> = (0..8).map(|k| s.global_target(group, k)).collect();
                reached.sort_unstable();
                let others: Vec<u32> = (0..9).filter(|&x| x != group).collect();
                assert_eq!(reached, others, "group {group}");
            }
            // Two links per pair.
            let s = Shape::new(1, 4, 2, 5, relative);
            assert_eq!(s.copies, 2);
            links_lead_back(&s);
        }
        // Absolute: group 0's first global port goes to group 1, relative: to group 1 too;
        // group 3's first: absolute to group 0, relative to group 4.
        let abs = Shape::new(2, 4, 2, 9, false);
        let rel = Shape::new(2, 4, 2, 9, true);
        assert_eq!((abs.global_target(3, 0), rel.global_target(3, 0)), (0, 4));
    }
}
