//! A measured run's point-to-point messages, as the views of it show them (the Paraver
//! export's communication records, `psins-dump --timeline`'s arrows): each rank's records
//! give message ends ([`Ends`]: a send where it was called, a receive where its data arrived),
//! and [`Matcher`] pairs every send with the receive that took it, by MPI's matching rule —
//! on one communicator, between one pair of ranks and with one tag, messages are received in
//! the order they were sent, by receives in the order they were posted. Wildcard receives
//! are matched under the source and tag their completion reported. Times are a rank's
//! measured clock, as [`Record::place`] lays the records out.

use crate::comms::{Bad, Comms};
use crate::{Op, Record, NO_RANK, PROC_NULL};
use std::collections::HashMap;

/// Which end of a message an [`End`] is (a message to oneself has both on one rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Sent,
    Received,
}

/// One end of a point-to-point message, peers as world ranks.
#[derive(Clone, Copy, Debug)]
pub struct End {
    pub comm: u32,
    pub src: u32,
    pub dst: u32,
    pub tag: i32,
    pub bytes: u64,
    /// Logical time: the send called, the receive posted.
    pub logical: u64,
    /// Physical time: the send call returned, the receive completed.
    pub physical: u64,
    /// Where the call this end happened in began: the send's, or the call that completed
    /// the receive (a wait, or the receive itself).
    pub call: u64,
}

/// A receive posted and not yet completed (an irecv, a started persistent receive).
struct Posted {
    comm: u32,
    at: u64,
}

/// A persistent request's parameters.
#[derive(Clone, Copy)]
enum Persistent {
    Send { comm: u32, peer: i32, tag: i32, bytes: u64 },
    Recv { comm: u32 },
}

/// One rank's message ends, record by record: the requests it has posted and not yet seen
/// completed, and its persistent requests.
pub struct Ends<'a> {
    rank: u32,
    comms: &'a Comms,
    posted: HashMap<u32, Posted>,
    persistent: HashMap<u32, Persistent>,
}

impl<'a> Ends<'a> {
    pub fn new(rank: u32, comms: &'a Comms) -> Ends<'a> {
        Ends { rank, comms, posted: HashMap::new(), persistent: HashMap::new() }
    }

    /// Hands the message ends of `rec`, whose call spans [begin, end), to `out`: sends, and
    /// receives whose data arrived in this call. Expansion steps (MPICH's own messages
    /// inside a collective) are not application messages: none.
    pub fn record(&mut self, rec: &Record, begin: u64, end: u64, out: &mut impl FnMut(Side, End)) -> Result<(), Bad> {
        let me = self.rank;
        let mut send = |s: &Self, comm: u32, peer: i32, tag: i32, bytes: u64| -> Result<(), Bad> {
            if let Some(dst) = s.comms.peer(me, comm, peer)? {
                out(Side::Sent, End { comm, src: me, dst, tag, bytes, logical: begin, physical: end, call: begin });
            }
            Ok(())
        };
        match rec.op {
            Op::Send { peer, tag, bytes, comm, .. } | Op::Isend { peer, tag, bytes, comm, .. } => {
                send(self, comm, peer, tag, bytes)?
            }
            Op::Sendrecv { peer, tag, bytes, src, rtag, rbytes, comm, .. } => {
                send(self, comm, peer, tag, bytes)?;
                self.received(comm, src, rtag, rbytes, begin, (begin, end), &mut *out)?;
            }
            Op::Recv { peer, tag, bytes, comm } => self.received(comm, peer, tag, bytes, begin, (begin, end), out)?,
            Op::Irecv { comm, req, .. } => {
                self.posted.insert(req, Posted { comm, at: begin });
            }
            Op::SendInit { peer, tag, bytes, comm, req, .. } => {
                self.persistent.insert(req, Persistent::Send { comm, peer, tag, bytes });
            }
            Op::RecvInit { comm, req, .. } => {
                self.persistent.insert(req, Persistent::Recv { comm });
            }
            Op::Start { req } => self.start(req, begin, &mut send)?,
            Op::Startall => {
                for &req in &rec.list {
                    self.start(req as u32, begin, &mut send)?;
                }
            }
            Op::RequestFree { req } => {
                self.persistent.remove(&req);
            }
            Op::Wait { .. } => {
                for q in rec.list.chunks_exact(4) {
                    let (req, source, tag, bytes) = (q[0] as u32, q[1], q[2], q[3]);
                    if source == NO_RANK as i64 {
                        continue;
                    }
                    if let Some(p) = self.posted.remove(&req) {
                        self.received(p.comm, source as i32, tag as i32, bytes.max(0) as u64, p.at, (begin, end), out)?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn start(
        &mut self,
        req: u32,
        at: u64,
        send: &mut impl FnMut(&Self, u32, i32, i32, u64) -> Result<(), Bad>,
    ) -> Result<(), Bad> {
        match self.persistent.get(&req).copied() {
            Some(Persistent::Send { comm, peer, tag, bytes }) => send(self, comm, peer, tag, bytes),
            Some(Persistent::Recv { comm }) => {
                self.posted.insert(req, Posted { comm, at });
                Ok(())
            }
            // A request the tracer met without its init: nothing to show.
            None => Ok(()),
        }
    }

    /// A receive posted at `posted` whose data arrived in the call spanning `call`.
    #[allow(clippy::too_many_arguments)]
    fn received(
        &self,
        comm: u32,
        source: i32,
        tag: i32,
        bytes: u64,
        posted: u64,
        call: (u64, u64),
        out: &mut impl FnMut(Side, End),
    ) -> Result<(), Bad> {
        if source == PROC_NULL {
            return Ok(());
        }
        if let Some(src) = self.comms.peer(self.rank, comm, source)? {
            let e = End { comm, src, dst: self.rank, tag, bytes, logical: posted, physical: call.1, call: call.0 };
            out(Side::Received, e);
        }
        Ok(())
    }
}

/// A message with both ends: a Paraver communication record, a timeline's arrow.
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
    /// Where the call that completed the receive began (its end is `precv`).
    pub recv_call: u64,
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
                    recv_call: r.call,
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
        End { comm: 0, src, dst, tag, bytes: 8, logical, physical, call: physical }
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
        Message { src, dst, tag: 0, bytes: 1, lsend, psend: lsend, lrecv: 0, precv, recv_call: precv }
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
