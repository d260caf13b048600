//! The `<how>` column of `c-headers/mpi_functions.tbl`: how the tracer handles a function,
//! typed. The table's words are parsed here once; the wrapper generator, the coverage page
//! and the tests' oracle match on [`How`], so a new kind is a compile error wherever it
//! must be handled.

use crate::record::{Coll, CommFn, RmaFn, SendMode, WaitFn, WinFn, WinSyncFn};
use std::fmt;

/// A table word that is not a [`How`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownHow {
    pub word: String,
}

impl fmt::Display for UnknownHow {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "unknown kind `{}`", self.word)
    }
}

impl std::error::Error for UnknownHow {}

/// How the tracer handles one MPI function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum How {
    /// Not wrapped (handle conversions, `MPI_Wtime`: no time, no interest).
    None,
    /// Wrapped, counted only (a cheap local query); totals written at the end.
    Count,
    /// An `other` record with the function's id.
    Other,
    /// An `other_req` record; the request it returns gets a request id.
    OtherReq,
    /// An `other` record; the communicator it returns is registered.
    OtherComm,
    /// An `other_req` record, then the new communicator's `comm_create` (idup).
    CommIdup,
    /// A wrapper written by hand in `c-headers/shim.c`.
    HandWritten(Hand),
    /// `send:MODE`, `isend:MODE`, `send_init:MODE`.
    Send(Posting, SendMode),
    /// `recv`, `irecv`, `recv_init`.
    Recv(Posting),
    /// `mrecv`, `imrecv`: the receive of a matched probe.
    Mrecv {
        nonblocking: bool,
    },
    /// `sendrecv`, `sendrecv_replace`, `isendrecv`, `isendrecv_replace`.
    Sendrecv {
        nonblocking: bool,
        replace: bool,
    },
    /// `probe`, `iprobe`, `mprobe`, `improbe`.
    Probe {
        nonblocking: bool,
        matched: bool,
    },
    Start,
    Startall,
    RequestFree,
    Cancel,
    /// `wait`, `waitall`, … `testsome`.
    Wait(WaitFn),
    /// `coll:NAME`: a collective (nonblocking when the function's name starts with `MPI_I`).
    Coll(Coll),
    /// `comm_new:FN`: a communicator constructor.
    CommNew(CommFn),
    CommFree,
    /// `put`, `get`, … and, with a request, `rput`, `rget`, `raccumulate`, `rget_accumulate`.
    Rma {
        op: RmaFn,
        request: bool,
    },
    /// `win_fence`, `win_post`, … `win_sync`.
    WinSync(WinSyncFn),
    /// `win_create`, `win_allocate`, `win_allocate_shared`, `win_create_dynamic`.
    WinCreate(WinFn),
    WinFree,
}

/// The functions whose wrappers are written by hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hand {
    Init,
    InitThread,
    Finalize,
    Abort,
    Pcontrol,
}

/// Blocking, nonblocking (`i…`) or persistent (`…_init`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Posting {
    Blocking,
    Nonblocking,
    Persistent,
}

const HANDS: [(Hand, &str); 5] = [
    (Hand::Init, "init"),
    (Hand::InitThread, "init_thread"),
    (Hand::Finalize, "finalize"),
    (Hand::Abort, "abort"),
    (Hand::Pcontrol, "pcontrol"),
];
const SEND_MODES: [(SendMode, &str); 4] = [
    (SendMode::Standard, "std"),
    (SendMode::Synchronous, "sync"),
    (SendMode::Ready, "ready"),
    (SendMode::Buffered, "buffered"),
];

/// A name of the vocabulary in snake case (`GetAccumulate` → `get_accumulate`), as the table,
/// machine files and Open MPI's sources spell them.
pub fn snake(name: &str) -> String {
    let mut s = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            s.push('_');
        }
        s.push(c.to_ascii_lowercase());
    }
    s
}

/// A collective's name as MPI spells it after `MPI_` (`ReduceScatterBlock` →
/// `Reduce_scatter_block`).
pub fn mpi_name(name: &str) -> String {
    let s = snake(name);
    let mut c = s.chars();
    c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
}

fn posting(p: Posting, word: &str) -> String {
    match p {
        Posting::Blocking => word.to_string(),
        Posting::Nonblocking => format!("i{word}"),
        Posting::Persistent => format!("{word}_init"),
    }
}

impl How {
    /// The table's word before the `:` (`send`, `waitall`, `win_flush`): also the stem of the
    /// shim's hook for it (`h_waitall`).
    pub fn kind(&self) -> String {
        match *self {
            How::None => "none".into(),
            How::Count => "count".into(),
            How::Other => "other".into(),
            How::OtherReq => "other_req".into(),
            How::OtherComm => "other_comm".into(),
            How::CommIdup => "comm_idup".into(),
            How::HandWritten(h) => HANDS.iter().find(|(x, _)| *x == h).map(|(_, w)| w.to_string()).unwrap_or_default(),
            How::Send(p, _) => posting(p, "send"),
            How::Recv(p) => posting(p, "recv"),
            How::Mrecv { nonblocking } => if nonblocking { "imrecv" } else { "mrecv" }.into(),
            How::Sendrecv { nonblocking, replace } => {
                format!("{}sendrecv{}", if nonblocking { "i" } else { "" }, if replace { "_replace" } else { "" })
            }
            How::Probe { nonblocking, matched } => {
                format!("{}{}probe", if nonblocking { "i" } else { "" }, if matched { "m" } else { "" })
            }
            How::Start => "start".into(),
            How::Startall => "startall".into(),
            How::RequestFree => "request_free".into(),
            How::Cancel => "cancel".into(),
            How::Wait(w) => w.name().to_ascii_lowercase(),
            How::Coll(_) => "coll".into(),
            How::CommNew(_) => "comm_new".into(),
            How::CommFree => "comm_free".into(),
            How::Rma { op, request } => format!("{}{}", if request { "r" } else { "" }, snake(op.name())),
            How::WinSync(w) => format!("win_{}", snake(w.name())),
            How::WinCreate(w) => format!("win_{}", snake(w.name())),
            How::WinFree => "win_free".into(),
        }
    }

