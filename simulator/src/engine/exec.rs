//! Executing one record: the MPI call's semantics at simulated time `at`.

use super::p2p::SendArgs;
use super::scout::Scout;
use super::task::{Persistent, Posted, Ref, ReqKind, State, ANY, BLOCKING_REQ, UNKNOWN};
use super::{Flow, Sim};
use crate::error::{Result, SimError};
use crate::source::TraceSource;
use crate::units::{Ps, PS_PER_NS};
use psins_formats::functions::fn_id;
use psins_formats::*;

/// Why a record cannot be replayed.
type Bad = String;

impl<S: TraceSource> Sim<'_, S> {
    /// Inlined into the task loop (`Sim::advance`), its only caller: a call per record costs.
    #[inline(always)]
    pub(super) fn exec(&mut self, t: u32, at: Ps) -> Result<Flow> {
        let task = &mut self.tasks[t as usize];
        task.call_fn = fn_id(&task.rec.op);
        task.partner_max = 0;
        let op = task.rec.op;
        let index = task.index;
        let bad = |m: Bad| SimError::bad_record(t, index, m);
        match op {
            Op::Init { .. } | Op::Finalize | Op::Abort { .. } | Op::CommFree { .. } | Op::Step { .. } => {
                Ok(Flow::Done(at))
            }
            Op::Send { mode, peer, tag, bytes, comm } => {
                let Some(dst) = self.peer(t, comm, peer).map_err(bad)? else { return Ok(Flow::Done(at)) };
                let h = self.awaited_req(t, ReqKind::Send);
                self.post_send(t, SendArgs { dst, comm, tag, coll: false, bytes, mode, r: Ref::Req(h), busy: 0 }, at)?;
                Ok(self.block_on(t, at))
            }
            Op::Isend { mode, peer, tag, bytes, comm, req } => {
                let Some(dst) = self.peer(t, comm, peer).map_err(bad)? else { return self.null_req(t, req, at) };
                let h = self.tasks[t as usize].create_req(req, ReqKind::Send).map_err(|e| bad(e.to_string()))?;
                let free = self.post_send(
                    t,
                    SendArgs { dst, comm, tag, coll: false, bytes, mode, r: Ref::Req(h), busy: 0 },
                    at,
                )?;
                Ok(Flow::Done(free))
            }
            Op::Recv { peer, tag, comm, .. } => {
                let Some(src) = self.source(t, comm, peer).map_err(bad)? else { return Ok(Flow::Done(at)) };
                let h = self.awaited_req(t, ReqKind::Recv);
                self.post_recv(t, Posted { src, tag, comm, coll: false, r: Ref::Req(h), at });
                Ok(self.block_on(t, at))
            }
            Op::Irecv { peer, tag, comm, req, .. } => {
                let (peer, tag) = self.resolve_wildcard(t, peer, tag, req)?;
                let Some(src) = self.source(t, comm, peer).map_err(bad)? else { return self.null_req(t, req, at) };
                let h = self.tasks[t as usize].create_req(req, ReqKind::Recv).map_err(|e| bad(e.to_string()))?;
                // Posting keeps the CPU (`mpi.irecv_overhead`); the receive exists once the call returns.
                let at = at + self.m.irecv_overhead;
                self.post_recv(t, Posted { src, tag, comm, coll: false, r: Ref::Req(h), at });
                Ok(Flow::Done(at))
            }
            Op::Sendrecv { peer, tag, bytes, src, rtag, comm, .. } => {
                if let Some(dst) = self.peer(t, comm, peer).map_err(bad)? {
                    let h = self.awaited_req(t, ReqKind::Send);
                    let a = SendArgs {
                        dst,
                        comm,
                        tag,
                        coll: false,
                        bytes,
                        mode: SendMode::Standard,
                        r: Ref::Req(h),
                        busy: 0,
                    };
                    self.post_send(t, a, at)?;
                }
                if let Some(from) = self.source(t, comm, src).map_err(bad)? {
                    let h = self.awaited_req(t, ReqKind::Recv);
                    self.post_recv(t, Posted { src: from, tag: rtag, comm, coll: false, r: Ref::Req(h), at });
                }
                Ok(self.block_on(t, at))
            }
            Op::Wait { func, count } => self.exec_wait(t, func, count, at).map_err(bad),
            Op::Coll { .. } => self.exec_coll(t, at),
            _ => self.exec_rare(t, at),
        }
    }

    /// [`Sim::exec`] for the calls a replay meets rarely: out of the task loop, so that the
    /// loop's code stays small.
    #[inline(never)]
    fn exec_rare(&mut self, t: u32, at: Ps) -> Result<Flow> {
        let task = &self.tasks[t as usize];
        let op = task.rec.op;
        let index = task.index;
        let bad = |m: Bad| SimError::bad_record(t, index, m);
        match op {
            Op::Other { .. } => Ok(Flow::Done(at + self.scaled_dur(t))),
            // A request the trace does not model (MPI-IO, generalized requests, Comm_idup,
            // persistent collectives, partitioned p2p): the call keeps its traced duration, as
            // `Other`, and the request is complete when it returns (a persistent one: at each
            // start); a wait that completes it lasts at least its own traced duration
            // (exec_wait). The I/O costs what the calls measured.
            Op::OtherReq { req, persistent, .. } => {
                let end = at + self.scaled_dur(t);
                let kind = if persistent { ReqKind::MeasuredPersistent } else { ReqKind::Measured };
                let task = &mut self.tasks[t as usize];
                let h = task.create_req(req, kind).map_err(|e| bad(e.to_string()))?;
                let r = task.req_mut(h).expect("just added");
                (r.done_at, r.partner_at, r.active) = (end, end, !persistent);
                Ok(Flow::Done(end))
            }
            Op::CommCreate { comm: COMM_NULL, .. } => Ok(Flow::Done(at)),
            Op::CommCreate { comm, split, .. } => {
                let tasks = self.tasks.len() as u32;
                let def = CommDef::from_record(comm, split, &self.tasks[t as usize].rec.list, tasks)
                    .map_err(|e| bad(e.to_string()))?;
                self.comms.insert(comm, &def.members, split);
                Ok(Flow::Done(at))
            }
            Op::SendInit { mode, peer, tag, bytes, comm, req } => {
                self.persistent(t, req, Persistent { send: true, mode, peer, tag, bytes, comm }, at).map_err(bad)
            }
            Op::RecvInit { peer, tag, bytes, comm, req } => {
                let args = Persistent { send: false, mode: SendMode::Standard, peer, tag, bytes, comm };
                self.persistent(t, req, args, at).map_err(bad)
            }
            Op::Start { req } => Ok(Flow::Done(self.start(t, req, at)?)),
            Op::Startall => {
                // Each send's overhead keeps the CPU, so the next request starts after it.
                let list = std::mem::take(&mut self.tasks[t as usize].rec.list);
                let mut free = at;
                for &req in &list {
                    free = self.start(t, req as u32, free)?;
                }
                self.tasks[t as usize].rec.list = list;
                Ok(Flow::Done(free))
            }
            Op::RequestFree { req } => {
                let task = &mut self.tasks[t as usize];
                let i = task.reqs.iter().rposition(|r| r.id == req).ok_or_else(|| bad(never_created("frees", req)))?;
                let h = task.reqs.remove(i).handle;
                task.persistent.retain(|(ph, _)| *ph != h);
                Ok(Flow::Done(at))
            }
            Op::Cancel { req } => {
                let h = self.tasks[t as usize].live_req(req).ok_or_else(|| bad(never_created("cancels", req)))?.handle;
                if self.cancel_recv(t, h) {
                    self.complete(t, Ref::Req(h), at, at);
                }
                Ok(Flow::Done(at))
            }
            Op::Probe { peer, tag, comm, flags, .. } => self.exec_probe(t, peer, tag, comm, flags, at).map_err(bad),
            // `calls` polls that found nothing: each costs what the unfolded record would (the
            // call overhead; the burst already paid the first), and nothing else happens.
            Op::Poll { func, calls, peer, comm, .. } => {
                if func.is_probe() {
                    self.source(t, comm, peer).map_err(bad)?;
                }
                Ok(Flow::Done(at.saturating_add(calls.saturating_sub(1).saturating_mul(self.m.call_overhead))))
            }
            Op::Pcontrol { level } => {
                self.enter_region(t, level);
                Ok(Flow::Done(at))
            }
            Op::Rma { .. } | Op::WinSync { .. } | Op::WinCreate { .. } | Op::WinFree { .. } => self.exec_rma(t, at),
            _ => unreachable!("exec handles {op:?}"),
        }
    }

    /// Recorded time of an `Other` call, scaled like a CPU burst.
    fn scaled_dur(&self, t: u32) -> Ps {
        scale_ns(self.tasks[t as usize].rec.dur_ns, &self.burst_scale, self.node[t as usize])
    }

    /// World rank of destination `peer`; `None` for PROC_NULL.
    #[inline]
    fn peer(&self, t: u32, comm: u32, peer: i32) -> Result<Option<u32>, Bad> {
        if peer == PROC_NULL {
            return Ok(None);
        }
        if !self.comms.known(comm) {
            return Err(format!("unknown communicator {comm}"));
        }
        self.world_peer(t, comm, peer).map(Some)
    }

    /// World rank of rank `peer` of known communicator `comm` as task `t` names it: a
    /// point-to-point peer, or a collective step's (`coll.rs`, `nbc.rs`).
    #[inline]
    pub(super) fn world_peer(&self, t: u32, comm: u32, peer: i32) -> Result<u32, Bad> {
        match self.comms.world_of(comm, t, peer) {
            Some(OUTSIDE_JOB) => {
                Err(format!("peer {peer} of intercommunicator {comm} is a process outside the traced job (spawned?)"))
            }
            Some(w) => Ok(w),
            // the message psins-consolidate gives for the same record in a log
            None => Err(self.comms.reach(comm, t).outside("peer", peer)),
        }
    }

    /// World rank (or ANY) of receive source `peer`; `None` for PROC_NULL.
    #[inline]
    fn source(&self, t: u32, comm: u32, peer: i32) -> Result<Option<i32>, Bad> {
        if peer == ANY_SOURCE {
            return if self.comms.known(comm) { Ok(Some(ANY)) } else { Err(format!("unknown communicator {comm}")) };
        }
        Ok(self.peer(t, comm, peer)?.map(|w| w as i32))
    }

    /// A request for a blocking call, already marked as awaited.
    fn awaited_req(&mut self, t: u32, kind: ReqKind) -> u32 {
        let task = &mut self.tasks[t as usize];
        let h = task.add_req(BLOCKING_REQ, kind);
        task.await_req(h);
        h
    }

    /// A nonblocking call on PROC_NULL: its request exists and is complete.
    fn null_req(&mut self, t: u32, req: u32, at: Ps) -> Result<Flow> {
        let task = &mut self.tasks[t as usize];
        let h = task.create_req(req, ReqKind::Coll).map_err(|e| SimError::bad_record(t, task.index, e.to_string()))?;
        let r = task.req_mut(h).expect("just added");
        r.done_at = at;
        r.partner_at = at;
        Ok(Flow::Done(at))
    }

    /// The actual source and tag of a wildcard receive, from its completion record.
    fn resolve_wildcard(&mut self, t: u32, peer: i32, tag: i32, req: u32) -> Result<(i32, i32)> {
        if peer != ANY_SOURCE && tag != ANY_TAG {
            return Ok((peer, tag));
        }
        if self.tasks[t as usize].scout.is_none() {
            let stream = self.src.lookahead(t)?;
            self.tasks[t as usize].scout = Some(Box::new(Scout::new(stream)));
        }
        let task = &mut self.tasks[t as usize];
        let index = task.index;
        match task.scout.as_mut().expect("created above").resolve(index, req)? {
            Some((p, g)) if p >= 0 || p == PROC_NULL => Ok((p, g)),
            _ => {
                self.stats.unresolved_wildcards += 1;
                Ok((peer, tag))
            }
        }
    }

    fn persistent(&mut self, t: u32, req: u32, args: Persistent, at: Ps) -> Result<Flow, Bad> {
        let task = &mut self.tasks[t as usize];
        let h = task.create_req(req, ReqKind::Persistent).map_err(|e| e.to_string())?;
        task.persistent.push((h, args));
        task.req_mut(h).expect("just added").active = false;
        Ok(Flow::Done(at))
    }

    /// Starts persistent request `req`; returns when the CPU is free (after a send's o_s).
    fn start(&mut self, t: u32, req: u32, at: Ps) -> Result<Ps> {
        let task = &mut self.tasks[t as usize];
        let index = task.index;
        let r = task.reqs.iter_mut().rev().find(|r| r.id == req && r.kind.persistent()).ok_or_else(|| {
            SimError::bad_record(t, index, format!("start of request {req}, which is not a persistent request"))
        })?;
        if r.kind == ReqKind::MeasuredPersistent {
            (r.active, r.done_at, r.partner_at) = (true, at, at);
            return Ok(at);
        }
        let h = r.handle;
        let p = task.persistent.iter().find(|(ph, _)| *ph == h).map(|&(_, p)| p).expect("persistent arguments kept");
        let r = task.req_mut(h).expect("found above");
        r.active = true;
        r.done_at = UNKNOWN;
        let bad = |m: Bad| SimError::bad_record(t, index, m);
        if p.send {
            if let Some(dst) = self.peer(t, p.comm, p.peer).map_err(bad)? {
                let a = SendArgs {
                    dst,
                    comm: p.comm,
                    tag: p.tag,
                    coll: false,
                    bytes: p.bytes,
                    mode: p.mode,
                    r: Ref::Req(h),
                    busy: 0,
                };
                return self.post_send(t, a, at);
            }
            self.complete(t, Ref::Req(h), at, at);
            return Ok(at);
        }
        let (peer, tag) = self.resolve_wildcard(t, p.peer, p.tag, req)?;
        match self.source(t, p.comm, peer).map_err(bad)? {
            Some(src) => {
                // Posted as an `MPI_Irecv` is (exec): the posting keeps the CPU.
                let at = at + self.m.irecv_overhead;
                self.post_recv(t, Posted { src, tag, comm: p.comm, coll: false, r: Ref::Req(h), at });
                Ok(at)
            }
            None => {
                self.complete(t, Ref::Req(h), at, at);
                Ok(at)
            }
        }
    }

    fn exec_probe(&mut self, t: u32, peer: i32, tag: i32, comm: u32, flags: u8, at: Ps) -> Result<Flow, Bad> {
        let found = flags & (ProbeFlags::BLOCKING | ProbeFlags::FOUND) != 0;
        let Some(src) = self.source(t, comm, peer)? else { return Ok(Flow::Done(at)) };
        if !found {
            // The traced Iprobe found nothing: it costs only its call time.
            return Ok(Flow::Done(at));
        }
        if let Some(when) = self.probe(t, (src, tag, comm), at) {
            return Ok(Flow::Done(when));
        }
        let task = &mut self.tasks[t as usize];
        task.probe = Some((src, tag, comm));
        task.state = State::Blocked;
        task.pending = 0;
        Ok(Flow::Blocked)
    }

    /// Wait/Test family: block until every request the trace says completed has completed.
    /// A request completed twice in one call, or never created (or already completed, or
    /// freed), cannot be replayed: consolidation refuses such a log too, so the trace was
    /// built by hand or by a buggy importer. Waiting on an inactive persistent request is
    /// legal MPI and returns at once.
    fn exec_wait(&mut self, t: u32, func: WaitFn, count: u32, at: Ps) -> Result<Flow, Bad> {
        let (burst_scale, node) = (&self.burst_scale, self.node[t as usize]);
        let task = &mut self.tasks[t as usize];
        // What completing a request the trace does not model costs: this call's traced
        // time, worked out only for a wait that completes one.
        let dur = task.rec.dur_ns;
        let measured = || at.saturating_add(scale_ns(dur, burst_scale, node));
        let list = std::mem::take(&mut task.rec.list);
        check_completions(func, count, &list)?;
        let mut hint = 0;
        for q in list.chunks_exact(4) {
            // Checked here, in the one pass over the list, rather than in check_completions.
            let Ok(id) = u32::try_from(q[0]) else { return Err(id_out_of_range(func, q[0])) };
            let found = task.live_req_index(id, hint);
            hint = found.map_or(0, |i| i + 1);
            match found.map(|i| &mut task.reqs[i]) {
                Some(r) if r.awaited => return Err(format!("request {id} is completed twice in one call")),
                Some(r) if r.active => {
                    r.awaited = true;
                    if r.kind.measured() {
                        r.done_at = r.done_at.max(measured());
                    }
                    task.awaits = true;
                }
                Some(_) => {}
                None => return Err(never_created("completes", id)),
            }
        }
        // With very many tasks, a completion list kept per blocked task adds up (a stencil's
        // Waitall holds 256 bytes): give it back and let the next record allocate its own.
        if !self.lean {
            task.rec.list = list;
        }
        Ok(self.block_on(t, at))
    }

    /// Blocks `t` on its awaited requests: done now (or at the latest known completion), or
    /// blocked until the unknown ones complete.
    pub(super) fn block_on(&mut self, t: u32, at: Ps) -> Flow {
        let task = &mut self.tasks[t as usize];
        let (mut pending, mut until, mut partner) = (0, at, task.partner_max);
        for r in task.reqs.iter().filter(|r| r.awaited) {
            if r.done_at == UNKNOWN {
                pending += 1;
            } else {
                until = until.max(r.done_at);
                partner = partner.max(r.partner_at);
            }
        }
        task.partner_max = partner;
        if pending == 0 {
            return Flow::Done(until);
        }
        task.state = State::Blocked;
        task.pending = pending;
        task.wait_until = until;
        Flow::Blocked
    }
}

