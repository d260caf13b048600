//! Time by region: the MPI_Pcontrol level in effect (1 before a task's first `pcontrol`
//! record, MPI's default level). A task's compute, communication and wait totals are split at
//! its `pcontrol` records: what accrued since its previous one goes to the level that was in
//! effect. Tasks of a trace without `pcontrol` records cost nothing here (no entry at all).

use super::Sim;
use crate::source::TraceSource;
use crate::units::Ps;

/// Where a task's current region started: its level and its totals then.
#[derive(Clone, Copy, Debug)]
pub(super) struct RegionMark {
    level: i32,
    compute: Ps,
    comm: Ps,
    wait: Ps,
}

/// MPI's default profiling level, in effect before any MPI_Pcontrol.
const DEFAULT_LEVEL: i32 = 1;

impl<S: TraceSource> Sim<'_, S> {
    /// Task `t` enters region `level` now (its `pcontrol` record, after the record's burst).
    pub(super) fn enter_region(&mut self, t: u32, level: i32) {
        let next = self.region_mark(t, level);
        let mark = self.regions.insert(t, next);
        self.close_region(mark, next);
    }

    /// At the end of the replay: the rest of every task's time goes to its current region.
    pub(super) fn close_regions(&mut self) {
        if self.regions.is_empty() {
            return;
        }
        for t in 0..self.tasks.len() as u32 {
            let end = self.region_mark(t, DEFAULT_LEVEL);
            let mark = self.regions.get(&t).copied();
            self.close_region(mark, end);
        }
    }

    fn region_mark(&self, t: u32, level: i32) -> RegionMark {
        let task = &self.tasks[t as usize];
        RegionMark { level, compute: task.compute, comm: task.comm, wait: task.wait }
    }

    /// Adds the time from `start` (None: the task's start, at the default level) to `now`.
    fn close_region(&mut self, start: Option<RegionMark>, now: RegionMark) {
        let start = start.unwrap_or(RegionMark { level: DEFAULT_LEVEL, compute: 0, comm: 0, wait: 0 });
        let r = self.stats.regions.entry(start.level).or_default();
        r.compute += now.compute.saturating_sub(start.compute);
        r.comm += now.comm.saturating_sub(start.comm);
        r.wait += now.wait.saturating_sub(start.wait);
    }
}
