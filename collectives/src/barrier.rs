//! `MPIR_Barrier_intra_dissemination` (barrier/barrier_intra_dissemination.c), which the
//! flat 4.0.2 table selects for every intra-communicator (the k-dissemination of later
//! releases with k = 2 exchanges the same messages).

use crate::steps::sendrecv;
use crate::{CollArgs, Step};

/// ⌈log2 P⌉ rounds; in round k every rank sends an empty message 2^k ranks ahead and
/// receives one from 2^k ranks behind.
pub(crate) fn expand(a: &CollArgs, out: &mut Vec<Step>) -> &'static str {
    let (p, r) = (a.size as u64, a.rank as u64);
    let mut mask = 1;
    while mask < p {
        sendrecv(out, (r + mask) % p, 0, (r + p - mask) % p, 0);
        mask <<= 1;
    }
    "barrier_dissemination"
}
