//! Score-P's byte accounting of the collectives. Its MPI adapter records in each
//! `MpiCollectiveEnd` the bytes the rank sent and received over the whole call (an allreduce
//! of `b` bytes on `N` ranks: `N·b` both ways, `(N−1)·b` in place; a broadcast's root `N·b`
//! sent); a psins record carries the message or the block instead (the tracer's: `b` both
//! ways). Read from Score-P 8.4's `SCOREP_Mpi_Coll.c`. Gatherv, scatterv and alltoallv carry
//! totals in both (the importer spreads them over the peers). Score-P does not record that a
//! call was in place: an in-place total `(N−1)·b` that `N` also divides is read as `N` blocks
//! of `(N−1)·b/N` (docs/interop-otf2.md).

use psins_formats::{Coll, NO_RANK, PROC_NULL};

/// Totals a Score-P collective record holds that fit none of its formulas.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScorepError {
    /// `total` bytes (its `what`: "allreduce total", ...) that `ranks` blocks do not divide.
    #[error("Score-P's {what} of {total} bytes is no whole multiple of the {ranks} ranks' blocks it counts")]
    Indivisible { what: &'static str, total: u64, ranks: u64 },
    #[error("a scan on an intercommunicator (MPI defines none)")]
    InterScan,
}

/// The record's (send, receive) bytes of a Score-P collective: its totals `s` and `r` on a
/// communicator of `n` ranks, this rank `me`, the root if the operation has one. An error
/// where the totals fit none of Score-P's formulas (a damaged or differently made archive).
pub fn per_rank(coll: Coll, s: u64, r: u64, n: u64, me: u64, root: Option<u64>) -> Result<(u64, u64), ScorepError> {
    let n = n.max(1);
    // `t` = k·b for the first k of `ks` that divides it (0 stays 0).
    let split = |t: u64, ks: &[u64], what: &'static str| -> Result<u64, ScorepError> {
        if t == 0 {
            return Ok(0);
        }
        ks.iter()
            .copied()
            .filter(|&k| k > 0)
            .find(|&k| t.is_multiple_of(k))
            .map(|k| t / k)
            .ok_or(ScorepError::Indivisible { what, total: t, ranks: n })
    };
    let is_root = root == Some(me);
    Ok(match coll {
        Coll::Barrier => (0, 0),
        // root: N·b sent and b received; the others b received.
        Coll::Bcast => (r, r),
        // b sent; the root receives N·b, or in place sends none and receives (N − 1)·b.
        Coll::Reduce => {
            let b = if s > 0 { s } else { split(r, &[n - 1], "reduce total")? };
            (b, b)
        }
        Coll::Allreduce => {
            let b = split(s.max(r), &[n, n - 1], "allreduce total")?;
            (b, b)
        }
        // (N − me)·b sent, (me + 1)·b received; in place (N − me − 1)·b and me·b.
        Coll::Scan => {
            let b = split(r, &[me + 1, me], "scan total").or_else(|_| split(s, &[n - me, n - me - 1], "scan total"))?;
            (b, b)
        }
        // (N − me − 1)·b sent, me·b received.
        Coll::Exscan => {
            let b = if me > 0 { split(r, &[me], "exscan total")? } else { split(s, &[n - 1], "exscan total")? };
            (b, b)
        }
        // Each sends its block; the root receives N blocks, or in place sends none and
        // receives N − 1.
        Coll::Gather => {
            let in_place = is_root && s == 0;
            let rb = if is_root { split(r, &[if in_place { n - 1 } else { n }], "gather total")? } else { 0 };
            (if in_place { rb } else { s }, rb)
        }
        // The root sends N blocks, or in place N − 1 and receives none; each receives its block.
        Coll::Scatter => {
            let in_place = is_root && r == 0;
            let sb = if is_root { split(s, &[if in_place { n - 1 } else { n }], "scatter total")? } else { 0 };
            (sb, if in_place { sb } else { r })
        }
        // N blocks each way; in place (N − 1)·b both ways.
        Coll::Allgather | Coll::Alltoall => {
            if s.is_multiple_of(n) && r.is_multiple_of(n) {
                (s / n, r / n)
            } else {
                let b = split(r, &[n - 1], "total")?;
                (b, b)
            }
        }
        // N of its blocks sent (in place N − 1); the receive total as psins keeps it.
        Coll::Allgatherv => (split(s, &[n, n - 1], "allgatherv total")?, r),
        // The whole vector sent; N of its blocks received (in place N − 1).
        Coll::ReduceScatter => (s, split(r, &[n, n - 1], "reduce_scatter total")?),
        // N blocks both ways (in place N − 1); psins: the vector sent, the block received.
        Coll::ReduceScatterBlock => {
            if s.is_multiple_of(n) && r.is_multiple_of(n) {
                (s, r / n)
            } else {
                let b = split(r, &[n - 1], "reduce_scatter_block total")?;
                (b * n, b)
            }
        }
        _ => (s, r),
    })
}

