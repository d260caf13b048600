//! Point-to-point semantics: protocols, matching, delivery, request completion.
//!
//! Matching happens when a send is posted (its envelope joins the receiver's queue at that
//! simulated time) or when a receive is posted, whichever is later; queues are scanned in
//! order, so matching is FIFO and non-overtaking per (communicator, source, tag).
//!
//! The path is [`Route::of`]'s: the `[self]` link for a message to the sender itself, the
//! `[intra]` link inside a node, else the network.
//!
//! Protocols, with L0 the path's control latency, o_s and o_r the path's sender and receiver
//! overheads for the message's size (psins-machine, link.rs), t_s the send posted:
//! - eager (standard/ready sends up to the threshold, buffered sends): data leaves at
//!   t_s + o_s, the send completes then, the receive completes at
//!   max(delivery, receive posted) + o_r;
//! - synchronous eager (synchronous sends up to the threshold): as eager, but the send
//!   completes one L0 after the receive (the receiver's acknowledgement);
//! - rendezvous (above the threshold): data leaves at max(t_s + o_s + L0, receive posted) + L0
//!   (request-to-send, clear-to-send; without the handshake: max(t_s + o_s, receive)), the
//!   send completes at delivery, the receive at delivery + o_r.
//!
//! The sending call itself is busy until t_s + o_s ([`Sim::post_send`] returns that time).

use super::task::{Posted, Ref, ANY, UNKNOWN};
use super::{Ev, Sim};
use crate::error::{Result, SimError};
use crate::model::{MsgId, NetCtx, NetMsg};
use crate::source::TraceSource;
use crate::units::Ps;
use psins_formats::SendMode;
use psins_machine::Route;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proto {
    Eager,
    SyncEager,
    Rendezvous,
}

#[derive(Clone, Copy, Debug)]
pub struct Msg {
    pub src: u32,
    pub dst: u32,
    pub comm: u32,
    pub tag: i32,
    pub coll: bool,
    pub bytes: u64,
    pub proto: Proto,
    pub sent_at: Ps,
    /// t_s + o_s: when the data (eager) or the request-to-send (rendezvous) can leave.
    pub ready_at: Ps,
    /// Control-message latency of the path (handshakes, acknowledgements).
    pub l0: Ps,
    /// o_r: the receiver's overhead once the data is there.
    pub o_r: Ps,
    pub send_ref: Ref,
    pub recv_ref: Ref,
    /// When the matching receive was posted (UNKNOWN until matched).
    pub matched_at: Ps,
    pub data_at: Ps,
    pub delivered_at: Ps,
}

/// Messages in flight, in a slab so that ids stay small and memory is reused.
#[derive(Default)]
pub struct Msgs {
    v: Vec<Msg>,
    free: Vec<MsgId>,
    pub live: usize,
    pub peak: usize,
}

impl Msgs {
    pub(super) fn alloc(&mut self, m: Msg) -> MsgId {
        self.live += 1;
        self.peak = self.peak.max(self.live);
        match self.free.pop() {
            Some(id) => {
                self.v[id as usize] = m;
                id
            }
            None => {
                self.v.push(m);
                (self.v.len() - 1) as MsgId
            }
        }
    }
    pub(super) fn release(&mut self, id: MsgId) {
        self.live -= 1;
        self.free.push(id);
    }
    #[inline]
    pub fn get(&self, id: MsgId) -> &Msg {
        &self.v[id as usize]
    }
    #[inline]
    fn get_mut(&mut self, id: MsgId) -> &mut Msg {
        &mut self.v[id as usize]
    }
}

/// A send about to be posted.
pub struct SendArgs {
    pub dst: u32,
    pub comm: u32,
    pub tag: i32,
    pub coll: bool,
    pub bytes: u64,
    pub mode: SendMode,
    pub r: Ref,
    /// The sending CPU is busy until then with the sends posted before this one in a
    /// collective's batch (MPICH posts them one `MPIC_Isend` after another, each taking its
    /// o_s of CPU), so the send is posted then; 0 for every other send (posted now).
    pub busy: Ps,
}

#[inline]
fn fits(p: &Posted, m: &Msg) -> bool {
    p.comm == m.comm && p.coll == m.coll && (p.src == ANY || p.src == m.src as i32) && (p.tag == ANY || p.tag == m.tag)
}

