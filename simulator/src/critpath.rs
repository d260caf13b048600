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

/// A contribution's (rank, function, category) in one word, so that finding it among the
/// kept ones compares one word per slot.
#[inline]
fn key(rank: u32, func: u16, cat: u8) -> u64 {
    (rank as u64) << 32 | (func as u64) << 8 | cat as u64
}

/// The key of an unused slot: no contribution has it (categories are below 4).
const EMPTY: u64 = u64::MAX;

/// A chain's summary: its length split by category (exact) and its largest contributions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Path {
    /// Where the chain ends (the sum of `cats`).
    pub end: Ps,
    pub cats: [Ps; 4],
    /// The kept contributions: `keys[i]` ([`key`]; [`EMPTY`] from `used` on) spent `ps[i]`.
    /// Keys apart from times, so a lookup scans one 64-byte line of keys.
    keys: [u64; SLOTS],
    ps: [Ps; SLOTS],
    pub used: u8,
    /// Contributions folded out of the kept ones, by category.
    pub other: [Ps; 4],
}

impl Default for Path {
    fn default() -> Path {
        Path { end: 0, cats: [0; 4], keys: [EMPTY; SLOTS], ps: [0; SLOTS], used: 0, other: [0; 4] }
    }
}

impl Path {
    /// Extends the chain by `d` spent by `rank` in `func` on `cat`.
    #[inline(always)]
    pub fn add(&mut self, rank: u32, func: u16, cat: Cat, d: Ps) {
        // Many calls add nothing (no wait, no burst): no call for them.
        if d != 0 {
            self.extend(rank, func, cat, d);
        }
    }

    /// [`Path::add`] of a nonzero `d`.
    #[inline(never)]
    fn extend(&mut self, rank: u32, func: u16, cat: Cat, d: Ps) {
        self.end += d;
        self.cats[cat as usize] += d;
        let k = key(rank, func, cat as u8);
        // A key is kept at most once: the scan needs no early exit (and so no branch per slot).
        let mut hit = SLOTS;
        for (i, &s) in self.keys.iter().enumerate() {
            if s == k {
                hit = i;
            }
        }
        if hit < SLOTS {
            self.ps[hit] += d;
            return;
        }
        let used = self.used as usize;
        if used < SLOTS {
            (self.keys[used], self.ps[used]) = (k, d);
            self.used += 1;
            return;
        }
        // The first of the smallest makes way (or the new one is folded, if not larger).
        let (mut i, mut min) = (0, self.ps[0]);
        for (j, &p) in self.ps.iter().enumerate().skip(1) {
            if p < min {
                (i, min) = (j, p);
            }
        }
        if min < d {
            self.other[(self.keys[i] & 0xff) as usize] += min;
            (self.keys[i], self.ps[i]) = (k, d);
        } else {
            self.other[cat as usize] += d;
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

    /// The kept contributions, in slot order.
    pub fn slots(&self) -> impl Iterator<Item = Slot> + '_ {
        self.keys[..self.used as usize].iter().zip(&self.ps).map(|(&k, &ps)| Slot {
            rank: (k >> 32) as u32,
            func: (k >> 8) as u16,
            cat: k as u8,
            ps,
        })
    }
}

/// No chain kept (an offer never made).
const NONE: u32 = u32::MAX;

/// A chain offered to a task: a collective's, or a message's — the sender's chain at the
/// send plus the message's own leg. The chain itself is kept once in [`Tracker::chains`]
/// (a collective's once for all its members, a sender's once for the messages it sent while
/// its path stayed the same); the sender's time in its call up to the send and the leg are
/// added only when the task takes the offer: most offers are not taken (of a wait's
/// messages, only the one that ended it).
#[derive(Clone, Copy, Debug)]
struct Offer {
    /// Where the offered chain ends, its message leg added (the leg ends at `done`).
    end: Ps,
    /// The chain in [`Tracker::chains`] ([`NONE`]: none offered yet).
    chain: u32,
    /// The message's sender and sending function, when it was sent, its time in the network
    /// beyond the latency, and when it completed the receive (0: no message leg).
    src: u32,
    func: u16,
    sent: Ps,
    transfer: Ps,
    done: Ps,
}

impl Offer {
    const NONE: Offer = Offer { end: 0, chain: NONE, src: 0, func: 0, sent: 0, transfer: 0, done: 0 };

