//! `[network] model` and the keys that model reads, resolved into one [`Network`]: each model
//! is one variant holding its own configuration, so a model cannot be built from keys that
//! belong to another.
//!
//! Adding a model touches three files: a variant and a [`MODELS`] line here, its resolution
//! in `effective.rs` (`network`) and, in psins-sim, its `build` (simulator/src/model/).

use super::file::MachineFile;
use super::{dragonfly, fattree, torus};
use psins_network::{DragonflyConfig, FatTreeConfig, TorusConfig};
use std::path::PathBuf;

/// Every model, by name, with what it models (`psins-sim --list-models`).
pub const MODELS: &[(&str, &str)] = &[
    ("simple", "latency + size/bandwidth, no contention; collectives from MPICH's algorithms"),
    ("bus", "B global buses; each message waits for the earliest free bus"),
    ("inlink", "I incoming links per node; each message waits for a free link at its destination"),
    ("outlink", "O outgoing links per node; each message waits for a free link at its source"),
    ("pmac", "bandwidth divided by the load on buses and links; collectives from calibration curves"),
    ("torus", "packet-level k-ary n-cube: VCs, cut-through, bubbles, DOR/adaptive routing; collectives expanded"),
    (
        "fattree",
        "packet-level fat-tree (k-ary n-tree, folded Clos, tapered): up*/down*, D-mod-k or adaptive; collectives expanded",
    ),
    (
        "dragonfly",
        "packet-level dragonfly (p, a, h, g; absolute or relative global links): minimal, Valiant, UGAL-L/G with VC classes; collectives expanded",
    ),
    (
        "flow",
        "flow level: max-min fair sharing of the links of a flat cluster, torus, fat-tree or dragonfly ([network.flow] topology) along their routes",
    ),
];

/// The network model the machine file names, with its own configuration.
#[derive(Clone, Debug, PartialEq)]
pub enum Network {
    Simple,
    /// `buses` global buses.
    Bus {
        buses: u32,
    },
    /// `in_links` incoming links per node.
    InLink {
        in_links: u32,
    },
    /// `out_links` outgoing links per node.
    OutLink {
        out_links: u32,
    },
    Pmac(Pmac),
    /// A packet-level network (`[network.torus]`, `[network.fattree]`, `[network.dragonfly]`).
    Packet(Fabric),
    /// The flow-level model (`[network.flow]`) over its graph.
    Flow(FlowConfig),
}

/// `pmac`'s keys.
#[derive(Clone, Debug, PartialEq)]
pub struct Pmac {
    pub buses: u32,
    pub in_links: u32,
    pub out_links: u32,
    /// The collective curves (relative to the machine file when written).
    pub calibration: Option<PathBuf>,
}

/// A packet-level network's design: the packet models run it, the flow model may take its
/// graph.
#[derive(Clone, Debug, PartialEq)]
pub enum Fabric {
    Torus(TorusConfig),
    FatTree(FatTreeConfig),
    Dragonfly(DragonflyConfig),
}

/// The graph the flow-level model runs on (`[network.flow] topology`).
#[derive(Clone, Debug, PartialEq)]
pub enum FlowGraph {
    /// The flat cluster: an up and a down link per node to one crossbar ([network] latency
    /// and bandwidth), and the shared backbone in bytes per second if it has one.
    Cluster { backbone: Option<f64> },
    /// The links of a packet network's design.
    Fabric(Fabric),
}

/// `[network.flow]`, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowConfig {
    /// Default: the graph whose section the file has (fattree, dragonfly, torus), else the
    /// flat cluster.
    pub graph: FlowGraph,
    /// A flow waits its route's latency before it takes bandwidth and is delivered at its
    /// last byte (SimGrid's CM02 order); default false: bandwidth at once, latency after.
    pub latency_first: bool,
    /// Flows share links in proportion to 1 / their route's latency (CM02); default false.
    pub latency_weighted: bool,
    /// Bytes every flow carries besides its message's payload (default 0).
    pub envelope: u64,
}

/// The names `[network.flow] topology` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FlowTopology {
    Cluster,
    Torus,
    FatTree,
    Dragonfly,
}

impl FlowTopology {
    /// The model and section name of the graph.
    pub fn name(self) -> &'static str {
        match self {
            FlowTopology::Cluster => "cluster",
            FlowTopology::Torus => "torus",
            FlowTopology::FatTree => "fattree",
            FlowTopology::Dragonfly => "dragonfly",
        }
    }
}

