//! From the file as written to the resolved [`Machine`] (defaults, cross-field checks), and
//! back to TOML for `psins-sim check`.

use super::file::{
    BandSection, CollMode, CpuOverride, FlowSection, LinkSection, MachineFile, MachineSection, MappingKind, MpiSection,
    NetworkSection, NodeSet,
};
use super::network::{fabric, Fabric, FlowConfig, FlowGraph, FlowTopology, Network, Pmac, MODELS};
use super::{coll_key, Band, CpuRatios, Link, Machine, Overhead, Shape};
use psins_formats::Coll;
use psins_units::{Bandwidth, Bytes, Time};
use std::path::Path;

pub const DEFAULT_EAGER: u64 = 64 * 1024;
/// Per-node state (links, CPU ratios) must fit in memory.
const MAX_NODES: u32 = 1 << 24;
/// Servers per group (buses, links per node).
const MAX_SERVERS: u32 = 1 << 16;

/// A machine file whose keys do not make a machine.
#[derive(Debug, thiserror::Error)]
pub enum MachineError {
    #[error("[machine] nodes and cores_per_node must be at least 1")]
    NoNodes,
    #[error("[machine] nodes = {0} is more than the {MAX_NODES} the simulator supports")]
    TooManyNodes(u32),
    #[error("[machine] node_of_rank names node {node} but there are {nodes} nodes")]
    MappedNode { node: u32, nodes: u32 },
    #[error("[machine] mapping = \"list\" needs node_of_rank = [...]")]
    ListNeedsNodes,
    #[error("[machine] node_of_rank is only used with mapping = \"list\"")]
    NodesNeedList,
    #[error("[mpi.collective_shape] unknown collective `{0}`")]
    UnknownCollective(String),
    #[error("[mpi.collective_shape] {name}: {source}")]
    Shape { name: String, source: crate::ShapeError },
    #[error("[mpi] library = {name:?}: psins follows the algorithms of {}", known.join(" and "))]
    UnknownLibrary { name: String, known: Vec<&'static str> },
    #[error("[[{section}.band]] #{band}: {key} must be positive")]
    BandRate { section: String, band: usize, key: &'static str },
    #[error("[[{section}.band]] #{band}: memory_bandwidth is the node's copy bandwidth, a key of [[intra.band]] only")]
    BandMemory { section: String, band: usize },
    #[error("[[{section}.band]] #{band}: serial_receive says how a rank copies its incoming messages out of the node's memory, a key of [[intra.band]] only")]
    BandSerial { section: String, band: usize },
    #[error("[[{section}.band]] #{band}: every band but the last needs `upto`")]
    BandUpto { section: String, band: usize },
    #[error(
        "[[{section}.band]] #{band}: the last band covers every larger message, so it takes no `upto` (found {upto})"
    )]
    LastBandUpto { section: String, band: usize, upto: Bytes },
    #[error("[[{section}.band]]: {source}")]
    Bands { section: String, source: crate::link::BandsError },
    #[error("[network] {what} must be at least 1")]
    NoServers { what: &'static str },
    #[error("[network] {what} = {n} is more than {MAX_SERVERS}")]
    TooManyServers { what: &'static str, n: u32 },
    #[error(transparent)]
    Fabric(#[from] crate::network::FabricError),
    #[error("[network] unknown model `{model}` (known: {})", known.join(", "))]
    UnknownModel { model: String, known: Vec<&'static str> },
    #[error(
        "[network.flow] backbone is for topology = \"cluster\" only (this graph is {0}: its links come from [network.{0}])"
    )]
    BackboneNotCluster(&'static str),
    #[error("[network.flow] backbone must be positive")]
    Backbone,
    #[error("[machine] give either cpu_ratio or clock and base_clock, not both")]
    RatioAndClock,
    #[error("[machine] clock and base_clock go together (ratio = clock / base_clock)")]
    ClockPair,
    #[error("[[machine.cpu]] names node {node} but there are {nodes} nodes")]
    CpuNode { node: u32, nodes: u32 },
    #[error("[[machine.cpu]] lists a node twice")]
    CpuNodeTwice,
    #[error("[machine] CPU ratio {0} must be a positive number")]
    Ratio(f64),
}

pub fn resolve(path: &Path, f: MachineFile) -> Result<Machine, MachineError> {
    let m = &f.machine;
    if m.nodes == 0 || m.cores_per_node == 0 {
        return Err(MachineError::NoNodes);
    }
    if m.nodes > MAX_NODES {
        return Err(MachineError::TooManyNodes(m.nodes));
    }
    let node_of_rank = match (m.mapping, &m.node_of_rank) {
        (MappingKind::List, Some(v)) => {
            if let Some(bad) = v.iter().find(|&&n| n >= m.nodes) {
                return Err(MachineError::MappedNode { node: *bad, nodes: m.nodes });
            }
            v.clone()
        }
        (MappingKind::List, None) => return Err(MachineError::ListNeedsNodes),
        (_, Some(_)) => return Err(MachineError::NodesNeedList),
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
        None => intra.without_memory(),
    };
    let mut shapes = Vec::new();
    for (name, s) in &f.mpi.collective_shape {
        let c = Coll::ALL
            .iter()
            .copied()
            .find(|c| coll_key(*c) == *name)
            .ok_or_else(|| MachineError::UnknownCollective(name.clone()))?;
        shapes.push((c, Shape::parse(s).map_err(|source| MachineError::Shape { name: name.clone(), source })?));
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
                MachineError::UnknownLibrary { name: name.to_string(), known }
            })?),
        },
        call_overhead: f.mpi.call_overhead.map(|t| t.0).unwrap_or(0),
        irecv_overhead: f.mpi.irecv_overhead.map(|t| t.0).unwrap_or(0),
        rendezvous_handshake: f.mpi.rendezvous_handshake.unwrap_or(true),
        shapes,
        network: network(path, &f)?,
        calibrated: f.calibrated.clone(),
    })
}

