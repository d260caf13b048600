//! From the file as written to the resolved [`Machine`] (defaults, cross-field checks), and
//! back to TOML for `psins-sim check`.

use super::file::{BandSection, CollMode, MachineFile, MappingKind};
use super::network::{fabric, FlowConfig, FlowGraph, FlowTopology, Network, Pmac, MODELS};
use super::{coll_key, default_shape, Band, CpuRatios, Link, Machine, Overhead, Shape};
use psins_formats::Coll;
use psins_units::{fmt_bandwidth, fmt_bytes, fmt_time, Bandwidth, Time};
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
    let inter = link("network", f.network.latency, f.network.bandwidth, &f.network.band)?;
    let intra = match &f.intra {
        Some(l) => link("intra", l.latency, l.bandwidth, &l.band)?,
        None => inter,
    };
    let own = match &f.own {
        Some(l) => link("self", l.latency, l.bandwidth, &l.band)?,
        None => intra,
    };
    let mut shapes = Vec::new();
    for (name, s) in &f.mpi.collective_shape {
        let c = Coll::ALL
            .iter()
            .copied()
            .find(|c| coll_key(*c) == *name)
            .ok_or_else(|| format!("[mpi.collective_shape] unknown collective `{name}`"))?;
        shapes.push((c, Shape::parse(s).map_err(|e| format!("[mpi.collective_shape] {name}: {e}"))?));
    }
    Ok(Machine {
        path: path.to_path_buf(),
        name: m
            .name
            .clone()
            .unwrap_or_else(|| path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()),
        nodes: m.nodes,
        cores_per_node: m.cores_per_node,
        // The unit parser refuses a bandwidth that is not positive and finite.
        memory_bandwidth: m.memory_bandwidth.map(|b| b.0),
        mapping: m.mapping,
        node_of_rank,
        cpu,
        intra,
        inter,
        own,
        eager_threshold: f.mpi.eager_threshold.map(|b| b.0).unwrap_or(DEFAULT_EAGER),
        collectives: f.mpi.collectives.unwrap_or(CollMode::Auto),
        library: match f.mpi.library.as_deref() {
            None => None,
            Some(name) => Some(psins_collectives::Library::from_name(name).ok_or_else(|| {
                let known: Vec<&str> = psins_collectives::Library::ALL.iter().map(|l| l.name()).collect();
                format!("[mpi] library = {name:?}: psins follows the algorithms of {}", known.join(" and "))
            })?),
        },
        call_overhead: f.mpi.call_overhead.map(|t| t.0).unwrap_or(0),
        rendezvous_handshake: f.mpi.rendezvous_handshake.unwrap_or(true),
        shapes,
        network: network(path, &f)?,
        calibrated: f.calibrated.clone(),
    })
}

/// A path's cost from its section: `[[SECTION.band]]` entries, or one band of the section's
/// latency and bandwidth.
fn link(section: &str, latency: Time, bandwidth: Bandwidth, bands: &[BandSection]) -> Result<Link, String> {
    if bands.is_empty() {
        return Ok(Link::new(latency.0, bandwidth.0));
    }
    let rate = |r: Option<Bandwidth>, i: usize, key: &str| match r {
        None => Ok(0.0),
        Some(Bandwidth(b)) if b > 0.0 => Ok(1e12 / b),
        Some(_) => Err(format!("[[{section}.band]] #{}: {key} must be positive", i + 1)),
    };
    let mut out = Vec::with_capacity(bands.len());
    for (i, b) in bands.iter().enumerate() {
        let last = i + 1 == bands.len();
        let upto = match (b.upto, last) {
            (Some(u), false) => u.0,
            (None, true) => u64::MAX,
            (None, false) => {
                return Err(format!("[[{section}.band]] #{}: every band but the last needs `upto`", i + 1))
            }
            (Some(u), true) => {
                return Err(format!(
                "[[{section}.band]] #{}: the last band covers every larger message, so it takes no `upto` (found {u})",
                i + 1
            ))
            }
        };
        out.push(Band {
            upto,
            latency: b.latency.unwrap_or(latency).0,
            bandwidth: b.bandwidth.unwrap_or(bandwidth).0,
            send: Overhead { fixed: b.send_overhead.map_or(0, |t| t.0), per_byte: rate(b.send_rate, i, "send_rate")? },
            recv: Overhead { fixed: b.recv_overhead.map_or(0, |t| t.0), per_byte: rate(b.recv_rate, i, "recv_rate")? },
            cross: Overhead {
                fixed: b.cross_overhead.map_or(0, |t| t.0),
                per_byte: rate(b.cross_rate, i, "cross_rate")?,
            },
        });
    }
    Link::with_bands(latency.0, &out).map_err(|e| format!("[[{section}.band]]: {e}"))
}

