//! The deadlock report: when the event queue is empty and some tasks have not finished,
//! say for each blocked task which call it is in and what it waits for. The same facts
//! feed the message on stderr and the JSON report ([`crate::report::Deadlock`]).

use super::task::{Ref, Req, ReqKind, State, UNKNOWN};
use super::Sim;
use crate::report::{BlockedTask, Deadlock};
use crate::source::TraceSource;
use crate::units::human_time;
use psins_formats::functions::fn_names;

/// At most this many tasks are listed one by one.
const MAX_LISTED: usize = 64;

impl<S: TraceSource> Sim<'_, S> {
    /// The blocked tasks; `cause` is the message when a network model stopped the run, else
    /// the message lists the blocked tasks.
    pub(super) fn deadlock(&self, cause: Option<String>) -> Deadlock {
        let names = fn_names();
        let blocked: Vec<usize> = (0..self.tasks.len()).filter(|&t| self.tasks[t].state != State::Done).collect();
        let listed: Vec<BlockedTask> = blocked
            .iter()
            .take(MAX_LISTED)
            .map(|&t| {
                let task = &self.tasks[t];
                let mut notes = Vec::new();
                if let Some((src, tag, comm)) = task.probe {
                    notes.push(format!(
                        "probing for a message from {} tag {} on communicator {comm}",
                        who(src),
                        who(tag)
                    ));
                }
                if task.coll.is_some() {
                    notes.push("inside an expanded collective".into());
                }
                BlockedTask {
                    rank: t as u32,
                    call: names.get(task.call_fn as usize).map_or("(step)", String::as_str).to_string(),
                    record: task.index,
                    called_at: task.call_start,
                    notes,
                    waits_for: task
                        .reqs
                        .iter()
                        .filter(|r| r.awaited && r.done_at == UNKNOWN)
                        .map(|r| self.describe_req(r, t as u32))
                        .collect(),
                }
            })
            .collect();
        let message = cause.unwrap_or_else(|| {
            let mut s = format!(
                "deadlock: no task can progress at t = {}; {} of {} tasks are blocked:",
                human_time(self.now),
                blocked.len(),
                self.tasks.len()
            );
            for b in &listed {
                s.push_str(&b.text());
            }
            if blocked.len() > MAX_LISTED {
                s.push_str(&format!("\n  … and {} more blocked tasks", blocked.len() - MAX_LISTED));
            }
            s
        });
        Deadlock { message, at: self.now, blocked_total: blocked.len() as u64, blocked: listed }
    }

    /// What request `r` of task `t` waits for, from where its details live.
    fn describe_req(&self, r: &Req, t: u32) -> String {
        let h = Ref::Req(r.handle);
        let task = &self.tasks[t as usize];
        match r.kind {
            ReqKind::Recv | ReqKind::Persistent => match task.posted.iter().find(|p| p.r == h) {
                Some(p) => format!(
                    "a message from world rank {} with tag {} on communicator {} (never sent)",
                    who(p.src),
                    who(p.tag),
                    p.comm
                ),
                None => self.describe_send(t, h),
            },
            ReqKind::Send => self.describe_send(t, h),
            // complete when made: never what a task waits for
            ReqKind::Measured | ReqKind::MeasuredPersistent => "a request of a call the trace does not model".into(),
            ReqKind::Coll => {
                let found = self.colls.iter().find_map(|(comm, q)| q.waits_in(t, r.handle).then_some((*comm, q)));
                match found {
                    Some((comm, q)) => format!(
                        "the other members of communicator {comm} to join the collective{}",
                        q.missing_members(&self.comms, comm, t)
                    ),
                    None => "a collective to complete".into(),
                }
            }
        }
    }

    /// A send request of `t`: unmatched in its destination's queue, or in flight.
    fn describe_send(&self, t: u32, h: Ref) -> String {
        for (d, task) in self.tasks.iter().enumerate() {
            for &id in &task.unexpected {
                let m = self.msgs.get(id);
                if m.src == t && m.send_ref == h {
                    return format!(
                        "its send to world rank {d} with tag {} on communicator {} to be received (no matching receive)",
                        m.tag, m.comm
                    );
                }
            }
        }
        "a message to be delivered".into()
    }
}

fn who(v: i32) -> String {
    if v < 0 {
        "any".into()
    } else {
        v.to_string()
    }
}
