//! What consolidation reads: one input per rank, each its records in order plus its
//! metadata. The tracer's per-rank log is the first implementation ([`LogInput`]); importers of
//! other formats implement the same two traits, so every trace psins writes went through the
//! same checks and normalisation and fails with the same messages.

use crate::inputs::Input;
use psins_formats::{Error, LogEnd, LogReader, Record};
use std::path::Path;

/// One rank's records of a run.
pub trait RankInput {
    type Stream: RecordStream;
    /// The file that messages about this rank name.
    fn path(&self) -> &Path;
    /// The rank (world rank, 0..world size).
    fn rank(&self) -> u32;
    /// Size of the input in bytes (for the progress bar and the summary): by default the size
    /// of [`path`](Self::path), 0 when it cannot be read (opening it then names the error).
    fn bytes(&self) -> u64 {
        std::fs::metadata(self.path()).map(|m| m.len()).unwrap_or(0)
    }
    /// Whether the input is known to be whole before reading it (a log's footer): when every
    /// rank's is, consolidation reads once; otherwise it scans first to find where to cut. By
    /// default true: an imported format is read whole or refused, never cut short silently
    /// (only the tracer's logs, written by a run that may have died, can end early).
    fn known_complete(&self) -> Result<bool, Error> {
        Ok(true)
    }
    /// A reader of the rank's records from the first (consolidation may read twice).
    fn open(&self) -> Result<Self::Stream, Error>;
}

/// A rank's records in order.
pub trait RecordStream {
    /// Reads the next record into `rec`; false at the end. An error names the file, rank and
    /// record (or byte offset).
    fn next(&mut self, rec: &mut Record) -> Result<bool, Error>;
    /// Records read so far.
    fn records(&self) -> u64;
    /// How the stream ended (once `next` returned false): complete, or cut short and why. By
    /// default complete (see [`RankInput::known_complete`]).
    fn end(&self) -> LogEnd {
        LogEnd::Complete
    }
}

/// A rank's records already in memory: an input read whole (an OTF2 location, whose calls are
/// known only once their completions have been seen) or generated (an extrapolated rank).
pub struct Records {
    records: std::vec::IntoIter<Record>,
    read: u64,
}

impl Records {
    pub fn new(records: Vec<Record>) -> Records {
        Records { records: records.into_iter(), read: 0 }
    }
}

impl RecordStream for Records {
    fn next(&mut self, rec: &mut Record) -> Result<bool, Error> {
        match self.records.next() {
            Some(r) => {
                *rec = r;
                self.read += 1;
                Ok(true)
            }
            None => Ok(false),
        }
    }
    fn records(&self) -> u64 {
        self.read
    }
}

/// The tracer's per-rank log (`rank-N.bin`).
pub struct LogInput(pub Input);

impl RankInput for LogInput {
    type Stream = LogReader;
    fn path(&self) -> &Path {
        &self.0.path
    }
    fn rank(&self) -> u32 {
        self.0.header.rank
    }
    fn bytes(&self) -> u64 {
        self.0.bytes
    }
    fn known_complete(&self) -> Result<bool, Error> {
        psins_formats::has_footer(&self.0.path)
    }
    fn open(&self) -> Result<LogReader, Error> {
        LogReader::open(&self.0.path)
    }
}

impl RecordStream for LogReader {
    fn next(&mut self, rec: &mut Record) -> Result<bool, Error> {
        LogReader::next(self, rec)
    }
    fn records(&self) -> u64 {
        LogReader::records(self)
    }
    fn end(&self) -> LogEnd {
        LogReader::end(self).clone()
    }
}
