//! One program for every rank: the records of a series of traces aligned into slots, each slot
//! with its peers said relative to a process topology and a rule for which ranks make it.
//!
//! Ranks are merged into the template one by one, the longest program of the largest trace
//! first: a rank's record joins the slot it matches (same shape, peers the slot's form can
//! reach); a slot the rank lacks is skipped (an edge rank without that neighbour), a record the
//! template lacks becomes a new slot. Then every slot's peer takes one form and one existence
//! rule that hold for every rank of every trace, and the template must regenerate each traced
//! program exactly ([`Template::verify`]); a series it cannot is refused there, naming the
//! first record that differs.

use crate::shape::{self, MAX_PARAMS, MAX_PEERS};
use crate::topo::{show_offset, Grid, Offset, Shape};
use crate::Series;
use psins_formats::{Op, Record, WaitFn, NO_RANK, PROC_NULL};
use std::collections::HashMap;
use std::fmt;

/// How far ahead a rank's record or a template slot is looked for when the two disagree.
const WINDOW: usize = 64;

/// The longest loop body (in calls) whose iterations are folded into one loop.
const MAX_BODY: usize = 4;

pub type SlotId = usize;

/// A peer as the template says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A sentinel, the same on every rank: MPI_PROC_NULL, MPI_ANY_SOURCE, no rank.
    Fixed(i32),
    /// This rank of the world, whatever the rank count (a root, a master).
    Rank(u32),
    /// The `k`-th rank from the last.
    FromEnd(u32),
    /// The rank at this offset in the topology; where the offset leaves the grid, the rank
    /// either calls with MPI_PROC_NULL (`null`) or does not make the call.
    Offset { offset: Offset, null: bool },
    /// The rank whose number differs from the caller's by these bits (butterfly partners).
    Xor(u32),
    /// The rank across the diagonal of a square 2-D grid; a rank on the diagonal calls with
    /// itself (`diagonal`: NPB CG's exchange of its vector's pieces) or does not make the call.
    Transpose { diagonal: bool },
    /// A peer that moves with the iteration of the loop the call is in.
    Iter(Step),
}

/// How a peer moves from one iteration of a loop to the next (iteration k from 0), over P
/// ranks: the partners of loops whose trip count depends on P.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The rank differing from the caller's in bit b + k (recursive doubling, butterflies).
    Xor(u32),
    /// The rank differing from the caller's in bit b + (m - 1 - k) over a loop of m
    /// iterations: the masks from the high bit down to bit b (a reduction that halves the
    /// distance each step, as NPB CG's row sums do).
    XorDown(u32),
    /// Bit b - k: [`Step::XorDown`] as one trace's loop is first read, before its trip count is
    /// known ([`run`] turns it into `XorDown`).
    XorFrom(u32),
    /// (rank + s + k) mod P (pairwise exchanges, transposes).
    Up(u32),
    /// (rank - s - k) mod P.
    Down(u32),
    /// Rank c + k (a master walking through its workers).
    Count(u32),
    /// The k-th rank other than the caller.
    Others,
}

impl Step {
    /// The peer of rank `me` of `n` at iteration `k` of `m`; `None` past the last rank.
    pub fn at(self, n: u32, me: u32, k: u32, m: u32) -> Option<u32> {
        let n64 = n as u64;
        let flip = |bit: Option<u32>| {
            let p = me ^ (1u32 << bit.filter(|&x| x < 32)?);
            (p < n).then_some(p)
        };
        match self {
            Step::Xor(b) => flip(b.checked_add(k)),
            Step::XorDown(b) => flip(m.checked_sub(k + 1).and_then(|d| b.checked_add(d))),
            Step::XorFrom(b) => flip(b.checked_sub(k)),
            Step::Up(s) => Some(((me as u64 + s as u64 + k as u64) % n64) as u32),
            Step::Down(s) => Some((me as i64 - s as i64 - k as i64).rem_euclid(n as i64) as u32),
            Step::Count(c) => {
                let p = c as u64 + k as u64;
                (p < n64).then_some(p as u32)
            }
            Step::Others => {
                let p = if k < me { k } else { k + 1 };
                (p < n).then_some(p)
            }
        }
    }

    /// The steps that take rank `me` of `n` to `p0` at iteration 0 and `p1` at iteration 1, in
    /// the order they are preferred.
    fn of(n: u32, me: u32, p0: u32, p1: u32) -> Steps {
        let mut v = Steps::default();
        let x = me ^ p0;
        if x.is_power_of_two() {
            v.push(Step::Xor(x.trailing_zeros()));
            v.push(Step::XorFrom(x.trailing_zeros()));
        }
        let up = (p0 + n - me % n) % n;
        if up != 0 {
            v.push(Step::Up(up));
        }
        let down = (me % n + n - p0) % n;
        if down != 0 {
            v.push(Step::Down(down));
        }
        v.push(Step::Count(p0));
        v.push(Step::Others);
        v.retain(|s| s.at(n, me, 0, 2) == Some(p0) && s.at(n, me, 1, 2) == Some(p1));
        v
    }

    /// The step a loop of `m` iterations keeps: one trace's descending masks said from the
    /// lowest bit they reach, which is the same at every rank count.
    fn settled(self, m: u32) -> Step {
        match self {
            Step::XorFrom(b) => Step::XorDown(b + 1 - m),
            s => s,
        }
    }

    fn show(self) -> String {
        match self {
            Step::Xor(0) => "rank xor 2^k".into(),
            Step::Xor(b) => format!("rank xor 2^(k+{b})"),
            Step::XorDown(0) => "rank xor 2^(K-1-k) over K iterations".into(),
            Step::XorDown(b) => format!("rank xor 2^(K-1-k+{b}) over K iterations"),
            Step::XorFrom(b) => format!("rank xor 2^({b}-k)"),
            Step::Up(s) => format!("rank + {s} + k (mod P)"),
            Step::Down(s) => format!("rank - {s} - k (mod P)"),
            Step::Count(0) => "rank k".into(),
            Step::Count(c) => format!("rank {c} + k"),
            Step::Others => "the k-th other rank".into(),
        }
    }
}

/// The steps a peer may still follow: at most one of each of the seven kinds, so kept inline
/// (the template narrows millions of them while it tries each topology).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Steps {
    v: [Option<Step>; 8],
}

impl Steps {
    pub fn iter(&self) -> impl Iterator<Item = Step> + '_ {
        self.v.iter().map_while(|s| *s)
    }
    pub fn first(&self) -> Option<Step> {
        self.v[0]
    }
    pub fn is_empty(&self) -> bool {
        self.v[0].is_none()
    }
    pub fn contains(&self, s: Step) -> bool {
        self.iter().any(|x| x == s)
    }
    /// Adds `s` unless it is there already.
    pub fn push(&mut self, s: Step) {
        if let Some(slot) = self.v.iter_mut().find(|x| x.is_none_or(|x| x == s)) {
            *slot = Some(s);
        }
    }
    pub fn retain(&mut self, keep: impl Fn(Step) -> bool) {
        let mut out = Steps::default();
        for s in self.iter().filter(|&s| keep(s)) {
            out.push(s);
        }
        *self = out;
    }
    fn map(&mut self, f: impl Fn(Step) -> Step) {
        for s in self.v.iter_mut().flatten() {
            *s = f(*s);
        }
    }
}

