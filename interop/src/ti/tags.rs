//! TI tags. A TI trace has one communicator, MPI_COMM_WORLD, and SMPI matches its messages by
//! (source, tag) in posting order. psins messages also carry a communicator, and collective
//! steps have a context of their own, so each (communicator, tag) and each communicator's
//! collective context becomes one TI tag: then two messages match in SMPI exactly when they
//! match in psins-sim.
//!
//! Application tags on MPI_COMM_WORLD below [`TABLE_BASE`] keep their value (a TI trace then
//! reads like the program); every other context gets a number from `TABLE_BASE` up, in order
//! of first use over the whole export, so sender and receiver always agree.

use psins_formats::COMM_WORLD;
use std::collections::HashMap;

/// The first tag handed out by the table (SMPI tags are C ints).
pub const TABLE_BASE: u32 = 1 << 30;

/// The key of a communicator's collective context (no application tag is negative save
/// MPI_ANY_TAG, which a trace resolves before it reaches us).
const COLL: i64 = i64::MIN;

/// Why a message context has no TI tag.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum TagError {
    #[error("tag {0} is not a tag a message can carry")]
    Negative(i32),
    #[error("more than {} message contexts: TI tags are C ints", i32::MAX as u32 - TABLE_BASE)]
    TooManyContexts,
}

#[derive(Default)]
pub struct Tags {
    table: HashMap<(u32, i64), u32>,
}

impl Tags {
    /// The TI tag of application tag `tag` on communicator `comm`.
    pub fn p2p(&mut self, comm: u32, tag: i32) -> Result<u32, TagError> {
        if tag < 0 {
            return Err(TagError::Negative(tag));
        }
        if comm == COMM_WORLD && (tag as u32) < TABLE_BASE {
            return Ok(tag as u32);
        }
        self.lookup(comm, tag as i64)
    }

    /// The TI tag of collective steps on communicator `comm`.
    pub fn coll(&mut self, comm: u32) -> Result<u32, TagError> {
        self.lookup(comm, COLL)
    }

    fn lookup(&mut self, comm: u32, key: i64) -> Result<u32, TagError> {
        let next = TABLE_BASE as u64 + self.table.len() as u64;
        if let Some(&t) = self.table.get(&(comm, key)) {
            return Ok(t);
        }
        if next > i32::MAX as u64 {
            return Err(TagError::TooManyContexts);
        }
        self.table.insert((comm, key), next as u32);
        Ok(next as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn world_tags_kept_and_contexts_distinct() {
        let mut t = Tags::default();
        assert_eq!(t.p2p(COMM_WORLD, 7), Ok(7));
        assert_eq!(t.coll(COMM_WORLD), Ok(TABLE_BASE));
        assert_eq!(t.p2p(5, 7), Ok(TABLE_BASE + 1));
        assert_eq!(t.coll(5), Ok(TABLE_BASE + 2));
        // The same context again gets the same tag.
        assert_eq!(t.p2p(5, 7), Ok(TABLE_BASE + 1));
        assert_eq!(t.coll(COMM_WORLD), Ok(TABLE_BASE));
        // A world tag in the table's range goes through the table (no collision).
        assert_eq!(t.p2p(COMM_WORLD, TABLE_BASE as i32), Ok(TABLE_BASE + 3));
        assert_eq!(t.p2p(COMM_WORLD, -5), Err(TagError::Negative(-5)));
    }
}