/// A path's cost from its section: `[[SECTION.band]]` entries, or one band of the section's
/// latency and bandwidth.
fn link(section: &str, latency: Time, bandwidth: Bandwidth, bands: &[BandSection]) -> Result<Link, MachineError> {
    if bands.is_empty() {
        return Ok(Link::new(latency.0, bandwidth.0));
    }
    let rate = |r: Option<Bandwidth>, i: usize, key: &'static str| match r {
        None => Ok(0.0),
        Some(Bandwidth(b)) if b > 0.0 => Ok(1e12 / b),
        Some(_) => Err(MachineError::BandRate { section: section.into(), band: i + 1, key }),
    };
    let mut out = Vec::with_capacity(bands.len());
    for (i, b) in bands.iter().enumerate() {
        let last = i + 1 == bands.len();
        let upto = match (b.upto, last) {
            (Some(u), false) => u.0,
            (None, true) => u64::MAX,
            (None, false) => return Err(MachineError::BandUpto { section: section.into(), band: i + 1 }),
            (Some(u), true) => {
                return Err(MachineError::LastBandUpto { section: section.into(), band: i + 1, upto: u })
            }
        };
        if b.memory_bandwidth.is_some() && section != "intra" {
            return Err(MachineError::BandMemory { section: section.into(), band: i + 1 });
        }
        if b.serial_receive.is_some() && section != "intra" {
            return Err(MachineError::BandSerial { section: section.into(), band: i + 1 });
        }
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
            // The unit parser refuses a bandwidth that is not positive and finite.
            memory: b.memory_bandwidth.map_or(0.0, |m| m.0),
            serial: b.serial_receive.unwrap_or(false),
        });
    }
    Link::with_bands(latency.0, &out).map_err(|source| MachineError::Bands { section: section.into(), source })
}

