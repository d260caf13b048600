//! The general evaluator: every rank's expansion replayed on a contention-free network, each
//! message on the path between its two ranks' nodes, with [`PathCost`]'s protocols and the
//! engine's matching (first-come first-matched per sender and receiver, as in one message
//! context with one tag). Exact for any algorithm, at the price of holding every rank's
//! steps: the closed forms are checked against it, and it times what they do not cover.
//!
//! A round is what the engine posts at one instant and then waits for (engine/coll.rs): the
//! `ISend`/`IRecv` steps of a batch up to and including the next waiting step (its
//! `WaitAll`, or a blocking step, whose wait covers the batch too). A blocking step alone is
//! a round of its one or two messages.
//!
//! It is a small discrete-event replay in the engine's own order, because crossing messages
//! (docs/models.md) make the answer depend on it: a send posted while the reverse message is
//! on its way costs x(S) more, so of two reverse sends posted at one instant the one posted
//! second pays. Events run by (time, sequence number), ties in the order they were filed, and
//! are filed where the engine files its own (engine/queue.rs, p2p.rs, coll.rs): every rank
//! starts in rank order; a rank posts its next round at once when the last one is already
//! complete then, else at an event filed when its last completion became known (the engine's
//! `Resume`); a message whose data leaves after its posting (eager, o_s + x > 0) or whose
//! handshake ends (rendezvous) is an event then (the engine's `Inject`).

use super::message::PathCost;
use crate::units::Ps;
use psins_collectives::Step;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

/// Every rank's steps, flattened: rank r's are `steps[offsets[r]..offsets[r + 1]]`.
pub struct Expansions {
    pub steps: Vec<Step>,
    pub offsets: Vec<usize>,
    /// The rounds are a nonblocking schedule's phases, which the engine posts all at one
    /// instant in the background (engine/nbc.rs), not one send after another on the CPU.
    pub background: bool,
}

/// Length of the round starting at `steps[0]`: posting steps up to and including the next
/// waiting step (or to the end).
pub fn round_len(steps: &[Step]) -> usize {
    steps.iter().position(|s| s.waits()).map_or(steps.len(), |i| i + 1)
}

/// One message from `src` to `dst`: its data or request-to-send ready at `ready`, matched by
/// a receive posted at `tr`, its last byte delivered at `delivered`; with its path's costs
/// for its size (not the [`PathCost`], whose bands are large to hold per message).
struct Msg {
    src: u32,
    dst: u32,
    eager: bool,
    handshake: bool,
    /// L0, the path's control latency.
    l0: Ps,
    /// L(S) + S/B(S).
    delay: Ps,
    o_r: Ps,
    ready: Ps,
    tr: Option<Ps>,
    delivered: Option<Ps>,
}

/// The unmatched halves of one (sender, receiver) pair: messages sent (ids) and receives
/// posted (times), each matched first-come first-matched.
#[derive(Default)]
struct Chan {
    sent: VecDeque<u32>,
    posted: VecDeque<Ps>,
}

/// Where one rank is in its steps.
#[derive(Default)]
struct Rank {
    /// First step of the next round.
    pos: usize,
    /// Halves of the round in progress not yet complete.
    open: u32,
    /// The latest completion of the round in progress known so far (its posting time first).
    until: Ps,
    /// Waiting for `open` halves (the engine's blocked task).
    blocked: bool,
    done: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// The rank posts its next round (the engine's `Exec` at the start, then `Resume`).
    Post(u32),
    /// The message's data enters the network.
    Inject(u32),
}

struct Replay<'a> {
    x: &'a Expansions,
    path: &'a dyn Fn(u32, u32) -> PathCost,
    ranks: Vec<Rank>,
    msgs: Vec<Msg>,
    chans: HashMap<(u32, u32), Chan>,
    /// (sender, receiver) → when its latest message's uncontended delivery is (the engine's
    /// `crossing` map); None when no link charges crossing messages.
    crossing: Option<HashMap<(u32, u32), Ps>>,
    queue: BinaryHeap<Reverse<(Ps, u64, Ev)>>,
    seq: u64,
    now: Ps,
    end: Ps,
    finished: usize,
}

/// Expansions that do not match up: a rank waits for a message no one sends.
#[derive(Debug, thiserror::Error)]
#[error("the expansion does not match up: rank {rank} waits before step {step}")]
pub struct OracleError {
    pub rank: usize,
    pub step: usize,
}

/// The time from a common start (every rank posting its first round at 0, in rank order)
/// until the last rank completes its last round; an error if the expansions do not match
/// up (a rank waits for a message no one sends). `path(a, b)` is the path from rank a to
/// rank b; `crossing`: some link charges crossing messages (then the engine's rule applies).
pub fn evaluate(x: &Expansions, path: &dyn Fn(u32, u32) -> PathCost, crossing: bool) -> Result<Ps, OracleError> {
    let p = x.offsets.len() - 1;
    let mut r = Replay {
        x,
        path,
        ranks: (0..p).map(|_| Rank::default()).collect(),
        msgs: Vec::with_capacity(x.steps.len() / 2),
        chans: HashMap::new(),
        crossing: crossing.then(HashMap::new),
        queue: BinaryHeap::new(),
        seq: 0,
        now: 0,
        end: 0,
        finished: 0,
    };
    for rank in 0..p as u32 {
        r.push(0, Ev::Post(rank));
    }
    while let Some(Reverse((at, _, ev))) = r.queue.pop() {
        r.now = at;
        match ev {
            Ev::Post(rank) => r.post(rank),
            Ev::Inject(id) => r.inject(id),
        }
    }
    if r.finished < p {
        let stuck = r.ranks.iter().position(|c| !c.done).unwrap_or(0);
        return Err(OracleError { rank: stuck, step: r.ranks[stuck].pos + 1 });
    }
    Ok(r.end)
}

