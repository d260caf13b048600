//! Analytic collectives from MPICH's algorithm: the duration of a collective is that of the
//! point-to-point steps `psins_collectives::expand` gives every member (the algorithm MPICH
//! 4.0.2 selects for these arguments), timed with the engine's protocols on a contention-free
//! path ([`PathCost`]), from the instant the last member arrives.
//!
//! It lives in the simulator, not in psins-collectives, because it is a time model: it needs
//! the machine's links and the engine's protocols, while psins-collectives stays the pure
//! description of MPICH's algorithms that the tracer links too.
//!
//! Speed: a symmetric algorithm (every rank does the same rounds with the same sizes at the
//! same time; [`lockstep`]) costs the sum of its rounds, read off one rank's steps, unless a
//! link charges crossing messages (which the ranks pay in turn, so they drift apart). Any
//! other is replayed step by step for every rank ([`oracle::evaluate`]). Both are memoised per
//! (collective, P, path, arguments), so a loop of identical collectives pays once.

mod message;
pub mod oracle;

pub use message::PathCost;

use crate::units::Ps;
use psins_collectives::{CollArgs, ExpandError, Library, Step, Thresholds};
use psins_formats::{Coll, CollFlags, Op};
use psins_machine::{Machine, Route};
use std::collections::HashMap;

/// Above this many steps (all ranks together) the step-by-step replay is not run: the
/// algorithm is timed as if it were symmetric (an approximation, docs/models.md).
const ORACLE_STEPS: u64 = 1 << 20;

/// Memoised results kept at most (then the memo starts afresh).
const MEMO_ENTRIES: usize = 4096;

/// One member's arguments, as its Coll record gives them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemberArgs {
    root: u32,
    send_bytes: u64,
    recv_bytes: u64,
    count: u64,
    /// CollFlags; with NONBLOCKING, the call costs its library's nonblocking schedule.
    flags: u8,
    counts: Vec<u64>,
}

impl MemberArgs {
    /// From a Coll record and its list (the per-peer counts of the v/w variants).
    pub fn from_record(op: &Op, list: &[i64]) -> MemberArgs {
        let Op::Coll { root, send_bytes, recv_bytes, count, flags, .. } = *op else {
            unreachable!("MemberArgs::from_record on a Coll record")
        };
        MemberArgs {
            root: root.max(0) as u32,
            send_bytes,
            recv_bytes,
            count,
            flags,
            counts: list.iter().map(|&v| v.max(0) as u64).collect(),
        }
    }

    /// `self == other`, as every arrival at a collective asks: field by field, the per-peer
    /// counts element by element. The derived `==` compares the counts as a slice, which
    /// calls the C library's memcmp even for the empty lists of every non-v collective; on
    /// the 1,024-rank stencil's replay (a world allreduce an iteration) that call made the
    /// whole replay 17 % slower (docs/performance.md, *Findings behind the code*).
    #[inline]
    fn same(&self, other: &MemberArgs) -> bool {
        self.root == other.root
            && self.send_bytes == other.send_bytes
            && self.recv_bytes == other.recv_bytes
            && self.count == other.count
            && self.flags == other.flags
            && self.counts.len() == other.counts.len()
            && self.counts.iter().zip(&other.counts).all(|(a, b)| a == b)
    }

    fn args(&self, coll: Coll, size: u32, rank: u32) -> CollArgs<'_> {
        let (root, send_bytes, recv_bytes, count) = (self.root, self.send_bytes, self.recv_bytes, self.count);
        CollArgs { root, send_bytes, recv_bytes, counts: &self.counts, count, ..CollArgs::new(coll, size, rank) }
            .with_flags(self.flags)
    }

    fn nonblocking(&self) -> bool {
        self.flags & CollFlags::NONBLOCKING != 0
    }
}

/// The arguments of every member of one instance, compactly: the root's (rooted
/// collectives), the arguments most members share, and the members that differ.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Members {
    root: Option<(u32, MemberArgs)>,
    common: Option<MemberArgs>,
    /// Sorted by comm-local rank.
    others: Vec<(u32, MemberArgs)>,
}

