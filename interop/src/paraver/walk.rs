//! One rank's measured run as Paraver sees it: each record placed on the rank's clock (ns
//! since its MPI_Init returned, the span psins-sim's "measured" and psins-dump --profile
//! use), as a state interval and an MPI event pair, and the message ends it posts or
//! completes. Both passes of the export walk the records with this.

use super::states::{self, State};
use crate::comms::{Bad, Comms};
use psins_formats::{functions, Op, Record, NO_RANK, PROC_NULL};
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
}

/// What one record shows: the computation before it, then the call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Placed {
    /// The burst before the call: [running.0, running.1).
    pub running: (u64, u64),
    /// The call: [begin, end), its state and its event (type, value); none for a record
    /// that is no call (an expansion step) or outside the span (MPI_Init, MPI_Finalize).
    pub call: Option<(u64, u64, State, u32, u32)>,
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

pub struct Walk<'a> {
    pub rank: u32,
    comms: &'a Comms,
    /// The rank's clock: where the next record's burst begins.
    pub now: u64,
    posted: HashMap<u32, Posted>,
    persistent: HashMap<u32, Persistent>,
}

impl<'a> Walk<'a> {
    pub fn new(rank: u32, comms: &'a Comms) -> Walk<'a> {
        Walk { rank, comms, now: 0, posted: HashMap::new(), persistent: HashMap::new() }
    }

    /// Places `rec` on the clock and hands the message ends it makes to `ends` (sends, and
    /// receives whose data arrived in this call).
    pub fn record(&mut self, rec: &Record, ends: &mut impl FnMut(Side, End)) -> Result<Placed, Bad> {
        let (gap, dur) = rec.span_part();
        let begin = self.now.saturating_add(gap);
        let end = begin.saturating_add(dur);
        let mut placed = Placed { running: (self.now, begin), call: None };
        self.now = end;
        match rec.op {
            // MPI_Init's return is time 0; MPI_Finalize's entry ends the span.
            // An expansion step is MPICH's own message inside its collective, which the
            // collective's interval shows: not an application message.
            Op::Init { .. } | Op::Finalize | Op::Step { .. } => return Ok(placed),
            // A poll record: its calls and the computation between them, as one interval.
            Op::Poll { between_ns, .. } => {
                placed.running = (placed.running.0, placed.running.1 - between_ns.min(gap));
            }
            _ => {}
        }
        let (ty, value) = states::event(&rec.op, functions::of_op(&rec.op));
        placed.call = Some((placed.running.1, end, states::of(&rec.op), ty, value));
        self.ends(rec, placed.running.1, end, ends)?;
        Ok(placed)
    }

    fn ends(&mut self, rec: &Record, begin: u64, end: u64, out: &mut impl FnMut(Side, End)) -> Result<(), Bad> {
        let me = self.rank;
        let mut send = |s: &Self, comm: u32, peer: i32, tag: i32, bytes: u64| -> Result<(), Bad> {
            if let Some(dst) = s.comms.peer(me, comm, peer)? {
                out(Side::Sent, End { comm, src: me, dst, tag, bytes, logical: begin, physical: end });
            }
            Ok(())
        };
        match rec.op {
            Op::Send { peer, tag, bytes, comm, .. } | Op::Isend { peer, tag, bytes, comm, .. } => {
                send(self, comm, peer, tag, bytes)?
            }
            Op::Sendrecv { peer, tag, bytes, src, rtag, rbytes, comm, .. } => {
                send(self, comm, peer, tag, bytes)?;
                self.received(comm, src, rtag, rbytes, begin, end, &mut *out)?;
            }
            Op::Recv { peer, tag, bytes, comm } => self.received(comm, peer, tag, bytes, begin, end, out)?,
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
                        self.received(p.comm, source as i32, tag as i32, bytes.max(0) as u64, p.at, end, out)?;
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

    #[allow(clippy::too_many_arguments)]
    fn received(
        &self,
        comm: u32,
        source: i32,
        tag: i32,
        bytes: u64,
        posted: u64,
        done: u64,
        out: &mut impl FnMut(Side, End),
    ) -> Result<(), Bad> {
        if source == PROC_NULL {
            return Ok(());
        }
        if let Some(src) = self.comms.peer(self.rank, comm, source)? {
            out(Side::Received, End { comm, src, dst: self.rank, tag, bytes, logical: posted, physical: done });
        }
        Ok(())
    }
}
