//! One-sided communication (MPI RMA). Every operation moves its bytes through the network
//! model as messages of its own (the same inject/delivery path as point-to-point data), and
//! every synchronisation call waits for what MPI says it waits for. docs/simulator.md
//! ("One-sided communication") has the rules and formulas; in short, with L0 the path's
//! control latency and o_s / o_r its sender and receiver overheads:
//! - put, accumulate: data origin → target leaves at t + o_s(bytes); the operation is
//!   complete at the origin one L0 after the data is at the target (the acknowledgement);
//! - get: the request reaches the target at t + o_s(0) + L0, the data goes target → origin
//!   from then; complete at its delivery + o_r;
//! - get_accumulate, fetch_and_op, compare_and_swap: the origin's data goes out as a put's,
//!   the result comes back from the moment it arrived; complete at that delivery + o_r.
//!   The call itself returns after o_s (the operation is nonblocking until a synchronisation).
//! - fence: each member waits for its own operations, then all members meet as in a barrier
//!   (the model's barrier time after the last arrival);
//! - post → start: start waits until every target's post has reached it (post time + L0);
//!   complete waits for the origin's operations, then tells each target (one L0); wait waits
//!   for the completes of every origin of its post; test, when it returned true, is a wait;
//! - lock: the request reaches the target one L0 later, is granted when the lock is free
//!   (exclusive: no other holder; shared: no exclusive holder), and the grant takes one L0
//!   back; unlock waits for the origin's operations to that target, then frees the lock;
//! - flush (all, local, local_all) and unlock_all wait for the origin's operations (all, or
//!   to the one target); lock_all and sync return at once.
//!
//! Each synchronisation call is a request of its task, completed by a [`Gate`] once the
//! operations and notifications it needs are known.

use super::p2p::{Msg, Proto};
use super::queue::Ev;
use super::task::{Ref, ReqKind, BLOCKING_REQ, UNKNOWN};
use super::{Flow, Sim};
use crate::error::{Result, SimError};
use crate::model::algorithm::{MemberArgs, Members, Placement};
use crate::model::{CollCall, MsgId};
use crate::source::TraceSource;
use crate::units::Ps;
use psins_formats::comms::WinReach;
use psins_formats::{Coll, Op, RmaFn, WinFlags, WinSyncFn, NO_RANK, NO_REQUEST, PROC_NULL};
use std::collections::HashMap;
use std::collections::VecDeque;

/// Tag of RMA data messages: engine/p2p.rs hands their delivery to [`Sim::rma_delivered`].
/// Their `comm` field holds the operation's slot (they never match receives).
pub const RMA_TAG: i32 = i32::MIN;

/// Why a one-sided record cannot be replayed: a window or rank it names.
#[derive(Debug, thiserror::Error)]
pub enum RmaError {
    #[error("operation on window {win}, which was never created")]
    NoWindow { win: u32 },
    #[error("{}", .reach.outside("target", *.target))]
    Outside { reach: WinReach, target: i32 },
    #[error("group member {member} is not a rank of the job")]
    NotInJob { member: i64 },
}

/// One operation in flight or waiting to be gathered by a synchronisation.
struct RmaOp {
    origin: u32,
    target: u32,
    /// Bytes of the answer target → origin still to be sent when the outbound data lands.
    back: u64,
    /// Whether the outbound message is still in flight (for the fetching kinds).
    outbound: bool,
    done: Ps,
    /// Request handle of an R-form.
    req: Option<u32>,
    /// The gate waiting for it, once a synchronisation gathered it.
    gate: Option<usize>,
    gathered: bool,
}

/// What a resolved gate does besides (or instead of) completing its request.
#[derive(Clone)]
enum Then {
    Return,
    /// PSCW complete: tell these targets (world ranks).
    Notify(u32, Vec<u32>),
    /// Unlock of (window, target).
    Release(u32, u32),
    /// Arrive at the window's fence.
    Fence(u32),
}

/// A synchronisation call waiting for `missing` events; `at` is the latest known time.
struct Gate {
    task: u32,
    handle: u32,
    missing: u32,
    at: Ps,
    then: Then,
}

