//! The discrete-event engine: tasks replay their records in causal order (INSEE), the MPI
//! layer matches messages and completes requests, the network model times the messages.
//!
//! Each task alternates between a CPU burst and a call. A call runs at the simulated time its
//! burst ends, in global time order (an `Exec` event), because contention models depend on
//! the order messages enter the network. A call due no later than every queued event runs at
//! once without a heap round trip: it would have been popped next anyway, or ties with events
//! of the same picosecond, which have no causal order among them (the tie still breaks the
//! same way for the same input, so replays stay deterministic).

mod coll;
mod comms;
mod deadlock;
mod exec;
mod memory;
mod nbc;
mod p2p;
mod queue;
mod regions;
mod rma;
mod scout;
mod sequence;
mod task;

use crate::error::{Result, SimError};
use crate::model::{self, MsgId, NetCtx, NetworkModel};
use crate::report::Report;
use crate::source::TraceSource;
use crate::stats::Stats;
use crate::timeline::Timeline;
use crate::units::{Ps, PS_PER_NS};
use coll::CollQueue;
use comms::Comms;
use p2p::Msgs;
use psins_formats::functions::{OTHER_FN, STEP_FN};
use psins_formats::Op;
use psins_machine::{CollMode, Machine, MappingKind};
use queue::{Ev, Queue};
use std::collections::BTreeMap;
use task::{State, Task};

/// What the caller can switch on.
#[derive(Default)]
pub struct Options {
    pub timeline: Option<Timeline>,
    /// Write the predicted run as a compact trace (crate::predicted).
    pub predicted: Option<crate::predicted::PredictedTrace>,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Track the critical path (crate::critpath) for the report.
    pub critical_path: bool,
}

/// Result of executing (part of) a call.
enum Flow {
    /// The call returns at this time.
    Done(Ps),
    /// The task waits; a `Resume` event will come.
    Blocked,
}

/// Where a task's loop picks up.
enum Phase {
    /// Read the next record; the previous call ended at this time.
    Read(Ps),
    /// `rec` is read: run its CPU burst starting at this time.
    Burst(Ps),
    /// Execute `rec` now.
    Exec(Ps),
}

pub struct Sim<'m, S: TraceSource> {
    src: S,
    m: &'m Machine,
    model: Box<dyn NetworkModel>,
    tasks: Vec<Task>,
    node: Vec<u32>,
    /// Per (source, destination), until when its latest message is on its way; tracked only
    /// when a link charges crossing messages (psins-machine, link.rs).
    crossing: Option<std::collections::HashMap<(u32, u32), Ps>>,
    q: Queue,
    msgs: Msgs,
    comms: Comms,
    colls: BTreeMap<u32, CollQueue>,
    rma: rma::Rma,
    stats: Stats,
    expanded: bool,
    /// The nodes' memory, shared by their intra-node copies (`[machine] memory_bandwidth`, or
    /// an `[[intra.band]]`'s own);
    /// `None`: each copy has its link to itself.
    memory: Option<memory::Memory>,
    /// Scratch for the copies a memory event ends.
    copies_done: Vec<(MsgId, Ps)>,
    /// Scratch for a collective's steps as they are generated (coll.rs).
    coll_steps: Vec<psins_collectives::Step>,
    thresholds: psins_collectives::Thresholds,
    /// Whose collective algorithms expand and cost the collectives, and why.
    library: psins_collectives::Library,
    library_choice: psins_collectives::Choice,
    /// Analytic collectives' algorithm costs, memoised.
    algo: model::algorithm::AlgorithmCost,
    /// Nonblocking collectives started so far per (task, communicator): their message tags.
    nbc_seq: std::collections::HashMap<(u32, u32), u64>,
    /// Nonblocking collectives in progress by (task, request handle) (kept here, not in the
    /// task, which stays small).
    nbc: BTreeMap<(u32, u32), nbc::Schedule>,
    /// The schedule (task, request) whose phase is being posted (nbc.rs, `nbc_run`).
    nbc_posting: Option<(u32, u32)>,
    timeline: Option<Timeline>,
    predicted: Option<crate::predicted::PredictedTrace>,
    net_events: Vec<(Ps, u32)>,
    net_delivered: Vec<(MsgId, Ps)>,
    net_failure: Option<String>,
    /// The largest message between two nodes: the network model's limit
    /// (`NetworkModel::max_message_bytes`), and the one keeping its costs on the inter-node
    /// link in range (`Link::max_bytes_within`); within a node, the latter only.
    max_msg_bytes: u64,
    max_intra_bytes: u64,
    now: Ps,
    records: u64,
    /// Picoseconds per traced nanosecond of CPU burst, per node (empty: all 1000).
    burst_scale: Vec<f64>,
    progress: Option<crate::report::Progress>,
    /// Many tasks: trade a little speed for memory per task.
    lean: bool,
    /// Where each task's current MPI_Pcontrol region started (tasks with a `pcontrol` record).
    regions: BTreeMap<u32, regions::RegionMark>,
    /// The critical path, when asked for (hooks: crate::critpath).
    crit: Option<Box<crate::critpath::Tracker>>,
    /// A timeline, critical path or predicted trace is on. The per-record path tests this
    /// one flag and calls the observers out of line (the `observe_*` functions), so that a
    /// plain replay runs none of their checks (fewer instructions a record). They are not
    /// `#[cold]`: measured on the 1,024-rank stencil, that made the plain replay 0.86–0.87 s
    /// against 0.83–0.85 s and the critical-path one 1.01–1.07 s against 1.00 s
    /// (docs/performance.md, *Findings behind the code*).
    observed: bool,
    /// A timeline or predicted trace is on. The observers run the critical path's hooks
    /// inline and these two behind this flag, out of line again: a critical-path replay then
    /// runs small observer functions (docs/performance.md, *Findings behind the code*).
    recording: bool,
}