/// The same on an intercommunicator, whose totals Score-P counts over the `m` ranks of the
/// remote group (MPI allows no MPI_IN_PLACE there), and over the `local` group for
/// reduce_scatter_block (it asks the communicator's size). `root` is the record's: NO_RANK
/// where this rank passed MPI_ROOT, PROC_NULL for the other ranks of the root's group (which
/// move nothing: Score-P records 0 bytes, kept so), else the root's rank in the remote group.
pub fn per_rank_inter(coll: Coll, s: u64, r: u64, m: u64, local: u64, root: i32) -> Result<(u64, u64), ScorepError> {
    let m = m.max(1);
    let per = |t: u64, k: u64, what: &'static str| -> Result<u64, ScorepError> {
        if t.is_multiple_of(k.max(1)) {
            Ok(t / k.max(1))
        } else {
            Err(ScorepError::Indivisible { what, total: t, ranks: k })
        }
    };
    let (is_root, bystander) = (root == NO_RANK, root == PROC_NULL);
    Ok(match coll {
        Coll::Barrier => (0, 0),
        _ if bystander => (0, 0),
        // The root sends M·b; the remote group receives b each.
        Coll::Bcast if is_root => {
            let b = per(s, m, "broadcast total")?;
            (b, b)
        }
        Coll::Bcast => (r, r),
        // The root receives M·b; the remote group sends b each.
        Coll::Reduce if is_root => {
            let b = per(r, m, "reduce total")?;
            (b, b)
        }
        Coll::Reduce => (s, s),
        Coll::Gather if is_root => (0, per(r, m, "gather total")?),
        Coll::Scatter if is_root => (per(s, m, "scatter total")?, 0),
        // The root's total over the remote group, spread per peer by the importer.
        Coll::Gatherv | Coll::Scatterv => (s, r),
        Coll::Allreduce => {
            let b = per(s.max(r), m, "allreduce total")?;
            (b, b)
        }
        Coll::Allgather | Coll::Alltoall => (per(s, m, "total")?, per(r, m, "total")?),
        Coll::Allgatherv => (per(s, m, "allgatherv total")?, r),
        Coll::ReduceScatter => (s, per(r, m, "reduce_scatter total")?),
        Coll::ReduceScatterBlock => {
            let b = per(r, local, "reduce_scatter_block total")?;
            (b * m, b)
        }
        Coll::Scan | Coll::Exscan => return Err(ScorepError::InterScan),
        _ => (s, r),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Score-P's totals of one call on 4 ranks of an 8-byte message or block, and what a psins
    /// record of it carries.
    #[test]
    fn score_ps_totals_become_the_records_messages() {
        let b = 8;
        let cases = [
            (Coll::Allreduce, 4 * b, 4 * b, 2, None, (b, b)),
            // In place, (N − 1)·b, read so where N does not divide it (a 6-byte vector).
            (Coll::Allreduce, 3 * 6, 3 * 6, 2, None, (6, 6)),
            (Coll::Bcast, 4 * b, b, 1, Some(1), (b, b)),
            (Coll::Bcast, 0, b, 2, Some(1), (b, b)),
            (Coll::Reduce, b, 4 * b, 0, Some(0), (b, b)),
            (Coll::Reduce, 0, 3 * b, 0, Some(0), (b, b)),
            (Coll::Reduce, b, 0, 3, Some(0), (b, b)),
            (Coll::Scan, 2 * b, 3 * b, 2, None, (b, b)),
            (Coll::Exscan, b, 2 * b, 2, None, (b, b)),
            (Coll::Exscan, 3 * b, 0, 0, None, (b, b)),
            (Coll::Gather, b, 4 * b, 0, Some(0), (b, b)),
            (Coll::Gather, 0, 3 * b, 0, Some(0), (b, b)),
            (Coll::Gather, b, 0, 2, Some(0), (b, 0)),
            (Coll::Scatter, 4 * b, b, 0, Some(0), (b, b)),
            (Coll::Scatter, 3 * b, 0, 0, Some(0), (b, b)),
            (Coll::Scatter, 0, b, 3, Some(0), (0, b)),
            (Coll::Allgather, 4 * b, 4 * b, 1, None, (b, b)),
            (Coll::Allgather, 3 * 6, 3 * 6, 1, None, (6, 6)),
            (Coll::Alltoall, 4 * b, 4 * b, 1, None, (b, b)),
            (Coll::Barrier, 0, 0, 1, None, (0, 0)),
            (Coll::Allgatherv, 4 * b, 10 * b, 1, None, (b, 10 * b)),
            (Coll::ReduceScatter, 10 * b, 4 * b, 1, None, (10 * b, b)),
            (Coll::ReduceScatterBlock, 4 * b, 4 * b, 1, None, (4 * b, b)),
            (Coll::ReduceScatterBlock, 3 * 6, 3 * 6, 1, None, (4 * 6, 6)),
        ];
        for (coll, s, r, me, root, want) in cases {
            assert_eq!(per_rank(coll, s, r, 4, me, root), Ok(want), "{coll:?} {s} {r} rank {me}");
        }
    }

    /// On an intercommunicator of 2 local and 3 remote ranks, 8-byte messages or blocks.
    #[test]
    fn intercommunicator_totals_count_the_remote_group() {
        let b = 8;
        let cases = [
            (Coll::Bcast, 3 * b, 0, NO_RANK, (b, b)),
            (Coll::Bcast, 0, b, 0, (b, b)),
            (Coll::Bcast, 0, 0, PROC_NULL, (0, 0)),
            (Coll::Reduce, 0, 3 * b, NO_RANK, (b, b)),
            (Coll::Reduce, b, 0, 1, (b, b)),
            (Coll::Allreduce, 3 * b, 3 * b, NO_RANK, (b, b)),
            (Coll::Gather, 0, 3 * b, NO_RANK, (0, b)),
            (Coll::Gather, b, 0, 2, (b, 0)),
            (Coll::Scatter, 3 * b, 0, NO_RANK, (b, 0)),
            (Coll::Allgather, 3 * b, 3 * b, NO_RANK, (b, b)),
            (Coll::Alltoall, 3 * b, 3 * b, NO_RANK, (b, b)),
            (Coll::ReduceScatter, 10 * b, 3 * b, NO_RANK, (10 * b, b)),
            (Coll::ReduceScatterBlock, 2 * b, 2 * b, NO_RANK, (3 * b, b)),
            (Coll::Barrier, 0, 0, NO_RANK, (0, 0)),
        ];
        for (coll, s, r, root, want) in cases {
            assert_eq!(per_rank_inter(coll, s, r, 3, 2, root), Ok(want), "{coll:?} {s} {r} root {root}");
        }
        assert_eq!(
            per_rank_inter(Coll::Allreduce, 10, 10, 3, 2, NO_RANK).unwrap_err().to_string(),
            "Score-P's allreduce total of 10 bytes is no whole multiple of the 3 ranks' blocks it counts"
        );
        assert_eq!(per_rank_inter(Coll::Scan, 8, 8, 3, 2, NO_RANK), Err(ScorepError::InterScan));
    }

    #[test]
    fn totals_that_fit_no_formula_are_refused() {
        let e = per_rank(Coll::Allreduce, 10, 10, 4, 0, None).unwrap_err().to_string();
        assert!(e.contains("allreduce total of 10 bytes"), "{e}");
    }
}
