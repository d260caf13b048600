//! Dragonflies (p, a, h, g) as a fabric: groups of fully connected routers joined by
//! global links, routed minimally (local, global, local), by Valiant (minimally to a
//! random intermediate group, then minimally on), or by UGAL (at the source router, the
//! minimal path unless its queue is more than twice the Valiant path's; UGAL-L reads the
//! source router's own outputs, UGAL-G the two paths' global channels). Deadlock freedom:
//! a packet's VC is the number of global hops it has taken (its class), so along any path
//! the class never falls and, within a class, a packet takes at most one local hop and then
//! one global hop: no cycle of channel dependencies (docs/dragonfly.md).

pub mod config;
pub mod shape;
pub mod synth;

use std::cell::Cell;

use crate::error::ConfigError;
use crate::fabric::Fabric;
use crate::network::Network;
use crate::router::{At, Refusal, Request};
use config::{Arrangement, DragonflyConfig, DragonflyRouting};
use shape::Shape;

/// A dragonfly simulated packet by packet.
pub type Dragonfly = Network<DragonflyFabric>;

/// No intermediate group.
pub const NO_GROUP: u32 = u32::MAX;

/// What a packet carries: its destination, the intermediate group it still has to reach
/// (Valiant, or UGAL's non-minimal candidate), its VC class (global hops taken), and whether
/// UGAL has still to choose between the two.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Route {
    pub dst: u32,
    pub mid: u32,
    pub class: u8,
    pub undecided: bool,
}

pub struct DragonflyFabric {
    pub(crate) cfg: DragonflyConfig,
    pub(crate) shape: Shape,
    /// Draws of intermediate groups so far: with the endpoints, the seed of the next.
    draws: Cell<u64>,
}

impl DragonflyFabric {
    /// Output of switch (group, i) toward group `target` ≠ group: its own global link to it
    /// if it has one (the first copy that is its), else the local link to the router with
    /// copy `dst mod copies`.
    #[inline]
    fn exit(&self, group: u32, i: u32, target: u32, dst: u32) -> usize {
        let s = &self.shape;
        let mut k = s.global_port(group, target, 0);
        if s.copies > 1 {
            if let Some(own) = (0..s.copies).map(|c| s.global_port(group, target, c)).find(|&k| k / s.h == i) {
                k = own;
            } else {
                k = s.global_port(group, target, dst % s.copies);
            }
        }
        if k / s.h == i {
            s.global_router_port(k % s.h)
        } else {
            s.local_port(i, k / s.h)
        }
    }

    /// The output of switch (group, i) a packet for `dst` takes toward `target` (its
    /// destination's group, or its intermediate group).
    #[inline]
    fn toward(&self, group: u32, i: u32, target: u32, dst: u32) -> usize {
        let (dg, di) = self.shape.home(dst);
        if target != group {
            return self.exit(group, i, target, dst);
        }
        debug_assert_eq!(dg, group);
        if di == i {
            (dst % self.shape.p) as usize
        } else {
            self.shape.local_port(i, di)
        }
    }

    /// A random group other than a and b (splitmix64 of the endpoints and a counter).
    fn draw(&self, a: u32, b: u32) -> u32 {
        let n = self.draws.get();
        self.draws.set(n + 1);
        use psins_formats::splitmix;
        let z = splitmix::mix(n.wrapping_mul(splitmix::GAMMA) ^ ((a as u64) << 32 | b as u64));
        let (lo, hi) = (a.min(b), a.max(b));
        let mut x = (z % (self.shape.g as u64 - 2)) as u32;
        if x >= lo {
            x += 1;
        }
        if x >= hi {
            x += 1;
        }
        x
    }

    /// Packets queued behind output o of router r in lane v.
    fn queue(net: &Dragonfly, r: u32, o: usize, v: usize, c: u64) -> u32 {
        let first = net.out[r as usize * (net.ports + 1) + o].first_vc as usize;
        net.vc[first + v].occupancy(c) as u32
    }
}

impl Fabric for DragonflyFabric {
    type Route = Route;
    type Hint = Route;
    /// Up to 4 VCs: 15 ports · 4 + injection = 61 inputs.
    const VC_BITS: u32 = 2;

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

    #[inline]
    fn upstream(&self, r: u32, i: usize) -> (u32, usize) {
        (self.shape.neighbour(r, i), self.shape.entry_port(r, i))
    }

    fn route(&self, src: u32, dst: u32) -> Route {
        let (sg, dg) = (self.shape.home(src).0, self.shape.home(dst).0);
        let mut route = Route { dst, mid: NO_GROUP, class: 0, undecided: false };
        if sg != dg && self.shape.g > 2 && self.cfg.routing != DragonflyRouting::Minimal {
            route.mid = self.draw(sg, dg);
            route.undecided = matches!(self.cfg.routing, DragonflyRouting::UgalL | DragonflyRouting::UgalG);
        }
        route
    }

    #[inline(always)]
    fn hint(route: &Route) -> Route {
        *route
    }

