//! Extrapolation of an SPMD application's trace to a rank count that was never run, from
//! compact traces of the same application at three or more smaller rank counts (after
//! ScalaExtrap, Wu and Mueller, PPoPP 2011): the programs of all ranks of all traces are
//! aligned into one template whose peers are said relative to a process topology found in
//! the traces ([`template`]), each size and CPU burst is fitted as a law of the rank count
//! ([`fit`]), and the program of every rank at the target is generated from both
//! ([`generate`]) and written through consolidation's checks. docs/extrapolate.md.

pub mod comms;
pub mod faces;
pub mod fit;
pub mod generate;
pub mod shape;
pub mod template;
pub mod topo;
pub mod write;

use fit::{Fit, Scaling};
use generate::Values;
use psins_formats::{Op, Record, TraceReader};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use template::{Mismatch, Program, SlotId, Template};
use topo::{Grid, Shape};

/// The largest difference from even (relative to the mean) of a collective's per-rank counts
/// that is extrapolated as even counts: keys of a sort spread at random, blocks of a
/// decomposition that does not divide evenly.
const MAX_UNEVEN: f64 = 0.25;

/// The fewest own factors (ranks × iterations of the largest trace) from which a slot's bursts
/// draw their spread; a slot with fewer draws from its kind of call's (Fitted::pools).
const MIN_OWN_POOL: usize = 8;

/// Records per rank sampled for the tracer's own cost per call (as psins-sim's
/// `--tracer-overhead auto`).
const OVERHEAD_SAMPLE: usize = 4096;

/// One traced run of the series.
pub struct Trace {
    pub path: PathBuf,
    pub tasks: Vec<Vec<Record>>,
    pub meta: Vec<(String, String)>,
    /// Its communicators other than the world and self (crate::comms).
    pub comms: Vec<psins_formats::CommDef>,
    /// Whether the tracer wrote it (its gaps then hold the tracer's own cost per call).
    pub traced: bool,
    /// Whether its collectives are followed by their expansion steps.
    pub expanded: bool,
}

impl Trace {
    pub fn ranks(&self) -> u32 {
        self.tasks.len() as u32
    }

    /// The first line of the traced run's `MPI_Get_library_version`, when it names one.
    pub fn mpi_version(&self) -> Option<&str> {
        self.meta.iter().find(|(k, _)| k == "mpi_version").map(|(_, v)| v.as_str()).filter(|v| !v.trim().is_empty())
    }

    pub fn open(path: &Path) -> Result<Trace, psins_formats::Error> {
        let r = TraceReader::open(path)?;
        let tasks = r.read_tasks()?;
        let meta = r.header.meta.clone();
        let traced = r.header.meta("tracer_version").is_some();
        let expanded = tasks.iter().any(|t| t.iter().any(|r| matches!(r.op, Op::Step { .. })));
        let comms = r.header.comms.iter().filter(|c| c.id > psins_formats::COMM_SELF).cloned().collect();
        Ok(Trace { path: path.to_path_buf(), tasks, meta, comms, traced, expanded })
    }
}

/// The traces of one application at several rank counts, smallest first.
pub struct Series {
    pub traces: Vec<Trace>,
}

/// Why an extrapolation was refused.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// Bad command-line use (exit 2).
    #[error("{0}")]
    Usage(String),
    /// An input trace that cannot be read (exit 1).
    #[error(transparent)]
    Trace(#[from] psins_formats::Error),
    /// Inputs that cannot be extrapolated (exit 1).
    #[error("{0}")]
    Input(String),
}

/// A collective of the extrapolated program that its library's algorithms refuse.
#[derive(Debug, thiserror::Error)]
#[error("rank {rank}: cannot expand {coll}: {source:?}")]
pub struct ExpandFailure {
    pub rank: u32,
    pub coll: &'static str,
    pub source: psins_collectives::ExpandError,
}

/// Traces of different sizes cannot be compared rank by rank.
#[derive(Debug, thiserror::Error)]
#[error("{got} ranks extrapolated, {want} traced")]
pub struct RanksDiffer {
    pub got: usize,
    pub want: usize,
}

impl Series {
    /// The traces, checked: distinct rank counts, enough of them for `scaling`.
    pub fn new(mut traces: Vec<Trace>, scaling: Scaling) -> Result<Series, Refusal> {
        traces.sort_by_key(|t| t.ranks());
        for w in traces.windows(2) {
            if w[0].ranks() == w[1].ranks() {
                return Err(Refusal::Usage(format!(
                    "{} and {} are both traces of {} ranks: give one trace per rank count",
                    w[0].path.display(),
                    w[1].path.display(),
                    w[0].ranks()
                )));
            }
        }
        let need = if scaling == Scaling::Unknown { 3 } else { 2 };
        if traces.len() < need {
            let with = if scaling == Scaling::Unknown { " (two with --scaling weak or strong)" } else { "" };
            return Err(Refusal::Usage(format!(
                "{} trace{} given: an extrapolation needs traces at {need} or more rank counts{with}",
                traces.len(),
                if traces.len() == 1 { "" } else { "s" }
            )));
        }
        if let Some(t) = traces.iter().find(|t| t.ranks() < 2) {
            return Err(Refusal::Usage(format!(
                "{}: a trace of {} rank says nothing about scaling",
                t.path.display(),
                t.ranks()
            )));
        }
        // The expansions at the target follow one library's algorithms: a series whose runs
        // used different libraries has no one run to extrapolate.
        let library = |t: &Trace| t.mpi_version().and_then(psins_collectives::Library::of_version_string);
        if let Some(w) = traces.windows(2).find(|w| library(&w[0]) != library(&w[1])) {
            let name = |t: &Trace| t.mpi_version().unwrap_or("an MPI library it does not name").to_string();
            return Err(Refusal::Input(format!(
                "{} ran under {} but {} under {}: trace every rank count of the series under one MPI library",
                w[0].path.display(),
                name(&w[0]),
                w[1].path.display(),
                name(&w[1])
            )));
        }
        Ok(Series { traces })
    }

    /// Which library's algorithms expand the collectives at the target: the one the traces ran
    /// under (their `mpi_version`), MPICH's when they do not say.
    pub fn library(&self) -> psins_collectives::Choice {
        psins_collectives::Library::choose(None, self.traces[0].mpi_version())
    }

    pub fn sizes(&self) -> Vec<u32> {
        self.traces.iter().map(|t| t.ranks()).collect()
    }

    /// Each rank's tracer cost per call, taken off its gaps before fitting (the smallest gap
    /// of its first records, as psins-sim's `--tracer-overhead auto` takes it off a traced
    /// run): the extrapolated trace holds the application's bursts only.
    fn floors(&self) -> Vec<Vec<u64>> {
        self.traces
            .iter()
            .map(|t| {
                t.tasks
                    .iter()
                    .map(|recs| {
                        if !t.traced {
                            return 0;
                        }
                        recs.iter().take(OVERHEAD_SAMPLE).skip(1).map(|r| r.gap_ns).min().unwrap_or(0)
                    })
                    .collect()
            })
            .collect()
    }
}