impl<S: TraceSource> Sim<'_, S> {
    /// Posts a send from `t` at `now` (or at `a.busy`, if later); returns when the sending
    /// CPU is free again (the posting time + o_s).
    /// An inter-node message larger than the network model can simulate is an error naming
    /// `t`'s current record.
    pub(super) fn post_send(&mut self, t: u32, a: SendArgs, now: Ps) -> Result<Ps> {
        let route = Route::of(t, a.dst, self.node[t as usize], self.node[a.dst as usize]);
        if a.bytes > if route != Route::Inter { self.max_intra_bytes } else { self.max_msg_bytes } {
            return Err(self.refuse_message(t, a.dst, a.bytes));
        }
        let link = self.m.link(route);
        let (o_s, o_r) = link.overheads(a.bytes);
        let l0 = link.latency;
        let posted = now.max(a.busy);
        let mut ready = posted + o_s;
        let small = a.bytes <= self.m.eager_threshold;
        let proto = match a.mode {
            SendMode::Buffered => Proto::Eager,
            SendMode::Synchronous if small => Proto::SyncEager,
            _ if small => Proto::Eager,
            _ => Proto::Rendezvous,
        };
        if self.crossing.is_some() {
            ready = self.cross(t, &a, route, proto == Proto::Rendezvous, posted, ready);
        }
        let msg = Msg {
            src: t,
            dst: a.dst,
            comm: a.comm,
            tag: a.tag,
            coll: a.coll,
            bytes: a.bytes,
            proto,
            sent_at: now,
            ready_at: ready,
            l0,
            o_r,
            send_ref: a.r,
            recv_ref: Ref::None,
            matched_at: UNKNOWN,
            data_at: UNKNOWN,
            delivered_at: UNKNOWN,
        };
        let id = self.msgs.alloc(msg);
        if self.observed {
            self.observe_send(id, t, a.dst, a.bytes, now);
        }
        if proto != Proto::Rendezvous {
            if ready == now {
                self.inject(id, now);
            } else {
                // Models see messages in time order, so a later departure is an event.
                self.q.push(ready, Ev::Inject(id));
            }
        }
        if proto == Proto::Eager {
            self.complete(t, a.r, ready, now);
        }
        let dst = &mut self.tasks[a.dst as usize];
        let m = self.msgs.get(id);
        match dst.posted.iter().position(|p| fits(p, m)) {
            Some(i) => {
                let p = dst.posted.remove(i);
                self.on_match(id, p.at, p.r);
            }
            None => {
                dst.unexpected.push_back(id);
                if dst.probe.is_some() {
                    self.probe_wake(a.dst, id, now);
                }
            }
        }
        Ok(ready)
    }

    /// The send `a` from `t`, ready to leave at `ready`, on a machine that charges crossing
    /// messages: when it leaves (later by x if it crosses one from its destination), and
    /// the pair's message is on its way until its uncontended delivery. Out of line, as
    /// are the rare parts of [`Sim::post_send`], so that the code run per send stays small
    /// (see `Sim::observed`).
    #[inline(never)]
    fn cross(&mut self, t: u32, a: &SendArgs, route: Route, rendezvous: bool, posted: Ps, ready: Ps) -> Ps {
        let link = self.m.link(route);
        let pairs = self.crossing.as_mut().expect("crossing tracked");
        let mut ready = ready;
        // A message from the destination back to us still on its way: this one crosses it.
        if pairs.get(&(a.dst, t)).is_some_and(|&until| until > posted) {
            ready += link.cross_overhead(a.bytes);
        }
        // On its way until its uncontended delivery (a rendezvous may also shake hands).
        let handshake = if rendezvous && self.m.rendezvous_handshake { 2 * link.latency } else { 0 };
        let until = ready + handshake + link.delay(a.bytes);
        let e = pairs.entry((t, a.dst)).or_insert(0);
        *e = (*e).max(until);
        ready
    }

    /// [`Sim::post_send`]'s observers (see `Sim::observed`).
    #[inline(never)]
    fn observe_send(&mut self, id: MsgId, t: u32, dst: u32, bytes: u64, now: Ps) {
        if let Some(c) = &mut self.crit {
            c.send(id, t, self.tasks[t as usize].call_fn);
        }
        if self.recording {
            self.record_send(id, t, dst, bytes, now);
        }
    }

    /// The send to the timeline (see `Sim::recording`).
    #[inline(never)]
    fn record_send(&mut self, id: MsgId, t: u32, dst: u32, bytes: u64, now: Ps) {
        if let Some(tl) = &mut self.timeline {
            tl.send(id, t, dst, bytes, now);
        }
    }

    /// A message from `t` to world rank `dst` of `bytes`, over a size limit (see
    /// `Sim::max_msg_bytes`): its time would overflow, or the network model refuses it.
    #[cold]
    pub(super) fn refuse_message(&self, t: u32, dst: u32, bytes: u64) -> SimError {
        let intra = self.node[t as usize] == self.node[dst as usize];
        let which = if intra { "intra-node" } else { "inter-node" };
        let msg = if !intra && bytes > self.model.max_message_bytes() {
            format!(
                "a message of {bytes} bytes to rank {dst} (another node) is too large for network model {}: {}",
                self.model.name(),
                self.model.refuse_message(bytes)
            )
        } else {
            format!("a message of {bytes} bytes to rank {dst}: the predicted time overflows, its transfer on the {which} link alone taking past 2^61 ps (about 27 days)")
        };
        SimError::bad_record(t, self.tasks[t as usize].index, msg)
    }

    /// Posts receive `p` (source a world rank or ANY, posted at `p.at`) on `t`.
    pub(super) fn post_recv(&mut self, t: u32, p: Posted) {
        let (r, now) = (p.r, p.at);
        let task = &mut self.tasks[t as usize];
        let msgs = &self.msgs;
        match task.unexpected.iter().position(|&id| fits(&p, msgs.get(id))) {
            Some(i) => {
                let id = task.unexpected.remove(i).expect("position is in range");
                self.on_match(id, now, r);
            }
            None => task.posted.push(p),
        }
    }

    /// Message `id` meets the receive posted at `tr`.
    fn on_match(&mut self, id: MsgId, tr: Ps, r: Ref) {
        let m = self.msgs.get_mut(id);
        m.recv_ref = r;
        m.matched_at = tr;
        if m.proto == Proto::Rendezvous {
            let start =
                if self.m.rendezvous_handshake { (m.ready_at + m.l0).max(tr) + m.l0 } else { m.ready_at.max(tr) };
            self.q.push(start, Ev::Inject(id));
        } else if m.delivered_at != UNKNOWN {
            self.settle(id);
        }
    }

    /// The message's data enters the network (or the node's memory) at `now`.
    pub(super) fn inject(&mut self, id: MsgId, now: Ps) {
        let m = self.msgs.get_mut(id);
        m.data_at = now;
        let (src, dst, bytes) = (m.src, m.dst, m.bytes);
        let (sn, dn) = (self.node[src as usize], self.node[dst as usize]);
        if sn == dn {
            let link = self.m.link(Route::of(src, dst, sn, dn));
            // A message to itself costs its sender's CPU (the `[self]` band's overhead, over a
            // free wire), not a copy between two processes: it does not share the memory.
            match &mut self.memory {
                Some(mem) if bytes > 0 && src != dst => {
                    let band = (link.transfer(bytes), link.wire_latency(bytes));
                    let serial = link.serial_receive(bytes).then_some(dst);
                    if let Some(next) = mem.start(sn, id, bytes, band, link.memory_bandwidth(bytes), serial, now) {
                        self.q.push(next, Ev::Memory(sn));
                    }
                }
                _ => self.on_delivered(id, now + link.delay(bytes)),
            }
            return;
        }
        let msg = NetMsg { id, src_node: sn, dst_node: dn, bytes, ready: now };
        let mut ctx = NetCtx::new(now, &mut self.net_events, &mut self.net_delivered, &mut self.net_failure);
        if let Some(at) = self.model.send(&msg, &mut ctx) {
            self.on_delivered(id, at.max(now));
        }
        self.drain_net();
    }

    /// The last byte of message `id` arrives at `at`.
    pub(super) fn on_delivered(&mut self, id: MsgId, at: Ps) {
        let m = self.msgs.get_mut(id);
        if m.tag == super::rma::RMA_TAG {
            return self.rma_delivered(id, at);
        }
        m.delivered_at = at;
        let (bytes, data_at, intra) = (m.bytes, m.data_at, self.node[m.src as usize] == self.node[m.dst as usize]);
        let matched = m.matched_at != UNKNOWN;
        self.stats.message(bytes, data_at, at, intra);
        if self.recording {
            self.observe_delivered(at, bytes);
        }
        if matched {
            self.settle(id);
        }
    }

    /// Matched and delivered: complete both sides and free the message.
    fn settle(&mut self, id: MsgId) {
        let m = *self.msgs.get(id);
        let (td, tr) = (m.delivered_at, m.matched_at);
        let recv_done = td.max(tr) + m.o_r;
        if self.observed {
            self.observe_settle(id, &m, recv_done);
        }
        self.complete(m.dst, m.recv_ref, recv_done, m.sent_at);
        match m.proto {
            Proto::Eager => {}
            Proto::SyncEager => self.complete(m.src, m.send_ref, recv_done + m.l0, tr),
            Proto::Rendezvous => self.complete(m.src, m.send_ref, td, tr),
        }
        self.msgs.release(id);
    }

    /// [`Sim::on_delivered`]'s observer (see `Sim::observed`).
    #[inline(never)]
    fn observe_delivered(&mut self, at: Ps, bytes: u64) {
        if let Some(tl) = &mut self.timeline {
            tl.delivered(at, bytes);
        }
    }

    /// [`Sim::settle`]'s observers (see `Sim::observed`): message `id` (`m`) is received,
    /// its receive complete at `recv_done`.
    #[inline(never)]
    fn observe_settle(&mut self, id: MsgId, m: &Msg, recv_done: Ps) {
        if let Some(c) = &mut self.crit {
            let a = crate::critpath::Arrival {
                sent: m.sent_at,
                data_at: m.data_at,
                delivered: m.delivered_at,
                l0: m.l0,
                done: recv_done,
                posted: m.matched_at,
            };
            c.received(id, m.src, m.dst, a);
        }
        if let Some(tl) = &mut self.timeline {
            tl.received(id, m.dst);
        }
    }

    /// Request `r` of task `t` completes at `at`; `partner` is when the other side posted.
    pub(super) fn complete(&mut self, t: u32, r: Ref, at: Ps, partner: Ps) {
        let h = match r {
            Ref::Req(h) => h,
            Ref::Nbc(h) => return self.nbc_done(t, h, at, partner),
            Ref::None => return,
        };
        let task = &mut self.tasks[t as usize];
        let Some(req) = task.req_mut(h) else { return };
        req.done_at = at;
        req.partner_at = partner;
        if !req.awaited || task.pending == 0 {
            return;
        }
        task.pending -= 1;
        task.wait_until = task.wait_until.max(at);
        task.partner_max = task.partner_max.max(partner);
        if task.pending == 0 {
            let when = task.wait_until.max(self.now);
            self.q.push(when, Ev::Resume(t));
        }
    }

    /// When a message's envelope is visible to a probe at the receiver.
    fn envelope_at(&self, id: MsgId) -> Ps {
        let m = self.msgs.get(id);
        match m.proto {
            Proto::Rendezvous => m.ready_at + m.l0,
            _ if m.delivered_at != UNKNOWN => m.delivered_at,
            _ => m.ready_at + m.l0,
        }
    }

    /// A probe on `t` for (world source or ANY, tag or ANY, comm) at `now`.
    pub(super) fn probe(&mut self, t: u32, key: (i32, i32, u32), now: Ps) -> Option<Ps> {
        let p = Posted { src: key.0, tag: key.1, comm: key.2, coll: false, r: Ref::None, at: now };
        let task = &self.tasks[t as usize];
        let id = task.unexpected.iter().copied().find(|&id| fits(&p, self.msgs.get(id)))?;
        let partner = self.msgs.get(id).sent_at;
        self.tasks[t as usize].partner_max = partner;
        Some(self.envelope_at(id).max(now))
    }

    /// Messages still in a receiver's unexpected queue at the end: sent, never received. The
    /// prediction has no cost for them on the receiving side, so the report says how many and
    /// names the first.
    pub(super) fn count_unreceived(&mut self) {
        for (d, task) in self.tasks.iter().enumerate() {
            for &id in &task.unexpected {
                let m = self.msgs.get(id);
                self.stats.unreceived += 1;
                if self.stats.first_unreceived.is_none() {
                    self.stats.first_unreceived = Some(format!(
                        "{} bytes from world rank {} to world rank {d} with tag {} on communicator {}{}",
                        m.bytes,
                        m.src,
                        m.tag,
                        m.comm,
                        if m.coll { ", inside an expanded collective" } else { "" }
                    ));
                }
            }
        }
    }

    /// A message joined `t`'s unexpected queue: wake `t` if it is blocked probing for it.
    /// Out of line: few tasks ever probe (see `Sim::observed` for why that matters).
    #[inline(never)]
    fn probe_wake(&mut self, t: u32, id: MsgId, now: Ps) {
        let Some((src, tag, comm)) = self.tasks[t as usize].probe else { return };
        let p = Posted { src, tag, comm, coll: false, r: Ref::None, at: now };
        let m = self.msgs.get(id);
        if !fits(&p, m) {
            return;
        }
        let at = self.envelope_at(id).max(now);
        let task = &mut self.tasks[t as usize];
        task.probe = None;
        task.partner_max = m.sent_at;
        self.q.push(at, Ev::Resume(t));
    }

    /// Cancels receive request `h` of `t` if it is still unmatched; true if it was.
    pub(super) fn cancel_recv(&mut self, t: u32, h: u32) -> bool {
        let task = &mut self.tasks[t as usize];
        match task.posted.iter().position(|p| p.r == Ref::Req(h)) {
            Some(i) => {
                task.posted.remove(i);
                true
            }
            None => false,
        }
    }
}