    /// Adds the message's leg to `p` (the offered chain): the sender's time in its call up
    /// to the send, the message's latency (from the send to the data entering the network,
    /// the path's latency, the receiver's overhead), then its transfer, up to `done`.
    #[inline]
    fn leg(&self, p: &mut Path) {
        p.local(self.src, self.func, self.sent, 0);
        let latency = self.done.saturating_sub(p.end).saturating_sub(self.transfer);
        p.add(self.src, self.func, Cat::Latency, latency);
        p.add(self.src, self.func, Cat::Transfer, self.done.saturating_sub(p.end));
    }
}

/// A received message's times.
pub struct Arrival {
    /// When it was sent.
    pub sent: Ps,
    /// When its data entered the network, and when it arrived over a path of latency `l0`.
    pub data_at: Ps,
    pub delivered: Ps,
    pub l0: Ps,
    /// When it completed the receive, and when the receive was posted.
    pub done: Ps,
    pub posted: Ps,
}

/// The tracker's state during a replay: one path per task, plus the chain a completed
/// receive or collective offers the task (taken if it is what ends the task's current call).
/// Its hooks run inside the replay's observer functions, which are out of line: the
/// replay's loop keeps a test and a call for each, so that a replay without it runs as few
/// instructions as it can.
pub struct Tracker {
    pub paths: Vec<Path>,
    /// Per task, a chain in `chains` equal to its path ([`NONE`]: none), shared by the
    /// messages it sent since its path last changed: most calls change nothing (no burst,
    /// no cost), so a run of sends copies the path once.
    snaps: Vec<u32>,
    offers: Vec<Offer>,
    /// Chains sent or offered and still wanted: a message's from its send until its receive
    /// (then its receiver's offer holds it, or nobody), a collective's while an offer holds
    /// it. Reference-counted; freed places are reused.
    chains: Vec<Path>,
    refs: Vec<u32>,
    free: Vec<u32>,
    /// Per message id in flight: its chain in `chains` and its sending function.
    msgs: Vec<(u32, u16)>,
}

impl Tracker {
    pub fn new(tasks: u32) -> Tracker {
        Tracker {
            paths: vec![Path::default(); tasks as usize],
            snaps: vec![NONE; tasks as usize],
            offers: vec![Offer::NONE; tasks as usize],
            chains: Vec::new(),
            refs: Vec::new(),
            free: Vec::new(),
            msgs: Vec::new(),
        }
    }

    /// A place in `chains`, held once (the caller writes the chain).
    #[inline]
    fn place(&mut self) -> u32 {
        match self.free.pop() {
            Some(c) => {
                self.refs[c as usize] = 1;
                c
            }
            None => {
                self.chains.push(Path::default());
                self.refs.push(1);
                (self.chains.len() - 1) as u32
            }
        }
    }

    /// One holder of chain `c` lets it go.
    #[inline]
    fn release(&mut self, c: u32) {
        if c == NONE {
            return;
        }
        let r = &mut self.refs[c as usize];
        *r -= 1;
        if *r == 0 {
            self.free.push(c);
        }
    }

    /// Offers `o` to task `t` if its chain ends no earlier than the one offered before
    /// (which `t` has taken, or which ended nothing); true if taken.
    #[inline]
    fn offer(&mut self, t: u32, o: Offer) -> bool {
        let old = &mut self.offers[t as usize];
        if o.end < old.end {
            return false;
        }
        let c = std::mem::replace(old, o).chain;
        self.release(c);
        true
    }

    /// `t`'s path changed: the messages sent before keep the chain they shared.
    #[inline(always)]
    fn changed(&mut self, t: u32) {
        let s = std::mem::replace(&mut self.snaps[t as usize], NONE);
        self.release(s);
    }

    /// `t` computed for `d` from its path's end.
    #[inline(always)]
    pub fn compute(&mut self, t: u32, d: Ps) {
        if d != 0 {
            self.paths[t as usize].add(t, COMPUTE_FN, Cat::Compute, d);
            self.changed(t);
        }
    }

