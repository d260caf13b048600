//! `--timeline FILE`: Chrome trace-event JSON (Perfetto and chrome://tracing open it), one
//! track per rank: computation and each MPI call as complete ("X") slices, the call's args
//! (record, peer, bytes, tag, communicator, time waiting), a nested `wait` slice for the part
//! of the call spent waiting for a partner, a flow arrow per message from the sending call to
//! the call that completed its receive, a counter of the messages and bytes in flight, and
//! one of the network's busy resources where the model counts them (usage.rs).
//! Written as the replay goes, so memory does not grow with the run; rank and time-window
//! filters keep files of big runs small. `psins-sim --timeline` writes the predicted run and
//! `psins-dump --timeline` the measured one through this writer, so both open with the same
//! layout; neither tool's other code is needed to write one.

mod event;
mod flows;
mod usage;

pub use event::CallArgs;
use event::{Args, Event, Us};

use flows::Flows;
use psins_formats::functions::{fn_names, OTHER_FN};
use psins_units::{parse_rank_set, parse_time, Ps};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A network model's resource-use counter track (psins-sim's `NetworkModel::track_usage`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UsageTrack {
    /// The track's name (e.g. "busy buses").
    pub name: &'static str,
    /// The changes' unit is 1/`per` of the value shown: 1 for a count (busy buses), the
    /// window's length in cycles for a mean over a window (busy link-cycles → mean links).
    pub per: u64,
}

impl UsageTrack {
    /// A count of busy resources.
    pub fn count(name: &'static str) -> UsageTrack {
        UsageTrack { name, per: 1 }
    }
}