/// The template found for a series, on the simplest topology that explains every trace.
pub fn find_template(series: &Series) -> Result<Template, Refusal> {
    let mut best: Option<Mismatch> = None;
    let mut found: Option<Template> = None;
    let mut keep = |m: Mismatch| {
        if best.as_ref().is_none_or(|b: &Mismatch| m.progress > b.progress) {
            best = Some(m);
        }
    };
    // Of the shapes that explain the series, the simplest explanation (Template::complexity):
    // a ring is one program, where a line explains it too with the ends' own calls. Loops are
    // folded only when no template explains the series without: a loop of two iterations is
    // also two calls to two neighbours.
    for loops in [false, true] {
        for (shape, relative) in Shape::candidates().into_iter().flat_map(|s| [(s, true), (s, false)]) {
            match Template::build(series, shape, relative, loops).and_then(|t| t.verify(series).map(|()| t)) {
                Ok(t) if found.as_ref().is_none_or(|f| t.complexity() < f.complexity()) => found = Some(t),
                Ok(_) => {}
                Err(m) => keep(m),
            }
        }
        if let Some(t) = found {
            return Ok(t);
        }
    }
    let m = best.expect("at least one candidate topology");
    let longest: Vec<usize> =
        series.traces.iter().map(|t| t.tasks.iter().map(|r| Program::of(r).recs.len()).max().unwrap_or(0)).collect();
    let grows = if longest.windows(2).any(|w| w[0] != w[1]) {
        let sizes: Vec<String> = series.sizes().iter().zip(&longest).map(|(p, n)| format!("{n} at {p}")).collect();
        format!(
            "; the longest rank's call count changes with the rank count ({}): a loop whose trip count depends on P is extrapolated when its body is at most 4 calls and its partners step through the ranks (rank xor 2^k, rank ± k, rank k, every other rank), not when it runs to convergence",
            sizes.join(", ")
        )
    } else {
        String::new()
    };
    let comms = if series.traces.iter().any(|t| !t.comms.is_empty()) {
        "; each sub-communicator must be a row, column or plane of the topology, its members in ascending world rank (as MPI_Comm_split by a coordinate or MPI_Cart_sub makes them)"
    } else {
        ""
    };
    let differ = first_difference(series).map(|d| format!("\n  {d}")).unwrap_or_default();
    Err(Refusal::Input(format!(
        "{}: {m}\n  no topology of 1 to 3 dimensions (ring, line, grid, torus) explains every rank of every trace; the traces may be of different applications, or their peers depend on the data{grows}{comms}{differ}",
        series.traces[m.trace].path.display()
    )))
}

/// Where rank 0's calls first differ between two traces of the series (next in rank count),
/// peers, sizes and repeats aside: a run of one call counts as one, since a loop's trip count
/// may follow P. Two traces of one SPMD program agree on it unless a call appears only at some
/// rank counts; two applications differ early.
fn first_difference(series: &Series) -> Option<String> {
    fn calls(t: &Trace) -> Vec<(u64, &Record)> {
        let mut v: Vec<(u64, &Record)> = Vec::new();
        for (i, r) in Program::of(t.tasks.first().map_or(&[][..], |r| &r[..])).recs {
            if v.last().is_none_or(|(_, last)| template::call_name(&last.op) != template::call_name(&r.op)) {
                v.push((i, r));
            }
        }
        v
    }
    let say = |t: &Trace, c: Option<&(u64, &Record)>| match c {
        Some((i, r)) => format!("record {i} of {} ({})", t.path.display(), template::describe_call(r)),
        None => format!("the end of {}'s rank 0", t.path.display()),
    };
    series.traces.windows(2).find_map(|w| {
        let (a, b) = (calls(&w[0]), calls(&w[1]));
        let at = (0..a.len().max(b.len())).find(|&k| match (a.get(k), b.get(k)) {
            (Some(x), Some(y)) => template::call_name(&x.1.op) != template::call_name(&y.1.op),
            _ => true,
        })?;
        Some(format!(
            "rank 0's calls (peers, sizes and repeats aside) first differ at {} against {}",
            say(&w[0], a.get(at)),
            say(&w[1], b.get(at))
        ))
    })
}

/// The fitted values of every slot at one target rank count.
pub struct Fitted {
    /// Each slot's sizes, inside the grid where they differ on its faces.
    params: Vec<[u64; shape::MAX_PARAMS]>,
    /// Per slot, an index into `faces` (`u32::MAX`: the same sizes on every rank).
    face_of: Vec<u32>,
    /// What the faces a rank lies on add to each of a slot's sizes (crate::faces).
    faces: Vec<[faces::Offsets; shape::MAX_PARAMS]>,
    root_params: Vec<Option<[u64; shape::MAX_PARAMS]>>,
    /// Per burst: each slot's (by its id), then the bursts before the loops (n + the id of the
    /// loop's first call, for n slots; [`Values::gap`] of that call at its first iteration).
    /// `pools`, `pool_of` and `common` are indexed alike.
    gaps: Vec<u64>,
    /// A slot's burst at the target is its law's value times two factors taken from the
    /// largest trace, each burst there over its slot's mean: the factor shared by all ranks
    /// at that iteration (`common`, per slot: the ranks' mean factor at each iteration), and a
    /// rank's own factor over it, drawn from the slot's own factors, or the pool of its kind
    /// of call (a slot's label) for a slot with few (each slot's index into `pools` in
    /// `pool_of`). What all ranks do slower in one iteration
    /// stays one slow iteration at any rank count; what ranks do slower one by one makes the
    /// slowest of more ranks slower, as in a real run. A mean alone loses both, and the waits
    /// they cause at every collective; a draw of the whole factor per rank counts the shared
    /// part as one rank's and makes the slowest of many too slow (docs/extrapolate.md).
    pools: Vec<Vec<f32>>,
    pool_of: Vec<u32>,
    common: Vec<Vec<f32>>,
    durs: Vec<u64>,
    extras: Vec<u64>,
    trips: Vec<u32>,
}

impl Values for Fitted {
    fn params(&self, _: &Template, id: SlotId, g: &Grid, me: u32) -> [u64; shape::MAX_PARAMS] {
        let mut p = self.params[id];
        if let Some(off) = self.faces.get(self.face_of[id] as usize) {
            for (x, o) in p.iter_mut().zip(off) {
                *x = (*x as i64 + faces::of(o, g, me)).max(0) as u64;
            }
        }
        p
    }
    fn root_params(&self, _: &Template, id: SlotId) -> Option<[u64; shape::MAX_PARAMS]> {
        self.root_params[id]
    }
    fn gap(&self, t: &Template, id: SlotId, me: u32, k: u32) -> u64 {
        // The first call of a loop's body: its first iteration's burst is the one before the
        // loop (burst n + id), the others' are between iterations.
        let (id, k) = match t.slots[id].lp {
            Some((_, 0)) if k == 0 => (t.slots.len() + id, 0),
            Some((_, 0)) => (id, k - 1),
            _ => (id, k),
        };
        let pool = &self.pools[self.pool_of[id] as usize];
        if pool.is_empty() {
            return self.gaps[id];
        }
        // A fixed draw per rank, slot and loop iteration (SplitMix64 of the three): the same
        // trace every time, and a rank is not slow in every iteration of a loop.
        let key = ((me as u64) << 32 | id as u64) ^ (k as u64) << 20;
        let z = psins_formats::splitmix::mix(key.wrapping_add(psins_formats::splitmix::GAMMA));
        let shared = self.common[id].get(k as usize % self.common[id].len().max(1)).copied().unwrap_or(1.0);
        let f = shared * pool[(z % pool.len() as u64) as usize];
        (self.gaps[id] as f64 * f as f64).round() as u64
    }
    fn dur(&self, _: &Template, id: SlotId) -> u64 {
        self.durs[id]
    }
    fn extra(&self, _: &Template, id: SlotId) -> u64 {
        self.extras[id]
    }
    fn trips(&self, _: &Template, id: SlotId) -> u32 {
        self.trips[id]
    }
}