fn rooted(c: Coll) -> bool {
    matches!(c, Coll::Bcast | Coll::Reduce | Coll::Gather | Coll::Gatherv | Coll::Scatter | Coll::Scatterv)
}

impl Members {
    /// Member `local` (comm-local rank) arrives with `a`.
    pub fn add(&mut self, coll: Coll, local: u32, a: MemberArgs) {
        if rooted(coll) && a.root == local {
            self.root = Some((local, a));
        } else if self.common.is_none() {
            self.common = Some(a);
        } else if !self.common.as_ref().is_some_and(|c| c.same(&a)) {
            let i = self.others.partition_point(|(l, _)| *l < local);
            self.others.insert(i, (local, a));
        }
    }

    fn get(&self, rank: u32) -> &MemberArgs {
        if let Some((l, a)) = &self.root {
            if *l == rank || self.common.is_none() {
                return a;
            }
        }
        match self.others.binary_search_by_key(&rank, |(l, _)| *l) {
            Ok(i) => &self.others[i].1,
            Err(_) => self.common.as_ref().expect("a member arrived"),
        }
    }

    /// Every member passes the same arguments (the root's may differ only in fields a
    /// rooted collective reads at the root).
    fn uniform(&self) -> bool {
        self.others.is_empty()
    }
}

/// Where a communicator's members are: each message of its collectives takes the path
/// between its two members' nodes, as in the engine.
#[derive(Clone, Debug)]
pub enum Placement {
    /// All on one node: every message takes the intra-node link.
    OneNode,
    /// No two on one node: every message crosses the network.
    Spread,
    /// Some share a node: `nodes[local rank]` (communicator `comm`'s, which names the
    /// placement in the memo).
    Mixed { comm: u32, nodes: Vec<u32> },
}

impl Placement {
    /// The placement of communicator `comm` whose member of local rank i is on `nodes[i]`.
    pub fn of(comm: u32, nodes: Vec<u32>) -> Placement {
        let mut sorted = nodes.clone();
        sorted.sort_unstable();
        if sorted.first() == sorted.last() {
            Placement::OneNode
        } else if sorted.windows(2).all(|w| w[0] != w[1]) {
            Placement::Spread
        } else {
            Placement::Mixed { comm, nodes }
        }
    }

    fn key(&self) -> u64 {
        match self {
            Placement::OneNode => 0,
            Placement::Spread => 1,
            Placement::Mixed { comm, .. } => 2 + *comm as u64,
        }
    }
}

#[derive(PartialEq, Eq, Hash)]
struct Key {
    coll: Coll,
    size: u32,
    placement: u64,
    members: Members,
}

/// Whether algorithm `name`, selected for arguments `a` (every member's), is symmetric:
/// every rank posts the same rounds, each a send and a receive of the same sizes to peers
/// doing the same, so all ranks stay in step and the duration is the sum of one rank's
/// rounds. The recursive doubling and halving algorithms are symmetric only on a power of
/// two (elsewhere ranks fold in and out), Rabenseifner's only when the vector splits evenly.
pub fn lockstep(name: &str, a: &CollArgs) -> bool {
    let pow2 = a.size.is_power_of_two();
    match name {
        "barrier_dissemination"
        | "ompi_barrier_bruck"
        | "ompi_allgather_ring"
        | "ompi_allgather_bruck"
        | "ompi_alltoall_pairwise"
        | "allgather_brucks"
        | "allgather_ring"
        | "alltoall_brucks"
        | "alltoall_scattered"
        | "alltoall_pairwise"
        | "reduce_scatter_block_pairwise" => true,
        "allgather_recursive_doubling"
        | "allreduce_recursive_doubling"
        | "reduce_scatter_block_recursive_halving"
        | "ompi_allreduce_recursive_doubling"
        | "ompi_barrier_recursive_doubling" => pow2,
        "allreduce_reduce_scatter_allgather" => pow2 && a.count.is_multiple_of(a.size as u64),
        _ => false,
    }
}

