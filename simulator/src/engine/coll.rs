//! Collectives. Analytic: every member arrives, the instance completes at the last arrival
//! plus the model's duration (PSINS). Expanded: the call is replayed as its point-to-point
//! steps — the trace's own Step records when it has them, else MPICH's algorithm from
//! psins-collectives — in a message context of their own, so they never match application
//! messages. Nonblocking collectives expanded run as background schedules (nbc.rs);
//! analytic, their request completes at the instance's end.

use super::p2p::SendArgs;
use super::task::{Posted, Ref, ReqKind, State, BLOCKING_REQ};
use super::{Flow, Sim};
use crate::error::{Result, SimError};
use crate::model::algorithm::{MemberArgs, Members, Placement};
use crate::model::CollCall;
use crate::source::TraceSource;
use crate::units::Ps;
use psins_collectives::{CollArgs, ExpandError, Step};
use psins_formats::{Coll, CollFlags, Op, SendMode};
use std::collections::VecDeque;

/// Tag of every expansion message (they have their own context, so any value works).
const STEP_TAG: i32 = 0;

/// One collective instance on a communicator while members arrive.
struct Instance {
    coll: Coll,
    /// The root the first member named (rooted collectives on an intra-communicator must
    /// agree on it; elsewhere unchecked).
    root: i32,
    arrived: u32,
    last: Ps,
    bytes: u64,
    first_node: u32,
    single_node: bool,
    /// (task, request handle) of every arrived member.
    waiters: Vec<(u32, u32)>,
    /// Every member's arguments (for the algorithm's cost).
    members: Members,
}

/// The analytic collectives of one communicator: members call them in the same order, so
/// the k-th call of each member belongs to instance k.
pub struct CollQueue {
    front: u64,
    open: VecDeque<Instance>,
    /// Calls made so far by each member (by comm-local rank).
    calls: Vec<u64>,
    /// Where the members are (for the algorithm's cost); None for an intercommunicator,
    /// whose collectives MPICH's intra-communicator algorithms do not describe.
    placement: Option<Placement>,
}

/// An expanded collective in progress on one task.
pub struct CollExec {
    /// The Coll record (the task's current record is overwritten by its steps).
    op: Op,
    list: Vec<i64>,
    index: u64,
    rank: u32,
    size: u32,
    comm: u32,
    instance: u32,
    steps: Vec<Step>,
    pos: usize,
    /// Where steps come from: not known until the record after the Coll is read.
    source: StepSource,
    /// The record after the steps has been read (or the stream has ended).
    exhausted: bool,
    partner: Ps,
}

/// What an expanded collective does next.
enum Next {
    Step(Step),
    End,
    /// No steps in the trace and none can be generated (neighbourhood collectives, whose
    /// topology the trace does not carry): replay this one analytically.
    Analytic,
}

#[derive(PartialEq, Eq)]
enum StepSource {
    Unknown,
    Trace,
    Generated,
}