/// What can go wrong writing a timeline: a bad selection, or the file.
#[derive(Debug, thiserror::Error)]
pub enum TimelineError {
    /// `--timeline-ranks` or `--timeline-window` cannot be read.
    #[error("{0}")]
    Usage(String),
    /// The file cannot be created or written.
    #[error("cannot write {path}")]
    Output {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

pub type Result<T, E = TimelineError> = std::result::Result<T, E>;

fn output(path: &Path, source: std::io::Error) -> TimelineError {
    TimelineError::Output { path: path.to_path_buf(), source }
}

pub struct Timeline {
    path: PathBuf,
    out: BufWriter<File>,
    /// Sorted ranks to show (empty: all).
    ranks: Vec<u32>,
    window: (Ps, Ps),
    names: Vec<String>,
    named: Vec<bool>,
    first: bool,
    error: Option<std::io::Error>,
    flows: Flows,
    /// The model's resource-use counter, when it has one.
    usage: Option<usage::Usage>,
}

impl Timeline {
    /// `ranks`: e.g. "0-15,64"; `window`: "START..END" (or "START:END") with units, either
    /// side may be empty. The process track is called `label` ("predicted", "measured").
    pub fn create(path: &Path, ranks: Option<&str>, window: Option<&str>) -> Result<Timeline> {
        Timeline::with_label(path, ranks, window, "psins-sim prediction")
    }

    pub fn with_label(path: &Path, ranks: Option<&str>, window: Option<&str>, label: &str) -> Result<Timeline> {
        let ranks = match ranks {
            Some(r) => parse_rank_set(r).map_err(|m| TimelineError::Usage(format!("--timeline-ranks: {m}")))?,
            None => Vec::new(),
        };
        let window = match window {
            Some(w) => parse_window(w).map_err(|m| TimelineError::Usage(format!("--timeline-window: {m}")))?,
            None => (0, Ps::MAX),
        };
        let file = File::create(path).map_err(|e| output(path, e))?;
        let mut tl = Timeline {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, file),
            ranks,
            window,
            names: fn_names(),
            named: Vec::new(),
            first: true,
            error: None,
            flows: Flows::default(),
            usage: None,
        };
        let r = tl.out.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
        tl.check(r);
        let mut e = Event::new("process_name", "M", 0);
        e.args = Args::Name { name: label };
        tl.write(&e);
        tl.check_error()?;
        Ok(tl)
    }

    /// The name to give the output in messages (the path the user named, when `path` is a
    /// temporary file).
    pub fn named(mut self, name: &Path) -> Timeline {
        self.path = name.to_path_buf();
        self
    }

    fn rank_shown(&self, rank: u32) -> bool {
        self.ranks.is_empty() || self.ranks.binary_search(&rank).is_ok()
    }

    /// The part of [start, end] inside the window, if `rank` is shown and any is.
    fn clip(&self, rank: u32, start: Ps, end: Ps) -> Option<(Ps, Ps)> {
        (end >= self.window.0 && start <= self.window.1 && self.rank_shown(rank))
            .then(|| (start.max(self.window.0), end.min(self.window.1)))
    }

    /// A computation slice.
    pub fn slice(&mut self, rank: u32, name: &str, start: Ps, end: Ps) {
        if let Some((s, e)) = self.clip(rank, start, end) {
            self.emit(rank, name, "cpu", s, e, Args::None);
        }
    }

    /// An MPI call slice of function `fn_id` with `args`, of which the first `wait` was spent
    /// waiting for a partner (a nested `wait` slice); binds the messages the call sent and
    /// received to it.
    pub fn call(&mut self, rank: u32, fn_id: u16, start: Ps, end: Ps, wait: Ps, mut args: CallArgs) {
        if fn_id == OTHER_FN {
            return;
        }
        let clipped = self.clip(rank, start, end);
        let mut bound = None;
        if let Some((s, e)) = clipped {
            args.wait_us = Some(Us(wait));
            let name = std::mem::take(&mut self.names[fn_id as usize]);
            self.emit(rank, &name, "mpi", s, e, Args::Call(args));
            self.names[fn_id as usize] = name;
            let own = start + wait;
            if let Some((ws, we)) = self.clip(rank, start, own).filter(|_| wait > 0) {
                self.emit(rank, "wait", "wait", ws, we, Args::Wait { partner_posted_us: Us(own) });
            }
            // Arrows bind to the call's own part (after any wait) when it has one: the
            // innermost slice there is the call itself.
            bound = Some(if own < e && own >= s { own + (e - own) / 2 } else { s + (e - s) / 2 });
        }
        self.bind(rank, bound);
    }

    /// A call slice of the measured run (no wait known; its messages are [`Timeline::arrow`]s).
    pub fn measured_call(&mut self, rank: u32, name: &str, start: Ps, end: Ps, args: CallArgs) {
        if let Some((s, e)) = self.clip(rank, start, end) {
            self.emit(rank, name, "mpi", s, e, Args::Call(args));
        }
    }

    fn bind(&mut self, rank: u32, at: Option<Ps>) {
        let mut flows = std::mem::take(&mut self.flows);
        flows.bind(rank, at, |id, f| self.flow(id, f));
        self.flows = flows;
    }

    /// A message of the measured run, whose both ends are known: an arrow from `src` at
    /// `start` to `dst` at `finish` (times strictly inside the sending call's slice and the
    /// slice of the call that completed the receive), kept when both ranks are shown and
    /// both ends are inside the window.
    pub fn arrow(&mut self, src: u32, start: Ps, dst: u32, finish: Ps) {
        let inside = |t: Ps| t >= self.window.0 && t <= self.window.1;
        if self.rank_shown(src) && self.rank_shown(dst) && inside(start) && inside(finish) {
            let id = self.flows.new_id();
            self.flow(id, &flows::Flow { src, dst, start, finish });
        }
    }

    /// A flow's pair of events: its start binds to the slice around it, its end to the
    /// slice that encloses it (`bp: e`).
    fn flow(&mut self, id: u64, f: &flows::Flow) {
        for (ph, tid, ts) in [("s", f.src, f.start), ("f", f.dst, f.finish)] {
            let mut e = Event::new("message", ph, tid);
            e.cat = "msg";
            e.ts = Some(Us(ts));
            e.id = Some(id);
            e.bp = (ph == "f").then_some("e");
            self.write(&e);
        }
    }

    /// A counter track of the network model's resource use (e.g. busy buses), fed by
    /// [`Timeline::usage`].
    pub fn usage_track(&mut self, track: UsageTrack) {
        self.usage = Some(usage::Usage::new(track));
    }

    /// The model's resource use changes by `delta` at `at` (≥ the replay's time; written
    /// once the replay passes it).
    pub fn usage(&mut self, at: Ps, delta: i64) {
        if let Some(u) = &mut self.usage {
            u.change(at, delta);
        }
    }

    /// Writes the resource-use changes before `now`.
    fn drain_usage(&mut self, now: Ps) {
        let Some(mut u) = self.usage.take() else { return };
        let UsageTrack { name, per } = u.track;
        u.drain(now, &mut |at, busy| {
            if at >= self.window.0 && at <= self.window.1 {
                let mut e = Event::new(name, "C", 0);
                e.ts = Some(Us(at));
                e.args = if per == 1 { Args::Busy { busy } } else { Args::Mean { busy: busy as f64 / per as f64 } };
                self.write(&e);
            }
        });
        self.usage = Some(u);
    }

    /// Engine message `msg` (`bytes`) posted by `src` for `dst` at `now`.
    pub fn send(&mut self, msg: u32, src: u32, dst: u32, bytes: u64, now: Ps) {
        self.drain_usage(now);
        let flow = self.rank_shown(src) && self.rank_shown(dst);
        let mut flows = std::mem::take(&mut self.flows);
        flows.send(msg, src, dst, flow);
        flows.posted(now, bytes, |at, v| self.counter(at, v));
        self.flows = flows;
    }

    /// A message of `bytes` has its last byte arrive at `at` (the in-flight counter).
    pub fn delivered(&mut self, at: Ps, bytes: u64) {
        self.flows.delivered(at, bytes);
    }

    /// Message `msg`'s receive completed on `dst` (the flow ends in `dst`'s next call).
    pub fn received(&mut self, msg: u32, dst: u32) {
        self.flows.received(msg, dst);
    }

    fn counter(&mut self, at: Ps, (messages, bytes): (u64, u64)) {
        if at >= self.window.0 && at <= self.window.1 {
            let mut e = Event::new("in flight", "C", 0);
            e.ts = Some(Us(at));
            e.args = Args::InFlight { messages, bytes };
            self.write(&e);
        }
    }

    fn emit(&mut self, rank: u32, name: &str, cat: &'static str, s: Ps, e: Ps, args: Args) {
        if self.named.len() <= rank as usize {
            self.named.resize(rank as usize + 1, false);
        }
        if !self.named[rank as usize] {
            self.named[rank as usize] = true;
            let label = format!("rank {rank}");
            let mut m = Event::new("thread_name", "M", rank);
            m.args = Args::Name { name: &label };
            self.write(&m);
            // Tracks in rank order (Perfetto otherwise orders them by first appearance).
            let mut m = Event::new("thread_sort_index", "M", rank);
            m.args = Args::SortIndex { sort_index: rank };
            self.write(&m);
        }
        let mut ev = Event::new(name, "X", rank);
        ev.cat = cat;
        ev.ts = Some(Us(s));
        ev.dur = Some(Us(e - s));
        ev.args = args;
        self.write(&ev);
    }

    /// One event, on its own line.
    fn write(&mut self, ev: &Event) {
        let sep: &[u8] = if std::mem::take(&mut self.first) { b"\n" } else { b",\n" };
        let r = self.out.write_all(sep).and_then(|_| serde_json::to_writer(&mut self.out, ev).map_err(Into::into));
        self.check(r);
    }

    fn check(&mut self, r: std::io::Result<()>) {
        if let (Err(err), None) = (r, &self.error) {
            self.error = Some(err);
        }
    }

    fn check_error(&mut self) -> Result<()> {
        match self.error.take() {
            Some(e) => Err(output(&self.path, e)),
            None => Ok(()),
        }
    }

    /// Writes the last counter events and closes the JSON (also after a deadlock: flows still
    /// missing an end are left out, so the file stays consistent).
    pub fn finish(mut self) -> Result<()> {
        let mut flows = std::mem::take(&mut self.flows);
        flows.drain_arrivals(Ps::MAX, &mut |at, v| self.counter(at, v));
        self.drain_usage(Ps::MAX);
        self.check_error()?;
        self.out.write_all(b"\n]}\n").and_then(|_| self.out.flush()).map_err(|e| output(&self.path, e))
    }
}

/// Why a `--timeline-window` is not a window.
#[derive(Debug, thiserror::Error)]
enum WindowError {
    #[error("`{0}`: expected START..END, e.g. 1ms..5ms")]
    Form(String),
    #[error(transparent)]
    Time(#[from] psins_units::UnitError),
    #[error("`{0}`: start after end")]
    Order(String),
}

/// "START..END" or "START:END" (either side may be empty) in picoseconds.
fn parse_window(w: &str) -> std::result::Result<(Ps, Ps), WindowError> {
    let (a, b) = w.split_once("..").or_else(|| w.split_once(':')).ok_or_else(|| WindowError::Form(w.to_string()))?;
    let a = if a.trim().is_empty() { 0 } else { parse_time(a)? };
    let b = if b.trim().is_empty() { Ps::MAX } else { parse_time(b)? };
    if a > b {
        return Err(WindowError::Order(w.to_string()));
    }
    Ok((a, b))
}
