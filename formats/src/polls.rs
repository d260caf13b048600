//! Folding polls: a run of unsuccessful MPI_Test*/MPI_Iprobe/MPI_Improbe calls, all the same
//! call, as one `poll` record ([`Op::Poll`], docs/format.md §3.2). The tracer folds as it
//! records (its intercepted path keeps one [`PollRun`]: three sums and a count, no
//! allocation); the same code folds a list of records ([`PollKey::of`]), which is how the
//! tests hold a folded trace to the replay of the unfolded one.
//!
//! A poll is a test-family `wait` that completed nothing (an empty completion list: nothing
//! for a replay to wait for) or a nonblocking probe that found nothing. Its replay is its CPU
//! burst and its call overhead only, so a run replays the same folded: the record's burst,
//! then `between_ns` more, then the calls.

use crate::record::{Op, PollFn, ProbeFlags, WaitFn, NO_RANK};

/// What makes two polls the same call: the fields their unfolded records have.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PollKey {
    func: u8,
    count: u32,
    peer: i32,
    tag: i32,
    comm: u32,
}

impl PollKey {
    /// A test-family call (`func` Test…Testsome) of `count` requests that completed nothing.
    #[inline(always)]
    pub fn test(func: WaitFn, count: u32) -> Option<PollKey> {
        let f = match func {
            WaitFn::Test => PollFn::Test,
            WaitFn::Testall => PollFn::Testall,
            WaitFn::Testany => PollFn::Testany,
            WaitFn::Testsome => PollFn::Testsome,
            _ => return None,
        };
        Some(PollKey { func: f as u8, count, peer: NO_RANK, tag: 0, comm: 0 })
    }

    /// A probe with `flags` (ProbeFlags) as posted, if it is a nonblocking one that found nothing.
    #[inline(always)]
    pub fn probe(flags: u8, peer: i32, tag: i32, comm: u32) -> Option<PollKey> {
        if flags & (ProbeFlags::BLOCKING | ProbeFlags::FOUND) != 0 {
            return None;
        }
        let f = if flags & ProbeFlags::MATCHED != 0 { PollFn::Improbe } else { PollFn::Iprobe };
        Some(PollKey { func: f as u8, count: 0, peer, tag, comm })
    }

    /// The poll a record is, if it is one.
    pub fn of(op: &Op, list: &[i64]) -> Option<PollKey> {
        match *op {
            Op::Wait { func, count } if list.is_empty() => PollKey::test(func, count),
            Op::Probe { peer, tag, comm, flags, .. } => PollKey::probe(flags, peer, tag, comm),
            _ => None,
        }
    }
}

/// The open run of polls (`calls` = 0: none).
#[derive(Clone, Copy, Debug, Default)]
pub struct PollRun {
    pub calls: u64,
    key: PollKey,
    /// The CPU burst before the first call.
    pub gap: u64,
    /// Time inside the calls.
    pub dur: u64,
    /// Computation between the calls (the gaps of the second to the last).
    pub between: u64,
    /// The shortest of those gaps (u64::MAX while the run has one call).
    pub min_gap: u64,
}

impl PollRun {
    /// Adds one poll; returns the run that ended because this poll is a different call.
    #[inline(always)]
    pub fn add(&mut self, key: PollKey, gap: u64, dur: u64) -> Option<PollRun> {
        if self.calls != 0 && self.key == key {
            self.calls += 1;
            self.between = self.between.saturating_add(gap);
            self.min_gap = self.min_gap.min(gap);
            self.dur = self.dur.saturating_add(dur);
            return None;
        }
        let ended = std::mem::replace(self, PollRun { calls: 1, key, gap, dur, between: 0, min_gap: u64::MAX });
        (ended.calls != 0).then_some(ended)
    }

    /// Ends the open run, if any.
    #[inline(always)]
    pub fn take(&mut self) -> Option<PollRun> {
        (self.calls != 0).then(|| std::mem::take(self))
    }

    /// The record of the run: the call's own record for a single call (so a program that
    /// never polls twice in a row writes what it wrote before folding), else a `poll` record.
    pub fn op(&self) -> Op {
        let k = self.key;
        let func = PollFn::from_code(k.func).expect("set from a PollFn");
        let (calls, between_ns, min_gap_ns) = (self.calls, self.between, if self.calls > 1 { self.min_gap } else { 0 });
        let poll =
            Op::Poll { func, calls, between_ns, min_gap_ns, count: k.count, peer: k.peer, tag: k.tag, comm: k.comm };
        match poll.unfold_poll() {
            Some((one, 1)) => one,
            _ => poll,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_records_are_polls() {
        let test = |func, n| Op::Wait { func, count: n };
        assert!(PollKey::of(&test(WaitFn::Test, 1), &[]).is_some());
        assert!(PollKey::of(&test(WaitFn::Testsome, 4), &[]).is_some());
        assert!(PollKey::of(&test(WaitFn::Test, 1), &[3, 0, 1, 8]).is_none(), "a test that completed a request");
        assert!(PollKey::of(&test(WaitFn::Waitall, 2), &[]).is_none(), "a wait is never a poll");
        let probe = |flags| Op::Probe { peer: -1, tag: 3, bytes: 0, comm: 2, flags };
        assert!(PollKey::of(&probe(0), &[]).is_some());
        assert!(PollKey::of(&probe(ProbeFlags::MATCHED), &[]).is_some());
        assert!(PollKey::of(&probe(ProbeFlags::FOUND), &[]).is_none());
        assert!(PollKey::of(&probe(ProbeFlags::BLOCKING | ProbeFlags::FOUND), &[]).is_none());
        assert_ne!(PollKey::of(&probe(0), &[]), PollKey::of(&probe(ProbeFlags::MATCHED), &[]));
        // a poll unfolds to the record it was made from
        for op in [test(WaitFn::Testany, 3), probe(0), probe(ProbeFlags::MATCHED)] {
            let mut run = PollRun::default();
            run.add(PollKey::of(&op, &[]).unwrap(), 1, 1);
            assert_eq!(run.op(), op);
        }
    }

    #[test]
    fn a_run_sums_its_calls_and_ends_at_a_different_call() {
        let test = PollKey::test(WaitFn::Test, 1).unwrap();
        let testall = PollKey::test(WaitFn::Testall, 2).unwrap();
        let mut run = PollRun::default();
        assert!(run.add(test, 100, 5).is_none());
        assert!(run.add(test, 7, 6).is_none());
        assert!(run.add(test, 8, 7).is_none());
        let ended = run.add(testall, 9, 1).expect("a different call ends the run");
        assert_eq!((ended.calls, ended.gap, ended.dur, ended.between, ended.min_gap), (3, 100, 18, 15, 7));
        let want = Op::Poll {
            func: PollFn::Test,
            calls: 3,
            between_ns: 15,
            min_gap_ns: 7,
            count: 1,
            peer: NO_RANK,
            tag: 0,
            comm: 0,
        };
        assert_eq!(ended.op(), want);
        let single = run.take().unwrap();
        assert_eq!(single.op(), Op::Wait { func: WaitFn::Testall, count: 2 });
        assert_eq!((single.gap, single.dur), (9, 1));
        assert!(run.take().is_none());
    }
}
