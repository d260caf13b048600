//! The extrapolated run written as a compact trace, through consolidation's checks like a
//! traced run (a generated program consolidation refuses is the extrapolation's error).

use crate::{Extrapolation, Series};
use indicatif::ProgressBar;
use psins_consolidate::run::{self, Failure};
use psins_consolidate::{RankInput, Records};
use psins_formats::Error;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The metadata of an extrapolated trace: the series' traced keys prefixed `traced_` (no
/// `tracer_version`: no run was measured), `clock` = `extrapolated`, the inputs, the topology
/// and the provenance as JSON (docs/extrapolate.md).
pub fn metadata(ex: &Extrapolation, series: &Series) -> Vec<(String, String)> {
    let mut meta = vec![("world_size".to_string(), ex.ranks().to_string())];
    for (k, v) in &series.traces[0].meta {
        if matches!(k.as_str(), "mpi_version" | "clock" | "tracer_version" | "tracer_settings" | "host") {
            meta.push((format!("traced_{k}"), v.clone()));
        }
    }
    meta.push(("clock".to_string(), "extrapolated".to_string()));
    let inputs: Vec<String> = ex.inputs.iter().map(|(p, n)| format!("{p} ({n} ranks)")).collect();
    meta.push(("extrapolated_from".to_string(), inputs.join("; ")));
    meta.push(("extrapolated_topology".to_string(), ex.grid.to_string()));
    meta.push(("extrapolation".to_string(), ex.provenance().to_string()));
    meta.push(("consolidated_by".to_string(), format!("psins-extrapolate {}", env!("CARGO_PKG_VERSION"))));
    meta
}

/// Writes the run to `tmp` (the trace named `name` in messages), streams zstd-compressed at
/// `compress` when given.
pub fn trace(
    ex: &Arc<Extrapolation>,
    series: &Series,
    tmp: &Path,
    name: &Path,
    compress: Option<i32>,
) -> Result<(), Failure> {
    let meta = metadata(ex, series);
    let ranks: Vec<Generated> =
        (0..ex.ranks()).map(|r| Generated { ex: ex.clone(), rank: r, path: name.to_path_buf() }).collect();
    let opts = run::Options { compress, repeats: true, allow_partial: false, quiet: true };
    match run::consolidate(&ranks, &meta, &opts, tmp, &ProgressBar::hidden()) {
        Ok(_) => Ok(()),
        Err(Failure::Input(m)) => {
            Err(Failure::Input(format!("the extrapolated trace fails consolidation's checks: {m}")))
        }
        Err(f) => Err(f),
    }
}

/// One rank of the extrapolated run, generated when consolidation reads it.
struct Generated {
    ex: Arc<Extrapolation>,
    rank: u32,
    path: PathBuf,
}

impl RankInput for Generated {
    type Stream = Records;
    fn path(&self) -> &Path {
        &self.path
    }
    fn rank(&self) -> u32 {
        self.rank
    }
    fn bytes(&self) -> u64 {
        0
    }
    fn open(&self) -> Result<Records, Error> {
        let mut recs = Vec::new();
        self.ex.rank(self.rank, &mut recs).map_err(|e| Error::new(&self.path, e.to_string()))?;
        Ok(Records::new(recs))
    }
}
