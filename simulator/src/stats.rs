//! Per-MPI-function statistics (IPM style) and message histograms, gathered during replay.

use crate::units::Ps;
use psins_formats::functions::{self, N_FUNCS};
use psins_formats::*;
use std::collections::BTreeMap;

/// Count, time and wait of one MPI function over all tasks.
#[derive(Clone, Copy, Debug, Default)]
pub struct FnStat {
    pub count: u64,
    pub time: Ps,
    pub wait: Ps,
}

// Every MPI function is counted under its id in c-headers/mpi_functions.tbl, the table the
// tracer's wrappers are generated from (psins_formats::functions, which also maps a record to
// its function), and named by it: there is no second numbering.
const _: () = assert!(N_FUNCS < STEP_FN as usize - 2, "function ids must fit below the u16 sentinels");

/// `Other` records whose id the table does not know; their own id is kept separately.
pub const OTHER_FN: u16 = N_FUNCS as u16;
/// `CommCreate` records of [`CommFn::Other`].
const COMM_OTHER: u16 = N_FUNCS as u16 + 1;
/// The size of [`Stats::fns`].
pub const NFN: usize = N_FUNCS + 2;
/// Expansion steps outside an expanded collective, and the `comm_create` (idup) of an
/// MPI_Comm_idup, whose call is the `other_req` record before it: not a call, not counted.
pub const STEP_FN: u16 = u16::MAX;

/// The MPI function a record stands for: its id in the function table
/// ([`functions::of_op`]), else [`OTHER_FN`], `COMM_OTHER` or [`STEP_FN`]. Out of line:
/// inlined into the replay's task loop, the match's arms spread over more code lines than
/// the call costs (less code per record; timing did not show the instruction cache to be
/// what limits the replay, docs/performance.md, *Findings behind the code*).
#[inline(never)]
pub fn fn_id(op: &Op) -> u16 {
    if !op.is_call() {
        return STEP_FN;
    }
    match (functions::of_op(op), op) {
        (Some(id), _) => id as u16,
        (None, Op::CommCreate { .. }) => COMM_OTHER,
        (None, _) => OTHER_FN,
    }
}

