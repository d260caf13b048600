//! One-sided communication: window ids across ranks, and the checks that make a trace's RMA
//! records replayable — every window known, every target inside its window, every epoch
//! opened before it is closed (docs/format.md §4).
//!
//! Each rank's tracer numbers its windows from 0. MPI creates a window collectively over a
//! communicator, so "the k-th window this rank created over communicator c" names the same
//! window on every member: that pair is the window's identity, and the trace numbers the
//! pairs from 0 in order of first appearance.

use crate::comms::Comms;
use psins_formats::comms::{Bad, WinReach};
use psins_formats::{Op, Record, WinFlags, WinSyncFn, NO_RANK, PROC_NULL};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;

/// A one-sided record the trace could not replay.
#[derive(Debug, thiserror::Error)]
pub enum WinError {
    #[error("window {win} created over communicator {comm}, which this rank never created")]
    UnknownComm { win: u32, comm: u32 },
    #[error("window id {win} created twice without being freed")]
    CreatedTwice { win: u32 },
    #[error("uses window {win}, which this rank never created (or freed)")]
    Unknown { win: u32 },
    #[error("window {win} freed with {open} still open")]
    FreedOpen { win: u32, open: String },
    #[error("group member {member} of a {} is not a rank of the job", Snake(*.func))]
    NotARank { member: i64, func: WinSyncFn },
    /// A target outside its window, as psins-formats words it.
    #[error("{0}")]
    Outside(Bad),
    #[error("window {win}: {source}")]
    Epoch { win: u32, source: EpochError },
}

/// A synchronisation call that does not balance the epochs open on its window.
#[derive(Debug, thiserror::Error)]
pub enum EpochError {
    #[error("{} with a target ({target})", Snake(*.func))]
    NeedsNoTarget { func: WinSyncFn, target: i32 },
    #[error("lock of target {target}, which this rank already holds")]
    AlreadyLocked { target: i32 },
    #[error("unlock of target {target}, which is not locked")]
    NotLocked { target: i32 },
    #[error("lock_all inside another lock epoch")]
    LockAllInside,
    #[error("unlock_all without lock_all")]
    UnlockAllWithout,
    #[error("{} of target {target} outside a lock epoch on it", Snake(*.func))]
    FlushOutside { func: WinSyncFn, target: i32 },
    #[error("{} outside a lock epoch", Snake(*.func))]
    FlushAllOutside { func: WinSyncFn },
    #[error("start inside another access epoch")]
    StartInside,
    #[error("complete without start")]
    CompleteWithout,
    #[error("post inside another exposure epoch")]
    PostInside,
    #[error("{} without post", Snake(*.func))]
    WithoutPost { func: WinSyncFn },
}

#[derive(Default)]
pub struct Windows {
    /// (global communicator, creation ordinal on it) → global window id.
    global: HashMap<(u32, u32), u32>,
    next: u32,
    /// (rank, local id) → the window as that rank uses it.
    local: HashMap<(u32, u32), Win>,
    /// (rank, global communicator) → windows the rank created over it so far.
    seen: HashMap<(u32, u32), u32>,
}

/// One rank's view of one window: its id, its size, and the epochs the rank has open.
struct Win {
    id: u32,
    size: u32,
    locked: BTreeSet<i32>,
    lock_all: bool,
    /// A start without its complete.
    access: bool,
    /// A post without its wait (or successful test).
    exposure: bool,
}

impl Windows {
    /// Forget the per-rank state (pass 2 replays the creations to rebuild it).
    pub fn reset_locals(&mut self) {
        self.local.clear();
        self.seen.clear();
    }
}

