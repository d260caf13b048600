//! MPICH 4.0.2's and Open MPI 4.1.4's default collective algorithms as pure functions.
//!
//! [`expand`] turns one rank's view of one collective call into the ordered point-to-point
//! steps MPICH's flat `MPIR_*` selection (intra-communicator, one rank per node) makes that
//! rank perform, and names the algorithm. The tracer uses it to write expanded collectives,
//! the simulator to expand traces that lack them. `docs/collectives.md` lists, per collective,
//! the selection rule, the MPICH source it follows, the closed-form message counts and the
//! exact meaning of [`CollArgs`]'s byte fields. [`ompi::expand`] does the same for Open MPI
//! 4.1.4's selection, and [`Library`] picks between the two.
//!
//! Nothing here allocates except by growing the caller's `Vec<Step>`, so a caller that keeps
//! one vector across calls expands without touching the allocator once it has grown.

mod allgather;
mod alltoall;
mod barrier;
mod bcast;
mod blocks;
pub mod check;
mod gather;
mod nonblocking;
pub mod ompi;
mod rabenseifner;
mod reduce;
mod reduce_scatter;
mod scan;
mod steps;
mod thresholds;
mod tree;

use std::fmt;

pub use nonblocking::expand_nonblocking;
pub use psins_formats::Coll;
use psins_formats::{CollFlags, Op, StepOp, NO_RANK};
pub use thresholds::{ThresholdError, ThresholdInfo, Thresholds, ENV_PREFIX, THRESHOLD_TABLE};

/// The algorithm name returned when MPICH performs no communication at all for the call
/// (communicator of one, or a zero-size call MPICH returns from before communicating).
pub const NOOP: &str = "noop";

/// One point-to-point step of an expansion. Peers are communicator-local ranks.
///
/// `Send`, `Recv` and `SendRecv` are blocking: the step is over when its messages are (a
/// `SendRecv` posts both halves at once, MPICH's `MPIC_Sendrecv`). `ISend` and `IRecv`
/// only post a message; the next `WaitAll` waits for every one posted since the previous
/// `WaitAll` (MPICH posting a batch of `MPIC_Isend`/`MPIC_Irecv` and `MPIC_Waitall`ing on
/// it, or a schedule's phase up to its barrier). Every expansion closes its last batch with
/// a `WaitAll`. Zero-byte steps are real messages (MPICH sends them) and are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    Send { peer: u32, bytes: u64 },
    Recv { peer: u32, bytes: u64 },
    SendRecv { send_peer: u32, send_bytes: u64, recv_peer: u32, recv_bytes: u64 },
    ISend { peer: u32, bytes: u64 },
    IRecv { peer: u32, bytes: u64 },
    WaitAll,
}

impl Step {
    pub fn op(&self) -> StepOp {
        match self {
            Step::Send { .. } => StepOp::Send,
            Step::Recv { .. } => StepOp::Recv,
            Step::SendRecv { .. } => StepOp::SendRecv,
            Step::ISend { .. } => StepOp::ISend,
            Step::IRecv { .. } => StepOp::IRecv,
            Step::WaitAll => StepOp::WaitAll,
        }
    }

    /// The send half as (destination, bytes), if any.
    pub fn send(&self) -> Option<(u32, u64)> {
        match *self {
            Step::Send { peer, bytes } | Step::ISend { peer, bytes } => Some((peer, bytes)),
            Step::SendRecv { send_peer, send_bytes, .. } => Some((send_peer, send_bytes)),
            Step::Recv { .. } | Step::IRecv { .. } | Step::WaitAll => None,
        }
    }

    /// The receive half as (source, bytes), if any.
    pub fn recv(&self) -> Option<(u32, u64)> {
        match *self {
            Step::Recv { peer, bytes } | Step::IRecv { peer, bytes } => Some((peer, bytes)),
            Step::SendRecv { recv_peer, recv_bytes, .. } => Some((recv_peer, recv_bytes)),
            Step::Send { .. } | Step::ISend { .. } | Step::WaitAll => None,
        }
    }

    /// Whether the step only posts its message (a batch member, completed by a `WaitAll`).
    pub fn is_posting(&self) -> bool {
        matches!(self, Step::ISend { .. } | Step::IRecv { .. })
    }

    /// Whether the step waits: a blocking step for its own messages, a `WaitAll` for the
    /// batch before it.
    pub fn waits(&self) -> bool {
        !self.is_posting()
    }