/// `[[SECTION.band]]` entries as TOML, when the link has more than latency and bandwidth.
fn print_bands(s: &mut String, section: &str, l: &Link) {
    if l.is_plain() {
        return;
    }
    for b in l.bands() {
        let _ = writeln!(s, "[[{section}.band]]");
        if b.upto != u64::MAX {
            let _ = writeln!(s, "upto = \"{}\"", fmt_bytes(b.upto));
        }
        let _ = writeln!(s, "latency = \"{}\"\nbandwidth = \"{}\"", fmt_time(b.latency), fmt_bandwidth(b.bandwidth));
        for (name, o) in [("send", b.send), ("recv", b.recv), ("cross", b.cross)] {
            if name == "cross" && o == Overhead::default() {
                continue;
            }
            let _ = writeln!(s, "{name}_overhead = \"{}\"", fmt_time(o.fixed));
            if o.per_byte > 0.0 {
                let _ = writeln!(s, "{name}_rate = \"{}\"", fmt_bandwidth(1e12 / o.per_byte));
            }
        }
    }
}

/// `[network] model` and the keys it reads. Every packet network's section the file has is
/// checked, used or not.
fn network(path: &Path, f: &MachineFile) -> Result<Network, String> {
    let n = &f.network;
    let count = |v: Option<u32>, what: &str| match v {
        Some(0) => Err(format!("[network] {what} must be at least 1")),
        Some(n) if n > MAX_SERVERS => Err(format!("[network] {what} = {n} is more than {MAX_SERVERS}")),
        v => Ok(v.unwrap_or(1)),
    };
    let (buses, in_links, out_links) =
        (count(n.buses, "buses")?, count(n.in_links, "in_links")?, count(n.out_links, "out_links")?);
    let graph = flow_topology(f);
    let runs_on = |name: &str| n.model == name || graph.is_some_and(|t| t.name() == name);
    let torus = fabric(n.torus.as_ref(), runs_on("torus"), f)?;
    let fattree = fabric(n.fattree.as_ref(), runs_on("fattree"), f)?;
    let dragonfly = fabric(n.dragonfly.as_ref(), runs_on("dragonfly"), f)?;
    let packet = torus.or(fattree).or(dragonfly);
    Ok(match n.model.as_str() {
        "simple" => Network::Simple,
        "bus" => Network::Bus { buses },
        "inlink" => Network::InLink { in_links },
        "outlink" => Network::OutLink { out_links },
        "pmac" => Network::Pmac(Pmac {
            buses,
            in_links,
            out_links,
            calibration: n.calibration.as_ref().map(|c| path.parent().unwrap_or(Path::new(".")).join(c)),
        }),
        "torus" | "fattree" | "dragonfly" => Network::Packet(packet.expect("resolved for its model")),
        "flow" => {
            let topology = graph.expect("the flow model has a graph");
            let mut cfg = flow_options(f, topology)?;
            if let Some(p) = packet {
                cfg.graph = FlowGraph::Fabric(p);
            }
            Network::Flow(cfg)
        }
        other => {
            let names: Vec<&str> = MODELS.iter().map(|(name, _)| *name).collect();
            return Err(format!("[network] unknown model `{other}` (known: {})", names.join(", ")));
        }
    })
}

/// The flow model's graph, when the model is `flow`: `[network.flow] topology`, else the
/// graph whose section the file has, else the flat cluster.
fn flow_topology(f: &MachineFile) -> Option<FlowTopology> {
    let n = &f.network;
    let default = if n.fattree.is_some() {
        FlowTopology::FatTree
    } else if n.dragonfly.is_some() {
        FlowTopology::Dragonfly
    } else if n.torus.is_some() {
        FlowTopology::Torus
    } else {
        FlowTopology::Cluster
    };
    (n.model == "flow").then(|| n.flow.as_ref().and_then(|s| s.topology).unwrap_or(default))
}

