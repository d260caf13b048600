//! Per-task state. Kept small (a few hundred bytes plus the requests and queued messages a
//! task actually has) because a million tasks are alive at once.

use super::coll::CollExec;
use super::scout::Scout;
use super::sequence::Sequence;
use crate::units::Ps;
use psins_formats::Record;
use std::collections::VecDeque;

/// Completion time not known yet.
pub const UNKNOWN: Ps = Ps::MAX;
/// Request id used for blocking calls (trace ids are never this large).
pub const BLOCKING_REQ: u32 = u32::MAX;
/// Source or tag wildcard inside the engine.
pub const ANY: i32 = -1;

/// Who is told when a message completes on one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ref {
    None,
    /// A request of the task, by handle.
    Req(u32),
    /// A step message of the task's nonblocking collective whose request has this handle.
    Nbc(u32),
}

/// Arguments kept by a persistent request between starts.
#[derive(Clone, Copy, Debug)]
pub struct Persistent {
    pub send: bool,
    pub mode: psins_formats::SendMode,
    pub peer: i32,
    pub tag: i32,
    pub bytes: u64,
    pub comm: u32,
}

/// What a request is for. Its details (peer, tag, communicator) live where the matching
/// needs them — the posted receive, the message, the collective instance — so that a
/// request is 32 bytes: a stencil task holds eight of them at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReqKind {
    Send,
    Recv,
    Coll,
    /// Arguments in `Task::persistent` under the same handle.
    Persistent,
    /// A request the trace does not model (an `other_req` record: MPI-IO, generalized
    /// requests, ...): complete when the call that made it returns; a wait that completes it
    /// lasts at least its own traced duration.
    Measured,
    /// [`ReqKind::Measured`], persistent (persistent collectives, partitioned p2p): each
    /// start completes it at once.
    MeasuredPersistent,
}

impl ReqKind {
    /// Kept across its waits until freed.
    pub fn persistent(self) -> bool {
        matches!(self, ReqKind::Persistent | ReqKind::MeasuredPersistent)
    }
    pub fn measured(self) -> bool {
        matches!(self, ReqKind::Measured | ReqKind::MeasuredPersistent)
    }
}

#[derive(Clone, Debug)]
pub struct Req {
    pub done_at: Ps,
    /// When the partner (sender, receiver, last collective arrival) posted: for wait accounting.
    pub partner_at: Ps,
    /// The trace's request id ([`BLOCKING_REQ`] for blocking calls).
    pub id: u32,
    /// Unique per task, so a late completion never lands on a reused id.
    pub handle: u32,
    pub kind: ReqKind,
    /// Persistent requests: started and not yet completed by a wait.
    pub active: bool,
    pub awaited: bool,
}

/// A receive posted before its message.
#[derive(Clone, Copy, Debug)]
pub struct Posted {
    /// World rank, or [`ANY`].
    pub src: i32,
    pub tag: i32,
    pub comm: u32,
    pub coll: bool,
    pub r: Ref,
    pub at: Ps,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Not started, or between records (an Exec event is queued).
    Ready,
    /// Inside a call, waiting for requests or a probe.
    Blocked,
    Done,
}

