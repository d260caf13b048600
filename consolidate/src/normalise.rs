//! One rank's records into the trace's canonical form, checking as it goes. The same code
//! serves the scan pass and the write pass, so both see every record the same way.

use crate::comms::Comms;
use crate::requests::Requests;
use psins_formats::{CollFlags, CommDef, Op, Record, COMM_NULL, COMM_WORLD};

pub struct RankState {
    pub rank: u32,
    world_size: u32,
    pub reqs: Requests,
    after_world_coll: bool,
    /// Record indices just after each blocking collective on the world communicator (and its
    /// expansion steps): the places where all ranks can be cut consistently. Kept only by the
    /// scan of a truncated run (`track_sync`): elsewhere nothing reads them, and a list per
    /// rank and world collective would make memory grow with the run (issue 17 item 8).
    pub sync_points: Vec<u64>,
    track_sync: bool,
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
        }
    }

    /// Checks and rewrites record `idx` in place.
    pub fn apply(&mut self, comms: &mut Comms, rec: &mut Record, idx: u64) -> Result<(), String> {
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
        self.reqs.apply(&mut rec.op, &mut rec.list).map_err(|m| m.to_string())
    }

    /// Closes the last sync point when the stream ends right after a world collective.
    pub fn end(&mut self, records: u64) {
        if self.after_world_coll && self.track_sync {
            self.sync_points.push(records);
            self.after_world_coll = false;
        }
    }

    fn normalise_comms(&self, comms: &mut Comms, rec: &mut Record) -> Result<(), String> {
        let rank = self.rank;
        let unknown = |c: u32| format!("uses communicator {c}, which this rank never created");
        if crate::windows::normalise(comms, rank, self.world_size, rec)? {
            return Ok(());
        }
        match &mut rec.op {
            Op::CommCreate { parent, comm, split, .. } => {
                *parent = comms.to_global(rank, *parent).ok_or_else(|| unknown(*parent))?;
                if *comm == COMM_NULL && rec.list.is_empty() {
                    return Ok(());
                }
                let def = CommDef::from_record(*comm, *split, &rec.list, self.world_size)?;
                *comm = comms.created(rank, *comm, &def.members, *split)?;
            }
            Op::CommFree { comm } => {
                let local = *comm;
                *comm = comms.to_global(rank, local).ok_or_else(|| unknown(local))?;
                comms.freed(rank, local);
            }
            op => {
                if let Some(comm) = op.comm_mut() {
                    *comm = comms.to_global(rank, *comm).ok_or_else(|| unknown(*comm))?;
                }
            }
        }
        Ok(())
    }
}
