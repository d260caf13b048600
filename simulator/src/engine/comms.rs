//! Communicators: translate communicator-local ranks to world ranks and back.
//! World and self are implicit; the others come from the trace header and CommCreate records.
//! An intercommunicator holds both its groups: a point-to-point peer is a rank of the group
//! the caller is not in, and its collectives involve every member of both.

use psins_formats::comms::Reach;
use psins_formats::{CommDef, COMM_SELF, COMM_WORLD, OUTSIDE_JOB};
use std::collections::BTreeMap;

struct Comm {
    /// World ranks; an intercommunicator's two groups one after the other.
    members: Vec<u32>,
    /// Size of an intercommunicator's first group; 0 for an intra-communicator.
    split: u32,
    /// (world, position in `members`) sorted by world rank, for the reverse lookup.
    by_world: Vec<(u32, u32)>,
}

impl Comm {
    fn position(&self, world: u32) -> Option<u32> {
        self.by_world.binary_search_by_key(&world, |&(w, _)| w).ok().map(|i| self.by_world[i].1)
    }

    /// The world ranks that `caller`'s peers index (see the module comment).
    fn peers(&self, caller: u32) -> &[u32] {
        if self.split == 0 {
            return &self.members;
        }
        let (a, b) = self.members.split_at(self.split as usize);
        match self.position(caller) {
            Some(p) if p < self.split => b,
            Some(_) => a,
            None => &[],
        }
    }
}

pub struct Comms {
    world: u32,
    map: BTreeMap<u32, Comm>,
}

impl Comms {
    pub fn new(world: u32, defs: &[CommDef]) -> Comms {
        let mut c = Comms { world, map: BTreeMap::new() };
        for d in defs {
            c.insert(d.id, &d.members, d.split);
        }
        c
    }

    /// Registers `id` (a CommCreate seen in a stream). The first definition wins: every
    /// member's record lists the same members (an intercommunicator's in either group order).
    pub fn insert(&mut self, id: u32, members: &[u32], split: u32) {
        if id == COMM_WORLD || id == COMM_SELF || self.map.contains_key(&id) {
            return;
        }
        let mut by_world: Vec<(u32, u32)> = members.iter().enumerate().map(|(l, &w)| (w, l as u32)).collect();
        by_world.sort_unstable();
        self.map.insert(id, Comm { members: members.to_vec(), split, by_world });
    }

    pub fn is_inter(&self, comm: u32) -> bool {
        self.map.get(&comm).is_some_and(|c| c.split != 0)
    }

    /// Whether some members of `comm` are processes outside the traced job (spawned).
    pub fn reaches_outside(&self, comm: u32) -> bool {
        self.map.get(&comm).is_some_and(|c| c.by_world.last().is_some_and(|&(w, _)| w == OUTSIDE_JOB))
    }

    pub fn known(&self, id: u32) -> bool {
        id == COMM_WORLD || id == COMM_SELF || self.map.contains_key(&id)
    }

    /// Number of processes taking part in `comm`'s collectives (both groups of an
    /// intercommunicator).
    pub fn size(&self, comm: u32) -> Option<u32> {
        match comm {
            COMM_WORLD => Some(self.world),
            COMM_SELF => Some(1),
            _ => self.map.get(&comm).map(|c| c.members.len() as u32),
        }
    }

    /// World rank of local rank `local` of `comm`, as seen by `caller`.
    #[inline]
    pub fn world_of(&self, comm: u32, caller: u32, local: i32) -> Option<u32> {
        if local < 0 {
            return None;
        }
        match comm {
            COMM_WORLD => ((local as u32) < self.world).then_some(local as u32),
            COMM_SELF => (local == 0).then_some(caller),
            _ => self.map.get(&comm)?.peers(caller).get(local as usize).copied(),
        }
    }

    /// How many ranks `caller` can address on `comm` (the remote group's size on an
    /// intercommunicator).
    pub fn peer_count(&self, comm: u32, caller: u32) -> u32 {
        match comm {
            COMM_WORLD => self.world,
            COMM_SELF => 1,
            _ => self.map.get(&comm).map_or(0, |c| c.peers(caller).len() as u32),
        }
    }

    /// The ranks `caller` can name on `comm`, as psins-consolidate bounds them in a log.
    pub fn reach(&self, comm: u32, caller: u32) -> Reach {
        Reach { comm, peers: self.peer_count(comm, caller), inter: self.is_inter(comm) }
    }

    /// Local rank of world rank `world` in `comm`; on an intercommunicator, its position
    /// among the members of both groups (what the collective bookkeeping indexes).
    pub fn local_of(&self, comm: u32, world: u32) -> Option<u32> {
        match comm {
            COMM_WORLD => Some(world),
            COMM_SELF => Some(0),
            _ => self.map.get(&comm)?.position(world),
        }
    }

    /// Members of `comm` as world ranks (`caller` for self; both groups of an
    /// intercommunicator), indexed like [`Comms::local_of`].
    pub fn members(&self, comm: u32, caller: u32) -> Members<'_> {
        match comm {
            COMM_WORLD => Members::Range(self.world),
            COMM_SELF => Members::One(caller),
            _ => Members::List(self.map.get(&comm).map(|c| c.members.as_slice()).unwrap_or(&[])),
        }
    }
}

pub enum Members<'a> {
    Range(u32),
    One(u32),
    List(&'a [u32]),
}

impl Members<'_> {
    pub fn get(&self, i: usize) -> u32 {
        match self {
            Members::Range(_) => i as u32,
            Members::One(c) => *c,
            Members::List(l) => l[i],
        }
    }
    pub fn len(&self) -> usize {
        match self {
            Members::Range(n) => *n as usize,
            Members::One(_) => 1,
            Members::List(l) => l.len(),
        }
    }
}
