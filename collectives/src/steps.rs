//! Pushing steps. Algorithms compute ranks as `u64` (so that `rank + mask` cannot overflow);
//! every peer they emit is below the communicator size, which fits in `u32`.

use crate::Step;

pub(crate) fn send(out: &mut Vec<Step>, peer: u64, bytes: u64) {
    out.push(Step::Send { peer: peer as u32, bytes });
}

pub(crate) fn recv(out: &mut Vec<Step>, peer: u64, bytes: u64) {
    out.push(Step::Recv { peer: peer as u32, bytes });
}

pub(crate) fn sendrecv(out: &mut Vec<Step>, to: u64, send_bytes: u64, from: u64, recv_bytes: u64) {
    out.push(Step::SendRecv { send_peer: to as u32, send_bytes, recv_peer: from as u32, recv_bytes });
}

/// The pattern MPICH uses where empty messages are skipped: send and/or receive only the
/// non-empty halves, posting both at once when both remain.
pub(crate) fn exchange_nonempty(out: &mut Vec<Step>, to: u64, send_bytes: u64, from: u64, recv_bytes: u64) {
    match (send_bytes > 0, recv_bytes > 0) {
        (true, true) => sendrecv(out, to, send_bytes, from, recv_bytes),
        (true, false) => send(out, to, send_bytes),
        (false, true) => recv(out, from, recv_bytes),
        (false, false) => {}
    }
}

pub(crate) fn isend(out: &mut Vec<Step>, peer: u64, bytes: u64) {
    out.push(Step::ISend { peer: peer as u32, bytes });
}

pub(crate) fn irecv(out: &mut Vec<Step>, peer: u64, bytes: u64) {
    out.push(Step::IRecv { peer: peer as u32, bytes });
}

/// Closes the batch posted since the last `WaitAll`, if it posted anything (MPICH waits on
/// zero requests too, which costs nothing and is left out).
pub(crate) fn waitall(out: &mut Vec<Step>) {
    if out.last().is_some_and(|s| s.is_posting()) {
        out.push(Step::WaitAll);
    }
}