    fn step(&self, route: &mut Route, r: u32, o: usize) {
        let s = &self.shape;
        if (r as usize) < s.nodes {
            return;
        }
        let (group, i) = s.place(r);
        if route.undecided {
            // UGAL chose here: the minimal output means minimal (also when both agree).
            route.undecided = false;
            if o == self.toward(group, i, s.home(route.dst).0, route.dst) {
                route.mid = NO_GROUP;
            }
        }
        if o >= s.global_router_port(0) {
            route.class += 1;
            if s.place(s.neighbour(r, o)).0 == route.mid {
                route.mid = NO_GROUP;
            }
        }
    }

    fn request<const V: usize>(
        net: &Network<Self>,
        at: At,
        route: Route,
        _in_port: usize,
        _in_vc: usize,
    ) -> Result<Request, Refusal> {
        let f = &net.fabric;
        let s = &f.shape;
        if (at.r as usize) < s.nodes {
            // A node's interface: eject, or up to its router in any lane.
            let o = if route.dst == at.r { net.ports } else { 0 };
            net.out_free(at, o)?;
            return if o == net.ports { Ok((o, 0)) } else { net.lane::<V>(at, o, 0..V, 1).map(|v| (o, v)) };
        }
        let (group, i) = s.place(at.r);
        let dg = s.home(route.dst).0;
        let target = if route.mid != NO_GROUP { route.mid } else { dg };
        let mut o = f.toward(group, i, target, route.dst);
        if route.undecided {
            let minimal = f.toward(group, i, dg, route.dst);
            let class = route.class as usize;
            let (q_min, q_val) = match f.cfg.routing {
                DragonflyRouting::UgalG => {
                    let global = |out: usize, t: u32| {
                        // The global channel of the path: this router's own, or the one of
                        // the router its local link leads to.
                        if out >= s.global_router_port(0) {
                            DragonflyFabric::queue(net, at.r, out, class, at.c)
                        } else {
                            let next = s.neighbour(at.r, out);
                            let (_, j) = s.place(next);
                            DragonflyFabric::queue(net, next, f.exit(group, j, t, route.dst), class, at.c)
                        }
                    };
                    (global(minimal, dg), global(o, target))
                }
                _ => (
                    DragonflyFabric::queue(net, at.r, minimal, class, at.c),
                    DragonflyFabric::queue(net, at.r, o, class, at.c),
                ),
            };
            if q_min <= 2 * q_val {
                o = minimal;
            }
        }
        net.out_free(at, o)?;
        if o < s.p as usize {
            // Down to a node's interface: any lane.
            return net.lane::<V>(at, o, 0..V, 1).map(|v| (o, v));
        }
        let v = if f.cfg.one_class { 0 } else { route.class as usize };
        net.lane::<V>(at, o, v..v + 1, 1).map(|v| (o, v))
    }

    fn router_label(&self, r: u32) -> String {
        if (r as usize) < self.shape.nodes {
            format!("{r} (node {r})")
        } else {
            let (group, i) = self.shape.place(r);
            format!("{r} (group {group} router {i})")
        }
    }

    fn node_label(&self, n: u32) -> String {
        n.to_string()
    }

    fn port_name(&self, port: usize) -> String {
        let s = &self.shape;
        let (p, a) = (s.p as usize, s.a as usize);
        match port {
            x if x < p => format!("node {x}"),
            x if x < p + a - 1 => format!("local {}", x - p),
            x if x < s.ports => format!("global {}", x - p - a + 1),
            x if x == s.ports => "eject".into(),
            _ => "inject".into(),
        }
    }

    /// 0: node links, 1: local, 2: global.
    fn link_classes(&self) -> usize {
        3
    }

    fn next_hop(&self, r: u32, route: &Route) -> Option<usize> {
        let s = &self.shape;
        if (r as usize) < s.nodes {
            return (route.dst != r).then_some(0);
        }
        let (group, i) = s.place(r);
        Some(self.toward(group, i, s.home(route.dst).0, route.dst))
    }

    fn link_class(&self, r: u32, o: usize) -> usize {
        let s = &self.shape;
        if (r as usize) < s.nodes || o < s.p as usize {
            0
        } else if o < (s.p + s.a - 1) as usize {
            1
        } else {
            2
        }
    }
}

impl DragonflyFabric {
    /// The dragonfly of `cfg` (validated here).
    pub fn new(cfg: DragonflyConfig) -> Result<DragonflyFabric, ConfigError> {
        cfg.validate()?;
        let shape = Shape::new(cfg.p, cfg.a, cfg.h, cfg.g, cfg.arrangement == Arrangement::Relative);
        Ok(DragonflyFabric { cfg, shape, draws: Cell::new(0) })
    }
}

impl Network<DragonflyFabric> {
    pub fn new(cfg: DragonflyConfig) -> Result<Dragonfly, ConfigError> {
        let router = cfg.router;
        Ok(Network::from_fabric(DragonflyFabric::new(cfg)?, router))
    }

    pub fn config(&self) -> &DragonflyConfig {
        &self.fabric.cfg
    }

    pub fn shape(&self) -> &Shape {
        &self.fabric.shape
    }
}
