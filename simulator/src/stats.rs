//! Per-MPI-function statistics (IPM style) and message histograms, gathered during replay.

use crate::units::Ps;
use psins_formats::*;
use std::collections::BTreeMap;

/// Count, time and wait of one MPI function over all tasks.
#[derive(Clone, Copy, Debug, Default)]
pub struct FnStat {
    pub count: u64,
    pub time: Ps,
    pub wait: Ps,
}

const SEND_BASE: u16 = 3;
const ISEND_BASE: u16 = 7;
const SEND_INIT_BASE: u16 = 11;
const WAIT_BASE: u16 = 28;
const COLL_BASE: u16 = 36;
const NCOLL: u16 = 22;
const COMM_BASE: u16 = COLL_BASE + 2 * NCOLL;
const COMM_FREE: u16 = COMM_BASE + 14;
/// `Other` records; their own id is kept separately.
pub const OTHER_FN: u16 = COMM_FREE + 1;
/// One-sided operations, then their request forms (MPI_Rput…; fetch_and_op and
/// compare_and_swap have none, their slots stay unused).
const RMA_BASE: u16 = OTHER_FN + 1;
const NRMA: u16 = 6;
const WIN_SYNC_BASE: u16 = RMA_BASE + 2 * NRMA;
const WIN_CREATE_BASE: u16 = WIN_SYNC_BASE + 15;
const WIN_FREE: u16 = WIN_CREATE_BASE + 4;
pub const NFN: usize = WIN_FREE as usize + 1;
/// Expansion steps outside an expanded collective: not a call, not counted.
pub const STEP_FN: u16 = u16::MAX;

/// Small integer naming the MPI function a record stands for.
pub fn fn_id(op: &Op) -> u16 {
    match *op {
        Op::Init { .. } => 0,
        Op::Finalize => 1,
        Op::Abort { .. } => 2,
        Op::Send { mode, .. } => SEND_BASE + mode.code() as u16,
        Op::Isend { mode, .. } => ISEND_BASE + mode.code() as u16,
        Op::SendInit { mode, .. } => SEND_INIT_BASE + mode.code() as u16,
        Op::Recv { .. } => 15,
        Op::Irecv { .. } => 16,
        Op::RecvInit { .. } => 17,
        Op::Sendrecv { replace, .. } => 18 + replace as u16,
        Op::Probe { flags, .. } => {
            let blocking = flags & ProbeFlags::BLOCKING != 0;
            let matched = flags & ProbeFlags::MATCHED != 0;
            20 + 2 * matched as u16 + !blocking as u16
        }
        Op::Start { .. } => 24,
        Op::Startall => 25,
        Op::RequestFree { .. } => 26,
        Op::Cancel { .. } => 27,
        Op::Wait { func, .. } => WAIT_BASE + func.code() as u16,
        Op::Coll { coll, flags, .. } => {
            COLL_BASE + coll.code() as u16 + if flags & CollFlags::NONBLOCKING != 0 { NCOLL } else { 0 }
        }
        Op::CommCreate { func, .. } => COMM_BASE + func.code() as u16,
        Op::CommFree { .. } => COMM_FREE,
        Op::Other { .. } => OTHER_FN,
        Op::Step { .. } => STEP_FN,
        Op::Rma { func, req, .. } => RMA_BASE + func.code() as u16 + if req != NO_REQUEST { NRMA } else { 0 },
        Op::WinSync { func, .. } => WIN_SYNC_BASE + func.code() as u16,
        Op::WinCreate { func, .. } => WIN_CREATE_BASE + func.code() as u16,
        Op::WinFree { .. } => WIN_FREE,
    }
}

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

