//! The k-ary n-cube (torus or mesh) as a fabric: one router per node, ports by direction
//! of travel, a routing record per packet, dimension-order or minimal adaptive routing
//! with bubble flow control. `Torus` is the engine instantiated on it.

mod bubble;
pub mod config;
mod decide;
pub mod routing;
pub mod topology;

use crate::error::ConfigError;
use crate::fabric::Fabric;
use crate::network::Network;
use crate::router::{At, Refusal, Request};
use config::{Routing, TorusConfig};
use routing::{Ports, RouteRecord};
use topology::Topology;

/// A k-ary n-cube of routers simulated packet by packet.
pub type Torus = Network<TorusFabric>;

/// The torus's topology, routing and flow-control settings.
pub struct TorusFabric {
    pub(crate) cfg: TorusConfig,
    pub(crate) topo: Topology,
    /// Free slots a packet entering a ring needs in the target VC (the bubble rule).
    pub(crate) enter_slots: u8,
}

impl Fabric for TorusFabric {
    type Route = RouteRecord;
    type Hint = Ports;
    /// Up to 4 VCs; 12 ports · 4 + injection = 49 inputs.
    const VC_BITS: u32 = 2;

    fn routers(&self) -> usize {
        self.topo.nodes()
    }

    fn nodes(&self) -> usize {
        self.topo.nodes()
    }

    fn ports(&self) -> usize {
        self.topo.ports
    }

    #[inline]
    fn neighbour(&self, r: u32, o: usize) -> u32 {
        self.topo.neighbour(r, o)
    }

    /// Output o feeds input o downstream: a packet's input port tells which way it was
    /// going, which the bubble rule needs.
    #[inline(always)]
    fn entry_port(&self, _r: u32, o: usize) -> usize {
        o
    }

    #[inline(always)]
    fn upstream(&self, r: u32, i: usize) -> (u32, usize) {
        (self.topo.upstream(r, i), i)
    }

    #[inline]
    fn route(&self, src: u32, dst: u32) -> RouteRecord {
        RouteRecord::new(&self.topo, src, dst)
    }

    #[inline(always)]
    fn hint(route: &RouteRecord) -> Ports {
        route.ports()
    }

    #[inline(always)]
    fn step(&self, route: &mut RouteRecord, _r: u32, o: usize) {
        route.step(o);
    }

    #[inline(always)]
    fn request<const V: usize>(
        net: &Network<Self>,
        at: At,
        route: Ports,
        in_port: usize,
        in_vc: usize,
    ) -> Result<Request, Refusal> {
        let Some(dor) = route.dor() else {
            return net.out_free(at, net.ports).map(|()| (net.ports, 0));
        };
        match net.fabric.cfg.routing {
            Routing::Dor => decide::route_dor::<V>(net, at, dor, in_port),
            Routing::Adaptive => decide::route_adaptive::<V>(net, at, dor, route.profitable(), in_port, in_vc),
        }
    }

    fn router_label(&self, r: u32) -> String {
        format!("{r} {:?}", self.topo.coords_of(r))
    }

    fn node_label(&self, n: u32) -> String {
        format!("{:?}", self.topo.coords_of(n))
    }

    fn port_name(&self, p: usize) -> String {
        self.topo.port_name(p)
    }

    fn link_classes(&self) -> usize {
        self.topo.dims.len()
    }

    fn link_class(&self, _r: u32, o: usize) -> usize {
        o / 2
    }

    fn next_hop(&self, _r: u32, route: &RouteRecord) -> Option<usize> {
        route.ports().dor()
    }
}

impl TorusFabric {
    /// The torus of `cfg` (validated here).
    pub fn new(cfg: TorusConfig) -> Result<TorusFabric, ConfigError> {
        cfg.validate()?;
        let topo = Topology::new(&cfg.dims, cfg.mesh);
        let enter_slots = bubble::slots_needed(!cfg.mesh, cfg.bubble, false);
        Ok(TorusFabric { cfg, topo, enter_slots })
    }
}

impl Network<TorusFabric> {
    pub fn new(cfg: TorusConfig) -> Result<Torus, ConfigError> {
        let router = cfg.router();
        Ok(Network::from_fabric(TorusFabric::new(cfg)?, router))
    }

    pub fn config(&self) -> &TorusConfig {
        &self.fabric.cfg
    }

    pub fn topology(&self) -> &Topology {
        &self.fabric.topo
    }
}

// A packet stays one cache line with the torus's routing record.
const _: () = assert!(size_of::<crate::slab::Packet<RouteRecord>>() == 64);
