//! The general evaluator: every rank's expansion replayed step by step on a contention-free
//! network, with the engine's matching (first-come first-matched per sender and receiver, as
//! in one message context with one tag) and [`PathCost`]'s protocols. Exact for any
//! algorithm, at the price of holding every rank's steps: the closed forms are checked
//! against it, and it times what they do not cover.

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

/// Where one rank is in its steps.
#[derive(Clone, Copy, Default)]
struct Cursor {
    pos: usize,
    /// When the current step was posted (= when the previous one completed).
    t: Ps,
    posted: bool,
    /// Index of the current step's send in its channel, and its completion once known.
    send: Option<(usize, Option<Ps>)>,
    recv: Option<(usize, Option<Ps>)>,
    done: bool,
}

/// Every rank's steps, flattened: rank r's are `steps[offsets[r]..offsets[r + 1]]`.
pub struct Expansions {
    pub steps: Vec<Step>,
    pub offsets: Vec<usize>,
}

/// The time from a common start (every rank posting its first step at 0) until the last
/// rank completes its last step; an error if the expansions do not match up (a rank waits
/// for a message no one sends).
pub fn evaluate(x: &Expansions, cost: &PathCost) -> Result<Ps, String> {
    let p = x.offsets.len() - 1;
    let mut chans: HashMap<(u32, u32), Chan> = HashMap::new();
    let mut cur = vec![Cursor::default(); p];
    let mut work: Vec<u32> = (0..p as u32).rev().collect();
    let (mut done, mut end) = (0usize, 0);
    while let Some(r) = work.pop() {
        let ru = r as usize;
        let steps = &x.steps[x.offsets[ru]..x.offsets[ru + 1]];
        loop {
            let c = &mut cur[ru];
            if c.done {
                break;
            }
            let Some(step) = steps.get(c.pos) else {
                c.done = true;
                done += 1;
                end = end.max(c.t);
                break;
            };
            if !c.posted {
                c.posted = true;
                c.send = step.send().map(|(to, bytes)| {
                    let ch = chans.entry((r, to)).or_default();
                    ch.sends.push((c.t, bytes));
                    work.push(to); // it may wait for this message
                    (ch.sends.len() - 1, None)
                });
                c.recv = step.recv().map(|(from, _)| {
                    let ch = chans.entry((from, r)).or_default();
                    ch.recvs.push(c.t);
                    work.push(from); // a rendezvous send may wait for this receive
                    (ch.recvs.len() - 1, None)
                });
            }
            if let (Some((to, bytes)), Some((k, None))) = (step.send(), c.send) {
                let tr = chans[&(r, to)].recvs.get(k).copied();
                c.send = Some((k, cost.send_done(bytes, c.t, tr)));
            }
            if let (Some((from, _)), Some((k, None))) = (step.recv(), c.recv) {
                // The message's size is the sender's (the receive's is only its capacity).
                if let Some(&(ts, bytes)) = chans[&(from, r)].sends.get(k) {
                    c.recv = Some((k, Some(cost.recv_done(bytes, ts, c.t))));
                }
            }
            let s = c.send.map(|(_, d)| d);
            let v = c.recv.map(|(_, d)| d);
            if s == Some(None) || v == Some(None) {
                break; // woken again when the peer posts
            }
            c.t = c.t.max(s.flatten().unwrap_or(0)).max(v.flatten().unwrap_or(0));
            c.pos += 1;
            c.posted = false;
        }
    }
    if done < p {
        let stuck = cur.iter().position(|c| !c.done).unwrap_or(0);
        return Err(format!("the expansion does not match up: rank {stuck} waits at step {}", cur[stuck].pos + 1));
    }
    Ok(end)
}