/// Names of every function id.
pub fn fn_names() -> Vec<String> {
    let mut n: Vec<String> = ["MPI_Init", "MPI_Finalize", "MPI_Abort"].map(String::from).to_vec();
    for base in ["send", "Isend", "Send_init"] {
        for (i, m) in ["", "S", "R", "B"].iter().enumerate() {
            let name = match base {
                "send" => format!("MPI_{}", if i == 0 { "Send".into() } else { format!("{m}send") }),
                "Isend" => format!("MPI_I{}send", m.to_lowercase()),
                _ => format!("MPI_{}{}", if i == 0 { "S".to_string() } else { format!("{m}s") }, "end_init"),
            };
            n.push(name);
        }
    }
    for s in [
        "Recv",
        "Irecv",
        "Recv_init",
        "Sendrecv",
        "Sendrecv_replace",
        "Probe",
        "Iprobe",
        "Mprobe",
        "Improbe",
        "Start",
        "Startall",
        "Request_free",
        "Cancel",
    ] {
        n.push(format!("MPI_{s}"));
    }
    for w in WaitFn::ALL {
        n.push(format!("MPI_{}", w.name()));
    }
    for c in Coll::ALL {
        n.push(format!("MPI_{}", mpi_case(c.name())));
    }
    for c in Coll::ALL {
        n.push(format!("MPI_I{}", mpi_case(c.name()).to_lowercase()));
    }
    for f in CommFn::ALL {
        let name = match f {
            CommFn::CartCreate => "Cart_create".into(),
            CommFn::CartSub => "Cart_sub".into(),
            CommFn::GraphCreate => "Graph_create".into(),
            CommFn::DistGraphCreate => "Dist_graph_create".into(),
            CommFn::DistGraphCreateAdjacent => "Dist_graph_create_adjacent".into(),
            CommFn::IntercommCreate => "Intercomm_create".into(),
            CommFn::IntercommMerge => "Intercomm_merge".into(),
            other => format!("Comm_{}", mpi_case(other.name()).to_lowercase()),
        };
        n.push(format!("MPI_{name}"));
    }
    n.push("MPI_Comm_free".into());
    n.push("MPI_other".into());
    for r in ["", "R"] {
        for f in RmaFn::ALL {
            let name = mpi_case(f.name());
            let name = if r.is_empty() { name } else { format!("R{}", name.to_lowercase()) };
            n.push(format!("MPI_{name}"));
        }
    }
    for f in WinSyncFn::ALL {
        n.push(format!("MPI_Win_{}", mpi_case(f.name()).to_lowercase()));
    }
    for f in WinFn::ALL {
        let name = match f {
            WinFn::Create => "create".into(),
            other => mpi_case(other.name()).to_lowercase(),
        };
        n.push(format!("MPI_Win_{name}"));
    }
    n.push("MPI_Win_free".into());
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
    /// Waits on request ids the trace never created (e.g. from MPI-IO calls).
    pub unknown_requests: u64,
    /// Wildcard receives whose completion record was not found (matched as wildcards).
    pub unresolved_wildcards: u64,
    /// One-sided operations replayed (engine/rma.rs), and the data bytes they moved through
    /// the network model in both directions (a put's data, a get's data, both halves of the
    /// fetching kinds; not the control messages). Not counted in `messages`/`bytes`.
    pub rma_ops: u64,
    pub rma_bytes: u128,
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
            unknown_requests: 0,
            unresolved_wildcards: 0,
            rma_ops: 0,
            rma_bytes: 0,
        }
    }

    #[inline]
    pub fn call(&mut self, id: u16, other: Option<u32>, time: Ps, wait: Ps) {
        let s = match other {
            Some(f) => self.others.entry(f).or_default(),
            None => &mut self.fns[id as usize],
        };
        s.count += 1;
        s.time += time;
        s.wait += wait;
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
        let cc = Op::CommCreate { func: CommFn::SplitType, parent: 0, comm: 2, split: 0 };
        assert_eq!(n[fn_id(&cc) as usize], "MPI_Comm_split_type");
        assert_eq!(n[fn_id(&Op::CommFree { comm: 2 }) as usize], "MPI_Comm_free");
    }
}