    /// `t` in `func` sent message `id` (the time of the send is the receiver's to add, in
    /// [`Offer::leg`]).
    #[inline(always)]
    pub fn send(&mut self, id: u32, t: u32, func: u16) {
        let c = match self.snaps[t as usize] {
            NONE => {
                // Held by `snaps` and by the message.
                let c = self.place();
                self.refs[c as usize] = 2;
                self.chains[c as usize] = self.paths[t as usize];
                self.snaps[t as usize] = c;
                c
            }
            c => {
                self.refs[c as usize] += 1;
                c
            }
        };
        let i = id as usize;
        if self.msgs.len() <= i {
            self.msgs.resize(i + 1, (NONE, 0));
        }
        self.msgs[i] = (c, func);
    }

    /// Message `id` from `src` completes `dst`'s receive ([`Arrival`]). A message that
    /// arrived before the receive was posted did not hold the receive up, so it ends no
    /// chain there.
    #[inline(always)]
    pub fn received(&mut self, id: u32, src: u32, dst: u32, a: Arrival) {
        let Arrival { sent, data_at, delivered, l0, done, posted } = a;
        let (c, func) = std::mem::replace(&mut self.msgs[id as usize], (NONE, 0));
        if c == NONE {
            return;
        }
        if delivered >= posted {
            // With its leg, the message's chain ends at `done`, or where the sender's did.
            let end = self.chains[c as usize].end.max(done);
            let transfer = delivered.saturating_sub(data_at).saturating_sub(l0);
            if self.offer(dst, Offer { end, chain: c, src, func, sent, transfer, done }) {
                return;
            }
        }
        self.release(c);
    }

    /// An analytic collective (`func`) whose last member `last` arrived at `at` ends at `end`.
    #[inline(never)]
    pub fn collective(&mut self, last: u32, func: u16, at: Ps, end: Ps, members: impl Iterator<Item = u32>) {
        let c = self.place();
        let p = &mut self.chains[c as usize];
        *p = self.paths[last as usize];
        p.local(last, func, at, 0);
        p.add(last, func, Cat::Transfer, end.saturating_sub(p.end));
        let o = Offer { end: p.end, chain: c, ..Offer::NONE };
        for m in members {
            if self.offer(m, o) {
                self.refs[c as usize] += 1;
            }
        }
        self.release(c);
    }

    /// `t`'s call in `func` ends at `end` after waiting `wait`: the chain offered to it if
    /// that chain is what ends the call, else its own.
    #[inline(always)]
    pub fn finish(&mut self, t: u32, func: u16, end: Ps, wait: Ps) {
        let i = t as usize;
        let own = &mut self.paths[i];
        // A call that ends no later than the path adds nothing to it. (`end > own.end` also
        // rules out taking an offer twice, and the empty one.)
        if end > own.end {
            let o = &self.offers[i];
            if o.end == end {
                *own = self.chains[o.chain as usize];
                o.leg(own);
            } else {
                own.local(t, func, end, wait);
            }
            self.changed(t);
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
        let mut top: Vec<Slot> = p.slots().collect();
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
        let names = psins_formats::functions::fn_names();
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
        use crate::units::human_time;
        use std::fmt::Write;
        let names = psins_formats::functions::fn_names();
        let _ = writeln!(s, "\ncritical path: {}, ending on rank {}", human_time(self.total), self.end_rank);
        let _ = write!(s, "  ");
        for (cat, name) in CATS {
            let _ = write!(s, "{name} {}  ", human_time(self.cats[cat as usize]));
        }
        let _ = writeln!(s);
        let row = |s: &mut String, label: String, c: &[Ps; 4]| {
            let [a, b, c, d] = c.map(human_time);
            let _ = writeln!(s, "  {label:<24} {a:>14} {b:>14} {c:>14} {d:>14}");
        };
        let _ = writeln!(
            s,
            "  {:<24} {:>14} {:>14} {:>14} {:>14}",
            "by rank", "computation", "latency", "transfer", "waiting"
        );
        for (r, c) in self.by_rank.iter().take(5) {
            row(s, format!("rank {r}"), c);
        }
        let _ = writeln!(s, "  {:<24}", "by function");
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
                "    {:>10}  rank {} {} ({})",
                human_time(t.ps),
                t.rank,
                fn_name(&names, t.func),
                CATS[t.cat as usize].1
            );
        }
    }
}

