//! `flow`: the flow-level model of `psins-network` (`FluidNetwork`): every inter-node message
//! is one flow along the oblivious route of a torus, fat-tree or dragonfly (the graph of
//! `[network.torus]`, `[network.fattree]` or `[network.dragonfly]`), or through the flat
//! cluster's crossbar (`[network]` latency and bandwidth per node link, optionally a
//! backbone), as `[network.flow] topology` chooses; sharing links max-min fairly with the
//! flows in progress; delivered the route's latency after its last byte leaves
//! (docs/models.md). For runs too large for packets.

use super::{analytic_collective, BuildError, CollCall, MsgId, NetCtx, NetMsg, NetworkModel, UsageTrack};
use crate::units::Ps;
use psins_machine::{CollMode, FlowConfig, FlowGraph, Machine};
use psins_network::{
    Cluster, DragonflyFabric, Fabric, FabricGraph, FatTreeFabric, FlowGraph as Graph, FluidNetwork, RouterConfig,
    TorusFabric,
};
use serde_json::Value;

struct FlowModel<G: Graph> {
    net: FluidNetwork<G>,
    /// The graph's time units per second.
    hz: f64,
    machine: Machine,
    design: String,
    /// The earliest model event pending in the engine (ps), if any: a new one is scheduled
    /// only when earlier.
    armed: Option<Ps>,
    done: Vec<(u64, f64)>,
    /// Bytes added to every message's flow (`[network.flow] envelope`).
    envelope: u64,
    /// With a timeline: (time, change) of the links carrying a flow, and the count last
    /// handed on.
    usage: Option<Vec<(Ps, i64)>>,
    busy: i64,
}

pub fn build(m: &Machine, flow: &FlowConfig) -> Result<Box<dyn NetworkModel>, BuildError> {
    match &flow.graph {
        FlowGraph::Cluster { backbone } => {
            let link = &m.inter;
            let design = match backbone {
                Some(b) => format!("flow over a cluster of {} nodes, backbone {b:.4e} B/s", m.nodes),
                None => format!("flow over a cluster of {} nodes, no backbone", m.nodes),
            };
            let g = Cluster::new(m.nodes, link.bandwidth, *backbone, link.latency as f64);
            Ok(model(g, m, flow, design))
        }
        FlowGraph::Fabric(psins_machine::Fabric::Torus(cfg)) => {
            let design = format!("flow over the {} torus", psins_machine::torus::dims_text(&cfg.dims));
            let router = cfg.router();
            let f = TorusFabric::new(cfg.clone()).map_err(BuildError::network("torus"))?;
            Ok(boxed(f, router, m, flow, design))
        }
        FlowGraph::Fabric(psins_machine::Fabric::FatTree(cfg)) => {
            let design = format!("flow over the fat-tree down {:?} up {:?} (D-mod-k)", cfg.down, cfg.up);
            let router = cfg.router;
            let f = FatTreeFabric::new(cfg.clone()).map_err(BuildError::network("fattree"))?;
            Ok(boxed(f, router, m, flow, design))
        }
        FlowGraph::Fabric(psins_machine::Fabric::Dragonfly(cfg)) => {
            let mut cfg = cfg.clone();
            let design = format!("flow over the dragonfly p={} a={} h={} g={} (minimal)", cfg.p, cfg.a, cfg.h, cfg.g);
            // Flows take the minimal route; its two VC classes are what validation asks for.
            cfg.routing = psins_network::DragonflyRouting::Minimal;
            cfg.router.vcs = cfg.router.vcs.max(2);
            let router = cfg.router;
            let f = DragonflyFabric::new(cfg).map_err(BuildError::network("dragonfly"))?;
            Ok(boxed(f, router, m, flow, design))
        }
    }
}

/// The flow model over a packet network's links (its node count is the machine's, checked
/// when the machine file was read).
fn boxed<F: Fabric + 'static>(
    fabric: F,
    router: RouterConfig,
    m: &Machine,
    flow: &FlowConfig,
    design: String,
) -> Box<dyn NetworkModel> {
    model(FabricGraph::new(fabric, router), m, flow, design)
}

