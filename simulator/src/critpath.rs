//! The critical path: the chain of CPU bursts, messages and waits that ends at the predicted
//! end time (docs/simulator.md, "Critical path"), split into computation, latency, transfer
//! and waiting by rank and by MPI function.
//!
//! Tracked by forward propagation (as Scalasca's critical-path analysis does): every task
//! carries the summary of the longest chain ending at its current time, a fixed-size
//! [`Path`]; a message hands the sender's summary to the receiver, an analytic collective
//! hands the last arrival's to every member. The path of the task that ends last is the
//! critical path. No event history is kept, so memory stays a few hundred bytes per task.

use crate::units::Ps;

/// What a stretch of the path was spent on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Cat {
    /// CPU bursts between calls.
    Compute = 0,
    /// A call's own cost (call overhead, send and receive overheads) and a message's time
    /// before its data enters the network plus the path's latency.
    Latency = 1,
    /// A message's time in the network beyond the latency (bytes over bandwidth, contention),
    /// and an analytic collective's modelled duration.
    Transfer = 2,
    /// Time a rank on the path sat in a call waiting for a partner the path does not follow
    /// (a sender held by a late receiver, probes, one-sided synchronisation).
    Waiting = 3,
}

pub const CATS: [(Cat, &str); 4] =
    [(Cat::Compute, "computation"), (Cat::Latency, "latency"), (Cat::Transfer, "transfer"), (Cat::Waiting, "waiting")];

/// Function id standing for computation (no MPI function).
pub const COMPUTE_FN: u16 = u16::MAX - 1;

/// Distinct (rank, function, category) contributions kept per path; beyond, the smallest is
/// folded into `other` (a heavy-hitter summary: exact while the path visits at most this many).
pub const SLOTS: usize = 8;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slot {
    pub rank: u32,
    pub func: u16,
    pub cat: u8,
    pub ps: Ps,
}

/// A chain's summary: its length split by category (exact) and its largest contributions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Path {
    /// Where the chain ends (the sum of `cats`).
    pub end: Ps,
    pub cats: [Ps; 4],
    pub slots: [Slot; SLOTS],
    pub used: u8,
    /// Contributions folded out of `slots`, by category.
    pub other: [Ps; 4],
}

impl Path {
    /// Extends the chain by `d` spent by `rank` in `func` on `cat`.
    #[inline]
    pub fn add(&mut self, rank: u32, func: u16, cat: Cat, d: Ps) {
        if d == 0 {
            return;
        }
        self.end += d;
        self.cats[cat as usize] += d;
        let used = self.used as usize;
        let c = cat as u8;
        if let Some(s) = self.slots[..used].iter_mut().find(|s| s.rank == rank && s.func == func && s.cat == c) {
            s.ps += d;
            return;
        }
        let new = Slot { rank, func, cat: c, ps: d };
        if used < SLOTS {
            self.slots[used] = new;
            self.used += 1;
            return;
        }
        let (i, min) = self.slots.iter().enumerate().min_by_key(|(_, s)| s.ps).map(|(i, s)| (i, *s)).expect("full");
        if min.ps < d {
            self.other[min.cat as usize] += min.ps;
            self.slots[i] = new;
        } else {
            self.other[c as usize] += d;
        }
    }

    /// Brings the chain to `to` as `rank`'s own time in `func`: `wait` of it waiting, the rest
    /// the call's cost.
    #[inline]
    pub fn local(&mut self, rank: u32, func: u16, to: Ps, wait: Ps) {
        let d = to.saturating_sub(self.end);
        let w = wait.min(d);
        self.add(rank, func, Cat::Waiting, w);
        self.add(rank, func, Cat::Latency, d - w);
    }
}

/// The tracker's state during a replay: one path per task, plus the chain a completed
/// receive or collective offers the task (taken if it is what ends the task's current call).
pub struct Tracker {
    pub paths: Vec<Path>,
    offers: Vec<Path>,
    /// Paths of messages in flight, by message id: the sender's chain at the send.
    msgs: Vec<(Path, u16)>,
}

impl Tracker {
    pub fn new(tasks: u32) -> Tracker {
        Tracker {
            paths: vec![Path::default(); tasks as usize],
            offers: vec![Path::default(); tasks as usize],
            msgs: Vec::new(),
        }
    }