/// The sum of the rounds of `steps` (rank `me`'s), as [`lockstep`] algorithms run: each round
/// (a blocking step, or a batch up to its `WaitAll`) lasts until its slowest message half,
/// a message to `me` itself timed on `own` (the `[self]` link), the others on `cost`.
/// A round's sends are posted one after another, each keeping the CPU for its o_s (the
/// engine's rule), a step's receive before its send; every partner posting the same round,
/// the k-th receive of the round meets the partner's k-th send and the k-th send its k-th
/// receive, posted as late in the partner's round as in this rank's.
/// Exact where no link charges crossing messages. Where one does, the messages of an
/// exchange (a round that sends to and receives from one peer) cross: one of each pair pays
/// x(S), and the two ranks then stay one x apart, so every exchange is charged its x (an
/// approximation, used only beyond the step-by-step replay's budget; docs/models.md).
pub fn rounds(steps: &[Step], me: u32, cost: &PathCost, own: &PathCost) -> Ps {
    let crossing = cost.link.has_crossing() || own.link.has_crossing();
    let on = |peer: u32| if peer == me { own } else { cost };
    let mut peers: Vec<u32> = Vec::new();
    let (mut sends_at, mut recvs_at): (Vec<Ps>, Vec<Ps>) = (Vec::new(), Vec::new());
    let mut total = 0;
    let mut rest = steps;
    while !rest.is_empty() {
        let n = oracle::round_len(rest);
        let round = &rest[..n];
        if crossing {
            peers.clear();
            peers.extend(round.iter().filter_map(|s| s.send().map(|(to, _)| to)));
            peers.sort_unstable();
        }
        // A message to itself is not charged a crossing here: a round holds at most one, and
        // its reverse is itself (the engine charges one only if an earlier message of the
        // rank to itself is still on its way, which a lockstep round never leaves).
        let exchange = |peer: u32| crossing && peer != me && peers.binary_search(&peer).is_ok();
        // this rank's send crosses too when the peer's message comes back in the round
        let crosses = |to: u32| crossing && to != me && round.iter().any(|r| r.recv().is_some_and(|(f, _)| f == to));
        // When each send and receive is posted, from the round's start.
        sends_at.clear();
        recvs_at.clear();
        let mut cpu = 0;
        for s in round {
            if s.recv().is_some() {
                recvs_at.push(cpu);
            }
            if let Some((to, b)) = s.send() {
                sends_at.push(cpu);
                cpu += on(to).link.send_overhead(b) + if crosses(to) { on(to).link.cross_overhead(b) } else { 0 };
            }
        }
        let (mut ks, mut kr, mut longest) = (0, 0, 0);
        for s in round {
            if let Some((from, b)) = s.recv() {
                let ts = sends_at.get(kr).copied().unwrap_or(0);
                longest = longest.max(on(from).half(false, b, exchange(from), ts, recvs_at[kr]));
                kr += 1;
            }
            if let Some((to, b)) = s.send() {
                let tr = recvs_at.get(ks).copied().unwrap_or(0);
                longest = longest.max(on(to).half(true, b, crosses(to), sends_at[ks], tr));
                ks += 1;
            }
        }
        total += longest;
        rest = &rest[n..];
    }
    total
}

/// Why a collective's algorithm cannot be timed.
#[derive(Debug, thiserror::Error)]
pub enum AlgorithmError {
    #[error("member {rank} of {size}: {why}")]
    Member { rank: u32, size: u32, why: ExpandError },
    #[error("{} over {size} ranks: {why}", .coll.name())]
    Oracle { coll: Coll, size: u32, why: oracle::OracleError },
}

/// Algorithm costs with their memo and scratch space.
#[derive(Default)]
pub struct AlgorithmCost {
    memo: HashMap<Key, Option<Ps>>,
    scratch: Vec<Step>,
}

