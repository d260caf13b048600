//! Fat-trees (k-ary n-trees and folded Clos networks, tapered or not) as a fabric:
//! up*/down* routing — up to the lowest common ancestor of source and destination, then
//! down the one way there — choosing the up port by destination-mod-k or adaptively by
//! the room behind each up port. Up*/down* never turns from down to up, so the channel
//! dependencies are acyclic and it is deadlock-free without VCs (docs/fattree.md).

pub mod config;
pub mod shape;
pub mod synth;

use crate::error::ConfigError;
use crate::fabric::Fabric;
use crate::flow::pick_lane;
use crate::network::Network;
use crate::router::{At, Refusal, Request};
use config::{FatTreeConfig, FatTreeRouting, MAX_LEVELS};
use shape::Shape;

/// A fat-tree simulated packet by packet.
pub type FatTree = Network<FatTreeFabric>;

pub struct FatTreeFabric {
    pub(crate) cfg: FatTreeConfig,
    pub(crate) shape: Shape,
    /// Per level 0..=h, what [`Fabric::dense_path`] reads.
    dense: Vec<DenseLevel>,
    /// Network links in all, as [`Fabric::dense_path`] numbers them.
    links: u32,
}

/// A level l of the tree (0: the node interfaces) as the flow model's route reads it.
#[derive(Clone, Copy)]
struct DenseLevel {
    /// m_l and w_{l+1} (shape.rs).
    down: u32,
    up: u32,
    /// B_l: switches of the level per subtree.
    per_subtree: u32,
    /// The flow graph's id of the level's first link, and links per router: every router's
    /// outputs 0..m_l + w_{l+1} have a link (down ports, then up), and no other.
    base: u32,
    ports: u32,
}

impl Fabric for FatTreeFabric {
    /// The destination node: routing reads it with the router's place in the tree.
    type Route = u32;
    type Hint = u32;
    /// Up to 2 VCs: 16 ports · 2 + injection = 33 inputs.
    const VC_BITS: u32 = 1;

    fn routers(&self) -> usize {
        self.shape.routers()
    }

    fn nodes(&self) -> usize {
        self.shape.nodes
    }

    fn ports(&self) -> usize {
        self.shape.ports
    }

    #[inline]
    fn neighbour(&self, r: u32, o: usize) -> u32 {
        self.shape.neighbour(r, o)
    }

    #[inline]
    fn entry_port(&self, r: u32, o: usize) -> usize {
        self.shape.entry_port(r, o)
    }

    /// Links are wired both ways: input i of r is fed by output i's far end.
    #[inline]
    fn upstream(&self, r: u32, i: usize) -> (u32, usize) {
        (self.shape.neighbour(r, i), self.shape.entry_port(r, i))
    }

    #[inline]
    fn route(&self, _src: u32, dst: u32) -> u32 {
        dst
    }

    #[inline(always)]
    fn hint(route: &u32) -> u32 {
        *route
    }

    #[inline(always)]
    fn step(&self, _route: &mut u32, _r: u32, _o: usize) {}

    #[inline(always)]
    fn request<const V: usize>(
        net: &Network<Self>,
        at: At,
        dst: u32,
        _in_port: usize,
        _in_vc: usize,
    ) -> Result<Request, Refusal> {
        let shape = &net.fabric.shape;
        let place = shape.place[at.r as usize];
        let l = place.level as usize;
        let offset = dst.wrapping_sub(place.lo) as u64;
        if offset < shape.below[l] {
            // Below: down the one way (at a node's interface, out of the ejection port).
            if l == 0 {
                return net.out_free(at, net.ports).map(|()| (net.ports, 0));
            }
            return down_or_up::<V>(net, at, (offset / shape.below[l - 1]) as usize);
        }
        let (m, w) = (shape.down[l] as usize, shape.up[l + 1] as u64);
        let dmodk = ((dst as u64 / shape.per_subtree[l]) % w) as usize;
        match net.fabric.cfg.routing {
            FatTreeRouting::DModK => down_or_up::<V>(net, at, m + dmodk),
            FatTreeRouting::Adaptive => adaptive_up::<V>(net, at, m, w as usize, dmodk),
        }
    }

    fn router_label(&self, r: u32) -> String {
        let (l, s) = self.shape.level_of(r);
        if l == 0 {
            format!("{r} (node {r})")
        } else {
            format!("{r} (level {l} switch {s})")
        }
    }

    fn node_label(&self, n: u32) -> String {
        n.to_string()
    }

    fn port_name(&self, p: usize) -> String {
        match p {
            p if p < self.shape.ports => format!("port {p}"),
            p if p == self.shape.ports => "eject".into(),
            _ => "inject".into(),
        }
    }

    /// The lower level of the link: 0 between nodes and leaves, 1 between leaves and the
    /// level above, …
    fn link_classes(&self) -> usize {
        self.shape.levels()
    }

