//! Nonblocking collectives in expanded mode: each `MPI_I*` call runs its schedule (the
//! library's: MPICH 4.0.2's default sched algorithm or Open MPI 4.1's libnbc one, phases of
//! `ISend`/`IRecv` closed by `WaitAll`; see docs/collectives.md) in the background of its
//! task, while the task goes on with its own records. A phase posts its messages at once; the
//! next phase starts when all of them have completed; the call's request completes when the
//! last phase does, so computation between `MPI_Iallreduce` and its `MPI_Wait` overlaps the
//! schedule.
//!
//! Progress is *asynchronous*: a phase starts as soon as the previous one is done, whatever
//! the task is doing. MPICH 4.0.2 (without `MPIR_CVAR_ASYNC_PROGRESS`) advances schedules
//! only inside MPI calls, so this is the most overlap the application can get: a prediction
//! of what the overlap allows, not of one progress engine (docs/simulator.md).
//!
//! Step messages complete through [`Ref::Nbc`], not through task requests, so they never mix
//! with what the task itself awaits. Each schedule's messages carry a tag of their own, the
//! number of the nonblocking collective on its communicator (the same on every member, as
//! all members call a communicator's collectives in the same order), so two schedules in
//! flight on one communicator, or a schedule and a blocking collective's steps (tag 0),
//! never match each other's messages.

use super::p2p::SendArgs;
use super::queue::Ev;
use super::task::{Posted, Ref, ReqKind};
use super::{Flow, Sim};
use crate::error::{Result, SimError};
use crate::model::algorithm::MemberArgs;
use crate::source::TraceSource;
use crate::units::Ps;
use psins_collectives::{CollArgs, ExpandError, Step};
use psins_formats::{Op, SendMode};

/// One nonblocking collective running on a task (`Sim::nbc`, under (task, request handle)).
pub struct Schedule {
    comm: u32,
    tag: i32,
    steps: Vec<Step>,
    pos: usize,
    /// Messages of the current phase not completed yet.
    open: u32,
    /// Latest completion so far: when the current phase (and at the end, the call) is done.
    done: Ps,
    /// Latest partner post time (wait accounting of the request).
    partner: Ps,
    /// The Coll record that started it (errors of later phases name it).
    index: u64,
}