    /// `t` computed for `d` from its path's end.
    #[inline]
    pub fn compute(&mut self, t: u32, d: Ps) {
        self.paths[t as usize].add(t, COMPUTE_FN, Cat::Compute, d);
    }

    /// `t` in `func` sent message `id` at `now`.
    pub fn send(&mut self, id: u32, t: u32, func: u16, now: Ps) {
        let mut p = self.paths[t as usize];
        p.local(t, func, now, 0);
        let i = id as usize;
        if self.msgs.len() <= i {
            self.msgs.resize(i + 1, (Path::default(), 0));
        }
        self.msgs[i] = (p, func);
    }

    /// Message `id` from `src` completes `dst`'s receive at `done`: its data entered the
    /// network at `data_at` and arrived at `delivered` over a path of latency `l0`.
    pub fn received(&mut self, id: u32, src: u32, dst: u32, data_at: Ps, delivered: Ps, l0: Ps, done: Ps) {
        let (mut p, func) = self.msgs[id as usize];
        let transfer = delivered.saturating_sub(data_at).saturating_sub(l0);
        let latency = done.saturating_sub(p.end).saturating_sub(transfer);
        p.add(src, func, Cat::Latency, latency);
        p.add(src, func, Cat::Transfer, done.saturating_sub(p.end));
        self.offer(dst, p);
    }

    /// An analytic collective (`func`) whose last member `last` arrived at `at` ends at `end`.
    pub fn collective(&mut self, last: u32, func: u16, at: Ps, end: Ps, members: impl Iterator<Item = u32>) {
        let mut p = self.paths[last as usize];
        p.local(last, func, at, 0);
        p.add(last, func, Cat::Transfer, end.saturating_sub(p.end));
        for m in members {
            self.offer(m, p);
        }
    }

    fn offer(&mut self, t: u32, p: Path) {
        let o = &mut self.offers[t as usize];
        if p.end >= o.end {
            *o = p;
        }
    }

    /// `t`'s call in `func` ends at `end` after waiting `wait`: the chain offered to it if
    /// that chain is what ends the call, else its own.
    #[inline]
    pub fn finish(&mut self, t: u32, func: u16, end: Ps, wait: Ps) {
        let i = t as usize;
        let own = &mut self.paths[i];
        let offer = &self.offers[i];
        if offer.end == end && end > own.end {
            *own = *offer;
        } else {
            own.local(t, func, end, wait);
        }
    }
}

/// The critical path of a finished replay, for the reports.
#[derive(Clone, Debug)]
pub struct CriticalPath {
    /// The rank whose end is the predicted time (the lowest if several tie).
    pub end_rank: u32,
    pub total: Ps,
    pub cats: [Ps; 4],
    /// Contributions by rank, largest first (from the kept contributions).
    pub by_rank: Vec<(u32, [Ps; 4])>,
    /// Contributions by function ([`COMPUTE_FN`] for computation), largest first.
    pub by_fn: Vec<(u16, [Ps; 4])>,
    /// The kept (rank, function, category) contributions, largest first.
    pub top: Vec<Slot>,
    /// What the summary folded out of the kept contributions, by category.
    pub other: [Ps; 4],
}

impl CriticalPath {
    pub fn of(t: &Tracker, tasks: &[crate::report::TaskTimes]) -> CriticalPath {
        let end_rank =
            tasks.iter().enumerate().max_by_key(|(i, t)| (t.end, std::cmp::Reverse(*i))).map_or(0, |(i, _)| i);
        let p = t.paths.get(end_rank).copied().unwrap_or_default();
        let mut top: Vec<Slot> = p.slots[..p.used as usize].to_vec();
        top.sort_by_key(|s| (std::cmp::Reverse(s.ps), s.rank, s.func, s.cat));
        CriticalPath {
            end_rank: end_rank as u32,
            total: p.end,
            cats: p.cats,
            by_rank: group(&top, |s| s.rank),
            by_fn: group(&top, |s| s.func),
            top,
            other: p.other,
        }
    }
}

/// Sums contributions by `key`, largest total first (ties by key).
fn group<K: Ord + Copy>(slots: &[Slot], key: impl Fn(&Slot) -> K) -> Vec<(K, [Ps; 4])> {
    let mut m = std::collections::BTreeMap::<K, [Ps; 4]>::new();
    for s in slots {
        m.entry(key(s)).or_default()[s.cat as usize] += s.ps;
    }
    let mut v: Vec<(K, [Ps; 4])> = m.into_iter().collect();
    v.sort_by_key(|(k, c)| (std::cmp::Reverse(c.iter().sum::<Ps>()), *k));
    v
}

