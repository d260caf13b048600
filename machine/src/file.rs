//! The machine file as written: serde structs that reject unknown keys, so a typo is an error
//! with a line number (the `toml` crate attaches the span) rather than a silently ignored value.

use psins_units::{Bandwidth, Bytes, Frequency, Time};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineFile {
    pub machine: MachineSection,
    pub intra: Option<LinkSection>,
    /// `[self]`: messages a rank sends to itself (default: the `[intra]` link).
    #[serde(rename = "self")]
    pub own: Option<LinkSection>,
    #[serde(default)]
    pub mpi: MpiSection,
    pub network: NetworkSection,
    /// Written by psins-calibrate: when, where and how the figures were measured.
    pub calibrated: Option<CalibratedSection>,
}

impl MachineFile {
    /// The file as TOML, through serde; each note is comment lines put above what its path
    /// names: a table (`["network", "torus"]`) or a key (`["machine", "memory_bandwidth"]`).
    /// A path the file does not have gets no comment.
    pub fn to_toml(&self, notes: &[(&[&str], Vec<String>)]) -> String {
        let text = toml::to_string(self).expect("a machine file serialises");
        let mut doc: toml_edit::DocumentMut = text.parse().expect("serialised TOML parses");
        for (path, lines) in notes {
            let Some((last, parents)) = path.split_last() else { continue };
            let Some(table) = table_at(doc.as_table_mut(), parents) else { continue };
            let comment: String = lines.iter().map(|l| format!("# {l}\n")).collect();
            if let Some(t) = table.get_mut(last).and_then(|i| i.as_table_mut()) {
                t.decor_mut().set_prefix(format!("\n{comment}"));
                continue;
            }
            if let Some(mut key) = table.key_mut(last) {
                key.leaf_decor_mut().set_prefix(comment);
            }
        }
        doc.to_string().trim_start().to_string()
    }
}

fn table_at<'a>(mut table: &'a mut toml_edit::Table, path: &[&str]) -> Option<&'a mut toml_edit::Table> {
    for key in path {
        table = table.get_mut(key)?.as_table_mut()?;
    }
    Some(table)
}

/// `[calibrated]`: the provenance psins-calibrate writes. `noisy` says why the figures are not
/// to be trusted (psins-sim warns when it is set).
#[derive(Debug, Serialize, Deserialize, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct CalibratedSection {
    pub by: Option<String>,
    pub at: Option<String>,
    pub host: Option<String>,
    pub launcher: Option<String>,
    pub mpi_library: Option<String>,
    pub buffers: Option<String>,
    pub trials: Option<u32>,
    /// Worker launches the trials were pooled over (psins-calibrate --launches).
    pub launches: Option<u32>,
    pub noisy: Option<String>,
    /// Warm half round trips `psins-calibrate --check` measures again to tell whether the
    /// host still matches this file; the models do not use them.
    pub check: Option<Vec<CheckPoint>>,
}

