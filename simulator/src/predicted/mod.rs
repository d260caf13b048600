//! `--predicted-trace FILE`: the predicted run as a compact trace — every record of the
//! replayed trace, in order, its gap (the computation before the call) and duration replaced by
//! the predicted ones — so that every tool that reads a trace (psins-dump --profile and
//! --timeline, psins-export to TI, OTF2 and Paraver) shows the prediction as it shows a
//! measured run. The engine reports each call's predicted start and end (the hooks the
//! timeline has); the times wait per task in [`times::Times`] (bounded memory, spilled to
//! disk) until the replay is over, then the trace is written task by task with the source's
//! records read again.
//!
//! Times are picoseconds in the replay and nanoseconds in a trace: each call's start and end
//! are rounded down to the nanosecond and the gap and duration are the differences of the
//! rounded instants, so a rank's gaps and durations add up to its predicted end rounded down,
//! exactly, with no drift over millions of calls.

mod times;

use crate::error::{Result, SimError};
use crate::source::TraceSource;
use crate::units::{Ps, PS_PER_NS};
use psins_formats::{CommDef, Op, Record, TraceWriter};
use std::path::{Path, PathBuf};
use times::Times;

pub struct PredictedTrace {
    path: PathBuf,
    /// The name messages give (the path the user named, when `path` is a temporary file).
    name: PathBuf,
    meta: Vec<(String, String)>,
    times: Times,
    tasks: Vec<Cursor>,
    error: Option<std::io::Error>,
}

/// Where a task's replay is, for the trace.
#[derive(Clone, Copy, Default)]
struct Cursor {
    /// Index of the first record not given times yet.
    next: u64,
    /// The call in progress: its record index and predicted start.
    index: u64,
    start: Ps,
    /// The previous call's predicted end.
    prev: Ps,
}

impl PredictedTrace {
    /// A predicted trace of `tasks` tasks to write to `path` (named `name` in messages) with
    /// metadata `meta` ([`metadata`]).
    pub fn new(path: &Path, name: &Path, tasks: u32, meta: Vec<(String, String)>) -> PredictedTrace {
        PredictedTrace {
            path: path.to_path_buf(),
            name: name.to_path_buf(),
            meta,
            times: Times::new(tasks),
            tasks: vec![Cursor::default(); tasks as usize],
            error: None,
        }
    }

    /// Task `t`'s call at record `index` starts at `start` (after its computation). Records
    /// between the previous call and this one (expansion steps of a collective replayed
    /// analytically) took no time of their own.
    #[inline]
    pub fn start(&mut self, t: u32, index: u64, start: Ps) {
        let c = &mut self.tasks[t as usize];
        let from = c.next;
        c.index = index;
        c.start = start;
        c.next = index.max(from);
        for _ in from..index {
            self.push(t, 0, 0);
        }
    }

    /// Task `t`'s call in progress ends at `end`. Records read with it (the steps of an
    /// expanded collective) took no time of their own.
    #[inline]
    pub fn finish(&mut self, t: u32, end: Ps) {
        let c = &mut self.tasks[t as usize];
        let ns = |p: Ps| p / PS_PER_NS;
        let (gap, dur) = (ns(c.start) - ns(c.prev), ns(end) - ns(c.start));
        c.prev = end;
        c.next = c.index + 1;
        self.push(t, gap, dur);
    }

    fn push(&mut self, t: u32, gap: u64, dur: u64) {
        if self.error.is_none() {
            if let Err(e) = self.times.push(t, gap, dur, &self.path) {
                self.error = Some(e);
            }
        }
    }