/// The fields another task's events reach come first, in two cache lines (the struct is
/// `repr(C)`, aligned to a line, so each lands where it is written): a completion reads the
/// requests, the pending count and the wait's times (the first line), a send to the task its
/// posted and unexpected queues (the second). The rest are read by the task's own records,
/// whose lines are prefetched before its events run (`Sim::run_report`). Measured in
/// docs/performance.md, *Findings behind the code*.
#[repr(C, align(64))]
pub struct Task {
    pub reqs: Vec<Req>,
    /// Blocked: latest known completion among awaited requests.
    pub wait_until: Ps,
    /// Latest partner post time among the awaited requests (wait accounting).
    pub partner_max: Ps,
    /// Blocked in a probe: (world source or ANY, tag or ANY, comm).
    pub probe: Option<(i32, i32, u32)>,
    /// Blocked: awaited requests whose completion time is still unknown.
    pub pending: u32,
    pub next_handle: u32,
    pub posted: Vec<Posted>,
    pub unexpected: VecDeque<u32>,
    /// A filter of the ids in `reqs`: bit `id % 16` is set for every one of them (and maybe
    /// for ids gone since), so a new id whose bit is clear needs no scan of `reqs`. 16 bits
    /// fit in the second line's padding: the task stays within its 320 bytes.
    id_bits: u16,
    /// Function id of the current call (for the reports).
    pub call_fn: u16,
    pub state: State,
    /// `rec` holds a record read ahead by an expanded collective, not executed yet.
    pub deferred: bool,
    /// Some request is awaited (so the current call has requests to retire).
    pub awaits: bool,
    /// The current record (the call being executed, or the next one to execute).
    pub rec: Record,
    /// Index of `rec` in the task's stream.
    pub index: u64,
    pub records_read: u64,
    /// What may come next in the stream (sequence.rs).
    pub seq: Sequence,
    /// The current call started here (after its CPU burst).
    pub call_start: Ps,
    /// Arguments of persistent requests, by handle.
    pub persistent: Vec<(u32, Persistent)>,
    pub coll: Option<Box<CollExec>>,
    pub scout: Option<Box<Scout>>,
    pub compute: Ps,
    pub comm: Ps,
    pub wait: Ps,
    pub end: Ps,
}

const _: () = assert!(size_of::<Task>() == 320);
const _: () = assert!(std::mem::offset_of!(Task, posted) == 64 && std::mem::offset_of!(Task, rec) == 128);

impl Task {
    pub fn new() -> Task {
        Task {
            rec: Record::default(),
            index: 0,
            records_read: 0,
            seq: Sequence::default(),
            state: State::Ready,
            call_start: 0,
            call_fn: 0,
            reqs: Vec::new(),
            persistent: Vec::new(),
            id_bits: 0,
            next_handle: 1,
            posted: Vec::new(),
            unexpected: VecDeque::new(),
            pending: 0,
            wait_until: 0,
            partner_max: 0,
            probe: None,
            deferred: false,
            awaits: false,
            coll: None,
            scout: None,
            compute: 0,
            comm: 0,
            wait: 0,
            end: 0,
        }
    }

    /// Adds a request; handles grow, so `reqs` stays sorted by handle. Out of line: one copy
    /// for its callers on the replay's path (nonblocking sends and receives, collectives),
    /// not one inlined into each (less code per record).
    #[inline(never)]
    pub fn add_req(&mut self, id: u32, kind: ReqKind) -> u32 {
        let handle = self.next_handle;
        self.next_handle = self.next_handle.wrapping_add(1).max(1);
        self.id_bits |= id_bit(id);
        self.reqs.push(Req { done_at: UNKNOWN, partner_at: 0, id, handle, kind, active: true, awaited: false });
        handle
    }

    /// Adds the request the trace calls `id` (0, "no request", is not checked: a nonblocking
    /// collective or one-sided operation may go without one). An id still in use — active,
    /// or a persistent request not freed — is an error: MPI hands out a new handle for each
    /// live request, and consolidation renames ids the same way.
    #[inline]
    pub fn create_req(&mut self, id: u32, kind: ReqKind) -> Result<u32, RequestError> {
        if id == BLOCKING_REQ {
            return Err(RequestError::Reserved { id });
        }
        if id != psins_formats::NO_REQUEST && self.id_bits & id_bit(id) != 0 && self.reqs.iter().any(|r| r.id == id) {
            return Err(RequestError::InUse { id });
        }
        Ok(self.add_req(id, kind))
    }