/// One fitted quantity, as the report lists it.
#[derive(Clone, Debug)]
pub struct FitLine {
    /// What was fitted: the call and its peers, the quantity.
    pub what: String,
    pub fit: Fit,
    /// The traced points (P, value).
    pub points: Vec<(u32, f64)>,
    /// Slots that share this law.
    pub slots: usize,
    /// Whether it is a size (refused past the tolerance) or a CPU burst (reported).
    pub size: bool,
    pub at_target: f64,
}

impl FitLine {
    /// A size's (or a trip count's) law over the traced points, its value at the target.
    fn size(what: String, fit: Fit, pts: &[(u32, u64)], at_target: f64) -> FitLine {
        let points = pts.iter().map(|&(p, v)| (p, v as f64)).collect();
        FitLine { what, fit, points, slots: 0, size: true, at_target }
    }
}

/// An extrapolation: the template, the fits and the target.
pub struct Extrapolation {
    pub template: Template,
    pub grid: Grid,
    pub values: Fitted,
    pub fits: Vec<FitLine>,
    pub sizes: Vec<u32>,
    pub expanded: bool,
    /// Whose algorithms expand the blocking collectives at the target (the traces' library).
    pub library: psins_collectives::Library,
    /// The traces of the series: path and rank count.
    pub inputs: Vec<(String, u32)>,
    /// What the extrapolation assumed beyond the fits (even per-rank counts), for the report.
    pub notes: Vec<String>,
}

/// Options of an extrapolation.
pub struct Options {
    pub ranks: u32,
    pub scaling: Scaling,
    /// The largest leave-one-out error a size's law may have (a fraction).
    pub tolerance: f64,
}

/// The rank counts near `p` on which `shape` lays a proper grid (every dimension 2 or more).
pub fn nearest_valid(shape: Shape, p: u32, above: u32) -> (Option<u32>, Option<u32>) {
    let ok = |q: u32| q > above && valid(shape, q);
    let below = (above + 1..p).rev().find(|&q| ok(q));
    let over = (p + 1..p.saturating_mul(2).max(p + 2)).find(|&q| ok(q));
    (below, over)
}

/// The product of the extents of the dimensions in `mask` of `shape` laid on `p` ranks.
fn extent(shape: Shape, p: u32, mask: u8) -> f64 {
    let g = shape.at(p);
    (0..shape.ndims).filter(|d| mask & 1 << d != 0).map(|d| g.dims[d] as f64).product()
}

fn valid(shape: Shape, p: u32) -> bool {
    shape.ndims == 1 || shape.at(p).dims.iter().all(|&d| d >= 2)
}

