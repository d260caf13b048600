//! Finding the logs of one run and checking they belong together.

use psins_formats::{jobs, Error, LogHeader, LogReader};
use std::path::{Path, PathBuf};

/// Why the command line names no logs to read.
#[derive(Debug, thiserror::Error)]
pub enum ExpandError {
    #[error("{}: cannot list: {source}", path.display())]
    CannotList { path: PathBuf, source: std::io::Error },
    #[error("{}: {hint}", path.display())]
    Runs { path: PathBuf, hint: String },
    #[error("{}: directory holds no rank-*.bin logs", path.display())]
    NoLogs { path: PathBuf },
    #[error("no input logs given")]
    NoInputs,
}

/// One rank's log, header read.
pub struct Input {
    pub path: PathBuf,
    pub header: LogHeader,
    pub bytes: u64,
}

/// Directories stand for the `rank-*.bin` files inside them.
pub fn expand(args: &[PathBuf]) -> Result<Vec<PathBuf>, ExpandError> {
    let mut files = Vec::new();
    for a in args {
        if a.is_dir() {
            std::fs::read_dir(a).map_err(|source| ExpandError::CannotList { path: a.clone(), source })?;
            let found = jobs::logs_in(a);
            if found.is_empty() {
                let runs = jobs::runs_in(a);
                if !runs.is_empty() {
                    return Err(ExpandError::Runs { path: a.clone(), hint: jobs::runs_hint(&runs) });
                }
                return Err(ExpandError::NoLogs { path: a.clone() });
            }
            files.extend(found);
        } else {
            files.push(a.clone());
        }
    }
    if files.is_empty() {
        return Err(ExpandError::NoInputs);
    }
    Ok(files)
}

/// Opens every log's header and checks they are ranks 0..N−1 of one run, each once.
pub fn open_all(files: &[PathBuf]) -> Result<Vec<Input>, Error> {
    let mut inputs = Vec::with_capacity(files.len());
    for f in files {
        let rd = LogReader::open(f)?;
        let bytes = std::fs::metadata(f).map_err(|e| Error::io(f, "cannot stat", e))?.len();
        inputs.push(Input { path: f.clone(), header: rd.header.clone(), bytes });
    }
    let first = &inputs[0];
    for i in &inputs[1..] {
        check_same_run(first, i)?;
    }
    let n = first.header.world_size;
    let mut by_rank: Vec<Option<Input>> = (0..n).map(|_| None).collect();
    for i in inputs {
        let r = i.header.rank;
        if r >= n {
            return Err(Error::new(&i.path, format!("rank {r} is outside the world size {n}")));
        }
        if let Some(prev) = &by_rank[r as usize] {
            return Err(Error::new(&i.path, format!("rank {r} is given twice: also {}", prev.path.display())));
        }
        by_rank[r as usize] = Some(i);
    }
    let missing: Vec<u32> = (0..n).filter(|&r| by_rank[r as usize].is_none()).collect();
    if !missing.is_empty() {
        return Err(Error::new(dir_of(files), format!("{} of {n} ranks missing: {}", missing.len(), ranges(&missing))));
    }
    Ok(by_rank.into_iter().map(|i| i.expect("checked above")).collect())
}

fn check_same_run(a: &Input, b: &Input) -> Result<(), Error> {
    let (ha, hb) = (&a.header, &b.header);
    if ha.job_id != hb.job_id {
        return Err(Error::new(
            &b.path,
            format!(
                "logs of two different runs: job {:#x} here, job {:#x} in {}",
                hb.job_id,
                ha.job_id,
                a.path.display()
            ),
        ));
    }
    if ha.world_size != hb.world_size {
        return Err(Error::new(
            &b.path,
            format!("world size {} here, {} in {}", hb.world_size, ha.world_size, a.path.display()),
        ));
    }
    // One trace, one meaning of a gap: a rank whose bursts are CPU time (PSINS_CLOCK set for
    // some ranks only, in an MPMD launch) cannot join ranks timed with the wall clock.
    let (ca, cb) = (ha.burst_clock(), hb.burst_clock());
    if ca != cb {
        let name = |c: Option<psins_formats::BurstClock>| c.map_or("an unknown clock", |c| c.name());
        return Err(Error::new(
            &b.path,
            format!(
                "its bursts were timed with the {} clock, those of {} with the {} clock (PSINS_CLOCK must be the same on every rank)",
                name(cb),
                a.path.display(),
                name(ca)
            ),
        ));
    }
    Ok(())
}

fn dir_of(files: &[PathBuf]) -> &Path {
    files[0].parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// `[0, 1, 2, 5, 7, 8]` → `0-2, 5, 7-8`.
pub fn ranges(v: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if i == j { v[i].to_string() } else { format!("{}-{}", v[i], v[j]) });
        i = j + 1;
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn ranges_compress() {
        assert_eq!(super::ranges(&[0, 1, 2, 5, 7, 8]), "0-2, 5, 7-8");
        assert_eq!(super::ranges(&[3]), "3");
    }
}