    /// The record that stores this step as sub-record of collective `instance`. Unused
    /// `peer`/`peer2` are `NO_RANK` and unused byte counts 0, as the codec decodes them.
    pub fn to_op(&self, instance: u32) -> Op {
        let (op, peer, bytes, peer2, bytes2) = match *self {
            Step::Send { peer, bytes } => (StepOp::Send, peer as i32, bytes, NO_RANK, 0),
            Step::Recv { peer, bytes } => (StepOp::Recv, peer as i32, bytes, NO_RANK, 0),
            Step::SendRecv { send_peer, send_bytes, recv_peer, recv_bytes } => {
                (StepOp::SendRecv, send_peer as i32, send_bytes, recv_peer as i32, recv_bytes)
            }
            Step::ISend { peer, bytes } => (StepOp::ISend, peer as i32, bytes, NO_RANK, 0),
            Step::IRecv { peer, bytes } => (StepOp::IRecv, peer as i32, bytes, NO_RANK, 0),
            Step::WaitAll => (StepOp::WaitAll, NO_RANK, 0, NO_RANK, 0),
        };
        Op::Step { instance, op, peer, bytes, peer2, bytes2 }
    }

    /// The step stored in a step record; `None` for other records or negative peers.
    pub fn from_op(op: &Op) -> Option<Step> {
        let Op::Step { op, peer, bytes, peer2, bytes2, .. } = *op else {
            return None;
        };
        if op == StepOp::WaitAll {
            return Some(Step::WaitAll);
        }
        let peer = u32::try_from(peer).ok()?;
        Some(match op {
            StepOp::Send => Step::Send { peer, bytes },
            StepOp::Recv => Step::Recv { peer, bytes },
            StepOp::SendRecv => Step::SendRecv {
                send_peer: peer,
                send_bytes: bytes,
                recv_peer: u32::try_from(peer2).ok()?,
                recv_bytes: bytes2,
            },
            StepOp::ISend => Step::ISend { peer, bytes },
            StepOp::IRecv => Step::IRecv { peer, bytes },
            StepOp::WaitAll => Step::WaitAll,
        })
    }
}

/// One rank's view of one collective call. Byte fields are real byte counts
/// (count × datatype size); see `docs/collectives.md` for which field each collective reads.
#[derive(Clone, Copy, Debug)]
pub struct CollArgs<'a> {
    /// Nonblocking collectives pass their blocking twin (to [`Library::expand_nonblocking`]).
    pub coll: Coll,
    /// Communicator size P.
    pub size: u32,
    /// This rank, `< size`.
    pub rank: u32,
    /// Root for bcast, reduce, gather(v), scatter(v); ignored otherwise.
    pub root: u32,
    /// This rank's send side: bytes to ONE peer for gather/scatter/allgather/alltoall; the
    /// whole message for bcast and the whole vector for reduce/allreduce/scan/exscan.
    pub send_bytes: u64,
    /// This rank's receive side, analogous: bytes from ONE peer for gather (at the root),
    /// scatter (non-roots), allgather, alltoall; the block of reduce_scatter_block.
    pub recv_bytes: u64,
    /// Per-rank byte counts of the v/w variants (layout of `Op::Coll`'s list): gatherv and
    /// scatterv (read at the root only), allgatherv, reduce_scatter: P entries; alltoallv/w:
    /// P send counts then P receive counts. Ignored for other collectives.
    pub counts: &'a [u64],
    /// Element count. Of reductions: MPICH compares it to the largest power of two ≤ P. Open
    /// MPI's bcast and reduce_scatter(_block) take their element size from it too.
    pub count: u64,
    pub op_builtin: bool,
    pub op_commutative: bool,
    /// `MPI_IN_PLACE` was the send buffer (at the root only, for rooted collectives).
    pub in_place: bool,
}

impl<'a> CollArgs<'a> {
    /// One member's arguments from its `Op::Coll` record on a communicator of `size` where it
    /// is `rank`; `counts` is the record's list as byte counts. `None` for other records.
    pub fn from_op(op: &Op, size: u32, rank: u32, counts: &'a [u64]) -> Option<CollArgs<'a>> {
        let Op::Coll { coll, root, send_bytes, recv_bytes, count, flags, .. } = *op else { return None };
        let base = CollArgs {
            root: root.max(0) as u32,
            send_bytes,
            recv_bytes,
            counts,
            count,
            ..CollArgs::new(coll, size, rank)
        };
        Some(base.with_flags(flags))
    }

    /// The op's and buffers' properties from a `Coll` record's flags ([`CollFlags`]).
    pub fn with_flags(mut self, flags: u8) -> CollArgs<'a> {
        self.op_builtin = flags & CollFlags::OP_BUILTIN != 0;
        self.op_commutative = flags & CollFlags::OP_COMMUTATIVE != 0;
        self.in_place = flags & CollFlags::IN_PLACE != 0;
        self
    }

