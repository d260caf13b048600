//! psins-network: the network models the psins simulator engine drives as a co-simulation. A
//! packet-level engine generic over a topology-and-routing layer ([`Fabric`]: routers,
//! terminals, links with per-port virtual channels, a routing function), and on it the k-ary
//! n-cube (torus and mesh) in the style of INSEE's FSIN, the fat-tree and the dragonfly; and
//! the flow-level max-min model over the same topologies.
//!
//! The torus: one router per node with, per direction of every dimension, an input and an output
//! port, plus injection and ejection; V virtual channels per link, each a FIFO of B
//! packets; virtual cut-through; bubble flow control on every ring; dimension-order or
//! minimal adaptive routing with a bubble-DOR escape channel; round-robin output
//! arbitration; a deadlock watchdog. Time is in router cycles. See docs/torus.md.
//!
//! ```
//! use psins_network::{Torus, TorusConfig};
//! let mut net = Torus::new(TorusConfig::default()).unwrap();
//! net.inject(7, 0, 9, 1000, 0);
//! let mut done = Vec::new();
//! while let Some(t) = net.next_activity() {
//!     net.advance_to(t, &mut done).unwrap();
//! }
//! assert_eq!(done, vec![(7, net.config().zero_load_cycles(2, 1000))]);
//! ```

mod calendar;
mod deadlock;
pub mod dragonfly;
mod error;
mod events;
pub mod fabric;
pub mod fattree;
mod flow;
pub mod fluid;
pub mod graph;
pub mod maxmin;
mod network;
mod params;
mod router;
mod sharing;
mod slab;
mod stats;
pub mod synth;
mod torus;
mod transfer;

pub use deadlock::Deadlock;
pub use dragonfly::config::{Arrangement, DragonflyConfig, DragonflyRouting};
pub use dragonfly::{Dragonfly, DragonflyFabric};
pub use error::{ConfigError, MessageError};
pub use fabric::{path, Fabric, NO_LINK};
pub use fattree::config::{FatTreeConfig, FatTreeRouting};
pub use fattree::{FatTree, FatTreeFabric};
pub use fluid::FluidNetwork;
pub use graph::{Cluster, FabricGraph, FlowGraph};
pub use network::{Hop, Network};
pub use params::{RouterConfig, MAX_PACKET_PHITS};
pub use stats::{Histogram, LinkUse, NetworkStats};
pub use torus::config::{Routing, TorusConfig, MAX_DIMS, MAX_NODES};
pub use torus::topology::Topology;
pub use torus::{Torus, TorusFabric};

/// The statistics' name before other topologies shared them.
pub type TorusStats = NetworkStats;
