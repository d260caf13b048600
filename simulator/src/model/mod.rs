//! Network models behind one trait, one for each variant of the machine's [`Network`].
//!
//! The engine hands a model every inter-node message at the moment its data is ready to
//! enter the network (calls come in non-decreasing time order). A model answers with the
//! delivery time at once (the PSINS models) or later through [`NetCtx::deliver`] from one of
//! its own events (a packet-level model schedules router cycles with [`NetCtx::schedule`]).
//! Intra-node messages never reach the model: the engine times them with the intra-node link.

pub mod algorithm;
mod analytic;
mod contention;
mod dragonfly;
mod fattree;
mod flow;
mod links_busy;
mod packet;
mod pmac;
mod simple;
mod torus;

pub use analytic::analytic_collective;

use crate::units::Ps;
use psins_formats::Coll;
use psins_machine::{CollMode, Fabric, Machine, Network};

pub use psins_timeline::UsageTrack;

/// Engine-wide message handle, echoed back in [`NetCtx::deliver`].
pub type MsgId = u32;

/// A message entering the network.
#[derive(Clone, Copy, Debug)]
pub struct NetMsg {
    pub id: MsgId,
    pub src_node: u32,
    pub dst_node: u32,
    pub bytes: u64,
    /// When the data is ready to go; equal to the current simulation time.
    pub ready: Ps,
}

/// An analytic collective once every participant has arrived.
#[derive(Clone, Copy, Debug)]
pub struct CollCall {
    pub coll: Coll,
    pub participants: u32,
    /// Largest block any participant sends to or receives from one peer.
    pub bytes: u64,
    /// All participants on one node (intra-node link applies).
    pub single_node: bool,
    /// Time of the last arrival (= now).
    pub start: Ps,
    /// The cost of MPICH's algorithm for these arguments on a contention-free network with
    /// the machine's links ([`algorithm`]); `None` when the collective has an explicit shape
    /// or cannot be expanded (neighbourhood collectives).
    pub algorithm: Option<Ps>,
}

/// What a model may do besides answering: schedule its own events and report deliveries.
pub struct NetCtx<'a> {
    pub now: Ps,
    events: &'a mut Vec<(Ps, u32)>,
    delivered: &'a mut Vec<(MsgId, Ps)>,
    failure: &'a mut Option<String>,
}

impl<'a> NetCtx<'a> {
    pub fn new(
        now: Ps,
        events: &'a mut Vec<(Ps, u32)>,
        delivered: &'a mut Vec<(MsgId, Ps)>,
        failure: &'a mut Option<String>,
    ) -> Self {
        NetCtx { now, events, delivered, failure }
    }
    /// Calls [`NetworkModel::on_event`] with `token` at time `at` (≥ now). A model with more
    /// state than fits in 32 bits keeps its own table and passes an index.
    pub fn schedule(&mut self, at: Ps, token: u32) {
        debug_assert!(at >= self.now, "model scheduled an event in the past");
        self.events.push((at.max(self.now), token));
    }
    /// Message `id` (one that `send` answered `None` for) arrives at time `at` (≥ now).
    pub fn deliver(&mut self, id: MsgId, at: Ps) {
        self.delivered.push((id, at.max(self.now)));
    }
    /// The network cannot go on (e.g. a packet-level deadlock watchdog fired): the replay
    /// stops with this message and exit code 4 (docs/exit-codes.md).
    pub fn fail(&mut self, msg: impl Into<String>) {
        self.failure.get_or_insert_with(|| msg.into());
    }
}

/// A communication model (PSINS's `Model`).
pub trait NetworkModel {
    /// The registered name.
    fn name(&self) -> &'static str;
    /// `msg` enters the network now. `Some(t)`: it is delivered at `t`. `None`: the model
    /// will call `ctx.deliver(msg.id, t)` later, from `send` or `on_event`.
    fn send(&mut self, msg: &NetMsg, ctx: &mut NetCtx) -> Option<Ps>;
    /// One of the model's own events fires (`ctx.now` is its time).
    fn on_event(&mut self, _token: u32, _ctx: &mut NetCtx) {}
    /// Duration of an analytic collective.
    fn collective(&mut self, c: &CollCall) -> Ps;
    /// Collective mode when the machine file says `auto`.
    fn preferred_collectives(&self) -> CollMode {
        CollMode::Analytic
    }
    /// The largest message, in bytes, the model simulates in reasonable time (a packet-level
    /// model's limit): the engine refuses a bigger inter-node message with an error naming its
    /// record and [`NetworkModel::refuse_message`]'s reason, before the model sees it.
    fn max_message_bytes(&self) -> u64 {
        u64::MAX
    }
    /// Why a message of `bytes`, more than [`NetworkModel::max_message_bytes`], is refused.
    fn refuse_message(&self, bytes: u64) -> String {
        format!("a message of {bytes} bytes is more than the model's limit of {}", self.max_message_bytes())
    }
    /// The model's resource-use counter for the timeline (`--timeline`), e.g. busy buses;
    /// from this call on the model keeps the counter's changes for
    /// [`NetworkModel::take_usage`]. None (the default): the model has no such counter.
    fn track_usage(&mut self) -> Option<UsageTrack> {
        None
    }
    /// Hands over the changes kept since the last call, as `out(time, delta)`. A model that
    /// schedules its resources ahead hands over times at or after the call's; one that
    /// samples (the packet models) hands over a window's value once it has simulated past
    /// it. Either way no change comes before one already handed over.
    fn take_usage(&mut self, _out: &mut dyn FnMut(Ps, i64)) {}
    /// The replay is over: what the counter still holds back (a window not yet closed)
    /// goes out with the next [`NetworkModel::take_usage`].
    fn close_usage(&mut self) {}
    /// Model-specific statistics for the reports, as (name, value) pairs.
    fn stats(&self) -> Vec<(String, serde_json::Value)> {
        Vec::new()
    }
}

/// Why a machine's network model cannot be built: what the model needs beyond the machine
/// file's keys (a packet network's limits, a PMaC calibration file) is refused.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("[network.{section}] {source}")]
    Network {
        section: &'static str,
        #[source]
        source: psins_network::ConfigError,
    },
    #[error("[network] calibration {}: {source}", path.display())]
    CalibrationRead {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The calibration file's contents (the message starts with its path).
    #[error("{0}")]
    Calibration(String),
}

impl BuildError {
    /// The refusal of the packet network of `[network.<section>]`.
    fn network(section: &'static str) -> impl FnOnce(psins_network::ConfigError) -> BuildError {
        move |source| BuildError::Network { section, source }
    }
}

/// Builds the model the machine file names (the models and their names: `psins_machine::MODELS`).
pub fn build(m: &Machine) -> Result<Box<dyn NetworkModel>, BuildError> {
    match &m.network {
        Network::Simple => Ok(simple::build(m)),
        Network::Bus { buses } => Ok(contention::build(m, contention::Resource::Bus, *buses)),
        Network::InLink { in_links } => Ok(contention::build(m, contention::Resource::InLink, *in_links)),
        Network::OutLink { out_links } => Ok(contention::build(m, contention::Resource::OutLink, *out_links)),
        Network::Pmac(p) => pmac::build(m, p),
        Network::Packet(Fabric::Torus(c)) => torus::build(m, c),
        Network::Packet(Fabric::FatTree(c)) => fattree::build(m, c),
        Network::Packet(Fabric::Dragonfly(c)) => dragonfly::build(m, c),
        Network::Flow(f) => flow::build(m, f),
    }
}
