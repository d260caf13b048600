//! File kinds and versions: the first 10 bytes of every psins file say what it is, so a
//! reader handed the wrong file says what it got instead of misreading it.

use crate::error::{Error, Result};
use std::path::Path;

pub const LOG_MAGIC: &[u8; 8] = b"PSINSLOG";
pub const TRACE_MAGIC: &[u8; 8] = b"PSINSTRC";
/// Version 2 added intercommunicators (comm_create head bit 5 and the communicator table's
/// two-group entries); version 3 added the batch step ops (isend, irecv, waitall) and
/// one-sided communication (the extended kinds 21.., written as `other` with head bit 7);
/// version 4 the extended kinds 25 (`poll`: a run of unsuccessful tests or probes) and 26
/// (`pcontrol`); version 5 the extended kind 27 (`other_req`: a request of a call the trace
/// does not model, MPI-IO's nonblocking calls and the like). Files of older versions cannot
/// contain what was added later, so they are still read.
pub const LOG_VERSION: u16 = 5;
pub const TRACE_VERSION: u16 = 5;
/// The oldest version this build reads, of either kind.
pub const OLDEST_READ: u16 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Log,
    Trace,
}

impl FileKind {
    fn describe(self) -> &'static str {
        match self {
            FileKind::Log => "a psins per-rank log (rank-*.bin, written by libpsinstrace.so)",
            FileKind::Trace => "a psins compact trace (.psins, written by psins-consolidate)",
        }
    }
    fn magic(self) -> &'static [u8; 8] {
        match self {
            FileKind::Log => LOG_MAGIC,
            FileKind::Trace => TRACE_MAGIC,
        }
    }
    fn version(self) -> u16 {
        match self {
            FileKind::Log => LOG_VERSION,
            FileKind::Trace => TRACE_VERSION,
        }
    }
}

/// Says which kind of psins file `head` (its first bytes) starts, if any.
pub fn sniff(head: &[u8]) -> Option<FileKind> {
    [FileKind::Log, FileKind::Trace].into_iter().find(|k| head.starts_with(k.magic()))
}

/// Checks the 10-byte prefix (magic + version) against what the caller expects.
pub fn check(path: &Path, head: &[u8], want: FileKind) -> Result<()> {
    if head.len() < 10 {
        return Err(Error::new(
            path,
            format!("file is {} bytes long, too short to be {}", head.len(), want.describe()),
        ));
    }
    match sniff(head) {
        Some(k) if k == want => {}
        Some(k) => {
            let hint = match (k, path.parent().filter(|d| !d.as_os_str().is_empty())) {
                (FileKind::Log, Some(dir)) if want == FileKind::Trace => {
                    format!(": consolidate its run first, `psins-consolidate {} -o app.psins`", dir.display())
                }
                _ => String::new(),
            };
            return Err(Error::new(path, format!("this is {}, expected {}{hint}", k.describe(), want.describe())));
        }
        None => {
            let shown: String = head[..8].iter().map(|&b| if b.is_ascii_graphic() { b as char } else { '.' }).collect();
            return Err(Error::new(
                path,
                format!("not a psins file (starts with {shown:?}), expected {}", want.describe()),
            ));
        }
    }
    let v = u16::from_le_bytes([head[8], head[9]]);
    if !(OLDEST_READ..=want.version()).contains(&v) {
        return Err(Error::new(
            path,
            format!(
                "{} of format version {v}; this build reads versions {OLDEST_READ} to {}",
                want.describe(),
                want.version()
            ),
        ));
    }
    Ok(())
}
