//! The order of one task's records: what a process's stream of MPI calls can be. A trace
//! from psins-consolidate always obeys it (the tracer writes nothing after MPI_Finalize,
//! numbers its collectives and puts each one's expansion steps right after it); a trace
//! built by hand or by a buggy importer may not, and replaying it would give a number
//! that means nothing. So each record read is checked here, and the first one out of
//! order is an error naming the task and record.
//!
//! - nothing after `Finalize` or `Abort` (the process is gone);
//! - one `Init`;
//! - collective instances increase along the stream (the tracer counts this rank's
//!   collectives from 1; the counter may wrap after 2^32 of them);
//! - a `Step` belongs to the collective just before it: it follows that `Coll` record or
//!   another step of the same instance.

use psins_formats::Op;

const INIT: u8 = 1;
const FINALIZED: u8 = 2;
const ABORTED: u8 = 4;
const COLL_SEEN: u8 = 8;
/// The previous record was a `Coll` or one of its steps: steps of `instance` may follow.
const EXPANDING: u8 = 16;

/// A record out of its task's order: the rule it breaks.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SequenceError {
    #[error("a {kind} record after {end}: a process makes no MPI call after it")]
    AfterEnd { kind: &'static str, end: &'static str },
    #[error(
        "expansion step of collective instance {instance} does not follow its collective (steps come right after their Coll record)"
    )]
    StepWithoutColl { instance: u32 },
    #[error("expansion step of collective instance {instance} follows collective instance {last}")]
    StepOfOther { instance: u32, last: u32 },
    #[error(
        "collective instance {instance} after instance {last}: a rank numbers its collectives in call order, so instances only increase"
    )]
    InstanceOrder { instance: u32, last: u32 },
    #[error("a second MPI_Init: MPI is initialised once per process")]
    SecondInit,
}

/// Per task: 8 bytes, so a million tasks keep it cheaply.
#[derive(Clone, Copy, Default, Debug)]
pub struct Sequence {
    /// The last collective's instance.
    instance: u32,
    flags: u8,
}

impl Sequence {
    /// Checks the next record of the stream; `Err` says why it cannot come here.
    #[inline(always)]
    pub fn check(&mut self, op: &Op) -> Result<(), SequenceError> {
        // Most records change nothing: not a kind the rules name, and no end or expansion
        // in progress. One test on the kind and one on the flags, inline on the replay's path.
        let plain =
            !matches!(op, Op::Step { .. } | Op::Coll { .. } | Op::Init { .. } | Op::Finalize | Op::Abort { .. });
        if plain && self.flags & (FINALIZED | ABORTED | EXPANDING) == 0 {
            return Ok(());
        }
        self.check_full(op)
    }

    /// [`Sequence::check`] for any record.
    #[inline(never)]
    fn check_full(&mut self, op: &Op) -> Result<(), SequenceError> {
        if self.flags & (FINALIZED | ABORTED) != 0 {
            return Err(self.after_end(op));
        }
        match *op {
            Op::Step { instance, .. } => {
                if self.flags & EXPANDING == 0 || instance != self.instance {
                    return Err(self.stray_step(instance));
                }
                return Ok(());
            }
            Op::Coll { instance, .. } => {
                let last = self.instance;
                if self.flags & COLL_SEEN != 0 && instance <= last && instance != last.wrapping_add(1) {
                    return Err(SequenceError::InstanceOrder { instance, last });
                }
                self.instance = instance;
                self.flags |= COLL_SEEN | EXPANDING;
                return Ok(());
            }
            Op::Init { .. } if self.flags & INIT != 0 => {
                return Err(SequenceError::SecondInit);
            }
            Op::Init { .. } => self.flags |= INIT,
            Op::Finalize => self.flags |= FINALIZED,
            Op::Abort { .. } => self.flags |= ABORTED,
            _ => {}
        }
        self.flags &= !EXPANDING;
        Ok(())
    }

    #[cold]
    fn after_end(&self, op: &Op) -> SequenceError {
        let end = if self.flags & FINALIZED != 0 { "MPI_Finalize" } else { "MPI_Abort" };
        SequenceError::AfterEnd { kind: op.kind().name(), end }
    }

    #[cold]
    fn stray_step(&self, instance: u32) -> SequenceError {
        if self.flags & EXPANDING == 0 {
            return SequenceError::StepWithoutColl { instance };
        }
        SequenceError::StepOfOther { instance, last: self.instance }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use psins_formats::{Coll, StepOp, COMM_WORLD, NO_RANK};

    fn coll(instance: u32) -> Op {
        Op::Coll {
            coll: Coll::Barrier,
            comm: COMM_WORLD,
            root: NO_RANK,
            send_bytes: 0,
            recv_bytes: 0,
            count: 0,
            flags: 0,
            req: 0,
            instance,
        }
    }
    fn step(instance: u32) -> Op {
        Op::Step { instance, op: StepOp::Send, peer: 1, bytes: 0, peer2: NO_RANK, bytes2: 0 }
    }
    fn run(ops: &[Op]) -> Result<(), (usize, String)> {
        let mut s = Sequence::default();
        ops.iter().enumerate().try_for_each(|(i, op)| s.check(op).map_err(|e| (i, e.to_string())))
    }

    #[test]
    fn a_traced_stream_passes() {
        let init = Op::Init { thread_level: 0 };
        let ops = [init, coll(1), step(1), step(1), Op::Other { func: 3 }, coll(2), coll(3), step(3), Op::Finalize];
        assert_eq!(run(&ops), Ok(()));
        // The tracer's u32 counter wraps after 2^32 collectives.
        assert_eq!(run(&[coll(u32::MAX), step(u32::MAX), coll(0), step(0)]), Ok(()));
    }

    #[test]
    fn each_misordered_record_is_named() {
        let init = Op::Init { thread_level: 0 };
        let err = |ops: &[Op]| run(ops).unwrap_err();
        assert_eq!(err(&[init, Op::Finalize, Op::Other { func: 3 }]).0, 2);
        assert!(err(&[Op::Abort { code: 1 }, coll(1)]).1.contains("after MPI_Abort"));
        assert!(err(&[init, init]).1.contains("second MPI_Init"));
        assert!(err(&[coll(2), coll(2)]).1.contains("instance 2 after instance 2"));
        assert!(err(&[coll(5), coll(3)]).1.contains("instance 3 after instance 5"));
        assert!(err(&[coll(1), step(2)]).1.contains("step of collective instance 2 follows collective instance 1"));
        assert!(err(&[coll(1), Op::Other { func: 3 }, step(1)]).1.contains("does not follow its collective"));
        assert_eq!(err(&[step(1)]).0, 0);
    }
}