/// Checks and rewrites a one-sided record of `rank` in place; false if `rec` is not one.
pub fn normalise(comms: &mut Comms, rank: u32, world_size: u32, rec: &mut Record) -> Result<bool, WinError> {
    match &mut rec.op {
        Op::WinCreate { comm, win, .. } => {
            let local = *comm;
            *comm = comms.to_global(rank, local).ok_or(WinError::UnknownComm { win: *win, comm: local })?;
            let size = comms.size(*comm, world_size).expect("a communicator the rank created has a size");
            let w = &mut comms.wins;
            let n = w.seen.entry((rank, *comm)).or_insert(0);
            let key = (*comm, *n);
            *n += 1;
            let next = &mut w.next;
            let id = *w.global.entry(key).or_insert_with(|| {
                *next += 1;
                *next - 1
            });
            let fresh = Win { id, size, locked: BTreeSet::new(), lock_all: false, access: false, exposure: false };
            if w.local.insert((rank, *win), fresh).is_some() {
                return Err(WinError::CreatedTwice { win: *win });
            }
            *win = id;
        }
        Op::WinFree { win } => {
            let w = comms.wins.local.remove(&(rank, *win)).ok_or_else(|| unknown(*win))?;
            if let Some(open) = w.open_epoch() {
                return Err(WinError::FreedOpen { win: *win, open });
            }
            *win = w.id;
        }
        Op::Rma { target, win, .. } => {
            let w = comms.wins.local.get(&(rank, *win)).ok_or_else(|| unknown(*win))?;
            if *target != PROC_NULL {
                WinReach { win: *win, size: w.size }.check("target", *target).map_err(WinError::Outside)?;
            }
            *win = w.id;
        }
        Op::WinSync { func, win, rank: target, flags } => {
            let (func, target, flags) = (*func, *target, *flags);
            let w = comms.wins.local.get_mut(&(rank, *win)).ok_or_else(|| unknown(*win))?;
            if let Some(&m) = rec.list.iter().find(|&&m| !(0..world_size as i64).contains(&m)) {
                return Err(WinError::NotARank { member: m, func });
            }
            if has_target(func) {
                // Worded only when the check fails: this runs once per synchronisation call.
                WinReach { win: *win, size: w.size }
                    .check(format_args!("{} target", Snake(func)), target)
                    .map_err(WinError::Outside)?;
            }
            w.sync(func, target, flags).map_err(|source| WinError::Epoch { win: *win, source })?;
            *win = w.id;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// `FlushLocal` → `flush_local`, as the calls are written; a `Display`, so that a message
/// builds it only when it is written.
struct Snake(WinSyncFn);

impl std::fmt::Display for Snake {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        use std::fmt::Write;
        for (i, c) in self.0.name().chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                f.write_char('_')?;
            }
            f.write_char(c.to_ascii_lowercase())?;
        }
        Ok(())
    }
}

/// The synchronisation calls that name one target (the others carry NO_RANK).
fn has_target(func: WinSyncFn) -> bool {
    matches!(func, WinSyncFn::Lock | WinSyncFn::Unlock | WinSyncFn::Flush | WinSyncFn::FlushLocal)
}

fn unknown(win: u32) -> WinError {
    WinError::Unknown { win }
}

impl Win {
    fn open_epoch(&self) -> Option<String> {
        if let Some(x) = self.locked.first() {
            Some(format!("a lock of target {x}"))
        } else if self.lock_all {
            Some("a lock_all".into())
        } else if self.access {
            Some("an access epoch (start without complete)".into())
        } else if self.exposure {
            Some("an exposure epoch (post without wait)".into())
        } else {
            None
        }
    }

