//! An OTF2 archive as consolidation's per-rank inputs ([`psins_consolidate::RankInput`]): the
//! global definitions read once, then each rank's location read through libotf2 and converted
//! ([`super::convert`]) when consolidation opens it.

use super::convert::{self, Folded, Model};
use super::{defs, events};
use psins_consolidate::{RankInput, Records};
use psins_formats::Error;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

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
    /// What its conversion folded (set at each read: consolidation may read a rank twice).
    folded: Mutex<Folded>,
    /// The archive's locations besides the ranks' (other threads), with the rank whose
    /// process each is in (None: no rank's); the same for every rank.
    others: Arc<Vec<(Option<u32>, u64)>>,
}

/// The ranks of the archive whose anchor file is `anchor` (`NAME.otf2`), in MPI rank order.
pub fn ranks(anchor: &Path) -> Result<Vec<Otf2Rank>, Error> {
    let anchor_c = CString::new(anchor.as_os_str().as_encoded_bytes())
        .map_err(|_| Error::new(anchor, "the path holds a NUL byte"))?;
    if !anchor.is_file() {
        return Err(Error::new(anchor, "no such file (give the archive's anchor file, NAME.otf2)"));
    }
    let d = defs::read(&anchor_c).map_err(|m| Error::new(anchor, m.to_string()))?;
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
    let world_comm =
        ids.iter().copied().find(|c| !comms[c].is_self && comms[c].inter.is_none() && comms[c].members == world);
    let inter = comms.iter().filter_map(|(&c, i)| Some((c, i.inter?))).collect();
    let self_comm = ids.iter().copied().find(|c| comms[c].is_self);
    let regions = d.region_ids().map(|r| (r, (d.region(r).0.to_string(), d.region(r).1))).collect();
    let labels = d.region_ids().filter(|&r| !d.region(r).1).map(|r| (r, d.fold_label(r))).collect();
    let others = Arc::new(d.others(&locations));
    let singletons = ids.iter().copied().filter(|&c| comms[&c].is_self && Some(c) != self_comm).collect();
    let model = Arc::new(Model {
        regions,
        comms: comms.into_iter().map(|(k, v)| (k, (v.members, v.parent))).collect(),
        inter,
        windows: d.windows.clone(),
        groups: d.mpi_groups(),
        world: n,
        world_comm,
        self_comm,
        resolution: d.resolution,
        offset: d.offset,
        count_attr: d.attribute(super::write::COUNT_ATTRIBUTE),
        labels,
        scorep: d.creator.starts_with("Score-P"),
        singletons,
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
            folded: Mutex::new(Folded::default()),
            others: others.clone(),
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
    /// What this rank's conversion folded into computation, once consolidation read it.
    pub fn folded(&self) -> Folded {
        self.folded.lock().map(|f| f.clone()).unwrap_or_default()
    }
}

/// What the conversion folded, summed over `ranks`.
pub fn folded(ranks: &[Otf2Rank]) -> Folded {
    let mut sum = Folded::default();
    for r in ranks {
        sum.add(&r.folded());
    }
    sum
}

/// The archive's locations that are no rank's (a hybrid run's other threads: Score-P writes
/// one location per thread), not read: (the rank whose process holds it, or None; location).
pub fn other_locations(ranks: &[Otf2Rank]) -> &[(Option<u32>, u64)] {
    ranks.first().map_or(&[], |r| r.others.as_slice())
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
        let (records, folded) = convert::records(&self.model, self.rank, &evs).map_err(|(m, n)| at(m, n))?;
        if let Ok(mut f) = self.folded.lock() {
            *f = folded;
        }
        self.found.store(if records.is_empty() { EMPTY } else { CALLS }, Ordering::Relaxed);
        Ok(Records::new(records))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per rank, what tests/otf2/scorep.c's archive (Score-P's sequence) folds.
    #[test]
    fn scoreps_folds_counted_per_rank() {
        let dir = std::env::temp_dir().join(format!("psins-otf2-folds-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/otf2/scorep.c");
        let exe = dir.join("scorep");
        let cc = std::process::Command::new("cc").arg(&src).arg("-o").arg(&exe).arg("-lotf2").output().unwrap();
        assert!(cc.status.success(), "{}", String::from_utf8_lossy(&cc.stderr));
        let w = std::process::Command::new(&exe).arg(dir.join("a")).arg("scorep").output().unwrap();
        assert!(w.status.success());
        let ranks = ranks(&dir.join("a/s.otf2")).unwrap();
        assert_eq!(ranks.iter().map(|r| r.location).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(other_locations(&ranks), [(Some(0), 1u64 << 32)]);
        let counts = |v: &[(&str, u64)]| v.iter().map(|&(k, n)| (k.to_string(), n)).collect();
        let mut calls = Vec::new();
        for r in &ranks {
            let mut rd = r.open().unwrap();
            let mut rec = psins_formats::Record::default();
            while psins_consolidate::RecordStream::next(&mut rd, &mut rec).unwrap() {}
            calls.push(psins_consolidate::RecordStream::records(&rd));
        }
        // Init, the message, Finalize on each.
        assert_eq!(calls, [3, 3]);
        let want0 = Folded {
            calls: counts(&[("MPI_Finalized", 1), ("MPI_Initialized", 1)]),
            other: counts(&[
                ("BufferFlush", 1),
                ("MeasurementOnOff", 2),
                ("OpenMP regions", 1),
                ("compiler regions", 1),
                ("user regions", 1),
            ]),
        };
        let want1 = Folded { calls: counts(&[("MPI_Initialized", 1)]), other: counts(&[("compiler regions", 1)]) };
        assert_eq!(ranks[0].folded(), want0);
        assert_eq!(ranks[1].folded(), want1);
        // Read again (consolidation reads a rank twice): the same counts, not doubled.
        ranks[0].open().unwrap();
        assert_eq!(ranks[0].folded(), want0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