/// A function id's name in the reports.
fn fn_name(names: &[String], f: u16) -> String {
    match f {
        COMPUTE_FN => "computation".into(),
        _ => names.get(f as usize).filter(|n| !n.is_empty()).cloned().unwrap_or_else(|| "MPI_other".into()),
    }
}

fn cats_json(c: &[Ps; 4]) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    for (cat, name) in CATS {
        m.insert(format!("{name}_s"), crate::units::secs(c[cat as usize]).into());
    }
    m.into()
}

impl CriticalPath {
    pub fn json(&self) -> serde_json::Value {
        use serde_json::json;
        let names = crate::stats::fn_names();
        let by_rank: Vec<_> = self.by_rank.iter().map(|(r, c)| json!({"rank": r, "split": cats_json(c)})).collect();
        let by_fn: Vec<_> =
            self.by_fn.iter().map(|(f, c)| json!({"function": fn_name(&names, *f), "split": cats_json(c)})).collect();
        let top: Vec<_> = self
            .top
            .iter()
            .map(|s| json!({"rank": s.rank, "function": fn_name(&names, s.func), "category": CATS[s.cat as usize].1, "seconds": crate::units::secs(s.ps)}))
            .collect();
        json!({"end_rank": self.end_rank, "total_s": crate::units::secs(self.total), "total_ps": self.total,
            "split": cats_json(&self.cats), "by_rank": by_rank, "by_function": by_fn, "top": top,
            "not_itemised": cats_json(&self.other)})
    }

    pub fn table(&self, s: &mut String) {
        use std::fmt::Write;
        let secs = crate::units::secs;
        let names = crate::stats::fn_names();
        let _ = writeln!(s, "\ncritical path: {:.9} s, ending on rank {}", secs(self.total), self.end_rank);
        let _ = write!(s, "  ");
        for (cat, name) in CATS {
            let _ = write!(s, "{name} {:.9} s  ", secs(self.cats[cat as usize]));
        }
        let _ = writeln!(s);
        let row = |s: &mut String, label: String, c: &[Ps; 4]| {
            let _ = writeln!(
                s,
                "  {label:<24} {:>14.9} {:>14.9} {:>14.9} {:>14.9}",
                secs(c[0]),
                secs(c[1]),
                secs(c[2]),
                secs(c[3])
            );
        };
        let _ = writeln!(
            s,
            "  {:<24} {:>14} {:>14} {:>14} {:>14}",
            "by rank (s)", "computation", "latency", "transfer", "waiting"
        );
        for (r, c) in self.by_rank.iter().take(5) {
            row(s, format!("rank {r}"), c);
        }
        let _ = writeln!(s, "  {:<24}", "by function (s)");
        for (f, c) in self.by_fn.iter().take(5) {
            row(s, fn_name(&names, *f), c);
        }
        if self.other.iter().any(|&x| x > 0) {
            row(s, "(not itemised)".into(), &self.other);
        }
        let _ = writeln!(s, "  top contributions:");
        for t in self.top.iter().take(5) {
            let _ = writeln!(
                s,
                "    {:.9} s  rank {} {} ({})",
                secs(t.ps),
                t.rank,
                fn_name(&names, t.func),
                CATS[t.cat as usize].1
            );
        }
    }
}

#[cfg(test)]
mod tests {
    /// Two paths per task: their size is the tracker's memory per task (docs/simulator.md).
    #[test]
    fn path_is_small() {
        assert_eq!(std::mem::size_of::<super::Path>(), 208);
    }

    /// A full summary folds the smallest contribution into `other`; the totals stay exact.
    #[test]
    fn full_summary_folds_the_smallest() {
        let mut p = super::Path::default();
        for r in 0..super::SLOTS as u32 + 1 {
            p.add(r, 0, super::Cat::Compute, 10 + r as u64);
        }
        assert_eq!(p.end, (0..super::SLOTS as u64 + 1).map(|r| 10 + r).sum::<u64>());
        assert_eq!(p.other[0], 10);
        assert!(p.slots.iter().all(|s| s.rank != 0));
    }
}
