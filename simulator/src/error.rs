//! The simulator's error type. Each variant maps to one process exit code of the scheme every
//! psins tool follows (docs/exit-codes.md), so scripts can tell bad input from a deadlock.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The trace file cannot be read or is corrupt.
    #[error(transparent)]
    Trace(#[from] psins_formats::Error),
    /// A record that is well-formed on disk but meaningless for replay.
    #[error("rank {task}, record {record}: {msg}")]
    BadRecord { task: u32, record: u64, msg: String },
    /// The machine file (or a `--set` override) is invalid.
    #[error("{path}: {msg}")]
    Config { path: PathBuf, msg: String },
    /// The machine's network model refuses what the file asks of it.
    #[error("{}: {source}", path.display())]
    Model {
        path: PathBuf,
        #[source]
        source: crate::model::BuildError,
    },
    /// Bad command-line usage or arguments.
    #[error("{0}")]
    Usage(String),
    /// Input that is unusable as a whole (not one record), e.g. a trace header's communicators.
    #[error("{0}")]
    Input(String),
    /// No task can progress but some have not finished.
    #[error("{0}")]
    Deadlock(String),
    /// An output cannot be prepared or written (psins_formats::output's rule, or stdout).
    #[error(transparent)]
    OutputFile(psins_formats::Error),
    /// Writing an output file failed.
    #[error("cannot write {path}")]
    Output {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl From<psins_machine::ConfigError> for SimError {
    fn from(e: psins_machine::ConfigError) -> Self {
        SimError::Config { path: e.path, msg: e.msg }
    }
}

pub type Result<T, E = SimError> = std::result::Result<T, E>;

impl From<psins_timeline::TimelineError> for SimError {
    fn from(e: psins_timeline::TimelineError) -> SimError {
        match e {
            psins_timeline::TimelineError::Usage(m) => SimError::Usage(m),
            psins_timeline::TimelineError::Output { path, source } => SimError::Output { path, source },
        }
    }
}

pub use psins_formats::exit::Exit;

/// Parses the command line, or prints clap's message and exits: 0 for `--help`/`--version`,
/// [`Exit::Usage`] for bad arguments, [`Exit::Output`] when the help cannot be printed.
pub fn parse_args<P: clap::Parser>() -> P {
    P::try_parse().unwrap_or_else(|e| {
        let code = if e.use_stderr() { Exit::Usage } else { Exit::Ok };
        let code = if e.print().is_err() { Exit::Output } else { code };
        code.exit();
    })
}

impl SimError {
    pub fn exit_code(&self) -> Exit {
        match self {
            SimError::Deadlock(_) => Exit::Deadlock,
            SimError::Output { .. } | SimError::OutputFile(_) => Exit::Output,
            SimError::Usage(_) => Exit::Usage,
            _ => Exit::BadInput,
        }
    }

    pub fn bad_record(task: u32, record: u64, msg: impl Into<String>) -> SimError {
        SimError::BadRecord { task, record, msg: msg.into() }
    }

    pub fn output(path: &std::path::Path, source: std::io::Error) -> SimError {
        SimError::Output { path: path.to_path_buf(), source }
    }
}
