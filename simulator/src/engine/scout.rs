//! Wildcard resolution by look-ahead. A receive posted with `MPI_ANY_SOURCE` or `MPI_ANY_TAG`
//! learns its actual source and tag only from its completion record, later in the same
//! task's stream. Replaying with the wildcard would let the simulated arrival order pick a
//! different message than the traced run did (INSEE §5.2: never replay with wildcards), so
//! at the moment the receive is posted the task's scout — a second, independent reader over
//! the same stream, created on the first wildcard — reads ahead to that completion.
//!
//! The scout pairs each completion with the most recent activation (Irecv, or Start/Startall
//! of a persistent receive) of the same request id, so reused ids resolve correctly. It only
//! ever moves forward; resolutions it finds on the way are kept until asked for.

use crate::error::Result;
use crate::source::RecordStream;
use psins_formats::{Op, Record, ANY_SOURCE, ANY_TAG};
use std::collections::BTreeMap;

pub struct Scout {
    stream: Box<dyn RecordStream>,
    rec: Record,
    /// Index of the next record the scout reads.
    index: u64,
    done: bool,
    /// Wildcard receive activations not yet completed: (request id, record index).
    active: Vec<(u32, u64)>,
    /// Persistent receive requests created with a wildcard.
    wild_persistent: Vec<u32>,
    /// (activation record index, request id) → (comm-local source, tag).
    resolved: BTreeMap<(u64, u32), (i32, i32)>,
}

fn wild(peer: i32, tag: i32) -> bool {
    peer == ANY_SOURCE || tag == ANY_TAG
}

impl Scout {
    pub fn new(stream: Box<dyn RecordStream>) -> Scout {
        Scout {
            stream,
            rec: Record::default(),
            index: 0,
            done: false,
            active: Vec::new(),
            wild_persistent: Vec::new(),
            resolved: BTreeMap::new(),
        }
    }

    /// The actual (source, tag) of the wildcard receive `req` activated by record `at`,
    /// or `None` if the stream never completes it (cancelled, or the run ended first).
    pub fn resolve(&mut self, at: u64, req: u32) -> Result<Option<(i32, i32)>> {
        loop {
            if let Some(v) = self.resolved.remove(&(at, req)) {
                return Ok(Some(v));
            }
            let pending = self.active.iter().any(|&(r, i)| r == req && i == at);
            if self.done || (self.index > at && !pending) {
                return Ok(None);
            }
            self.step()?;
        }
    }

    fn step(&mut self) -> Result<()> {
        if !self.stream.next(&mut self.rec)? {
            self.done = true;
            return Ok(());
        }
        let i = self.index;
        self.index += 1;
        match self.rec.op {
            Op::Irecv { peer, tag, req, .. } if wild(peer, tag) => self.activate(req, i),
            Op::RecvInit { peer, tag, req, .. } if wild(peer, tag) => self.wild_persistent.push(req),
            Op::Start { req } if self.wild_persistent.contains(&req) => self.activate(req, i),
            Op::Startall => {
                for k in 0..self.rec.list.len() {
                    let req = self.rec.list[k] as u32;
                    if self.wild_persistent.contains(&req) {
                        self.activate(req, i);
                    }
                }
            }
            Op::RequestFree { req } => self.wild_persistent.retain(|&r| r != req),
            Op::Wait { .. } => {
                for q in self.rec.list.chunks_exact(4) {
                    let req = q[0] as u32;
                    if let Some(k) = self.active.iter().position(|&(r, _)| r == req) {
                        let (_, at) = self.active.swap_remove(k);
                        self.resolved.insert((at, req), (q[1] as i32, q[2] as i32));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn activate(&mut self, req: u32, at: u64) {
        // A new activation of the same id replaces one never completed (e.g. cancelled).
        self.active.retain(|&(r, _)| r != req);
        self.active.push((req, at));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use psins_formats::{WaitFn, COMM_WORLD};

    struct VecStream(std::vec::IntoIter<Record>);
    impl RecordStream for VecStream {
        fn next(&mut self, rec: &mut Record) -> Result<bool> {
            Ok(self.0.next().map(|r| *rec = r).is_some())
        }
    }

    fn irecv(req: u32) -> Record {
        Record::new(0, 0, Op::Irecv { peer: ANY_SOURCE, tag: ANY_TAG, bytes: 8, comm: COMM_WORLD, req })
    }
    fn wait(done: &[(u32, i64, i64)]) -> Record {
        let list = done.iter().flat_map(|&(r, s, t)| [r as i64, s, t, 8]).collect();
        Record::new(0, 0, Op::Wait { func: WaitFn::Waitall, count: done.len() as u32 }).with_list(list)
    }

    /// Request ids are reused: each activation gets the completion that follows it.
    #[test]
    fn pairs_completions_with_the_latest_activation() {
        let recs = vec![irecv(1), irecv(2), wait(&[(2, 5, 9), (1, 3, 7)]), irecv(1), wait(&[(1, 4, 6)])];
        let mut s = Scout::new(Box::new(VecStream(recs.into_iter())));
        assert_eq!(s.resolve(0, 1).unwrap(), Some((3, 7)));
        assert_eq!(s.resolve(1, 2).unwrap(), Some((5, 9)));
        assert_eq!(s.resolve(3, 1).unwrap(), Some((4, 6)));
    }

    /// Persistent wildcard receives resolve per Start / Startall.
    #[test]
    fn resolves_persistent_starts() {
        let init = Record::new(0, 0, Op::RecvInit { peer: ANY_SOURCE, tag: 3, bytes: 8, comm: COMM_WORLD, req: 4 });
        let start = Record::new(0, 0, Op::Start { req: 4 });
        let startall = Record::new(0, 0, Op::Startall).with_list(vec![4]);
        let recs = vec![init, start, wait(&[(4, 1, 3)]), startall, wait(&[(4, 2, 3)])];
        let mut s = Scout::new(Box::new(VecStream(recs.into_iter())));
        assert_eq!(s.resolve(1, 4).unwrap(), Some((1, 3)));
        assert_eq!(s.resolve(3, 4).unwrap(), Some((2, 3)));
    }

    /// A receive never completed (cancelled) stays unresolved, without reading forever.
    #[test]
    fn unresolved_when_never_completed() {
        let recs = vec![irecv(1), Record::new(0, 0, Op::Cancel { req: 1 }), wait(&[])];
        let mut s = Scout::new(Box::new(VecStream(recs.into_iter())));
        assert_eq!(s.resolve(0, 1).unwrap(), None);
    }
}
