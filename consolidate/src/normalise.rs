//! One rank's records into the trace's canonical form, checking as it goes. The same code
//! serves the scan pass and the write pass, so both see every record the same way.

use crate::comms::{Comms, CommsError};
use crate::requests::{Misuse, Requests};
use crate::windows::WinError;
use psins_formats::comms::{Bad, Reach};
use psins_formats::{
    CollFlags, CommDef, CommDefError, Op, Record, StepOp, ANY_SOURCE, COMM_NULL, COMM_WORLD, NO_RANK, PROC_NULL,
};

/// A record that does not fit the communicators, windows or requests its rank set up.
#[derive(Debug, thiserror::Error)]
pub enum NormaliseError {
    #[error("uses communicator {0}, which this rank never created")]
    UnknownComm(u32),
    #[error(transparent)]
    Comms(#[from] CommsError),
    #[error(transparent)]
    Window(#[from] WinError),
    #[error(transparent)]
    Def(#[from] CommDefError),
    /// A rank outside the record's communicator, as psins-formats words it.
    #[error("{0}")]
    Outside(Bad),
    #[error(transparent)]
    Request(#[from] Misuse),
}

pub struct RankState {
    pub rank: u32,
    world_size: u32,
    pub reqs: Requests,
    after_world_coll: bool,
    /// Record indices just after each blocking collective on the world communicator (and its
    /// expansion steps): the places where all ranks can be cut consistently. Kept only by the
    /// scan of a truncated run (`track_sync`): elsewhere nothing reads them, and a list per
    /// rank and world collective would make memory grow with the run.
    pub sync_points: Vec<u64>,
    track_sync: bool,
    /// The communicator of the last collective: its expansion steps (which follow it) name
    /// ranks of it.
    coll_reach: Option<Reach>,
}

impl RankState {
    pub fn new(rank: u32, world_size: u32, track_sync: bool) -> RankState {
        RankState {
            rank,
            world_size,
            reqs: Requests::default(),
            after_world_coll: false,
            sync_points: Vec::new(),
            track_sync,
            coll_reach: None,
        }
    }

    /// Checks and rewrites record `idx` in place.
    pub fn apply(&mut self, comms: &mut Comms, rec: &mut Record, idx: u64) -> Result<(), NormaliseError> {
        if self.after_world_coll && !matches!(rec.op, Op::Step { .. }) {
            if self.track_sync {
                self.sync_points.push(idx);
            }
            self.after_world_coll = false;
        }
        if let Op::Coll { comm: COMM_WORLD, flags, .. } = rec.op {
            self.after_world_coll = flags & CollFlags::NONBLOCKING == 0;
        }
        self.normalise_comms(comms, rec)?;
        Ok(self.reqs.apply(&mut rec.op, &mut rec.list)?)
    }

    /// Closes the last sync point when the stream ends right after a world collective.
    pub fn end(&mut self, records: u64) {
        if self.after_world_coll && self.track_sync {
            self.sync_points.push(records);
            self.after_world_coll = false;
        }
    }

    /// One dispatch on the record's kind: a mixed stream's kinds defeat the prediction of
    /// each further `match` on them (a separate window check, `comm_mut` and rank check per
    /// record made the default consolidation 17 % slower, measurements/2026-12-01-benchmarks).
    fn normalise_comms(&mut self, comms: &mut Comms, rec: &mut Record) -> Result<(), NormaliseError> {
        let rank = self.rank;
        let unknown = NormaliseError::UnknownComm;
        let (comm, named) = match &mut rec.op {
            Op::Send { peer, comm, .. } | Op::Isend { peer, comm, .. } | Op::SendInit { peer, comm, .. } => {
                (comm, Named::Dest(*peer))
            }
            Op::Recv { peer, comm, .. }
            | Op::Irecv { peer, comm, .. }
            | Op::RecvInit { peer, comm, .. }
            | Op::Probe { peer, comm, .. } => (comm, Named::Source(*peer)),
            Op::Poll { func, peer, comm, .. } if func.is_probe() => (comm, Named::Source(*peer)),
            Op::Sendrecv { peer, src, comm, .. } => (comm, Named::Both(*peer, *src)),
            Op::Coll { root, comm, .. } => (comm, Named::Root(*root)),
            &mut Op::Step { op, peer, peer2, .. } => {
                // A step with no collective before it is the replay's to refuse (record order).
                if let Some(on) = self.coll_reach {
                    let bad = |p: i32| !on.holds(p);
                    if (op != StepOp::WaitAll && bad(peer)) || (op == StepOp::SendRecv && bad(peer2)) {
                        return Err(NormaliseError::Outside(on.outside("peer", if bad(peer) { peer } else { peer2 })));
                    }
                }
                return Ok(());
            }
            Op::CommCreate { parent, comm, split, .. } => {
                *parent = comms.to_global(rank, *parent).ok_or_else(|| unknown(*parent))?;
                if *comm == COMM_NULL && rec.list.is_empty() {
                    return Ok(());
                }
                let def = CommDef::from_record(*comm, *split, &rec.list, self.world_size)?;
                *comm = comms.created(rank, *comm, &def.members, *split)?;
                return Ok(());
            }
            Op::CommFree { comm } => {
                let local = *comm;
                *comm = comms.to_global(rank, local).ok_or_else(|| unknown(local))?;
                comms.freed(rank, local);
                return Ok(());
            }
            Op::WinCreate { .. } | Op::WinFree { .. } | Op::Rma { .. } | Op::WinSync { .. } => {
                crate::windows::normalise(comms, rank, self.world_size, rec)?;
                return Ok(());
            }
            _ => return Ok(()),
        };
        let c = comms.resolve(rank, *comm).ok_or_else(|| unknown(*comm))?;
        *comm = c.global;
        if let Some((what, p)) = named.outside(c.reach) {
            return Err(NormaliseError::Outside(c.reach.outside(what, p)));
        }
        if let Named::Root(_) = named {
            self.coll_reach = Some(c.reach);
        }
        Ok(())
    }
}

/// The ranks a record names on its communicator.
#[derive(Clone, Copy)]
enum Named {
    /// A destination: MPI_PROC_NULL is valid.
    Dest(i32),
    /// A source: MPI_PROC_NULL and MPI_ANY_SOURCE are valid.
    Source(i32),
    /// A send's destination and a receive's source.
    Both(i32, i32),
    /// A collective's root.
    Root(i32),
}

impl Named {
    /// The rank that is none of `on`'s, if any (`what` it is, and the rank): a peer out of
    /// range would otherwise reach the replay, whose message no longer names the log. A
    /// collective's root may be none (`NO_RANK`: no root, or MPI_ROOT in an
    /// intercommunicator's root group) or, in that group's other members, MPI_PROC_NULL.
    #[inline]
    fn outside(self, on: Reach) -> Option<(&'static str, i32)> {
        let dest = |p: i32| p != PROC_NULL && !on.holds(p);
        let source = |p: i32| p != ANY_SOURCE && dest(p);
        let peer = |p: i32, bad: bool| bad.then_some(("peer", p));
        match self {
            Named::Dest(p) => peer(p, dest(p)),
            Named::Source(p) => peer(p, source(p)),
            Named::Both(p, src) => peer(p, dest(p)).or_else(|| peer(src, source(src))),
            Named::Root(root) if root == NO_RANK || (on.inter && root == PROC_NULL) => None,
            Named::Root(root) => (!on.holds(root)).then_some(("root", root)),
        }
    }
}
