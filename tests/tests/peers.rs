//! psins-consolidate's check of the ranks each record names, on real logs (apps traced under
//! real mpirun): as traced they consolidate — MPI_ANY_SOURCE, MPI_PROC_NULL, MPI_ROOT and an
//! intercommunicator's remote ranks are all valid — and a log with one record damaged
//! (rewritten through the format crate's encoder) is refused with one message naming the log,
//! the rank and the record, exit 1, where it used to pass and fail only at replay.

use psins_e2e::*;
use psins_formats::{LogEncoder, Op, Record, ANY_SOURCE, COMM_SELF, NO_RANK, PROC_NULL};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The run's logs copied into a fresh directory, `rank`'s with `edit` applied to its records.
fn damaged(run: &Run, rank: u32, edit: impl Fn(&mut [Record])) -> (PathBuf, PathBuf) {
    let d = scratch("peers-damaged");
    let mut target = PathBuf::new();
    for p in run.logs() {
        let to = d.join(p.file_name().unwrap());
        let log = read_log(&p);
        if log.header.rank != rank {
            std::fs::copy(&p, &to).unwrap();
            continue;
        }
        let mut recs = log.records;
        edit(&mut recs);
        let mut out = Vec::new();
        log.header.write(&mut out);
        let mut enc = LogEncoder::new();
        for r in &recs {
            enc.push(&mut out, r);
        }
        enc.finish(&mut out);
        std::fs::write(&to, out).unwrap();
        target = to;
    }
    (d, target)
}

/// psins-consolidate on `dir`: its exit code and stderr.
fn consolidate(dir: &Path) -> (Option<i32>, String) {
    let out = dir.join("t.psins");
    let o = Command::new(tool("psins-consolidate")).arg(dir).arg("-o").arg(&out).arg("--quiet").output().unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// Real logs with every sentinel a peer or root can hold consolidate: the intercomm app's
/// MPI_ROOT (written as none) and MPI_PROC_NULL roots and its sends to remote ranks, the
/// requests app's MPI_Iprobe from MPI_ANY_SOURCE.
#[test]
fn real_logs_with_wildcards_and_remote_ranks_consolidate() {
    need_mpi!();
    let run = run_traced("intercomm", 4, &[], &[]);
    run.ok();
    let logs = read_logs(&run, 4);
    let roots: Vec<i32> = logs
        .iter()
        .flat_map(|l| &l.records)
        .filter_map(|r| match r.op {
            Op::Coll { comm, root, .. } if comm > COMM_SELF => Some(root),
            _ => None,
        })
        .collect();
    assert!(roots.contains(&NO_RANK) && roots.contains(&PROC_NULL) && roots.contains(&0), "{roots:?}");
    let (code, e) = consolidate(&run.job_dir());
    assert_eq!((code, e.as_str()), (Some(0), ""));

    let run = run_traced("requests", 2, &[], &[]);
    run.ok();
    let any = read_logs(&run, 2).iter().flat_map(|l| &l.records).any(|r| match r.op {
        Op::Poll { func, peer, .. } => func.is_probe() && peer == ANY_SOURCE,
        Op::Probe { peer, .. } => peer == ANY_SOURCE,
        _ => false,
    });
    assert!(any, "no MPI_Iprobe from MPI_ANY_SOURCE in the requests app's logs");
    let (code, e) = consolidate(&run.job_dir());
    assert_eq!((code, e.as_str()), (Some(0), ""));
}

/// World rank 1 is in group 1 of the intercomm app ({2, 1}); its remote group is {0, 3}, two
/// ranks. A send to remote rank 2, a bcast rooted at remote rank 2, and a sendrecv on a
/// communicator the rank never made are each one error naming rank 1's log and the record.
#[test]
fn a_damaged_real_log_names_the_file_rank_and_record() {
    need_mpi!();
    let run = run_traced("intercomm", 4, &[], &[]);
    run.ok();
    let log = read_log(&run.logs()[1]);
    assert_eq!(log.header.rank, 1);
    // the intercommunicator: rank 1's first comm_create with two groups
    let inter = log.records.iter().find_map(|r| match r.op {
        Op::CommCreate { comm, split: 1.., .. } => Some(comm),
        _ => None,
    });
    let inter = inter.expect("an intercommunicator");
    let first = |f: &dyn Fn(&Op) -> bool| log.records.iter().position(|r| f(&r.op)).expect("record");
    let isend = first(&|op| matches!(*op, Op::Isend { comm, .. } if comm == inter));
    let bcast = first(&|op| matches!(*op, Op::Coll { comm, root: 0, .. } if comm == inter));
    let sendrecv = first(&|op| matches!(op, Op::Sendrecv { .. }));
    // (the record's index, how it is damaged, the error it must give)
    type Case = (usize, Box<dyn Fn(&mut Op)>, String);
    let cases: [Case; 3] = [
        (
            isend,
            Box::new(|op| {
                if let Op::Isend { peer, .. } = op {
                    *peer = 2
                }
            }),
            format!("peer 2 is outside the remote group of intercommunicator {inter} (size 2)"),
        ),
        (
            bcast,
            Box::new(|op| {
                if let Op::Coll { root, .. } = op {
                    *root = 2
                }
            }),
            format!("root 2 is outside the remote group of intercommunicator {inter} (size 2)"),
        ),
        (
            sendrecv,
            Box::new(|op| {
                if let Op::Sendrecv { comm, .. } = op {
                    *comm = 99
                }
            }),
            "uses communicator 99, which this rank never created".to_string(),
        ),
    ];
    for (idx, edit, what) in cases {
        let (d, p) = damaged(&run, 1, |recs| edit(&mut recs[idx].op));
        let (code, e) = consolidate(&d);
        assert_eq!(code, Some(1), "{e}");
        assert_eq!(e, format!("psins-consolidate: {}: rank 1, record {idx}: {what}\n", p.display()));
        assert!(!d.join("t.psins").exists());
    }
}
