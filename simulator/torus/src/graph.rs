//! What the flow-level network ([`crate::FluidNetwork`]) needs of a network: links with
//! capacities and, for every pair of nodes, the links a flow holds and the latency it pays.
//! Two kinds: a packet-level fabric's graph along its oblivious route ([`FabricGraph`]) and
//! the flat cluster of SimGrid's CLUSTER zone ([`Cluster`]).

use crate::fabric::{path_into, Fabric};
use crate::params::RouterConfig;

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

/// A fabric's graph: the links of its oblivious route ([`crate::fabric::path`]) plus the source's injection
/// and the destination's ejection port, every one W/8 bytes per cycle; a flow over h links is
/// delivered (h + 1)·R + h cycles after its last byte left (the head's zero-load latency).
pub struct FabricGraph<F: Fabric> {
    fabric: F,
    cfg: RouterConfig,
}

impl<F: Fabric> FabricGraph<F> {
    pub fn new(fabric: F, cfg: RouterConfig) -> Self {
        FabricGraph { fabric, cfg }
    }
}

impl<F: Fabric> FlowGraph for FabricGraph<F> {
    fn nodes(&self) -> usize {
        self.fabric.nodes()
    }
    fn links(&self) -> usize {
        self.fabric.routers() * self.fabric.ports() + 2 * self.fabric.nodes()
    }
    fn capacity(&self, _l: u32) -> f64 {
        self.cfg.link_bits_per_cycle as f64 / 8.0
    }
    fn route(&self, src: u32, dst: u32, links: &mut Vec<u32>) -> f64 {
        let first = links.len();
        path_into(&self.fabric, src, dst, links);
        let h = (links.len() - first) as f64;
        let extra = (self.fabric.routers() * self.fabric.ports()) as u32;
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
