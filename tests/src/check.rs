//! What the tracer must have recorded, from the app's own counts: the record kinds each MPI
//! function writes (from the one table, `c-headers/mpi_functions.tbl`) and the common check
//! of an app's log against what it counted.

use crate::*;
use psins_formats::how::{Hand, How, Posting};
use psins_formats::{Kind, LogEnd, Op};
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

/// THE mapping from MPI functions to record kinds, derived from the one table of MPI
/// signatures (`c-headers/mpi_functions.tbl`): the table says how each function is handled,
/// this says which records that handling writes.
pub fn kinds_of_how(how: How) -> &'static [Kind] {
    match how {
        How::HandWritten(Hand::Init | Hand::InitThread) => &[Kind::Init],
        How::HandWritten(Hand::Finalize) => &[Kind::Finalize],
        How::HandWritten(Hand::Abort) => &[Kind::Abort],
        How::HandWritten(Hand::Pcontrol) => &[Kind::Pcontrol],
        How::Send(Posting::Blocking, _) => &[Kind::Send],
        How::Send(Posting::Nonblocking, _) => &[Kind::Isend],
        How::Send(Posting::Persistent, _) => &[Kind::SendInit],
        How::Recv(Posting::Blocking) | How::Mrecv { nonblocking: false } => &[Kind::Recv],
        How::Recv(Posting::Nonblocking) | How::Mrecv { nonblocking: true } => &[Kind::Irecv],
        How::Recv(Posting::Persistent) => &[Kind::RecvInit],
        How::Sendrecv { nonblocking: false, .. } => &[Kind::Sendrecv],
        How::Sendrecv { nonblocking: true, .. } => &[Kind::Isend, Kind::Irecv],
        How::Probe { .. } => &[Kind::Probe],
        How::Start => &[Kind::Start],
        How::Startall => &[Kind::Startall],
        How::RequestFree => &[Kind::RequestFree],
        How::Cancel => &[Kind::Cancel],
        How::Wait(_) => &[Kind::Wait],
        How::Coll(_) => &[Kind::Coll],
        How::CommNew(_) => &[Kind::CommCreate],
        How::CommFree => &[Kind::CommFree],
        How::Other | How::OtherComm => &[Kind::Other],
        How::OtherReq => &[Kind::OtherReq],
        How::CommIdup => &[Kind::OtherReq, Kind::CommCreate],
        How::Rma { .. } => &[Kind::Rma],
        How::WinCreate(_) => &[Kind::WinCreate],
        How::WinFree => &[Kind::WinFree],
        How::WinSync(_) => &[Kind::WinSync],
        How::Count | How::None => &[],
    }
}

/// name -> how, from the table (`psins_formats::functions`, read from it at build time).
pub fn table() -> &'static HashMap<String, How> {
    static T: OnceLock<HashMap<String, How>> = OnceLock::new();
    T.get_or_init(|| {
        psins_formats::functions::FUNCTIONS
            .iter()
            .map(|&(_, name, entry)| {
                let how = How::parse(entry.trim_end_matches(" +f08")).unwrap_or_else(|e| panic!("{name}: {e}"));
                (name.to_string(), how)
            })
            .collect()
    })
}

pub fn expected_kinds(calls: &BTreeMap<String, u64>) -> BTreeMap<Kind, u64> {
    let mut m = BTreeMap::new();
    for (name, n) in calls {
        let how = table().get(name).unwrap_or_else(|| panic!("{name} is not in mpi_functions.tbl"));
        for k in kinds_of_how(*how) {
            *m.entry(*k).or_insert(0) += n;
        }
    }
    m
}

/// Records per kind, steps apart; a `poll` record counts as the calls it folds, under the
/// kind of their unfolded records (`wait` or `probe`).
pub fn recorded_kinds(log: &Log) -> BTreeMap<Kind, u64> {
    let mut m = BTreeMap::new();
    for r in &log.records {
        match r.op.unfold_poll() {
            Some((one, calls)) => *m.entry(one.kind()).or_insert(0) += calls,
            None if r.kind() != Kind::Step => *m.entry(r.kind()).or_insert(0) += 1,
            None => {}
        }
    }
    m
}

