//! An extrapolated run streamed straight into the replay (`extrapolate:A,B,C:ranks=N`): the
//! traces of a series are extrapolated to N ranks (psins-extrapolate, docs/extrapolate.md)
//! and each rank's records are generated as the replay asks for them, from a cursor of a few
//! dozen bytes per rank, so a 65,536-rank extrapolation needs no file.

use super::{RecordStream, TraceSource};
use crate::error::{Result, SimError};
use psins_extrapolate::fit::Scaling;
use psins_extrapolate::generate::Cursor;
use psins_extrapolate::{Extrapolation, Options, Refusal};
use psins_formats::{CommDef, Record};
use std::path::PathBuf;
use std::sync::Arc;

pub const SPEC_HELP: &str = "extrapolate:TRACE,TRACE,TRACE:ranks=N[,scaling=weak|strong][,tolerance=PERCENT] (compact traces of one application at three or more rank counts)";

/// The parsed spec.
pub struct Spec {
    pub traces: Vec<PathBuf>,
    pub opts: Options,
}

impl Spec {
    pub fn parse(spec: &str) -> Result<Spec> {
        let bad = |m: String| SimError::Usage(format!("`{spec}`: {m}\n  expected {SPEC_HELP}"));
        let rest = spec.strip_prefix("extrapolate:").ok_or_else(|| bad("must start with extrapolate:".into()))?;
        let (files, params) = rest.rsplit_once(':').ok_or_else(|| bad("no `:ranks=N`".into()))?;
        let traces: Vec<PathBuf> = files.split(',').filter(|s| !s.is_empty()).map(PathBuf::from).collect();
        let mut opts = Options { ranks: 0, scaling: Scaling::Unknown, tolerance: 0.05 };
        for kv in params.split(',').filter(|s| !s.is_empty()) {
            let (k, v) = kv.split_once('=').ok_or_else(|| bad(format!("`{kv}` is not key=value")))?;
            match k {
                "ranks" => opts.ranks = v.parse().map_err(|_| bad(format!("ranks: `{v}` is not a number")))?,
                "scaling" => {
                    opts.scaling = match v {
                        "weak" => Scaling::Weak,
                        "strong" => Scaling::Strong,
                        _ => return Err(bad(format!("scaling: `{v}` is neither weak nor strong"))),
                    }
                }
                "tolerance" => {
                    let pc: f64 = v
                        .trim_end_matches('%')
                        .parse()
                        .map_err(|_| bad(format!("tolerance: `{v}` is not a percentage")))?;
                    opts.tolerance = pc / 100.0;
                }
                _ => return Err(bad(format!("unknown key `{k}`"))),
            }
        }
        if opts.ranks == 0 {
            return Err(bad("ranks must be given, and at least 1".into()));
        }
        Ok(Spec { traces, opts })
    }
}

/// The extrapolated run as a trace source.
pub struct ExtrapolatedSource {
    ex: Arc<Extrapolation>,
    cursors: Vec<Cursor>,
    inputs: String,
    /// The series' MPI library, as its first trace names it.
    mpi_version: Option<String>,
}

impl ExtrapolatedSource {
    pub fn open(spec: &str) -> Result<ExtrapolatedSource> {
        let s = Spec::parse(spec)?;
        let (series, ex) = psins_extrapolate::from_paths(&s.traces, &s.opts).map_err(|r| match r {
            Refusal::Usage(m) => SimError::Usage(format!("`{spec}`: {m}")),
            Refusal::Trace(e) => SimError::Trace(e),
            Refusal::Input(m) => SimError::Input(m),
        })?;
        let sizes: Vec<String> = series.sizes().iter().map(|p| p.to_string()).collect();
        let n = ex.ranks() as usize;
        Ok(ExtrapolatedSource {
            cursors: vec![Cursor::default(); n],
            inputs: format!("{} ranks, {}", sizes.join("/"), ex.grid),
            mpi_version: series.traces[0].meta.iter().find(|(k, _)| k == "mpi_version").map(|(_, v)| v.clone()),
            ex: Arc::new(ex),
        })
    }

    pub fn extrapolation(&self) -> &Extrapolation {
        &self.ex
    }
}

impl TraceSource for ExtrapolatedSource {
    fn tasks(&self) -> u32 {
        self.ex.ranks()
    }

    /// An upper bound: every rank making every call of the template (edge ranks make fewer).
    fn total_records(&self) -> u64 {
        self.ex.calls_per_rank() * self.ex.ranks() as u64
    }

    fn comms(&self) -> Vec<CommDef> {
        self.ex.comms()
    }

    #[inline]
    fn next(&mut self, t: u32, rec: &mut Record) -> Result<bool> {
        Ok(self.ex.next(t, &mut self.cursors[t as usize], rec))
    }

    #[inline]
    fn prefetch(&self, t: u32) {
        if let Some(c) = self.cursors.get(t as usize) {
            crate::engine::prefetch(c as *const Cursor, size_of::<Cursor>());
        }
    }

    fn is_consumed(&self, t: u32) -> bool {
        self.cursors[t as usize].done
    }

    fn lookahead(&self, t: u32) -> Result<Box<dyn RecordStream>> {
        Ok(Box::new(Stream { ex: self.ex.clone(), t, cursor: Cursor::default() }))
    }

    fn mpi_library(&self) -> Option<String> {
        self.mpi_version.clone()
    }

    fn describe(&self) -> String {
        format!("extrapolated from {} ({} tasks)", self.inputs, self.ex.ranks())
    }
}

struct Stream {
    ex: Arc<Extrapolation>,
    t: u32,
    cursor: Cursor,
}

impl RecordStream for Stream {
    fn next(&mut self, rec: &mut Record) -> Result<bool> {
        Ok(self.ex.next(self.t, &mut self.cursor, rec))
    }
}