impl Network {
    /// The model's registered name.
    pub fn name(&self) -> &'static str {
        match self {
            Network::Simple => "simple",
            Network::Bus { .. } => "bus",
            Network::InLink { .. } => "inlink",
            Network::OutLink { .. } => "outlink",
            Network::Pmac(_) => "pmac",
            Network::Packet(f) => f.name(),
            Network::Flow(_) => "flow",
        }
    }

    /// The packet network's design the model runs on, packet by packet or as the flow
    /// model's graph.
    pub fn fabric(&self) -> Option<&Fabric> {
        match self {
            Network::Packet(f) | Network::Flow(FlowConfig { graph: FlowGraph::Fabric(f), .. }) => Some(f),
            _ => None,
        }
    }
}

impl Fabric {
    /// The model and section name.
    pub fn name(&self) -> &'static str {
        match self {
            Fabric::Torus(_) => "torus",
            Fabric::FatTree(_) => "fattree",
            Fabric::Dragonfly(_) => "dragonfly",
        }
    }

    /// Its nodes (a torus's routers, a tree's leaves, a dragonfly's p·a·g).
    pub fn nodes(&self) -> u32 {
        match self {
            Fabric::Torus(c) => c.nodes(),
            Fabric::FatTree(c) => c.nodes(),
            Fabric::Dragonfly(c) => c.nodes(),
        }
    }

    /// Its design, in the keys that set its size, for an error about the node count.
    fn size(&self) -> String {
        match self {
            Fabric::Torus(c) => {
                format!(
                    "the torus ([network.torus] dims = \"{}\") has {} routers, one per node",
                    torus::dims_text(&c.dims),
                    c.nodes()
                )
            }
            Fabric::FatTree(c) => {
                format!("the fat-tree ([network.fattree] down = {:?}) has {} nodes", c.down, c.nodes())
            }
            Fabric::Dragonfly(c) => format!(
                "the dragonfly ([network.dragonfly] p = {}, a = {}, g = {}) has p·a·g = {} nodes",
                c.p,
                c.a,
                c.g,
                c.nodes()
            ),
        }
    }

    /// What to change besides the node count.
    fn instead(&self) -> &'static str {
        match self {
            Fabric::Torus(_) => "",
            Fabric::FatTree(_) => " or change the tree",
            Fabric::Dragonfly(_) => " or change p, a, g",
        }
    }

    /// The design's derived figures (`psins-sim check` writes them as a comment).
    pub fn summary(&self) -> String {
        match self {
            Fabric::Torus(c) => torus::summary(c),
            Fabric::FatTree(c) => fattree::summary(c),
            Fabric::Dragonfly(c) => dragonfly::summary(c),
        }
    }
}

/// A packet network's section that does not make a design, or whose design does not fit the
/// machine.
#[derive(Debug, thiserror::Error)]
pub enum FabricError {
    #[error(transparent)]
    Torus(#[from] torus::TorusError),
    #[error(transparent)]
    FatTree(#[from] fattree::FatTreeError),
    #[error(transparent)]
    Dragonfly(#[from] dragonfly::DragonflyError),
    #[error("[machine] nodes = {nodes} but {size}: set nodes = {design_nodes}{instead}")]
    Nodes { nodes: u32, size: String, design_nodes: u32, instead: &'static str },
}

/// A packet network's section of the machine file, resolved into its design.
pub(crate) trait FabricSection: Default {
    fn resolve(&self) -> Result<Fabric, FabricError>;
}

impl FabricSection for torus::TorusSection {
    fn resolve(&self) -> Result<Fabric, FabricError> {
        Ok(torus::resolve(self).map(Fabric::Torus)?)
    }
}

impl FabricSection for fattree::FatTreeSection {
    fn resolve(&self) -> Result<Fabric, FabricError> {
        Ok(fattree::resolve(self).map(Fabric::FatTree)?)
    }
}

impl FabricSection for dragonfly::DragonflySection {
    fn resolve(&self) -> Result<Fabric, FabricError> {
        Ok(dragonfly::resolve(self).map(Fabric::Dragonfly)?)
    }
}

/// A packet network's section: checked whenever the file has it (so a sweep's
/// `--set network.model=…` never hides a mistake in it), its defaults when the model runs on
/// it and the file has none; and when the model runs on it, its nodes must be the machine's,
/// one per node, so a mismatch is a mistake rather than something to guess around.
pub(crate) fn fabric<S: FabricSection>(
    section: Option<&S>,
    used: bool,
    f: &MachineFile,
) -> Result<Option<Fabric>, FabricError> {
    let design = match (section, used) {
        (Some(s), _) => s.resolve()?,
        (None, true) => S::default().resolve()?,
        (None, false) => return Ok(None),
    };
    if !used {
        return Ok(None);
    }
    let n = design.nodes();
    if n != f.machine.nodes {
        return Err(FabricError::Nodes {
            nodes: f.machine.nodes,
            size: design.size(),
            design_nodes: n,
            instead: design.instead(),
        });
    }
    Ok(Some(design))
}