/// `[network] model` and the keys it reads. Every packet network's section the file has is
/// checked, used or not.
fn network(path: &Path, f: &MachineFile) -> Result<Network, MachineError> {
    let n = &f.network;
    let count = |v: Option<u32>, what: &'static str| match v {
        Some(0) => Err(MachineError::NoServers { what }),
        Some(n) if n > MAX_SERVERS => Err(MachineError::TooManyServers { what, n }),
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
            // Absolute, so that the file printed back names the same curves from anywhere.
            calibration: n.calibration.as_ref().map(|c| {
                let beside = path.parent().unwrap_or(Path::new(".")).join(c);
                std::path::absolute(&beside).unwrap_or(beside)
            }),
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
            return Err(MachineError::UnknownModel { model: other.to_string(), known: names });
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
fn flow_options(f: &MachineFile, topology: FlowTopology) -> Result<FlowConfig, MachineError> {
    let s = f.network.flow.as_ref();
    let backbone = s.and_then(|s| s.backbone).map(|b| b.0);
    if let Some(b) = backbone {
        if topology != FlowTopology::Cluster {
            return Err(MachineError::BackboneNotCluster(topology.name()));
        }
        if !(b.is_finite() && b > 0.0) {
            return Err(MachineError::Backbone);
        }
    }
    Ok(FlowConfig {
        graph: FlowGraph::Cluster { backbone },
        latency_first: s.and_then(|s| s.latency_first).unwrap_or(false),
        latency_weighted: s.and_then(|s| s.latency_weighted).unwrap_or(false),
        envelope: s.and_then(|s| s.envelope).map_or(0, |b| b.0),
    })
}

fn cpu_ratios(f: &MachineFile) -> Result<CpuRatios, MachineError> {
    let m = &f.machine;
    let default = match (m.cpu_ratio, m.clock, m.base_clock) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => return Err(MachineError::RatioAndClock),
        (Some(r), None, None) => r,
        (None, Some(c), Some(b)) => c.0 / b.0,
        (None, Some(_), None) | (None, None, Some(_)) => return Err(MachineError::ClockPair),
        (None, None, None) => 1.0,
    };
    check_ratio(default)?;
    let mut overrides = Vec::new();
    for o in &m.cpu {
        check_ratio(o.ratio)?;
        for &node in &o.nodes.0 {
            if node >= m.nodes {
                return Err(MachineError::CpuNode { node, nodes: m.nodes });
            }
            overrides.push((node, o.ratio));
        }
    }
    overrides.sort_by_key(|&(n, _)| n);
    if overrides.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(MachineError::CpuNodeTwice);
    }
    Ok(CpuRatios { default, overrides })
}

fn check_ratio(r: f64) -> Result<(), MachineError> {
    if r.is_finite() && r > 0.0 {
        Ok(())
    } else {
        Err(MachineError::Ratio(r))
    }
}

/// The machine as the file that gives it, every default written out (so that printing and
/// reading it back gives the same machine).
fn file(m: &Machine) -> MachineFile {
    let cpu = m.cpu.overrides.iter().map(|&(node, ratio)| CpuOverride { nodes: NodeSet(vec![node]), ratio }).collect();
    let (mut buses, mut in_links, mut out_links, mut calibration) = (None, None, None, None);
    match &m.network {
        Network::Bus { buses: b } => buses = Some(*b),
        Network::InLink { in_links: i } => in_links = Some(*i),
        Network::OutLink { out_links: o } => out_links = Some(*o),
        Network::Pmac(p) => {
            (buses, in_links, out_links) = (Some(p.buses), Some(p.in_links), Some(p.out_links));
            calibration = p.calibration.as_ref().map(|c| c.display().to_string());
        }
        Network::Simple | Network::Packet(_) | Network::Flow(_) => {}
    }
    let fabric = m.network.fabric();
    let flow = match &m.network {
        Network::Flow(f) => Some(FlowSection {
            topology: Some(match &f.graph {
                FlowGraph::Cluster { .. } => FlowTopology::Cluster,
                FlowGraph::Fabric(Fabric::Torus(_)) => FlowTopology::Torus,
                FlowGraph::Fabric(Fabric::FatTree(_)) => FlowTopology::FatTree,
                FlowGraph::Fabric(Fabric::Dragonfly(_)) => FlowTopology::Dragonfly,
            }),
            backbone: match f.graph {
                FlowGraph::Cluster { backbone } => backbone.map(Bandwidth),
                FlowGraph::Fabric(_) => None,
            },
            latency_first: Some(f.latency_first),
            latency_weighted: Some(f.latency_weighted),
            envelope: Some(Bytes(f.envelope)),
        }),
        _ => None,
    };
    MachineFile {
        machine: MachineSection {
            name: Some(m.name.clone()),
            nodes: m.nodes,
            cores_per_node: m.cores_per_node,
            mapping: m.mapping,
            node_of_rank: (!m.node_of_rank.is_empty()).then(|| m.node_of_rank.clone()),
            cpu_ratio: Some(m.cpu.default),
            clock: None,
            base_clock: None,
            cpu,
            memory_bandwidth: m.memory_bandwidth.map(Bandwidth),
        },
        intra: Some(link_section(&m.intra)),
        own: Some(link_section(&m.own)),
        mpi: MpiSection {
            eager_threshold: Some(Bytes(m.eager_threshold)),
            collectives: Some(m.collectives),
            library: m.library.map(|l| l.name().to_string()),
            call_overhead: Some(Time(m.call_overhead)),
            irecv_overhead: Some(Time(m.irecv_overhead)),
            rendezvous_handshake: Some(m.rendezvous_handshake),
            collective_shape: Coll::ALL
                .iter()
                .filter_map(|&c| Some((coll_key(c), m.explicit_shape(c)?.to_string())))
                .collect(),
        },
        network: NetworkSection {
            model: m.network.name().to_string(),
            latency: Time(m.inter.latency),
            bandwidth: Bandwidth(m.inter.bandwidth),
            band: bands(&m.inter),
            buses,
            in_links,
            out_links,
            calibration,
            torus: match fabric {
                Some(Fabric::Torus(c)) => Some(super::torus::section(c)),
                _ => None,
            },
            fattree: match fabric {
                Some(Fabric::FatTree(c)) => Some(super::fattree::section(c)),
                _ => None,
            },
            dragonfly: match fabric {
                Some(Fabric::Dragonfly(c)) => Some(super::dragonfly::section(c)),
                _ => None,
            },
            flow,
        },
        calibrated: m.calibrated.clone(),
    }
}