/// `[network.flow]`'s keys over `topology` (the cluster's graph; the caller puts a packet
/// network's in its place).
fn flow_options(f: &MachineFile, topology: FlowTopology) -> Result<FlowConfig, String> {
    let s = f.network.flow.as_ref();
    let backbone = s.and_then(|s| s.backbone).map(|b| b.0);
    if let Some(b) = backbone {
        if topology != FlowTopology::Cluster {
            return Err(format!(
                "[network.flow] backbone is for topology = \"cluster\" only (this graph is {}: its links come from [network.{}])",
                topology.name(),
                topology.name()
            ));
        }
        if !(b.is_finite() && b > 0.0) {
            return Err("[network.flow] backbone must be positive".into());
        }
    }
    Ok(FlowConfig {
        graph: FlowGraph::Cluster { backbone },
        latency_first: s.and_then(|s| s.latency_first).unwrap_or(false),
        latency_weighted: s.and_then(|s| s.latency_weighted).unwrap_or(false),
        envelope: s.and_then(|s| s.envelope).map_or(0, |b| b.0),
    })
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
    match m.memory_bandwidth {
        Some(b) => {
            let _ = writeln!(s, "memory_bandwidth = \"{}\"", fmt_bandwidth(b));
        }
        None => {
            let _ = writeln!(s, "# memory_bandwidth: not set (intra-node messages do not share the node's memory)");
        }
    }
    for (node, r) in &m.cpu.overrides {
        let _ = writeln!(s, "[[machine.cpu]]\nnodes = [{node}]\nratio = {r:?}");
    }
    let _ = writeln!(
        s,
        "\n[intra]\nlatency = \"{}\"\nbandwidth = \"{}\"",
        fmt_time(m.intra.latency),
        fmt_bandwidth(m.intra.bandwidth)
    );
    print_bands(&mut s, "intra", &m.intra);
    let _ = writeln!(
        s,
        "\n[self]\nlatency = \"{}\"\nbandwidth = \"{}\"",
        fmt_time(m.own.latency),
        fmt_bandwidth(m.own.bandwidth)
    );
    print_bands(&mut s, "self", &m.own);
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
    match m.library {
        Some(l) => {
            let _ = writeln!(s, "library = \"{}\"", l.name());
        }
        None => {
            let _ = writeln!(s, "# library = \"mpich\" | \"openmpi\" (default; the library the trace ran under)");
        }
    }
    let _ = writeln!(s, "\n[mpi.collective_shape]");
    let _ = writeln!(s, "# analytic models: collectives listed here cost shape(P) x (L + S/B); the others cost");
    let _ = writeln!(s, "# the point-to-point steps of the MPI library's algorithm (docs/models.md)");
    for &c in Coll::ALL.iter() {
        match m.explicit_shape(c) {
            Some(shape) => {
                let _ = writeln!(s, "{} = \"{shape}\"", coll_key(c));
            }
            // Neighbourhood collectives cannot be expanded without their topology.
            None if c.code() > Coll::Exscan.code() => {
                let _ = writeln!(s, "# {} = \"{}\" (default; no topology to expand)", coll_key(c), default_shape(c));
            }
            None => {
                let _ = writeln!(s, "# {} = MPICH's algorithm", coll_key(c));
            }
        }
    }
    let _ = writeln!(
        s,
        "\n[network]\nmodel = \"{}\"\nlatency = \"{}\"\nbandwidth = \"{}\"",
        m.network.name(),
        fmt_time(m.inter.latency),
        fmt_bandwidth(m.inter.bandwidth),
    );
    match &m.network {
        Network::Simple | Network::Packet(_) => {}
        Network::Bus { buses } => {
            let _ = writeln!(s, "buses = {buses}");
        }
        Network::InLink { in_links } => {
            let _ = writeln!(s, "in_links = {in_links}");
        }
        Network::OutLink { out_links } => {
            let _ = writeln!(s, "out_links = {out_links}");
        }
        Network::Pmac(p) => {
            let _ = writeln!(s, "buses = {}\nin_links = {}\nout_links = {}", p.buses, p.in_links, p.out_links);
            if let Some(c) = &p.calibration {
                let _ = writeln!(s, "calibration = {:?}", c.display().to_string());
            }
        }
        Network::Flow(_) => {}
    }
    print_bands(&mut s, "network", &m.inter);
    if let Some(f) = m.network.fabric() {
        f.print(&mut s);
    }
    if let Network::Flow(t) = &m.network {
        let topology = match &t.graph {
            FlowGraph::Cluster { .. } => "cluster",
            FlowGraph::Fabric(f) => f.name(),
        };
        let _ = writeln!(s, "\n[network.flow]\ntopology = \"{topology}\"");
        if let FlowGraph::Cluster { backbone: Some(b) } = t.graph {
            let _ = writeln!(s, "backbone = \"{}\"", fmt_bandwidth(b));
        }
        let _ = writeln!(s, "latency_weighted = {}", t.latency_weighted);
        let _ = writeln!(s, "latency_first = {}\nenvelope = \"{}\"", t.latency_first, fmt_bytes(t.envelope));
    }
    if let Some(c) = &m.calibrated {
        let _ = writeln!(s, "\n[calibrated]");
        let fields = [("by", &c.by), ("at", &c.at), ("host", &c.host), ("launcher", &c.launcher)];
        let more = [("mpi_library", &c.mpi_library), ("buffers", &c.buffers), ("noisy", &c.noisy)];
        for (k, v) in fields.iter().chain(more.iter()) {
            if let Some(v) = v {
                let _ = writeln!(s, "{k} = {v:?}");
            }
        }
        for (k, v) in [("trials", c.trials), ("launches", c.launches)] {
            if let Some(n) = v {
                let _ = writeln!(s, "{k} = {n}");
            }
        }
        if let Some(points) = &c.check {
            let items: Vec<String> = points
                .iter()
                .map(|p| {
                    let spread = p.spread.map_or(String::new(), |x| format!(", spread = {x}"));
                    format!("{{ bytes = {}, half_rtt = \"{}\"{spread} }}", p.bytes, p.half_rtt)
                })
                .collect();
            let _ = writeln!(s, "check = [{}]", items.join(", "));
        }
    }
    s
}