impl AlgorithmCost {
    /// The duration of collective `coll` over `size` members with arguments `members`;
    /// `None` when it cannot be expanded (neighbourhood collectives: no topology), an error
    /// naming the member whose arguments the library's algorithms refuse.
    pub fn cost(
        &mut self,
        m: &Machine,
        (library, th): (Library, &Thresholds),
        coll: Coll,
        size: u32,
        placement: &Placement,
        members: &Members,
    ) -> Result<Option<Ps>, AlgorithmError> {
        if size <= 1 {
            return Ok(Some(0));
        }
        let memoise = members.others.len() <= 4;
        let members_key = if memoise { members.clone() } else { Members::default() };
        let key = Key { coll, size, placement: placement.key(), members: members_key };
        if memoise {
            if let Some(&t) = self.memo.get(&key) {
                return Ok(t);
            }
        }
        let t = self.compute(m, (library, th), coll, size, placement, members)?;
        if memoise {
            if self.memo.len() >= MEMO_ENTRIES {
                self.memo.clear();
            }
            self.memo.insert(key, t);
        }
        Ok(t)
    }

    fn compute(
        &mut self,
        m: &Machine,
        (library, th): (Library, &Thresholds),
        coll: Coll,
        size: u32,
        placement: &Placement,
        members: &Members,
    ) -> Result<Option<Ps>, AlgorithmError> {
        let (intra, inter, own) =
            (PathCost::of(m, Route::Intra), PathCost::of(m, Route::Inter), PathCost::of(m, Route::Own));
        // The engine's rule (Route::of) on communicator-local ranks and the placement's nodes
        // (spread: a node per rank, so the rank stands for its node).
        let path = |a: u32, b: u32| {
            let route = match placement {
                Placement::OneNode => Route::of(a, b, 0, 0),
                Placement::Spread => Route::of(a, b, a, b),
                Placement::Mixed { nodes, .. } => Route::of(a, b, nodes[a as usize], nodes[b as usize]),
            };
            match route {
                Route::Own => own,
                Route::Intra => intra,
                Route::Inter => inter,
            }
        };
        // The closed form's path; with a mixed placement, an approximation (the network's).
        let uniform_path = if matches!(placement, Placement::OneNode) { intra } else { inter };
        // A nonblocking call costs the schedule it runs in expanded mode, from the last
        // arrival: the library's nonblocking schedule, not its blocking twin's algorithm.
        let expand_rank = |r: u32, out: &mut Vec<Step>| {
            let member = members.get(r);
            let args = member.args(coll, size, r);
            let expanded = if member.nonblocking() {
                library.expand_nonblocking(&args, th, out)
            } else {
                library.expand(&args, th, out)
            };
            match expanded {
                Ok(name) => Ok(Some(name)),
                Err(ExpandError::Unsupported { .. }) => Ok(None),
                Err(why) => Err(AlgorithmError::Member { rank: r, size, why }),
            }
        };
        let mut steps = std::mem::take(&mut self.scratch);
        let Some(name) = expand_rank(0, &mut steps)? else {
            self.scratch = steps;
            return Ok(None);
        };
        let symmetric =
            members.uniform() && members.root.is_none() && lockstep(name, &members.get(0).args(coll, size, 0));
        let mixed = matches!(placement, Placement::Mixed { .. });
        // Crossing messages make ranks of a symmetric algorithm drift apart: only the
        // step-by-step replay is exact then.
        let crossing = intra.link.has_crossing() || inter.link.has_crossing() || own.link.has_crossing();
        let total = steps.len() as u64 * size as u64;
        // A nonblocking schedule's phases post their sends at one instant: only the
        // step-by-step replay times that.
        let background = members.get(0).nonblocking();
        let t = if (symmetric && !mixed && !crossing && !background) || total > ORACLE_STEPS {
            // Beyond the oracle's budget any algorithm is timed by its rank 0's rounds.
            rounds(&steps, 0, &uniform_path, &own)
        } else {
            let mut x = oracle::Expansions { steps: Vec::with_capacity(total as usize), offsets: vec![0], background };
            for r in 0..size {
                expand_rank(r, &mut steps)?;
                x.steps.extend_from_slice(&steps);
                x.offsets.push(x.steps.len());
            }
            oracle::evaluate(&x, &path, crossing).map_err(|why| AlgorithmError::Oracle { coll, size, why })?
        };
        self.scratch = steps;
        Ok(Some(t))
    }
}
