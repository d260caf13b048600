//! The trace-event records the timeline writes, as serde structs: one `Event` per line,
//! serialized straight into the output buffer (nothing per event is allocated).

use psins_formats::Op;
use psins_units::Ps;
use serde::Serialize;

/// A time in the format's unit, microseconds (serialized as a number; Perfetto keeps
/// nanoseconds, so picoseconds below a nanosecond are display detail only).
#[derive(Clone, Copy)]
pub struct Us(pub Ps);

impl Serialize for Us {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0 as f64 / 1e6)
    }
}

#[derive(Serialize)]
pub struct Event<'a> {
    pub name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub cat: &'static str,
    pub ph: &'static str,
    pub pid: u32,
    pub tid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ts: Option<Us>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dur: Option<Us>,
    /// Flow events: the message's flow id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// Flow finish: "e" binds it to the slice enclosing its time (not the next one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bp: Option<&'static str>,
    #[serde(skip_serializing_if = "Args::is_none")]
    pub args: Args<'a>,
}

impl<'a> Event<'a> {
    pub fn new(name: &'a str, ph: &'static str, tid: u32) -> Event<'a> {
        Event { name, cat: "", ph, pid: 0, tid, ts: None, dur: None, id: None, bp: None, args: Args::None }
    }
}

#[derive(Serialize)]
#[serde(untagged)]
pub enum Args<'a> {
    None,
    Name { name: &'a str },
    SortIndex { sort_index: u32 },
    Call(CallArgs),
    Wait { partner_posted_us: Us },
    InFlight { messages: u64, bytes: u64 },
    Busy { busy: u64 },
    Mean { busy: f64 }, // a mean over a window (the packet models' busy links)
}

impl Args<'_> {
    fn is_none(&self) -> bool {
        matches!(self, Args::None)
    }
}

/// What a call slice says about its call: the record's own fields (peers are ranks of
/// communicator `comm`, as in the trace) and the time it waited for a partner.
#[derive(Serialize, Default, Clone, Copy)]
pub struct CallArgs {
    /// Index of the record in the rank's stream (psins-dump --task R shows it).
    pub record: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peer: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comm: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<i32>,
    /// Predicted: the part of the call spent waiting for a partner (docs/simulator.md);
    /// absent from the measured timeline, which cannot tell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait_us: Option<Us>,
}

impl CallArgs {
    /// The arguments `op` carries (a receive's are the actual source, tag and size).
    pub fn of(op: &Op, record: u64) -> CallArgs {
        let mut a = CallArgs { record, ..CallArgs::default() };
        match *op {
            Op::Send { peer, tag, bytes, comm, .. }
            | Op::Isend { peer, tag, bytes, comm, .. }
            | Op::SendInit { peer, tag, bytes, comm, .. }
            | Op::Recv { peer, tag, bytes, comm }
            | Op::Irecv { peer, tag, bytes, comm, .. }
            | Op::RecvInit { peer, tag, bytes, comm, .. }
            | Op::Sendrecv { peer, tag, bytes, comm, .. }
            | Op::Probe { peer, tag, bytes, comm, .. } => {
                (a.peer, a.tag, a.bytes, a.comm) = (Some(peer), Some(tag), Some(bytes), Some(comm));
            }
            Op::Coll { comm, root, send_bytes, recv_bytes, .. } => {
                a.comm = Some(comm);
                a.root = (root != psins_formats::NO_RANK).then_some(root);
                a.bytes = Some(send_bytes.max(recv_bytes));
            }
            _ => {}
        }
        a
    }
}
