//! psins traces in the formats other tools read. So far: the compact trace (the measured run)
//! to SimGrid's time-independent (TI) traces, which `smpirun -replay` replays
//! (docs/interop-simgrid.md says what is kept, what is approximated and what is refused), to
//! Paraver, and to OTF2 through libotf2 when the build found it (docs/interop-otf2.md).
//!
//! Readers of foreign formats live here too and go through consolidation's library
//! (`psins_consolidate`), so imported traces get the checks traced ones get: so far SimGrid TI
//! (`psins-import --from ti`) and sst-dumpi traces (`psins-import --from dumpi`, docs/interop-dumpi.md).

pub mod dumpi;
pub mod otf2;
pub mod paraver;
pub mod ti;

use std::path::Path;

/// Why an export failed: the trace (exit code 1) or an output (exit code 3), each naming the
/// file and, for the trace, the rank and record.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{0}")]
    Input(psins_formats::Error),
    #[error("{0}")]
    Output(psins_formats::Error),
}

impl ExportError {
    /// The exit code of docs/exit-codes.md.
    pub fn exit_code(&self) -> psins_formats::exit::Exit {
        match self {
            ExportError::Input(_) => psins_formats::exit::Exit::BadInput,
            ExportError::Output(_) => psins_formats::exit::Exit::Output,
        }
    }

    pub(crate) fn record(path: &Path, task: u32, record: u64, msg: impl Into<String>) -> ExportError {
        ExportError::Input(psins_formats::Error::new(path, msg).task(task).record(record))
    }
}