/// A record of a rank's program as the template reads it: a call, or one call of a loop's
/// body standing for all its iterations.
pub struct Item<'a> {
    pub idx: u64,
    pub rec: &'a Record,
    pub lp: Option<Looped<'a>>,
}

/// A call of a loop's body.
pub struct Looped<'a> {
    /// The body's length and the call's place in it.
    pub len: u16,
    pub at: u16,
    /// Per peer: `None` where it is the same every iteration, else the steps it may follow.
    pub steps: [Option<Steps>; MAX_PEERS],
    /// How much its tags grow an iteration (0, 1, or -1: counting down to the same last tag
    /// at every rank count, which is the tag the slot keeps).
    pub tag_step: i32,
    /// Every iteration's record, the first being the item's.
    pub iters: Vec<(u64, &'a Record)>,
    /// A loop of the template run once here (at a small rank count): its steps are those of
    /// the template's loop that give this iteration's peers, and any tag step fits.
    pub once: bool,
}

impl Item<'_> {
    /// The call's shape as its slot keeps it ([`loop_shape`]).
    pub fn shape(&self) -> Op {
        match &self.lp {
            Some(l) => loop_shape(self.rec, l.tag_step, l.iters.len()),
            None => shape::shape(&self.rec.op),
        }
    }
}

/// The shape of a loop's call whose first iteration is `rec`, over `m` iterations, as its slot
/// keeps it: tags counting down are said by the last iteration's, the same at every rank count.
fn loop_shape(rec: &Record, tag_step: i32, m: usize) -> Op {
    let mut s = shape::shape(&rec.op);
    if tag_step < 0 {
        shape::shift_tags(&mut s, tag_step * (m as i32 - 1));
    }
    s
}

/// How one peer of a body's call went over the iterations seen so far.
#[derive(Clone)]
enum Run {
    Same(i32),
    Steps(Steps),
}

/// Two iterations of one call of a loop: the same shape (tags aside: see [`tag_step`]), sizes
/// and completions.
fn same_body(a: &Record, b: &Record) -> bool {
    let count = |r: &Record| if let Op::Wait { count, .. } = r.op { count } else { 0 };
    let untagged = |op: &Op| {
        let mut s = shape::shape(op);
        shape::shift_tags(&mut s, -shape::tags(op).0[0]);
        s
    };
    untagged(&a.op) == untagged(&b.op)
        && shape::params(&a.op) == shape::params(&b.op)
        && count(a) == count(b)
        && a.list.len() == b.list.len()
}

/// How a call's tags go from iteration 0 (`a`) to iteration `k` (`b`): the same (0), or up or
/// down by one an iteration (1 or -1, a loop tagging each message with its phase); `None`
/// otherwise.
fn tag_step(a: &Record, b: &Record, k: usize) -> Option<i32> {
    let ((ta, n), (tb, _)) = (shape::tags(&a.op), shape::tags(&b.op));
    [0, 1, -1].into_iter().find(|&d| (0..n).all(|i| tb[i] as i64 == ta[i] as i64 + d as i64 * k as i64))
}

/// A loop's iterations, each body call's peer runs and tag step.
type Body = (usize, Vec<[Option<Run>; MAX_PEERS]>, Vec<i32>);

/// The loop of body `len` starting at record `i` of `recs`: its iterations (two or more), its
/// calls' peer runs and tag steps; `None` when the records there do not repeat so.
fn run(recs: &[(u64, &Record)], i: usize, len: usize, me: u32, n: u32) -> Option<Body> {
    // A body that starts by completing a request starts with the last call of the one before
    // (the wait of a transpose, then a reduction's receive and send): its first iteration's
    // wait completes what the loop did not start.
    if i + 2 * len > recs.len() || (len > 1 && matches!(recs[i].1.op, Op::Wait { .. })) {
        return None;
    }
    let mut runs: Vec<[Option<Run>; MAX_PEERS]> = Vec::with_capacity(len);
    let mut steps = Vec::with_capacity(len);
    for b in 0..len {
        let (a, c) = (recs[i + b].1, recs[i + len + b].1);
        if !same_body(a, c) {
            return None;
        }
        steps.push(tag_step(a, c, 1)?);
        let ((pa, np), (pc, _)) = (shape::peers(&a.op), shape::peers(&c.op));
        let mut r: [Option<Run>; MAX_PEERS] = Default::default();
        for k in 0..np {
            r[k] = Some(if pa[k] == pc[k] {
                Run::Same(pa[k])
            } else if pa[k] < 0 || pc[k] < 0 {
                return None;
            } else {
                let v = Step::of(n, me, pa[k] as u32, pc[k] as u32);
                if v.is_empty() {
                    return None;
                }
                Run::Steps(v)
            });
        }
        runs.push(r);
    }
    let mut m = 2;
    'more: while i + (m + 1) * len <= recs.len() {
        let mut next = runs.clone();
        for (b, r) in next.iter_mut().enumerate() {
            let rec = recs[i + m * len + b].1;
            if !same_body(recs[i + b].1, rec) || tag_step(recs[i + b].1, rec, m) != Some(steps[b]) {
                break 'more;
            }
            let (p, _) = shape::peers(&rec.op);
            for (k, run) in r.iter_mut().enumerate() {
                match run {
                    Some(Run::Same(v)) if *v != p[k] => break 'more,
                    Some(Run::Steps(v)) => {
                        v.retain(|s| p[k] >= 0 && s.at(n, me, m as u32, 0) == Some(p[k] as u32));
                        if v.is_empty() {
                            break 'more;
                        }
                    }
                    _ => {}
                }
            }
        }
        runs = next;
        m += 1;
    }
    // A body of several calls is a loop only where a peer moves with the iteration: with the
    // same peers throughout, it is an iteration loop whose calls the template aligns as they
    // come, and folding it only where its body is short (at some rank counts) would give one
    // program two shapes.
    if len > 1 && !runs.iter().flatten().any(|r| matches!(r, Some(Run::Steps(_)))) {
        return None;
    }
    for r in runs.iter_mut().flatten() {
        if let Some(Run::Steps(v)) = r {
            v.map(|s| s.settled(m as u32));
        }
    }
    Some((m, runs, steps))
}

/// A loop of the template, as the loops of a smaller trace are checked against it: per call of
/// its body, its shape, its peers' steps (`None`: a peer the same every iteration) and its tag
/// step.
#[derive(PartialEq)]
struct Known {
    calls: Vec<(Op, [Option<Steps>; MAX_PEERS], i32)>,
}

