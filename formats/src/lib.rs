//! psins file formats: the event vocabulary, the varint codec, the per-rank log written by the
//! tracer and the compact trace written by `psins-consolidate`. See `docs/format.md`.
//!
//! No MPI and no simulator here: this crate is what writers and readers share, so that a
//! record means the same thing at every stage. That includes the MPI function table
//! (`c-headers/mpi_functions.tbl`, read by [`mpi_table`] at build time into [`functions`]):
//! the ids of `other` records and the names every tool prints calls with.
pub mod bursts;
pub mod codec;
pub mod comms;
mod encode;
pub mod error;
pub mod exit;
mod fast;
pub mod functions;
pub mod jobs;
pub mod log;
pub mod magic;
pub mod messages;
pub use psins_vocab::how;
pub use psins_vocab::mpi_table;
pub mod output;
pub mod polls;
pub use psins_vocab::record;
mod repeat;
pub mod splitmix;
pub mod trace;
pub mod varint;

pub use bursts::BurstClock;
pub use error::{Error, Result};
pub use log::{has_footer, LogEncoder, LogEnd, LogHeader, LogReader};
pub use magic::{sniff, FileKind};
pub use output::Output;
pub use polls::{PollKey, PollRun};
pub use record::*;
pub use trace::{CommDef, CommDefError, TaskCursor, TaskEntry, TraceHeader, TraceReader, TraceWriter, OUTSIDE_JOB};
