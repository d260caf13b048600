//! `torus`: the packet-level k-ary n-cube of `psins-network` (docs/torus.md), through the
//! packet-network adapter (`packet.rs`).

use super::packet::PacketModel;
use super::{BuildError, NetworkModel};
use psins_machine::Machine;
use psins_network::Torus;

pub fn build(m: &Machine, cfg: &psins_network::TorusConfig) -> Result<Box<dyn NetworkModel>, BuildError> {
    let cfg = cfg.clone();
    let kind = if cfg.mesh { "mesh" } else { "torus" };
    let design = format!(
        "{} {kind}, {} {} VC, {} GHz",
        psins_machine::torus::dims_text(&cfg.dims),
        cfg.routing.name(),
        cfg.vcs,
        cfg.clock_hz / 1e9
    );
    let net = Torus::new(cfg).map_err(BuildError::network("torus"))?;
    Ok(PacketModel::boxed("torus", net, m, design, "dim_utilisation"))
}
