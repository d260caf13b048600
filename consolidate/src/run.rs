//! The consolidation of one run, whatever its inputs are ([`RankInput`]): every rank's records
//! checked and normalised ([`crate::normalise`]), communicators agreed across ranks, requests
//! accounted for, written to one compact trace. A run whose inputs are all known complete is
//! read once; otherwise each rank is scanned first to find where a crashed run can be cut.

use crate::source::RankInput;
use crate::{comms, passes};
use indicatif::ProgressBar;
use psins_formats::{note, Error, LogEnd, TraceWriter};
use std::path::Path;

/// What the caller chose.
pub struct Options {
    /// zstd level of each task stream.
    pub compress: Option<i32>,
    /// Repeat records (docs/format.md §3.3).
    pub repeats: bool,
    /// Cut a truncated run at the last world collective all ranks reached, instead of refusing it.
    pub allow_partial: bool,
    /// No per-rank report of what a cut lost.
    pub quiet: bool,
}

/// Why a consolidation failed: an input (exit code 1) or the output (exit code 3).
pub enum Failure {
    Input(String),
    Output(String),
}

fn input(e: Error) -> Failure {
    Failure::Input(e.to_string())
}

/// Consolidates `ranks` (rank 0, 1, … in order, one run) into the trace file `tmp`. `meta` is
/// the trace's metadata; `partial` (whether the run was cut) is added after it.
pub fn consolidate<I: RankInput>(
    ranks: &[I],
    meta: &[(String, String)],
    opts: &Options,
    tmp: &Path,
    bar: &ProgressBar,
) -> Result<Vec<passes::RankResult>, Failure> {
    if let Some((r, i)) = ranks.iter().enumerate().find(|(r, i)| i.rank() != *r as u32) {
        return Err(input(Error::new(i.path(), format!("given as rank {r} but holds rank {}", i.rank()))));
    }
    if ranks.is_empty() {
        return Err(Failure::Input("no ranks to consolidate".into()));
    }
    let mut complete = true;
    for i in ranks {
        complete &= i.known_complete().map_err(input)?;
    }
    let in_bytes: u64 = ranks.iter().map(|i| i.bytes()).sum();
    // A finished run needs one pass; a crashed one needs a scan first to find the cut.
    let result = if complete { one_pass(ranks, meta, opts, tmp, bar) } else { Err(Retry) };
    match result {
        Err(Retry) => {
            bar.set_position(0);
            bar.set_length(2 * in_bytes);
            two_passes(ranks, meta, opts, tmp, bar)
        }
        Ok(r) => r,
    }
}

/// The one-pass path found a damaged log: go the careful way.
struct Retry;

type Written = Vec<passes::RankResult>;

fn one_pass<I: RankInput>(
    inputs: &[I],
    meta: &[(String, String)],
    args: &Options,
    tmp: &Path,
    bar: &ProgressBar,
) -> Result<Result<Written, Failure>, Retry> {
    let n = inputs.len() as u32;
    let mut comms = comms::Comms::new(n);
    let mut w = match create(args, meta, n, tmp, false) {
        Ok(w) => w,
        Err(f) => return Ok(Err(f)),
    };
    let mut results = Vec::with_capacity(inputs.len());
    for i in inputs {
        match passes::read_rank(i, n, u64::MAX, &mut comms, Some(&mut w)) {
            Ok(r) if r.end != LogEnd::Complete => {
                return if args.allow_partial { Err(Retry) } else { Ok(Err(truncated(i, &r))) };
            }
            Ok(r) => results.push(r),
            Err(e) => return Ok(Err(classify(e, tmp))),
        }
        bar.inc(i.bytes());
    }
    warn_open_requests(inputs, &results);
    if let Err(m) = comms.check(&vec![false; n as usize]) {
        return Ok(Err(input(Error::new(inputs[0].path(), m.to_string()))));
    }
    w.set_comms(comms.table(n));
    Ok(w.finish().map(|_| results).map_err(|e| Failure::Output(e.to_string())))
}

