//! From the file as written to the resolved [`Machine`] (defaults, cross-field checks), and
//! back to TOML for `psins-sim check`.

use super::file::{CollMode, MachineFile, MappingKind};
use super::{coll_key, default_shape, CpuRatios, Link, Machine, Shape};
use crate::units::{fmt_bandwidth, fmt_bytes, fmt_time};
use psins_formats::Coll;
use psins_torus::TorusConfig;
use std::fmt::Write;
use std::path::Path;

pub const DEFAULT_EAGER: u64 = 64 * 1024;
/// Per-node state (links, CPU ratios) must fit in memory.
const MAX_NODES: u32 = 1 << 24;
/// Servers per group (buses, links per node).
const MAX_SERVERS: u32 = 1 << 16;

pub fn resolve(path: &Path, f: MachineFile) -> Result<Machine, String> {
    let m = &f.machine;
    if m.nodes == 0 || m.cores_per_node == 0 {
        return Err("[machine] nodes and cores_per_node must be at least 1".into());
    }
    if m.nodes > MAX_NODES {
        return Err(format!("[machine] nodes = {} is more than the {MAX_NODES} the simulator supports", m.nodes));
    }
    let node_of_rank = match (m.mapping, &m.node_of_rank) {
        (MappingKind::List, Some(v)) => {
            if let Some(bad) = v.iter().find(|&&n| n >= m.nodes) {
                return Err(format!("[machine] node_of_rank names node {bad} but there are {} nodes", m.nodes));
            }
            v.clone()
        }
        (MappingKind::List, None) => return Err("[machine] mapping = \"list\" needs node_of_rank = [...]".into()),
        (_, Some(_)) => return Err("[machine] node_of_rank is only used with mapping = \"list\"".into()),
        (_, None) => Vec::new(),
    };
    let cpu = cpu_ratios(&f)?;
    let inter = Link { latency: f.network.latency.0, bandwidth: f.network.bandwidth.0 };
    let intra = f.intra.as_ref().map(|l| Link { latency: l.latency.0, bandwidth: l.bandwidth.0 }).unwrap_or(inter);
    let mut shapes = Vec::new();
    for (name, s) in &f.mpi.collective_shape {
        let c = Coll::ALL
            .iter()
            .copied()
            .find(|c| coll_key(*c) == *name)
            .ok_or_else(|| format!("[mpi.collective_shape] unknown collective `{name}`"))?;
        shapes.push((c, Shape::parse(s).map_err(|e| format!("[mpi.collective_shape] {name}: {e}"))?));
    }
    let n = &f.network;
    let count = |v: Option<u32>, what: &str| match v {
        Some(0) => Err(format!("[network] {what} must be at least 1")),
        Some(n) if n > MAX_SERVERS => Err(format!("[network] {what} = {n} is more than {MAX_SERVERS}")),
        v => Ok(v.unwrap_or(1)),
    };
    let calibration = n.calibration.as_ref().map(|c| path.parent().unwrap_or(Path::new(".")).join(c));
    Ok(Machine {
        path: path.to_path_buf(),
        name: m
            .name
            .clone()
            .unwrap_or_else(|| path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()),
        nodes: m.nodes,
        cores_per_node: m.cores_per_node,
        mapping: m.mapping,
        node_of_rank,
        cpu,
        intra,
        inter,
        eager_threshold: f.mpi.eager_threshold.map(|b| b.0).unwrap_or(DEFAULT_EAGER),
        collectives: f.mpi.collectives.unwrap_or(CollMode::Auto),
        call_overhead: f.mpi.call_overhead.map(|t| t.0).unwrap_or(0),
        rendezvous_handshake: f.mpi.rendezvous_handshake.unwrap_or(true),
        shapes,
        model: n.model.clone(),
        buses: count(n.buses, "buses")?,
        in_links: count(n.in_links, "in_links")?,
        out_links: count(n.out_links, "out_links")?,
        calibration,
        torus: torus_config(&f)?,
    })
}

/// `[network.torus]` (defaults when the model is `torus` and the section is absent). The
/// machine's nodes must be the torus's routers: one node per router, so a rank's node is
/// its router and a mismatch is a mistake, not something to guess around.
fn torus_config(f: &MachineFile) -> Result<Option<TorusConfig>, String> {
    let is_torus = f.network.model == "torus";
    let cfg = match (&f.network.torus, is_torus) {
        (Some(s), _) => super::torus::resolve(s)?,
        (None, true) => super::torus::resolve(&Default::default())?,
        (None, false) => return Ok(None),
    };
    if is_torus && cfg.nodes() != f.machine.nodes {
        return Err(format!(
            "[machine] nodes = {} but the torus ([network.torus] dims = \"{}\") has {} routers, one per node: set nodes = {}",
            f.machine.nodes,
            super::torus::dims_text(&cfg.dims),
            cfg.nodes(),
            cfg.nodes()
        ));
    }
    Ok(Some(cfg))
}