impl Template {
    /// The loops found so far, each kind once (each iteration of a program's outer loop, not
    /// folded, has loops of its own in the template).
    fn known(&self) -> Vec<Known> {
        let mut v = Vec::new();
        for (i, &id) in self.order.iter().enumerate() {
            let Some((len, 0)) = self.slots[id].lp else { continue };
            let Some(body) = self.order.get(i..i + len as usize) else { continue };
            let calls = body
                .iter()
                .map(|&b| {
                    let s = &self.slots[b];
                    (s.shape, s.steps, s.tag_step)
                })
                .collect();
            let k = Known { calls };
            if !v.contains(&k) {
                v.push(k);
            }
        }
        v
    }
}

/// `prog` with each loop of up to [`MAX_BODY`] calls repeated two or more times folded: the
/// first loop found at each record, the shortest body first.
///
/// `known`: the loops of the larger traces, for a smaller one. A loop is folded there only
/// where it is one of them (a short run that happens to repeat, as a reduction's one step and a
/// transpose at 4 ranks, is no loop), and a loop of them that runs once here (a reduction over
/// the bits of a row two ranks wide) is folded as a loop of one iteration.
fn fold<'a>(prog: &Program<'a>, me: u32, n: u32, known: Option<&[Known]>) -> Vec<Item<'a>> {
    let recs = &prog.recs;
    let mut out = Vec::with_capacity(recs.len());
    let mut i = 0;
    while i < recs.len() {
        let found = (1..=MAX_BODY).find_map(|len| {
            run(recs, i, len, me, n)
                .filter(|body| known.is_none_or(|k| is_known(k, &recs[i..], body)))
                .map(|b| (len, b))
        });
        match found {
            None => match known.and_then(|k| once(k, &recs[i..], me, n)) {
                Some(steps) => {
                    let len = steps.len();
                    for (at, steps) in steps.into_iter().enumerate() {
                        let (idx, rec) = recs[i + at];
                        let looped = Looped {
                            len: len as u16,
                            at: at as u16,
                            steps,
                            tag_step: 0,
                            iters: vec![(idx, rec)],
                            once: true,
                        };
                        out.push(Item { idx, rec, lp: Some(looped) });
                    }
                    i += len;
                }
                None => {
                    out.push(Item { idx: recs[i].0, rec: recs[i].1, lp: None });
                    i += 1;
                }
            },
            Some((len, (m, runs, tag_steps))) => {
                for (at, r) in runs.into_iter().enumerate() {
                    let steps = r.map(|x| match x {
                        Some(Run::Steps(v)) => Some(v),
                        _ => None,
                    });
                    let iters = (0..m).map(|k| recs[i + at + k * len]).collect();
                    let tag_step = tag_steps[at];
                    let looped = Looped { len: len as u16, at: at as u16, steps, tag_step, iters, once: false };
                    out.push(Item { idx: recs[i + at].0, rec: recs[i + at].1, lp: Some(looped) });
                }
                i += len * m;
            }
        }
    }
    out
}

/// Whether the loop `body` found at the start of `recs` is one of `known`: the same calls, tag
/// steps and kinds of step.
fn is_known(known: &[Known], recs: &[(u64, &Record)], (m, runs, tag_steps): &Body) -> bool {
    known.iter().any(|k| {
        k.calls.len() == runs.len()
            && k.calls.iter().zip(runs).zip(tag_steps).enumerate().all(|(b, (((shape, steps, t), run), ts))| {
                loop_shape(recs[b].1, *ts, *m) == *shape
                    && t == ts
                    && steps.iter().zip(run).all(|(a, r)| match (a, r) {
                        (None, Some(Run::Same(_)) | None) => true,
                        (Some(a), Some(Run::Steps(v))) => a.iter().any(|x| v.contains(x)),
                        _ => false,
                    })
            })
    })
}

/// The steps of the calls at the start of `recs` read as one iteration of a loop of `known`
/// (of those whose calls these are, the steps that give their peers), or `None`.
fn once(known: &[Known], recs: &[(u64, &Record)], me: u32, n: u32) -> Option<Vec<[Option<Steps>; MAX_PEERS]>> {
    let mut out: Option<Vec<[Option<Steps>; MAX_PEERS]>> = None;
    'loops: for k in known {
        // A loop whose peers stay put is a run of like calls, not the partners of one call.
        if recs.len() < k.calls.len() || k.calls.iter().all(|c| c.1.iter().all(Option::is_none)) {
            continue;
        }
        let mut steps = Vec::with_capacity(k.calls.len());
        for ((shape, kst, _), &(_, rec)) in k.calls.iter().zip(recs) {
            if shape::shape(&rec.op) != *shape {
                continue 'loops;
            }
            let (p, np) = shape::peers(&rec.op);
            let mut here: [Option<Steps>; MAX_PEERS] = Default::default();
            for j in 0..np {
                if let Some(v) = &kst[j] {
                    let mut fit = *v;
                    fit.retain(|s| p[j] >= 0 && s.at(n, me, 0, 1) == Some(p[j] as u32));
                    if fit.is_empty() {
                        continue 'loops;
                    }
                    here[j] = Some(fit);
                }
            }
            steps.push(here);
        }
        match &mut out {
            None => out = Some(steps),
            // Two loops of the template with these calls: the steps of either.
            Some(o) if o.len() == steps.len() => {
                for (a, b) in o.iter_mut().zip(steps) {
                    for (x, y) in a.iter_mut().zip(b) {
                        match (x, y) {
                            (Some(x), Some(y)) => y.iter().for_each(|s| x.push(s)),
                            (x @ None, y) => *x = y,
                            _ => {}
                        }
                    }
                }
            }
            Some(_) => {}
        }
    }
    out
}

/// The forms a slot's peer may still take, narrowed by every record joined to it.
#[derive(Clone, Debug, Default)]
struct Candidates {
    fixed: Option<i32>,
    rank: Option<u32>,
    from_end: Option<u32>,
    offset: Option<Offset>,
    xor: Option<u32>,
    transpose: bool,
    /// A rank on the diagonal called with itself.
    diagonal: bool,
    /// Some rank called with MPI_PROC_NULL here (each such rank is checked once the form is
    /// known: its offset must leave the grid).
    null_seen: bool,
    /// Ranks that called with a real peer, over the series.
    real_ranks: u32,
    /// Whether those were different ranks.
    one_rank: Option<(usize, u32)>,
    many_ranks: bool,
    started: bool,
}

impl Candidates {
    /// Whether the peer `p` of rank `me` fits a form still possible. `relative`: only by a
    /// relative form (offset, bits) while one is possible, so that two neighbours that happen
    /// to be one rank (rank 6's -y and rank 5's -z, both rank 4) stay two calls.
    fn admits(&self, g: &Grid, me: u32, p: i32, relative: bool) -> bool {
        if !self.started {
            return true;
        }
        if p >= 0 && self.fixed == Some(PROC_NULL) && self.real_ranks == 0 {
            return true;
        }
        if p < 0 {
            return match self.fixed {
                Some(f) => f == p,
                None => p == PROC_NULL && self.offset.is_some() && self.fixed.is_none(),
            };
        }
        let n = g.ranks();
        let p = p as u32;
        let rel = self.offset.is_some_and(|o| g.reaches(me, o, p))
            || self.xor == Some(me ^ p)
            || (self.transpose && g.transpose(me) == Some(p));
        if rel || (relative && (self.offset.is_some() || self.xor.is_some() || self.transpose)) {
            return rel;
        }
        self.rank == Some(p) || self.from_end.is_some_and(|k| k < n && n - 1 - k == p)
    }

