//! The measured run's messages: each send paired with the receive that took it, by MPI's
//! matching rule — on one communicator, between one pair of ranks and with one tag, messages
//! are received in the order they were sent, by receives in the order they were posted.
//! Wildcard receives are matched under the source and tag their completion reported.

use super::walk::End;
use std::collections::HashMap;

/// A message with both ends: Paraver's communication record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message {
    pub src: u32,
    pub dst: u32,
    pub tag: i32,
    /// The receive's byte count (what arrived; a send may offer more).
    pub bytes: u64,
    pub lsend: u64,
    pub psend: u64,
    pub lrecv: u64,
    pub precv: u64,
}

/// (communicator, source, destination, tag): the messages that can match each other.
type Key = (u32, u32, u32, i32);

/// Sends and receives gathered from every rank.
#[derive(Default)]
pub struct Matcher {
    /// (comm, src, dst, tag) → the sends in the sender's order, the receives with their
    /// posting position.
    sends: HashMap<Key, Vec<End>>,
    recvs: HashMap<Key, Vec<(u64, u64, End)>>,
    /// Receives are handed over as they complete; `posted` orders them as posted.
    order: u64,
}

impl Matcher {
    pub fn send(&mut self, e: End) {
        self.sends.entry((e.comm, e.src, e.dst, e.tag)).or_default().push(e);
    }

    pub fn recv(&mut self, e: End) {
        self.order += 1;
        self.recvs.entry((e.comm, e.src, e.dst, e.tag)).or_default().push((e.logical, self.order, e));
    }

    /// The messages, per sending rank in the order they were sent, and how many sends and
    /// receives found no partner (a run cut short, a cancelled request).
    pub fn matched(mut self, ranks: u32) -> (Vec<Vec<Message>>, u64, u64) {
        let mut out = vec![Vec::new(); ranks as usize];
        let (mut lone_sends, mut lone_recvs) = (0, 0);
        for (key, sends) in self.sends.drain() {
            let mut recvs = self.recvs.remove(&key).unwrap_or_default();
            // Posting order: the time posted, then the order seen (one rank's receives are
            // seen in its record order).
            recvs.sort_by_key(|&(at, seen, _)| (at, seen));
            lone_sends += sends.len().saturating_sub(recvs.len()) as u64;
            lone_recvs += recvs.len().saturating_sub(sends.len()) as u64;
            for (s, (_, _, r)) in sends.iter().zip(recvs) {
                out[s.src as usize].push(Message {
                    src: s.src,
                    dst: s.dst,
                    tag: s.tag,
                    bytes: r.bytes,
                    lsend: s.logical,
                    psend: s.physical,
                    lrecv: r.logical,
                    precv: r.physical,
                });
            }
        }
        lone_recvs += self.recvs.values().map(|v| v.len() as u64).sum::<u64>();
        for m in &mut out {
            m.sort_by_key(|m| (m.lsend, m.psend, m.dst));
        }
        (out, lone_sends, lone_recvs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(src: u32, dst: u32, tag: i32, logical: u64, physical: u64) -> End {
        End { comm: 0, src, dst, tag, bytes: 8, logical, physical }
    }

    /// Two messages 0 → 1 with one tag: the first sent goes to the first posted receive,
    /// though the second receive completed first in the walk; a third tag has no receive.
    #[test]
    fn sends_meet_receives_in_posting_order() {
        let mut m = Matcher::default();
        m.send(end(0, 1, 5, 10, 11));
        m.send(end(0, 1, 5, 20, 21));
        m.send(end(0, 1, 6, 30, 31));
        m.recv(end(0, 1, 5, 15, 40)); // posted second, completed first
        m.recv(end(0, 1, 5, 12, 50)); // posted first
        let (out, lone_s, lone_r) = m.matched(2);
        assert_eq!((lone_s, lone_r), (1, 0));
        assert_eq!(out[1], vec![]);
        let got: Vec<(u64, u64, u64)> = out[0].iter().map(|m| (m.lsend, m.lrecv, m.precv)).collect();
        assert_eq!(got, vec![(10, 12, 50), (20, 15, 40)]);
    }
}

/// Per-rank clock shifts (ns) that put every receive's completion at or after its send's
/// start. Each rank's clock starts when the tracer's start-up allreduce returns to it, which
/// on an oversubscribed host can be milliseconds apart; a message received before it was
/// sent is that skew. Each rank is shifted by the least amount that removes it (the longest
/// path over the messages' constraints, by Bellman–Ford rounds); with clocks that drift
/// against each other no shift satisfies every message, and the violations left after as
/// many rounds as ranks are counted instead. (shifts, messages still received before sent)
pub fn align(messages: &[Vec<Message>], ranks: u32) -> (Vec<u64>, u64) {
    let mut shift = vec![0u64; ranks as usize];
    for _ in 0..=ranks {
        let mut changed = false;
        for m in messages.iter().flatten() {
            let sent = m.lsend + shift[m.src as usize];
            let done = m.precv + shift[m.dst as usize];
            if done < sent {
                shift[m.dst as usize] += sent - done;
                changed = true;
            }
        }
        if !changed {
            return (shift, 0);
        }
    }
    let left = messages.iter().flatten().filter(|m| m.precv + shift[m.dst as usize] < m.lsend + shift[m.src as usize]);
    let left = left.count() as u64;
    (shift, left)
}

#[cfg(test)]
mod align_tests {
    use super::*;

    fn msg(src: u32, dst: u32, lsend: u64, precv: u64) -> Message {
        Message { src, dst, tag: 0, bytes: 1, lsend, psend: lsend, lrecv: 0, precv }
    }

    /// Rank 1 started 5 late (its times read 5 early): its receive of rank 0's message at
    /// 10 ends at 7. Shifted by 3 it ends at 10; rank 2, which hears from 1, follows.
    #[test]
    fn the_least_shift_that_orders_every_message() {
        let m = vec![vec![msg(0, 1, 10, 7)], vec![msg(1, 2, 20, 21)], vec![]];
        assert_eq!(align(&m, 3), (vec![0, 3, 2], 0));
        // Consistent clocks: nothing moves.
        let ok = vec![vec![msg(0, 1, 10, 12)], vec![msg(1, 0, 20, 25)]];
        assert_eq!(align(&ok, 2), (vec![0, 0], 0));
        // Two messages that contradict any shift (each received before sent, both ways).
        let bad = vec![vec![msg(0, 1, 10, 5)], vec![msg(1, 0, 10, 5)]];
        assert!(align(&bad, 2).1 > 0);
    }
}