impl Replay<'_> {
    fn push(&mut self, at: Ps, ev: Ev) {
        self.seq += 1;
        self.queue.push(Reverse((at, self.seq, ev)));
    }

    /// Rank `rank` posts its rounds from now until one must wait (engine: `coll_continue`).
    fn post(&mut self, rank: u32) {
        let now = self.now;
        let (a, b) = (self.x.offsets[rank as usize], self.x.offsets[rank as usize + 1]);
        loop {
            let pos = self.ranks[rank as usize].pos;
            if pos == b - a {
                let c = &mut self.ranks[rank as usize];
                c.done = true;
                self.finished += 1;
                self.end = self.end.max(now);
                return;
            }
            let n = round_len(&self.x.steps[a + pos..b]);
            {
                let c = &mut self.ranks[rank as usize];
                c.pos += n;
                c.until = now;
            }
            // The round's sends one after another, each keeping the CPU for its o_s (engine:
            // `coll_continue`'s `cpu`); a step's receive is posted before its send.
            let mut cpu = now;
            for i in a + pos..a + pos + n {
                let step = self.x.steps[i];
                let posted = cpu;
                if let Some((to, bytes)) = step.send() {
                    self.ranks[rank as usize].open += 1;
                    let free = self.send(rank, to, bytes, posted);
                    if !self.x.background {
                        cpu = free;
                    }
                }
                if let Some((from, _)) = step.recv() {
                    self.ranks[rank as usize].open += 1;
                    self.recv(rank, from, posted);
                }
            }
            let c = &mut self.ranks[rank as usize];
            if c.open > 0 {
                c.blocked = true;
                return;
            }
            if c.until > now {
                // complete later, all completions known: continue from there, in time order
                let at = c.until;
                self.push(at, Ev::Post(rank));
                return;
            }
        }
    }

    /// Engine: `post_send` (a standard send) at `posted` (≥ now: after the round's earlier
    /// sends); returns when the CPU is free again.
    fn send(&mut self, src: u32, dst: u32, bytes: u64, posted: Ps) -> Ps {
        let now = self.now;
        let cost = (self.path)(src, dst);
        let eager = cost.eager(bytes);
        let mut ready = posted + cost.link.send_overhead(bytes);
        if let Some(pairs) = &mut self.crossing {
            if pairs.get(&(dst, src)).is_some_and(|&until| until > posted) {
                ready += cost.link.cross_overhead(bytes);
            }
            let handshake = if !eager && cost.handshake { 2 * cost.link.latency } else { 0 };
            let until = ready + handshake + cost.link.delay(bytes);
            let e = pairs.entry((src, dst)).or_insert(0);
            *e = (*e).max(until);
        }
        let id = self.msgs.len() as u32;
        let (handshake, l0, delay, o_r) =
            (cost.handshake, cost.link.latency, cost.link.delay(bytes), cost.link.recv_overhead(bytes));
        self.msgs.push(Msg { src, dst, eager, handshake, l0, delay, o_r, ready, tr: None, delivered: None });
        if eager {
            if ready == now {
                self.inject(id);
            } else {
                self.push(ready, Ev::Inject(id));
            }
            self.complete(src, ready);
        }
        let ch = self.chans.entry((src, dst)).or_default();
        match ch.posted.pop_front() {
            Some(tr) => self.matched(id, tr),
            None => ch.sent.push_back(id),
        }
        ready
    }

    /// Engine: `post_recv` (from a named source), posted at `at`.
    fn recv(&mut self, dst: u32, src: u32, at: Ps) {
        let ch = self.chans.entry((src, dst)).or_default();
        match ch.sent.pop_front() {
            Some(id) => self.matched(id, at),
            None => ch.posted.push_back(at),
        }
    }

    /// Engine: `on_match`.
    fn matched(&mut self, id: u32, tr: Ps) {
        let m = &mut self.msgs[id as usize];
        m.tr = Some(tr);
        if !m.eager {
            let l0 = m.l0;
            let start = if m.handshake { (m.ready + l0).max(tr) + l0 } else { m.ready.max(tr) };
            self.push(start, Ev::Inject(id));
        } else if m.delivered.is_some() {
            self.settle(id);
        }
    }

    /// Engine: `inject` and `on_delivered` (contention-free: delivery one delay later).
    fn inject(&mut self, id: u32) {
        let m = &mut self.msgs[id as usize];
        m.delivered = Some(self.now + m.delay);
        if m.tr.is_some() {
            self.settle(id);
        }
    }

    /// Engine: `settle`: the receive completes, and a rendezvous send.
    fn settle(&mut self, id: u32) {
        let m = &self.msgs[id as usize];
        let (td, tr) = (m.delivered.expect("delivered"), m.tr.expect("matched"));
        let (src, dst, eager) = (m.src, m.dst, m.eager);
        let recv_done = td.max(tr) + m.o_r;
        self.complete(dst, recv_done);
        if !eager {
            self.complete(src, td);
        }
    }

    /// Engine: `complete`: one half of `rank`'s round completes at `at`; the last one of a
    /// waiting rank files its next round.
    fn complete(&mut self, rank: u32, at: Ps) {
        let c = &mut self.ranks[rank as usize];
        c.open -= 1;
        c.until = c.until.max(at);
        if c.blocked && c.open == 0 {
            c.blocked = false;
            let when = c.until.max(self.now);
            self.push(when, Ev::Post(rank));
        }
    }
}