/// Fits every slot of `t` over the series and evaluates the laws at `opts.ranks`.
pub fn extrapolate(series: &Series, t: Template, opts: &Options) -> Result<Extrapolation, Refusal> {
    let sizes = series.sizes();
    let largest = *sizes.last().expect("a series has traces");
    if opts.ranks <= largest {
        return Err(Refusal::Usage(format!(
            "--ranks {}: the target must be larger than the largest trace ({largest} ranks, {})",
            opts.ranks,
            series.traces.last().unwrap().path.display()
        )));
    }
    if !valid(t.shape, opts.ranks) {
        let g = t.shape.at(opts.ranks);
        let (lo, hi) = nearest_valid(t.shape, opts.ranks, largest);
        let near: Vec<String> = [lo, hi].iter().flatten().map(|q| format!("{q} ({})", t.shape.at(*q))).collect();
        return Err(Refusal::Usage(format!(
            "--ranks {}: the traces run on a {}, which {} ranks lay as {}; nearest rank counts that make a proper grid: {}",
            opts.ranks,
            t.shape,
            opts.ranks,
            g.dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x"),
            if near.is_empty() { "none".into() } else { near.join(", ") }
        )));
    }
    let transposes =
        t.slots.iter().any(|s| s.forms[..s.npeers].iter().any(|f| matches!(f, template::Form::Transpose { .. })));
    if transposes && t.shape.at(opts.ranks).transpose(0).is_none() {
        let square = |q: u32| q.isqrt() * q.isqrt() == q && q > largest;
        let below = (largest + 1..opts.ranks).rev().find(|&q| square(q));
        let over = (opts.ranks + 1..).find(|&q| square(q)).unwrap();
        let near: Vec<String> = [below, Some(over)].iter().flatten().map(|q| q.to_string()).collect();
        return Err(Refusal::Usage(format!(
            "--ranks {}: the traces exchange with the rank across the diagonal of a square grid, which {} ranks ({}) do not lay; nearest square rank counts: {}",
            opts.ranks,
            opts.ranks,
            t.shape.at(opts.ranks),
            near.join(", ")
        )));
    }
    let target = opts.ranks as f64;
    let floors = series.floors();
    let n = t.slots.len();
    let mut fits: Vec<FitLine> = Vec::new();
    // One law per distinct series of values: a 2,000-iteration loop fits its halo size once.
    let mut memo: HashMap<(String, Vec<(u32, u64)>), usize> = HashMap::new();
    let mut params = vec![[0u64; shape::MAX_PARAMS]; n];
    let mut extras = vec![0u64; n];
    let mut notes: Vec<String> = Vec::new();
    let ndims = t.shape.ndims;
    // Sizes: one law per size of each slot; a collective's root, whose sizes differ from the
    // other ranks' (a gather's received bytes), has its own.
    let mut root_params: Vec<Option<[u64; shape::MAX_PARAMS]>> = vec![None; n];
    let mut face_of = vec![u32::MAX; n];
    let mut face_offsets: Vec<[faces::Offsets; shape::MAX_PARAMS]> = Vec::new();
    let grids: Vec<Grid> = sizes.iter().map(|&p| t.shape.at(p)).collect();
    for id in 0..n {
        let slot = &t.slots[id];
        let (_, np) = shape::params(&slot.shape);
        let names = shape::param_names(&slot.shape);
        // Only where the root's sizes differ (a bcast's do not).
        let at_root = slot.seen.iter().any(|s| {
            (0..np).any(|k| {
                !s.root_values[k].is_empty()
                    && template::Seen::mode(&s.root_values[k]).0 != template::Seen::mode(&s.values[k]).0
            })
        });
        for root in [false, true] {
            if root && !at_root {
                continue;
            }
            let mut values = [0u64; shape::MAX_PARAMS];
            for k in 0..np {
                if shape::derived(&slot.shape) == Some(k) {
                    // Follows from the fitted size at generation (shape::even).
                    continue;
                }
                let mut pts: Vec<(u32, u64)> = slot
                    .seen
                    .iter()
                    .enumerate()
                    .map(|(ti, s)| (ti, if root { &s.root_values[k] } else { &s.values[k] }))
                    .filter(|(_, v)| !v.is_empty())
                    .map(|(ti, v)| (sizes[ti], template::Seen::mode(v).0))
                    .collect();
                if pts.is_empty() {
                    continue;
                }
                let mut what = format!("{}: {}{}", slot.label(ndims), names[k], if root { " at the root" } else { "" });
                // Ranks whose sizes differ: a law inside the grid and a constant per face
                // (crate::faces). Per-rank counts of a v-collective are evened instead; a poll
                // run's counts are its timing, and take the most common value.
                let evened = matches!(slot.shape, Op::Coll { coll, .. } if shape::evened(coll));
                let timing = matches!(slot.shape, Op::Poll { .. });
                if !root && !evened && !timing && slot.seen.iter().any(|s| s.values[k].len() > 1) {
                    let present: Vec<usize> =
                        (0..slot.seen.len()).filter(|&ti| !slot.seen[ti].by_rank[k].is_empty()).collect();
                    let gs: Vec<Grid> = present.iter().map(|&ti| grids[ti].clone()).collect();
                    let vs: Vec<Vec<(u32, u64, u64)>> =
                        present.iter().map(|&ti| slot.seen[ti].by_rank[k].clone()).collect();
                    // Every rank within the tolerance of the most common value.
                    let near = slot.seen.iter().all(|s| {
                        let m = template::Seen::mode(&s.values[k]).0 as f64;
                        s.values[k].iter().all(|&(v, _)| (v as f64 - m).abs() <= opts.tolerance * m)
                    });
                    match faces::fit(&gs, &vs) {
                        Ok((off, inside)) if inside.iter().all(|&b| b >= 0) => {
                            pts = present.iter().zip(&inside).map(|(&ti, &b)| (sizes[ti], b as u64)).collect();
                            what = format!("{what} inside the grid ({})", faces::show(&off, t.shape));
                            if face_of[id] == u32::MAX {
                                face_of[id] = face_offsets.len() as u32;
                                face_offsets.push([[[0; 2]; 3]; shape::MAX_PARAMS]);
                            }
                            face_offsets[face_of[id] as usize][k] = off;
                            let unseen: Vec<String> = (0..ndims)
                                .filter(|&d| grids.iter().all(|g| !g.wraps(d) && g.dims[d] < 3))
                                .map(|d| d.to_string())
                                .collect();
                            let note = format!(
                                "{what}: no trace is 3 ranks wide along dimension {}, so what its faces add to a rank inside cannot be seen (taken as nothing)",
                                unseen.join(", ")
                            );
                            // Once per kind of call, not per slot (a loop's thousands of them).
                            if !unseen.is_empty() && !notes.contains(&note) {
                                notes.push(note);
                            }
                        }
                        _ if near => {}
                        Ok((_, inside)) => {
                            let i = inside.iter().position(|&b| b < 0).unwrap_or(0);
                            let (r, _, record) = vs[i][0];
                            return Err(Refusal::Input(format!(
                                "{}: rank {r}, record {record}: {what} differs between ranks; read by the faces of the grid, a rank inside it would send {} at {} ranks",
                                series.traces[present[i]].path.display(),
                                inside[i],
                                sizes[present[i]]
                            )));
                        }
                        Err(u) => {
                            return Err(Refusal::Input(format!(
                                "{}: rank {}, record {}: {what} differs between ranks: {}",
                                series.traces[present[u.trace]].path.display(),
                                u.rank,
                                u.record,
                                u.why
                            )));
                        }
                    }
                }
                let key = (what.clone(), pts.clone());
                let line = match memo.get(&key) {
                    Some(&l) => l,
                    None => {
                        let fpts: Vec<(f64, f64)> = pts.iter().map(|&(p, v)| (p as f64, v as f64)).collect();
                        let mut fit = fit::best(&fpts, opts.scaling).ok_or_else(|| {
                            Refusal::Input(format!("{what}: no law fits the values {}", show_points(&pts)))
                        })?;
                        // A grid's halo follows the extents of its dimensions rather than P:
                        // strong-scaled, a face of a 2-D block is 1/D1 of the rows across it
                        // (8 ranks lay 4x2 and 16 lay 4x4, so P doubles twice where D1 does
                        // once), of a 3-D block 1/(D1·D2). Where no law of P fits, the size
                        // times the extents of some of the dimensions may be a constant.
                        let mut at = fit.at(target);
                        if fit.loo > opts.tolerance && ndims > 1 {
                            for mask in 1..(1u8 << ndims) - 1 {
                                let xs: Vec<(f64, f64)> =
                                    pts.iter().map(|&(p, v)| (extent(t.shape, p, mask), v as f64)).collect();
                                if let Some(f) = fit::face(&xs, mask).filter(|f| f.loo < fit.loo - 1e-9) {
                                    at = f.at(extent(t.shape, opts.ranks, mask));
                                    fit = f;
                                }
                            }
                            // A face with ghost or boundary planes: c / D + h.
                            for mask in 1..(1u8 << ndims) - 1 {
                                if fit.loo <= opts.tolerance {
                                    break;
                                }
                                let xs: Vec<(f64, f64)> =
                                    pts.iter().map(|&(p, v)| (extent(t.shape, p, mask), v as f64)).collect();
                                let strong = opts.scaling == Scaling::Strong;
                                if let Some(f) = fit::face_offset(&xs, mask, strong).filter(|f| f.loo < fit.loo - 1e-9)
                                {
                                    at = f.at(extent(t.shape, opts.ranks, mask));
                                    fit = f;
                                    let mut ex: Vec<f64> = xs.iter().map(|x| x.0).collect();
                                    ex.sort_by(f64::total_cmp);
                                    ex.dedup();
                                    if ex.len() == 2 {
                                        notes.push(format!(
                                            "{what}: {fit} passes through the two extents the series has ({} and {}), as --scaling strong allows: not checked by leaving one out",
                                            ex[0], ex[1]
                                        ));
                                    }
                                }
                            }
                        }
                        if fit.loo > opts.tolerance {
                            let (ti, r) = first_seen(slot);
                            return Err(Refusal::Input(format!(
                                "{}: rank {r}: {what} follows no law within {:.1} % (best {}: {:.1} % off a traced point predicted from the others; values {}){}",
                                series.traces[ti].path.display(),
                                opts.tolerance * 100.0,
                                fit,
                                fit.loo * 100.0,
                                show_points(&pts),
                                if pts.len() < 3 { "; the call is in fewer than three of the traces: trace larger runs, or say --scaling" } else { "" }
                            )));
                        }
                        fits.push(FitLine::size(what.clone(), fit, &pts, at.round().max(0.0)));
                        memo.insert(key, fits.len() - 1);
                        fits.len() - 1
                    }
                };
                fits[line].slots += 1;
                values[k] = fits[line].at_target as u64;
                // The smallest a rank of the target can send: what the faces add must not take a
                // size below nothing (a boundary line taken off a block that has none left).
                if let Some(off) = face_offsets.get(face_of[id] as usize).map(|o| o[k]).filter(|_| !root) {
                    let g = t.shape.at(opts.ranks);
                    let least = faces::least(&off, &g);
                    if values[k] as i64 + least < 0 {
                        let (ti, r) = first_seen(slot);
                        return Err(Refusal::Input(format!(
                            "{}: rank {r}: {what}: at {} ranks ({g}) a rank on the faces would send {} (inside the grid {}): fewer than nothing",
                            series.traces[ti].path.display(),
                            opts.ranks,
                            values[k] as i64 + least,
                            values[k]
                        )));
                    }
                }
            }
            if root {
                root_params[id] = Some(values);
            } else {
                params[id] = values;
            }
        }
        if let Some(s) = slot.seen.iter().rev().find(|s| !s.extra.is_empty()) {
            extras[id] = template::Seen::mode(&s.extra).0;
        }
        let uneven = slot.seen.iter().map(|s| s.uneven).fold(0.0, f64::max);
        if let Op::Coll { coll, .. } = slot.shape {
            if shape::evened(coll) {
                let what = format!("{}: per-rank counts", slot.label(ndims));
                if uneven > MAX_UNEVEN {
                    let (ti, r) = first_seen(slot);
                    return Err(Refusal::Input(format!(
                        "{}: rank {r}: {what} are {:.1} % from even at most; they are extrapolated as even only within {:.0} %",
                        series.traces[ti].path.display(),
                        uneven * 100.0,
                        MAX_UNEVEN * 100.0
                    )));
                }
                if !notes.iter().any(|n: &String| n.starts_with(&what)) {
                    notes.push(format!(
                        "{what} taken as even (each rank the same to each; {:.1} % from even at most in the traces)",
                        uneven * 100.0
                    ));
                }
            }
        }
    }
    // Loops' trip counts: whole numbers, so a law must give every traced count exactly, and a
    // whole number at the target.
    let mut trips = vec![0u32; n];
    for (slot, trips) in t.slots.iter().zip(trips.iter_mut()) {
        if slot.lp.is_none() {
            continue;
        }
        let pts: Vec<(u32, u64)> = slot
            .seen
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.trips.is_empty())
            .map(|(ti, s)| (sizes[ti], template::Seen::mode(&s.trips).0))
            .collect();
        let what = format!("{}: iterations", slot.label(ndims));
        let key = (what.clone(), pts.clone());
        let line = match memo.get(&key) {
            Some(&l) => l,
            None => {
                // A loop through the bits of a grid's row (or of every rank) runs log2 of its
                // length: a law without a free parameter, which two traced counts can check.
                let fastest = if t.shape.order == topo::Order::RowMajor { ndims - 1 } else { 0 };
                let over = |of: Option<u8>, q: u32| of.map_or(q as f64, |mask| extent(t.shape, q, mask));
                let bits = || {
                    let dims = std::iter::once(fastest).chain((0..ndims).filter(|&d| d != fastest));
                    std::iter::once(None).chain(dims.map(|d| Some(1u8 << d))).find_map(|of| {
                        pts.iter().all(|&(p, v)| over(of, p).log2() == v as f64).then_some(Fit {
                            law: fit::Law::Log,
                            of,
                            a: 0.0,
                            b: 1.0,
                            loo: 0.0,
                            residual: 0.0,
                        })
                    })
                };
                let fit = fit::whole(&pts).or_else(bits).ok_or_else(|| {
                    let (ti, r) = first_seen(slot);
                    Refusal::Input(format!(
                        "{}: rank {r}: {what}: no law gives the traced trip counts exactly ({}){}",
                        series.traces[ti].path.display(),
                        show_points(&pts),
                        if pts.len() < 3 { "; trace three or more rank counts" } else { "" }
                    ))
                })?;
                let at = fit.at(over(fit.of, opts.ranks));
                if (at - at.round()).abs() > 1e-6 {
                    let whole = |q: u32| {
                        let x = fit.at(over(fit.of, q));
                        (x - x.round()).abs() < 1e-6 && valid(t.shape, q)
                    };
                    let below = (largest + 1..opts.ranks).rev().find(|&q| whole(q));
                    let over = (opts.ranks + 1..opts.ranks.saturating_mul(4)).find(|&q| whole(q));
                    let near: Vec<String> = [below, over].iter().flatten().map(|q| q.to_string()).collect();
                    return Err(Refusal::Usage(format!(
                        "--ranks {}: {what} follows {fit}, {at:.2} at {} ranks, not a whole number; nearest rank counts where it is: {}",
                        opts.ranks,
                        opts.ranks,
                        if near.is_empty() { "none".into() } else { near.join(", ") }
                    )));
                }
                fits.push(FitLine::size(what, fit, &pts, at.round()));
                memo.insert(key, fits.len() - 1);
                fits.len() - 1
            }
        };
        fits[line].slots += 1;
        *trips = fits[line].at_target as u32;
    }
    // CPU bursts. A slot's own burst is the computation since the slot before it in the
    // template: measured on the ranks that made that slot too (a rank that skipped it computed
    // both bursts before its next call). One law per kind of call (its label) for the sum of
    // those bursts over the program; each slot keeps its own share from the largest trace that
    // has it, so the pattern of the bursts through the program is kept.
    let traces = series.traces.len();
    let pos: HashMap<SlotId, usize> = t.order.iter().enumerate().map(|(i, &s)| (s, i)).collect();
    let mut prev = vec![usize::MAX; n];
    for w in t.order.windows(2) {
        prev[w[1]] = w[0];
    }
    // A loop's first call follows the body's last call too, from the second iteration on.
    let mut wraps = vec![usize::MAX; n];
    for (i, &id) in t.order.iter().enumerate() {
        if let Some((len, 0)) = t.slots[id].lp {
            if let Some(&last) = t.order.get(i + len as usize - 1) {
                wraps[id] = last;
            }
        }
    }
    let follows = |ids: &[SlotId], k: usize| {
        let id = ids[k];
        if k == 0 {
            id == t.order[0]
        } else {
            ids[k - 1] == prev[id] || ids[k - 1] == wraps[id]
        }
    };
    // The first call of a loop's body computes before it at the first iteration what comes
    // before the loop (NPB CG's matrix-vector product before the steps of its row sum), and
    // between iterations at the others: the two are fitted apart, the first as burst n + id.
    let burst_of = |ids: &[SlotId], k: usize| -> usize {
        let id = ids[k];
        match t.slots[id].lp {
            Some((_, 0)) if !(k > 0 && ids[k - 1] == wraps[id]) => n + id,
            _ => id,
        }
    };
    let label_of = |b: usize| match b.checked_sub(n) {
        Some(id) => format!("{}, before its loop", t.slots[id].label(ndims)),
        None => t.slots[b].label(ndims),
    };
    let mut own = vec![vec![f64::NAN; traces]; 2 * n];
    let mut mean_dur = vec![vec![f64::NAN; traces]; 2 * n];
    for (ti, tr) in series.traces.iter().enumerate() {
        let g = t.shape.at(tr.ranks());
        let (mut exact, mut exact_n) = (vec![0f64; 2 * n], vec![0u32; 2 * n]);
        let (mut dur, mut any_n) = (vec![0f64; 2 * n], vec![0u32; 2 * n]);
        // (slot, its gap, the slots skipped before it, the rank) of the records that follow a skip.
        let mut after_skip: Vec<(SlotId, f64, Vec<SlotId>, u32)> = Vec::new();
        for r in 0..tr.ranks() {
            let ids = slot_ids(&t, &g, r, ti);
            let recs =
                comms::normalised(tr, r, &g).map_err(|m| Refusal::Input(format!("{}: {m}", tr.path.display())))?;
            let prog = Program::of(&recs);
            let floor = floors[ti][r as usize];
            let mut at = 0usize;
            for (k, ((_, rec), &slot)) in prog.recs.iter().zip(&ids).enumerate() {
                let gap = rec.gap_ns.saturating_sub(floor) as f64;
                let here = pos[&slot];
                let id = burst_of(&ids, k);
                if follows(&ids, k) {
                    exact[id] += gap;
                    exact_n[id] += 1;
                } else {
                    after_skip.push((id, gap, t.order[at..here].to_vec(), r));
                }
                at = here + 1;
                dur[id] += rec.dur_ns as f64;
                any_n[id] += 1;
            }
        }
        for id in 0..2 * n {
            if exact_n[id] > 0 {
                own[id][ti] = exact[id] / exact_n[id] as f64;
            }
        }
        // A slot never made right after the slot before it: its burst is what remains of
        // the gaps before it once the skipped slots' own bursts are taken off.
        let (mut rest, mut rest_n) = (vec![0f64; 2 * n], vec![0u32; 2 * n]);
        for (id, gap, skipped, r) in &after_skip {
            if exact_n[*id] == 0 {
                let known: f64 = skipped
                    .iter()
                    .filter(|&&s| t.carries_gap(s, &g, *r))
                    .map(|s| own[*s][ti])
                    .filter(|x| !x.is_nan())
                    .sum();
                rest[*id] += (gap - known).max(0.0);
                rest_n[*id] += 1;
            }
        }
        for id in 0..2 * n {
            if exact_n[id] == 0 && rest_n[id] > 0 {
                own[id][ti] = rest[id] / rest_n[id] as f64;
            }
            if any_n[id] > 0 {
                mean_dur[id][ti] = dur[id] / any_n[id] as f64;
            }
        }
    }
    let mut totals: HashMap<String, Vec<f64>> = HashMap::new();
    for (b, own) in own.iter().enumerate() {
        if own.iter().all(|x| x.is_nan()) {
            continue;
        }
        let v = totals.entry(label_of(b)).or_insert_with(|| vec![0.0; traces]);
        for (sum, x) in v.iter_mut().zip(own) {
            if !x.is_nan() {
                *sum += x;
            }
        }
    }
    let mut burst_law: HashMap<String, f64> = HashMap::new();
    let mut labels: Vec<&String> = totals.keys().collect();
    labels.sort();
    for label in labels {
        let v = &totals[label];
        let pts: Vec<(f64, f64)> =
            v.iter().enumerate().filter(|(_, x)| **x > 0.0).map(|(ti, x)| (sizes[ti] as f64, *x)).collect();
        let Some(fit) = fit::best_noisy(&pts, opts.scaling) else { continue };
        let at = fit.at(target).max(0.0);
        fits.push(FitLine {
            what: format!("{label}: CPU burst before it, summed over the program (ns)"),
            fit,
            points: pts.iter().map(|&(p, x)| (p as u32, x)).collect(),
            slots: 0,
            size: false,
            at_target: at,
        });
        burst_law.insert(label.clone(), at);
    }
    if let Some(note) = growing_bursts(&fits, opts.ranks) {
        notes.push(note);
    }
    // The largest trace's spread of each slot's burst: per iteration, the ranks' shared factor
    // and each rank's own over it (Fitted::pools).
    let last = traces - 1;
    let tr = &series.traces[last];
    let g = t.shape.at(tr.ranks());
    // Per slot, each rank's bursts by iteration (ranks in order), and their sum and count.
    let mut bursts: Vec<Vec<(u32, Vec<f64>)>> = vec![Vec::new(); 2 * n];
    let mut mean = vec![(0f64, 0u32); 2 * n];
    for r in 0..tr.ranks() {
        let ids = slot_ids(&t, &g, r, last);
        let recs = comms::normalised(tr, r, &g).map_err(|m| Refusal::Input(format!("{}: {m}", tr.path.display())))?;
        let prog = Program::of(&recs);
        let floor = floors[last][r as usize];
        for (k, (_, rec)) in prog.recs.iter().enumerate() {
            let id = burst_of(&ids, k);
            // Only a burst that is the slot's own (the rank made the slot before it too).
            if follows(&ids, k) {
                let gap = rec.gap_ns.saturating_sub(floor) as f64;
                if bursts[id].last().map(|b| b.0) != Some(r) {
                    bursts[id].push((r, Vec::new()));
                }
                bursts[id].last_mut().expect("pushed").1.push(gap);
                mean[id].0 += gap;
                mean[id].1 += 1;
            }
        }
    }
    let mut own_factors: Vec<Vec<f32>> = vec![Vec::new(); 2 * n];
    let mut common = vec![Vec::new(); 2 * n];
    for (id, ranks) in bursts.iter().enumerate() {
        let (sum, cnt) = mean[id];
        if cnt == 0 || sum <= 0.0 {
            continue;
        }
        let slot_mean = sum / cnt as f64;
        let iterations = ranks.iter().map(|r| r.1.len()).max().unwrap_or(0);
        let shared: Vec<f64> = (0..iterations)
            .map(|k| {
                let (s, c) = ranks.iter().filter_map(|r| r.1.get(k)).fold((0.0, 0), |(s, c), &x| (s + x, c + 1));
                s / c as f64 / slot_mean
            })
            .collect();
        for (_, by_iteration) in ranks {
            for (k, &x) in by_iteration.iter().enumerate() {
                if shared[k] > 0.0 {
                    own_factors[id].push((x / slot_mean / shared[k]) as f32);
                }
            }
        }
        common[id] = shared.into_iter().map(|f| f as f32).collect();
    }
    // A slot draws from its own factors when it has enough of them: a burst's spread relative
    // to its length shrinks as it grows (a 5 µs burst varies by half, a 60 ms set-up by a few
    // per cent), so factors of a kind's short bursts applied to its long one make that rank
    // far too slow (miniGhost's set-up burst: 83 ms drawn against at most 61 ms traced). A
    // slot made by few ranks once draws from its kind's.
    let mut pool_index: HashMap<String, u32> = HashMap::new();
    let mut pool_of = vec![0u32; 2 * n];
    let mut pools: Vec<Vec<f32>> = Vec::new();
    for id in 0..2 * n {
        if own_factors[id].len() < MIN_OWN_POOL {
            let i = *pool_index.entry(label_of(id)).or_insert_with(|| {
                pools.push(Vec::new());
                pools.len() as u32 - 1
            });
            pool_of[id] = i;
        }
    }
    for id in 0..2 * n {
        let label = label_of(id);
        if let Some(&i) = pool_index.get(&label) {
            pools[i as usize].extend_from_slice(&own_factors[id]);
        }
        if own_factors[id].len() >= MIN_OWN_POOL {
            pools.push(std::mem::take(&mut own_factors[id]));
            pool_of[id] = pools.len() as u32 - 1;
        }
    }
    let mut gaps = vec![0u64; 2 * n];
    let mut durs = vec![0u64; 2 * n];
    for id in 0..2 * n {
        let label = label_of(id);
        let Some(ti) = (0..traces).rev().find(|&ti| !own[id][ti].is_nan()) else { continue };
        let scale = match (burst_law.get(&label), totals.get(&label)) {
            (Some(at), Some(v)) if v[ti] > 0.0 => at / v[ti],
            _ => 1.0,
        };
        gaps[id] = (own[id][ti] * scale).round().max(0.0) as u64;
        durs[id] = mean_dur[id][ti].round() as u64;
        if let Some(line) = fits.iter_mut().find(|f| !f.size && f.what.starts_with(&format!("{label}:"))) {
            line.slots += 1;
        }
    }
    let grid = t.shape.at(opts.ranks);
    let expanded = series.traces.iter().any(|t| t.expanded);
    let choice = series.library();
    if expanded {
        notes.push(format!(
            "collectives expanded with {}'s algorithms{}",
            choice.library.algorithms(),
            match &choice.traced {
                Some(v) => format!(" (the traces ran under {v})"),
                None => " (the traces do not name their MPI library)".to_string(),
            }
        ));
    }
    let inputs = series.traces.iter().map(|t| (t.path.display().to_string(), t.ranks())).collect();
    Ok(Extrapolation {
        library: choice.library,
        template: t,
        grid,
        values: Fitted {
            params,
            face_of,
            faces: face_offsets,
            root_params,
            gaps,
            pools,
            pool_of,
            common,
            durs,
            extras,
            trips,
        },
        fits,
        sizes,
        expanded,
        inputs,
        notes,
    })
}

