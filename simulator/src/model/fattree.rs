//! `fattree`: the packet-level fat-tree of `psins-network` (docs/fattree.md), through the
//! packet-network adapter (`packet.rs`).

use super::packet::PacketModel;
use super::{BuildError, NetworkModel};
use psins_machine::Machine;
use psins_network::FatTree;

pub fn build(m: &Machine, cfg: &psins_network::FatTreeConfig) -> Result<Box<dyn NetworkModel>, BuildError> {
    let cfg = cfg.clone();
    let design = format!(
        "fat-tree down {:?} up {:?}, {} {} VC, {} GHz",
        cfg.down,
        cfg.up,
        cfg.routing.name(),
        cfg.router.vcs,
        cfg.router.clock_hz / 1e9
    );
    let net = FatTree::new(cfg).map_err(BuildError::network("fattree"))?;
    Ok(PacketModel::boxed("fattree", net, m, design, "level_utilisation"))
}
