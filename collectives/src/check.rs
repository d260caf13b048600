//! Whole-communicator checks of expansions, for this crate's tests and its users' (the
//! tracer's and the simulator's).
//!
//! * [`check_matching`]: per ordered pair of ranks, the k-th send from p to q and the k-th
//!   receive at q from p have the same size, and their numbers agree (MPI's non-overtaking
//!   FIFO order).
//! * [`run_rendezvous`]: runs all step lists together with the strictest blocking semantics
//!   — a send completes only when its receive is posted (rendezvous), a `SendRecv` posts both
//!   halves at once and completes when both have, a batch (`ISend`/`IRecv` steps up to their
//!   `WaitAll`) posts all its messages at once and completes when all have — and reports a
//!   deadlock if they stall, or a batch left open at the end of a list.
//!
//! Messages to the calling rank itself are checked like any other (matched, sized, run),
//! and allowed only in the steps MPICH sends them with (see [`CheckError::SelfMessage`]).
//!
//! Both are linear in the number of steps (expected, with hashing).

use std::fmt;

// The checker hashes a few small integers per message; SipHash was half its time in the
// collective sweeps (perf, the Open MPI allgather sweep).
use rustc_hash::FxHashMap as HashMap;

use crate::{expand, CollArgs, ExpandError, Step, Thresholds};

/// Messages and bytes of a checked expansion (counted on the send side).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub messages: u64,
    pub bytes: u64,
}