#[derive(Default)]
struct Lock {
    holders: u32,
    exclusive: bool,
    free_at: Ps,
    /// (task, request handle, exclusive, arrival of the request at the target).
    queue: VecDeque<(u32, u32, bool, Ps)>,
}

struct Win {
    /// World ranks of the window's communicator, in its rank order.
    members: Vec<u32>,
    comm: u32,
    /// Per origin: operations not yet gathered by a synchronisation.
    open: HashMap<u32, Vec<usize>>,
    locks: HashMap<u32, Lock>,
    fence_arrived: u32,
    fence_last: Ps,
    fence_waiters: Vec<(u32, u32)>,
    /// (target, origin) → arrival times at the origin of posts not yet consumed by a start.
    posts: HashMap<(u32, u32), VecDeque<Ps>>,
    /// (origin, target) → arrival times at the target of completes not yet consumed by a wait.
    completes: HashMap<(u32, u32), VecDeque<Ps>>,
    /// Per origin, the targets of its current access epoch (its last start).
    access: HashMap<u32, Vec<u32>>,
    /// Per target, the origins of its current exposure epoch (its last post).
    exposure: HashMap<u32, Vec<u32>>,
    /// Gates of starts (origin, gate, targets still missing) and waits (target, gate, origins).
    starting: Vec<(u32, usize, Vec<u32>)>,
    waiting: Vec<(u32, usize, Vec<u32>)>,
}

/// The RMA state of a replay.
#[derive(Default)]
pub struct Rma {
    wins: HashMap<u32, Win>,
    ops: Vec<RmaOp>,
    free_ops: Vec<usize>,
    gates: Vec<Option<Gate>>,
    free_gates: Vec<usize>,
}

