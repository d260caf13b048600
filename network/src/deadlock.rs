//! The watchdog's error: when packets sit in the network and none has moved for
//! `watchdog_cycles`, the simulation stops with a report of every full buffer instead of
//! spinning forever.

use std::fmt;

use crate::fabric::Fabric;
use crate::network::Network;

/// Lines of buffer listing kept in a report; a huge deadlocked network would otherwise
/// produce megabytes.
const MAX_LINES: usize = 256;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadlock {
    /// Cycle at which the watchdog fired.
    pub cycle: u64,
    /// One line per full VC buffer: router (torus: with its coordinates), port, VC and the
    /// packets' destinations.
    pub report: String,
}

impl fmt::Display for Deadlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "network deadlock at cycle {}:\n{}", self.cycle, self.report)
    }
}

impl std::error::Error for Deadlock {}

impl<F: Fabric> Network<F> {
    pub(crate) fn deadlock_report(&self, cycle: u64) -> Deadlock {
        let mut lines = vec![format!(
            "{} packets in the network, none moved since cycle {} (watchdog {} cycles); full buffers:",
            self.in_network, self.last_move, self.cfg.watchdog_cycles
        )];
        let full: Vec<usize> = (0..self.vc.len()).filter(|&vc| self.vc[vc].occupancy(self.now) >= self.cap).collect();
        lines.extend(full.iter().take(MAX_LINES).map(|&vc| self.describe_vc(vc)));
        if full.len() > MAX_LINES {
            lines.push(format!("… and {} more full buffers", full.len() - MAX_LINES));
        }
        lines.push(format!("{} full buffers of {}", full.len(), self.vc.len()));
        Deadlock { cycle, report: lines.join("\n") }
    }

    fn describe_vc(&self, vc: usize) -> String {
        let per_router = self.ports * self.vcs;
        let r = (vc / per_router) as u32;
        let port = (vc % per_router) / self.vcs;
        let v = vc % self.vcs;
        let state = self.vc[vc];
        let queued = std::iter::successors(Some(state.head), |&p| Some(self.pk[p].next)).take(state.len as usize);
        let dsts: Vec<String> =
            queued.map(|p| format!("→{}", self.fabric.node_label(self.ms[self.pk[p].msg].dst))).collect();
        format!(
            "  router {} input {} vc{v}: {}/{} packets [{}]",
            self.fabric.router_label(r),
            self.fabric.port_name(port),
            state.occupancy(self.now),
            self.cap,
            dsts.join(" ")
        )
    }
}
