//! One task's records into TI actions, with psins-sim's semantics (docs/interop-simgrid.md):
//! CPU bursts and `Other` calls become `compute`, point-to-point calls their TI twins with
//! world ranks and context tags ([`super::tags`]), completions one `wait` per completed request,
//! and blocking collectives their expansion steps — the trace's own Step records, else the
//! steps psins-collectives generates for the trace's MPI library, as psins-sim replays them
//! in expanded mode.
//!
//! A task's actions are kept until its stream ends: an `MPI_Irecv` posted with a wildcard
//! learns its source and tag only at its completion, and a TI `irecv` must name them.

use super::tags::Tags;
use psins_collectives::{CollArgs, ExpandError, Library, Step, Thresholds};
pub use psins_formats::comms::{Bad, Comms};
use psins_formats::{CollFlags, Op, Record, SendMode, ANY_SOURCE, ANY_TAG};
use std::collections::HashMap;

/// One TI action of a task (peers are world ranks, tags TI tags).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Init,
    Finalize,
    /// CPU time in ns (the writer turns it into flops at the host's speed).
    Compute(u64),
    Send {
        peer: u32,
        tag: u32,
        bytes: u64,
        nonblocking: bool,
    },
    /// `peer`/`tag` are `None` until a wildcard receive's completion resolves them; `record` is
    /// the receive's record, for the error when it never does.
    Recv {
        peer: Option<u32>,
        tag: Option<u32>,
        bytes: u64,
        nonblocking: bool,
        record: u64,
    },
    /// Waits for the isend or irecv at this index of the task's actions.
    Wait(usize),
}

/// What an export approximated, counted over all tasks (printed as warnings).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Approximations {
    /// MPI_Ssend/Issend: TI has standard sends only.
    pub synchronous: u64,
    /// MPI_Bsend/Ibsend: exported as standard sends (rendezvous above the threshold).
    pub buffered: u64,
    /// Probes: TI has none; the receive that follows carries the message.
    pub probes: u64,
}

/// A request in flight.
#[derive(Clone, Copy)]
enum Live {
    /// Its isend/irecv action, and for a receive the communicator its completion's source is in.
    Posted(usize, u32),
    /// Posted to MPI_PROC_NULL: completes at once, nothing to wait for.
    Null,
}

/// A persistent request's arguments.
#[derive(Clone, Copy)]
struct Persistent {
    send: bool,
    mode: SendMode,
    peer: i32,
    tag: i32,
    bytes: u64,
    comm: u32,
}

/// A blocking collective whose steps may follow in the trace.
struct PendingColl {
    op: Op,
    list: Vec<i64>,
    record: u64,
    comm: u32,
    rank: u32,
    size: u32,
    instance: u32,
    traced_steps: bool,
}

pub struct TaskExport<'a> {
    rank: u32,
    comms: &'a Comms,
    tags: &'a mut Tags,
    thresholds: &'a Thresholds,
    library: Library,
    pub actions: Vec<Action>,
    /// Collectives expanded here (their steps were not in the trace).
    pub expanded: u64,
    burst: u64,
    live: HashMap<u32, Live>,
    persistent: HashMap<u32, Persistent>,
    coll: Option<PendingColl>,
    /// Isends/irecvs of the current expansion batch, waited for at its WaitAll.
    batch: Vec<usize>,
    steps: Vec<Step>,
    pub approx: Approximations,
}

