//! Folding polls on the intercepted path (docs/tracer.md, "Polling"). Codes that overlap
//! communication with work call MPI_Test* or MPI_Iprobe in a loop and most of those calls find
//! nothing: SNAP at 4 ranks wrote 7.8 M records, 99.8 % of them unsuccessful tests. The core
//! keeps the open run in a [`psins_formats::PollRun`] and writes it as one record when a
//! different record comes; this says which events are polls, from the event itself.

use crate::ffi::Ev;
use psins_formats::{Kind, PollKey, ProbeFlags, WaitFn};

/// Whether a `wait` or `probe` event can be a poll at all, in one compare: a test (not a
/// wait: MPI_Wait…Waitsome come first in WaitFn), a nonblocking probe (not a blocking one).
/// The full check is [`poll_of`].
#[inline(always)]
pub fn may_be_poll(ev: &Ev) -> bool {
    const _: () = assert!(WaitFn::Test as u32 > WaitFn::Waitsome as u32 && WaitFn::Testsome as u32 == 7);
    if ev.kind == Kind::Wait as u32 {
        ev.sub >= WaitFn::Test as u32
    } else {
        ev.sub & ProbeFlags::BLOCKING as u32 == 0
    }
}

/// The poll a `wait` event is, if it is one: a test that completed nothing (an empty
/// completion list).
#[inline(always)]
fn test_poll(ev: &Ev) -> Option<PollKey> {
    if ev.list_len != 0 {
        return None;
    }
    PollKey::test(WaitFn::from_code(ev.sub as u8)?, ev.count as u32)
}

/// The poll a `probe` event is, if it is one: a nonblocking probe that found nothing.
#[inline(always)]
fn probe_poll(ev: &Ev) -> Option<PollKey> {
    PollKey::probe(ev.sub as u8, ev.peer, ev.tag, ev.comm)
}

/// The poll `ev` is, if it is one (only `wait` and `probe` events can be).
pub fn poll_of(ev: &Ev) -> Option<PollKey> {
    match Kind::from_u32(ev.kind) {
        Some(Kind::Wait) => test_poll(ev),
        Some(Kind::Probe) => probe_poll(ev),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_ev(sub: WaitFn, count: u64, list_len: u64) -> Ev {
        Ev { sub: sub as u32, count, list_len, ..Ev::bare(0, 0, Kind::Wait, 0) }
    }

    #[test]
    fn which_events_are_polls() {
        assert_eq!(poll_of(&test_ev(WaitFn::Test, 1, 0)), PollKey::test(WaitFn::Test, 1));
        assert_eq!(poll_of(&test_ev(WaitFn::Testsome, 4, 0)), PollKey::test(WaitFn::Testsome, 4));
        assert!(poll_of(&test_ev(WaitFn::Test, 1, 4)).is_none(), "a test that completed a request");
        assert!(poll_of(&test_ev(WaitFn::Waitall, 2, 0)).is_none(), "a wait is never a poll");
        let probe = |flags: u8| Ev { sub: flags as u32, peer: -1, tag: 3, comm: 2, ..Ev::bare(0, 0, Kind::Probe, 0) };
        assert_eq!(poll_of(&probe(0)), PollKey::probe(0, -1, 3, 2));
        assert!(poll_of(&probe(ProbeFlags::MATCHED)).is_some());
        assert!(poll_of(&probe(ProbeFlags::FOUND)).is_none());
        assert!(poll_of(&probe(ProbeFlags::BLOCKING | ProbeFlags::FOUND)).is_none());
        let other = Ev::bare(0, 0, Kind::Other, 0);
        assert!(poll_of(&other).is_none());
        // the one-compare pre-check lets every poll through and stops waits and blocking probes
        assert!(may_be_poll(&test_ev(WaitFn::Test, 1, 0)) && may_be_poll(&test_ev(WaitFn::Testsome, 1, 4)));
        assert!(!may_be_poll(&test_ev(WaitFn::Waitsome, 2, 0)) && !may_be_poll(&test_ev(WaitFn::Wait, 1, 0)));
        assert!(may_be_poll(&probe(ProbeFlags::MATCHED)) && may_be_poll(&probe(ProbeFlags::FOUND)));
        assert!(!may_be_poll(&probe(ProbeFlags::BLOCKING)));
    }
}