    fn join(&mut self, g: &Grid, me: u32, p: i32, trace: usize) {
        let n = g.ranks();
        if p < 0 {
            if p == PROC_NULL && self.started && self.fixed.is_none() {
                self.null_seen = true;
                return;
            }
            if !self.started {
                self.started = true;
                self.fixed = Some(p);
                if p == PROC_NULL {
                    // A first PROC_NULL may also be an edge of an offset not seen yet.
                    self.null_seen = true;
                }
            }
            return;
        }
        let p = p as u32;
        if !self.started || (self.fixed == Some(PROC_NULL) && self.real_ranks == 0) {
            self.started = true;
            self.fixed = None;
            self.rank = Some(p);
            self.from_end = Some(n - 1 - p);
            self.offset = Some(g.offset(me, p));
            // A fixed bit mask is a 1-D notion (butterfly partners); on a grid it would join the
            // -1 and +1 neighbours of a dimension two ranks wide into one call.
            self.xor = (g.shape.ndims == 1).then_some(me ^ p);
            self.transpose = g.transpose(me) == Some(p);
            self.diagonal = p == me;
        } else {
            self.rank = self.rank.filter(|&r| r == p);
            self.from_end = self.from_end.filter(|&k| k < n && n - 1 - k == p);
            self.offset = self.offset.filter(|&o| g.reaches(me, o, p));
            self.xor = self.xor.filter(|&x| me ^ p == x);
            // A grid that is not square has no transpose: the form stays possible there
            // only if no rank of it called (checked when the slot's existence is settled).
            self.transpose &= g.transpose(me) == Some(p);
            self.diagonal |= p == me;
        }
        self.real_ranks += 1;
        match self.one_rank {
            None => self.one_rank = Some((trace, me)),
            Some(w) if w != (trace, me) => self.many_ranks = true,
            _ => {}
        }
    }

    /// The one form, preferring a relative one unless a single rank of each trace made the
    /// call (then it is that rank's own code, and a fixed peer is likelier).
    fn form(&self) -> Option<Form> {
        if let Some(f) = self.fixed {
            if self.real_ranks == 0 && !(f == PROC_NULL && self.null_seen && self.offset.is_some()) {
                return Some(Form::Fixed(f));
            }
        }
        let null = self.null_seen;
        let rel = self
            .offset
            .map(|offset| Form::Offset { offset, null })
            .or(self.xor.map(Form::Xor))
            .or(self.transpose.then_some(Form::Transpose { diagonal: self.diagonal }));
        let abs = self.rank.map(Form::Rank).or(self.from_end.map(Form::FromEnd));
        if self.many_ranks {
            rel.or(abs)
        } else {
            abs.or(rel)
        }
    }
}

/// Which ranks make a slot's call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exists {
    All,
    /// Those for which the slot's first peer, an offset or a transpose, is another rank of
    /// the grid.
    Neighbour,
    /// Those for which any request the slot completes was started.
    AnyRequest,
    Rank(u32),
    /// Those on a face of the grid: at the lowest coordinate of a dimension that does not wrap
    /// (`sides` bit 1), at the highest (bit 2) or at either (3); with `neighbour`, only those
    /// of them whose slot's peers are there as well. The ranks that hold a boundary of the
    /// global domain do work of their own there (NPB LU's surface integrals exchange along
    /// the faces only).
    Face {
        dim: u8,
        sides: u8,
        neighbour: bool,
    },
    /// Those with at least this many neighbours among the grid steps the program's calls take
    /// (a receive from MPI_ANY_SOURCE posted once per neighbour: HPCCG's set-up posts two on an
    /// interior rank of its line, one at either end).
    Neighbours(u32),
    /// Those with one of the requests the wait completes still in flight when they reach it,
    /// known only as the program runs (a run of MPI_Waitany calls, one per request).
    Pending,
    /// Every rank but this one (the workers of a master).
    NotRank(u32),
    FromEnd(u32),
}

/// What one trace of the series says of one slot.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// The ranks that made the call.
    pub ranks: Vec<bool>,
    /// Each size's values over those ranks (a rooted collective's root aside), with how many
    /// ranks had each.
    pub values: [Vec<(u64, u32)>; MAX_PARAMS],
    /// A rooted collective's sizes at its root.
    pub root_values: [Vec<(u64, u32)>; MAX_PARAMS],
    /// Each size per rank (rank, value, the record's index), the root aside: where the ranks'
    /// values differ, crate::faces reads them by the faces of the grid each rank lies on.
    pub by_rank: [Vec<(u32, u64, u64)>; MAX_PARAMS],
    /// `count` less the requests completed, for a wait (requests passed that were null).
    pub extra: Vec<(u64, u32)>,
    /// For a call in a loop: its iterations.
    pub trips: Vec<(u64, u32)>,
    /// For a collective with per-rank counts: how far they were from even, at most
    /// ([`shape::unevenness`]).
    pub uneven: f64,
}

impl Seen {
    pub fn count(&self) -> u32 {
        self.ranks.iter().filter(|&&b| b).count() as u32
    }
    /// The most common value of size `i` (the smaller on a tie) and whether every rank agreed.
    pub fn mode(v: &[(u64, u32)]) -> (u64, bool) {
        let best = v.iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0))).map(|x| x.0).unwrap_or(0);
        (best, v.len() <= 1)
    }
}

fn bump(v: &mut Vec<(u64, u32)>, x: u64) {
    match v.iter_mut().find(|e| e.0 == x) {
        Some(e) => e.1 += 1,
        None => v.push((x, 1)),
    }
}

/// One call of the program.
#[derive(Clone, Debug)]
pub struct Slot {
    pub shape: Op,
    pub npeers: usize,
    cands: [Candidates; MAX_PEERS],
    /// For a call in a loop: the body's length and the call's place in it.
    pub lp: Option<(u16, u16)>,
    /// For a call in a loop: how much its tags grow an iteration.
    pub tag_step: i32,
    /// For a call in a loop, per peer: the steps it may still follow (`None`: the same peer
    /// every iteration, said by `cands`).
    steps: [Option<Steps>; MAX_PEERS],
    pub forms: [Form; MAX_PEERS],
    pub exists: Exists,
    /// For a wait: the slots whose requests it completes, in the order first seen.
    pub completes: Vec<SlotId>,
    /// The last of a run of MPI_Waitany calls: repeated while one of the run's requests is in
    /// flight, as a rank with more neighbours than any traced one waits for each of them.
    pub drain: bool,
    /// Per trace of the series.
    pub seen: Vec<Seen>,
}

/// The program of every rank, for one topology shape.
#[derive(Clone, Debug)]
pub struct Template {
    pub shape: Shape,
    /// How records were matched to slots ([`Template::build`]).
    pub relative: bool,
    /// Whether loops were folded ([`Template::build`]).
    pub loops: bool,
    pub slots: Vec<Slot>,
    /// Slot ids in program order.
    pub order: Vec<SlotId>,
    /// Wrapped dimensions that never exceed 2 ranks in the series (their -1 and +1 neighbours
    /// are one rank there, so the sign of a step along them is inferred).
    pub ambiguous: Vec<usize>,
}

