//! Per-MPI-function statistics (IPM style) and message histograms, gathered during replay.

use crate::units::Ps;
use psins_formats::functions::NFN;
use std::collections::BTreeMap;

/// Count, time and wait of one MPI function over all tasks.
#[derive(Clone, Copy, Debug, Default)]
pub struct FnStat {
    pub count: u64,
    pub time: Ps,
    pub wait: Ps,
}

/// Power-of-two histogram: bucket i holds values in [2^(i-1), 2^i) (bucket 0: zero).
#[derive(Clone, Debug)]
pub struct Log2Hist {
    pub counts: [u64; 65],
}

impl Default for Log2Hist {
    fn default() -> Self {
        Log2Hist { counts: [0; 65] }
    }
}

impl Log2Hist {
    #[inline]
    pub fn add(&mut self, v: u64) {
        self.counts[(64 - v.leading_zeros()) as usize] += 1;
    }
    /// Non-empty buckets as (lower bound, upper bound exclusive, count).
    pub fn rows(&self) -> Vec<(u64, u64, u64)> {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(
                |(i, &c)| {
                    if i == 0 {
                        (0, 1, c)
                    } else {
                        (1u64 << (i - 1), if i == 64 { u64::MAX } else { 1u64 << i }, c)
                    }
                },
            )
            .collect()
    }
}

/// Time of one region (the MPI_Pcontrol level in effect), summed over the tasks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegionStat {
    pub compute: Ps,
    pub comm: Ps,
    pub wait: Ps,
}

/// Everything gathered besides the per-task times.
pub struct Stats {
    pub fns: Vec<FnStat>,
    pub others: BTreeMap<u32, FnStat>,
    pub sizes: Log2Hist,
    /// Achieved bandwidth (bytes / (delivery − data start)) in bytes per second.
    pub bandwidths: Log2Hist,
    pub messages: u64,
    pub bytes: u128,
    pub intra_messages: u64,
    /// Requests left open at the end of their task's records (started and never completed by
    /// a wait, e.g. isends SNAP only tests; consolidation keeps them with a warning): their
    /// messages were replayed, no one waited for them. And the tasks that have some.
    pub open_requests: u64,
    pub open_request_ranks: u64,
    /// Wildcard receives whose completion record was not found (matched as wildcards).
    pub unresolved_wildcards: u64,
    /// Messages sent and never received by the end of a complete replay (eager sends whose
    /// receiver's records hold no matching receive: a trace missing a rank's records, or an
    /// application that finalizes with messages pending), and the first of them described.
    pub unreceived: u64,
    pub first_unreceived: Option<String>,
    /// One-sided operations replayed (engine/rma.rs), and the data bytes they moved through
    /// the network model in both directions (a put's data, a get's data, both halves of the
    /// fetching kinds; not the control messages). Not counted in `messages`/`bytes`.
    pub rma_ops: u64,
    pub rma_bytes: u128,
    /// Time by MPI_Pcontrol level (1 before a task's first MPI_Pcontrol); empty when the trace
    /// has no `pcontrol` record.
    pub regions: BTreeMap<i32, RegionStat>,
    /// Per rank, its wait per MPI function: (function id, ps) for the functions it waited in,
    /// in the order first met. Sparse, as a rank waits in a few functions: at a million ranks
    /// an empty list (24 bytes) for each rank that never waits and 16 bytes per entry.
    pub rank_waits: Vec<Vec<(u16, Ps)>>,
}

impl Default for Stats {
    fn default() -> Self {
        Self::new()
    }
}

impl Stats {
    pub fn new() -> Stats {
        Stats {
            fns: vec![FnStat::default(); NFN],
            others: BTreeMap::new(),
            sizes: Log2Hist::default(),
            bandwidths: Log2Hist::default(),
            messages: 0,
            bytes: 0,
            intra_messages: 0,
            open_requests: 0,
            open_request_ranks: 0,
            unresolved_wildcards: 0,
            unreceived: 0,
            first_unreceived: None,
            rma_ops: 0,
            rma_bytes: 0,
            regions: BTreeMap::new(),
            rank_waits: Vec::new(),
        }
    }

    /// One record's call on `rank`: `calls` MPI calls (more than one for a `poll` record).
    #[inline]
    pub fn call(&mut self, rank: u32, id: u16, other: Option<u32>, calls: u64, time: Ps, wait: Ps) {
        let s = match other {
            Some(f) => self.others.entry(f).or_default(),
            None => &mut self.fns[id as usize],
        };
        s.count += calls;
        s.time += time;
        s.wait += wait;
        if wait > 0 {
            self.rank_wait(rank, id, wait);
        }
    }

    /// Adds `wait` to `rank`'s wait in function `id` (`other` records' functions all count
    /// under [`OTHER_FN`]). Only calls that waited come here, so the short scan is rare.
    #[cold]
    fn rank_wait(&mut self, rank: u32, id: u16, wait: Ps) {
        if self.rank_waits.len() <= rank as usize {
            self.rank_waits.resize_with(rank as usize + 1, Vec::new);
        }
        let w = &mut self.rank_waits[rank as usize];
        match w.iter_mut().find(|e| e.0 == id) {
            Some(e) => e.1 += wait,
            None => w.push((id, wait)),
        }
    }

    #[inline]
    pub fn message(&mut self, bytes: u64, start: Ps, delivered: Ps, intra: bool) {
        self.messages += 1;
        self.bytes += bytes as u128;
        self.intra_messages += intra as u64;
        self.sizes.add(bytes);
        let dt = delivered.saturating_sub(start);
        if dt > 0 && bytes > 0 {
            // f64, not u128: a 128-bit division per message is measurable at millions per second.
            self.bandwidths.add((bytes as f64 * 1e12 / dt as f64) as u64);
        }
    }
}
