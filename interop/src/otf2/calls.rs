//! What an MPI region of an OTF2 trace is, by its name: the psins operation it becomes once
//! the events inside it give the peers and sizes. Built from the function table's own mapping
//! (`functions::of_op`), so the names agree with the exporter's.

use psins_formats::{functions, Coll, CollFlags, CommFn, Op, RmaFn, SendMode, WaitFn, WinFn, WinSyncFn};
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    Init,
    Finalize,
    Send(SendMode),
    Isend(SendMode),
    Recv,
    Irecv,
    Sendrecv(bool),
    Wait(WaitFn),
    /// A blocking collective by name (OTF2's operation says which; this only refuses the
    /// nonblocking ones).
    Coll {
        nonblocking: bool,
    },
    CommCreate(CommFn),
    CommFree,
    /// A one-sided operation; whether it is a request form (MPI_Rput...).
    Rma(RmaFn, bool),
    WinSync(WinSyncFn),
    WinCreate(WinFn),
    WinFree,
    Other(u32),
}

impl Call {
    /// A one-sided call: an operation, a window's synchronisation, creation or freeing.
    pub fn is_one_sided(self) -> bool {
        matches!(self, Call::Rma(..) | Call::WinSync(_) | Call::WinCreate(_) | Call::WinFree)
    }
}

/// The call named `name`; None for a name the function table does not know.
pub fn of(name: &str) -> Option<Call> {
    static TABLE: OnceLock<FxHashMap<&'static str, Call>> = OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut t = FxHashMap::default();
        let mut add = |op: Op, call: Call| {
            if let Some(n) = functions::of_op(&op).and_then(functions::name_of) {
                t.insert(n, call);
            }
        };
        let (peer, tag, bytes, comm, req) = (0, 0, 0, 0, 1);
        add(Op::Init { thread_level: 0 }, Call::Init);
        add(Op::Finalize, Call::Finalize);
        for &mode in SendMode::ALL {
            add(Op::Send { mode, peer, tag, bytes, comm }, Call::Send(mode));
            add(Op::Isend { mode, peer, tag, bytes, comm, req }, Call::Isend(mode));
        }
        add(Op::Recv { peer, tag, bytes, comm }, Call::Recv);
        add(Op::Irecv { peer, tag, bytes, comm, req }, Call::Irecv);
        for replace in [false, true] {
            let op = Op::Sendrecv { peer, tag, bytes, src: 0, rtag: 0, rbytes: 0, comm, replace };
            add(op, Call::Sendrecv(replace));
        }
        for &func in WaitFn::ALL {
            add(Op::Wait { func, count: 1 }, Call::Wait(func));
        }
        for &coll in Coll::ALL {
            for nb in [false, true] {
                let flags = if nb { CollFlags::NONBLOCKING } else { 0 };
                let (root, send_bytes, recv_bytes, count, instance) = (0, 0, 0, 0, 1);
                let op = Op::Coll { coll, comm, root, send_bytes, recv_bytes, count, flags, req, instance };
                add(op, Call::Coll { nonblocking: nb });
            }
        }
        for &func in CommFn::ALL {
            add(Op::CommCreate { func, parent: 0, comm: 2, split: 0 }, Call::CommCreate(func));
        }
        add(Op::CommFree { comm: 2 }, Call::CommFree);
        for &func in RmaFn::ALL {
            // The plain form last: fetch_and_op and compare_and_swap, which have no request
            // form, are named the same either way.
            for req in [1, 0] {
                let op = Op::Rma { func, target: 0, win: 0, bytes: 0, rbytes: 0, req };
                add(op, Call::Rma(func, req != 0));
            }
        }
        for &func in WinSyncFn::ALL {
            add(Op::WinSync { func, win: 0, rank: 0, flags: 0 }, Call::WinSync(func));
        }
        for &func in WinFn::ALL {
            add(Op::WinCreate { func, comm: 0, win: 0 }, Call::WinCreate(func));
        }
        add(Op::WinFree { win: 0 }, Call::WinFree);
        t
    });
    if let Some(&c) = t.get(name) {
        return Some(c);
    }
    if name == "MPI_Init_thread" {
        return Some(Call::Init);
    }
    functions::id_of(name).map(Call::Other)
}

/// Whether the function named `name` communicates nothing: a local query or setting, which
/// c-headers/mpi_functions.tbl has the tracer count only (`count`) or not wrap (`none`):
/// MPI_Initialized, MPI_Finalized, MPI_Get_version, MPI_Get_library_version,
/// MPI_Query_thread, the MPI_T_ tool interface, MPI_Comm_rank, MPI_Wtime... The MPI standard
/// lets a process call such functions before MPI_Init and after MPI_Finalize (Score-P's ranks
/// call MPI_Initialized and MPI_Finalized there).
pub fn local(name: &str) -> bool {
    functions::FUNCTIONS.iter().any(|&(_, n, how)| n == name && matches!(how.split(' ').next(), Some("count" | "none")))
}

#[cfg(test)]
mod tests {
    #[test]
    fn local_calls_are_the_tables_count_and_none() {
        for f in ["MPI_Initialized", "MPI_Finalized", "MPI_Get_version", "MPI_Get_library_version", "MPI_Query_thread"]
        {
            assert!(super::local(f), "{f}");
        }
        for f in ["MPI_Init", "MPI_Finalize", "MPI_Send", "MPI_Barrier", "MPI_Comm_split", "MPI_Win_fence"] {
            assert!(!super::local(f), "{f}");
        }
    }
}