    /// Applies one synchronisation call to the open epochs; Err says what is unbalanced.
    fn sync(&mut self, func: WinSyncFn, target: i32, flags: u8) -> Result<(), EpochError> {
        use WinSyncFn::*;
        // a target's bound is checked by the caller, which knows the window's id
        if !has_target(func) && target != NO_RANK {
            return Err(EpochError::NeedsNoTarget { func, target });
        }
        match func {
            Lock if self.lock_all || !self.locked.insert(target) => Err(EpochError::AlreadyLocked { target }),
            Unlock if !self.locked.remove(&target) => Err(EpochError::NotLocked { target }),
            LockAll if self.lock_all || !self.locked.is_empty() => Err(EpochError::LockAllInside),
            LockAll => {
                self.lock_all = true;
                Ok(())
            }
            UnlockAll if !self.lock_all => Err(EpochError::UnlockAllWithout),
            UnlockAll => {
                self.lock_all = false;
                Ok(())
            }
            Flush | FlushLocal if !self.lock_all && !self.locked.contains(&target) => {
                Err(EpochError::FlushOutside { func, target })
            }
            FlushAll | FlushLocalAll if !self.lock_all && self.locked.is_empty() => {
                Err(EpochError::FlushAllOutside { func })
            }
            Start if self.access => Err(EpochError::StartInside),
            Start => {
                self.access = true;
                Ok(())
            }
            Complete if !self.access => Err(EpochError::CompleteWithout),
            Complete => {
                self.access = false;
                Ok(())
            }
            Post if self.exposure => Err(EpochError::PostInside),
            Post => {
                self.exposure = true;
                Ok(())
            }
            Wait | Test if !self.exposure => Err(EpochError::WithoutPost { func }),
            Wait => {
                self.exposure = false;
                Ok(())
            }
            Test => {
                self.exposure = flags & WinFlags::DONE == 0;
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use psins_formats::{RmaFn, WinFn, COMM_WORLD};

    fn run(comms: &mut Comms, rank: u32, op: Op) -> Result<Op, String> {
        let mut rec = Record::new(0, 0, op);
        assert!(normalise(comms, rank, 4, &mut rec).map_err(|e| e.to_string())?);
        Ok(rec.op)
    }
    fn sync(func: WinSyncFn, rank: i32, flags: u8) -> Op {
        Op::WinSync { func, win: 0, rank, flags }
    }

    #[test]
    fn windows_get_one_id_on_every_rank() {
        let mut c = Comms::new(4);
        for (rank, local) in [(0, 0), (1, 0), (0, 1), (1, 5)] {
            run(&mut c, rank, Op::WinCreate { func: WinFn::Create, comm: COMM_WORLD, win: local }).unwrap();
        }
        let put = |win| Op::Rma { func: RmaFn::Put, target: 1, win, bytes: 8, rbytes: 0, req: 0 };
        assert_eq!(run(&mut c, 1, put(5)).unwrap(), put(1), "rank 1's second window is window 1");
        assert_eq!(run(&mut c, 0, put(0)).unwrap(), put(0));
        let e = run(&mut c, 0, put(7)).unwrap_err();
        assert!(e.contains("window 7, which this rank never created"), "{e}");
    }

    #[test]
    fn targets_and_epochs_are_checked() {
        let mut c = Comms::new(4);
        run(&mut c, 0, Op::WinCreate { func: WinFn::Allocate, comm: COMM_WORLD, win: 0 }).unwrap();
        let e = run(&mut c, 0, Op::Rma { func: RmaFn::Get, target: 4, win: 0, bytes: 0, rbytes: 8, req: 0 });
        assert_eq!(e.unwrap_err(), "target 4 is outside window 0 (size 4)");
        let e = run(&mut c, 0, sync(WinSyncFn::Lock, 4, 0)).unwrap_err();
        assert_eq!(e, "lock target 4 is outside window 0 (size 4)");
        let e = run(&mut c, 0, sync(WinSyncFn::FlushLocal, -1, 0)).unwrap_err();
        assert_eq!(e, "flush_local target -1 is outside window 0 (size 4)");
        let e = run(&mut c, 0, sync(WinSyncFn::Unlock, 2, 0)).unwrap_err();
        assert!(e.contains("unlock of target 2, which is not locked"), "{e}");
        run(&mut c, 0, sync(WinSyncFn::Lock, 2, WinFlags::EXCLUSIVE)).unwrap();
        run(&mut c, 0, sync(WinSyncFn::Flush, 2, 0)).unwrap();
        assert!(run(&mut c, 0, sync(WinSyncFn::Flush, 3, 0)).unwrap_err().contains("outside a lock epoch"));
        let e = run(&mut c, 0, Op::WinFree { win: 0 }).unwrap_err();
        assert!(e.contains("freed with a lock of target 2 still open"), "{e}");
        let mut c = Comms::new(4);
        run(&mut c, 0, Op::WinCreate { func: WinFn::Allocate, comm: COMM_WORLD, win: 0 }).unwrap();
        assert!(run(&mut c, 0, sync(WinSyncFn::Complete, NO_RANK, 0)).unwrap_err().contains("complete without start"));
        run(&mut c, 0, sync(WinSyncFn::Post, NO_RANK, 0)).unwrap();
        run(&mut c, 0, sync(WinSyncFn::Test, NO_RANK, 0)).unwrap();
        run(&mut c, 0, sync(WinSyncFn::Test, NO_RANK, WinFlags::DONE)).unwrap();
        assert!(run(&mut c, 0, sync(WinSyncFn::Wait, NO_RANK, 0)).unwrap_err().contains("wait without post"));
        run(&mut c, 0, Op::WinFree { win: 0 }).unwrap();
    }
}