impl<S: TraceSource> Sim<'_, S> {
    /// Starts the nonblocking collective of task `t`'s current record (a communicator of
    /// `size` > 1 ranks, `rank` in it, checked by the caller) at `at`.
    pub(super) fn start_schedule(&mut self, t: u32, rank: u32, size: u32, at: Ps) -> Result<Flow> {
        let task = &mut self.tasks[t as usize];
        let op = task.rec.op;
        let list = std::mem::take(&mut task.rec.list);
        let index = task.index;
        let Op::Coll { coll, comm, req, instance, .. } = op else { unreachable!("start_schedule on a Coll record") };
        let h = task.create_req(req, ReqKind::Coll).map_err(|e| SimError::bad_record(t, index, e.to_string()))?;
        let mut steps = self.read_steps(t, instance)?;
        if steps.is_empty() {
            let counts: Vec<u64> = list.iter().map(|&v| v.max(0) as u64).collect();
            let args = CollArgs::from_op(&op, size, rank, &counts).expect("a Coll record");
            match self.library.expand_nonblocking(&args, &self.thresholds, &mut steps) {
                Ok(_) => {}
                Err(ExpandError::Unsupported { .. }) => {
                    // Neighbourhood collectives without steps: analytic, as in blocking replay.
                    let block = super::coll::block_bytes(&op, &list);
                    let members = MemberArgs::from_record(&op, &list);
                    self.arrive(t, h, op, block, members, at)?;
                    return Ok(Flow::Done(at));
                }
                Err(e) => {
                    return Err(SimError::bad_record(t, index, format!("cannot expand i{}: {e}", coll.name())));
                }
            }
        }
        let seq = self.nbc_seq.entry((t, comm)).or_insert(0);
        *seq += 1;
        let tag = (*seq % i32::MAX as u64) as i32 + 1;
        let s = Schedule { comm, tag, steps, pos: 0, open: 0, done: at, partner: at, index };
        self.nbc.insert((t, h), s);
        self.nbc_run(t, h, at)?;
        Ok(Flow::Done(at))
    }

    /// Reads the Step records of collective `instance` that follow the current record; the
    /// first other record is left in `rec` for after the call ([`super::task::Task::deferred`]).
    fn read_steps(&mut self, t: u32, instance: u32) -> Result<Vec<Step>> {
        let mut steps = Vec::new();
        while self.read_raw(t)? {
            let task = &mut self.tasks[t as usize];
            match task.rec.op {
                Op::Step { instance: i, .. } if i == instance => steps.push(
                    Step::from_op(&task.rec.op)
                        .ok_or_else(|| SimError::bad_record(t, task.index, "expansion step with a negative peer"))?,
                ),
                _ => {
                    task.deferred = true;
                    break;
                }
            }
        }
        Ok(steps)
    }

    /// Runs schedule `h` of task `t` from `now`: posts phases until one has messages in
    /// flight, or completes the call's request when the steps are over.
    fn nbc_run(&mut self, t: u32, h: u32, now: Ps) -> Result<()> {
        // Completions inside the posting (eager sends) file no event: the end of the posting
        // does, as for a blocking collective's round.
        self.nbc_posting = Some((t, h));
        let r = self.nbc_post(t, h, now);
        self.nbc_posting = None;
        r
    }

    /// [`Sim::nbc_run`]'s loop.
    fn nbc_post(&mut self, t: u32, h: u32, now: Ps) -> Result<()> {
        loop {
            let Some(s) = self.nbc.get_mut(&(t, h)) else { return Ok(()) };
            // Between phases (not inside a batch being posted): go on only once the last
            // phase is over.
            let boundary = s.pos == 0 || s.pos == s.steps.len() || s.steps[s.pos - 1].waits();
            if boundary && s.open > 0 {
                return Ok(());
            }
            if boundary && s.done > now {
                // The phase ended later than now: go on then.
                let done = s.done;
                self.q.push(done, Ev::Schedule(t));
                return Ok(());
            }
            let Some(&step) = s.steps.get(s.pos) else {
                let (done, partner) = (s.done, s.partner);
                self.nbc.remove(&(t, h));
                self.complete(t, Ref::Req(h), done, partner);
                return Ok(());
            };
            s.pos += 1;
            let (comm, tag, index) = (s.comm, s.tag, s.index);
            // Counted before posting: an eager send completes inside post_send.
            s.open += step.send().is_some() as u32 + step.recv().is_some() as u32;
            if let Some((peer, bytes)) = step.send() {
                let dst = self.step_peer(t, index, comm, peer)?;
                let a =
                    SendArgs { dst, comm, tag, coll: true, bytes, mode: SendMode::Standard, r: Ref::Nbc(h), busy: 0 };
                // Later phases run while the task is at a later record: name the collective's.
                self.post_send(t, a, now).map_err(|e| match e {
                    SimError::BadRecord { task, msg, .. } => SimError::BadRecord { task, record: index, msg },
                    e => e,
                })?;
            }
            if let Some((peer, _)) = step.recv() {
                let src = self.step_peer(t, index, comm, peer)? as i32;
                self.post_recv(t, Posted { src, tag, comm, coll: true, r: Ref::Nbc(h), at: now });
            }
            // A posting step never waits; a WaitAll (or a blocking step) waits for the phase.
        }
    }

    /// A message of schedule `h` of task `t` completed at `at`. Called from inside message
    /// matching, so the next phase is never posted here: an event at the phase's end does.
    pub(super) fn nbc_done(&mut self, t: u32, h: u32, at: Ps, partner: Ps) {
        let now = self.now;
        let Some(s) = self.nbc.get_mut(&(t, h)) else { return };
        s.open = s.open.saturating_sub(1);
        s.done = s.done.max(at);
        s.partner = s.partner.max(partner);
        if s.open == 0 && self.nbc_posting != Some((t, h)) {
            self.q.push(s.done.max(now), Ev::Schedule(t));
        }
    }

    /// Task `t`'s schedules whose phase is over by `now` go on (an [`Ev::Schedule`]).
    pub(super) fn nbc_progress(&mut self, t: u32, now: Ps) -> Result<()> {
        let ready: Vec<u32> = self
            .nbc
            .range((t, 0)..=(t, u32::MAX))
            .filter(|(_, s)| s.open == 0 && s.done <= now)
            .map(|(&(_, h), _)| h)
            .collect();
        for h in ready {
            self.nbc_run(t, h, now)?;
        }
        Ok(())
    }
}