/// A burst law that rises past the series (more than [`GROWTH`] over its largest traced
/// point at the target) is the program's where each traced rank had a core of its own, and
/// the host's where the series shared fewer: the ranks' turns on a core restart with cold
/// caches, more of them the more ranks (docs/extrapolate.md, *Scale* and *Validation*). The
/// series cannot tell which, so the report says so, naming the steepest.
fn growing_bursts(fits: &[FitLine], target: u32) -> Option<String> {
    // Each burst law with its largest traced point (P, value) and its rise over it at the
    // target (a constant law, the points' mean, never rises).
    let growing: Vec<(&FitLine, (u32, f64), f64)> = fits
        .iter()
        .filter(|f| !f.size)
        .filter_map(|f| {
            let most = f.points.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))?;
            Some((f, most, f.at_target / most.1)).filter(|&(_, _, rise)| rise > 1.0 + GROWTH)
        })
        .collect();
    let &(top, (p, v), _) = growing.iter().max_by(|a, b| a.2.total_cmp(&b.2))?;
    let call = top.what.split(": CPU burst").next().unwrap_or(&top.what);
    Some(format!(
        "the CPU bursts before {} kind{} of call grow with the rank count, the most before {call}: {} ns at {p} ranks, {} ns at {target} ({}); such growth is the program's only if each traced rank had a core of its own, the host's if the series shared fewer cores (docs/extrapolate.md, Scale)",
        growing.len(),
        if growing.len() == 1 { "" } else { "s" },
        trim(v),
        trim(top.at_target),
        top.fit
    ))
}