/// A link's section: its latency and bandwidth, and its bands when it has more than that.
fn link_section(l: &Link) -> LinkSection {
    LinkSection { latency: Time(l.latency), bandwidth: Bandwidth(l.bandwidth), band: bands(l) }
}

fn bands(l: &Link) -> Vec<BandSection> {
    if l.is_plain() {
        return Vec::new();
    }
    let overhead = |o: Overhead| (Some(Time(o.fixed)), (o.per_byte > 0.0).then(|| Bandwidth(1e12 / o.per_byte)));
    l.bands()
        .iter()
        .map(|b| {
            let (send_overhead, send_rate) = overhead(b.send);
            let (recv_overhead, recv_rate) = overhead(b.recv);
            let (cross_overhead, cross_rate) =
                if b.cross == Overhead::default() { (None, None) } else { overhead(b.cross) };
            BandSection {
                upto: (b.upto != u64::MAX).then_some(Bytes(b.upto)),
                latency: Some(Time(b.latency)),
                bandwidth: Some(Bandwidth(b.bandwidth)),
                send_overhead,
                send_rate,
                recv_overhead,
                recv_rate,
                cross_overhead,
                cross_rate,
                memory_bandwidth: (b.memory > 0.0).then_some(Bandwidth(b.memory)),
                serial_receive: b.serial.then_some(true),
            }
        })
        .collect()
}