    /// Arguments with no data, root 0, a built-in commutative op and no `MPI_IN_PLACE`.
    pub fn new(coll: Coll, size: u32, rank: u32) -> CollArgs<'a> {
        CollArgs {
            coll,
            size,
            rank,
            root: 0,
            send_bytes: 0,
            recv_bytes: 0,
            counts: &[],
            count: 0,
            op_builtin: true,
            op_commutative: true,
            in_place: false,
        }
    }
}

/// Why a call could not be expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExpandError {
    EmptyCommunicator,
    RankOutOfRange {
        rank: u32,
        size: u32,
    },
    RootOutOfRange {
        root: u32,
        size: u32,
    },
    CountsLength {
        coll: Coll,
        expected: usize,
        got: usize,
    },
    /// A reduction whose byte size is not `count` whole elements.
    CountMismatch {
        coll: Coll,
        bytes: u64,
        count: u64,
    },
    /// Byte counts whose total does not fit in 64 bits.
    Overflow {
        coll: Coll,
    },
    /// Neighbourhood collectives: the topology is not in the arguments.
    Unsupported {
        coll: Coll,
    },
}

impl fmt::Display for ExpandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ExpandError::EmptyCommunicator => write!(f, "communicator size is 0"),
            ExpandError::RankOutOfRange { rank, size } => {
                write!(f, "rank {rank} is not below the communicator size {size}")
            }
            ExpandError::RootOutOfRange { root, size } => {
                write!(f, "root {root} is not below the communicator size {size}")
            }
            ExpandError::CountsLength { coll, expected, got } => {
                write!(f, "{} needs {expected} per-rank byte counts, got {got}", coll.name())
            }
            ExpandError::CountMismatch { coll, bytes, count } => {
                write!(f, "{}: {bytes} bytes is not a whole number of elements for count {count}", coll.name())
            }
            ExpandError::Overflow { coll } => {
                write!(f, "{}: byte counts add up to more than 2^64", coll.name())
            }
            ExpandError::Unsupported { coll } => {
                write!(f, "{} cannot be expanded: the topology is unknown", coll.name())
            }
        }
    }
}

impl std::error::Error for ExpandError {}

/// The MPI library whose algorithms an expansion follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Library {
    /// MPICH 4.0.2's flat selection ([`expand`]).
    #[default]
    Mpich,
    /// Open MPI 4.1's coll/tuned fixed rules and coll/basic ([`ompi::expand`]).
    OpenMpi,
}

impl Library {
    /// Every library, in the order help texts list them.
    pub const ALL: [Library; 2] = [Library::Mpich, Library::OpenMpi];