fn cpu_ratios(f: &MachineFile) -> Result<CpuRatios, String> {
    let m = &f.machine;
    let default = match (m.cpu_ratio, m.clock, m.base_clock) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err("[machine] give either cpu_ratio or clock and base_clock, not both".into())
        }
        (Some(r), None, None) => r,
        (None, Some(c), Some(b)) => c.0 / b.0,
        (None, Some(_), None) | (None, None, Some(_)) => {
            return Err("[machine] clock and base_clock go together (ratio = clock / base_clock)".into())
        }
        (None, None, None) => 1.0,
    };
    check_ratio(default)?;
    let mut overrides = Vec::new();
    for o in &m.cpu {
        check_ratio(o.ratio)?;
        for &node in &o.nodes.0 {
            if node >= m.nodes {
                return Err(format!("[[machine.cpu]] names node {node} but there are {} nodes", m.nodes));
            }
            overrides.push((node, o.ratio));
        }
    }
    overrides.sort_by_key(|&(n, _)| n);
    if overrides.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err("[[machine.cpu]] lists a node twice".into());
    }
    Ok(CpuRatios { default, overrides })
}

fn check_ratio(r: f64) -> Result<(), String> {
    if r.is_finite() && r > 0.0 {
        Ok(())
    } else {
        Err(format!("[machine] CPU ratio {r} must be a positive number"))
    }
}

/// The effective configuration as TOML (every default written out, units restored).
pub fn print(m: &Machine) -> String {
    let mut s = String::new();
    let mapping = match m.mapping {
        MappingKind::Block => "block",
        MappingKind::Cyclic => "cyclic",
        MappingKind::List => "list",
    };
    let _ = writeln!(s, "# effective configuration of {}", m.path.display());
    let _ = writeln!(
        s,
        "[machine]\nname = {:?}\nnodes = {}\ncores_per_node = {}\nmapping = \"{mapping}\"",
        m.name, m.nodes, m.cores_per_node
    );
    if !m.node_of_rank.is_empty() {
        let _ = writeln!(s, "node_of_rank = {:?}", m.node_of_rank);
    }
    let _ = writeln!(s, "cpu_ratio = {:?}", m.cpu.default);
    for (node, r) in &m.cpu.overrides {
        let _ = writeln!(s, "[[machine.cpu]]\nnodes = [{node}]\nratio = {r:?}");
    }
    let _ = writeln!(
        s,
        "\n[intra]\nlatency = \"{}\"\nbandwidth = \"{}\"",
        fmt_time(m.intra.latency),
        fmt_bandwidth(m.intra.bandwidth)
    );
    let mode = match m.collectives {
        CollMode::Analytic => "analytic",
        CollMode::Expanded => "expanded",
        CollMode::Auto => "auto",
    };
    let _ = writeln!(
        s,
        "\n[mpi]\neager_threshold = \"{}\"\ncollectives = \"{mode}\"\ncall_overhead = \"{}\"\nrendezvous_handshake = {}",
        fmt_bytes(m.eager_threshold),
        fmt_time(m.call_overhead),
        m.rendezvous_handshake
    );
    let _ = writeln!(s, "\n[mpi.collective_shape]");
    for &c in Coll::ALL.iter().filter(|c| c.code() <= Coll::Exscan.code()) {
        let _ = writeln!(s, "{} = \"{}\"", coll_key(c), m.shape(c));
    }
    let _ = writeln!(
        s,
        "\n[network]\nmodel = {:?}\nlatency = \"{}\"\nbandwidth = \"{}\"\nbuses = {}\nin_links = {}\nout_links = {}",
        m.model,
        fmt_time(m.inter.latency),
        fmt_bandwidth(m.inter.bandwidth),
        m.buses,
        m.in_links,
        m.out_links
    );
    if let Some(c) = &m.calibration {
        let _ = writeln!(s, "calibration = {:?}", c.display().to_string());
    }
    if let Some(t) = &m.torus {
        super::torus::print(&mut s, t);
    }
    let _ = default_shape; // shapes not listed fall back to these defaults
    s
}