/// The effective configuration as TOML: [`file`] through serde, with comments on what is
/// left at its default and on the network's derived figures.
pub fn print(m: &Machine) -> String {
    let mut head = vec![format!("effective configuration of {}", m.path.display())];
    match (m.memory_bandwidth, m.intra.sets_memory()) {
        (None, false) => {
            head.push("memory_bandwidth: not set (intra-node messages do not share the node's memory)".into())
        }
        (None, true) => head.push(
            "memory_bandwidth: not set (only the copies of the [[intra.band]]s with their own share the node's memory)"
                .into(),
        ),
        (Some(_), _) => {}
    }
    let mut mpi = Vec::new();
    if m.library.is_none() {
        mpi.push("library = \"mpich\" | \"openmpi\": unset, the library the trace ran under".into());
    }
    mpi.push("[mpi.collective_shape] (analytic models): a collective listed there costs shape(P) x (L + S/B);".into());
    mpi.push("the others the point-to-point steps of the MPI library's algorithm, and neighbourhood".into());
    mpi.push("collectives (no topology to expand) their default shape (docs/models.md)".into());
    let fabric = m.network.fabric().map(|f| (["network", f.name()], vec![f.summary()]));
    let mut notes: Vec<(&[&str], Vec<String>)> = vec![(&["machine"], head), (&["mpi"], mpi)];
    if let Some((path, lines)) = &fabric {
        notes.push((path, lines.clone()));
    }
    file(m).to_toml(&notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Printing a machine and reading the print back gives the same machine, printed alike.
    fn round_trips(path: &Path, text: &str, sets: &[&str]) {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let m = Machine::from_str(path, text, &sets).unwrap_or_else(|e| panic!("{e}"));
        let printed = m.effective();
        let again = Machine::from_str(path, &printed, &[]).unwrap_or_else(|e| panic!("{e}\n{printed}"));
        assert_eq!(again.effective(), printed);
        assert_eq!(again.network, m.network);
        assert_eq!((again.intra, again.inter, again.own), (m.intra, m.inter, m.own));
        assert_eq!((again.nodes, again.cpu.default, &again.cpu.overrides), (m.nodes, m.cpu.default, &m.cpu.overrides));
        assert_eq!(again.network.fabric(), m.network.fabric());
    }

    #[test]
    fn every_bundled_machine_prints_as_a_file_that_reads_back_the_same() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
        let mut n = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            if !text.contains("[machine]") {
                continue; // pmac's curves
            }
            round_trips(&path, &text, &[]);
            n += 1;
        }
        assert!(n >= 15, "{n} machines in {}", dir.display());
        let torus = dir.join("torus-8x8.toml");
        let text = std::fs::read_to_string(&torus).unwrap();
        for sets in [
            &["network.model=\"flow\""][..],
            &["network.model=\"flow\"", "network.flow.topology=\"cluster\"", "network.flow.backbone=\"2GB/s\""],
            &["network.torus.routing=\"adaptive\"", "network.torus.vcs=3", "mpi.library=\"openmpi\""],
        ] {
            round_trips(&torus, &text, sets);
        }
    }

    #[test]
    fn bands_overrides_and_provenance_read_back_the_same() {
        let text = r#"
[machine]
nodes = 4
cores_per_node = 2
mapping = "cyclic"
cpu_ratio = 1.5
memory_bandwidth = "6.5GB/s"
[[machine.cpu]]
nodes = "1-2"
ratio = 0.5
[intra]
latency = "300ns"
bandwidth = "8GB/s"
[[intra.band]]
upto = "4KiB"
send_overhead = "120ns"
send_rate = "9GB/s"
recv_overhead = "80ns"
cross_overhead = "50ns"
cross_rate = "12GB/s"
[[intra.band]]
latency = "1.25us"
bandwidth = "6GB/s"
memory_bandwidth = "9GB/s"
[mpi]
eager_threshold = 16384
collectives = "analytic"
call_overhead = "15ns"
irecv_overhead = "90ns"
[mpi.collective_shape]
allreduce = "3*log"
[network]
model = "pmac"
latency = "2us"
bandwidth = "10GB/s"
buses = 3
calibration = "curves.toml"
[calibrated]
by = "psins-calibrate 0.1.0"
trials = 7
launches = 3
check = [{ bytes = 0, half_rtt = "0.5us", spread = 0.02 }, { bytes = 65536, half_rtt = "11us" }]
"#;
        round_trips(Path::new("/m/pm.toml"), text, &[]);
        // A machine file named by a relative path: its curves are still found from the
        // printout's place.
        round_trips(Path::new("rel/pm.toml"), text, &[]);
        let m = Machine::from_str(Path::new("rel/pm.toml"), text, &[]).unwrap();
        let again = Machine::from_str(Path::new("elsewhere/out.toml"), &m.effective(), &[]).unwrap();
        assert_eq!(again.network, m.network);
        let m = Machine::from_str(Path::new("/m/pm.toml"), text, &[]).unwrap();
        let printed = m.effective();
        for line in [
            "memory_bandwidth = \"6.5GB/s\"",
            "memory_bandwidth = \"9GB/s\"",
            "allreduce = \"3*log\"",
            "irecv_overhead = \"90ns\"",
            "buses = 3",
            "trials = 7",
        ] {
            assert!(printed.contains(line), "{line} missing:\n{printed}");
        }
        assert_eq!((m.intra.memory_bandwidth(4096), m.intra.memory_bandwidth(4097)), (None, Some(9e9)));
        let bands_only = text.replace("memory_bandwidth = \"6.5GB/s\"\n", "");
        let only = Machine::from_str(Path::new("/m/pm.toml"), &bands_only, &[]).unwrap().effective();
        assert!(only.contains("only the copies of the [[intra.band]]s with their own share"), "{only}");
        // The node's copy bandwidth is the intra-node bands' alone.
        let network_band = text.replace(
            "calibration = \"curves.toml\"",
            "calibration = \"curves.toml\"\n[[network.band]]\nmemory_bandwidth = \"9GB/s\"",
        );
        let e = Machine::from_str(Path::new("/m/pm.toml"), &network_band, &[]).unwrap_err().to_string();
        assert!(
            e.contains(
                "[[network.band]] #1: memory_bandwidth is the node's copy bandwidth, a key of [[intra.band]] only"
            ),
            "{e}"
        );
        assert!(printed.starts_with("# effective configuration of /m/pm.toml\n[machine]"), "{printed}");
    }
}
