//! Communicator ids across ranks.
//!
//! Each rank's tracer numbers the communicators it creates with its own counter, so the same
//! communicator can have different ids on different ranks. A communicator is identified
//! globally by its member list and by how many communicators with that same member list the
//! rank had created before it (MPI's collective creation order makes that count agree on every
//! member). Ids 0 (world) and 1 (each task's own self) keep their meaning.
//!
//! An intercommunicator's ranks list their local group first, so the two sides list the same
//! two groups in opposite orders; its identity is the pair in a canonical order (the
//! lexicographically smaller group first), which both sides compute alike.

use psins_formats::comms::Reach;
use psins_formats::{CommDef, COMM_SELF, COMM_WORLD, OUTSIDE_JOB};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;

/// A communicator's members in canonical order and the size of its first group (0 for an
/// intra-communicator), as in [`CommDef`].
type Group = (Vec<u32>, u32);

/// A communicator creation or definition the logs do not agree on.
#[derive(Debug, thiserror::Error)]
pub enum CommsError {
    #[error("communicator {local} does not contain the rank that created it (members {members:?})")]
    NotAMember { local: u32, members: Vec<u32> },
    #[error("communicator id {local} created twice without being freed")]
    CreatedTwice { local: u32 },
    #[error(
        "communicator definitions disagree: communicator {id} with members {members:?} was created by ranks {creators:?} but never by {missing:?}"
    )]
    Disagree { id: u32, members: Vec<u32>, creators: Vec<u32>, missing: Vec<u32> },
}

#[derive(Default)]
pub struct Comms {
    /// (group, occurrence) → global id and the ranks that created it.
    global: BTreeMap<(Group, u32), (u32, Vec<u32>)>,
    /// Per rank: local id → global id, and the ranks the rank can name on it (what every
    /// record's peers are checked against, at no cost beyond the lookup the id needs anyway).
    local: Vec<HashMap<u32, Local>>,
    /// Per rank: how many comms with this group it has created so far.
    seen: Vec<HashMap<Group, u32>>,
    next: u32,
    /// Windows, which are named by their communicator (consolidate/src/windows.rs).
    pub wins: crate::windows::Windows,
}

/// A rank's communicator: its global id, and the ranks the rank's records name on it.
#[derive(Clone, Copy)]
pub struct Local {
    pub global: u32,
    pub reach: Reach,
}

/// The canonical form of a member list whose first `split` entries are the creating rank's
/// local group (0: an intra-communicator, kept as it is).
fn canonical(members: &[u32], split: u32) -> Group {
    let (a, b) = members.split_at(split as usize);
    if split == 0 || a <= b {
        (members.to_vec(), split)
    } else {
        ([b, a].concat(), b.len() as u32)
    }
}

impl Comms {
    pub fn new(world_size: u32) -> Comms {
        let fixed = || {
            let own = |c, n| (c, Local { global: c, reach: Reach::intra(c, n) });
            HashMap::from_iter([own(COMM_WORLD, world_size), own(COMM_SELF, 1)])
        };
        Comms {
            global: BTreeMap::new(),
            local: (0..world_size).map(|_| fixed()).collect(),
            seen: (0..world_size).map(|_| HashMap::default()).collect(),
            next: 2,
            wins: Default::default(),
        }
    }

    /// Registers rank `rank`'s creation of local communicator `local` with `members` (for an
    /// intercommunicator, `split` > 0 of them its local group, then its remote group) and
    /// returns its global id. Idempotent across passes once [`Comms::reset_locals`] ran.
    pub fn created(&mut self, rank: u32, local: u32, members: &[u32], split: u32) -> Result<u32, CommsError> {
        let own = if split == 0 { members } else { &members[..split as usize] };
        if !own.contains(&rank) {
            return Err(CommsError::NotAMember { local, members: members.to_vec() });
        }
        let group = canonical(members, split);
        let n = self.seen[rank as usize].entry(group.clone()).or_insert(0);
        let key = (group, *n);
        *n += 1;
        let next = &mut self.next;
        let entry = self.global.entry(key).or_insert_with(|| {
            *next += 1;
            (*next - 1, Vec::new())
        });
        if !entry.1.contains(&rank) {
            entry.1.push(rank);
        }
        let id = entry.0;
        // The ranks this rank names: all members, or on an intercommunicator its remote group.
        let peers = members.len() as u32 - split;
        let reach = Reach { comm: local, peers, inter: split != 0 };
        if self.local[rank as usize].insert(local, Local { global: id, reach }).is_some() {
            return Err(CommsError::CreatedTwice { local });
        }
        Ok(id)
    }

    /// Rank `rank` freed its local communicator `local`: the local id may be reused.
    pub fn freed(&mut self, rank: u32, local: u32) {
        if local > COMM_SELF {
            self.local[rank as usize].remove(&local);
        }
    }

