//! The analytic collective time shared by the PSINS models (PSINS §3.1, simple model):
//! a constant, logarithmic or linear multiple of one point-to-point transfer.

use super::CollCall;
use crate::config::Machine;
use crate::units::Ps;

/// `shape(P) × (L + bytes/B)` with the intra-node link when every participant shares a node.
pub fn analytic_collective(m: &Machine, c: &CollCall) -> Ps {
    if c.participants <= 1 {
        return 0;
    }
    let link = if c.single_node { m.intra } else { m.inter };
    let multiple = m.shape(c.coll).multiple(c.participants);
    (multiple * link.delay(c.bytes) as f64).round() as Ps
}
