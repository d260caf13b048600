//! `torus`: the packet-level k-ary n-cube of `psins-network` (docs/torus.md), through the
//! packet-network adapter (`packet.rs`).

use super::packet::PacketModel;
use super::NetworkModel;
use crate::config::Machine;
use psins_network::Torus;

pub fn build(m: &Machine) -> Result<Box<dyn NetworkModel>, String> {
    // The machine file's resolution fills `torus` for this model; the default is a fallback
    // for machines built in code.
    let cfg = m.torus.clone().unwrap_or_default();
    let kind = if cfg.mesh { "mesh" } else { "torus" };
    let design = format!(
        "{} {kind}, {} {} VC, {} GHz",
        crate::config::torus::dims_text(&cfg.dims),
        cfg.routing.name(),
        cfg.vcs,
        cfg.clock_hz / 1e9
    );
    let net = Torus::new(cfg).map_err(|e| format!("[network.torus] {e}"))?;
    Ok(PacketModel::boxed("torus", net, m, design, "dim_utilisation"))
}