fn model<G: Graph + 'static>(graph: G, m: &Machine, flow: &FlowConfig, design: String) -> Box<dyn NetworkModel> {
    let hz = graph.units_per_second();
    let envelope = flow.envelope;
    let net = FluidNetwork::new(graph).latency_first(flow.latency_first).latency_weighted(flow.latency_weighted);
    Box::new(FlowModel {
        net,
        hz,
        machine: m.clone(),
        design,
        armed: None,
        done: Vec::new(),
        envelope,
        usage: None,
        busy: 0,
    })
}

impl<G: Graph> FlowModel<G> {
    fn cycle_of(&self, ps: Ps) -> f64 {
        ps as f64 * self.hz / 1e12
    }

    fn ps_of(&self, cycle: f64) -> Ps {
        (cycle * 1e12 / self.hz).ceil() as Ps
    }

    fn report(&mut self, ctx: &mut NetCtx) {
        for i in 0..self.done.len() {
            let (id, at) = self.done[i];
            let t = self.ps_of(at);
            ctx.deliver(id as MsgId, t);
        }
        self.done.clear();
    }

    /// Notes a change of the busy links since the last look (at every model event and send,
    /// so at the instants flows start and end), when a timeline asked for them.
    fn note_usage(&mut self, now: Ps) {
        if let Some(u) = &mut self.usage {
            let b = self.net.busy_links() as i64;
            if b != self.busy {
                u.push((now, b - self.busy));
                self.busy = b;
            }
        }
    }

    /// Makes sure a model event comes at the network's next end, or now if arrivals wait for
    /// their solve: every send of this instant joins that one solve.
    fn arm(&mut self, ctx: &mut NetCtx) {
        let at = if self.net.unsettled() {
            ctx.now
        } else {
            let Some(end) = self.net.next_end() else { return };
            self.ps_of(end).max(ctx.now)
        };
        if self.armed.is_some_and(|a| a <= at && a >= ctx.now) {
            return;
        }
        self.armed = Some(at);
        ctx.schedule(at, 0);
    }
}

impl<G: Graph> NetworkModel for FlowModel<G> {
    fn name(&self) -> &'static str {
        "flow"
    }

    fn send(&mut self, msg: &NetMsg, ctx: &mut NetCtx) -> Option<Ps> {
        let cycle = self.cycle_of(msg.ready);
        let r = self.net.inject(
            msg.id as u64,
            msg.src_node,
            msg.dst_node,
            msg.bytes.saturating_add(self.envelope),
            cycle,
            &mut self.done,
        );
        if let Err(e) = r {
            ctx.fail(e.to_string());
            return None;
        }
        self.report(ctx);
        self.note_usage(ctx.now);
        self.arm(ctx);
        None
    }

    fn on_event(&mut self, _token: u32, ctx: &mut NetCtx) {
        if self.armed.is_some_and(|a| a <= ctx.now) {
            self.armed = None;
        }
        // A hair past now: the event's picosecond was rounded up from the flow's end.
        let cycle = self.cycle_of(ctx.now) * (1.0 + 1e-12) + 1e-9;
        // Solves first if sends of this instant wait for it.
        self.net.advance_to(cycle, &mut self.done);
        self.report(ctx);
        self.note_usage(ctx.now);
        self.arm(ctx);
    }

    fn track_usage(&mut self) -> Option<UsageTrack> {
        self.usage = Some(Vec::new());
        Some(UsageTrack::count("links carrying a flow"))
    }

    fn take_usage(&mut self, out: &mut dyn FnMut(Ps, i64)) {
        for (at, d) in self.usage.iter_mut().flat_map(|u| u.drain(..)) {
            out(at, d);
        }
    }

    fn collective(&mut self, c: &CollCall) -> Ps {
        analytic_collective(&self.machine, c)
    }

    fn preferred_collectives(&self) -> CollMode {
        CollMode::Expanded
    }

    fn stats(&self) -> Vec<(String, Value)> {
        let (flows, bytes) = self.net.totals();
        vec![
            ("design".into(), self.design.clone().into()),
            ("flows".into(), flows.into()),
            ("bytes".into(), (bytes.round() as u64).into()),
        ]
    }
}