fn two_passes<I: RankInput>(
    inputs: &[I],
    meta: &[(String, String)],
    args: &Options,
    tmp: &Path,
    bar: &ProgressBar,
) -> Result<Written, Failure> {
    let n = inputs.len() as u32;
    let mut comms = comms::Comms::new(n);
    let mut scans = Vec::with_capacity(inputs.len());
    for i in inputs {
        let r = passes::read_rank(i, n, u64::MAX, &mut comms, None).map_err(input)?;
        if r.end != LogEnd::Complete && !args.allow_partial {
            return Err(truncated(i, &r));
        }
        scans.push(r);
        bar.inc(i.bytes());
    }
    let excused: Vec<bool> = scans.iter().map(|s| s.end != LogEnd::Complete).collect();
    comms.check(&excused).map_err(|m| input(Error::new(inputs[0].path(), m.to_string())))?;
    let keep = passes::cut_points(&scans);
    comms.reset_locals();
    let mut w = create(args, meta, n, tmp, true)?;
    let mut written = Vec::with_capacity(inputs.len());
    for (i, &k) in inputs.iter().zip(&keep) {
        written.push(passes::read_rank(i, n, k, &mut comms, Some(&mut w)).map_err(|e| classify(e, tmp))?);
        bar.inc(i.bytes());
    }
    w.set_comms(comms.table(n));
    w.finish().map_err(|e| Failure::Output(e.to_string()))?;
    if !args.quiet {
        report_losses(inputs, &scans, &written);
    }
    Ok(written)
}

fn create(
    args: &Options,
    meta: &[(String, String)],
    n: u32,
    tmp: &Path,
    partial: bool,
) -> Result<TraceWriter, Failure> {
    let mut meta = meta.to_vec();
    meta.push(("partial".to_string(), partial.to_string()));
    let mut w =
        TraceWriter::create(tmp, n, meta, Vec::new(), args.compress).map_err(|e| Failure::Output(e.to_string()))?;
    w.set_repeats(args.repeats);
    Ok(w)
}

/// Errors about the temporary output are output failures; the rest name an input.
fn classify(e: Error, tmp: &Path) -> Failure {
    if e.path == tmp {
        Failure::Output(e.to_string())
    } else {
        input(e)
    }
}

fn truncated<I: RankInput>(i: &I, r: &passes::RankResult) -> Failure {
    let LogEnd::Truncated { offset, unusable_bytes, reason } = &r.end else {
        return input(Error::new(i.path(), "log not read to its end"));
    };
    let msg = format!(
        "{reason}; {} records readable, {unusable_bytes} bytes unusable (use --allow-partial to build a trace cut at a consistent point)",
        r.records
    );
    input(Error::new(i.path(), msg).task(i.rank()).at(*offset))
}

/// Requests still open at MPI_Finalize in a complete log (SNAP only tests some isends): real
/// programs do this, so each rank's count is a warning, not an error. The records stay; the
/// simulator moves their messages as usual and no one waits for them (docs/simulator.md).
fn warn_open_requests<I: RankInput>(inputs: &[I], results: &[passes::RankResult]) {
    for (i, r) in inputs.iter().zip(results).filter(|(_, r)| !r.pending.is_empty()) {
        note!(
            "psins-consolidate: warning: rank {} ({}): {} requests left open at MPI_Finalize (ids {}); kept, their messages replayed, never waited for",
            i.rank(),
            i.path().display(),
            r.pending.len(),
            crate::inputs::ranges(&r.pending)
        );
    }
}

fn report_losses<I: RankInput>(inputs: &[I], scans: &[passes::RankResult], written: &[passes::RankResult]) {
    for ((i, s), w) in inputs.iter().zip(scans).zip(written) {
        let tail = match &s.end {
            LogEnd::Truncated { unusable_bytes, reason, .. } => {
                format!("; log damaged: {reason}, {unusable_bytes} bytes unusable")
            }
            _ => String::new(),
        };
        let pend = if w.pending.is_empty() {
            String::new()
        } else {
            format!("; {} requests pending at the cut", w.pending.len())
        };
        if w.records < s.records || !tail.is_empty() || !pend.is_empty() {
            note!(
                "psins-consolidate: rank {}: kept {} of {} readable records{tail}{pend}",
                i.rank(),
                w.records,
                s.records
            );
        }
    }
}
