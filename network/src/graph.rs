//! What the flow-level network ([`crate::FluidNetwork`]) needs of a network: links with
//! capacities and, for every pair of nodes, the links a flow holds and the latency it pays.
//! Two kinds: a packet-level fabric's graph along its oblivious route ([`FabricGraph`]) and
//! the flat cluster of SimGrid's CLUSTER zone ([`Cluster`]).

use crate::fabric::{path_into, Fabric, NO_LINK};
use crate::params::RouterConfig;
use std::sync::OnceLock;

/// A network as flows see it. Time is in the graph's own unit ([`FlowGraph::units_per_second`]).
pub trait FlowGraph {
    /// Terminal nodes.
    fn nodes(&self) -> usize;
    /// Link ids are `0..links()`.
    fn links(&self) -> usize;
    /// Bytes link `l` moves per time unit.
    fn capacity(&self, l: u32) -> f64;
    /// Appends the links of a flow from `src` to `dst` (src ≠ dst) to `links`; returns the
    /// time units from its last byte leaving to its delivery.
    fn route(&self, src: u32, dst: u32, links: &mut Vec<u32>) -> f64;
    /// Time units per second.
    fn units_per_second(&self) -> f64;
}

/// A fabric's graph: the links of its oblivious route ([`crate::fabric::path`]) plus the
/// source's injection and the destination's ejection port, every one W/8 bytes per cycle; a
/// flow over h links is delivered (h + 1)·R + h cycles after its last byte left (the head's
/// zero-load latency).
///
/// Links are numbered densely, only the ports that have one: a fabric's `router · ports +
/// output` leaves most ids unused where routers differ (a fat-tree's node interfaces have one
/// port of the switches' 16), and the sharing keeps ~50 bytes per id. The numbering keeps
/// the order of `router · ports + output` (the solver breaks ties by link id), then the
/// injection ports, then the ejection ports.
pub struct FabricGraph<F: Fabric> {
    fabric: F,
    cfg: RouterConfig,
    /// Per router: its first link's id and the mask of its ports that have a link. Made on
    /// the first route the fabric does not number itself ([`Fabric::dense_path`]), so never
    /// for a fabric that numbers every route and counts its links ([`Fabric::dense_links`]).
    table: OnceLock<Table>,
    /// Network links in all.
    network: u32,
}

struct Table {
    first: Vec<u32>,
    linked: Vec<u64>,
}

impl Table {
    fn of<F: Fabric>(fabric: &F) -> Table {
        let ports = fabric.ports();
        let (mut first, mut linked, mut next) = (Vec::new(), Vec::new(), 0u32);
        for r in 0..fabric.routers() as u32 {
            let mask = (0..ports).filter(|&o| fabric.neighbour(r, o) != NO_LINK).fold(0u64, |m, o| m | 1 << o);
            first.push(next);
            linked.push(mask);
            next += mask.count_ones();
        }
        Table { first, linked }
    }

    fn links(&self) -> u32 {
        match (self.first.last(), self.linked.last()) {
            (Some(f), Some(m)) => f + m.count_ones(),
            _ => 0,
        }
    }
}

impl<F: Fabric> FabricGraph<F> {
    pub fn new(fabric: F, cfg: RouterConfig) -> Self {
        let ports = fabric.ports();
        assert!(ports <= 64, "a router of {ports} ports: the link numbering holds 64");
        let table = OnceLock::new();
        let network = match fabric.dense_links() {
            Some(n) => n,
            None => table.get_or_init(|| Table::of(&fabric)).links(),
        };
        FabricGraph { fabric, cfg, table, network }
    }

    /// The route's network links found hop by hop and renumbered densely, appended to `links`.
    fn walk(&self, src: u32, dst: u32, links: &mut Vec<u32>) {
        let start = links.len();
        path_into(&self.fabric, src, dst, links);
        let ports = self.fabric.ports() as u32;
        let t = self.table.get_or_init(|| Table::of(&self.fabric));
        for l in &mut links[start..] {
            let (r, o) = ((*l / ports) as usize, *l % ports);
            *l = t.first[r] + (t.linked[r] & ((1u64 << o) - 1)).count_ones();
        }
    }
}

impl<F: Fabric> FlowGraph for FabricGraph<F> {
    fn nodes(&self) -> usize {
        self.fabric.nodes()
    }
    fn links(&self) -> usize {
        self.network as usize + 2 * self.fabric.nodes()
    }
    fn capacity(&self, _l: u32) -> f64 {
        self.cfg.link_bits_per_cycle as f64 / 8.0
    }
    fn route(&self, src: u32, dst: u32, links: &mut Vec<u32>) -> f64 {
        let start = links.len();
        if !self.fabric.dense_path(src, dst, links) {
            self.walk(src, dst, links);
        }
        let h = (links.len() - start) as f64;
        let extra = self.network;
        links.push(extra + src);
        links.push(extra + self.fabric.nodes() as u32 + dst);
        let r = self.cfg.router_delay_cycles as f64;
        (h + 1.0) * r + h
    }
    fn units_per_second(&self) -> f64 {
        self.cfg.clock_hz
    }
}