    /// The live request the trace calls `id` (active, or persistent and inactive): the most
    /// recent one. Every request in `reqs` is live (completed ones are retired).
    pub fn live_req(&mut self, id: u32) -> Option<&mut Req> {
        self.reqs.iter_mut().rev().find(|r| r.id == id)
    }

    /// [`Task::live_req`]'s place in `reqs`, looked for first at `hint`: a wait's list
    /// usually names its requests in the order they were made, so the caller passes the
    /// place after the last one found. An id other than "no request" and the blocking
    /// calls' is made only by [`Task::create_req`], which keeps it unique among the live
    /// requests: found at `hint`, it is the most recent one.
    #[inline]
    pub fn live_req_index(&self, id: u32, hint: usize) -> Option<usize> {
        let unique = id != BLOCKING_REQ && id != psins_formats::NO_REQUEST;
        if unique && self.reqs.get(hint).is_some_and(|r| r.id == id) {
            return Some(hint);
        }
        self.reqs.iter().rposition(|r| r.id == id)
    }

    /// Requests still active: started and never completed by a wait (persistent ones only
    /// while started), the trace's own (not a blocking call's, nor "no request", which a
    /// nonblocking collective or one-sided operation may name and no wait can).
    pub fn open_requests(&self) -> usize {
        let own = |id: u32| id != BLOCKING_REQ && id != psins_formats::NO_REQUEST;
        self.reqs.iter().filter(|r| r.active && own(r.id)).count()
    }

    pub fn req_mut(&mut self, handle: u32) -> Option<&mut Req> {
        // Handles are consecutive until a request in the middle retires: where none has
        // (a stencil's requests retire together), `handle` is at its offset from the first.
        let first = self.reqs.first()?.handle;
        let i = handle.wrapping_sub(first) as usize;
        if i < self.reqs.len() && self.reqs[i].handle == handle {
            return Some(&mut self.reqs[i]);
        }
        match self.reqs.binary_search_by_key(&handle, |r| r.handle) {
            Ok(i) => Some(&mut self.reqs[i]),
            // Handles wrapped around (after 4 billion requests): fall back to a scan.
            Err(_) => self.reqs.iter_mut().find(|r| r.handle == handle),
        }
    }

    /// Marks request `h` as waited for by the current call.
    pub fn await_req(&mut self, h: u32) {
        if let Some(r) = self.req_mut(h) {
            r.awaited = true;
            self.awaits = true;
        }
    }

    /// Drops awaited requests once their wait returns; persistent ones become inactive.
    pub fn retire_awaited(&mut self) {
        // Most calls (Isend, Irecv) await nothing: skip the scan.
        if !std::mem::take(&mut self.awaits) {
            return;
        }
        self.reqs.retain_mut(|r| {
            if r.awaited {
                r.awaited = false;
                r.active = false;
            }
            r.active || r.kind.persistent()
        });
        // Usually a wait retires every request (a stencil's Waitall): then no scan.
        self.id_bits = self.reqs.iter().fold(0, |bits, r| bits | id_bit(r.id));
    }
}

/// Request id `id`'s bit in [`Task::id_bits`].
#[inline]
fn id_bit(id: u32) -> u16 {
    1 << (id % 16)
}

/// Why [`Task::create_req`] refuses a request id.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("request id {id} is out of range (reserved for blocking calls)")]
    Reserved { id: u32 },
    #[error("request {id} created again while still in use (not completed, or a persistent request not freed)")]
    InUse { id: u32 },
}

#[cfg(test)]
mod tests {
    /// The per-task state stays small: a million tasks must fit in a few GiB.
    #[test]
    fn task_state_is_small() {
        let (task, req, cursor) =
            (size_of::<super::Task>(), size_of::<super::Req>(), size_of::<psins_formats::TaskCursor>());
        eprintln!("Task {task} B, Req {req} B, TaskCursor {cursor} B");
        assert!(task <= 320, "Task is {task} bytes");
        assert!(req <= 32, "Req is {req} bytes");
    }
}