/// Every rank's steps for one call, and the algorithm all ranks agreed on.
#[derive(Clone, Debug)]
pub struct Expansion {
    pub algorithm: &'static str,
    pub steps: Vec<Vec<Step>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckError {
    Expand {
        rank: u32,
        error: ExpandError,
    },
    /// Ranks chose different algorithms for the same call.
    Disagreement {
        rank: u32,
        algorithm: &'static str,
        rank0_algorithm: &'static str,
    },
    BadPeer {
        rank: u32,
        step: usize,
        peer: u32,
    },
    /// A message to the calling rank itself in a step that MPICH never uses for one: only a
    /// posted `ISend`/`IRecv` (a batch's own block) or a `SendRecv` both of whose halves name
    /// the rank (`MPIC_Sendrecv_replace` with itself) can; a blocking `Send` or `Recv` to
    /// itself, or a `SendRecv` with one half to itself, would never complete on its own.
    SelfMessage {
        rank: u32,
        step: usize,
    },
    /// The k-th message from `from` to `to` has different sizes at the two ends.
    SizeMismatch {
        from: u32,
        to: u32,
        index: usize,
        sent: u64,
        received: u64,
    },
    /// Different numbers of sends from `from` to `to` and receives of them at `to`.
    CountMismatch {
        from: u32,
        to: u32,
        sends: usize,
        receives: usize,
    },
    /// `ISend`/`IRecv` steps after the last `WaitAll` of a rank's list: never waited for.
    UnclosedBatch {
        rank: u32,
        step: usize,
    },
    /// Ranks still blocked, with the step each waits in (at most 8 listed).
    Deadlock {
        blocked: Vec<(u32, usize, Step)>,
        total_blocked: usize,
    },
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Expand { rank, error } => write!(f, "rank {rank}: {error}"),
            CheckError::Disagreement { rank, algorithm, rank0_algorithm } => {
                write!(f, "rank {rank} chose {algorithm} but rank 0 chose {rank0_algorithm}")
            }
            CheckError::BadPeer { rank, step, peer } => {
                write!(f, "rank {rank} step {step}: peer {peer} is not in the communicator")
            }
            CheckError::SelfMessage { rank, step } => {
                write!(f, "rank {rank} step {step}: message to itself")
            }
            CheckError::SizeMismatch { from, to, index, sent, received } => {
                write!(f, "message #{index} from {from} to {to}: {sent} bytes sent, {received} received")
            }
            CheckError::CountMismatch { from, to, sends, receives } => {
                write!(f, "{sends} sends from {from} to {to} but {receives} receives of them")
            }
            CheckError::UnclosedBatch { rank, step } => {
                write!(f, "rank {rank} step {step}: posted, but no waitall follows")
            }
            CheckError::Deadlock { blocked, total_blocked } => {
                write!(f, "deadlock: {total_blocked} ranks blocked")?;
                for (rank, step, st) in blocked {
                    write!(f, "; rank {rank} at step {step} {st:?}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for CheckError {}

/// Expands the call on every rank `0..size`; `args_for(rank)` gives that rank's arguments.
pub fn expand_all<'a>(
    size: u32,
    th: &Thresholds,
    args_for: impl FnMut(u32) -> CollArgs<'a>,
) -> Result<Expansion, CheckError> {
    expand_all_by(expand, size, th, args_for)
}

/// [`expand_all`] for the nonblocking twin ([`crate::expand_nonblocking`]'s schedules).
pub fn expand_all_nonblocking<'a>(
    size: u32,
    th: &Thresholds,
    args_for: impl FnMut(u32) -> CollArgs<'a>,
) -> Result<Expansion, CheckError> {
    expand_all_by(crate::expand_nonblocking, size, th, args_for)
}

type ExpandFn = fn(&CollArgs, &Thresholds, &mut Vec<Step>) -> Result<&'static str, ExpandError>;

fn expand_all_by<'a>(
    expand: ExpandFn,
    size: u32,
    th: &Thresholds,
    mut args_for: impl FnMut(u32) -> CollArgs<'a>,
) -> Result<Expansion, CheckError> {
    let mut steps = Vec::with_capacity(size as usize);
    let mut algorithm = "";
    for rank in 0..size {
        let mut out = Vec::new();
        let name = expand(&args_for(rank), th, &mut out).map_err(|error| CheckError::Expand { rank, error })?;
        if rank == 0 {
            algorithm = name;
        } else if name != algorithm {
            return Err(CheckError::Disagreement { rank, algorithm: name, rank0_algorithm: algorithm });
        }
        steps.push(out);
    }
    Ok(Expansion { algorithm, steps })
}

/// [`check_matching`] then [`run_rendezvous`].
pub fn verify(lists: &[Vec<Step>]) -> Result<Summary, CheckError> {
    let summary = check_matching(lists)?;
    run_rendezvous(lists)?;
    Ok(summary)
}

fn check_peers(lists: &[Vec<Step>]) -> Result<(), CheckError> {
    let p = lists.len() as u64;
    for (rank, list) in lists.iter().enumerate() {
        let rank = rank as u32;
        for (step, st) in list.iter().enumerate() {
            for (peer, _) in st.send().into_iter().chain(st.recv()) {
                if peer as u64 >= p {
                    return Err(CheckError::BadPeer { rank, step, peer });
                }
            }
            if names_itself_wrongly(st, rank) {
                return Err(CheckError::SelfMessage { rank, step });
            }
        }
    }
    Ok(())
}

/// A step naming `rank` itself where MPICH never does (see [`CheckError::SelfMessage`]).
fn names_itself_wrongly(st: &Step, rank: u32) -> bool {
    match *st {
        Step::ISend { .. } | Step::IRecv { .. } | Step::WaitAll => false,
        Step::SendRecv { send_peer, recv_peer, .. } => (send_peer == rank) != (recv_peer == rank),
        Step::Send { peer, .. } | Step::Recv { peer, .. } => peer == rank,
    }
}

/// Static FIFO matching; see the module documentation.
pub fn check_matching(lists: &[Vec<Step>]) -> Result<Summary, CheckError> {
    check_peers(lists)?;
    // (from, to, size) of every send and every receive. Ranks and their steps are visited in
    // order, so a stable sort by (from, to) leaves each pair's messages in FIFO order.
    let mut sent: Vec<(u32, u32, u64)> = Vec::new();
    let mut received: Vec<(u32, u32, u64)> = Vec::new();
    let mut summary = Summary::default();
    for (rank, list) in lists.iter().enumerate() {
        let rank = rank as u32;
        for st in list {
            if let Some((to, bytes)) = st.send() {
                sent.push((rank, to, bytes));
                summary.messages += 1;
                summary.bytes = summary.bytes.saturating_add(bytes);
            }
            if let Some((from, bytes)) = st.recv() {
                received.push((from, rank, bytes));
            }
        }
    }
    let p = lists.len();
    group_by_pair(&mut sent, p);
    group_by_pair(&mut received, p);
    let (mut s, mut r) = (0, 0);
    while s < sent.len() || r < received.len() {
        let pair = match (sent.get(s), received.get(r)) {
            (Some(a), Some(b)) => (a.0, a.1).min((b.0, b.1)),
            (Some(a), None) => (a.0, a.1),
            (None, Some(b)) => (b.0, b.1),
            (None, None) => break,
        };
        let s_end = s + sent[s..].iter().take_while(|m| (m.0, m.1) == pair).count();
        let r_end = r + received[r..].iter().take_while(|m| (m.0, m.1) == pair).count();
        let (from, to) = pair;
        let mut sizes = sent[s..s_end].iter().zip(&received[r..r_end]);
        if let Some(index) = sizes.position(|(a, b)| a.2 != b.2) {
            let (sent, received) = (sent[s + index].2, received[r + index].2);
            return Err(CheckError::SizeMismatch { from, to, index, sent, received });
        }
        if s_end - s != r_end - r {
            let (sends, receives) = (s_end - s, r_end - r);
            return Err(CheckError::CountMismatch { from, to, sends, receives });
        }
        (s, r) = (s_end, r_end);
    }
    Ok(summary)
}

/// Stable grouping of messages by (from, to): a counting sort over the P² pairs where that
/// table is small, a comparison sort otherwise.
fn group_by_pair(msgs: &mut Vec<(u32, u32, u64)>, p: usize) {
    if p.saturating_mul(p) > 1 << 22 {
        msgs.sort_by_key(|&(from, to, _)| (from, to));
        return;
    }
    let pair = |m: &(u32, u32, u64)| m.0 as usize * p + m.1 as usize;
    let mut start = vec![0usize; p * p + 1];
    for m in msgs.iter() {
        start[pair(m) + 1] += 1;
    }
    for k in 1..start.len() {
        start[k] += start[k - 1];
    }
    let mut grouped = vec![(0, 0, 0); msgs.len()];
    for m in msgs.iter() {
        let slot = &mut start[pair(m)];
        grouped[*slot] = *m;
        *slot += 1;
    }
    *msgs = grouped;
}

/// The rendezvous executor; see the module documentation.
pub fn run_rendezvous(lists: &[Vec<Step>]) -> Result<(), CheckError> {
    check_peers(lists)?;
    for (rank, list) in lists.iter().enumerate() {
        if let Some(step) = list.iter().rposition(|s| s.is_posting()) {
            if !list[step..].contains(&Step::WaitAll) {
                return Err(CheckError::UnclosedBatch { rank: rank as u32, step });
            }
        }
    }
    let mut ex = Executor::new(lists);
    let mut ready: Vec<usize> = (0..lists.len()).collect();
    while let Some(rank) = ready.pop() {
        ex.try_match(rank, &mut ready)?;
    }
    ex.finished()
}

/// One open half: (peer, its number among this rank's messages to (or from) that peer).
type Half = (u32, u64);

/// Program counters plus, for the current unit of each rank (one blocking step, or a batch
/// through its `WaitAll`), the halves still open with their byte counts and the step each
/// came from. Messages are numbered per ordered pair, so the k-th send from p to q meets
/// the k-th receive at q from p (MPI's non-overtaking order).
struct Executor<'a> {
    lists: &'a [Vec<Step>],
    /// First step of the current unit, and one past its end.
    pc: Vec<usize>,
    end: Vec<usize>,
    sends: Vec<HashMap<Half, (u64, usize)>>,
    recvs: Vec<HashMap<Half, (u64, usize)>>,
    /// Messages posted so far, per (rank, peer): sends then receives.
    sent: HashMap<(u32, u32), u64>,
    received: HashMap<(u32, u32), u64>,
}

impl<'a> Executor<'a> {
    fn new(lists: &'a [Vec<Step>]) -> Executor<'a> {
        let n = lists.len();
        let mut ex = Executor {
            lists,
            pc: vec![0; n],
            end: vec![0; n],
            sends: vec![HashMap::default(); n],
            recvs: vec![HashMap::default(); n],
            sent: HashMap::default(),
            received: HashMap::default(),
        };
        (0..n).for_each(|r| ex.open_unit(r));
        ex
    }

    /// Opens the unit starting at `pc[rank]`, numbering its messages.
    fn open_unit(&mut self, rank: usize) {
        let list = &self.lists[rank];
        let start = self.pc[rank];
        let end = if list.get(start).is_some_and(|s| s.is_posting()) {
            list[start..].iter().position(|s| *s == Step::WaitAll).map_or(list.len(), |i| start + i + 1)
        } else {
            (start + 1).min(list.len())
        };
        self.end[rank] = end;
        for (i, st) in list[start..end].iter().enumerate() {
            if let Some((to, bytes)) = st.send() {
                let k = self.sent.entry((rank as u32, to)).or_insert(0);
                self.sends[rank].insert((to, *k), (bytes, start + i));
                *k += 1;
            }
            if let Some((from, bytes)) = st.recv() {
                let k = self.received.entry((rank as u32, from)).or_insert(0);
                self.recvs[rank].insert((from, *k), (bytes, start + i));
                *k += 1;
            }
        }
    }

    fn current(&self, rank: usize) -> Option<Step> {
        self.lists[rank].get(self.pc[rank]).copied()
    }

    /// Advances `rank` past its current unit if all its halves are done.
    fn settle(&mut self, rank: usize, ready: &mut Vec<usize>) {
        if self.current(rank).is_some() && self.sends[rank].is_empty() && self.recvs[rank].is_empty() {
            self.pc[rank] = self.end[rank];
            self.open_unit(rank);
            ready.push(rank);
        }
    }

    /// Matches the open halves of `rank`'s current unit with its peers' current units.
    fn try_match(&mut self, rank: usize, ready: &mut Vec<usize>) -> Result<(), CheckError> {
        let me = rank as u32;
        let sends: Vec<(Half, (u64, usize))> = self.sends[rank].iter().map(|(&h, &v)| (h, v)).collect();
        for ((to, k), (bytes, step)) in sends {
            if let Some((want, _)) = self.recvs[to as usize].remove(&(me, k)) {
                self.mismatch(me, to, step, bytes, want)?;
                self.sends[rank].remove(&(to, k));
                self.settle(to as usize, ready);
            }
        }
        let recvs: Vec<(Half, (u64, usize))> = self.recvs[rank].iter().map(|(&h, &v)| (h, v)).collect();
        for ((from, k), (want, _)) in recvs {
            if let Some((bytes, step)) = self.sends[from as usize].remove(&(me, k)) {
                self.mismatch(from, me, step, bytes, want)?;
                self.recvs[rank].remove(&(from, k));
                self.settle(from as usize, ready);
            }
        }
        self.settle(rank, ready);
        Ok(())
    }

    fn mismatch(&self, from: u32, to: u32, index: usize, sent: u64, received: u64) -> Result<(), CheckError> {
        if sent == received {
            return Ok(());
        }
        Err(CheckError::SizeMismatch { from, to, index, sent, received })
    }

    fn finished(&self) -> Result<(), CheckError> {
        let stuck: Vec<(u32, usize, Step)> =
            (0..self.lists.len()).filter_map(|r| self.current(r).map(|st| (r as u32, self.pc[r], st))).collect();
        if stuck.is_empty() {
            return Ok(());
        }
        let total_blocked = stuck.len();
        Err(CheckError::Deadlock { blocked: stuck.into_iter().take(8).collect(), total_blocked })
    }
}
