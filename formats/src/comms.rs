//! The trace's communicators as the exporters need them: a peer's world rank, a rank's
//! place in a communicator. MPI_COMM_WORLD and MPI_COMM_SELF are in every trace without being
//! listed in its table. [`Reach`] is the one bound on a named rank, with one message: the
//! exporters, psins-consolidate (on every log record), the DUMPI and OTF2 importers and
//! psins-sim (peers and collective steps) all apply it. [`WinReach`] is its one-sided
//! counterpart, the bound on an RMA target, applied by psins-consolidate and psins-sim.

use crate::{CommDef, TraceReader, COMM_SELF, COMM_WORLD, OUTSIDE_JOB, PROC_NULL};
use std::collections::HashMap;
use std::fmt;

/// Why a communicator question has no answer (the caller names the record).
pub type Bad = String;

/// The trace's communicators: its table, plus MPI_COMM_WORLD and MPI_COMM_SELF, which every
/// trace has without listing them.
pub struct Comms {
    pub defs: HashMap<u32, CommDef>,
    pub world: u32,
}

impl Comms {
    /// The communicators of `reader`'s trace.
    pub fn of(reader: &TraceReader) -> Comms {
        let defs = reader.header.comms.iter().map(|c| (c.id, c.clone())).collect();
        Comms { defs, world: reader.tasks() }
    }

    /// World rank of `peer` on communicator `comm` as `rank` sees it; None for MPI_PROC_NULL.
    pub fn peer(&self, rank: u32, comm: u32, peer: i32) -> Result<Option<u32>, Bad> {
        if peer == PROC_NULL {
            return Ok(None);
        }
        match comm {
            COMM_WORLD => return Reach::intra(comm, self.world).check("peer", peer).map(|_| Some(peer as u32)),
            COMM_SELF => return Reach::intra(comm, 1).check("peer", peer).map(|_| Some(rank)),
            _ => {}
        }
        let def = self.def(comm)?;
        let group =
            def.peer_group(rank).ok_or_else(|| format!("rank {rank} is not a member of communicator {comm}"))?;
        Reach { comm, peers: group.len() as u32, inter: def.is_inter() }.check("peer", peer)?;
        match group[peer as usize] {
            OUTSIDE_JOB => Err(format!("peer {peer} of communicator {comm} is a process outside the traced job")),
            w => Ok(Some(w)),
        }
    }

    /// `rank`'s rank in intra-communicator `comm`, and its size.
    pub fn member(&self, rank: u32, comm: u32) -> Result<(u32, u32), Bad> {
        match comm {
            COMM_WORLD => return Ok((rank, self.world)),
            COMM_SELF => return Ok((0, 1)),
            _ => {}
        }
        let def = self.def(comm)?;
        if def.is_inter() {
            return Err(format!(
                "collective on intercommunicator {comm} cannot be expanded (MPICH's algorithms are intra-communicator)"
            ));
        }
        let local = def.members.iter().position(|&m| m == rank);
        let local = local.ok_or_else(|| format!("rank {rank} is not a member of communicator {comm}"))?;
        Ok((local as u32, def.members.len() as u32))
    }

    fn def(&self, comm: u32) -> Result<&CommDef, Bad> {
        self.defs.get(&comm).ok_or_else(|| format!("communicator {comm} is not in the trace's table"))
    }
}

/// The ranks a process can name on communicator `comm` (as its records number it): `0..peers`,
/// its members, or on an intercommunicator (`inter`) its remote group's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reach {
    pub comm: u32,
    pub peers: u32,
    pub inter: bool,
}

impl Reach {
    pub fn intra(comm: u32, size: u32) -> Reach {
        Reach { comm, peers: size, inter: false }
    }

    /// `p` (a `what`: peer, root) checked to be one of these ranks. Sentinels
    /// (MPI_PROC_NULL, MPI_ANY_SOURCE, none) are the caller's to allow first: here they are
    /// outside, like any negative rank. A format's unsigned rank (OTF2's) is taken as it is,
    /// so that the message prints the number the input holds.
    #[inline]
    pub fn check(self, what: &str, p: impl Into<i64>) -> Result<(), Bad> {
        bounded(p.into(), self.peers, |p| self.outside(what, p))
    }

