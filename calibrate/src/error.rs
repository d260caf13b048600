//! What can go wrong, typed, each with the exit code it maps to (docs/calibrate.md).

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// The launcher could not be started or the worker failed under it.
    #[error("launcher: {0}")]
    Launcher(String),
    /// The worker's output cannot be read.
    #[error("worker output: {0}")]
    Worker(String),
    /// The ranks were placed so that nothing meaningful can be measured.
    #[error("placement: {0}")]
    Placement(String),
    /// Figures that cannot all be true at once.
    #[error("contradictory figures: {0}")]
    Contradiction(String),
    /// The host was too noisy; `--allow-noisy` writes a flagged file instead.
    #[error("too noisy to calibrate: {0} (rerun on an idle host, raise --max-spread, or write a flagged file with --allow-noisy)")]
    Noisy(String),
    /// `--check`: this host no longer measures what the machine file says, or the file has
    /// no reference points to compare with.
    #[error("{0}")]
    Changed(String),
    #[error("check: {0}")]
    Check(String),
    /// An output cannot be written (the shared rule of docs/exit-codes.md).
    #[error("{0}")]
    Output(#[from] psins_formats::Error),
}

impl Error {
    /// docs/exit-codes.md: 3 for an output that cannot be written, 1 for a calibration that
    /// failed or was refused; clap's usage errors exit 2.
    pub fn exit_code(&self) -> psins_formats::exit::Exit {
        match self {
            Error::Output(_) => psins_formats::exit::Exit::Output,
            _ => psins_formats::exit::Exit::BadInput,
        }
    }
}
