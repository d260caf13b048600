//! psins-torus: a packet-level k-ary n-cube (torus or mesh) network model in the style of
//! INSEE's FSIN, built to be driven as a co-simulation by the psins simulator engine.
//!
//! One router per node with, per direction of every dimension, an input and an output
//! port, plus injection and ejection; V virtual channels per link, each a FIFO of B
//! packets; virtual cut-through; bubble flow control on every ring; dimension-order or
//! minimal adaptive routing with a bubble-DOR escape channel; round-robin output
//! arbitration; a deadlock watchdog. Time is in router cycles. See docs/torus.md.
//!
//! ```
//! use psins_torus::{Torus, TorusConfig};
//! let mut net = Torus::new(TorusConfig::default()).unwrap();
//! net.inject(7, 0, 9, 1000, 0);
//! let mut done = Vec::new();
//! while let Some(t) = net.next_activity() {
//!     net.advance_to(t, &mut done).unwrap();
//! }
//! assert_eq!(done, vec![(7, net.config().zero_load_cycles(2, 1000))]);
//! ```

mod calendar;
mod config;
mod deadlock;
mod events;
mod flow;
mod network;
mod router;
mod routing;
mod slab;
mod stats;
pub mod synth;
mod topology;
mod transfer;

pub use config::{Routing, TorusConfig, MAX_DIMS, MAX_NODES};
pub use deadlock::Deadlock;
pub use network::{Hop, Torus};
pub use stats::{Histogram, TorusStats};
pub use topology::{Topology, NO_LINK};
