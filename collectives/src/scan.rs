//! MPI_Scan and MPI_Exscan: `MPIR_Scan_intra_recursive_doubling` and
//! `MPIR_Exscan_intra_recursive_doubling` (scan/, exscan/). Both exchange the running
//! partial result with r XOR 1, r XOR 2, … while that partner exists.

use crate::steps::sendrecv;
use crate::{CollArgs, Step, NOOP};

/// `send_bytes` is the whole vector, `count` its element count.
pub(crate) fn expand(a: &CollArgs, out: &mut Vec<Step>, name: &'static str) -> &'static str {
    if a.count == 0 {
        return NOOP; // MPI_Scan and MPI_Exscan return before selecting when count is 0
    }
    let (p, r, n) = (a.size as u64, a.rank as u64, a.send_bytes);
    let mut mask = 1;
    while mask < p {
        let dst = r ^ mask;
        if dst < p {
            sendrecv(out, dst, n, dst, n);
        }
        mask <<= 1;
    }
    name
}