/// A record the template cannot take, or a traced program it does not regenerate.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub trace: usize,
    pub rank: u32,
    /// The record's index in the rank's trace (expansion steps counted).
    pub record: u64,
    pub what: String,
    /// How far the template got (records placed over the series), to report the candidate
    /// topology that explained the most.
    pub progress: u64,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "rank {}, record {}: {}", self.rank, self.record, self.what)
    }
}

/// A rank's program as the template reads it: its records without expansion steps, with
/// each record's index in the trace.
pub struct Program<'a> {
    pub recs: Vec<(u64, &'a Record)>,
}

impl<'a> Program<'a> {
    pub fn of(records: &'a [Record]) -> Program<'a> {
        let recs = records
            .iter()
            .enumerate()
            .filter(|(_, r)| !matches!(r.op, Op::Step { .. }))
            .map(|(i, r)| (i as u64, r))
            .collect();
        Program { recs }
    }
}

/// The call a record makes, without its peers: its kind, a collective's name, the MPI
/// function of a call without communication.
pub fn call_name(op: &Op) -> String {
    match op {
        Op::Coll { coll, .. } => coll.name().to_lowercase(),
        Op::Other { func } => {
            psins_formats::functions::name_of(*func).map_or_else(|| op.kind().name().to_string(), |n| n.to_string())
        }
        _ => op.kind().name().to_string(),
    }
}

pub fn describe(op: &Op) -> String {
    let (p, n) = shape::peers(op);
    let mut s = call_name(op);
    if n > 0 && !matches!(op, Op::Coll { .. }) {
        let peers: Vec<String> =
            p[..n].iter().map(|&x| shape::sentinel(x).map(str::to_string).unwrap_or(x.to_string())).collect();
        s += &format!(" peer {}", peers.join("/"));
    }
    s
}

/// A call as [`describe`] says it, and for a wait what it completes (two waits differ in
/// that alone).
pub fn describe_call(rec: &Record) -> String {
    let mut s = describe(&rec.op);
    if let Op::Wait { count, .. } = rec.op {
        let done: Vec<String> = rec
            .list
            .chunks_exact(4)
            .map(|q| match q[1] {
                -3 => "a send or collective".to_string(),
                src => format!(
                    "a receive from {}",
                    shape::sentinel(src as i32).map(str::to_string).unwrap_or(src.to_string())
                ),
            })
            .collect();
        s += &format!(
            " of {count} requests completing {}",
            if done.is_empty() { "none".into() } else { done.join(", ") }
        );
    }
    s
}

impl Form {
    pub fn show(&self, ndims: usize) -> String {
        match *self {
            Form::Fixed(p) => shape::sentinel(p).unwrap_or("?").to_string(),
            Form::Rank(r) => format!("rank {r}"),
            Form::FromEnd(0) => "the last rank".into(),
            Form::FromEnd(k) => format!("the last rank - {k}"),
            Form::Offset { offset, null } => {
                format!("{}{}", show_offset(offset, ndims), if null { " (MPI_PROC_NULL off the edge)" } else { "" })
            }
            Form::Xor(m) => format!("rank xor {m}"),
            Form::Transpose { diagonal: false } => "the rank across the grid's diagonal".into(),
            Form::Transpose { diagonal: true } => "the rank across the grid's diagonal (itself on it)".into(),
            Form::Iter(step) => step.show(),
        }
    }

    /// The peer of rank `me` on `g` (at a loop's first iteration); `None`: no such rank, and
    /// the rank does not make the call.
    pub fn resolve(&self, g: &Grid, me: u32) -> Option<i32> {
        self.resolve_at(g, me, 0, 1)
    }

    /// The peer of rank `me` on `g` at iteration `k` of the `m` of the loop the call is in.
    pub fn resolve_at(&self, g: &Grid, me: u32, k: u32, m: u32) -> Option<i32> {
        let n = g.ranks();
        match *self {
            Form::Fixed(p) => Some(p),
            Form::Rank(r) => (r < n).then_some(r as i32),
            Form::FromEnd(k) => (k < n).then(|| (n - 1 - k) as i32),
            Form::Offset { offset, null } => match g.apply(me, offset) {
                Some(p) => Some(p as i32),
                None if null => Some(PROC_NULL),
                None => None,
            },
            Form::Xor(m) => {
                let p = me ^ m;
                (p < n).then_some(p as i32)
            }
            Form::Transpose { diagonal } => g.transpose(me).filter(|&p| diagonal || p != me).map(|p| p as i32),
            Form::Iter(step) => step.at(n, me, k, m).map(|p| p as i32),
        }
    }
}

impl Template {
    /// Builds the template of `series` on topology `shape`.
    /// `relative`: a record joins a slot whose peer may still be relative only by that
    /// relative form (grid codes); otherwise also by a fixed rank it shares with the slot
    /// (everyone sending to a root). `loops`: calls repeated in a loop are one slot each,
    /// their peers moving with the iteration and the iterations counted ([`fold`]), so that a
    /// loop whose trip count depends on P is one program at every P.
    pub fn build(series: &Series, shape: Shape, relative: bool, loops: bool) -> Result<Template, Mismatch> {
        let mut t = Template { shape, relative, loops, slots: Vec::new(), order: Vec::new(), ambiguous: Vec::new() };
        let mut progress = 0u64;
        // The largest trace first (its offsets are the least ambiguous), its longest programs
        // first (the ranks with every neighbour).
        let mut ranks: Vec<(usize, u32)> = Vec::new();
        for ti in (0..series.traces.len()).rev() {
            let mut rs: Vec<u32> = (0..series.traces[ti].ranks()).collect();
            rs.sort_by_key(|&r| std::cmp::Reverse(series.traces[ti].tasks[r as usize].len()));
            ranks.extend(rs.into_iter().map(|r| (ti, r)));
        }
        for (ti, r) in ranks {
            let g = shape.at(series.traces[ti].ranks());
            let recs = crate::comms::normalised(&series.traces[ti], r, &g).map_err(|mut m| {
                m.trace = ti;
                m.progress = progress;
                m
            })?;
            let prog = Program::of(&recs);
            let items = if loops {
                let known = (ti + 1 < series.traces.len()).then(|| t.known());
                fold(&prog, r, g.ranks(), known.as_deref())
            } else {
                prog.recs.iter().map(|&(idx, rec)| Item { idx, rec, lp: None }).collect()
            };
            t.merge(series, ti, &g, r, &items, &mut progress)?;
        }
        t.finish(series).map_err(|mut m| {
            m.progress = progress;
            m
        })?;
        Ok(t)
    }

