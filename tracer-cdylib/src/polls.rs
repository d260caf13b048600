//! Folding polls on the intercepted path (docs/tracer.md, "Polling"). Codes that overlap
//! communication with work call MPI_Test* or MPI_Iprobe in a loop and most of those calls find
//! nothing: SNAP at 4 ranks wrote 7.8 M records, 99.8 % of them unsuccessful tests. The core
//! keeps the open run in a [`psins_formats::PollRun`] and writes it as one record when a
//! different record comes; this says which events are polls, from the event itself.

use crate::ffi::Ev;
use psins_formats::{Kind, PollKey, WaitFn};

/// The event kinds (psins_formats::Kind codes) a poll can be.
const PROBE: u32 = Kind::Probe as u32;
const WAIT: u32 = Kind::Wait as u32;

/// The poll `ev` is, if it is one: a test that completed nothing (empty completion list) or
/// a nonblocking probe that found nothing.
#[inline(always)]
pub fn poll_of(ev: &Ev) -> Option<PollKey> {
    match ev.kind {
        WAIT if ev.list_len == 0 && ev.sub >= WaitFn::Test as u32 => {
            PollKey::test(WaitFn::from_code(ev.sub as u8)?, ev.count as u32)
        }
        PROBE => PollKey::probe(ev.sub as u8, ev.peer, ev.tag, ev.comm),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use psins_formats::ProbeFlags;

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
    }
}
