//! Machine files: parsing (with `--set` overrides), validation, and the resolved [`Machine`]
//! the engine and the models read.

mod bundled;
pub mod curves;
pub mod dragonfly;
mod effective;
pub mod fattree;
pub mod file;
mod link;
pub mod network;
mod overrides;
pub(crate) mod router;
pub mod torus;

pub use file::{CollMode, MappingKind};
pub use link::{Band, Link, Overhead, MAX_BANDS};
pub use network::{Fabric, FlowConfig, FlowGraph, FlowTopology, Network, Pmac, MODELS};

use file::MachineFile;
use psins_formats::Coll;
use psins_units::Ps;
use std::path::{Path, PathBuf};

/// How an analytic collective's time grows with the number of participants P.
/// A collective shape that does not read.
#[derive(Debug, thiserror::Error)]
pub enum ShapeError {
    #[error("`{0}`: bad factor")]
    BadFactor(String),
    #[error("`{0}`: expected const, log or linear, optionally as F*shape")]
    BadShape(String),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    pub factor: f64,
    pub growth: Growth,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    Const,
    Log,
    Linear,
}

impl Shape {
    /// The multiple of the point-to-point time for P participants.
    pub fn multiple(&self, p: u32) -> f64 {
        let g = match self.growth {
            Growth::Const => 1.0,
            Growth::Log => (p.max(1) as f64).log2().ceil(),
            Growth::Linear => p.saturating_sub(1) as f64,
        };
        self.factor * g
    }

    pub fn parse(s: &str) -> Result<Shape, ShapeError> {
        let (factor, g) = match s.split_once('*') {
            Some((f, g)) => (f.trim().parse::<f64>().map_err(|_| ShapeError::BadFactor(s.into()))?, g.trim()),
            None => (1.0, s.trim()),
        };
        let growth = match g {
            "const" | "constant" => Growth::Const,
            "log" | "logarithmic" => Growth::Log,
            "linear" => Growth::Linear,
            _ => return Err(ShapeError::BadShape(s.into())),
        };
        Ok(Shape { factor, growth })
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let g = match self.growth {
            Growth::Const => "const",
            Growth::Log => "log",
            Growth::Linear => "linear",
        };
        if self.factor == 1.0 {
            write!(f, "{g}")
        } else {
            write!(f, "{}*{g}", self.factor)
        }
    }
}

/// Default shapes: tree-based collectives are logarithmic, personalised all-to-all linear.
/// Analytic collectives use them only where MPICH's algorithm cannot be timed
/// (neighbourhood collectives) and to scale pmac's curves.
pub fn default_shape(c: Coll) -> Shape {
    let (factor, growth) = match c {
        Coll::Barrier | Coll::Bcast | Coll::Reduce | Coll::Scan | Coll::Exscan => (1.0, Growth::Log),
        Coll::Allreduce => (2.0, Growth::Log),
        Coll::Gather | Coll::Scatter | Coll::Allgather | Coll::ReduceScatter | Coll::ReduceScatterBlock => {
            (1.0, Growth::Log)
        }
        Coll::Gatherv | Coll::Scatterv | Coll::Allgatherv => (1.0, Growth::Linear),
        Coll::Alltoall | Coll::Alltoallv | Coll::Alltoallw => (1.0, Growth::Linear),
        _ => (1.0, Growth::Const),
    };
    Shape { factor, growth }
}

/// Lower-case MPI-style name of a collective (`allreduce`), as used in machine and calibration files.
pub fn coll_key(c: Coll) -> String {
    psins_formats::how::snake(c.name())
}

/// Per-node CPU speed ratios, kept compact when all nodes are alike.
#[derive(Clone, Debug)]
pub struct CpuRatios {
    pub default: f64,
    /// (node, ratio) pairs that differ from the default, sorted by node.
    pub overrides: Vec<(u32, f64)>,
}

impl CpuRatios {
    pub fn of_node(&self, node: u32) -> f64 {
        match self.overrides.binary_search_by_key(&node, |&(n, _)| n) {
            Ok(i) => self.overrides[i].1,
            Err(_) => self.default,
        }
    }
}

/// The resolved machine: every default filled in, every value in internal units.
#[derive(Clone, Debug)]
pub struct Machine {
    pub path: PathBuf,
    pub name: String,
    pub nodes: u32,
    pub cores_per_node: u32,
    /// `[machine] memory_bandwidth` in bytes per second: the copy bandwidth a node's
    /// intra-node messages share (docs/models.md, *A node's memory*); `None`: not shared.
    pub memory_bandwidth: Option<f64>,
    pub mapping: MappingKind,
    pub node_of_rank: Vec<u32>,
    pub cpu: CpuRatios,
    pub intra: Link,
    pub inter: Link,
    /// `[self]`: a message from a rank to itself (the `[intra]` link unless given).
    pub own: Link,
    pub eager_threshold: u64,
    pub collectives: CollMode,
    /// `mpi.library`: whose collective algorithms to replay; `None`: the trace's library.
    pub library: Option<psins_collectives::Library>,
    pub call_overhead: Ps,
    /// `mpi.irecv_overhead`: the CPU time of posting a nonblocking receive.
    pub irecv_overhead: Ps,
    pub rendezvous_handshake: bool,
    pub shapes: Vec<(Coll, Shape)>,
    /// `[network] model` with its own keys and section.
    pub network: Network,
    /// `[calibrated]`: how psins-calibrate measured this machine, when it did.
    pub calibrated: Option<file::CalibratedSection>,
}