    /// Writes the trace: each task's records from `src` again, with their predicted times.
    pub fn write<S: TraceSource>(mut self, src: &S) -> Result<()> {
        let out = |e: std::io::Error| SimError::output(&self.name, e);
        if let Some(e) = self.error.take() {
            return Err(out(e));
        }
        let n = self.tasks.len() as u32;
        // The writer names its (temporary) file; messages name the output the user gave.
        let named = |mut e: psins_formats::Error| {
            e.path = self.name.clone();
            SimError::OutputFile(e)
        };
        let mut w =
            TraceWriter::create(&self.path, n, std::mem::take(&mut self.meta), Vec::new(), None).map_err(named)?;
        let mut rec = Record::default();
        for t in 0..n {
            let mut records = src.lookahead(t)?;
            let mut pairs = self.times.pairs(t);
            w.begin_task(t).map_err(named)?;
            while records.next(&mut rec)? {
                let (gap, dur) = pairs.next().map_err(out)?.unwrap_or((0, 0));
                retime(&mut rec, gap, dur);
                w.push(&rec).map_err(named)?;
            }
            w.end_task().map_err(named)?;
        }
        let mut comms = src.comms();
        if !comms.iter().any(|c| c.id == psins_formats::COMM_WORLD) {
            comms.insert(0, CommDef::intra(psins_formats::COMM_WORLD, (0..n).collect()));
        }
        w.set_comms(comms);
        w.finish().map_err(named)?;
        Ok(())
    }
}

/// Gives `rec` its predicted times. A run of polls was replayed as one burst (its gap and the
/// computation between its calls): the predicted burst is shared between the two in the
/// traced proportion.
fn retime(rec: &mut Record, gap: u64, dur: u64) {
    if let Op::Poll { between_ns, .. } = &mut rec.op {
        let traced = rec.gap_ns as u128 + *between_ns as u128;
        let between = (gap as u128 * *between_ns as u128).checked_div(traced).unwrap_or(0) as u64;
        *between_ns = between;
        rec.gap_ns = gap - between;
    } else {
        rec.gap_ns = gap;
    }
    rec.dur_ns = dur;
}

/// The predicted trace's metadata: `clock` = `predicted`, `host` = the machine's name (what
/// viewers label the run with), `predicted_by`, `predicted_machine`, `predicted_provenance`
/// (the report's provenance object as JSON), `world_size`, and every key of the source
/// trace's metadata prefixed `traced_` (so `tracer_version`, which makes psins-sim take the
/// tracer's cost off the gaps, is not set again: the predicted gaps already have it off).
pub fn metadata(
    source: &[(String, String)],
    machine: &Path,
    provenance: &serde_json::Value,
    tasks: u32,
) -> Vec<(String, String)> {
    let host = machine.file_stem().map_or("machine".into(), |s| s.to_string_lossy().replace(char::is_whitespace, "_"));
    let mut meta = vec![
        ("world_size".to_string(), tasks.to_string()),
        ("clock".to_string(), "predicted".to_string()),
        ("host".to_string(), host),
        ("predicted_by".to_string(), format!("psins-sim {}", env!("CARGO_PKG_VERSION"))),
        ("predicted_machine".to_string(), machine.display().to_string()),
        ("predicted_provenance".to_string(), provenance.to_string()),
    ];
    meta.extend(source.iter().map(|(k, v)| (format!("traced_{k}"), v.clone())));
    meta
}

#[cfg(test)]
mod tests {
    use super::*;
    use psins_formats::PollFn;

    /// A run of polls: its predicted burst is split between its gap and the computation
    /// between its calls as traced (1:3 here), the whole kept to the nanosecond.
    #[test]
    fn a_poll_run_shares_its_predicted_burst_as_traced() {
        let op = Op::Poll {
            func: PollFn::Test,
            calls: 4,
            between_ns: 3000,
            min_gap_ns: 900,
            count: 1,
            peer: 0,
            tag: 0,
            comm: 0,
        };
        let mut r = Record::new(1000, 50, op);
        retime(&mut r, 2001, 7);
        let Op::Poll { between_ns, min_gap_ns, .. } = r.op else { unreachable!() };
        assert_eq!((r.gap_ns, between_ns, r.dur_ns, min_gap_ns), (501, 1500, 7, 900));
        let mut r = Record::new(0, 0, op);
        let Op::Poll { between_ns, .. } = &mut r.op else { unreachable!() };
        *between_ns = 0;
        retime(&mut r, 5, 1);
        assert_eq!((r.gap_ns, r.dur_ns), (5, 1));
    }
}