/// Messages/bytes sent and received according to the log.
pub fn p2p_of(log: &Log) -> BTreeMap<String, u64> {
    let (mut sm, mut sb, mut rm, mut rb) = (0u64, 0u64, 0u64, 0u64);
    let mut persistent_send: HashMap<u32, u64> = HashMap::new();
    for r in &log.records {
        match r.op {
            Op::Send { peer, bytes, .. } | Op::Isend { peer, bytes, .. } if peer >= 0 => {
                sm += 1;
                sb += bytes;
            }
            Op::SendInit { peer, bytes, req, .. } if peer >= 0 => {
                persistent_send.insert(req, bytes);
            }
            Op::Start { req } => {
                if let Some(b) = persistent_send.get(&req) {
                    sm += 1;
                    sb += b;
                }
            }
            Op::Startall => {
                for q in &r.list {
                    if let Some(b) = persistent_send.get(&(*q as u32)) {
                        sm += 1;
                        sb += b;
                    }
                }
            }
            Op::Recv { peer, bytes, .. } if peer >= 0 => {
                rm += 1;
                rb += bytes;
            }
            Op::Sendrecv { peer, bytes, src, rbytes, .. } => {
                if peer >= 0 {
                    sm += 1;
                    sb += bytes;
                }
                if src >= 0 {
                    rm += 1;
                    rb += rbytes;
                }
            }
            Op::Wait { .. } => {
                for q in r.list.chunks(4) {
                    if q[1] >= 0 {
                        rm += 1;
                        rb += q[3] as u64;
                    }
                }
            }
            _ => {}
        }
    }
    [("sent_msgs", sm), ("sent_bytes", sb), ("recv_msgs", rm), ("recv_bytes", rb)]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

/// The common check: per-kind record counts and p2p totals equal what the app counted.
pub fn check_app(name: &str, n: u32, args: &[&str]) -> (Run, Vec<Log>) {
    check_app_env(name, n, args, &[])
}

/// [`check_app`] with extra environment variables for the run.
pub fn check_app_env(name: &str, n: u32, args: &[&str], env: &[(&str, &str)]) -> (Run, Vec<Log>) {
    let run = run_traced(name, n, args, env);
    run.ok();
    let logs = read_logs(&run, n);
    let app = parse_app(&run.stdout, "PSINS_COUNTS");
    assert_eq!(app.len(), n as usize, "PSINS_COUNTS lines:\n{}", run.stdout);
    for (rank, log) in logs.iter().enumerate() {
        assert_eq!(log.end, LogEnd::Complete, "{name} rank {rank}");
        let counts = &app[&(rank as u32)];
        assert_eq!(
            recorded_kinds(log),
            expected_kinds(&counts.calls),
            "{name} at {n} ranks, rank {rank}: record kinds vs the app's own counts {:?}",
            counts.calls
        );
        assert_eq!(p2p_of(log), counts.p2p, "{name} at {n} ranks, rank {rank}: point-to-point totals");
        // every collective is expanded, except neighbourhood ones, which are counted apart
        let file = std::fs::read_to_string(run.job_dir().join(format!("counts-{rank:06}.txt"))).unwrap();
        let neighbour = log
            .records
            .iter()
            .filter(|r| matches!(r.op, Op::Coll { coll, .. } if coll.name().starts_with("Neighbor")))
            .count();
        assert!(file.contains("# collectives whose expansion failed: 0\n"), "{name} rank {rank}:\n{file}");
        assert!(
            file.contains("# events of a kind or code the tracer core does not know: 0\n"),
            "{name} rank {rank}: the shim sent codes the core does not know:\n{file}"
        );
        let line = format!("# neighbourhood collectives (recorded, never expanded): {neighbour}\n");
        assert!(file.contains(&line), "{name} rank {rank}: expected {line:?} in\n{file}");
        // receives never record wildcards
        for r in &log.records {
            if let Op::Recv { peer, tag, .. } = r.op {
                assert!(peer != -1 && tag != -1, "{name}: wildcard in {:?}", r.op);
            }
        }
    }
    (run, logs)
}
