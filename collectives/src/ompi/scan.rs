//! Open MPI's scan and exscan: coll/basic's `mca_coll_basic_scan_intra` and
//! `mca_coll_basic_exscan_intra` (`coll_basic_scan.c`, `coll_basic_exscan.c`), which call
//! the linear chains of coll/base (`coll_base_scan.c`, `coll_base_exscan.c`). Every message
//! is the whole vector, `send_bytes`.

use crate::steps::{recv, send};
use crate::{CollArgs, ExpandError, Step};

/// `ompi_coll_base_scan_intra_linear` and `ompi_coll_base_exscan_intra_linear`: the same
/// chain of messages — a rank receives the prefix of the ranks before it from rank − 1 (none
/// at rank 0) and sends it, combined with its own vector, to rank + 1 (none at the last rank).
pub(super) fn scan(a: &CollArgs, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    chain(a, out);
    Ok("ompi_scan_basic_linear")
}

pub(super) fn exscan(a: &CollArgs, out: &mut Vec<Step>) -> Result<&'static str, ExpandError> {
    chain(a, out);
    Ok("ompi_exscan_basic_linear")
}

fn chain(a: &CollArgs, out: &mut Vec<Step>) {
    let (p, r, n) = (a.size as u64, a.rank as u64, a.send_bytes);
    if r > 0 {
        recv(out, r - 1, n);
    }
    if r + 1 < p {
        send(out, r + 1, n);
    }
}