/// How far past its largest traced point a burst law may rise at the target before the report
/// calls it growing: 10 %, above the run-to-run spread of a series' summed bursts.
const GROWTH: f64 = 0.10;

fn show_points(pts: &[(u32, u64)]) -> String {
    pts.iter().map(|(p, v)| format!("{v} at {p}")).collect::<Vec<_>>().join(", ")
}

fn first_seen(slot: &template::Slot) -> (usize, u32) {
    for (ti, s) in slot.seen.iter().enumerate() {
        if let Some(r) = s.ranks.iter().position(|&b| b) {
            return (ti, r as u32);
        }
    }
    (0, 0)
}

/// The slot of each record of rank `me`'s program on `g`, trace `ti` of the series, in order.
pub fn slot_ids(t: &Template, g: &Grid, me: u32, ti: usize) -> Vec<SlotId> {
    let mut ids = Vec::new();
    generate::program(t, g, me, &generate::Observed(ti), &mut Vec::new(), Some(&mut ids));
    ids
}

/// Reads the traces at `paths` and extrapolates them as `opts` says: what psins-extrapolate
/// writes, and what `psins-sim extrapolate:…` replays without writing it.
pub fn from_paths(paths: &[PathBuf], opts: &Options) -> Result<(Series, Extrapolation), Refusal> {
    let traces = paths.iter().map(|p| Trace::open(p)).collect::<Result<Vec<_>, _>>()?;
    let series = Series::new(traces, opts.scaling)?;
    let template = find_template(&series)?;
    let ex = extrapolate(&series, template, opts)?;
    Ok((series, ex))
}