/// The longest any one cost of a message (wire time, o_s, o_r) may be: a quarter of the
/// replay's range, so that the few of them a message adds to its start time stay below 2^64
/// and the queue's check (past [`queue::MAX_TIME`]) sees the result instead of a wrapped one.
const MAX_MSG_TIME: Ps = queue::MAX_TIME / 4;

/// From this many tasks on, per-task buffers are released when idle.
const LEAN_TASKS: u32 = 65536;

/// Asks the CPU to start loading `bytes` at `p` into cache (a hint; no effect elsewhere).
#[inline(always)]
pub fn prefetch<T>(p: *const T, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    for off in (0..bytes).step_by(64) {
        // SAFETY: prefetching is a hint that never faults, whatever the address.
        unsafe { std::arch::x86_64::_mm_prefetch((p as *const i8).wrapping_add(off), std::arch::x86_64::_MM_HINT_T0) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (p, bytes);
}

/// Node of each rank under the machine's mapping.
fn map_ranks(m: &Machine, ranks: u32) -> Result<Vec<u32>> {
    let err = |msg: String| SimError::Config { path: m.path.clone(), msg };
    let capacity = m.nodes as u64 * m.cores_per_node as u64;
    match m.mapping {
        MappingKind::Block | MappingKind::Cyclic if ranks as u64 > capacity => Err(err(format!(
            "the trace has {ranks} ranks but the machine holds {} nodes × {} cores = {capacity}",
            m.nodes, m.cores_per_node
        ))),
        MappingKind::Block => Ok((0..ranks).map(|r| r / m.cores_per_node).collect()),
        MappingKind::Cyclic => Ok((0..ranks).map(|r| r % m.nodes).collect()),
        MappingKind::List if (m.node_of_rank.len() as u64) < ranks as u64 => {
            Err(err(format!("node_of_rank lists {} ranks but the trace has {ranks}", m.node_of_rank.len())))
        }
        MappingKind::List => Ok(m.node_of_rank[..ranks as usize].to_vec()),
    }
}

impl<'m, S: TraceSource> Sim<'m, S> {
    /// A replay with the model the machine file names.
    pub fn new(src: S, m: &'m Machine, opts: Options) -> Result<Self> {
        let model = model::build(m).map_err(|source| SimError::Model { path: m.path.clone(), source })?;
        Self::with_model(src, m, model, opts)
    }

    /// A replay with a model built by the caller (tests, or a model not in the registry).
    pub fn with_model(src: S, m: &'m Machine, model: Box<dyn NetworkModel>, opts: Options) -> Result<Self> {
        let n = src.tasks();
        if src.total_records() == 0 {
            // A run whose logs kept nothing (a partial consolidation of ranks killed early)
            // would predict 0 s: no prediction at all is the honest answer.
            // An input that holds nothing usable is a bad input (exit 1), not a bad command.
            return Err(SimError::Input(format!(
                "{}: the trace has no records, so there is nothing to predict",
                src.describe()
            )));
        }
        let comms = src.comms();
        if let Some(e) = comms.iter().find_map(|c| c.check(n).err()) {
            return Err(SimError::Input(format!("{}: in the trace header, {e}", src.describe())));
        }
        let mode = match m.collectives {
            CollMode::Auto => model.preferred_collectives(),
            other => other,
        };
        let node = map_ranks(m, n)?;
        let library_choice = psins_collectives::Library::choose(m.library, src.mpi_library().as_deref());
        let uniform = m.cpu.overrides.is_empty() && m.cpu.default == 1.0;
        let burst_scale =
            if uniform { Vec::new() } else { (0..m.nodes).map(|nd| PS_PER_NS as f64 / m.cpu.of_node(nd)).collect() };
        let progress =
            (opts.progress && src.total_records() > 0).then(|| crate::report::Progress::new(src.total_records()));
        let (mut model, mut timeline) = (model, opts.timeline);
        if let Some(tl) = &mut timeline {
            if let Some(track) = model.track_usage() {
                tl.usage_track(track);
            }
        }
        let recording = timeline.is_some() || opts.predicted.is_some();
        let observed = opts.critical_path || recording;
        let max_msg_bytes = model.max_message_bytes().min(m.inter.max_bytes_within(MAX_MSG_TIME));
        // Messages inside a node, to other ranks or to the sender itself.
        let max_intra_bytes = m.intra.max_bytes_within(MAX_MSG_TIME).min(m.own.max_bytes_within(MAX_MSG_TIME));
        Ok(Sim {
            max_msg_bytes,
            max_intra_bytes,
            comms: Comms::new(n, &comms),
            tasks: (0..n).map(|_| Task::new()).collect(),
            src,
            m,
            model,
            crossing: (m.intra.has_crossing() || m.inter.has_crossing() || m.own.has_crossing()).then(Default::default),
            node,
            q: Queue::default(),
            msgs: Msgs::default(),
            colls: BTreeMap::new(),
            rma: rma::Rma::default(),
            stats: Stats::new(),
            expanded: mode == CollMode::Expanded,
            memory: (m.memory_bandwidth.is_some() || m.intra.sets_memory() || m.intra.sets_serial())
                .then(|| memory::Memory::new(m.memory_bandwidth)),
            copies_done: Vec::new(),
            coll_steps: Vec::new(),
            thresholds: psins_collectives::Thresholds::default(),
            library: library_choice.library,
            library_choice,
            algo: Default::default(),
            nbc_seq: std::collections::HashMap::new(),
            nbc: BTreeMap::new(),
            nbc_posting: None,
            timeline,
            predicted: opts.predicted,
            net_events: Vec::new(),
            net_delivered: Vec::new(),
            net_failure: None,
            now: 0,
            records: 0,
            burst_scale,
            progress,
            lean: n >= LEAN_TASKS,
            regions: BTreeMap::new(),
            crit: opts.critical_path.then(|| Box::new(crate::critpath::Tracker::new(n))),
            observed,
            recording,
        })
    }

    /// Replays every task to its end and returns the report, or the deadlock / bad-record error.
    pub fn run(self) -> Result<Report> {
        let mut report = self.run_report()?;
        match report.deadlock.take() {
            Some(d) => Err(SimError::Deadlock(d.message)),
            None => Ok(report),
        }
    }

    /// Like [`Sim::run`], but a deadlock is a report too (its `deadlock` set, the timeline
    /// closed), so a caller can still write what ran; other errors stay errors.
    pub fn run_report(mut self) -> Result<Report> {
        let wall = std::time::Instant::now();
        for t in 0..self.tasks.len() as u32 {
            self.q.push(0, Ev::Exec(t));
            self.tasks[t as usize].state = State::Ready;
        }
        // A task's first Exec reads its first record (records_read == 0 below).
        while let Some((at, ev)) = self.q.pop() {
            self.now = at;
            // Hide the cache misses of the next task's state behind this event's work.
            if let Some(Ev::Exec(n) | Ev::Resume(n)) = self.q.peek_next() {
                prefetch(&self.tasks[n as usize] as *const Task, size_of::<Task>());
                self.src.prefetch(n);
            }
            match ev {
                Ev::Exec(t) if self.tasks[t as usize].records_read == 0 => self.advance(t, Phase::Read(at))?,
                Ev::Exec(t) => self.advance(t, Phase::Exec(at))?,
                Ev::Resume(t) => self.resume(t, at)?,
                Ev::Inject(id) => self.inject(id, at),
                Ev::Model(token) => self.model_event(token, at),
                Ev::Schedule(t) => self.nbc_progress(t, at)?,
                Ev::Memory(node) => self.memory_event(node, at),
            }
            if let Some(msg) = self.net_failure.take() {
                let d = self.deadlock(Some(format!("network model {}: {msg}", self.model.name())));
                return self.report(wall, Some(d));
            }
            if self.q.overflowed {
                return Err(self.overflow_error(ev));
            }
        }
        let d = self.tasks.iter().any(|t| t.state != State::Done).then(|| self.deadlock(None));
        self.report(wall, d)
    }

    /// Closes the timeline and sums up the replay.
    fn report(mut self, wall: std::time::Instant, deadlock: Option<crate::report::Deadlock>) -> Result<Report> {
        if let Some(p) = &self.progress {
            p.finish();
        }
        // Requests left open at the end of a complete run (a deadlock's are its report).
        if deadlock.is_none() {
            for t in &self.tasks {
                let open = t.open_requests() as u64;
                self.stats.open_requests += open;
                self.stats.open_request_ranks += (open > 0) as u64;
            }
            self.count_unreceived();
        }
        if let Some(mut tl) = self.timeline.take() {
            // A sampling model's last window is closed only now that no traffic can follow.
            self.model.close_usage();
            self.model.take_usage(&mut |at, d| tl.usage(at, d));
            tl.finish()?;
        }
        // A deadlocked replay has no predicted run to write (its timeline says how far it got).
        if let Some(p) = self.predicted.take().filter(|_| deadlock.is_none()) {
            p.write(&self.src)?;
        }
        self.close_regions();
        let mut report = Report::build(
            self.m,
            self.model.as_ref(),
            &self.src.describe(),
            &self.tasks_summary(),
            self.stats,
            self.records,
            wall.elapsed(),
            self.expanded,
        );
        report.peak_messages = self.msgs.peak as u64;
        report.message_bytes = size_of::<p2p::Msg>() as u64;
        report.deadlock = deadlock;
        report.measured = self.src.measured();
        report.assumptions.library = self.library_choice;
        report.critical = self.crit.map(|c| crate::critpath::CriticalPath::of(&c, &report.tasks));
        Ok(report)
    }

    fn tasks_summary(&self) -> Vec<crate::report::TaskTimes> {
        self.tasks
            .iter()
            .map(|t| crate::report::TaskTimes { compute: t.compute, comm: t.comm, wait: t.wait, end: t.end })
            .collect()
    }

    /// Runs task `t` from `phase` until it blocks or its next call is not due first.
    fn advance(&mut self, t: u32, mut phase: Phase) -> Result<()> {
        loop {
            phase = match phase {
                Phase::Read(now) => {
                    if !self.read_next(t)? {
                        self.task_done(t, now);
                        return Ok(());
                    }
                    Phase::Burst(now)
                }
                Phase::Burst(now) => {
                    let at = self.burst(t, now);
                    // Times inside one record never pass through the queue: the same check.
                    if at.wrapping_sub(now) > queue::MAX_TIME - now.min(queue::MAX_TIME) {
                        return Err(self.overflow_error(Ev::Exec(t)));
                    }
                    if at > self.q.min_time() {
                        self.q.push(at, Ev::Exec(t));
                        return Ok(());
                    }
                    Phase::Exec(at)
                }
                Phase::Exec(at) => {
                    self.now = at;
                    match self.exec(t, at)? {
                        Flow::Done(end) if end.wrapping_sub(at) > queue::MAX_TIME - at.min(queue::MAX_TIME) => {
                            return Err(self.overflow_error(Ev::Exec(t)));
                        }
                        Flow::Done(end) => self.finish_call(t, end),
                        Flow::Blocked => return Ok(()),
                    }
                }
            }
        }
    }

    /// Reads task `t`'s next record, skipping expansion steps outside an expanded collective.
    fn read_next(&mut self, t: u32) -> Result<bool> {
        loop {
            if !self.read_raw(t)? {
                return Ok(false);
            }
            if self.records & 0xffff == 0 {
                if let Some(p) = &mut self.progress {
                    p.set_position(self.records);
                }
            }
            // Steps of a collective replayed analytically: their time is in the model's.
            if !matches!(self.tasks[t as usize].rec.op, Op::Step { .. }) {
                return Ok(true);
            }
        }
    }

    /// Reads task `t`'s next record, steps included (for expanded collectives).
    #[inline(always)]
    fn read_raw(&mut self, t: u32) -> Result<bool> {
        let task = &mut self.tasks[t as usize];
        if !self.src.next(t, &mut task.rec)? {
            return Ok(false);
        }
        task.index = task.records_read;
        task.records_read += 1;
        self.records += 1;
        if let Err(msg) = task.seq.check(&task.rec.op) {
            return Err(SimError::bad_record(t, task.index, msg.to_string()));
        }
        Ok(true)
    }

    /// A time past [`queue::MAX_TIME`] came up while handling `ev`: the record its task was at.
    #[cold]
    fn overflow_error(&self, ev: Ev) -> SimError {
        let what = "the predicted time overflows: past 2^63 ps (about 106 days of simulated time); a duration, size or cpu_ratio out of range";
        match ev {
            Ev::Exec(t) | Ev::Resume(t) | Ev::Schedule(t) => {
                SimError::bad_record(t, self.tasks[t as usize].records_read.saturating_sub(1), what)
            }
            Ev::Inject(_) | Ev::Model(_) | Ev::Memory(_) => SimError::Input(format!("a message in flight: {what}")),
        }
    }

    /// Accounts `rec`'s CPU burst from `now`; returns when its call executes.
    #[inline]
    fn burst(&mut self, t: u32, now: Ps) -> Ps {
        // The time before MPI_Init is process launch, which differs between ranks for reasons
        // of no interest to the target machine: every rank starts at Init.
        let rec = &self.tasks[t as usize].rec;
        let gap = match rec.op {
            Op::Init { .. } => 0,
            // A run of polls: the burst before the first and the computation between them,
            // as one burst (docs/simulator.md), so the run replays as its calls would.
            Op::Poll { between_ns, .. } => rec.gap_ns.saturating_add(between_ns),
            _ => rec.gap_ns,
        };
        let burst = if self.burst_scale.is_empty() {
            // Saturating: a crafted gap must not wrap to a small time (the queue then refuses it).
            gap.saturating_mul(PS_PER_NS)
        } else {
            (gap as f64 * self.burst_scale[self.node[t as usize] as usize]).round() as Ps
        };
        let task = &mut self.tasks[t as usize];
        task.compute += burst;
        let start = now + burst;
        task.call_start = start;
        // The critical path has nothing to add for an empty burst (most of them).
        if self.observed && (burst > 0 || self.recording) {
            self.observe_burst(t, now, burst);
        }
        start + self.m.call_overhead
    }

    /// [`Sim::burst`]'s observers (see `Sim::observed` for why out of line).
    #[inline(never)]
    fn observe_burst(&mut self, t: u32, now: Ps, burst: Ps) {
        if let Some(c) = &mut self.crit {
            c.compute(t, burst);
        }
        if self.recording {
            self.record_burst(t, now, burst);
        }
    }

    /// The burst to the timeline and the predicted trace (see `Sim::recording`).
    #[inline(never)]
    fn record_burst(&mut self, t: u32, now: Ps, burst: Ps) {
        if let Some(tl) = &mut self.timeline {
            if burst > 0 {
                tl.slice(t, "compute", now, now + burst);
            }
        }
        if let Some(p) = &mut self.predicted {
            p.start(t, self.tasks[t as usize].index, now + burst);
        }
    }

    /// Closes the current call at `end` (stats, timeline) and says where the task goes next.
    fn finish_call(&mut self, t: u32, end: Ps) -> Phase {
        let task = &mut self.tasks[t as usize];
        let start = task.call_start;
        let time = end - start;
        let wait = task.partner_max.saturating_sub(start).min(time);
        task.comm += time;
        task.wait += wait;
        task.retire_awaited();
        task.state = State::Ready;
        let (other, calls) = match task.rec.op {
            Op::Other { func } | Op::OtherReq { func, .. } if task.call_fn == OTHER_FN => (Some(func), 1),
            Op::Poll { calls, .. } => (None, calls),
            _ => (None, 1),
        };
        if task.call_fn != STEP_FN {
            self.stats.call(t, task.call_fn, other, calls, time, wait);
        }
        let deferred = std::mem::take(&mut task.deferred);
        if self.observed {
            self.observe_call(t, start, end, wait);
        }
        if deferred {
            Phase::Burst(end)
        } else {
            Phase::Read(end)
        }
    }

    /// [`Sim::finish_call`]'s observers (see `Sim::observed` for why out of line).
    #[inline(never)]
    fn observe_call(&mut self, t: u32, start: Ps, end: Ps, wait: Ps) {
        if let Some(c) = &mut self.crit {
            c.finish(t, self.tasks[t as usize].call_fn, end, wait);
        }
        if self.recording {
            self.record_call(t, start, end, wait);
        }
    }

    /// The call to the timeline and the predicted trace (see `Sim::recording`).
    #[inline(never)]
    fn record_call(&mut self, t: u32, start: Ps, end: Ps, wait: Ps) {
        let task = &self.tasks[t as usize];
        if let Some(p) = &mut self.predicted {
            p.finish(t, end);
        }
        if let Some(tl) = &mut self.timeline {
            if task.call_fn != STEP_FN {
                let args = crate::timeline::CallArgs::of(&task.rec.op, task.index);
                tl.call(t, task.call_fn, start, end, wait, args);
            }
        }
    }

    fn task_done(&mut self, t: u32, now: Ps) {
        let task = &mut self.tasks[t as usize];
        task.state = State::Done;
        task.end = now;
        task.rec = psins_formats::Record::default();
        task.scout = None;
    }

    /// A blocked task's wait is over at `at`.
    fn resume(&mut self, t: u32, at: Ps) -> Result<()> {
        if self.tasks[t as usize].coll.is_some() {
            self.tasks[t as usize].retire_awaited();
            return match self.coll_continue(t, at)? {
                Flow::Done(end) => {
                    let phase = self.finish_call(t, end);
                    self.advance(t, phase)
                }
                Flow::Blocked => Ok(()),
            };
        }
        let phase = self.finish_call(t, at);
        self.advance(t, phase)
    }

    /// Hands the network model's scheduled events and deliveries to the engine, and its
    /// resource-use changes to the timeline. Most sends leave nothing to hand on (a model
    /// that answers with the delivery time at once): then only this test runs.
    #[inline]
    fn drain_net(&mut self) {
        if self.recording || !self.net_events.is_empty() || !self.net_delivered.is_empty() {
            self.drain_net_all();
        }
    }

    #[inline(never)]
    fn drain_net_all(&mut self) {
        if self.recording {
            self.observe_usage();
        }
        for (at, token) in self.net_events.drain(..) {
            self.q.push(at, Ev::Model(token));
        }
        let delivered = std::mem::take(&mut self.net_delivered);
        for &(id, at) in &delivered {
            self.on_delivered(id, at);
        }
        self.net_delivered = delivered;
        self.net_delivered.clear();
    }

    /// The model's resource-use changes to the timeline (see `Sim::observed`).
    #[inline(never)]
    fn observe_usage(&mut self) {
        if let Some(tl) = &mut self.timeline {
            self.model.take_usage(&mut |at, d| tl.usage(at, d));
        }
    }

    /// A node's copy may be over: deliver those that are, queue the node's next end.
    fn memory_event(&mut self, node: u32, at: Ps) {
        let mut done = std::mem::take(&mut self.copies_done);
        let next = self.memory.as_mut().and_then(|m| m.on_event(node, at, &mut done));
        if let Some(next) = next {
            self.q.push(next, Ev::Memory(node));
        }
        for &(id, t) in &done {
            self.on_delivered(id, t);
        }
        done.clear();
        self.copies_done = done;
    }

    fn model_event(&mut self, token: u32, at: Ps) {
        let mut ctx = NetCtx::new(at, &mut self.net_events, &mut self.net_delivered, &mut self.net_failure);
        self.model.on_event(token, &mut ctx);
        self.drain_net();
    }
}
