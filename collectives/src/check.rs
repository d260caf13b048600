//! Whole-communicator checks of expansions, for this crate's tests and its users' (the
//! tracer's and the simulator's).
//!
//! * [`check_matching`]: per ordered pair of ranks, the k-th send from p to q and the k-th
//!   receive at q from p have the same size, and their numbers agree (MPI's non-overtaking
//!   FIFO order).
//! * [`run_rendezvous`]: runs all step lists together with the strictest blocking semantics
//!   — a send completes only when its receive is posted (rendezvous), a `SendRecv` posts both
//!   halves at once and completes when both have — and reports a deadlock if they stall.
//!
//! Both are linear in the number of steps.

use std::fmt;

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
                if peer == rank {
                    return Err(CheckError::SelfMessage { rank, step });
                }
            }
        }
    }
    Ok(())
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
    let mut ex = Executor::new(lists);
    let mut ready: Vec<usize> = (0..lists.len()).collect();
    while let Some(rank) = ready.pop() {
        ex.try_match(rank, &mut ready)?;
    }
    ex.finished()
}

/// Program counters plus, for the current step of each rank, which halves are still open.
struct Executor<'a> {
    lists: &'a [Vec<Step>],
    pc: Vec<usize>,
    send_open: Vec<bool>,
    recv_open: Vec<bool>,
}

impl<'a> Executor<'a> {
    fn new(lists: &'a [Vec<Step>]) -> Executor<'a> {
        let n = lists.len();
        let mut ex = Executor { lists, pc: vec![0; n], send_open: vec![false; n], recv_open: vec![false; n] };
        (0..n).for_each(|r| ex.open_current(r));
        ex
    }

    fn current(&self, rank: usize) -> Option<Step> {
        self.lists[rank].get(self.pc[rank]).copied()
    }

    fn open_current(&mut self, rank: usize) {
        let st = self.current(rank);
        self.send_open[rank] = st.is_some_and(|s| s.send().is_some());
        self.recv_open[rank] = st.is_some_and(|s| s.recv().is_some());
    }

    /// Advances `rank` past its current step if both halves are done.
    fn settle(&mut self, rank: usize, ready: &mut Vec<usize>) {
        if self.current(rank).is_some() && !self.send_open[rank] && !self.recv_open[rank] {
            self.pc[rank] += 1;
            self.open_current(rank);
            ready.push(rank);
        }
    }

    /// Matches the open halves of `rank`'s current step with its peers' current steps.
    fn try_match(&mut self, rank: usize, ready: &mut Vec<usize>) -> Result<(), CheckError> {
        let Some(st) = self.current(rank) else { return Ok(()) };
        if let (true, Some((to, bytes))) = (self.send_open[rank], st.send()) {
            let to = to as usize;
            if let (true, Some((from, want))) = (self.recv_open[to], self.current(to).and_then(|s| s.recv())) {
                if from as usize == rank {
                    self.mismatch(rank, to, bytes, want)?;
                    self.send_open[rank] = false;
                    self.recv_open[to] = false;
                    self.settle(to, ready);
                }
            }
        }
        if let (true, Some((from, want))) = (self.recv_open[rank], st.recv()) {
            let from = from as usize;
            if let (true, Some((to, bytes))) = (self.send_open[from], self.current(from).and_then(|s| s.send())) {
                if to as usize == rank {
                    self.mismatch(from, rank, bytes, want)?;
                    self.send_open[from] = false;
                    self.recv_open[rank] = false;
                    self.settle(from, ready);
                }
            }
        }
        self.settle(rank, ready);
        Ok(())
    }

    fn mismatch(&self, from: usize, to: usize, sent: u64, received: u64) -> Result<(), CheckError> {
        if sent == received {
            return Ok(());
        }
        let index = self.pc[from];
        let (from, to) = (from as u32, to as u32);
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
