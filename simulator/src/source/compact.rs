//! The compact `.psins` trace as a [`TraceSource`]: one small-window cursor per task, opened
//! when the task first reads and dropped when it is consumed.

use super::{RecordStream, TraceSource};
use crate::error::Result;
use psins_formats::{CommDef, Record, TaskCursor, TraceReader};
use std::path::Path;

/// Read window per task: the smaller, the more system calls; the larger, the more memory per
/// task and the more cache the tasks' windows compete for. 4 MiB over all tasks, between 256
/// bytes (a million tasks) and 16 KiB.
fn window(tasks: u32) -> usize {
    ((4usize << 20) / tasks.max(1) as usize).clamp(256, 16 << 10)
}

pub struct CompactTrace {
    reader: TraceReader,
    cursors: Vec<Option<TaskCursor>>,
    consumed: Vec<bool>,
}

impl CompactTrace {
    pub fn open(path: &Path) -> Result<CompactTrace> {
        let reader = TraceReader::open(path)?;
        let n = reader.tasks() as usize;
        Ok(CompactTrace { reader, cursors: (0..n).map(|_| None).collect(), consumed: vec![false; n] })
    }

    pub fn reader(&self) -> &TraceReader {
        &self.reader
    }
}

impl TraceSource for CompactTrace {
    fn tasks(&self) -> u32 {
        self.reader.tasks()
    }

    fn total_records(&self) -> u64 {
        self.reader.header.total_records()
    }

    fn comms(&self) -> Vec<CommDef> {
        self.reader.header.comms.clone()
    }

    #[inline]
    fn next(&mut self, t: u32, rec: &mut Record) -> Result<bool> {
        let slot = &mut self.cursors[t as usize];
        if slot.is_none() {
            if self.consumed[t as usize] {
                return Ok(false);
            }
            *slot = Some(self.reader.task(t, window(self.consumed.len() as u32))?);
        }
        let cursor = slot.as_mut().expect("opened above");
        if cursor.next(rec)? {
            return Ok(true);
        }
        *slot = None;
        self.consumed[t as usize] = true;
        Ok(false)
    }

    #[inline]
    fn prefetch(&self, t: u32) {
        if let Some(c) = self.cursors.get(t as usize) {
            crate::engine::prefetch(c as *const Option<TaskCursor>, std::mem::size_of::<Option<TaskCursor>>());
        }
    }

    fn is_consumed(&self, t: u32) -> bool {
        self.consumed[t as usize]
    }

    fn lookahead(&self, t: u32) -> Result<Box<dyn RecordStream>> {
        Ok(Box::new(CursorStream(self.reader.task(t, window(self.consumed.len() as u32))?)))
    }

    fn describe(&self) -> String {
        format!("{} ({} tasks, {} records)", self.reader.path().display(), self.tasks(), self.total_records())
    }
}

struct CursorStream(TaskCursor);

impl RecordStream for CursorStream {
    fn next(&mut self, rec: &mut Record) -> Result<bool> {
        Ok(self.0.next(rec)?)
    }
}
