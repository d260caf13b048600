//! Open MPI 4.1's default collective algorithms: coll/tuned's fixed decision rules
//! ([`decision`], generated from Open MPI's source) and the `ompi_coll_base_*` algorithms
//! they pick, plus coll/basic's for the collectives tuned leaves to it (gatherv, scatterv,
//! scan, exscan, alltoallw). A one-node run of Open MPI 4.1 selects these: tuned has the
//! highest priority of the components that accept an intra-communicator of two or more ranks
//! (docs/collectives.md, *Open MPI*).
//!
//! The fixed rules call every algorithm with no segmentation and no fan-out (`segsize` and
//! `faninout` 0), so each segmented algorithm runs as one segment and each chain as one chain;
//! the algorithms here are written for that case only.
//!
//! Open MPI waits on single requests while others stay posted (a reduce's two alternating
//! receive buffers, a bcast's pipeline). A step list has only batches closed by `WaitAll`:
//! the posting order is kept exactly, and a wait for some of the posted requests becomes a
//! `WaitAll` at the first point where all those it would add are complete anyway or where
//! Open MPI waits for all of them (docs/collectives.md lists each).

mod allgather;
mod alltoall;
mod barrier;
mod bcast;
pub mod decision;
mod gather;
mod nbc;
mod reduce;
mod reduce_scatter;
mod scan;
mod topo;

pub use nbc::expand_nonblocking;

use crate::{validate, CollArgs, ExpandError, Step, NOOP};
use psins_formats::Coll;

/// Clears `out`, pushes this rank's steps for Open MPI's algorithm and returns the
/// algorithm's name (`"ompi_<coll>_<algorithm>"`, the names of coll/tuned's lists), or
/// [`NOOP`] where Open MPI sends nothing.
pub fn expand(args: &CollArgs, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    out.clear();
    validate(args)?;
    append(args, out)
}

/// The algorithm name `expand` would return, without the steps (for reports).
pub fn select(args: &CollArgs) -> Result<&'static str, ExpandError> {
    validate(args)?;
    check_vector(args)?;
    if args.size == 1 || sends_nothing(args) {
        return Ok(NOOP);
    }
    Ok(match choice(args) {
        Some((names, alg)) => name(names, alg),
        None => basic_name(args),
    })
}

/// A reduction's vector must be `count` whole elements, as MPICH's expansion requires.
fn check_vector(a: &CollArgs) -> Result<(), ExpandError> {
    if matches!(a.coll, Coll::Reduce | Coll::Allreduce | Coll::Scan | Coll::Exscan) {
        crate::reduce::element_bytes(a)?;
    }
    Ok(())
}

/// Appends this rank's steps (an algorithm made of other collectives calls this for each).
pub(crate) fn append(a: &CollArgs, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    check_vector(a)?;
    if a.size == 1 || sends_nothing(a) {
        return Ok(NOOP);
    }
    let alg = choice(a).map_or(0, |(_, alg)| alg);
    match a.coll {
        Coll::Barrier => barrier::barrier(a, alg, out),
        Coll::Bcast => bcast::bcast(a, alg, out),
        Coll::Reduce => reduce::reduce(a, alg, out),
        Coll::Allreduce => reduce::allreduce(a, alg, out),
        Coll::Gather => gather::gather(a, alg, out),
        Coll::Scatter => gather::scatter(a, alg, out),
        Coll::Gatherv => gather::gatherv(a, out),
        Coll::Scatterv => gather::scatterv(a, out),
        Coll::Allgather => allgather::allgather(a, alg, out),
        Coll::Allgatherv => allgather::allgatherv(a, alg, out),
        Coll::Alltoall => alltoall::alltoall(a, alg, out),
        Coll::Alltoallv => alltoall::alltoallv(a, alg, out),
        Coll::Alltoallw => alltoall::alltoallw(a, out),
        Coll::ReduceScatter => reduce_scatter::reduce_scatter(a, alg, out),
        Coll::ReduceScatterBlock => reduce_scatter::reduce_scatter_block(a, alg, out),
        Coll::Scan => scan::scan(a, out),
        Coll::Exscan => scan::exscan(a, out),
        Coll::NeighborAllgather
        | Coll::NeighborAllgatherv
        | Coll::NeighborAlltoall
        | Coll::NeighborAlltoallv
        | Coll::NeighborAlltoallw => Err(ExpandError::Unsupported { coll: a.coll }),
    }
}

