//! `dragonfly`: the packet-level dragonfly of `psins-network` (docs/dragonfly.md), through
//! the packet-network adapter (`packet.rs`).

use super::packet::PacketModel;
use super::{BuildError, NetworkModel};
use psins_machine::Machine;
use psins_network::Dragonfly;

pub fn build(m: &Machine, cfg: &psins_network::DragonflyConfig) -> Result<Box<dyn NetworkModel>, BuildError> {
    let cfg = cfg.clone();
    let design = format!(
        "dragonfly p={} a={} h={} g={} {:?}, {} {} VC, {} GHz",
        cfg.p,
        cfg.a,
        cfg.h,
        cfg.g,
        cfg.arrangement,
        cfg.routing.name(),
        cfg.router.vcs,
        cfg.router.clock_hz / 1e9
    );
    let net = Dragonfly::new(cfg).map_err(BuildError::network("dragonfly"))?;
    Ok(PacketModel::boxed("dragonfly", net, m, design, "class_utilisation"))
}