/// One `[calibrated] check` point: the median warm half round trip at `bytes` and its
/// interquartile spread (a fraction).
#[derive(Debug, Serialize, Deserialize, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct CheckPoint {
    pub bytes: u64,
    pub half_rtt: Time,
    pub spread: Option<f64>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineSection {
    pub name: Option<String>,
    pub nodes: u32,
    #[serde(default = "one")]
    pub cores_per_node: u32,
    #[serde(default)]
    pub mapping: MappingKind,
    /// Node of each rank, when `mapping = "list"`.
    pub node_of_rank: Option<Vec<u32>>,
    /// Target core speed relative to the base system (bursts are divided by it).
    pub cpu_ratio: Option<f64>,
    /// Alternative to `cpu_ratio`: ratio = clock / base_clock.
    pub clock: Option<Frequency>,
    pub base_clock: Option<Frequency>,
    /// Per-node CPU ratios that differ from the default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu: Vec<CpuOverride>,
    /// A node's copy bandwidth, shared by the intra-node messages in flight on it (unset:
    /// each message has its `[intra]` bandwidth to itself).
    pub memory_bandwidth: Option<Bandwidth>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Serialize, Deserialize, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MappingKind {
    #[default]
    Block,
    Cyclic,
    List,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuOverride {
    pub nodes: NodeSet,
    pub ratio: f64,
}

/// Nodes as a list `[0, 3, 5]` or ranges `"0-7,12"` (written back as a list).
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct NodeSet(pub Vec<u32>);

impl<'de> Deserialize<'de> for NodeSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            List(Vec<u32>),
            Ranges(String),
        }
        match Raw::deserialize(d)? {
            Raw::List(v) => Ok(NodeSet(v)),
            Raw::Ranges(s) => psins_units::parse_ranges(&s).map(NodeSet).map_err(serde::de::Error::custom),
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSection {
    pub latency: Time,
    pub bandwidth: Bandwidth,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub band: Vec<BandSection>,
}

/// `[[network.band]]` / `[[intra.band]]` / `[[self.band]]`: the costs of messages up to `upto` bytes (the last
/// band has no `upto`). A missing latency or bandwidth is the section's; missing overheads
/// are 0. See `link.rs` for the formulas.
#[derive(Debug, Serialize, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct BandSection {
    pub upto: Option<Bytes>,
    pub latency: Option<Time>,
    pub bandwidth: Option<Bandwidth>,
    /// o_s = send_overhead + bytes / send_rate.
    pub send_overhead: Option<Time>,
    pub send_rate: Option<Bandwidth>,
    /// o_r = recv_overhead + bytes / recv_rate.
    pub recv_overhead: Option<Time>,
    pub recv_rate: Option<Bandwidth>,
    /// Extra sender time of a crossing message: cross_overhead + bytes / cross_rate.
    pub cross_overhead: Option<Time>,
    pub cross_rate: Option<Bandwidth>,
    /// `[[intra.band]]` only: the node's copy bandwidth for copies of this band's sizes, in
    /// place of `[machine] memory_bandwidth` (docs/models.md, *A node's memory*).
    pub memory_bandwidth: Option<Bandwidth>,
    /// `[[intra.band]]` only: the receiving rank makes this band's copies one at a time
    /// (docs/models.md, *A node's memory*).
    pub serial_receive: Option<bool>,
}

#[derive(Debug, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct MpiSection {
    pub eager_threshold: Option<Bytes>,
    pub collectives: Option<CollMode>,
    /// Whose collective algorithms to replay (a `psins_collectives::Library` name); unset:
    /// those of the library the trace ran under.
    pub library: Option<String>,
    /// Local cost of every MPI call (posting, bookkeeping), added to its modelled time.
    pub call_overhead: Option<Time>,
    /// CPU time of posting a nonblocking receive (`MPI_Irecv`, a persistent receive's start):
    /// the call returns this much later (docs/models.md, *Protocols*).
    pub irecv_overhead: Option<Time>,
    /// Whether a rendezvous pays the request-to-send / clear-to-send round trip.
    pub rendezvous_handshake: Option<bool>,
    /// Analytic collective shapes: collective name → "log" | "linear" | "const", optionally "2*log".
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub collective_shape: BTreeMap<String, String>,
}

#[derive(Debug, Serialize, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CollMode {
    /// All participants synchronise at the last arrival; the model gives the duration.
    Analytic,
    /// Replayed as point-to-point messages (from the trace's expansion or psins-collectives).
    Expanded,
    /// The model's preference (analytic for the PSINS models).
    Auto,
}

/// `[network]`: the model's name, the common link parameters, and each model's own keys.
/// A model with many keys of its own gets an optional sub-table (`[network.torus]`), so that
/// the whole file is still checked key by key.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSection {
    pub model: String,
    pub latency: Time,
    pub bandwidth: Bandwidth,
    /// Size-dependent costs and per-message overheads (`[[network.band]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub band: Vec<BandSection>,
    /// `bus`, `pmac`: number of global buses.
    pub buses: Option<u32>,
    /// `inlink`, `pmac`: incoming links per node.
    pub in_links: Option<u32>,
    /// `outlink`, `pmac`: outgoing links per node.
    pub out_links: Option<u32>,
    /// `pmac`: calibration file (relative to the machine file).
    pub calibration: Option<String>,
    /// `torus`: the packet-level k-ary n-cube (`[network.torus]`).
    pub torus: Option<super::torus::TorusSection>,
    /// `fattree`: the packet-level fat-tree (`[network.fattree]`).
    pub fattree: Option<super::fattree::FatTreeSection>,
    /// `dragonfly`: the packet-level dragonfly (`[network.dragonfly]`).
    pub dragonfly: Option<super::dragonfly::DragonflySection>,
    /// `flow`: the flow-level model (`[network.flow]`): which graph it runs on.
    pub flow: Option<FlowSection>,
}

/// `[network.flow]`: the flow-level model's graph (its section gives the design and links).
#[derive(Debug, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FlowSection {
    pub topology: Option<super::network::FlowTopology>,
    /// `cluster`: a backbone every flow crosses, shared by all (none if absent).
    pub backbone: Option<Bandwidth>,
    /// A flow waits its route's latency before taking bandwidth (SimGrid's CM02 order).
    pub latency_first: Option<bool>,
    /// A flow's weight in the sharing is 1 / its route's latency (SimGrid's CM02 penalty).
    pub latency_weighted: Option<bool>,
    /// Bytes every message's flow carries besides its payload (SMPI's envelope: 16).
    pub envelope: Option<Bytes>,
}
