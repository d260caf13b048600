//! The analytic collective time shared by the PSINS models: the cost of the point-to-point
//! steps of MPICH's algorithm on a contention-free network ([`super::algorithm`]), which the
//! engine works out when the instance completes; `shape(P) × (L + S/B)` (PSINS §3.1) where
//! the machine file sets a shape for the collective, or where the algorithm cannot be timed.

use super::CollCall;
use crate::units::Ps;
use psins_machine::Machine;

/// The algorithm's cost, unless `[mpi.collective_shape]` overrides it; the shape formula,
/// with the intra-node link when every participant shares a node, otherwise.
pub fn analytic_collective(m: &Machine, c: &CollCall) -> Ps {
    if c.participants <= 1 {
        return 0;
    }
    if let (None, Some(t)) = (m.explicit_shape(c.coll), c.algorithm) {
        return t;
    }
    let link = if c.single_node { m.intra } else { m.inter };
    let multiple = m.shape(c.coll).multiple(c.participants);
    (multiple * link.delay(c.bytes) as f64).round() as Ps
}
