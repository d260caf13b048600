//! The general evaluator: every rank's expansion replayed round by round on a contention-free
//! network, each message on the path between its two ranks' nodes, with the engine's matching (first-come first-matched per sender and receiver, as
//! in one message context with one tag) and [`PathCost`]'s protocols. Exact for any
//! algorithm, at the price of holding every rank's steps: the closed forms are checked
//! against it, and it times what they do not cover.
//!
//! A round is what the engine posts at one instant and then waits for (engine/coll.rs): the
//! `ISend`/`IRecv` steps of a batch up to and including the next waiting step (its
//! `WaitAll`, or a blocking step, whose wait covers the batch too). A blocking step alone is
//! a round of its one or two messages.

use super::message::PathCost;
use crate::units::Ps;
use psins_collectives::Step;
use std::collections::HashMap;

/// Posting times on one (sender, receiver) pair: the k-th send matches the k-th receive.
#[derive(Default)]
struct Chan {
    sends: Vec<(Ps, u64)>,
    recvs: Vec<Ps>,
}

/// One message half of the round in progress: its channel, its index there, and its
/// completion once known.
#[derive(Clone, Copy)]
struct Half {
    send: bool,
    chan: (u32, u32),
    index: usize,
    bytes: u64,
    done: Option<Ps>,
}

/// Where one rank is in its steps.
#[derive(Default)]
struct Cursor {
    /// First step of the next round.
    pos: usize,
    /// When the round in progress was posted (= when the previous one completed).
    t: Ps,
    /// The round in progress (empty: none posted).
    halves: Vec<Half>,
    done: bool,
}

/// Every rank's steps, flattened: rank r's are `steps[offsets[r]..offsets[r + 1]]`.
pub struct Expansions {
    pub steps: Vec<Step>,
    pub offsets: Vec<usize>,
}

/// Length of the round starting at `steps[0]`: posting steps up to and including the next
/// waiting step (or to the end).
pub fn round_len(steps: &[Step]) -> usize {
    steps.iter().position(|s| s.waits()).map_or(steps.len(), |i| i + 1)
}

/// The time from a common start (every rank posting its first round at 0) until the last
/// rank completes its last round; an error if the expansions do not match up (a rank waits
/// for a message no one sends).
/// `path(a, b)` is the path between ranks a and b.
pub fn evaluate(x: &Expansions, path: &dyn Fn(u32, u32) -> PathCost) -> Result<Ps, String> {
    let p = x.offsets.len() - 1;
    let mut chans: HashMap<(u32, u32), Chan> = HashMap::new();
    let mut cur: Vec<Cursor> = (0..p).map(|_| Cursor::default()).collect();
    let mut work: Vec<u32> = (0..p as u32).rev().collect();
    let (mut done, mut end) = (0usize, 0);
    while let Some(r) = work.pop() {
        let ru = r as usize;
        let steps = &x.steps[x.offsets[ru]..x.offsets[ru + 1]];
        let c = &mut cur[ru];
        loop {
            if c.done {
                break;
            }
            if c.halves.is_empty() {
                if c.pos == steps.len() {
                    c.done = true;
                    done += 1;
                    end = end.max(c.t);
                    break;
                }
                let n = round_len(&steps[c.pos..]);
                for step in &steps[c.pos..c.pos + n] {
                    if let Some((to, bytes)) = step.send() {
                        let ch = chans.entry((r, to)).or_default();
                        ch.sends.push((c.t, bytes));
                        work.push(to); // it may wait for this message
                        let index = ch.sends.len() - 1;
                        c.halves.push(Half { send: true, chan: (r, to), index, bytes, done: None });
                    }
                    if let Some((from, _)) = step.recv() {
                        let ch = chans.entry((from, r)).or_default();
                        ch.recvs.push(c.t);
                        work.push(from); // a rendezvous send may wait for this receive
                        let index = ch.recvs.len() - 1;
                        c.halves.push(Half { send: false, chan: (from, r), index, bytes: 0, done: None });
                    }
                }
                c.pos += n;
                if c.halves.is_empty() {
                    continue; // a WaitAll with nothing posted
                }
            }
            let mut ready = true;
            for h in c.halves.iter_mut().filter(|h| h.done.is_none()) {
                let ch = &chans[&h.chan];
                let cost = path(h.chan.0, h.chan.1);
                h.done = if h.send {
                    cost.send_done(h.bytes, c.t, ch.recvs.get(h.index).copied())
                } else {
                    // The message's size is the sender's (the receive's is only its capacity).
                    ch.sends.get(h.index).map(|&(ts, bytes)| cost.recv_done(bytes, ts, c.t))
                };
                ready &= h.done.is_some();
            }
            if !ready {
                break; // woken again when a peer posts
            }
            c.t = c.halves.iter().filter_map(|h| h.done).fold(c.t, Ps::max);
            c.halves.clear();
        }
    }
    if done < p {
        let stuck = cur.iter().position(|c| !c.done).unwrap_or(0);
        return Err(format!("the expansion does not match up: rank {stuck} waits before step {}", cur[stuck].pos + 1));
    }
    Ok(end)
}