/// The flat cluster (SimGrid's CLUSTER zone with private links): every node has an up link
/// (link `n`) and a down link (link `N + n`) of `bandwidth` to one crossbar, and optionally
/// a backbone (link `2N`) every flow crosses. Time in picoseconds; a flow is delivered
/// `latency` after its last byte left.
pub struct Cluster {
    nodes: u32,
    /// Bytes per picosecond of a node's up and down link.
    link: f64,
    /// Bytes per picosecond of the backbone, if there is one.
    backbone: Option<f64>,
    latency_ps: f64,
}

impl Cluster {
    /// `bandwidth` and `backbone` in bytes per second, `latency_ps` in picoseconds.
    pub fn new(nodes: u32, bandwidth: f64, backbone: Option<f64>, latency_ps: f64) -> Cluster {
        Cluster { nodes, link: bandwidth / 1e12, backbone: backbone.map(|b| b / 1e12), latency_ps }
    }
}

impl FlowGraph for Cluster {
    fn nodes(&self) -> usize {
        self.nodes as usize
    }
    fn links(&self) -> usize {
        2 * self.nodes as usize + 1
    }
    fn capacity(&self, l: u32) -> f64 {
        if l == 2 * self.nodes {
            self.backbone.unwrap_or(f64::INFINITY)
        } else {
            self.link
        }
    }
    fn route(&self, src: u32, dst: u32, links: &mut Vec<u32>) -> f64 {
        links.push(src);
        if self.backbone.is_some() {
            links.push(2 * self.nodes);
        }
        links.push(self.nodes + dst);
        self.latency_ps
    }
    fn units_per_second(&self) -> f64 {
        1e12
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fattree::FatTreeFabric;
    use crate::FatTreeConfig;

    #[test]
    fn fabric_links_are_numbered_densely_in_order() {
        // 4-ary 2-tree: 16 node interfaces of 1 linked port, 4 leaves of 4 down + 4 up, 4
        // top switches of 4 down: 16 + 32 + 16 = 64 network links (not 24 routers × 8
        // ports = 192), then 16 injection and 16 ejection ports.
        let cfg = FatTreeConfig::k_ary_n_tree(4, 2);
        let g = FabricGraph::new(FatTreeFabric::new(cfg.clone()).unwrap(), cfg.router);
        assert_eq!(g.links(), 96);
        // Every link of every route is in range, a network link is used by one (router,
        // port) only, and the dense ids keep the order of the fabric's.
        let mut seen = std::collections::HashMap::new();
        for (s, d) in (0..16).flat_map(|s| (0..16).filter(move |&d| d != s).map(move |d| (s, d))) {
            let (mut dense, raw) = (Vec::new(), crate::fabric::path(&g.fabric, s, d));
            g.route(s, d, &mut dense);
            assert_eq!(dense.len(), raw.len() + 2);
            assert_eq!(&dense[raw.len()..], &[64 + s, 80 + d]);
            for (&l, &r) in dense.iter().zip(&raw) {
                assert!(l < 64);
                assert_eq!(*seen.entry(r).or_insert(l), l, "raw link {r}");
            }
        }
        let mut pairs: Vec<(u32, u32)> = seen.into_iter().collect();
        pairs.sort();
        assert!(pairs.windows(2).all(|w| w[0].1 < w[1].1), "{pairs:?}");
        assert_eq!(pairs.len(), 64, "every link is on some route");
    }

    #[test]
    fn the_fat_tree_closed_form_route_is_the_walked_one() {
        // Every pair on small trees (k-ary n-trees, tapered, mixed radices), random pairs on
        // fattree-64k's shape: the route computed from the numbering equals the one walked
        // through the wiring and renumbered.
        let shapes: [(&[u32], &[u32]); 6] = [
            (&[4, 4], &[4]),
            (&[2, 2, 2], &[2, 2]),
            (&[4, 3], &[2]),
            (&[3, 5, 2], &[2, 3]),
            (&[5], &[]),
            (&[8, 8, 8, 8, 16], &[8, 8, 8, 8]),
        ];
        let mut x = 0u64;
        let mut rnd = |n: u32| (psins_formats::splitmix::next(&mut x) % n as u64) as u32;
        for (down, up) in shapes {
            let cfg = FatTreeConfig { down: down.to_vec(), up: up.to_vec(), ..FatTreeConfig::default() };
            let g = FabricGraph::new(FatTreeFabric::new(cfg.clone()).unwrap(), cfg.router);
            let n = g.nodes() as u32;
            let pairs: Vec<(u32, u32)> = if n <= 64 {
                (0..n).flat_map(|s| (0..n).map(move |d| (s, d))).collect()
            } else {
                (0..20_000).map(|_| (rnd(n), rnd(n))).collect()
            };
            for (s, d) in pairs {
                let (mut closed, mut walked) = (vec![7], vec![7]);
                assert!(g.fabric.dense_path(s, d, &mut closed));
                g.walk(s, d, &mut walked);
                assert_eq!(closed, walked, "{down:?} {up:?}: {s} -> {d}");
            }
            // The count the fabric gives without a table is the table's.
            assert_eq!(g.fabric.dense_links(), Some(Table::of(&g.fabric).links()), "{down:?} {up:?}");
        }
    }
}