impl<S: TraceSource> Sim<'_, S> {
    pub(super) fn exec_coll(&mut self, t: u32, at: Ps) -> Result<Flow> {
        let task = &self.tasks[t as usize];
        let Op::Coll { comm, flags, req, .. } = task.rec.op else { unreachable!("exec_coll on a Coll record") };
        let index = task.index;
        let size = self
            .comms
            .size(comm)
            .ok_or_else(|| SimError::bad_record(t, index, format!("collective on unknown communicator {comm}")))?;
        let local = self.comms.local_of(comm, t).ok_or_else(|| {
            SimError::bad_record(t, index, format!("rank {t} is not a member of communicator {comm}"))
        })?;
        if self.comms.reaches_outside(comm) {
            let msg = format!("collective on intercommunicator {comm}, whose other group is outside the traced job (spawned): it cannot be replayed");
            return Err(SimError::bad_record(t, index, msg));
        }
        let nonblocking = flags & CollFlags::NONBLOCKING != 0;
        // MPICH's intercommunicator algorithms are not expanded (docs/collectives.md)
        if self.expanded && size > 1 && !self.comms.is_inter(comm) {
            if nonblocking {
                return self.start_schedule(t, local, size, at);
            }
            return self.start_expanded(t, local, size, at);
        }
        let task = &mut self.tasks[t as usize];
        let h = if nonblocking {
            task.create_req(req, ReqKind::Coll).map_err(|e| SimError::bad_record(t, index, e.to_string()))?
        } else {
            task.add_req(BLOCKING_REQ, ReqKind::Coll)
        };
        if size == 1 {
            self.complete(t, Ref::Req(h), at, at);
        } else {
            let rec = &self.tasks[t as usize].rec;
            let (op, block, args) =
                (rec.op, block_bytes(&rec.op, &rec.list), MemberArgs::from_record(&rec.op, &rec.list));
            self.arrive(t, h, op, block, args, at)?;
        }
        if nonblocking {
            return Ok(Flow::Done(at));
        }
        let task = &mut self.tasks[t as usize];
        task.await_req(h);
        Ok(self.block_on(t, at))
    }

    /// Task `t` (request `h`) arrives at its next collective on the record's communicator.
    /// `block`: see [`block_bytes`]. The communicator is known and `t` a member (checked by
    /// the caller).
    pub(super) fn arrive(&mut self, t: u32, h: u32, op: Op, block: u64, args: MemberArgs, at: Ps) -> Result<()> {
        let index = self.tasks[t as usize].index;
        let Op::Coll { coll, comm, root, .. } = op else { unreachable!("arrive with a Coll record") };
        let size = self.comms.size(comm).expect("checked by exec_coll");
        let local = self.comms.local_of(comm, t).expect("checked by exec_coll");
        let node = self.node[t as usize];
        let (comms, nodes) = (&self.comms, &self.node);
        let q = self.colls.entry(comm).or_insert_with(|| {
            let members = comms.members(comm, t);
            let placement = (!comms.is_inter(comm))
                .then(|| Placement::of(comm, (0..members.len()).map(|l| nodes[members.get(l) as usize]).collect()));
            CollQueue { front: 0, open: VecDeque::new(), calls: vec![0; size as usize], placement }
        });
        let seq = q.calls[local as usize];
        q.calls[local as usize] += 1;
        let k = (seq - q.front) as usize;
        while q.open.len() <= k {
            q.open.push_back(Instance {
                coll,
                root,
                arrived: 0,
                last: 0,
                bytes: 0,
                first_node: node,
                single_node: true,
                waiters: Vec::new(),
                members: Members::default(),
            });
        }
        let inst = &mut q.open[k];
        if inst.coll != coll {
            return Err(SimError::bad_record(
                t,
                index,
                format!(
                    "collective #{} on communicator {comm} is {} here but {} on other members",
                    seq + 1,
                    coll.name(),
                    inst.coll.name()
                ),
            ));
        }
        // An intercommunicator's groups name the root differently (MPI_ROOT, MPI_PROC_NULL).
        if inst.root != root && q.placement.is_some() {
            return Err(SimError::bad_record(
                t,
                index,
                format!(
                    "collective #{} on communicator {comm} (MPI_{}) has root {root} here but {} on other members",
                    seq + 1,
                    coll.name(),
                    inst.root
                ),
            ));
        }
        inst.arrived += 1;
        inst.last = inst.last.max(at);
        inst.bytes = inst.bytes.max(block);
        inst.single_node &= inst.first_node == node;
        inst.waiters.push((t, h));
        inst.members.add(coll, local, args);
        if inst.arrived < size {
            return Ok(());
        }
        // Instances complete in call order: every member reached the earlier ones first.
        let inst = q.open.pop_front().expect("complete instance is the front");
        q.front += 1;
        let algorithm = match (self.m.explicit_shape(coll), &q.placement) {
            (Some(_), _) | (_, None) => None,
            (None, Some(placement)) => self
                .algo
                .cost(self.m, (self.library, &self.thresholds), coll, size, placement, &inst.members)
                .map_err(|e| SimError::bad_record(t, index, format!("collective on communicator {comm}: {e}")))?,
        };
        let call = CollCall {
            coll,
            participants: size,
            bytes: inst.bytes,
            single_node: inst.single_node,
            start: inst.last,
            algorithm,
        };
        let end = inst.last + self.model.collective(&call);
        if let Some(c) = &mut self.crit {
            // Calls run in time order, so the member completing the instance arrived last.
            c.collective(t, self.tasks[t as usize].call_fn, inst.last, end, inst.waiters.iter().map(|&(w, _)| w));
        }
        for (w, wh) in inst.waiters {
            self.complete(w, Ref::Req(wh), end, inst.last);
        }
        Ok(())
    }

    fn start_expanded(&mut self, t: u32, rank: u32, size: u32, at: Ps) -> Result<Flow> {
        let task = &mut self.tasks[t as usize];
        let Op::Coll { comm, instance, .. } = task.rec.op else { unreachable!("start_expanded on a Coll record") };
        let exec = CollExec {
            op: task.rec.op,
            list: std::mem::take(&mut task.rec.list),
            index: task.index,
            rank,
            size,
            comm,
            instance,
            steps: Vec::new(),
            pos: 0,
            source: StepSource::Unknown,
            exhausted: false,
            partner: 0,
        };
        task.coll = Some(Box::new(exec));
        self.coll_continue(t, at)
    }

    /// Runs the expanded collective's steps from `now` until one blocks or all are done.
    /// Blocking steps wait for their own messages; `ISend`/`IRecv` only post theirs, and
    /// the next `WaitAll` waits for the whole batch (as does the end of the steps, should a
    /// trace's last batch lack its `WaitAll`).
    pub(super) fn coll_continue(&mut self, t: u32, now: Ps) -> Result<Flow> {
        // Until when the CPU is busy with the round's sends: MPICH posts a batch's sends one
        // MPIC_Isend after another, each keeping the CPU for its o_s (as an application's
        // burst of isends does), so their overheads add up — the own block's too.
        let mut cpu = now;
        loop {
            let step = match self.next_step(t)? {
                Next::Step(s) => Some(s),
                Next::End => None,
                Next::Analytic => return self.coll_fallback(t, now),
            };
            if let Some(step) = step {
                cpu = self.post_step(t, step, now, cpu)?;
                if step.is_posting() {
                    continue;
                }
            }
            match self.block_on(t, now) {
                Flow::Done(end) if end == now => {
                    let task = &mut self.tasks[t as usize];
                    let partner = task.partner_max;
                    task.retire_awaited();
                    let c = task.coll.as_mut().expect("collective in progress");
                    c.partner = c.partner.max(partner);
                    cpu = now;
                }
                Flow::Done(end) => {
                    // A step finishing later: continue from there, in time order.
                    self.tasks[t as usize].state = State::Blocked;
                    self.q.push(end, super::Ev::Resume(t));
                    return Ok(Flow::Blocked);
                }
                Flow::Blocked => return Ok(Flow::Blocked),
            }
            if step.is_none() {
                break;
            }
        }
        let task = &mut self.tasks[t as usize];
        let mut c = task.coll.take().expect("collective in progress");
        task.partner_max = task.partner_max.max(c.partner);
        // The record's list goes back for the records after it to fill (a Waitall's
        // completions): otherwise each collective costs its rank an allocation and a free.
        if task.rec.list.is_empty() && task.rec.list.capacity() < c.list.capacity() {
            c.list.clear();
            task.rec.list = std::mem::take(&mut c.list);
        }
        Ok(Flow::Done(now))
    }

    /// Posts the step's send and receive halves as awaited requests of task `t`, at `now`
    /// or, while the CPU is busy with the round's earlier sends, at `cpu`; returns until when
    /// the CPU is busy after them.
    fn post_step(&mut self, t: u32, step: Step, now: Ps, cpu: Ps) -> Result<Ps> {
        let comm = self.tasks[t as usize].coll.as_ref().expect("collective in progress").comm;
        let mut free = cpu;
        if let Some((peer, bytes)) = step.send() {
            let dst = self.step_peer(t, self.tasks[t as usize].index, comm, peer)?;
            let h = self.tasks[t as usize].add_req(BLOCKING_REQ, ReqKind::Send);
            self.mark_awaited(t, h);
            let r = Ref::Req(h);
            let a = SendArgs { dst, comm, tag: STEP_TAG, coll: true, bytes, mode: SendMode::Standard, r, busy: cpu };
            free = self.post_send(t, a, now)?;
        }
        if let Some((peer, _)) = step.recv() {
            let src = self.step_peer(t, self.tasks[t as usize].index, comm, peer)?;
            let h = self.tasks[t as usize].add_req(BLOCKING_REQ, ReqKind::Recv);
            self.mark_awaited(t, h);
            // A sendrecv's receive is posted before its send (MPIC_Sendrecv), at `cpu`.
            self.post_recv(t, Posted { src: src as i32, tag: STEP_TAG, comm, coll: true, r: Ref::Req(h), at: cpu });
        }
        Ok(free)
    }

    fn mark_awaited(&mut self, t: u32, h: u32) {
        self.tasks[t as usize].await_req(h);
    }

    /// World rank of a collective step's `peer` (blocking or nonblocking), refused as
    /// psins-consolidate refuses it in a log; the error names `record` (the step's own, or a
    /// nonblocking collective's Coll record, since its steps are posted from later records).
    pub(super) fn step_peer(&self, t: u32, record: u64, comm: u32, peer: u32) -> Result<u32> {
        self.world_peer(t, comm, peer as i32).map_err(|m| SimError::bad_record(t, record, m))
    }

    /// The next step of the collective in progress, reading Step records as needed.
    fn next_step(&mut self, t: u32) -> Result<Next> {
        let c = self.tasks[t as usize].coll.as_mut().expect("collective in progress");
        if c.source == StepSource::Generated || c.exhausted {
            c.pos += 1;
            return Ok(c.steps.get(c.pos - 1).map_or(Next::End, |&s| Next::Step(s)));
        }
        let more = self.read_raw(t)?;
        let task = &mut self.tasks[t as usize];
        let c = task.coll.as_mut().expect("collective in progress");
        if more {
            if let Op::Step { instance, .. } = task.rec.op {
                if instance == c.instance {
                    c.source = StepSource::Trace;
                    let step = Step::from_op(&task.rec.op)
                        .ok_or_else(|| SimError::bad_record(t, task.index, "expansion step with a negative peer"))?;
                    return Ok(Next::Step(step));
                }
            }
            // The record after the expansion: executed once the collective is over.
            task.deferred = true;
        }
        c.exhausted = true;
        if c.source == StepSource::Unknown {
            if !self.generate_steps(t)? {
                return Ok(Next::Analytic);
            }
            return self.next_step(t);
        }
        Ok(Next::End)
    }

    /// Replays the expanded collective in progress analytically instead (see [`Next::Analytic`]).
    fn coll_fallback(&mut self, t: u32, now: Ps) -> Result<Flow> {
        let c = self.tasks[t as usize].coll.take().expect("collective in progress");
        let h = self.tasks[t as usize].add_req(BLOCKING_REQ, ReqKind::Coll);
        self.mark_awaited(t, h);
        self.arrive(t, h, c.op, block_bytes(&c.op, &c.list), MemberArgs::from_record(&c.op, &c.list), now)?;
        Ok(self.block_on(t, now))
    }

    /// Expands the collective with psins-collectives (the trace has no steps for it); false
    /// if the collective cannot be expanded from its record alone.
    fn generate_steps(&mut self, t: u32) -> Result<bool> {
        let c = self.tasks[t as usize].coll.as_mut().expect("collective in progress");
        c.source = StepSource::Generated;
        c.pos = 0;
        let counts: Vec<u64> = c.list.iter().map(|&v| v.max(0) as u64).collect();
        let args = CollArgs::from_op(&c.op, c.size, c.rank, &counts).expect("an expanded collective's record");
        self.coll_steps.clear();
        match self.library.expand(&args, &self.thresholds, &mut self.coll_steps) {
            Ok(_) => {
                // Generated into a scratch list and copied: one allocation of the size needed.
                // Every member of a world collective holds its steps at once, so no spare room
                // (at a million ranks, 20 steps of recursive doubling in room for 32 were 0.4
                // KB a rank), and growing the list in place cost a reallocation per doubling.
                c.steps = self.coll_steps.clone();
                Ok(true)
            }
            Err(ExpandError::Unsupported { .. }) => Ok(false),
            Err(e) => Err(SimError::bad_record(t, c.index, format!("cannot expand {}: {e}", args.coll.name()))),
        }
    }
}