impl Extrapolation {
    /// The target's rank count.
    pub fn ranks(&self) -> u32 {
        self.grid.ranks()
    }

    /// The most calls a rank makes (the template's slots).
    pub fn calls_per_rank(&self) -> u64 {
        self.template.order.len() as u64
    }

    /// Streams rank `me`'s records one at a time (no expansion steps: a replay expands the
    /// collectives itself): the next into `rec`, false at the end.
    pub fn next(&self, me: u32, cursor: &mut generate::Cursor, rec: &mut Record) -> bool {
        let more = cursor.next(&self.template, &self.grid, me, &self.values, rec).is_some();
        if more {
            comms::denormalise(&self.grid, me, rec);
        }
        more
    }

    /// The communicators other than the world and self at the target, as a trace's table
    /// lists them: one per row, column or plane of each class the program uses.
    pub fn comms(&self) -> Vec<psins_formats::CommDef> {
        let mut masks: Vec<u32> = self
            .template
            .slots
            .iter()
            .filter_map(|s| match s.shape {
                Op::CommCreate { comm, .. } => comms::class(comm),
                _ => None,
            })
            .collect();
        masks.sort_unstable();
        masks.dedup();
        comms::table(&self.grid, &masks)
    }

    /// Rank `me`'s records at the target, with the expansion steps of its collectives when
    /// the traces had them.
    pub fn rank(&self, me: u32, out: &mut Vec<Record>) -> Result<(), ExpandFailure> {
        let mut prog = Vec::new();
        generate::program(&self.template, &self.grid, me, &self.values, &mut prog, None);
        let th = psins_collectives::Thresholds::default();
        let mut steps = Vec::new();
        let size = self.grid.ranks();
        for mut rec in prog {
            let op = rec.op;
            comms::denormalise(&self.grid, me, &mut rec);
            out.push(rec);
            if !self.expanded {
                continue;
            }
            if let Op::Coll { flags, instance, comm, .. } = op {
                let (size, me) = if comm == psins_formats::COMM_WORLD {
                    (size, me)
                } else {
                    comms::size_and_rank(&self.grid, me, comm)
                };
                let counts: Vec<u64> = out.last().unwrap().list.iter().map(|&c| c.max(0) as u64).collect();
                let args = psins_collectives::CollArgs::from_op(&op, size, me, &counts).expect("a collective");
                let nb = flags & psins_formats::CollFlags::NONBLOCKING != 0;
                steps.clear();
                let r = if nb {
                    self.library.expand_nonblocking(&args, &th, &mut steps)
                } else {
                    self.library.expand(&args, &th, &mut steps)
                };
                r.map_err(|source| ExpandFailure { rank: me, coll: psins_formats::Coll::name(args.coll), source })?;
                out.extend(steps.iter().map(|s| Record::new(0, 0, s.to_op(instance))));
            }
        }
        Ok(())
    }