#[cfg(test)]
mod tests {
    /// A path and an offer (and its chain) per task: the tracker's memory per task
    /// (docs/simulator.md).
    #[test]
    fn path_is_small() {
        assert_eq!(size_of::<super::Path>(), 208);
        assert_eq!(size_of::<super::Offer>(), 48);
    }

    /// A message ends its receive's chain only if it arrived after the receive was posted:
    /// rank 0 computes 100 ps and sends at 100; the data enters the network at 100 and
    /// arrives at 150 (latency 10, so 40 of transfer); the receive completes at 210.
    #[test]
    fn a_message_ends_the_chain_only_if_it_arrived_after_the_post() {
        use super::{Tracker, COMPUTE_FN};
        let run = |posted| {
            let mut t = Tracker::new(2);
            t.compute(0, 100);
            t.send(0, 0, 1);
            let a = super::Arrival { sent: 100, data_at: 100, delivered: 150, l0: 10, done: 210, posted };
            t.received(0, 0, 1, a);
            t.finish(1, 2, 210, 0);
            t.paths[1]
        };
        // Posted at 200, after the arrival: rank 1's own call cost, 210 ps of latency.
        let early = run(200);
        assert_eq!(early.cats, [0, 210, 0, 0]);
        assert_eq!(early.slots().map(|s| (s.rank, s.func)).collect::<Vec<_>>(), [(1, 2)]);
        // Posted at 120, before it: the sender's 100 ps, then the message's 70 ps of latency
        // (210 - 100 - 40) and 40 ps of transfer, both the sender's in its function 1.
        let late = run(120);
        assert_eq!(late.cats, [100, 70, 40, 0]);
        let mut slots: Vec<_> = late.slots().map(|s| (s.rank, s.func, s.cat, s.ps)).collect();
        slots.sort();
        assert_eq!(slots, [(0, 1, 1, 70), (0, 1, 2, 40), (0, COMPUTE_FN, 0, 100)]);
    }

    /// Sends from an unchanged path share one copy of it; each receiver still gets its own
    /// message's send time. Rank 0 computes 100 ps and sends messages 0 and 1 at 100 and 105
    /// in one call (function 1) that ends at 110, computes 50 more and sends message 2 at 160.
    /// Rank 1 takes message 1: 100 of computation, 5 in the sending call before the send, the
    /// leg's latency 200 - 105 - 35 = 60 and transfer 150 - 105 - 10 = 35. Rank 2 takes
    /// message 2: 150 of computation and 10 of the first call, then latency 20 and transfer 10.
    #[test]
    fn sends_from_an_unchanged_path_share_it() {
        use super::{Arrival, Tracker};
        let mut t = Tracker::new(4);
        t.compute(0, 100);
        t.send(0, 0, 1);
        t.send(1, 0, 1);
        assert_eq!(t.msgs[0].0, t.msgs[1].0, "one copy for both");
        t.finish(0, 1, 110, 0);
        t.compute(0, 50);
        t.send(2, 0, 1);
        assert_ne!(t.msgs[2].0, t.msgs[1].0, "the path changed: a new copy");
        t.received(1, 0, 1, Arrival { sent: 105, data_at: 105, delivered: 150, l0: 10, done: 200, posted: 120 });
        t.finish(1, 2, 200, 0);
        assert_eq!(t.paths[1].cats, [100, 65, 35, 0]);
        t.received(2, 0, 2, Arrival { sent: 160, data_at: 160, delivered: 180, l0: 10, done: 190, posted: 170 });
        t.finish(2, 2, 190, 0);
        assert_eq!(t.paths[2].cats, [150, 30, 10, 0]);
        // Message 0 arrived before its receive was posted: not taken; rank 3 keeps its own.
        t.received(0, 0, 3, Arrival { sent: 100, data_at: 100, delivered: 150, l0: 10, done: 210, posted: 200 });
        t.finish(3, 2, 210, 0);
        assert_eq!(t.paths[3].cats, [0, 210, 0, 0]);
        assert_eq!(t.paths[0].cats, [150, 10, 0, 0], "the sender's own path");
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
        assert!(p.slots().all(|s| s.rank != 0));
    }
}