    /// Whether `p` is one of these ranks (for a caller on a hot path, which builds the message
    /// with [`Reach::outside`] only when it is not).
    #[inline]
    pub fn holds(self, p: i32) -> bool {
        within(i64::from(p), self.peers)
    }

    /// Why `p` (a `what`: peer, root) is not one of these ranks.
    #[cold]
    pub fn outside(self, what: &str, p: impl Into<i64>) -> Bad {
        let (p, comm, n) = (p.into(), self.comm, self.peers);
        if self.inter {
            format!("{what} {p} is outside the remote group of intercommunicator {comm} (size {n})")
        } else {
            format!("{what} {p} is outside communicator {comm} (size {n})")
        }
    }
}

/// The ranks a one-sided call can target on window `win` (as the caller numbers it): `0..size`,
/// the ranks of the communicator the window was created over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WinReach {
    pub win: u32,
    pub size: u32,
}

impl WinReach {
    /// `p` (a `what`: target, lock target) checked to be one of these ranks. MPI_PROC_NULL is
    /// the caller's to allow first.
    /// `what` is a `Display` so that a caller's composed name (`format_args!`) is worded only
    /// when the check fails.
    pub fn check(self, what: impl fmt::Display, p: impl Into<i64>) -> Result<(), Bad> {
        bounded(p.into(), self.size, |p| self.outside(what, p))
    }

    /// Why `p` (a `what`: target, lock target) is not one of these ranks.
    #[cold]
    pub fn outside(self, what: impl fmt::Display, p: impl Into<i64>) -> Bad {
        format!("{what} {} is outside window {} (size {})", p.into(), self.win, self.size)
    }
}

/// Whether `p` is one of the ranks `0..n`: the one bound of [`Reach`] and [`WinReach`]. One
/// comparison, for the replay's peer checks: a negative rank is a huge u64.
#[inline]
fn within(p: i64, n: u32) -> bool {
    (p as u64) < u64::from(n)
}

/// `Ok` when `p` is within `0..n`, else the error `outside` words.
#[inline]
fn bounded(p: i64, n: u32, outside: impl FnOnce(i64) -> Bad) -> Result<(), Bad> {
    if within(p, n) {
        Ok(())
    } else {
        Err(outside(p))
    }
}

#[cfg(test)]
mod tests {
    use super::{Reach, WinReach};

    #[test]
    fn bounds_and_words_a_rank() {
        let on = Reach::intra(17, 2);
        assert!(on.holds(0) && on.holds(1) && !on.holds(2) && !on.holds(-1));
        assert_eq!(on.check("peer", 1), Ok(()));
        assert_eq!(on.check("peer", 2).unwrap_err(), "peer 2 is outside communicator 17 (size 2)");
        assert_eq!(on.check("peer", -2).unwrap_err(), "peer -2 is outside communicator 17 (size 2)");
        // an unsigned rank beyond i32 is printed as the input holds it, not wrapped negative
        assert_eq!(on.check("root", u32::MAX).unwrap_err(), "root 4294967295 is outside communicator 17 (size 2)");
        let inter = Reach { comm: 5, peers: 1, inter: true };
        assert_eq!(
            inter.check("peer", 1).unwrap_err(),
            "peer 1 is outside the remote group of intercommunicator 5 (size 1)"
        );
    }

    #[test]
    fn bounds_and_words_a_target() {
        let on = WinReach { win: 3, size: 2 };
        assert_eq!(on.check("target", 0), Ok(()));
        assert_eq!(on.check("target", 1), Ok(()));
        assert_eq!(on.check("target", 2).unwrap_err(), "target 2 is outside window 3 (size 2)");
        assert_eq!(on.check("lock target", -1).unwrap_err(), "lock target -1 is outside window 3 (size 2)");
    }
}
