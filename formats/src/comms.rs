//! The trace's communicators as the exporters need them: a peer's world rank, a rank's
//! place in a communicator. MPI_COMM_WORLD and MPI_COMM_SELF are in every trace without being
//! listed in its table.

use crate::{CommDef, TraceReader, COMM_SELF, COMM_WORLD, OUTSIDE_JOB, PROC_NULL};
use std::collections::HashMap;

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
        let out = |size: usize| format!("peer {peer} is outside communicator {comm} (size {size})");
        let p = usize::try_from(peer).map_err(|_| out(0))?;
        match comm {
            COMM_WORLD if p < self.world as usize => return Ok(Some(p as u32)),
            COMM_WORLD => return Err(out(self.world as usize)),
            COMM_SELF if p == 0 => return Ok(Some(rank)),
            COMM_SELF => return Err(out(1)),
            _ => {}
        }
        let group = self
            .def(comm)?
            .peer_group(rank)
            .ok_or_else(|| format!("rank {rank} is not a member of communicator {comm}"))?;
        match group.get(p) {
            Some(&OUTSIDE_JOB) => {
                Err(format!("peer {peer} of communicator {comm} is a process outside the traced job"))
            }
            Some(&w) => Ok(Some(w)),
            None => Err(out(group.len())),
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