/// Names of every function id ("" for ids the table does not use).
pub fn fn_names() -> Vec<String> {
    let mut n: Vec<String> = functions::NAMES.iter().map(|s| s.to_string()).collect();
    n.push("MPI_other".into());
    n.push("MPI_Comm_other".into());
    debug_assert_eq!(n.len(), NFN);
    n
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `ReduceScatterBlock` → `Reduce_scatter_block`.
    fn mpi_case(camel: &str) -> String {
        let mut s = String::new();
        for (i, c) in camel.chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                s.push('_');
                s.push(c.to_ascii_lowercase());
            } else {
                s.push(c);
            }
        }
        s
    }

    /// Every variant of every enum a record names its function by reaches the function the
    /// enum's name says (derived independently of the tables above, which are by code).
    #[test]
    fn every_record_shape_is_named_after_its_function() {
        let n = fn_names();
        let name = |op: Op| n[fn_id(&op) as usize].clone();
        for &w in WaitFn::ALL {
            assert_eq!(name(Op::Wait { func: w, count: 0 }), format!("MPI_{}", w.name()));
        }
        for &coll in Coll::ALL {
            let c = |flags| Op::Coll {
                coll,
                comm: 0,
                root: 0,
                send_bytes: 0,
                recv_bytes: 0,
                count: 0,
                flags,
                req: 0,
                instance: 1,
            };
            assert_eq!(name(c(0)), format!("MPI_{}", mpi_case(coll.name())));
            assert_eq!(name(c(CollFlags::NONBLOCKING)), format!("MPI_I{}", mpi_case(coll.name()).to_lowercase()));
        }
        for &func in WinSyncFn::ALL {
            let op = Op::WinSync { func, win: 0, rank: NO_RANK, flags: 0 };
            assert_eq!(name(op), format!("MPI_Win_{}", mpi_case(func.name()).to_lowercase()));
        }
        for &func in WinFn::ALL {
            let op = Op::WinCreate { func, comm: 0, win: 0 };
            let want = if func == WinFn::Create {
                "MPI_Win_create".into()
            } else {
                format!("MPI_Win_{}", mpi_case(func.name()).to_lowercase())
            };
            assert_eq!(name(op), want);
        }
        for &func in RmaFn::ALL {
            let op = |req| Op::Rma { func, target: 0, win: 0, bytes: 0, rbytes: 0, req };
            assert_eq!(name(op(0)), format!("MPI_{}", mpi_case(func.name())));
            let r = if matches!(func, RmaFn::FetchAndOp | RmaFn::CompareAndSwap) {
                format!("MPI_{}", mpi_case(func.name()))
            } else {
                format!("MPI_R{}", mpi_case(func.name()).to_lowercase())
            };
            assert_eq!(name(op(3)), r);
        }
        // MPI_Comm_idup is counted at its other_req record: its comm_create is no call
        assert_eq!(fn_id(&Op::CommCreate { func: CommFn::Idup, parent: 0, comm: 2, split: 0 }), STEP_FN);
        for &func in CommFn::ALL.iter().filter(|&&f| f != CommFn::Idup) {
            let want = match func {
                CommFn::Other => "MPI_Comm_other".to_string(),
                CommFn::CartCreate
                | CommFn::CartSub
                | CommFn::GraphCreate
                | CommFn::DistGraphCreate
                | CommFn::DistGraphCreateAdjacent
                | CommFn::IntercommCreate
                | CommFn::IntercommMerge => {
                    format!("MPI_{}", mpi_case(func.name()))
                }
                _ => format!("MPI_Comm_{}", mpi_case(func.name()).to_lowercase()),
            };
            let got = name(Op::CommCreate { func, parent: 0, comm: 2, split: 0 });
            assert_eq!(got, want, "{func:?}");
        }
        let modes = [
            ("MPI_Send", "MPI_Isend", "MPI_Send_init"),
            ("MPI_Ssend", "MPI_Issend", "MPI_Ssend_init"),
            ("MPI_Rsend", "MPI_Irsend", "MPI_Rsend_init"),
            ("MPI_Bsend", "MPI_Ibsend", "MPI_Bsend_init"),
        ];
        for (&mode, (s, i, p)) in SendMode::ALL.iter().zip(modes) {
            assert_eq!(name(Op::Send { mode, peer: 0, tag: 0, bytes: 0, comm: 0 }), s);
            assert_eq!(name(Op::Isend { mode, peer: 0, tag: 0, bytes: 0, comm: 0, req: 1 }), i);
            assert_eq!(name(Op::SendInit { mode, peer: 0, tag: 0, bytes: 0, comm: 0, req: 1 }), p);
        }
    }

    /// psins-sim named every `other` record MPI_other_<id>; the id is the table's.
    #[test]
    fn other_records_are_named_by_the_table() {
        let n = fn_names();
        let id = functions::id_of("MPI_File_write_all").unwrap();
        let f = fn_id(&Op::Other { func: id });
        assert_eq!((f as u32, n[f as usize].as_str()), (id, "MPI_File_write_all"));
        assert_eq!(fn_id(&Op::Other { func: 60_000 }), OTHER_FN);
        assert_eq!(fn_id(&Op::Other { func: 0 }), OTHER_FN); // a hole in the table
        assert_eq!(fn_id(&Op::Init { thread_level: 0 }) as u32, functions::id_of("MPI_Init").unwrap());
        assert_eq!(n.len(), NFN);
    }

    #[test]
    fn names_line_up_with_ids() {
        let n = fn_names();
        let send = Op::Send { mode: SendMode::Synchronous, peer: 0, tag: 0, bytes: 0, comm: 0 };
        assert_eq!(n[fn_id(&send) as usize], "MPI_Ssend");
        let isend = Op::Isend { mode: SendMode::Buffered, peer: 0, tag: 0, bytes: 0, comm: 0, req: 1 };
        assert_eq!(n[fn_id(&isend) as usize], "MPI_Ibsend");
        let init = Op::SendInit { mode: SendMode::Ready, peer: 0, tag: 0, bytes: 0, comm: 0, req: 1 };
        assert_eq!(n[fn_id(&init) as usize], "MPI_Rsend_init");
        let c = Op::Coll {
            coll: Coll::ReduceScatterBlock,
            comm: 0,
            root: 0,
            send_bytes: 0,
            recv_bytes: 0,
            count: 0,
            flags: CollFlags::NONBLOCKING,
            req: 1,
            instance: 1,
        };
        assert_eq!(n[fn_id(&c) as usize], "MPI_Ireduce_scatter_block");
        let w = Op::Wait { func: WaitFn::Testsome, count: 0 };
        assert_eq!(n[fn_id(&w) as usize], "MPI_Testsome");
        let p = Op::Probe { peer: 0, tag: 0, bytes: 0, comm: 0, flags: ProbeFlags::MATCHED };
        assert_eq!(n[fn_id(&p) as usize], "MPI_Improbe");
        let r = Op::Rma { func: RmaFn::GetAccumulate, target: 0, win: 0, bytes: 8, rbytes: 8, req: 3 };
        assert_eq!(n[fn_id(&r) as usize], "MPI_Rget_accumulate");
        let r = Op::Rma { func: RmaFn::CompareAndSwap, target: 0, win: 0, bytes: 8, rbytes: 8, req: 0 };
        assert_eq!(n[fn_id(&r) as usize], "MPI_Compare_and_swap");
        let s = Op::WinSync { func: WinSyncFn::FlushLocalAll, win: 0, rank: NO_RANK, flags: 0 };
        assert_eq!(n[fn_id(&s) as usize], "MPI_Win_flush_local_all");
        let c = Op::WinCreate { func: WinFn::AllocateShared, comm: 0, win: 0 };
        assert_eq!(n[fn_id(&c) as usize], "MPI_Win_allocate_shared");
        assert_eq!(n[fn_id(&Op::WinFree { win: 0 }) as usize], "MPI_Win_free");
        let poll = Op::Poll {
            func: PollFn::Improbe,
            calls: 9,
            between_ns: 0,
            min_gap_ns: 0,
            count: 0,
            peer: 0,
            tag: 0,
            comm: 0,
        };
        assert_eq!(n[fn_id(&poll) as usize], "MPI_Improbe");
        let poll = Op::Poll {
            func: PollFn::Testany,
            calls: 9,
            between_ns: 0,
            min_gap_ns: 0,
            count: 3,
            peer: NO_RANK,
            tag: 0,
            comm: 0,
        };
        assert_eq!(n[fn_id(&poll) as usize], "MPI_Testany");
        assert_eq!(n[fn_id(&Op::Pcontrol { level: 0 }) as usize], "MPI_Pcontrol");
        let cc = Op::CommCreate { func: CommFn::SplitType, parent: 0, comm: 2, split: 0 };
        assert_eq!(n[fn_id(&cc) as usize], "MPI_Comm_split_type");
        assert_eq!(n[fn_id(&Op::CommFree { comm: 2 }) as usize], "MPI_Comm_free");
    }
}
