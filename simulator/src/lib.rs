//! psins-sim: replays a compact MPI trace in causal order on a modelled target machine and
//! predicts its run time (see `docs/simulator.md` and `docs/models.md`).
//!
//! The pieces: a [`source::TraceSource`] streams each task's records; the [`engine`] replays
//! them with MPI semantics; a [`model::NetworkModel`] (chosen by name in the machine file,
//! [`Machine`], from the `psins-machine` crate) times every message and analytic collective; [`report`] and
//! [`timeline`] say what happened.

pub mod critpath;
pub mod engine;
pub mod error;
pub mod model;
pub mod plot;
pub mod predicted;
pub mod provenance;
pub mod report;
pub mod source;
pub mod stats;
pub mod sweep;
/// The timeline writer (`--timeline`), shared with psins-dump (`psins-timeline`).
pub use psins_timeline as timeline;
/// Quantities with units: the workspace's one parser and formatter (`psins-units`).
pub use psins_units as units;

pub use engine::{Options, Sim};
pub use error::{Result, SimError};
/// The machine file, resolved (`psins-machine`).
pub use psins_machine::Machine;
pub use report::Report;

/// Replays `src` on machine `m`.
pub fn simulate<S: source::TraceSource>(src: S, m: &Machine, opts: Options) -> Result<Report> {
    Sim::new(src, m, opts)?.run()
}

/// Replays `src` on machine `m`; a deadlock gives a report too (with `deadlock` set).
pub fn simulate_report<S: source::TraceSource>(src: S, m: &Machine, opts: Options) -> Result<Report> {
    Sim::new(src, m, opts)?.run_report()
}