    #[inline]
    pub fn to_global(&self, rank: u32, local: u32) -> Option<u32> {
        self.resolve(rank, local).map(|l| l.global)
    }

    /// Rank `rank`'s communicator `local`: its global id and the ranks its records may name
    /// (the message names `local`, the id in the rank's log). None if the rank never made it.
    #[inline]
    pub fn resolve(&self, rank: u32, local: u32) -> Option<Local> {
        if local == COMM_WORLD {
            // Without a lookup: every rank of the job is one of the world's.
            return Some(Local { global: COMM_WORLD, reach: Reach::intra(COMM_WORLD, self.local.len() as u32) });
        }
        self.local[rank as usize].get(&local).copied()
    }

    /// Every member of every communicator must have created it; ranks in `excused`
    /// (truncated logs) may lack the creations after their cut.
    pub fn check(&self, excused: &[bool]) -> Result<(), CommsError> {
        for (((members, _), _), (id, creators)) in &self.global {
            let missing: Vec<u32> = members
                .iter()
                .copied()
                .filter(|&m| m != OUTSIDE_JOB && !creators.contains(&m) && !excused[m as usize])
                .collect();
            if !missing.is_empty() {
                return Err(CommsError::Disagree {
                    id: *id,
                    members: members.clone(),
                    creators: creators.clone(),
                    missing,
                });
            }
        }
        Ok(())
    }

    /// The table written into the trace (world included; self is per task and implicit).
    pub fn table(&self, world_size: u32) -> Vec<CommDef> {
        let mut t = vec![CommDef::intra(COMM_WORLD, (0..world_size).collect())];
        let mut rest: Vec<CommDef> = self
            .global
            .iter()
            .map(|(((m, split), _), (id, _))| CommDef { id: *id, members: m.clone(), split: *split })
            .collect();
        rest.sort_by_key(|c| c.id);
        t.extend(rest);
        t
    }

    /// Number of processes in global communicator `id` (both groups of an intercommunicator).
    pub fn size(&self, id: u32, world_size: u32) -> Option<u32> {
        match id {
            COMM_WORLD => Some(world_size),
            COMM_SELF => Some(1),
            _ => self.global.iter().find(|(_, (g, _))| *g == id).map(|(((m, _), _), _)| m.len() as u32),
        }
    }

    /// Forget the per-rank local maps (pass 2 replays the creations to rebuild them).
    pub fn reset_locals(&mut self) {
        self.wins.reset_locals();
        for (l, s) in self.local.iter_mut().zip(&mut self.seen) {
            l.retain(|&k, _| k <= COMM_SELF);
            s.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_members_same_order_same_id() {
        let mut c = Comms::new(4);
        // Rank 0 numbers its split 2, rank 2 numbers it 7: they are one communicator.
        c.created(0, 2, &[0, 2], 0).unwrap();
        c.created(2, 7, &[0, 2], 0).unwrap();
        c.created(1, 2, &[1, 3], 0).unwrap();
        c.created(3, 2, &[1, 3], 0).unwrap();
        assert_eq!(c.to_global(0, 2), c.to_global(2, 7));
        assert_ne!(c.to_global(0, 2), c.to_global(1, 2));
        c.check(&[false; 4]).unwrap();
        // A dup of the same group is a different communicator.
        c.created(0, 3, &[0, 2], 0).unwrap();
        assert_ne!(c.to_global(0, 3), c.to_global(0, 2));
        let e = c.check(&[false; 4]).unwrap_err().to_string();
        assert!(e.contains("never by [2]"), "{e}");
        c.check(&[false, false, true, false]).unwrap();
    }

    #[test]
    fn both_sides_of_an_intercommunicator_are_one() {
        let mut c = Comms::new(4);
        // groups {0, 2} and {1, 3}: each rank lists its own group first
        c.created(0, 2, &[0, 2, 1, 3], 2).unwrap();
        c.created(2, 2, &[0, 2, 1, 3], 2).unwrap();
        c.created(1, 4, &[1, 3, 0, 2], 2).unwrap();
        c.check(&[false; 4]).unwrap_err();
        c.created(3, 2, &[1, 3, 0, 2], 2).unwrap();
        c.check(&[false; 4]).unwrap();
        let id = c.to_global(0, 2).unwrap();
        assert_eq!(c.to_global(1, 4), Some(id));
        assert_eq!(c.to_global(3, 2), Some(id));
        let def = c.table(4).into_iter().find(|d| d.id == id).unwrap();
        assert_eq!((def.members, def.split), (vec![0, 2, 1, 3], 2));
        // the same members as one intra-communicator are another communicator
        c.created(0, 3, &[0, 2, 1, 3], 0).unwrap();
        assert_ne!(c.to_global(0, 3), Some(id));
        // a rank must be in its own (local) group
        assert!(c.created(1, 5, &[0, 2, 1, 3], 2).is_err());
    }
}