    fn next_hop(&self, r: u32, dst: &u32) -> Option<usize> {
        let shape = &self.shape;
        let place = shape.place[r as usize];
        let l = place.level as usize;
        let offset = dst.wrapping_sub(place.lo) as u64;
        if offset < shape.below[l] {
            return (l > 0).then(|| (offset / shape.below[l - 1]) as usize);
        }
        let w = shape.up[l + 1] as u64;
        Some(shape.down[l] as usize + ((*dst as u64 / shape.per_subtree[l]) % w) as usize)
    }

    /// Up*/down* with D-mod-k in closed form (shape.rs's numbering): crossing level l on the
    /// way up, the route leaves switch (⌊src / M_l⌋, dst mod B_l) by up port ⌊dst / B_l⌋ mod
    /// w_{l+1} (each up step fixes one more B digit to the destination's), and on the way
    /// down it leaves level l+1's switch (⌊dst / M_{l+1}⌋, dst mod B_{l+1}) by down port
    /// ⌊dst / M_l⌋ mod m_{l+1}. A switch's links are numbered from its level's first link, so
    /// no table is read: three divisions per level crossed.
    fn dense_path(&self, src: u32, dst: u32, links: &mut Vec<u32>) -> bool {
        // ⌊src / M_l⌋, ⌊dst / M_l⌋, ⌊dst / B_l⌋, dst mod B_l at level l.
        let (mut s, mut d, mut dq, mut dr) = (src, dst, dst, 0u32);
        let mut down = [0u32; MAX_LEVELS];
        let mut l = 0;
        while s != d {
            let v = self.dense[l];
            let j = dq % v.up;
            links.push(v.base + (s * v.per_subtree + dr) * v.ports + v.down + j);
            dq /= v.up;
            dr += v.per_subtree * j;
            let a = self.dense[l + 1];
            let o = d % a.down;
            (s, d) = (s / a.down, d / a.down);
            down[l] = a.base + (d * a.per_subtree + dr) * a.ports + o;
            l += 1;
        }
        links.extend(down[..l].iter().rev());
        true
    }

    fn dense_links(&self) -> Option<u32> {
        Some(self.links)
    }

    fn link_class(&self, r: u32, o: usize) -> usize {
        let l = self.shape.place[r as usize].level as usize;
        if o < self.shape.down[l] as usize {
            l - 1
        } else {
            l
        }
    }
}

/// Output o, any lane with a free slot (the roomiest).
#[inline]
fn down_or_up<const V: usize>(net: &FatTree, at: At, o: usize) -> Result<Request, Refusal> {
    net.out_free(at, o)?;
    net.lane::<V>(at, o, 0..V, 1).map(|v| (o, v))
}

/// The free up port with the most room in any lane; ties go to the D-mod-k port, then to
/// the ports after it in turn, so an idle tree routes exactly as D-mod-k does.
#[inline]
fn adaptive_up<const V: usize>(net: &FatTree, at: At, m: usize, w: usize, first: usize) -> Result<Request, Refusal> {
    let mut best: Option<(usize, usize, u8)> = None;
    let mut refused = Refusal::NONE;
    for i in 0..w {
        let j = if first + i < w { first + i } else { first + i - w };
        let o = m + j;
        if let Err(busy) = net.out_free(at, o) {
            refused = refused.and(busy);
            continue;
        }
        let lanes = net.lanes::<V>(at, o).iter().map(|vc| vc.occupancy(at.c));
        match pick_lane(lanes, 0, net.cap, 1) {
            Some((v, room)) if best.is_none_or(|(_, _, b)| room > b) => best = Some((o, v, room)),
            Some(_) => {}
            None => refused = refused.and(net.room_refusal::<V>(at, o, 0..V)),
        }
    }
    best.map(|(o, v, _)| (o, v)).ok_or(refused)
}

impl FatTreeFabric {
    /// The tree of a validated `cfg` (checked here).
    pub fn new(cfg: FatTreeConfig) -> Result<FatTreeFabric, ConfigError> {
        cfg.validate()?;
        let shape = Shape::new(&cfg.down, &cfg.up);
        let mut dense = Vec::new();
        let mut base = 0u32;
        for l in 0..=shape.levels() {
            let (down, up) = (shape.down[l], shape.up[l + 1]);
            let per_subtree = shape.per_subtree[l] as u32;
            dense.push(DenseLevel { down, up, per_subtree, base, ports: down + up });
            base += (shape.first[l + 1] - shape.first[l]) * (down + up);
        }
        Ok(FatTreeFabric { cfg, shape, dense, links: base })
    }
}

impl Network<FatTreeFabric> {
    pub fn new(cfg: FatTreeConfig) -> Result<FatTree, ConfigError> {
        let router = cfg.router;
        Ok(Network::from_fabric(FatTreeFabric::new(cfg)?, router))
    }

    pub fn config(&self) -> &FatTreeConfig {
        &self.fabric.cfg
    }

    pub fn shape(&self) -> &Shape {
        &self.fabric.shape
    }
}