    /// The name `mpi.library` takes and reports print.
    pub fn name(self) -> &'static str {
        match self {
            Library::Mpich => "mpich",
            Library::OpenMpi => "openmpi",
        }
    }

    /// The library and release whose algorithms are followed, for reports.
    pub fn algorithms(self) -> &'static str {
        match self {
            Library::Mpich => "MPICH 4.0.2",
            Library::OpenMpi => "Open MPI 4.1.4",
        }
    }

    /// The library named `s` (`mpich`, `openmpi`; any case), as `mpi.library` takes it.
    pub fn from_name(s: &str) -> Option<Library> {
        Library::ALL.into_iter().find(|l| l.name().eq_ignore_ascii_case(s.trim()))
    }

    /// The library a trace ran under, from the first line of its `MPI_Get_library_version`
    /// string ("MPICH Version: 4.0.2", "Open MPI v4.1.4, package: …"); `None` for any other
    /// (the caller says which it uses instead).
    pub fn of_version_string(s: &str) -> Option<Library> {
        let s = s.trim_start();
        if s.starts_with("Open MPI") {
            Some(Library::OpenMpi)
        } else if s.starts_with("MPICH") {
            Some(Library::Mpich)
        } else {
            None
        }
    }

    /// The library whose algorithms replay a trace: `set` when the user chose one, else the
    /// one `traced` names (the trace's `MPI_Get_library_version` line), else MPICH. A trace
    /// from a library or release whose algorithms are not the ones followed here gets a
    /// warning naming both.
    pub fn choose(set: Option<Library>, traced: Option<&str>) -> Choice {
        let traced = traced.map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
        if let Some(library) = set {
            return Choice { library, traced, by: ChoiceBy::Setting, warning: None };
        }
        let Some(t) = traced.clone() else {
            return Choice { library: Library::Mpich, traced, by: ChoiceBy::Default, warning: None };
        };
        let (library, warning) = match Library::of_version_string(&t) {
            Some(l) if l.follows_release(&t) => (l, None),
            Some(l) => {
                (l, Some(format!("the trace ran under {t}; its collectives follow {}'s algorithms", l.algorithms())))
            }
            None => (
                Library::Mpich,
                Some(format!(
                    "psins has no collective algorithms for {t}; {}'s are used \
                     (`--set mpi.library={}` chooses {}'s)",
                    Library::Mpich.algorithms(),
                    Library::OpenMpi.name(),
                    Library::OpenMpi.algorithms()
                )),
            ),
        };
        Choice { library, traced, by: ChoiceBy::Trace, warning }
    }

    /// The release whose algorithms are followed (the end of [`Library::algorithms`]).
    fn release(self) -> &'static str {
        self.algorithms().rsplit(' ').next().unwrap_or("")
    }

    /// Whether the version string names the release series whose algorithms are followed
    /// (MPICH 4.0.x, Open MPI 4.1.x: the selection tables changed between series, not within).
    fn follows_release(self, s: &str) -> bool {
        let version = s
            .split(|c: char| c.is_whitespace() || c == ',')
            .map(|w| w.trim_start_matches('v'))
            .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))
            .unwrap_or("");
        let release = self.release();
        let series = release.rsplit_once('.').map_or(release, |(s, _)| s);
        version == series || version.starts_with(&format!("{series}."))
    }

    /// [`expand`] for MPICH, [`ompi::expand`] for Open MPI (whose fixed rules have no
    /// thresholds to set: `th` is MPICH's).
    pub fn expand(self, args: &CollArgs, th: &Thresholds, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
        match self {
            Library::Mpich => expand(args, th, out),
            Library::OpenMpi => ompi::expand(args, out),
        }
    }

    /// The schedule of the nonblocking twin: [`expand_nonblocking`] (MPICH's sched
    /// algorithms) or [`ompi::expand_nonblocking`] (Open MPI's libnbc).
    pub fn expand_nonblocking(
        self,
        args: &CollArgs,
        th: &Thresholds,
        out: &mut Vec<Step>,
    ) -> Result<&'static str, ExpandError> {
        match self {
            Library::Mpich => expand_nonblocking(args, th, out),
            Library::OpenMpi => ompi::expand_nonblocking(args, out),
        }
    }
}

/// Which library's algorithms a replay follows, and why ([`Library::choose`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The library whose algorithms are followed.
    pub library: Library,
    /// The trace's `MPI_Get_library_version` line, when it has one.
    pub traced: Option<String>,
    /// What decided it.
    pub by: ChoiceBy,
    /// Set when the trace's library or release is not one whose algorithms are followed.
    pub warning: Option<String>,
}

/// What decided which library's algorithms a replay follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChoiceBy {
    /// `mpi.library` was set.
    Setting,
    /// The trace names its library.
    Trace,
    /// Neither: MPICH.
    Default,
}

/// Clears `out`, pushes this rank's steps in order and returns the algorithm's name
/// (e.g. `"bcast_binomial"`, or [`NOOP`]).
pub fn expand(args: &CollArgs, th: &Thresholds, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    out.clear();
    validate(args)?;
    if args.size == 1 {
        return Ok(NOOP);
    }
    let a = args;
    match a.coll {
        Coll::Barrier => Ok(barrier::expand(a, out)),
        Coll::Bcast => Ok(bcast::expand(a, th, out)),
        Coll::Reduce => reduce::expand_reduce(a, th, out),
        Coll::Allreduce => reduce::expand_allreduce(a, th, out),
        Coll::Gather => Ok(gather::expand_gather(a, out)),
        Coll::Scatter => Ok(gather::expand_scatter(a, out)),
        Coll::Gatherv => Ok(gather::expand_gatherv(a, out)),
        Coll::Scatterv => Ok(gather::expand_scatterv(a, out)),
        Coll::Allgather => Ok(allgather::expand_allgather(a, th, out)),
        Coll::Allgatherv => allgather::expand_allgatherv(a, th, out),
        Coll::Alltoall => Ok(alltoall::expand_alltoall(a, th, out)),
        Coll::Alltoallv | Coll::Alltoallw => Ok(alltoall::expand_alltoallv(a, th, out)),
        Coll::ReduceScatter => reduce_scatter::expand_reduce_scatter(a, th, out),
        Coll::ReduceScatterBlock => Ok(reduce_scatter::expand_reduce_scatter_block(a, th, out)),
        Coll::Scan => Ok(scan::expand(a, out, "scan_recursive_doubling")),
        Coll::Exscan => Ok(scan::expand(a, out, "exscan_recursive_doubling")),
        Coll::NeighborAllgather
        | Coll::NeighborAllgatherv
        | Coll::NeighborAlltoall
        | Coll::NeighborAlltoallv
        | Coll::NeighborAlltoallw => Err(ExpandError::Unsupported { coll: a.coll }),
    }
}

