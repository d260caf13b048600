//! DUMPI traces (sst-dumpi's libdumpi, as SST/macro and the DOE trace collections use them),
//! read natively: the `.meta` file (`numprocs`, `fileprefix`) and one binary file per rank
//! (`PREFIX-NNNN.bin`), each read through consolidation's checks like a traced run
//! (`psins-import --from dumpi`). docs/interop-dumpi.md says what each call becomes.

mod calls;
mod fields;
mod file;
mod stream;
mod table;

use psins_consolidate::{RankInput, RecordStream};
use psins_formats::{Error, Record};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Calls folded into computation: per rank, a count per dumpi function label.
pub type Folded = Arc<Mutex<BTreeMap<u32, Vec<u32>>>>;

/// One rank's binary file.
pub struct DumpiRank {
    pub path: PathBuf,
    pub rank: u32,
    pub world: u32,
    folded: Folded,
    splits: stream::Splits,
    strict: bool,
}

impl RankInput for DumpiRank {
    type Stream = DumpiStream;
    fn path(&self) -> &Path {
        &self.path
    }
    fn rank(&self) -> u32 {
        self.rank
    }
    // Known complete (the default): the index and footer are checked when the stream opens,
    // the footer's counts when it ends; a file cut short has no index and is refused.
    fn open(&self) -> Result<DumpiStream, Error> {
        let buf = std::fs::read(&self.path).map_err(|e| Error::io(&self.path, "cannot read", e))?;
        let layout = file::Layout::read(&buf).map_err(|b| self.error(b, 0))?;
        let dec = stream::Decoder::new(buf, layout, self.rank, self.world, Some(self.splits.clone()), self.strict);
        Ok(DumpiStream { path: self.path.clone(), rank: self.rank, dec, folded: self.folded.clone() })
    }
}

impl DumpiRank {
    fn error(&self, b: file::Bad, record: u64) -> Error {
        Error::new(&self.path, b.msg).task(self.rank).record(record).at(b.offset)
    }
}

pub struct DumpiStream {
    path: PathBuf,
    rank: u32,
    dec: stream::Decoder,
    folded: Folded,
}

impl RecordStream for DumpiStream {
    fn next(&mut self, rec: &mut Record) -> Result<bool, Error> {
        match self.dec.next(rec) {
            Ok(true) => Ok(true),
            Ok(false) => {
                // A stream read again (consolidation's scan) replaces its tally.
                self.folded.lock().unwrap().insert(self.rank, self.dec.folded.clone());
                Ok(false)
            }
            Err(b) => Err(Error::new(&self.path, b.msg).task(self.rank).record(self.dec.records).at(b.offset)),
        }
    }
    fn records(&self) -> u64 {
        self.dec.records
    }
}

/// A DUMPI trace named by its `.meta` file or the directory holding exactly one.
pub struct Trace {
    pub meta: PathBuf,
    pub ranks: Vec<DumpiRank>,
    pub folded: Folded,
}

impl Trace {
    /// The trace, folding the calls psins does not replay into computation.
    pub fn open(input: &Path) -> Result<Trace, Error> {
        Trace::open_with(input, false)
    }

