//! Trace sources (PSINS's `Parser`): where each task's records come from. The engine pulls
//! one record at a time per task, so a source never has to hold a whole trace.

pub mod compact;
pub mod extrapolated;
pub mod synth;

use crate::error::Result;
use psins_formats::{CommDef, Record};

/// What to take off each traced CPU burst for the tracer's own cost. A traced gap runs from
/// one call's return to the next call's entry, so it includes the tracer's work after the
/// first call (timestamp, record) and before the second: about 50 ns per call on the
/// project VM, a third of the "computation" of a call-bound loop, which the untraced run
/// never spends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TracerOverhead {
    /// Per task, the smallest gap among its first [`OVERHEAD_SAMPLE`] records (two calls
    /// back to back: nothing but the tracer between them), for traces the tracer wrote
    /// (metadata `tracer_version`); nothing for generated ones.
    #[default]
    Auto,
    /// This many nanoseconds off every gap (0: gaps as recorded).
    Fixed(u64),
}

/// `--tracer-overhead`: `auto`, `0` or a time such as `50ns`.
pub fn parse_tracer_overhead(s: &str) -> std::result::Result<TracerOverhead, crate::units::UnitError> {
    match s {
        "auto" => Ok(TracerOverhead::Auto),
        "0" => Ok(TracerOverhead::Fixed(0)),
        _ => crate::units::parse_time(s).map(|ps| TracerOverhead::Fixed(ps / 1000)),
    }
}

impl std::fmt::Display for TracerOverhead {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            TracerOverhead::Auto => write!(f, "auto"),
            TracerOverhead::Fixed(ns) => write!(f, "{ns}ns"),
        }
    }
}

/// Records per task that [`TracerOverhead::Auto`] looks at.
pub const OVERHEAD_SAMPLE: u64 = 4096;

/// A source of per-task record streams.
pub trait TraceSource {
    /// Number of tasks (world size).
    fn tasks(&self) -> u32;
    /// Total records over all tasks (for progress and throughput figures).
    fn total_records(&self) -> u64;
    /// Communicators known before replay (world and self may be absent: they are implicit).
    fn comms(&self) -> Vec<CommDef>;
    /// Decodes task `t`'s next record into `rec`; `Ok(false)` once the task is consumed.
    fn next(&mut self, t: u32, rec: &mut Record) -> Result<bool>;
    /// True once every record of task `t` has been returned.
    fn is_consumed(&self, t: u32) -> bool;
    /// An independent stream over task `t` from its first record, used to look ahead (to
    /// resolve wildcard receives from their later completion records).
    fn lookahead(&self, t: u32) -> Result<Box<dyn RecordStream>>;
    /// Hint: task `t` reads next soon (lets a source start loading its state into cache).
    #[inline]
    fn prefetch(&self, _t: u32) {}
    /// One line describing the source for reports.
    fn describe(&self) -> String;
    /// The first line of the traced run's `MPI_Get_library_version` (metadata `mpi_version`,
    /// or `traced_mpi_version` of an extrapolated trace); `None` when the source does not say.
    fn mpi_library(&self) -> Option<String> {
        None
    }
    /// The traced run's own time, once every record has been read (traces the tracer wrote).
    fn measured(&self) -> Option<Measured> {
        None
    }
}

/// What the traced run itself took, from its records: per rank, the span from MPI_Init's
/// return to MPI_Finalize's entry (every later record's gap and duration as recorded, before
/// `--tracer-overhead`) and the time inside MPI calls; the slowest rank's span is what
/// psins-sim predicts for the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measured {
    pub span_ns: u64,
    /// The rank with that span.
    pub rank: u32,
    /// The largest time in MPI calls of any rank.
    pub comm_ns: u64,
    /// What timed the bursts between the calls (`PSINS_CLOCK`; `None`: a value this version
    /// does not know). With `Cpu` the span is the ranks' CPU time between calls plus the calls'
    /// wall time, not the time the run took.
    pub bursts: Option<psins_formats::BurstClock>,
}

/// One task's records in order.
pub trait RecordStream {
    fn next(&mut self, rec: &mut Record) -> Result<bool>;
}