impl<'a> TaskExport<'a> {
    pub fn new(
        rank: u32,
        comms: &'a Comms,
        tags: &'a mut Tags,
        thresholds: &'a Thresholds,
        library: Library,
    ) -> TaskExport<'a> {
        TaskExport {
            rank,
            comms,
            tags,
            thresholds,
            library,
            actions: Vec::new(),
            expanded: 0,
            burst: 0,
            live: HashMap::new(),
            persistent: HashMap::new(),
            coll: None,
            batch: Vec::new(),
            steps: Vec::new(),
            approx: Approximations::default(),
        }
    }

    /// Translates record `index`. An error is the message for that record.
    pub fn record(&mut self, rec: &Record, index: u64) -> Result<(), (u64, Bad)> {
        if let Op::Step { instance, .. } = rec.op {
            if let Some(c) = self.coll.as_mut().filter(|c| c.instance == instance) {
                c.traced_steps = true;
                let comm = c.comm;
                let step = Step::from_op(&rec.op).ok_or((index, "expansion step with a negative peer".into()))?;
                return self.step(comm, step).map_err(|m| (index, m));
            }
            return Err((
                index,
                format!("expansion step of collective instance {instance}, which is not the collective just called"),
            ));
        }
        self.end_coll()?;
        self.op(rec, index).map_err(|m| (index, m))
    }

    /// The stream has ended: the last collective's steps, and every receive resolved.
    pub fn finish(&mut self) -> Result<(), (u64, Bad)> {
        self.end_coll()?;
        self.flush_burst();
        for a in &self.actions {
            if let Action::Recv { peer: None, record, .. } | Action::Recv { tag: None, record, .. } = a {
                let msg = "a receive posted with a wildcard never completed, so its source is unknown: a TI irecv must name it";
                return Err((*record, msg.into()));
            }
        }
        Ok(())
    }

    fn op(&mut self, rec: &Record, index: u64) -> Result<(), Bad> {
        let refuse = |what: &str| Err(format!("{what} cannot be expressed in a SimGrid TI trace"));
        match rec.op {
            Op::Init { .. } => self.actions.push(Action::Init),
            Op::Finalize => {
                self.burst += rec.gap_ns;
                self.flush_burst();
                self.actions.push(Action::Finalize);
            }
            Op::Other { .. } => self.burst += rec.gap_ns + rec.dur_ns,
            // a request the trace does not model (MPI-IO, generalized requests, ...): computation
            // as `other`; its completion in a wait is no action
            Op::OtherReq { persistent: false, req, .. } => {
                self.burst += rec.gap_ns + rec.dur_ns;
                self.live.insert(req, Live::Null);
            }
            Op::OtherReq { persistent: true, .. } => {
                return refuse("a persistent collective or partitioned request (MPI_*_init, MPI_Psend_init, ...)")
            }
            // a run of unsuccessful polls: as its unfolded records, only their gaps count
            // (an unsuccessful test is nothing in TI; probes are counted as approximated)
            Op::Poll { func, calls, between_ns, .. } => {
                self.burst += rec.gap_ns + between_ns;
                if func.is_probe() {
                    self.approx.probes += calls;
                }
            }
            // MPI_Pcontrol has no TI action: its region marker is dropped
            Op::Pcontrol { .. } => self.burst += rec.gap_ns,
            Op::Abort { .. } => return refuse("MPI_Abort"),
            Op::Cancel { .. } => return refuse("MPI_Cancel"),
            Op::Rma { .. } | Op::WinSync { .. } | Op::WinCreate { .. } | Op::WinFree { .. } => {
                return refuse("one-sided communication")
            }
            Op::Step { .. } => unreachable!("handled by record()"),
            _ => {
                self.burst += rec.gap_ns;
                self.comm_op(rec, index)?;
            }
        }
        Ok(())
    }

    fn comm_op(&mut self, rec: &Record, index: u64) -> Result<(), Bad> {
        match rec.op {
            Op::Send { mode, peer, tag, bytes, comm } => {
                self.count_mode(mode);
                self.send(comm, peer, tag, bytes, false)?;
            }
            Op::Isend { mode, peer, tag, bytes, comm, req } => {
                self.count_mode(mode);
                let posted = self.send(comm, peer, tag, bytes, true)?;
                self.live.insert(req, posted.map_or(Live::Null, |a| Live::Posted(a, comm)));
            }
            Op::Recv { peer, tag, bytes, comm } => {
                if peer == ANY_SOURCE || tag == ANY_TAG {
                    return Err("blocking receive with an unresolved wildcard".into());
                }
                self.recv(comm, peer, tag, bytes, false, index)?;
            }
            Op::Irecv { peer, tag, bytes, comm, req } => {
                let posted = self.recv(comm, peer, tag, bytes, true, index)?;
                self.live.insert(req, posted.map_or(Live::Null, |a| Live::Posted(a, comm)));
            }
            Op::Sendrecv { peer, tag, bytes, src, rtag, rbytes, comm, .. } => {
                // psins-sim posts both halves at once and blocks on both, as MPICH does.
                let s = self.send(comm, peer, tag, bytes, true)?;
                let r = self.recv(comm, src, rtag, rbytes, true, index)?;
                self.actions.extend(s.into_iter().chain(r).map(Action::Wait));
            }
            Op::SendInit { mode, peer, tag, bytes, comm, req } => {
                self.persistent.insert(req, Persistent { send: true, mode, peer, tag, bytes, comm });
            }
            Op::RecvInit { peer, tag, bytes, comm, req } => {
                let mode = SendMode::Standard;
                self.persistent.insert(req, Persistent { send: false, mode, peer, tag, bytes, comm });
            }
            Op::Start { req } => self.start(req, index)?,
            Op::Startall => {
                for &req in &rec.list {
                    self.start(req as u32, index)?;
                }
            }
            Op::RequestFree { req } => {
                // An active request freed completes in the background; SMPI waits for it at the end.
                self.live.remove(&req);
                self.persistent.remove(&req);
            }
            Op::Probe { .. } => self.approx.probes += 1,
            Op::Wait { .. } => {
                for q in rec.list.chunks_exact(4) {
                    self.complete(q[0] as u32, q[1], q[2], q[3])?;
                }
            }
            Op::Coll { comm, flags, instance, .. } => {
                if flags & CollFlags::NONBLOCKING != 0 {
                    return Err(
                        "nonblocking collectives cannot be expressed in a SimGrid TI trace (it has no schedules)"
                            .into(),
                    );
                }
                let (rank, size) = self.comms.member(self.rank, comm)?;
                self.flush_burst();
                let (op, list) = (rec.op, rec.list.clone());
                self.coll =
                    Some(PendingColl { op, list, record: index, comm, rank, size, instance, traced_steps: false });
            }
            Op::CommCreate { .. } | Op::CommFree { .. } => {}
            _ => unreachable!("handled by op()"),
        }
        Ok(())
    }

    fn count_mode(&mut self, mode: SendMode) {
        match mode {
            SendMode::Synchronous => self.approx.synchronous += 1,
            SendMode::Buffered => self.approx.buffered += 1,
            SendMode::Standard | SendMode::Ready => {}
        }
    }

    fn start(&mut self, req: u32, index: u64) -> Result<(), Bad> {
        let p = *self.persistent.get(&req).ok_or_else(|| format!("starts request {req}, which is not persistent"))?;
        let posted = if p.send {
            self.count_mode(p.mode);
            self.send(p.comm, p.peer, p.tag, p.bytes, true)?
        } else {
            self.recv(p.comm, p.peer, p.tag, p.bytes, true, index)?
        };
        self.live.insert(req, posted.map_or(Live::Null, |a| Live::Posted(a, p.comm)));
        Ok(())
    }

    /// Request `req` completed with (source, tag, bytes) as the trace records them.
    fn complete(&mut self, req: u32, source: i64, tag: i64, bytes: i64) -> Result<(), Bad> {
        let live = self.live.remove(&req).ok_or_else(|| format!("completes request {req}, which is not in flight"))?;
        let Live::Posted(at, comm) = live else { return Ok(()) };
        if let Action::Recv { peer, tag: t, bytes: b, .. } = &mut self.actions[at] {
            if peer.is_none() {
                let src = i32::try_from(source).map_err(|_| format!("completion source {source} out of range"))?;
                *peer = Some(self.comms.peer(self.rank, comm, src)?.ok_or("a wildcard receive matched MPI_PROC_NULL")?);
            }
            if t.is_none() {
                let tag = i32::try_from(tag).map_err(|_| format!("completion tag {tag} out of range"))?;
                *t = Some(self.tags.p2p(comm, tag).map_err(|e| e.to_string())?);
            }
            if bytes >= 0 {
                *b = bytes as u64;
            }
        }
        self.flush_burst();
        self.actions.push(Action::Wait(at));
        Ok(())
    }

    /// Adds a send; its action's index, or None to MPI_PROC_NULL.
    fn send(&mut self, comm: u32, peer: i32, tag: i32, bytes: u64, nonblocking: bool) -> Result<Option<usize>, Bad> {
        let Some(peer) = self.comms.peer(self.rank, comm, peer)? else { return Ok(None) };
        let tag = self.tags.p2p(comm, tag).map_err(|e| e.to_string())?;
        Ok(Some(self.push(Action::Send { peer, tag, bytes, nonblocking })))
    }

    fn recv(
        &mut self,
        comm: u32,
        peer: i32,
        tag: i32,
        bytes: u64,
        nb: bool,
        record: u64,
    ) -> Result<Option<usize>, Bad> {
        let peer = match peer {
            ANY_SOURCE => None,
            p => match self.comms.peer(self.rank, comm, p)? {
                None => return Ok(None),
                w => w,
            },
        };
        let tag = if tag == ANY_TAG { None } else { Some(self.tags.p2p(comm, tag).map_err(|e| e.to_string())?) };
        Ok(Some(self.push(Action::Recv { peer, tag, bytes, nonblocking: nb, record })))
    }

    fn push(&mut self, a: Action) -> usize {
        self.flush_burst();
        self.actions.push(a);
        self.actions.len() - 1
    }

    /// Ends the CPU burst before an action; bursts with no action between them (e.g. around
    /// a collective on a communicator of one) are one `compute`.
    fn flush_burst(&mut self) {
        if self.burst > 0 {
            match self.actions.last_mut() {
                Some(Action::Compute(ns)) => *ns += self.burst,
                _ => self.actions.push(Action::Compute(self.burst)),
            }
            self.burst = 0;
        }
    }

    /// One expansion step on communicator `comm` (peers comm-local).
    fn step(&mut self, comm: u32, step: Step) -> Result<(), Bad> {
        let tag = self.tags.coll(comm).map_err(|e| e.to_string())?;
        let world_of =
            |p: u32| self.comms.peer(self.rank, comm, p as i32)?.ok_or_else(|| "step to MPI_PROC_NULL".to_string());
        match step {
            Step::Send { peer, bytes } => {
                let peer = world_of(peer)?;
                self.push(Action::Send { peer, tag, bytes, nonblocking: false });
            }
            Step::Recv { peer, bytes } => {
                let peer = Some(world_of(peer)?);
                self.push(Action::Recv { peer, tag: Some(tag), bytes, nonblocking: false, record: 0 });
            }
            Step::SendRecv { send_peer, send_bytes, recv_peer, recv_bytes } => {
                let (sp, rp) = (world_of(send_peer)?, Some(world_of(recv_peer)?));
                let s = self.push(Action::Send { peer: sp, tag, bytes: send_bytes, nonblocking: true });
                let r = self.push(Action::Recv {
                    peer: rp,
                    tag: Some(tag),
                    bytes: recv_bytes,
                    nonblocking: true,
                    record: 0,
                });
                self.actions.extend([Action::Wait(s), Action::Wait(r)]);
            }
            Step::ISend { peer, bytes } => {
                let peer = world_of(peer)?;
                let a = self.push(Action::Send { peer, tag, bytes, nonblocking: true });
                self.batch.push(a);
            }
            Step::IRecv { peer, bytes } => {
                let peer = Some(world_of(peer)?);
                let a = self.push(Action::Recv { peer, tag: Some(tag), bytes, nonblocking: true, record: 0 });
                self.batch.push(a);
            }
            Step::WaitAll => self.end_batch(),
        }
        Ok(())
    }

    fn end_batch(&mut self) {
        let batch = std::mem::take(&mut self.batch);
        self.actions.extend(batch.into_iter().map(Action::Wait));
    }

    /// Ends the pending collective: its steps were in the trace, or are generated now.
    fn end_coll(&mut self) -> Result<(), (u64, Bad)> {
        let Some(c) = self.coll.take() else { return Ok(()) };
        if !c.traced_steps && c.size > 1 {
            let counts: Vec<u64> = c.list.iter().map(|&v| v.max(0) as u64).collect();
            let args = CollArgs::from_op(&c.op, c.size, c.rank, &counts).expect("a Coll record");
            let mut steps = std::mem::take(&mut self.steps);
            steps.clear();
            self.expanded += 1;
            match self.library.expand(&args, self.thresholds, &mut steps) {
                Ok(_) => {}
                Err(ExpandError::Unsupported { .. }) => {
                    let msg = format!("{} has no expansion (its topology is not in the trace)", args.coll.name());
                    return Err((c.record, msg));
                }
                Err(e) => return Err((c.record, format!("cannot expand {}: {e}", args.coll.name()))),
            }
            for &s in &steps {
                self.step(c.comm, s).map_err(|m| (c.record, m))?;
            }
            self.steps = steps;
        }
        // psins-sim waits for a batch the trace left open at the end of the steps.
        self.end_batch();
        Ok(())
    }
}