    /// The trace; with `strict`, a call psins does not replay (one-sided, MPI-IO, a
    /// communicator the importer does not follow) is refused instead of folded.
    pub fn open_with(input: &Path, strict: bool) -> Result<Trace, Error> {
        let meta = if input.is_dir() { only_meta(input)? } else { input.to_path_buf() };
        let text = std::fs::read_to_string(&meta).map_err(|e| Error::io(&meta, "cannot read", e))?;
        let mut keys = BTreeMap::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let (k, v) = line.split_once('=').ok_or_else(|| {
                Error::new(&meta, format!("line {}: not key=value; is this a DUMPI .meta file?", i + 1))
            })?;
            keys.insert(k.trim().to_string(), v.trim().to_string());
        }
        let get = |k: &str| {
            keys.get(k).ok_or_else(|| Error::new(&meta, format!("no {k}= line (a DUMPI .meta file has one)")))
        };
        let world: u32 = get("numprocs")?
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| Error::new(&meta, "numprocs is not a positive number of ranks"))?;
        let prefix = get("fileprefix")?;
        if prefix.contains('/') {
            return Err(Error::new(&meta, format!("fileprefix {prefix:?} names another directory")));
        }
        let dir = meta.parent().unwrap_or(Path::new("."));
        let folded = Folded::default();
        // Grown as the rank files are found, not sized by numprocs: a damaged .meta's
        // numprocs=4000000000 asked for 192 GB up front and the failed allocation aborted the
        // process, where the first missing rank file is the error.
        let mut ranks = Vec::new();
        for r in 0..world {
            let path = dir.join(format!("{prefix}-{r:04}.bin"));
            if !path.is_file() {
                return Err(Error::new(
                    &path,
                    format!("rank {r}'s file is missing ({} names {world} ranks)", meta.display()),
                ));
            }
            ranks.push(DumpiRank { path, rank: r, world, folded: folded.clone(), splits: Default::default(), strict });
        }
        let splits = world_splits(&ranks)?;
        for r in &mut ranks {
            r.splits = splits.clone();
        }
        Ok(Trace { meta, ranks, folded })
    }

    /// The calls without communication folded into computation over every rank: (MPI name,
    /// count), by name.
    pub fn folded_calls(&self) -> Vec<(String, u64)> {
        self.sum(|t| !matches!(t, calls::Take::Unmodelled(_)))
    }

    /// The calls psins does not replay (one-sided, MPI-IO, ...) folded into computation over
    /// every rank: (MPI name, count), by name. `--strict` refuses them.
    pub fn unmodelled_calls(&self) -> Vec<(String, u64)> {
        self.sum(|t| matches!(t, calls::Take::Unmodelled(_)))
    }

    /// Every call folded into computation on `rank` (either kind): (MPI name, count), by name.
    pub fn folded_on(&self, rank: u32) -> Vec<(String, u64)> {
        let mut sum: BTreeMap<String, u64> = BTreeMap::new();
        if let Some(counts) = self.folded.lock().unwrap().get(&rank) {
            for (label, &n) in counts.iter().enumerate().filter(|c| *c.1 > 0) {
                *sum.entry(calls::name(label as u16)).or_default() += n as u64;
            }
        }
        sum.into_iter().collect()
    }

    fn sum(&self, which: impl Fn(calls::Take) -> bool) -> Vec<(String, u64)> {
        let mut sum: BTreeMap<String, u64> = BTreeMap::new();
        for counts in self.folded.lock().unwrap().values() {
            for (label, &n) in counts.iter().enumerate() {
                match calls::take(label as u16) {
                    Some((f, t)) if n > 0 && which(t) => *sum.entry(f.name.to_string()).or_default() += n as u64,
                    _ => {}
                }
            }
        }
        sum.into_iter().collect()
    }
}

/// The first pass: every rank's MPI_Comm_split calls on the world (colour and key), which a
/// rank's communicator members depend on. Files without a split (the footer counts none) are
/// not decoded.
fn world_splits(ranks: &[DumpiRank]) -> Result<stream::Splits, Error> {
    let mut all = Vec::with_capacity(ranks.len());
    for r in ranks {
        let buf = std::fs::read(&r.path).map_err(|e| Error::io(&r.path, "cannot read", e))?;
        let layout = file::Layout::read(&buf).map_err(|b| r.error(b, 0))?;
        if layout.calls.get(stream::COMM_SPLIT as usize).is_none_or(|&n| n == 0) {
            all.push(Vec::new());
            continue;
        }
        let mut dec = stream::Decoder::new(buf, layout, r.rank, r.world, None, r.strict);
        let mut rec = Record::default();
        while dec.next(&mut rec).map_err(|b| r.error(b, dec.records))? {}
        all.push(dec.my_splits);
    }
    Ok(Arc::new(all))
}

fn only_meta(dir: &Path) -> Result<PathBuf, Error> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, "cannot list", e))?;
    let mut metas: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "meta"))
        .collect();
    metas.sort();
    match metas.len() {
        1 => Ok(metas.remove(0)),
        0 => Err(Error::new(dir, "no .meta file: not a DUMPI trace directory")),
        n => Err(Error::new(dir, format!("{n} .meta files: name the one to import"))),
    }
}