/// The link a message takes. [`Route::of`] is the one rule for it, shared by the engine
/// (engine/p2p.rs) and the analytic algorithm model (model/algorithm/), which must agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// From a rank to itself: the `[self]` link (MPICH's device self path, e.g. UCX `self`).
    Own,
    /// Between two ranks of one node: the `[intra]` link, timed by the engine.
    Intra,
    /// Across the network: the `[network]` link, through the network model.
    Inter,
}

impl Route {
    /// The route from `src` to `dst` (ranks of one numbering), on nodes `src_node`, `dst_node`.
    #[inline]
    pub fn of(src: u32, dst: u32, src_node: u32, dst_node: u32) -> Route {
        if src == dst {
            Route::Own
        } else if src_node == dst_node {
            Route::Intra
        } else {
            Route::Inter
        }
    }
}

impl Machine {
    /// The link of `route`.
    #[inline]
    pub fn link(&self, route: Route) -> &Link {
        match route {
            Route::Own => &self.own,
            Route::Intra => &self.intra,
            Route::Inter => &self.inter,
        }
    }

    /// Reads `path` (or the bundled machine of that name, bundled.rs), applies `--set`
    /// overrides, validates. Every error names the file and, for syntax, unknown keys and
    /// bad values, the line.
    pub fn load(path: &Path, overrides: &[String]) -> Result<Machine, ConfigError> {
        let path = &bundled::resolve(path).map_err(|m| cfg_err(path, m.to_string()))?;
        let text = std::fs::read_to_string(path).map_err(|e| cfg_err(path, format!("cannot read: {e}")))?;
        Self::from_str(path, &text, overrides)
    }

    pub fn from_str(path: &Path, text: &str, overrides: &[String]) -> Result<Machine, ConfigError> {
        let mut doc: toml_edit::DocumentMut =
            text.parse().map_err(|e: toml_edit::TomlError| cfg_err(path, e.to_string()))?;
        for o in overrides {
            overrides::apply(&mut doc, o).map_err(|m| cfg_err(path, m.to_string()))?;
        }
        let edited = doc.to_string();
        let file: MachineFile = match toml::from_str(&edited) {
            Ok(f) => f,
            // The file alone is fine: the --set is what is wrong, and is named as such rather
            // than by a line of the edited file the user never sees.
            Err(e) if !overrides.is_empty() && toml::from_str::<MachineFile>(text).is_ok() => {
                return Err(cfg_err(path, set_error(overrides, e.message())));
            }
            Err(e) => return Err(cfg_err(path, e.to_string())),
        };
        effective::resolve(path, file).map_err(|m| cfg_err(path, m.to_string()))
    }

    /// The shape `[mpi.collective_shape]` sets for collective `c`: an explicit override of
    /// its algorithm's cost in the analytic models.
    pub fn explicit_shape(&self, c: Coll) -> Option<Shape> {
        self.shapes.iter().find(|(k, _)| *k == c).map(|&(_, s)| s)
    }

    /// The shape of collective `c`: the explicit one, else the default (used where the
    /// algorithm cannot be timed, and to scale pmac's curves to other rank counts).
    pub fn shape(&self, c: Coll) -> Shape {
        self.explicit_shape(c).unwrap_or_else(|| default_shape(c))
    }

    /// The effective configuration as TOML, every default written out.
    pub fn effective(&self) -> String {
        effective::print(self)
    }
}

/// The message of a `--set` the machine file's schema refuses: the override, serde's reason,
/// and for an unknown key the nearest known one.
fn set_error(overrides: &[String], msg: &str) -> String {
    let quoted = |prefix: &str| msg.strip_prefix(prefix).and_then(|r| r.split('`').next());
    let unknown = quoted("unknown field `");
    let variant = quoted("unknown variant `");
    // The override that names the unknown key, or sets the unknown value.
    let culprit = overrides
        .iter()
        .find(|o| {
            let (key, value) = o.split_once('=').unwrap_or((o, ""));
            unknown.is_some_and(|u| key.rsplit('.').next() == Some(u))
                || variant.is_some_and(|v| value.trim().trim_matches('"') == v)
                || (!value.is_empty() && msg.starts_with(&format!("{} ", value.trim())))
        })
        .map(String::as_str);
    let mut s = match culprit {
        Some(o) => format!("--set {o}: {msg}"),
        None => format!("--set {}: {msg}", overrides.join(" --set ")),
    };
    if let (Some(u), Some(expected)) = (unknown, msg.split("expected one of ").nth(1)) {
        let names: Vec<&str> = expected.split(", ").map(|n| n.trim_matches('`')).collect();
        // Insertions, deletions, substitutions and adjacent swaps.
        let distance = |n: &str| strsim::osa_distance(u, n);
        if let Some(best) = names.iter().min_by_key(|n| distance(n)).filter(|n| distance(n) <= 3) {
            s += &format!("; did you mean `{best}`?");
        }
    }
    s
}

fn cfg_err(path: &Path, msg: String) -> ConfigError {
    ConfigError { path: path.to_path_buf(), msg }
}

/// A machine file (or a `--set` override of it) that cannot be used: the file, and what is
/// wrong with it, with the line where serde knows it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {msg}", path = path.display())]
pub struct ConfigError {
    pub path: PathBuf,
    pub msg: String,
}