    /// Whether `item` can be a call of slot `id`. A wait completing requests whose calls are
    /// known (`reqs`: this rank's request ids by the slot that started them) is a call of a
    /// wait slot that completed one of those calls' requests before: waits have no peers, and
    /// a rank with fewer neighbours than another waits for other requests in the same places
    /// (the ParRes stencil's top-edge ranks wait for their bottom neighbour's messages first).
    fn matches(&self, id: SlotId, g: &Grid, me: u32, item: &Item, reqs: &HashMap<u32, SlotId>) -> bool {
        let s = &self.slots[id];
        if item.shape() != s.shape
            || s.lp != item.lp.as_ref().map(|l| (l.len, l.at))
            || item.lp.as_ref().is_none_or(|l| !l.once) && s.tag_step != item.lp.as_ref().map_or(0, |l| l.tag_step)
        {
            return false;
        }
        // Not MPI_Waitany, Waitsome and their tests: which request they complete is the run's
        // timing (their runs are matched as a whole, below).
        let timed = matches!(
            item.rec.op,
            Op::Wait { func: WaitFn::Waitany | WaitFn::Testany | WaitFn::Waitsome | WaitFn::Testsome, .. }
        );
        if matches!(item.rec.op, Op::Wait { .. }) && !timed && !s.completes.is_empty() {
            let mut from = item.rec.list.chunks_exact(4).filter_map(|q| reqs.get(&(q[0] as u32))).peekable();
            if from.peek().is_some() && !from.any(|f| s.completes.contains(f)) {
                return false;
            }
        }
        let (p, n) = shape::peers(&item.rec.op);
        (0..n).all(|i| match (&s.steps[i], item.lp.as_ref().and_then(|l| l.steps[i].as_ref())) {
            (None, None) => s.cands[i].admits(g, me, p[i], self.relative),
            (Some(a), Some(b)) => a.iter().any(|x| b.contains(x)),
            _ => false,
        })
    }

    fn merge(
        &mut self,
        series: &Series,
        ti: usize,
        g: &Grid,
        me: u32,
        prog: &[Item],
        progress: &mut u64,
    ) -> Result<(), Mismatch> {
        let traces = series.traces.len();
        let size = g.ranks() as usize;
        let mut reqs: HashMap<u32, SlotId> = HashMap::new();
        let (mut i, mut j) = (0usize, 0usize);
        let mut order = Vec::with_capacity(self.order.len().max(prog.len()));
        while j < prog.len() {
            let item = &prog[j];
            let (idx, rec) = (item.idx, item.rec);
            if let Some(why) = shape::unsupported(&rec.op, &rec.list) {
                return Err(Mismatch {
                    trace: ti,
                    rank: me,
                    record: idx,
                    what: format!("{}: {why}", describe(&rec.op)),
                    progress: *progress,
                });
            }
            let here = i < self.order.len() && self.matches(self.order[i], g, me, item, &reqs);
            let id = if here {
                let id = self.order[i];
                order.push(id);
                i += 1;
                id
            } else {
                // Skip template slots this rank lacks, or add the record as a new slot:
                // whichever agrees again sooner.
                let skip = (1..WINDOW)
                    .take_while(|d| i + d < self.order.len())
                    .find(|d| self.matches(self.order[i + d], g, me, item, &reqs));
                let ahead = (1..WINDOW)
                    .take_while(|d| j + d < prog.len())
                    .find(|d| i < self.order.len() && self.matches(self.order[i], g, me, &prog[j + d], &reqs));
                match (skip, ahead) {
                    (Some(s), a) if a.is_none_or(|a| s <= a) => {
                        order.extend_from_slice(&self.order[i..i + s]);
                        i += s;
                        let id = self.order[i];
                        order.push(id);
                        i += 1;
                        id
                    }
                    _ => {
                        let id = self.slots.len();
                        let (_, n) = shape::peers(&rec.op);
                        self.slots.push(Slot {
                            shape: item.shape(),
                            npeers: n,
                            cands: Default::default(),
                            lp: item.lp.as_ref().map(|l| (l.len, l.at)),
                            tag_step: item.lp.as_ref().map_or(0, |l| l.tag_step),
                            steps: item.lp.as_ref().map(|l| l.steps).unwrap_or_default(),
                            forms: [Form::Fixed(NO_RANK); MAX_PEERS],
                            exists: Exists::All,
                            completes: Vec::new(),
                            drain: false,
                            seen: vec![Seen::default(); traces],
                        });
                        order.push(id);
                        id
                    }
                }
            };
            // Join the record to the slot.
            let s = &mut self.slots[id];
            let (p, n) = shape::peers(&rec.op);
            for (k, c) in s.cands.iter_mut().enumerate().take(n) {
                match (&mut s.steps[k], item.lp.as_ref().and_then(|l| l.steps[k].as_ref())) {
                    (Some(a), Some(b)) => a.retain(|x| b.contains(x)),
                    _ => c.join(g, me, p[k], ti),
                }
            }
            let seen = &mut s.seen[ti];
            if seen.ranks.is_empty() {
                seen.ranks = vec![false; size];
            }
            if seen.ranks[me as usize] {
                return Err(Mismatch {
                    trace: ti,
                    rank: me,
                    record: idx,
                    what: format!("{} aligns with a call this rank already made: the program does not repeat the same way on every rank", describe(&rec.op)),
                    progress: *progress,
                });
            }
            seen.ranks[me as usize] = true;
            let (v, np) = shape::params(&rec.op);
            let at_root = crate::comms::is_root(g, me, &rec.op);
            for (k, x) in v.iter().enumerate().take(np) {
                if at_root {
                    bump(&mut seen.root_values[k], *x);
                } else {
                    bump(&mut seen.values[k], *x);
                    seen.by_rank[k].push((me, *x, idx));
                }
            }
            if let Op::Coll { coll, .. } = rec.op {
                seen.uneven = seen.uneven.max(shape::unevenness(coll, &rec.list));
            }
            let one = [(idx, rec)];
            let iters = item.lp.as_ref().map_or(&one[..], |l| &l.iters[..]);
            if item.lp.is_some() {
                bump(&mut seen.trips, iters.len() as u64);
            }
            for &(idx, rec) in iters {
                let seen = &mut self.slots[id].seen[ti];
                if let Some(req) = shape::starts_request(&rec.op) {
                    reqs.insert(req, id);
                }
                if let Op::Wait { count, .. } = rec.op {
                    let done = rec.list.len() / 4;
                    bump(&mut seen.extra, (count as u64).saturating_sub(done as u64));
                    for q in rec.list.chunks_exact(4) {
                        let Some(&from) = reqs.get(&(q[0] as u32)) else {
                            return Err(Mismatch {
                                trace: ti,
                                rank: me,
                                record: idx,
                                what: format!("completes request {} that no record of this rank started", q[0]),
                                progress: *progress,
                            });
                        };
                        let s = &mut self.slots[id];
                        if !s.completes.contains(&from) {
                            s.completes.push(from);
                        }
                    }
                }
            }
            *progress += 1;
            j += 1;
        }
        order.extend_from_slice(&self.order[i.min(self.order.len())..]);
        self.order = order;
        Ok(())
    }

