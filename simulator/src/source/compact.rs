//! The compact `.psins` trace as a [`TraceSource`]: one small-window cursor per task, opened
//! when the task first reads and dropped when it is consumed.

use super::{RecordStream, TraceSource, TracerOverhead, OVERHEAD_SAMPLE};
use crate::error::Result;
use psins_formats::{CommDef, Op, PollKey, PollRun, Record, TaskCursor, TraceReader};
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
    /// Per task, the measured span and MPI time so far ([`super::Measured`]), in ns; empty
    /// for a trace the tracer did not write (a generated one), which has no measured run.
    measured: Vec<(u64, u64)>,
}

impl CompactTrace {
    pub fn open(path: &Path) -> Result<CompactTrace> {
        let reader = TraceReader::open(path)?;
        let n = reader.tasks() as usize;
        let traced = reader.header.meta("tracer_version").is_some();
        Ok(CompactTrace {
            cursors: (0..n).map(|_| None).collect(),
            consumed: vec![false; n],
            floor: Vec::new(),
            measured: if traced { vec![(0, 0); n] } else { Vec::new() },
            reader,
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
                for t in 0..n {
                    v.push(smallest_gap(self.reader.task(t, 4096)?)?);
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

/// The smallest gap between two calls among a task's first [`OVERHEAD_SAMPLE`] calls as
/// the tracer writes them (0 if none; expansion steps are not calls). Runs of unsuccessful
/// polls count as the one `poll` record the tracer folds them into (psins_formats::PollRun,
/// the tracer's own rule), with their shortest inner gap: so a trace traced with PSINS_FOLD_POLLS=0 and the same trace
/// folded sample the same calls and get the same floor.
fn smallest_gap(mut c: TaskCursor) -> Result<u64> {
    let (mut floor, mut k) = (u64::MAX, 0u64);
    let mut rec = Record::default();
    let mut run = PollRun::default();
    let sample = |floor: &mut u64, k: &mut u64, gap: u64, min_gap: Option<u64>| {
        // The first record is MPI_Init, whose gap is the process's start-up.
        if *k > 0 {
            *floor = (*floor).min(gap);
        }
        if let Some(g) = min_gap {
            *floor = (*floor).min(g);
        }
        *k += 1;
    };
    let of_run = |r: &PollRun| (r.gap, (r.calls > 1).then_some(r.min_gap));
    while k < OVERHEAD_SAMPLE && c.next(&mut rec)? {
        // Records that are not calls (a collective's expansion steps) have a gap of 0 by
        // definition: sampled, they would make the floor of every such trace 0.
        if !rec.op.is_call() {
            continue;
        }
        if let Some(key) = PollKey::of(&rec.op, &rec.list) {
            if let Some(ended) = run.add(key, rec.gap_ns, rec.dur_ns) {
                let (g, m) = of_run(&ended);
                sample(&mut floor, &mut k, g, m);
            }
            continue;
        }
        if let Some(ended) = run.take() {
            let (g, m) = of_run(&ended);
            sample(&mut floor, &mut k, g, m);
        }
        let min_gap = match rec.op {
            Op::Poll { calls: 2.., min_gap_ns, .. } => Some(min_gap_ns),
            _ => None,
        };
        sample(&mut floor, &mut k, rec.gap_ns, min_gap);
    }
    if let Some(ended) = run.take() {
        let (g, m) = of_run(&ended);
        sample(&mut floor, &mut k, g, m);
    }
    Ok(if floor == u64::MAX { 0 } else { floor })
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
            if let Some((span, comm)) = self.measured.get_mut(t as usize) {
                let (gap, dur) = rec.span_part();
                *span = span.saturating_add(gap.saturating_add(dur));
                *comm = comm.saturating_add(dur);
            }
            if let Some(&f) = self.floor.get(t as usize) {
                rec.gap_ns = rec.gap_ns.saturating_sub(f);
                // a run of polls holds the tracer's cost once per call: the rest is in `between`
                if let Op::Poll { calls, between_ns, .. } = &mut rec.op {
                    *between_ns = between_ns.saturating_sub(f.saturating_mul(*calls - 1));
                }
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
            crate::engine::prefetch(c as *const Option<TaskCursor>, size_of::<Option<TaskCursor>>());
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
        let (rank, &(span_ns, _)) = self.measured.iter().enumerate().rev().max_by_key(|&(_, (s, _))| s)?;
        let comm_ns = self.measured.iter().map(|&(_, c)| c).max().unwrap_or(0);
        let bursts = self.reader.header.burst_clock();
        Some(super::Measured { span_ns, rank: rank as u32, comm_ns, bursts })
    }

    fn mpi_library(&self) -> Option<String> {
        let h = &self.reader.header;
        h.meta("mpi_version").or_else(|| h.meta("traced_mpi_version")).map(str::to_string)
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
