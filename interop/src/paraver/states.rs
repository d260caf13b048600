//! Paraver's vocabulary for an MPI run: the thread states (numbered as Extrae's traces number
//! them, so Paraver's stock configuration files colour them as users know) and the MPI event
//! types (Extrae's 5000000x types; values are psins's MPI function ids, named in the .pcf).

use psins_formats::{functions, Coll, Op, WaitFn};

/// A thread state: its number in the .prv and its name in the .pcf.
pub type State = u32;

pub const IDLE: State = 0;
pub const RUNNING: State = 1;
pub const WAITING_MESSAGE: State = 3;
pub const BLOCKING_SEND: State = 4;
pub const SYNCHRONIZATION: State = 5;
pub const TEST_PROBE: State = 6;
pub const WAIT: State = 8;
pub const IMMEDIATE_SEND: State = 10;
pub const IMMEDIATE_RECEIVE: State = 11;
pub const GROUP_COMMUNICATION: State = 13;
pub const OTHERS: State = 15;
pub const SEND_RECEIVE: State = 17;
pub const REMOTE_MEMORY: State = 18;

/// Every state the export writes, with the name and colour its .pcf gives it.
pub const STATES: [(State, &str, (u8, u8, u8)); 13] = [
    (IDLE, "Idle", (117, 195, 255)),
    (RUNNING, "Running", (0, 0, 255)),
    (WAITING_MESSAGE, "Waiting a message", (255, 0, 0)),
    (BLOCKING_SEND, "Blocking Send", (255, 0, 174)),
    (SYNCHRONIZATION, "Synchronization", (179, 0, 0)),
    (TEST_PROBE, "Test/Probe", (0, 255, 0)),
    (WAIT, "Wait/WaitAll", (235, 0, 0)),
    (IMMEDIATE_SEND, "Immediate Send", (255, 174, 185)),
    (IMMEDIATE_RECEIVE, "Immediate Receive", (128, 128, 0)),
    (GROUP_COMMUNICATION, "Group Communication", (255, 144, 26)),
    (OTHERS, "Others", (192, 224, 0)),
    (SEND_RECEIVE, "Send Receive", (255, 255, 0)),
    (REMOTE_MEMORY, "One-sided operation", (0, 255, 255)),
];

/// The MPI event types, as Extrae's: value = the MPI function entered, 0 = left.
pub const P2P: u32 = 50_000_001;
pub const COLLECTIVE: u32 = 50_000_002;
pub const OTHER: u32 = 50_000_003;
pub const ONE_SIDED: u32 = 50_000_004;

pub const TYPES: [(u32, &str); 4] = [
    (P2P, "MPI Point-to-point"),
    (COLLECTIVE, "MPI Collective Comm"),
    (OTHER, "MPI Other"),
    (ONE_SIDED, "MPI One-sided"),
];

/// The state a call shows.
pub fn of(op: &Op) -> State {
    match *op {
        Op::Send { .. } => BLOCKING_SEND,
        Op::Isend { .. } | Op::SendInit { .. } | Op::Start { .. } | Op::Startall => IMMEDIATE_SEND,
        Op::Recv { .. } => WAITING_MESSAGE,
        Op::Irecv { .. } | Op::RecvInit { .. } => IMMEDIATE_RECEIVE,
        Op::Sendrecv { .. } => SEND_RECEIVE,
        Op::Probe { .. } | Op::Poll { .. } => TEST_PROBE,
        Op::Wait { func: WaitFn::Test | WaitFn::Testall | WaitFn::Testany | WaitFn::Testsome, .. } => TEST_PROBE,
        Op::Wait { .. } => WAIT,
        Op::Coll { coll: Coll::Barrier, .. } => SYNCHRONIZATION,
        Op::Coll { .. } => GROUP_COMMUNICATION,
        Op::Rma { .. } => REMOTE_MEMORY,
        Op::WinSync { .. } => SYNCHRONIZATION,
        _ => OTHERS,
    }
}

/// A call's event: its type and value (`function`'s id, or the psins `other` id).
pub fn event(op: &Op, function: Option<u32>) -> (u32, u32) {
    let ty = match op {
        Op::Send { .. }
        | Op::Isend { .. }
        | Op::SendInit { .. }
        | Op::Recv { .. }
        | Op::Irecv { .. }
        | Op::RecvInit { .. }
        | Op::Sendrecv { .. }
        | Op::Probe { .. }
        | Op::Start { .. }
        | Op::Startall
        | Op::RequestFree { .. }
        | Op::Cancel { .. }
        | Op::Wait { .. }
        | Op::Poll { .. } => P2P,
        Op::Coll { .. } => COLLECTIVE,
        Op::Rma { .. } | Op::WinSync { .. } | Op::WinCreate { .. } | Op::WinFree { .. } => ONE_SIDED,
        _ => OTHER,
    };
    let value = match (function, op) {
        (Some(id), _) => id,
        (None, Op::Other { func } | Op::OtherReq { func, .. }) => *func,
        // A call the function table cannot name: one value for all of them.
        (None, _) => UNNAMED,
    };
    (ty, value)
}

/// The value of a call without a name in the function table (ids start at 1 in
/// c-headers/mpi_functions.tbl; the table never uses the largest u32).
pub const UNNAMED: u32 = u32::MAX;

/// The name of event value `v`.
pub fn value_name(v: u32) -> String {
    match functions::name_of(v) {
        Some(n) => n.to_string(),
        None if v == UNNAMED => "MPI call (unnamed)".to_string(),
        None => format!("MPI function {v}"),
    }
}