    /// Settles every slot's peer forms and existence rule.
    fn finish(&mut self, series: &Series) -> Result<(), Mismatch> {
        let grids: Vec<Grid> = series.traces.iter().map(|t| self.shape.at(t.ranks())).collect();
        let pos: HashMap<SlotId, usize> = self.order.iter().enumerate().map(|(i, &s)| (s, i)).collect();
        for id in 0..self.slots.len() {
            let slot = &mut self.slots[id];
            slot.completes.sort_by_key(|s| pos[s]);
            for k in 0..slot.npeers {
                if let Some(steps) = &slot.steps[k] {
                    if let Some(step) = steps.first() {
                        slot.forms[k] = Form::Iter(step);
                        continue;
                    }
                }
                let form = slot.cands[k].form();
                // A fixed peer that some traced rank count does not have: the call's count
                // depends on P (a loop over ranks, seen as calls of their own).
                let absent = match form {
                    Some(Form::Rank(r) | Form::FromEnd(r)) => grids.iter().any(|g| r >= g.ranks()),
                    _ => false,
                };
                if absent {
                    let (trace, rank) = first_rank(slot);
                    return Err(Mismatch {
                        trace,
                        rank,
                        record: 0,
                        what: format!(
                            "{}: its peer, {}, is not a rank of every trace: the calls follow the rank count",
                            describe(&slot.shape),
                            form.unwrap().show(self.shape.ndims)
                        ),
                        progress: 0,
                    });
                }
                slot.forms[k] = form.ok_or_else(|| Mismatch {
                    trace: 0,
                    rank: 0,
                    record: 0,
                    what: format!(
                        "{}: its peer follows no pattern of the {} topology (data-dependent peers?)",
                        describe(&slot.shape),
                        self.shape
                    ),
                    progress: 0,
                })?;
            }
        }
        self.resolve_signs(&grids);
        for id in 0..self.slots.len() {
            let rules = [
                Exists::All,
                Exists::Neighbour,
                Exists::AnyRequest,
                Exists::Rank(0),
                Exists::NotRank(0),
                Exists::FromEnd(0),
                Exists::Neighbours(2),
                Exists::Neighbours(3),
                Exists::Neighbours(4),
                Exists::Neighbours(5),
                Exists::Neighbours(6),
            ];
            let faces = (0..self.shape.ndims as u8).flat_map(|dim| {
                [(3, true), (1, true), (2, true), (3, false), (1, false), (2, false)]
                    .map(|(sides, neighbour)| Exists::Face { dim, sides, neighbour })
            });
            let mut chosen = None;
            'rule: for rule in rules.into_iter().chain(faces) {
                for (ti, g) in grids.iter().enumerate() {
                    let seen = &self.slots[id].seen[ti];
                    for r in 0..g.ranks() {
                        let was = seen.ranks.get(r as usize).copied().unwrap_or(false);
                        match self.exists_by(id, rule, g, r) {
                            Some(x) if x == was => {}
                            _ => continue 'rule,
                        }
                    }
                }
                chosen = Some(rule);
                break;
            }
            let slot = &self.slots[id];
            let any = matches!(slot.shape, Op::Wait { func: WaitFn::Waitany | WaitFn::Testany, .. });
            let chosen = chosen.or((any && !slot.completes.is_empty()).then_some(Exists::Pending));
            let Some(rule) = chosen else {
                // Name the first rank where the likeliest rule (its neighbour being there, or
                // every rank) and the traces disagree.
                let rule = if self.exists_by(id, Exists::Neighbour, &grids[0], 0).is_some() {
                    Exists::Neighbour
                } else {
                    Exists::All
                };
                let mut at = first_rank(slot);
                let mut made = true;
                'find: for (ti, g) in grids.iter().enumerate() {
                    for r in 0..g.ranks() {
                        let was = slot.seen[ti].ranks.get(r as usize).copied().unwrap_or(false);
                        if self.exists_by(id, rule, g, r) != Some(was) {
                            (at, made) = ((ti, r), was);
                            break 'find;
                        }
                    }
                }
                let label = slot.label(self.shape.ndims);
                return Err(Mismatch {
                    trace: at.0,
                    rank: at.1,
                    record: 0,
                    what: format!(
                        "{label}: this rank {} the call, unlike the other ranks placed alike on the {} ({}): which ranks make it follows no pattern",
                        if made { "makes" } else { "does not make" },
                        self.shape,
                        grids[at.0].dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x"),
                    ),
                    progress: 0,
                });
            };
            self.slots[id].exists = rule;
        }
        // Runs of MPI_Waitany calls: each completes the lowest request in flight of those the
        // whole run completed, and the last repeats while any is left.
        let any = |s: &Slot| matches!(s.shape, Op::Wait { func: WaitFn::Waitany, .. }) && s.lp.is_none();
        let mut i = 0;
        while i < self.order.len() {
            if !any(&self.slots[self.order[i]]) {
                i += 1;
                continue;
            }
            let end = (i..self.order.len()).find(|&j| !any(&self.slots[self.order[j]])).unwrap_or(self.order.len());
            let mut union: Vec<SlotId> = Vec::new();
            for &id in &self.order[i..end] {
                for &c in &self.slots[id].completes {
                    if !union.contains(&c) {
                        union.push(c);
                    }
                }
            }
            union.sort_by_key(|s| pos[s]);
            for &id in &self.order[i..end] {
                self.slots[id].completes = union.clone();
            }
            self.slots[self.order[end - 1]].drain = true;
            i = end;
        }
        Ok(())
    }

    /// In a wrapped dimension of at most 2 ranks in every trace, a step of -1 and one of +1
    /// reach the same rank, so the traces cannot tell them apart; codes exchange with both
    /// neighbours, the lower first, so the calls of one kind stepping along it alternate -1, +1
    /// in program order.
    fn resolve_signs(&mut self, grids: &[Grid]) {
        let ndims = self.shape.ndims;
        self.ambiguous = (0..ndims)
            .filter(|&d| {
                self.shape.periodic >> d & 1 == 1
                    && grids.iter().all(|g| g.dims[d] <= 2)
                    && grids.iter().any(|g| g.dims[d] == 2)
            })
            .collect();
        for &d in &self.ambiguous.clone() {
            let mut last: HashMap<(psins_formats::Kind, usize), i32> = HashMap::new();
            for &id in &self.order {
                let kind = self.slots[id].shape.kind();
                for k in 0..self.slots[id].npeers {
                    if let Form::Offset { offset, .. } = &mut self.slots[id].forms[k] {
                        if offset[d] != 0 {
                            let sign = if last.get(&(kind, k)) == Some(&-1) { 1 } else { -1 };
                            offset[d] = sign;
                            last.insert((kind, k), sign);
                        }
                    }
                }
            }
        }
    }

    /// Whether rank `me` of `g` makes slot `id`'s call under `rule`; `None` where the rule does
    /// not apply to the slot.
    fn exists_by(&self, id: SlotId, rule: Exists, g: &Grid, me: u32) -> Option<bool> {
        let s = &self.slots[id];
        let n = g.ranks();
        Some(match rule {
            Exists::All => true,
            Exists::Neighbour => {
                let (Form::Offset { null: false, .. } | Form::Transpose { diagonal: false }) = s.forms[0] else {
                    return None;
                };
                s.npeers > 0 && s.forms[..s.npeers].iter().all(|f| f.resolve(g, me).is_some())
            }
            Exists::AnyRequest => {
                if s.completes.is_empty() {
                    return None;
                }
                s.completes.iter().any(|&c| self.exists(c, g, me))
            }
            Exists::Rank(k) => me == k,
            Exists::Face { dim, sides, neighbour } => {
                let d = dim as usize;
                if d >= g.dims.len() || g.wraps(d) {
                    return None;
                }
                let [low, high] = crate::faces::sides(g, me, d);
                let on = (sides & 1 == 1 && low) || (sides & 2 == 2 && high);
                on && (!neighbour || self.exists_by(id, Exists::Neighbour, g, me)?)
            }
            Exists::Neighbours(k) => {
                // Only for a call that names no neighbour of its own (a wildcard receive).
                let (Form::Fixed(_), true) = (s.forms[0], s.npeers > 0) else { return None };
                self.neighbours(g, me).len() as u32 >= k
            }
            Exists::Pending => !s.completes.is_empty(),
            Exists::NotRank(k) => me != k,
            Exists::FromEnd(k) => k < n && me == n - 1 - k,
        })
    }

    /// Rank `me`'s neighbours on `g` by the program's grid steps, in ascending rank.
    pub fn neighbours(&self, g: &Grid, me: u32) -> Vec<u32> {
        let mut v: Vec<u32> = self.steps().into_iter().filter_map(|o| g.apply(me, o)).filter(|&q| q != me).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The distinct grid steps of the program's point-to-point peers.
    fn steps(&self) -> Vec<Offset> {
        let mut v: Vec<Offset> = Vec::new();
        for s in &self.slots {
            for f in &s.forms[..s.npeers] {
                if let Form::Offset { offset, .. } = f {
                    if !v.contains(offset) {
                        v.push(*offset);
                    }
                }
            }
        }
        v
    }

    /// Whether rank `me` of `g`, which does not make slot `id`, still computes the burst before
    /// it: an edge rank without that neighbour does (also one on the face of a call made on
    /// that face where the neighbour is); a rank of another role (the slot made by rank 0
    /// only, by every rank but 0, or on a face the rank is not on) runs a program of its own.
    pub fn carries_gap(&self, id: SlotId, g: &Grid, me: u32) -> bool {
        match self.slots[id].exists {
            Exists::All | Exists::Neighbour | Exists::Neighbours(_) | Exists::AnyRequest => true,
            Exists::Face { dim, sides, neighbour: true } => {
                self.exists_by(id, Exists::Face { dim, sides, neighbour: false }, g, me) == Some(true)
            }
            _ => false,
        }
    }

    pub fn exists(&self, id: SlotId, g: &Grid, me: u32) -> bool {
        self.exists_by(id, self.slots[id].exists, g, me).unwrap_or(false)
    }

    /// How much the template needs to say, to rank the topologies that explain a series: its
    /// peers said by bits (a rank xor a mask) rather than by a step in the grid — a 3-D grid
    /// two ranks wide along two dimensions is also a line whose partners differ in one bit,
    /// which stops being true at a larger count — then its guessed signs ([`Template::ambiguous`]:
    /// a dimension two ranks wide explained as wrapped when it need not be), then its slots.
    pub fn complexity(&self) -> (usize, usize, usize) {
        let xors = self.slots.iter().flat_map(|s| &s.forms[..s.npeers]).filter(|f| matches!(f, Form::Xor(_))).count();
        (xors, self.ambiguous.len(), self.slots.len())
    }

    /// Checks that the template regenerates every program of the series: the same calls with
    /// the same peers and completions, in order.
    pub fn verify(&self, series: &Series) -> Result<(), Mismatch> {
        let mut gen = Vec::new();
        for (ti, tr) in series.traces.iter().enumerate() {
            let g = self.shape.at(tr.ranks());
            for r in 0..tr.ranks() {
                gen.clear();
                crate::generate::program(self, &g, r, &crate::generate::Observed(ti), &mut gen, None);
                let recs = crate::comms::normalised(tr, r, &g).map_err(|mut m| {
                    m.trace = ti;
                    m.progress = u64::MAX;
                    m
                })?;
                let prog = Program::of(&recs);
                let n = prog.recs.len().max(gen.len());
                for k in 0..n {
                    let (want, got) = (prog.recs.get(k), gen.get(k));
                    let same = match (want, got) {
                        (Some((_, a)), Some(b)) => same_call(a, b),
                        _ => false,
                    };
                    if !same {
                        let record = want.map(|w| w.0).unwrap_or(tr.tasks[r as usize].len() as u64);
                        let traced = want.map(|w| describe_call(w.1)).unwrap_or("the end of the rank's records".into());
                        let pattern = got.map(describe_call).unwrap_or("the end of the program".into());
                        return Err(Mismatch {
                            trace: ti,
                            rank: r,
                            record,
                            what: format!(
                                "the pattern found ({}) predicts {pattern}, the trace has {traced}",
                                self.shape
                            ),
                            progress: u64::MAX,
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

fn first_rank(slot: &Slot) -> (usize, u32) {
    for (ti, s) in slot.seen.iter().enumerate() {
        if let Some(r) = s.ranks.iter().position(|&b| b) {
            return (ti, r as u32);
        }
    }
    (0, 0)
}

/// The same call with the same peers (sizes and times aside); a wait completing the same
/// requests from the same sources.
fn same_call(a: &Record, b: &Record) -> bool {
    if shape::shape(&a.op) != shape::shape(&b.op) || shape::peers(&a.op) != shape::peers(&b.op) {
        return false;
    }
    if let (Op::Wait { count: ca, .. }, Op::Wait { count: cb, .. }) = (a.op, b.op) {
        if ca != cb || a.list.len() != b.list.len() {
            return false;
        }
        // Completion order is the run's timing, not the program: compare the sources as sets.
        let sources = |l: &[i64]| {
            let mut v: Vec<i64> = l.chunks_exact(4).map(|q| q[1]).collect();
            v.sort_unstable();
            v
        };
        return sources(&a.list) == sources(&b.list);
    }
    true
}

impl Slot {
    /// The words of this slot's call and peers, for the report.
    pub fn label(&self, ndims: usize) -> String {
        let mut s = describe(&self.shape);
        if let Some(cut) = s.find(" peer") {
            s.truncate(cut);
        }
        if self.npeers > 0 && !matches!(self.shape, Op::Coll { .. }) {
            let f: Vec<String> = self.forms[..self.npeers].iter().map(|f| f.show(ndims)).collect();
            s += &format!(" {}", f.join(" / "));
        }
        if let Op::Coll { .. } = self.shape {
            if let Form::Rank(r) = self.forms[0] {
                s += &format!(" root {r}");
            }
        }
        if let Some((len, at)) = self.lp {
            s += &format!(" (call {} of a loop of {len})", at + 1);
        }
        s
    }
}
