//! The deadlock report: when the event queue is empty and some tasks have not finished,
//! say for each blocked task which call it is in and what it waits for.

use super::task::{Ref, Req, ReqKind, State, UNKNOWN};
use super::Sim;
use crate::source::TraceSource;
use crate::stats::fn_names;
use crate::units::fmt_time;
use std::fmt::Write;

/// At most this many tasks are listed one by one.
const MAX_LISTED: usize = 64;

impl<S: TraceSource> Sim<'_, S> {
    pub(super) fn deadlock_report(&self) -> String {
        let names = fn_names();
        let blocked: Vec<usize> = (0..self.tasks.len()).filter(|&t| self.tasks[t].state != State::Done).collect();
        let mut s = format!(
            "deadlock: no task can progress at t = {}; {} of {} tasks are blocked:",
            fmt_time(self.now),
            blocked.len(),
            self.tasks.len()
        );
        for &t in blocked.iter().take(MAX_LISTED) {
            let task = &self.tasks[t];
            let _ = write!(
                s,
                "\n  rank {t}: {} (record {}, called at {})",
                names.get(task.call_fn as usize).map_or("(step)", String::as_str),
                task.index,
                fmt_time(task.call_start)
            );
            if let Some((src, tag, comm)) = task.probe {
                let _ = write!(s, ", probing for a message from {} tag {} on communicator {comm}", who(src), who(tag));
            }
            if task.coll.is_some() {
                let _ = write!(s, ", inside an expanded collective");
            }
            for r in task.reqs.iter().filter(|r| r.awaited && r.done_at == UNKNOWN) {
                let _ = write!(s, "\n    waits for {}", self.describe_req(r, t as u32));
            }
        }
        if blocked.len() > MAX_LISTED {
            let _ = write!(s, "\n  … and {} more blocked tasks", blocked.len() - MAX_LISTED);
        }
        s
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
