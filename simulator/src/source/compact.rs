//! The compact `.psins` trace as a [`TraceSource`]: one small-window cursor per task, opened
//! when the task first reads and dropped when it is consumed.

use super::{RecordStream, TraceSource, TracerOverhead, OVERHEAD_SAMPLE};
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
    /// Per task, nanoseconds taken off every gap: the tracer's own cost (empty: none).
    floor: Vec<u64>,
    /// Per task, the measured span and MPI time so far ([`super::Measured`]), in ns.
    span_ns: Vec<u64>,
    comm_ns: Vec<u64>,
}

impl CompactTrace {
    pub fn open(path: &Path) -> Result<CompactTrace> {
        let reader = TraceReader::open(path)?;
        let n = reader.tasks() as usize;
        Ok(CompactTrace {
            reader,
            cursors: (0..n).map(|_| None).collect(),
            consumed: vec![false; n],
            floor: Vec::new(),
            span_ns: vec![0; n],
            comm_ns: vec![0; n],
        })
    }

    /// Takes the tracer's own cost off every gap (see [`TracerOverhead`]).
    pub fn with_tracer_overhead(mut self, o: TracerOverhead) -> Result<CompactTrace> {
        let n = self.tasks();
        self.floor = match o {
            TracerOverhead::Fixed(0) => Vec::new(),
            TracerOverhead::Fixed(ns) => vec![ns; n as usize],
            TracerOverhead::Auto if self.reader.header.meta("tracer_version").is_none() => Vec::new(),
            TracerOverhead::Auto => {
                let mut v = Vec::with_capacity(n as usize);
                let mut rec = Record::default();
                for t in 0..n {
                    let mut c = self.reader.task(t, 4096)?;
                    let (mut floor, mut k) = (u64::MAX, 0);
                    // The first record is MPI_Init, whose gap is the process's start-up.
                    while k < OVERHEAD_SAMPLE && c.next(&mut rec)? {
                        if k > 0 {
                            floor = floor.min(rec.gap_ns);
                        }
                        k += 1;
                    }
                    v.push(if floor == u64::MAX { 0 } else { floor });
                }
                v
            }
        };
        Ok(self)
    }

    /// The nanoseconds taken off each gap: (smallest, largest) over the tasks, if any.
    pub fn tracer_overhead(&self) -> Option<(u64, u64)> {
        let lo = *self.floor.iter().min()?;
        Some((lo, *self.floor.iter().max()?))
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
            let (gap, dur) = rec.span_part();
            let i = t as usize;
            self.span_ns[i] = self.span_ns[i].saturating_add(gap.saturating_add(dur));
            self.comm_ns[i] = self.comm_ns[i].saturating_add(dur);
            if let Some(f) = self.floor.get(t as usize) {
                rec.gap_ns = rec.gap_ns.saturating_sub(*f);
            }
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

    fn measured(&self) -> Option<super::Measured> {
        // A generated trace's times are the generator's, not a run's.
        self.reader.header.meta("tracer_version")?;
        let (rank, &span_ns) = self.span_ns.iter().enumerate().rev().max_by_key(|&(_, s)| s)?;
        Some(super::Measured { span_ns, rank: rank as u32, comm_ns: self.comm_ns.iter().copied().max().unwrap_or(0) })
    }

    fn describe(&self) -> String {
        let removed = match self.tracer_overhead() {
            Some((lo, hi)) if lo == hi => format!(", the tracer's {lo} ns per call taken off the gaps"),
            Some((lo, hi)) => format!(", the tracer's {lo}–{hi} ns per call taken off the gaps"),
            None => String::new(),
        };
        format!("{} ({} tasks, {} records{removed})", self.reader.path().display(), self.tasks(), self.total_records())
    }
}

struct CursorStream(TaskCursor);

impl RecordStream for CursorStream {
    fn next(&mut self, rec: &mut Record) -> Result<bool> {
        Ok(self.0.next(rec)?)
    }
}