    /// The report: the topology, every fit with its residual, the worst one named.
    pub fn report(&self, series: &Series) -> String {
        let mut s = String::new();
        let sizes: Vec<String> = self.sizes.iter().map(|p| p.to_string()).collect();
        let _ = writeln!(s, "series: {} traces at {} ranks", series.traces.len(), sizes.join(", "));
        let grids: Vec<String> = self.sizes.iter().map(|&p| self.template.shape.at(p).to_string()).collect();
        let _ = writeln!(s, "topology: {} (traced as {}); target {}", self.template.shape, grids.join(", "), self.grid);
        let _ = writeln!(s, "program: {} calls per rank at most", self.template.order.len());
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        for d in &self.template.ambiguous {
            let _ = writeln!(
                s,
                "note: dimension {d} wraps around but never exceeds 2 ranks in the series, so its two neighbours are the same rank there; they are taken as -1 then +1 in program order (trace a run with 3 or more ranks along it to tell)"
            );
        }
        let _ = writeln!(
            s,
            "fits (law, leave-one-out error, largest residual, value at {} ranks; traced points):",
            self.grid.ranks()
        );
        for f in &self.fits {
            let pts: Vec<String> = f.points.iter().map(|(p, v)| format!("{p}:{}", trim(*v))).collect();
            let _ = writeln!(
                s,
                "  {} [{} slot{}] = {}  loo {:.2} %  residual {:.2} %  -> {}  ({})",
                f.what,
                f.slots,
                if f.slots == 1 { "" } else { "s" },
                f.fit,
                f.fit.loo * 100.0,
                f.fit.residual * 100.0,
                trim(f.at_target),
                pts.join(" ")
            );
        }
        if let Some(w) = self.worst(true) {
            let _ = writeln!(s, "worst size fit: {} (leave-one-out {:.2} %)", w.what, w.fit.loo * 100.0);
        }
        if let Some(w) = self.worst(false) {
            let _ = writeln!(s, "worst CPU-burst fit: {} (leave-one-out {:.2} %)", w.what, w.fit.loo * 100.0);
        }
        s
    }

    fn worst(&self, size: bool) -> Option<&FitLine> {
        self.fits.iter().filter(|f| f.size == size).max_by(|a, b| a.fit.loo.total_cmp(&b.fit.loo))
    }

    /// The provenance as JSON: inputs, topology, every fit.
    pub fn provenance(&self) -> serde_json::Value {
        let fits: Vec<serde_json::Value> = self
            .fits
            .iter()
            .map(|f| {
                serde_json::json!({
                    "what": f.what,
                    "law": f.fit.to_string(),
                    "loo": f.fit.loo,
                    "residual": f.fit.residual,
                    "slots": f.slots,
                    "at_target": f.at_target,
                    "points": f.points.iter().map(|(p, v)| serde_json::json!([p, v])).collect::<Vec<_>>(),
                })
            })
            .collect();
        serde_json::json!({
            "inputs": self.inputs.iter().map(|(path, ranks)| serde_json::json!({"path": path, "ranks": ranks})).collect::<Vec<_>>(),
            "topology": self.template.shape.to_string(),
            "target": {"ranks": self.grid.ranks(), "dims": self.grid.dims},
            "calls_per_rank": self.template.order.len(),
            "fits": fits,
            "notes": self.notes,
        })
    }
}

fn trim(v: f64) -> String {
    if v == v.round() {
        format!("{}", v as i64)
    } else {
        format!("{v:.1}")
    }
}

/// One rank's traffic, as the extrapolated and the real trace at one rank count are compared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// The world ranks it sends to and receives from (point-to-point calls), sorted.
    pub peers: Vec<i32>,
    /// Point-to-point messages sent (a sendrecv counts one).
    pub messages: u64,
    pub collectives: u64,
    /// Bytes sent point to point plus each collective's send bytes.
    pub bytes: u64,
}

impl Traffic {
    pub fn of(records: &[Record]) -> Traffic {
        let mut t = Traffic::default();
        for r in records {
            let (p, n) = shape::peers(&r.op);
            match r.op {
                Op::Coll { send_bytes, .. } => {
                    t.collectives += 1;
                    t.bytes += send_bytes;
                    continue;
                }
                Op::Send { bytes, .. } | Op::Isend { bytes, .. } | Op::Sendrecv { bytes, .. } => {
                    t.messages += 1;
                    t.bytes += bytes;
                }
                _ => {}
            }
            if !matches!(r.op, Op::Coll { .. } | Op::Poll { .. } | Op::Probe { .. }) {
                t.peers.extend(p[..n].iter().filter(|&&x| x >= 0));
            }
        }
        t.peers.sort_unstable();
        t.peers.dedup();
        t
    }
}

/// How an extrapolated trace compares with the real one at the same rank count, rank by rank.
#[derive(Clone, Debug, Default)]
pub struct Comparison {
    pub ranks: u32,
    pub same_peers: u32,
    pub same_messages: u32,
    pub same_collectives: u32,
    /// Ranks whose bytes are within 1 %.
    pub bytes_within_1pc: u32,
    pub worst_bytes: f64,
    /// The first rank that differs, and how.
    pub first: Option<String>,
}

/// Compares `got` (extrapolated) with `want` (traced) rank by rank.
pub fn compare(got: &[Vec<Record>], want: &[Vec<Record>]) -> Result<Comparison, RanksDiffer> {
    if got.len() != want.len() {
        return Err(RanksDiffer { got: got.len(), want: want.len() });
    }
    let mut c = Comparison { ranks: got.len() as u32, ..Default::default() };
    for (r, (g, w)) in got.iter().zip(want).enumerate() {
        let (g, w) = (Traffic::of(g), Traffic::of(w));
        let off = if w.bytes == 0 {
            (g.bytes != 0) as u64 as f64
        } else {
            (g.bytes as f64 - w.bytes as f64).abs() / w.bytes as f64
        };
        c.worst_bytes = c.worst_bytes.max(off);
        let checks = [
            (g.peers == w.peers, format!("peers {:?}, traced {:?}", g.peers, w.peers)),
            (g.messages == w.messages, format!("{} messages, traced {}", g.messages, w.messages)),
            (g.collectives == w.collectives, format!("{} collectives, traced {}", g.collectives, w.collectives)),
            (off <= 0.01, format!("{} bytes, traced {}", g.bytes, w.bytes)),
        ];
        c.same_peers += checks[0].0 as u32;
        c.same_messages += checks[1].0 as u32;
        c.same_collectives += checks[2].0 as u32;
        c.bytes_within_1pc += checks[3].0 as u32;
        if c.first.is_none() {
            if let Some((_, why)) = checks.iter().find(|(ok, _)| !ok) {
                c.first = Some(format!("rank {r}: {why}"));
            }
        }
    }
    Ok(c)
}

impl std::fmt::Display for Comparison {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "{} ranks: same peers on {}, same messages on {}, same collectives on {}, bytes within 1 % on {} (largest difference {:.2} %)",
            self.ranks,
            self.same_peers,
            self.same_messages,
            self.same_collectives,
            self.bytes_within_1pc,
            self.worst_bytes * 100.0
        )?;
        if let Some(d) = &self.first {
            write!(f, "; first difference: {d}")?;
        }
        Ok(())
    }
}
