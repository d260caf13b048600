//! An OTF2 archive as consolidation's per-rank inputs ([`psins_consolidate::RankInput`]): the
//! global definitions read once, then each rank's location read through libotf2 and converted
//! ([`super::convert`]) when consolidation opens it.

use super::convert::{self, Model};
use super::{defs, events};
use psins_consolidate::{RankInput, Records};
use psins_formats::Error;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// One rank of an OTF2 archive: its location and its event file (which messages name).
pub struct Otf2Rank {
    anchor: PathBuf,
    anchor_c: CString,
    /// `ARCHIVE/N.evt`, the file libotf2 reads this rank's events from.
    evt: PathBuf,
    rank: u32,
    location: u64,
    model: Arc<Model>,
    /// What its events, once read, held: [`UNREAD`], [`CALLS`] or [`EMPTY`] (no MPI call).
    found: AtomicU8,
}

/// The ranks of the archive whose anchor file is `anchor` (`NAME.otf2`), in MPI rank order.
pub fn ranks(anchor: &Path) -> Result<Vec<Otf2Rank>, Error> {
    let anchor_c = CString::new(anchor.as_os_str().as_encoded_bytes())
        .map_err(|_| Error::new(anchor, "the path holds a NUL byte"))?;
    if !anchor.is_file() {
        return Err(Error::new(anchor, "no such file (give the archive's anchor file, NAME.otf2)"));
    }
    let d = defs::read(&anchor_c).map_err(|m| Error::new(anchor, m))?;
    let locations = d.ranks();
    if locations.is_empty() {
        return Err(Error::new(anchor, "the archive defines no locations"));
    }
    let n = locations.len() as u32;
    let comms = d.comms();
    let world: Vec<u32> = (0..n).collect();
    let mut ids: Vec<u32> = comms.keys().copied().collect();
    ids.sort_unstable();
    // Members are ranks (indices into the locations' group): one beyond them would reach the
    // trace as a communicator of a rank that does not exist.
    for &c in &ids {
        if let Some(&m) = comms[&c].members.iter().find(|&&m| m >= n) {
            let ranks = if n == 1 { "rank" } else { "ranks" };
            let msg = format!("the definitions' communicator {c} lists rank {m}; the archive has {n} {ranks}");
            return Err(Error::new(anchor, msg));
        }
    }
    let world_comm = ids.iter().copied().find(|c| !comms[c].is_self && comms[c].members == world);
    let self_comm = ids.iter().copied().find(|c| comms[c].is_self);
    let regions = d.region_ids().map(|r| (r, (d.region(r).0.to_string(), d.region(r).1))).collect();
    let model = Arc::new(Model {
        regions,
        comms: comms.into_iter().map(|(k, v)| (k, (v.members, v.parent))).collect(),
        world: n,
        world_comm,
        self_comm,
        resolution: d.resolution,
        offset: d.offset,
        count_attr: d.attribute(super::write::COUNT_ATTRIBUTE),
    });
    let dir = anchor.with_extension("");
    Ok(locations
        .into_iter()
        .enumerate()
        .map(|(rank, location)| Otf2Rank {
            anchor: anchor.to_path_buf(),
            anchor_c: anchor_c.clone(),
            evt: dir.join(format!("{location}.evt")),
            rank: rank as u32,
            location,
            model: model.clone(),
            found: AtomicU8::new(UNREAD),
        })
        .collect())
}

impl Otf2Rank {
    pub fn anchor(&self) -> &Path {
        &self.anchor
    }
    pub(super) fn anchor_c(&self) -> &CString {
        &self.anchor_c
    }
    pub(super) fn location(&self) -> u64 {
        self.location
    }
    pub(super) fn model(&self) -> &Model {
        &self.model
    }
}

/// After consolidation (whether it succeeded or not): the ranks read and found empty must be
/// needed by no other rank's events, or the archive is incomplete ([`super::members`]). Its
/// error is the cause of a consolidation failure such a rank brings (a communicator its
/// members did not all create), so it is given instead.
pub fn check_empty_ranks(ranks: &[Otf2Rank]) -> Result<(), Error> {
    let found =
        |f: u8| -> Vec<u32> { ranks.iter().filter(|r| r.found.load(Ordering::Relaxed) == f).map(|r| r.rank).collect() };
    super::members::check(ranks, &found(EMPTY), &found(CALLS))
}

/// What a rank's events held, once read by consolidation (which may stop before the last).
const UNREAD: u8 = 0;
const CALLS: u8 = 1;
const EMPTY: u8 = 2;

impl RankInput for Otf2Rank {
    type Stream = Records;
    fn path(&self) -> &Path {
        &self.evt
    }
    fn rank(&self) -> u32 {
        self.rank
    }
    // Known complete (the default): libotf2 reads a location whole or fails.
    fn open(&self) -> Result<Records, Error> {
        let at = |m: String, event: usize| Error::new(&self.evt, format!("event {event}: {m}")).task(self.rank);
        let evs = events::read(&self.anchor_c, self.location, self.model.count_attr).map_err(|(m, n)| at(m, n))?;
        let records = convert::records(&self.model, self.rank, &evs).map_err(|(m, n)| at(m, n))?;
        self.found.store(if records.is_empty() { EMPTY } else { CALLS }, Ordering::Relaxed);
        Ok(Records::new(records))
    }
}
