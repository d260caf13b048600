//! One error type for both formats: it names the file and, where known, the task, the record
//! index and the byte offset, and keeps the I/O cause for the chain.

use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub struct Error {
    pub path: PathBuf,
    pub task: Option<u32>,
    pub record: Option<u64>,
    pub offset: Option<u64>,
    pub msg: String,
    pub source: Option<std::io::Error>,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(path: &Path, msg: impl Into<String>) -> Error {
        Error { path: path.to_path_buf(), task: None, record: None, offset: None, msg: msg.into(), source: None }
    }
    pub fn io(path: &Path, what: &str, e: std::io::Error) -> Error {
        let mut err = Error::new(path, what);
        err.source = Some(e);
        err
    }
    pub fn task(mut self, t: u32) -> Error {
        self.task = Some(t);
        self
    }
    pub fn record(mut self, r: u64) -> Error {
        self.record = Some(r);
        self
    }
    pub fn at(mut self, offset: u64) -> Error {
        self.offset = Some(offset);
        self
    }
    /// Whether the cause is a pipe whose reader has gone.
    pub fn is_broken_pipe(&self) -> bool {
        self.source.as_ref().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(t) = self.task {
            write!(f, ": rank {t}")?;
        }
        if let Some(r) = self.record {
            write!(f, ", record {r}")?;
        }
        if let Some(o) = self.offset {
            write!(f, " (byte offset {o})")?;
        }
        write!(f, ": {}", self.msg)?;
        if let Some(e) = &self.source {
            write!(f, ": {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_ref().map(|e| e as _)
    }
}
