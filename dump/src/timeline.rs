//! `psins-dump --timeline OUT TRACE`: the measured run as a Chrome trace-event timeline,
//! through psins-sim's writer, so that it opens beside a `psins-sim --timeline` with the same
//! tracks (one per rank, `compute` slices, call slices with the same names and args).
//!
//! Times come from the recorded gaps and durations, laid end to end per rank. Every rank's
//! MPI_Init returns at the same time (the tracer aligns the ranks' clocks there, and the
//! measured span starts there): at the longest Init, so Init keeps its recorded duration and
//! no time is negative. Expansion steps carry no time and have no slice; `MPI_other`
//! records advance the time without a slice, as in psins-sim.

use psins_formats::{Op, Output, Record, TraceReader};
use psins_sim::stats::{fn_id, fn_names, OTHER_FN, STEP_FN};
use psins_sim::timeline::{CallArgs, Timeline};
use psins_sim::SimError;
use std::path::Path;

/// Nanoseconds as the writer's picoseconds (saturating: a crafted duration must not wrap).
fn ps(ns: u64) -> u64 {
    ns.saturating_mul(1000)
}

pub struct Selection<'a> {
    pub ranks: Option<&'a str>,
    pub window: Option<&'a str>,
}

/// Writes the timeline of `trace` to `out` (`-`: standard output).
pub fn write(trace: &Path, out: &Path, sel: &Selection) -> Result<(), SimError> {
    let reader = TraceReader::open(trace)?;
    let output = Output::prepare(out, &[trace.to_path_buf()]).map_err(SimError::OutputFile)?;
    let mut tl = Timeline::with_label(output.temp_path(), sel.ranks, sel.window, "measured")?.named(out);
    let names = fn_names();
    let mut rec = Record::default();
    // First pass over each rank's first record: the longest MPI_Init.
    let mut init_max = 0;
    for t in 0..reader.tasks() {
        let mut c = reader.task(t, 4096)?;
        if c.next(&mut rec)? && matches!(rec.op, Op::Init { .. }) {
            init_max = init_max.max(rec.dur_ns);
        }
    }
    for t in 0..reader.tasks() {
        let mut c = reader.task(t, 64 << 10)?;
        let (mut now, mut index) = (0u64, 0u64);
        while c.next(&mut rec)? {
            let (gap, dur) = match rec.op {
                // Launch skew is not part of the run; Init ends at the common start.
                Op::Init { .. } => {
                    now = init_max.saturating_sub(rec.dur_ns);
                    (0, rec.dur_ns)
                }
                Op::Step { .. } => (0, 0),
                // Its time is after the measured span, but it was recorded: shown as it was.
                Op::Finalize => (rec.gap_ns, rec.dur_ns),
                _ => rec.span_part(),
            };
            let start = now.saturating_add(gap);
            let end = start.saturating_add(dur);
            if gap > 0 {
                tl.slice(t, "compute", ps(now), ps(start));
            }
            let id = fn_id(&rec.op);
            if id != OTHER_FN && id != STEP_FN {
                let args = CallArgs::of(&rec.op, index);
                tl.measured_call(t, &names[id as usize], ps(start), ps(end), args);
            }
            now = end;
            index += 1;
        }
    }
    tl.finish()?;
    output.commit().map_err(SimError::OutputFile)
}