impl<S: TraceSource> Sim<'_, S> {
    /// Executes a one-sided record (Rma, WinSync, WinCreate, WinFree) of task `t` at `at`.
    pub(super) fn exec_rma(&mut self, t: u32, at: Ps) -> Result<Flow> {
        let rec = &self.tasks[t as usize].rec;
        let (op, index) = (rec.op, self.tasks[t as usize].index);
        let bad = |m: String| SimError::bad_record(t, index, m);
        match op {
            Op::WinCreate { comm, win, .. } => {
                if !self.comms.known(comm) {
                    return Err(bad(format!("window {win} over unknown communicator {comm}")));
                }
                let m = self.comms.members(comm, t);
                let members = (0..m.len()).map(|i| m.get(i)).collect();
                self.rma.wins.entry(win).or_insert_with(|| Win::new(comm, members));
                Ok(Flow::Done(at))
            }
            Op::WinFree { .. } => Ok(Flow::Done(at)),
            Op::Rma { func, target, win, bytes, rbytes, req } => {
                if target == PROC_NULL {
                    if req == NO_REQUEST {
                        return Ok(Flow::Done(at));
                    }
                    let task = &mut self.tasks[t as usize];
                    let h = task.create_req(req, ReqKind::Send).map_err(|e| bad(e.to_string()))?;
                    self.complete(t, Ref::Req(h), at, at);
                    return Ok(Flow::Done(at));
                }
                let x = self.target(win, target).map_err(|e| bad(e.to_string()))?;
                Ok(Flow::Done(self.issue(t, x, win, func, bytes, rbytes, req, at)?))
            }
            Op::WinSync { func, win, rank, flags } => {
                if !self.rma.wins.contains_key(&win) {
                    return Err(bad(format!("synchronisation on window {win}, which this task never created")));
                }
                let task = &mut self.tasks[t as usize];
                let h = task.add_req(BLOCKING_REQ, ReqKind::Coll);
                task.await_req(h);
                let list = std::mem::take(&mut self.tasks[t as usize].rec.list);
                let r = self.sync(t, h, func, win, rank, flags, &list, at);
                self.tasks[t as usize].rec.list = list;
                r.map_err(|e| bad(e.to_string()))?;
                Ok(self.block_on(t, at))
            }
            _ => unreachable!("exec_rma on a one-sided record"),
        }
    }

    /// World rank of `target`, a rank of window `win`'s communicator.
    fn target(&self, win: u32, target: i32) -> std::result::Result<u32, RmaError> {
        let w = self.rma.wins.get(&win).ok_or(RmaError::NoWindow { win })?;
        let reach = WinReach { win, size: w.members.len() as u32 };
        usize::try_from(target).ok().and_then(|i| w.members.get(i).copied()).ok_or(RmaError::Outside { reach, target })
    }

    /// The link between two world ranks (the engine's one rule, `Route::of`).
    fn rma_link(&self, a: u32, b: u32) -> &psins_machine::Link {
        self.m.link(psins_machine::Route::of(a, b, self.node[a as usize], self.node[b as usize]))
    }

    /// Starts operation `func` from `o` to world rank `x`; returns when the origin's CPU is free.
    #[allow(clippy::too_many_arguments)]
    fn issue(
        &mut self,
        o: u32,
        x: u32,
        win: u32,
        func: RmaFn,
        bytes: u64,
        rbytes: u64,
        req: u32,
        at: Ps,
    ) -> Result<Ps> {
        let intra = self.node[o as usize] == self.node[x as usize];
        if bytes.max(rbytes) > if intra { self.max_intra_bytes } else { self.max_msg_bytes } {
            return Err(self.refuse_message(o, x, bytes.max(rbytes)));
        }
        let task = &mut self.tasks[o as usize];
        let req = match req {
            NO_REQUEST => None,
            id => Some(
                task.create_req(id, ReqKind::Send).map_err(|e| SimError::bad_record(o, task.index, e.to_string()))?,
            ),
        };
        self.stats.rma_ops += 1;
        let get = func == RmaFn::Get;
        let (back, outbound) = match func {
            RmaFn::Put | RmaFn::Accumulate => (0, true),
            RmaFn::Get => (0, false),
            _ => (rbytes, true),
        };
        let slot = self.new_op(RmaOp {
            origin: o,
            target: x,
            back,
            outbound,
            done: UNKNOWN,
            req,
            gate: None,
            gathered: false,
        });
        self.rma.wins.get_mut(&win).expect("checked by the caller").open.entry(o).or_default().push(slot);
        let link = self.rma_link(o, x);
        let (l0, free) = (link.latency, at + link.send_overhead(if get { 0 } else { bytes }));
        if get {
            // the request travels as a control message; the data comes back
            self.rma_send(slot, x, o, rbytes, free + l0);
        } else {
            self.rma_send(slot, o, x, bytes, free);
        }
        Ok(free)
    }

    fn new_op(&mut self, op: RmaOp) -> usize {
        match self.rma.free_ops.pop() {
            Some(i) => {
                self.rma.ops[i] = op;
                i
            }
            None => {
                self.rma.ops.push(op);
                self.rma.ops.len() - 1
            }
        }
    }

    /// Sends `bytes` of operation `slot` from `src` to `dst`, leaving at `ready`.
    fn rma_send(&mut self, slot: usize, src: u32, dst: u32, bytes: u64, ready: Ps) {
        let link = self.rma_link(src, dst);
        let msg = Msg {
            src,
            dst,
            comm: slot as u32,
            tag: RMA_TAG,
            coll: false,
            bytes,
            proto: Proto::Eager,
            sent_at: ready,
            ready_at: ready,
            l0: link.latency,
            o_r: link.recv_overhead(bytes),
            send_ref: Ref::None,
            recv_ref: Ref::None,
            matched_at: UNKNOWN,
            data_at: UNKNOWN,
            delivered_at: UNKNOWN,
        };
        let id = self.msgs.alloc(msg);
        if ready <= self.now {
            self.inject(id, self.now);
        } else {
            self.q.push(ready, Ev::Inject(id));
        }
    }

    /// The last byte of RMA message `id` arrived at `at` (called by `on_delivered`).
    pub(super) fn rma_delivered(&mut self, id: MsgId, at: Ps) {
        let m = *self.msgs.get(id);
        self.msgs.release(id);
        self.stats.rma_bytes += m.bytes as u128;
        let slot = m.comm as usize;
        let op = &mut self.rma.ops[slot];
        if op.outbound && op.back > 0 {
            // the fetching kinds: the answer leaves the target as the data lands
            op.outbound = false;
            let (src, dst, back) = (op.target, op.origin, op.back);
            op.back = 0;
            self.rma_send(slot, src, dst, back, at);
            return;
        }
        // A message towards the target (put, accumulate) is acknowledged; one towards the
        // origin (a get's data, an answer) is received.
        let done = if m.dst == op.target && op.outbound { at + m.l0 } else { at + m.o_r };
        self.op_done(slot, done);
    }

    fn op_done(&mut self, slot: usize, done: Ps) {
        let op = &mut self.rma.ops[slot];
        op.done = done;
        let (origin, req, gate, gathered) = (op.origin, op.req, op.gate, op.gathered);
        if let Some(h) = req {
            self.complete(origin, Ref::Req(h), done, done);
        }
        if gathered {
            self.rma.free_ops.push(slot);
        }
        if let Some(g) = gate {
            self.feed(g, done);
        }
    }

    /// One event gate `g` waited for happened at `at`.
    fn feed(&mut self, g: usize, at: Ps) {
        let gate = self.rma.gates[g].as_mut().expect("a live gate");
        gate.at = gate.at.max(at);
        gate.missing -= 1;
        if gate.missing == 0 {
            self.resolve(g);
        }
    }

    /// A gate for `t`'s call (request `h`) that waits for `ops` (gathering them) and
    /// `extra` other events.
    fn gate(&mut self, t: u32, h: u32, ops: Vec<usize>, extra: u32, at: Ps, then: Then) -> usize {
        let g = self.rma.free_gates.pop().unwrap_or_else(|| {
            self.rma.gates.push(None);
            self.rma.gates.len() - 1
        });
        let mut gate = Gate { task: t, handle: h, missing: extra + 1, at, then };
        for slot in ops {
            let op = &mut self.rma.ops[slot];
            op.gathered = true;
            if op.done == UNKNOWN {
                op.gate = Some(g);
                gate.missing += 1;
            } else {
                gate.at = gate.at.max(op.done);
                self.rma.free_ops.push(slot);
            }
        }
        self.rma.gates[g] = Some(gate);
        // the `+ 1` above keeps the gate open until it is registered everywhere
        g
    }

    fn resolve(&mut self, g: usize) {
        let gate = self.rma.gates[g].take().expect("a live gate");
        self.rma.free_gates.push(g);
        let (t, h, at) = (gate.task, gate.handle, gate.at);
        match gate.then {
            Then::Return => self.complete(t, Ref::Req(h), at, at),
            Then::Notify(win, targets) => {
                self.complete(t, Ref::Req(h), at, at);
                for x in targets {
                    let when = at + self.rma_link(t, x).latency;
                    self.notify(win, t, x, when, false);
                }
            }
            Then::Release(win, x) => {
                self.complete(t, Ref::Req(h), at, at);
                self.release(win, x, at);
            }
            Then::Fence(win) => self.fence_arrive(win, t, h, at),
        }
    }

    /// Operations of `t` on `win` not gathered yet (to `to` only, if given).
    fn take_open(&mut self, t: u32, win: u32, to: Option<u32>) -> Vec<usize> {
        let w = self.rma.wins.get_mut(&win).expect("checked by the caller");
        let Some(open) = w.open.get_mut(&t) else { return Vec::new() };
        match to {
            None => std::mem::take(open),
            Some(x) => {
                let ops = &self.rma.ops;
                let (mine, rest): (Vec<usize>, Vec<usize>) = open.iter().partition(|&&s| ops[s].target == x);
                *open = rest;
                mine
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn sync(
        &mut self,
        t: u32,
        h: u32,
        func: WinSyncFn,
        win: u32,
        rank: i32,
        flags: u8,
        list: &[i64],
        at: Ps,
    ) -> std::result::Result<(), RmaError> {
        use WinSyncFn::*;
        let one = |s: &Self| -> std::result::Result<u32, RmaError> { s.target(win, rank) };
        let group = |s: &Self| -> std::result::Result<Vec<u32>, RmaError> {
            let n = s.tasks.len() as i64;
            list.iter()
                .map(|&w| if (0..n).contains(&w) { Ok(w as u32) } else { Err(RmaError::NotInJob { member: w }) })
                .collect()
        };
        let g = match func {
            Sync | LockAll => self.gate(t, h, Vec::new(), 0, at, Then::Return),
            Test if flags & WinFlags::DONE == 0 => self.gate(t, h, Vec::new(), 0, at, Then::Return),
            Flush | FlushLocal => {
                let x = one(self)?;
                let ops = self.take_open(t, win, Some(x));
                self.gate(t, h, ops, 0, at, Then::Return)
            }
            FlushAll | FlushLocalAll | UnlockAll => {
                let ops = self.take_open(t, win, None);
                self.gate(t, h, ops, 0, at, Then::Return)
            }
            Unlock => {
                let x = one(self)?;
                let ops = self.take_open(t, win, Some(x));
                self.gate(t, h, ops, 0, at, Then::Release(win, x))
            }
            Fence => {
                let ops = self.take_open(t, win, None);
                self.gate(t, h, ops, 0, at, Then::Fence(win))
            }
            Complete => {
                let ops = self.take_open(t, win, None);
                let targets = self.rma.wins[&win].access.get(&t).cloned().unwrap_or_default();
                self.gate(t, h, ops, 0, at, Then::Notify(win, targets))
            }
            Lock => {
                let x = one(self)?;
                let l0 = self.rma_link(t, x).latency;
                let g = self.gate(t, h, Vec::new(), 1, at, Then::Return);
                let lock = self.rma.wins.get_mut(&win).expect("checked").locks.entry(x).or_default();
                lock.queue.push_back((t, g as u32, flags & WinFlags::EXCLUSIVE != 0, at + l0));
                self.grant(win, x);
                g
            }
            Post => {
                let origins = group(self)?;
                for &o in &origins {
                    let when = at + self.rma_link(t, o).latency;
                    self.notify(win, t, o, when, true);
                }
                self.rma.wins.get_mut(&win).expect("checked").exposure.insert(t, origins);
                self.gate(t, h, Vec::new(), 0, at, Then::Return)
            }
            Start => {
                let targets = group(self)?;
                let w = self.rma.wins.get_mut(&win).expect("checked");
                w.access.insert(t, targets.clone());
                let mut missing = Vec::new();
                let mut last = at;
                for &x in &targets {
                    match w.posts.get_mut(&(x, t)).and_then(|q| q.pop_front()) {
                        Some(p) => last = last.max(p),
                        None => missing.push(x),
                    }
                }
                let g = self.gate(t, h, Vec::new(), missing.len() as u32, last, Then::Return);
                if !missing.is_empty() {
                    self.rma.wins.get_mut(&win).expect("checked").starting.push((t, g, missing));
                }
                g
            }
            Wait | Test => {
                let w = self.rma.wins.get_mut(&win).expect("checked");
                let origins = w.exposure.remove(&t).unwrap_or_default();
                let mut missing = Vec::new();
                let mut last = at;
                for &o in &origins {
                    match w.completes.get_mut(&(o, t)).and_then(|q| q.pop_front()) {
                        Some(c) => last = last.max(c),
                        None => missing.push(o),
                    }
                }
                let g = self.gate(t, h, Vec::new(), missing.len() as u32, last, Then::Return);
                if !missing.is_empty() {
                    self.rma.wins.get_mut(&win).expect("checked").waiting.push((t, g, missing));
                }
                g
            }
        };
        // release the registration hold taken by `gate`
        self.feed(g, at);
        Ok(())
    }

    /// A post (from target `a` to origin `b`) or a complete (from origin `a` to target `b`)
    /// notification arrives at `when`: feed the start or wait gate expecting it, or keep it.
    fn notify(&mut self, win: u32, a: u32, b: u32, when: Ps, post: bool) {
        let w = self.rma.wins.get_mut(&win).expect("a known window");
        let waiters = if post { &mut w.starting } else { &mut w.waiting };
        let hit = waiters.iter_mut().enumerate().find_map(|(i, (who, g, missing))| {
            let at = missing.iter().position(|&m| m == a).filter(|_| *who == b)?;
            missing.swap_remove(at);
            Some((i, *g, missing.is_empty()))
        });
        match hit {
            Some((i, g, empty)) => {
                if empty {
                    waiters.swap_remove(i);
                }
                self.feed(g, when);
            }
            None => {
                let q = if post { w.posts.entry((a, b)) } else { w.completes.entry((a, b)) };
                q.or_default().push_back(when);
            }
        }
    }

    /// Grants (window, target)'s lock to the waiters at the head of its queue that fit.
    fn grant(&mut self, win: u32, x: u32) {
        loop {
            let lock = self.rma.wins.get_mut(&win).expect("a known window").locks.get_mut(&x).expect("a lock");
            let Some(&(o, g, excl, arrive)) = lock.queue.front() else { return };
            let fits = lock.holders == 0 || (!excl && !lock.exclusive);
            if !fits {
                return;
            }
            lock.queue.pop_front();
            let granted = if lock.holders == 0 { arrive.max(lock.free_at) } else { arrive };
            lock.holders += 1;
            lock.exclusive = excl;
            let back = self.rma_link(x, o).latency;
            self.feed(g as usize, granted + back);
        }
    }

    /// `win`'s lock at target `x` is released at `at`.
    fn release(&mut self, win: u32, x: u32, at: Ps) {
        let lock = self.rma.wins.get_mut(&win).expect("a known window").locks.entry(x).or_default();
        lock.holders = lock.holders.saturating_sub(1);
        lock.free_at = lock.free_at.max(at);
        if lock.holders == 0 {
            lock.exclusive = false;
            self.grant(win, x);
        }
    }

    /// Task `t` (request `h`) reaches `win`'s fence at `at`, its own operations complete.
    fn fence_arrive(&mut self, win: u32, t: u32, h: u32, at: Ps) {
        let w = self.rma.wins.get_mut(&win).expect("a known window");
        w.fence_arrived += 1;
        w.fence_last = w.fence_last.max(at);
        w.fence_waiters.push((t, h));
        if (w.fence_arrived as usize) < w.members.len() {
            return;
        }
        let (last, waiters, comm) = (w.fence_last, std::mem::take(&mut w.fence_waiters), w.comm);
        let nodes: Vec<u32> = w.members.iter().map(|&m| self.node[m as usize]).collect();
        let (size, single_node) = (nodes.len() as u32, nodes.iter().all(|&n| n == nodes[0]));
        // the barrier costs what an MPI_Barrier on the window's communicator would
        let algorithm = match self.m.explicit_shape(Coll::Barrier) {
            Some(_) => None,
            None => {
                let barrier = Op::Coll {
                    coll: Coll::Barrier,
                    comm: 0,
                    root: NO_RANK,
                    send_bytes: 0,
                    recv_bytes: 0,
                    count: 0,
                    flags: 0,
                    req: NO_REQUEST,
                    instance: 0,
                };
                let mut members = Members::default();
                members.add(Coll::Barrier, 0, MemberArgs::from_record(&barrier, &[]));
                // a barrier has no arguments that could make its algorithm fail; if it did,
                // the model's shape applies
                let placement = Placement::of(comm, nodes);
                self.algo
                    .cost(self.m, (self.library, &self.thresholds), Coll::Barrier, size, &placement, &members)
                    .ok()
                    .flatten()
            }
        };
        let call = CollCall { coll: Coll::Barrier, participants: size, bytes: 0, single_node, start: last, algorithm };
        let w = self.rma.wins.get_mut(&win).expect("a known window");
        w.fence_arrived = 0;
        w.fence_last = 0;
        let end = last + self.model.collective(&call);
        for (wt, wh) in waiters {
            self.complete(wt, Ref::Req(wh), end, last);
        }
    }
}

impl Win {
    fn new(comm: u32, members: Vec<u32>) -> Win {
        Win {
            members,
            comm,
            open: HashMap::new(),
            locks: HashMap::new(),
            fence_arrived: 0,
            fence_last: 0,
            fence_waiters: Vec::new(),
            posts: HashMap::new(),
            completes: HashMap::new(),
            access: HashMap::new(),
            exposure: HashMap::new(),
            starting: Vec::new(),
            waiting: Vec::new(),
        }
    }
}
