//! `psins-dump --timeline OUT TRACE`: the measured run as a Chrome trace-event timeline,
//! through the writer psins-sim uses (psins-timeline), so that it opens beside a `psins-sim --timeline` with the same
//! tracks (one per rank, `compute` slices, call slices with the same names and args) and a
//! flow arrow per message, send to receive.
//!
//! Records are laid out by [`Record::place`], the one layout of a measured run (docs/format.md):
//! each rank's clock starts at its MPI_Init return, records end to end, a `poll` record's
//! slice its run. The whole picture is shifted by the longest MPI_Init, so that every Init
//! shows its recorded duration (ending at the common start) at no negative time; MPI_Finalize
//! shows its recorded duration after the run. Expansion steps carry no time and have no slice;
//! `MPI_other` records advance the time without a slice, as in psins-sim.
//!
//! Two passes: the first pairs the messages (psins_formats::messages, as the Paraver export
//! does) and finds the longest Init, the second writes the slices, then the arrows.

use psins_formats::comms::Comms;
use psins_formats::exit::Exit;
use psins_formats::functions::{fn_id, fn_names, OTHER_FN, STEP_FN};
use psins_formats::messages::{Ends, Matcher, Side};
use psins_formats::{Op, Output, Record, TraceReader};
use psins_timeline::{CallArgs, Timeline, TimelineError};
use std::path::Path;

/// Why a timeline was not written, and the exit status it gives (docs/exit-codes.md).
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// The trace cannot be read.
    #[error(transparent)]
    Trace(#[from] psins_formats::Error),
    /// A record the messages cannot be paired through (the file, rank and record named).
    #[error("{0}")]
    Input(String),
    /// The output cannot be prepared or committed.
    #[error(transparent)]
    Output(psins_formats::Error),
    /// A bad selection, or the file cannot be written.
    #[error(transparent)]
    Writer(#[from] TimelineError),
}

impl Failure {
    pub fn exit(&self) -> Exit {
        match self {
            Failure::Trace(_) | Failure::Input(_) => Exit::BadInput,
            Failure::Output(_) | Failure::Writer(TimelineError::Output { .. }) => Exit::Output,
            Failure::Writer(TimelineError::Usage(_)) => Exit::Usage,
        }
    }
}

/// Nanoseconds as the writer's picoseconds (saturating: a crafted duration must not wrap).
fn ps(ns: u64) -> u64 {
    ns.saturating_mul(1000)
}

/// The middle of [a, b) in ps: a time inside the slice of a call of at least 1 ns, where an
/// arrow binds.
fn mid(a: u64, b: u64) -> u64 {
    a + b.saturating_sub(a) / 2
}

pub struct Selection<'a> {
    pub ranks: Option<&'a str>,
    pub window: Option<&'a str>,
}

/// Writes the timeline of `trace` to `out` (`-`: standard output).
pub fn write(trace: &Path, out: &Path, sel: &Selection) -> Result<(), Failure> {
    let reader = TraceReader::open(trace)?;
    let output = Output::prepare(out, &[trace.to_path_buf()]).map_err(Failure::Output)?;
    let mut tl = Timeline::with_label(output.temp_path(), sel.ranks, sel.window, "measured")?.named(out);
    let names = fn_names();
    let comms = Comms::of(&reader);
    let mut rec = Record::default();
    // Pass 1: the messages and the longest MPI_Init.
    let (mut matcher, mut init_max) = (Matcher::default(), 0);
    for t in 0..reader.tasks() {
        let mut c = reader.task(t, 64 << 10)?;
        let (mut ends, mut now) = (Ends::new(t, &comms), 0);
        while c.next(&mut rec)? {
            if let Op::Init { .. } = rec.op {
                init_max = init_max.max(rec.dur_ns);
            }
            let (begin, end) = rec.place(now).call;
            now = end;
            if !matches!(rec.op, Op::Step { .. }) {
                let bad = |m| Failure::Input(format!("{}: rank {t}, record {}: {m}", trace.display(), c.index() - 1));
                ends.record(&rec, begin, end, &mut |side, e| match side {
                    Side::Sent => matcher.send(e),
                    Side::Received => matcher.recv(e),
                })
                .map_err(bad)?;
            }
        }
    }
    // Pass 2: the slices, every time shifted by the longest Init.
    let at = |ns: u64| ps(ns.saturating_add(init_max));
    for t in 0..reader.tasks() {
        let mut c = reader.task(t, 64 << 10)?;
        let (mut now, mut index) = (0u64, 0u64);
        while c.next(&mut rec)? {
            let p = rec.place(now);
            now = p.call.1;
            let (start, end) = match rec.op {
                // Its time is before the run (launch skew is not shown): it ends at the start.
                Op::Init { .. } => (ps(init_max - rec.dur_ns.min(init_max)), at(0)),
                // Its time is after the run, but it was recorded: shown as it was.
                Op::Finalize => (at(p.call.0), at(p.call.0.saturating_add(rec.dur_ns))),
                _ => (at(p.call.0), at(p.call.1)),
            };
            if p.burst.1 > p.burst.0 {
                tl.slice(t, "compute", at(p.burst.0), at(p.burst.1));
            }
            let id = fn_id(&rec.op);
            if id != OTHER_FN && id != STEP_FN {
                let args = CallArgs::of(&rec.op, index);
                tl.measured_call(t, &names[id as usize], start, end, args);
            }
            index += 1;
        }
    }
    // The arrows: from the middle of the sending call to the middle of the call that
    // completed the receive.
    let (messages, _, _) = matcher.matched(reader.tasks());
    for m in messages.iter().flatten() {
        tl.arrow(m.src, mid(at(m.lsend), at(m.psend)), m.dst, mid(at(m.recv_call), at(m.precv)));
    }
    tl.finish()?;
    output.commit().map_err(Failure::Output)
}