    /// The word after the `:`, if the kind takes one (`sync`, `Allreduce`, `CartCreate`).
    pub fn argument(&self) -> Option<String> {
        match *self {
            How::Send(_, m) => SEND_MODES.iter().find(|(x, _)| *x == m).map(|(_, w)| w.to_string()),
            How::Coll(c) => Some(mpi_name(c.name())),
            How::CommNew(f) => Some(f.name().to_string()),
            _ => None,
        }
    }

    /// Every kind without an argument, and each kind with one at each of its arguments.
    pub fn all() -> Vec<How> {
        let mut v = vec![How::None, How::Count, How::Other, How::OtherReq, How::OtherComm, How::CommIdup];
        v.extend(HANDS.iter().map(|&(h, _)| How::HandWritten(h)));
        for p in [Posting::Blocking, Posting::Nonblocking, Posting::Persistent] {
            v.extend(SEND_MODES.iter().map(|&(m, _)| How::Send(p, m)));
            v.push(How::Recv(p));
        }
        for nonblocking in [false, true] {
            v.push(How::Mrecv { nonblocking });
            for b in [false, true] {
                v.push(How::Sendrecv { nonblocking, replace: b });
                v.push(How::Probe { nonblocking, matched: b });
            }
        }
        v.extend([How::Start, How::Startall, How::RequestFree, How::Cancel, How::CommFree, How::WinFree]);
        v.extend(WaitFn::ALL.iter().map(|&w| How::Wait(w)));
        v.extend(Coll::ALL.iter().map(|&c| How::Coll(c)));
        // Idup has its own kind; Other is what the tracer records for a constructor it does
        // not know, never a table entry.
        v.extend(CommFn::ALL.iter().filter(|f| !matches!(f, CommFn::Idup | CommFn::Other)).map(|&f| How::CommNew(f)));
        v.extend(RmaFn::ALL.iter().map(|&op| How::Rma { op, request: false }));
        // The request forms of MPI-3's one-sided calls exist for four of the six.
        let requested = |op: &RmaFn| !matches!(op, RmaFn::FetchAndOp | RmaFn::CompareAndSwap);
        v.extend(RmaFn::ALL.iter().filter(|op| requested(op)).map(|&op| How::Rma { op, request: true }));
        v.extend(WinSyncFn::ALL.iter().map(|&w| How::WinSync(w)));
        v.extend(WinFn::ALL.iter().map(|&w| How::WinCreate(w)));
        v
    }

    /// Reads a table word (`send:sync`, `coll:Allreduce`, `waitall`).
    pub fn parse(word: &str) -> Result<How, UnknownHow> {
        How::all().into_iter().find(|h| h.to_string() == word).ok_or_else(|| UnknownHow { word: word.to_string() })
    }

    /// Written by hand in `c-headers/shim.c`, not generated.
    pub fn is_hand_written(&self) -> bool {
        matches!(self, How::HandWritten(_))
    }

    /// Only counts calls or records an `other` record: reads no output argument, so it can
    /// wrap a function whatever it returns. Every other kind reads what the call wrote, which
    /// only a returned `MPI_SUCCESS` makes valid: it needs an `int`.
    pub fn reads_no_output(&self) -> bool {
        matches!(self, How::None | How::Count | How::Other)
    }
}

impl fmt::Display for How {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.argument() {
            Some(a) => write!(f, "{}:{a}", self.kind()),
            None => f.write_str(&self.kind()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_back_as_themselves_and_name_the_hooks() {
        let all = How::all();
        for h in &all {
            assert_eq!(How::parse(&h.to_string()), Ok(*h), "{h}");
        }
        let words: Vec<String> = all.iter().map(How::to_string).collect();
        for w in [
            "send:sync",
            "isend:std",
            "send_init:buffered",
            "recv_init",
            "imrecv",
            "isendrecv_replace",
            "improbe",
            "testsome",
            "coll:Reduce_scatter_block",
            "coll:Neighbor_alltoallw",
            "comm_new:DistGraphCreateAdjacent",
            "rget_accumulate",
            "compare_and_swap",
            "win_flush_local_all",
            "win_allocate_shared",
            "pcontrol",
        ] {
            assert!(words.iter().any(|x| x == w), "{w} missing");
        }
        assert_eq!(How::parse("waitall").unwrap().kind(), "waitall");
        assert_eq!(How::parse("coll:Allreduce"), Ok(How::Coll(Coll::Allreduce)));
        for bad in ["frobnicate", "send:fast", "coll:", "coll:Allreduce2", "rfetch_and_op", "comm_new:Idup"] {
            assert!(How::parse(bad).is_err(), "{bad}");
        }
    }
}