/// Calls Open MPI's MPI layer returns from before reaching a collective component
/// (`ompi/mpi/c/<coll>.c`): zero counts, tested here as zero bytes (the same but for
/// zero-size datatypes; gather and scatter by the rank's own block, as each rank decides).
fn sends_nothing(a: &CollArgs) -> bool {
    let all_zero = |c: &[u64]| c.iter().all(|&v| v == 0);
    match a.coll {
        Coll::Bcast => a.send_bytes == 0,
        Coll::Reduce | Coll::Allreduce | Coll::Scan | Coll::Exscan => a.count == 0,
        Coll::Gather => block_gather(a) == 0,
        Coll::Scatter => block_scatter(a) == 0,
        Coll::Allgather => a.recv_bytes == 0 || (!a.in_place && a.send_bytes == 0),
        Coll::Alltoall => a.recv_bytes == 0,
        Coll::Allgatherv | Coll::ReduceScatter => all_zero(a.counts),
        Coll::ReduceScatterBlock => a.recv_bytes == 0,
        _ => false,
    }
}

/// The per-rank block gather's rule and algorithms read: the receive block at the root (or in
/// place), the send block elsewhere.
pub(crate) fn block_gather(a: &CollArgs) -> u64 {
    if a.rank == a.root || a.in_place {
        a.recv_bytes
    } else {
        a.send_bytes
    }
}

/// Scatter's block: the send block at the root, the receive block elsewhere.
pub(crate) fn block_scatter(a: &CollArgs) -> u64 {
    if a.rank == a.root {
        a.send_bytes
    } else {
        a.recv_bytes
    }
}

/// coll/tuned's choice for this call, as (that collective's list of names, 1-based number);
/// `None` for the collectives tuned leaves to coll/basic. The byte sizes are those each
/// decision function computes: the type size times the count it reads.
fn choice(a: &CollArgs) -> Option<(&'static [&'static str], u8)> {
    use decision as d;
    let p = a.size as u64;
    let c = a.op_commutative;
    let sum = || a.counts.iter().sum::<u64>();
    Some(match a.coll {
        Coll::Allreduce => (d::ALLREDUCE_NAMES, d::allreduce(p, a.send_bytes, c)),
        // In place, the C code multiplies the receive type's size by the (ignored) send
        // count; the receive block stands for it, as a program passing equal counts gives.
        Coll::Alltoall => (d::ALLTOALL_NAMES, d::alltoall(p, if a.in_place { a.recv_bytes } else { a.send_bytes })),
        Coll::Alltoallv => (d::ALLTOALLV_NAMES, d::alltoallv(p)),
        Coll::Barrier => (d::BARRIER_NAMES, d::barrier(p)),
        Coll::Bcast => (d::BCAST_NAMES, d::bcast(p, a.send_bytes)),
        Coll::Reduce => (d::REDUCE_NAMES, d::reduce(p, a.send_bytes, c)),
        Coll::ReduceScatter => (d::REDUCE_SCATTER_NAMES, d::reduce_scatter(p, sum(), c)),
        Coll::ReduceScatterBlock => (d::REDUCE_SCATTER_BLOCK_NAMES, d::reduce_scatter_block(p, a.recv_bytes, c)),
        Coll::Allgather => (d::ALLGATHER_NAMES, d::allgather(p, if a.in_place { a.recv_bytes } else { a.send_bytes })),
        Coll::Allgatherv => (d::ALLGATHERV_NAMES, d::allgatherv(p, sum() / p)),
        Coll::Gather => (d::GATHER_NAMES, d::gather(p, block_gather(a))),
        Coll::Scatter => (d::SCATTER_NAMES, d::scatter(p, block_scatter(a))),
        _ => return None,
    })
}

/// coll/basic's algorithm for the collectives tuned leaves to it.
fn basic_name(a: &CollArgs) -> &'static str {
    match a.coll {
        Coll::Gatherv => "ompi_gatherv_basic_linear",
        Coll::Scatterv => "ompi_scatterv_basic_linear",
        Coll::Scan => "ompi_scan_basic_linear",
        Coll::Exscan => "ompi_exscan_basic_linear",
        Coll::Alltoallw => "ompi_alltoallw_basic_linear",
        _ => NOOP,
    }
}

/// The name of algorithm `alg` in a decision's list.
pub(crate) fn name(names: &'static [&'static str], alg: u8) -> &'static str {
    names[alg as usize - 1]
}