/// `ns` of recorded time on `node`, scaled like a CPU burst (`burst_scale` empty: unscaled).
fn scale_ns(ns: u64, burst_scale: &[f64], node: u32) -> Ps {
    if burst_scale.is_empty() {
        ns.saturating_mul(PS_PER_NS)
    } else {
        (ns as f64 * burst_scale[node as usize]).round() as Ps
    }
}

/// The error for a record naming a request the task does not have.
fn never_created(verb: &str, id: u32) -> Bad {
    format!("{verb} request {id}, which this rank never created (or which already completed or was freed)")
}

/// A completion list's shape: whole `[req, source, tag, bytes]` quadruples, no more
/// completions than the call had requests, and at most one for the functions that complete
/// one (`Wait`, `Waitany`, `Test`, `Testany`). The request ids' range is checked as
/// [`Sim::exec_wait`] reads them: one pass over the list on the replay's path, not two.
#[inline]
fn check_completions(func: WaitFn, count: u32, list: &[i64]) -> Result<(), Bad> {
    let n = list.len() / 4;
    let single = matches!(func, WaitFn::Wait | WaitFn::Waitany | WaitFn::Test | WaitFn::Testany);
    if !list.len().is_multiple_of(4) || n > count as usize || (n > 1 && single) {
        return Err(bad_completions(func, count, list));
    }
    Ok(())
}

/// What [`check_completions`] found wrong.
#[cold]
fn bad_completions(func: WaitFn, count: u32, list: &[i64]) -> Bad {
    let name = format!("MPI_{}", func.name());
    let n = list.len() / 4;
    if !list.len().is_multiple_of(4) {
        format!(
            "{name}'s completion list has {} values, not whole [request, source, tag, bytes] quadruples",
            list.len()
        )
    } else if n > count as usize {
        format!("{name} lists {n} completions for a call over {count} requests")
    } else {
        format!("{name} lists {n} completions, but completes at most one request")
    }
}

/// A completion naming request id `id`, outside the trace's ids (u32).
#[cold]
fn id_out_of_range(func: WaitFn, id: i64) -> Bad {
    format!("MPI_{}'s completion names request id {id}, out of range", func.name())
}