fn is_rooted(coll: Coll) -> bool {
    matches!(coll, Coll::Bcast | Coll::Reduce | Coll::Gather | Coll::Gatherv | Coll::Scatter | Coll::Scatterv)
}

/// How many entries `counts` must have on this rank, if the collective reads it here.
fn expected_counts(a: &CollArgs) -> Option<usize> {
    let p = a.size as usize;
    match a.coll {
        Coll::Gatherv | Coll::Scatterv if a.rank == a.root => Some(p),
        Coll::Allgatherv | Coll::ReduceScatter => Some(p),
        Coll::Alltoallv | Coll::Alltoallw => Some(2 * p),
        _ => None,
    }
}

pub(crate) fn validate(a: &CollArgs) -> Result<(), ExpandError> {
    if a.size == 0 {
        return Err(ExpandError::EmptyCommunicator);
    }
    if a.rank >= a.size {
        return Err(ExpandError::RankOutOfRange { rank: a.rank, size: a.size });
    }
    if is_rooted(a.coll) && a.root >= a.size {
        return Err(ExpandError::RootOutOfRange { root: a.root, size: a.size });
    }
    if let Some(expected) = expected_counts(a) {
        if a.counts.len() != expected {
            return Err(ExpandError::CountsLength { coll: a.coll, expected, got: a.counts.len() });
        }
        // Sums of counts are formed all over the algorithms; refuse totals that overflow once.
        a.counts.iter().try_fold(0u64, |s, &c| s.checked_add(c)).ok_or(ExpandError::Overflow { coll: a.coll })?;
    }
    Ok(())
}

#[cfg(test)]
mod library_tests {
    use super::*;

    #[test]
    fn the_trace_names_the_library_and_other_releases_are_warned_about() {
        let c = Library::choose(None, Some("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4"));
        assert_eq!((c.library, c.by, c.warning.is_none()), (Library::OpenMpi, ChoiceBy::Trace, true));
        let c = Library::choose(None, Some("MPICH Version:\t4.0.2"));
        assert_eq!((c.library, c.warning.is_none()), (Library::Mpich, true));
        let c = Library::choose(None, Some("Open MPI v5.0.3, package: Open MPI"));
        assert_eq!(c.library, Library::OpenMpi);
        assert!(c.warning.as_deref().unwrap().contains("Open MPI 4.1.4"), "{c:?}");
        let c = Library::choose(None, Some("Intel(R) MPI Library 2021.10 for Linux* OS"));
        assert_eq!(c.library, Library::Mpich);
        let w = c.warning.unwrap();
        assert!(w.contains("Intel(R) MPI Library 2021.10") && w.contains("MPICH 4.0.2"), "{w}");
    }

    /// The Open MPI release named is the one the rules were generated from.
    #[test]
    fn the_release_named_is_the_generated_rules_one() {
        assert_eq!(Library::OpenMpi.release(), ompi::decision::OMPI_VERSION);
        assert_eq!(Library::Mpich.release(), "4.0.2");
    }

    #[test]
    fn the_setting_wins_and_no_name_means_mpich() {
        let c = Library::choose(Some(Library::Mpich), Some("Open MPI v4.1.4"));
        assert_eq!((c.library, c.by, c.warning), (Library::Mpich, ChoiceBy::Setting, None));
        let c = Library::choose(None, Some("  "));
        assert_eq!((c.library, c.by, c.traced), (Library::Mpich, ChoiceBy::Default, None));
        assert_eq!(Library::from_name("OpenMPI"), Some(Library::OpenMpi));
        assert_eq!(Library::from_name("intel"), None);
    }
}