/// The largest block this member sends to or receives from one peer: the per-peer counts of
/// the v/w variants when the record has them, else the larger of its two byte counts.
pub(super) fn block_bytes(op: &Op, list: &[i64]) -> u64 {
    let Op::Coll { send_bytes, recv_bytes, .. } = *op else { return 0 };
    match list.iter().copied().max() {
        Some(m) => m.max(0) as u64,
        None => send_bytes.max(recv_bytes),
    }
}

impl CollQueue {
    /// Whether request `h` of task `t` waits in one of the open instances.
    pub fn waits_in(&self, t: u32, h: u32) -> bool {
        self.open.iter().any(|i| i.waiters.contains(&(t, h)))
    }

    /// ", missing world ranks a, b, …" for the oldest open instance (deadlock reports).
    pub fn missing_members(&self, comms: &super::comms::Comms, comm: u32, caller: u32) -> String {
        let members = comms.members(comm, caller);
        let missing: Vec<String> = (0..members.len())
            .filter(|&l| self.calls[l] <= self.front)
            .take(16)
            .map(|l| members.get(l).to_string())
            .collect();
        if missing.is_empty() {
            String::new()
        } else {
            format!(" (missing world ranks {}{})", missing.join(", "), if missing.len() == 16 { ", …" } else { "" })
        }
    }
}
