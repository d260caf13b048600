//! Consolidation as a library: the checks and normalisation that turn one run's per-rank
//! record streams into a compact trace. Inputs come through one per-rank trait
//! ([`RankInput`]/[`RecordStream`]: a rank's records in order plus its metadata); the tracer's
//! logs implement it ([`LogInput`]), and so does every importer of another format, so every
//! trace psins writes passed the same checks and fails with the same messages (the file, the
//! rank and the record). `psins-consolidate` is a thin shell over [`run::consolidate`].

mod comms;
pub mod inputs;
mod live;
mod normalise;
pub mod passes;
mod requests;
pub mod run;
pub mod source;
mod windows;

pub use source::{LogInput, RankInput, RecordStream, Records};
