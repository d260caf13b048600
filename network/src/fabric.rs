//! The topology-and-routing layer the packet engine ([`Network`]) is generic over.
//!
//! A fabric says what the routers are and how they are wired (network ports per router, the
//! router and input port each output leads to), what a packet carries to be routed (its
//! route record) and how a router picks an output and a downstream VC for a packet. The
//! engine does everything else the same way for every fabric: VC buffers, links,
//! cut-through, arbitration, events, statistics and the watchdog.
//!
//! Terminals: nodes 0..N−1 are routers 0..N−1, where their messages are injected (the
//! injection input) and ejected (output `ports()`). A fabric whose switches carry several
//! nodes models each node's network interface as a router of its own with one link to its
//! switch, so every router has at most one terminal and routers beyond N have none.
//!
//! The engine is monomorphised per fabric: the routing function inlines into the router
//! loop as if it were written there, so the layer costs the torus nothing.

use crate::network::Network;
use crate::router::{At, Refusal, Request};

/// Marks a port with no link (the edges of a mesh, unused ports of a switch).
pub const NO_LINK: u32 = u32::MAX;

/// A topology with its routing function.
pub trait Fabric: Sized {
    /// Routing state a packet carries; a message keeps the one its next packet starts with.
    type Route: Copy + Default;
    /// What a routing decision reads: a VC keeps its head packet's, a router its source
    /// queue head's, so deciding touches the router and its neighbours' VCs, never a packet.
    type Hint: Copy + Default;
    /// Inputs of a router are numbered `port·2^VC_BITS + vc`: at least log2 of the most VCs
    /// the fabric allows, and (ports()·2^VC_BITS + 1) inputs must fit a 64-bit mask.
    const VC_BITS: u32;

    /// Routers, terminals first.
    fn routers(&self) -> usize;
    /// Terminal nodes: routers `0..nodes()`.
    fn nodes(&self) -> usize;
    /// Network ports per router, the same for every router (missing links are [`NO_LINK`]);
    /// the ejection output is numbered `ports()`.
    fn ports(&self) -> usize;
    /// The router output port `o` of `r` leads to, or [`NO_LINK`].
    fn neighbour(&self, r: u32, o: usize) -> u32;
    /// The input port of `neighbour(r, o)` that output `o` of `r` feeds.
    fn entry_port(&self, r: u32, o: usize) -> usize;
    /// The router and output port feeding input port `i` of `r`.
    fn upstream(&self, r: u32, i: usize) -> (u32, usize);

    /// The route record of a message from node `src` to node `dst`.
    fn route(&self, src: u32, dst: u32) -> Self::Route;
    /// What deciding about a packet with this record needs.
    fn hint(route: &Self::Route) -> Self::Hint;
    /// The record after a hop out of network output `o` of router `r`.
    fn step(&self, route: &mut Self::Route, r: u32, o: usize);
    /// The output and downstream VC the packet at input (`in_port`, `in_vc`) of `at.r` asks
    /// for now (`in_port` is [`crate::router::FROM_SOURCE`] for the source queue), or why it
    /// cannot go and when to look again. At its destination a packet asks for the ejection
    /// output `ports()` (VC 0).
    fn request<const V: usize>(
        net: &Network<Self>,
        at: At,
        hint: Self::Hint,
        in_port: usize,
        in_vc: usize,
    ) -> Result<Request, Refusal>;

    /// A router as deadlock reports show it (`12 [4, 1]`).
    fn router_label(&self, r: u32) -> String;
    /// A node as deadlock reports show a packet's destination (`[4, 1]`).
    fn node_label(&self, n: u32) -> String;
    /// A port of a router as reports show it (`x+`, `eject`).
    fn port_name(&self, p: usize) -> String;
    /// Link classes of the utilisation statistics (torus: dimensions).
    fn link_classes(&self) -> usize;
    /// The class of the link behind output `o` of `r`.
    fn link_class(&self, r: u32, o: usize) -> usize;

    /// The oblivious route's next output at router `r` (None: eject here): dimension order
    /// on the torus, D-mod-k on the fat-tree, minimal on the dragonfly. The flow-level model
    /// routes every flow this way ([`path`]).
    fn next_hop(&self, r: u32, route: &Self::Route) -> Option<usize>;

    /// Appends the oblivious route's links from node `src` to `dst` numbered as
    /// [`crate::FabricGraph`] numbers them (each router's linked outputs in order, after those
    /// of every router before it) and returns true; or appends nothing and returns false, and
    /// the graph walks the route hop by hop ([`path_into`]) and renumbers it. A fabric whose
    /// wiring is arithmetic computes the route without the walk's reads of its wiring table,
    /// which a large fabric keeps far out of cache.
    fn dense_path(&self, _src: u32, _dst: u32, _links: &mut Vec<u32>) -> bool {
        false
    }

    /// The number of network links in [`crate::FabricGraph`]'s numbering when
    /// [`Fabric::dense_path`] numbers every route, so that the graph never walks one and needs
    /// no table of its own; None otherwise.
    fn dense_links(&self) -> Option<u32> {
        None
    }
}

/// The links (`router · ports + output`) of the oblivious route from node `src` to `dst`.
pub fn path<F: Fabric>(fabric: &F, src: u32, dst: u32) -> Vec<u32> {
    let mut links = Vec::new();
    path_into(fabric, src, dst, &mut links);
    links
}

/// [`path`], appended to `links` (the flow model routes every flow into one buffer).
pub fn path_into<F: Fabric>(fabric: &F, src: u32, dst: u32, links: &mut Vec<u32>) {
    let ports = fabric.ports() as u32;
    let mut route = fabric.route(src, dst);
    let mut r = src;
    while let Some(o) = fabric.next_hop(r, &route) {
        links.push(r * ports + o as u32);
        fabric.step(&mut route, r, o);
        r = fabric.neighbour(r, o);
    }
    debug_assert_eq!(r, dst);
}
