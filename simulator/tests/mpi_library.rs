//! Whose collective algorithms a replay follows: the library the trace names (metadata
//! `mpi_version`), `mpi.library` over it, MPICH with a warning for any other library, and an
//! unknown `mpi.library` refused with the list of known ones.

use crate::common;

use common::*;
use psins_collectives::{ChoiceBy, Library};
use psins_formats::*;
use psins_sim::source::compact::CompactTrace;
use psins_sim::{simulate, Machine, Options};

/// A reduce of 1000 4-byte elements to rank 0 on 6 ranks, written with `mpi_version`.
fn reduce_trace(version: &str) -> std::path::PathBuf {
    let op = Op::Coll {
        coll: Coll::Reduce,
        comm: COMM_WORLD,
        root: 0,
        send_bytes: 4000,
        recv_bytes: 4000,
        count: 1000,
        flags: CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE,
        req: 0,
        instance: 1,
    };
    let tasks: Vec<Vec<Record>> = (0..6).map(|_| vec![Record::new(0, 0, op), fin()]).collect();
    let path = tmp("reduce.psins");
    let meta = vec![("mpi_version".to_string(), version.to_string())];
    TraceWriter::write_tasks(&path, &tasks, meta, vec![]).unwrap();
    path
}

fn replay_with(path: &std::path::Path, sets: &[&str]) -> psins_sim::Report {
    let mut all = vec!["mpi.collectives=expanded"];
    all.extend_from_slice(sets);
    simulate(CompactTrace::open(path).unwrap(), &machine(&all), Options::default()).unwrap()
}

#[test]
fn the_traces_library_expands_its_collectives() {
    // Open MPI 4.1.4's rule for 6 ranks and 4000 bytes is the binary tree (reduce algorithm
    // 4): each of the 5 other ranks sends its vector once, to its parent.
    let r = replay_with(&reduce_trace("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4"), &[]);
    assert_eq!((r.stats.messages, r.stats.bytes), (5, 5 * 4000));
    let a = &r.assumptions.library;
    assert_eq!((a.library, a.by, a.warning.as_deref()), (Library::OpenMpi, ChoiceBy::Trace, None));
    let json = r.json();
    assert_eq!(json["assumptions"]["mpi_library"]["algorithms"], "Open MPI 4.1.4");
    assert!(r.table().contains("collectives follow Open MPI 4.1.4's algorithms (the trace ran under Open MPI v4.1.4"));

    // MPICH 4.0.2: 4000 bytes > 2048 → Rabenseifner's reduce-scatter and gather.
    let m = replay_with(&reduce_trace("MPICH Version:\t4.0.2"), &[]);
    assert_eq!(m.assumptions.library.library, Library::Mpich);
    assert!(m.stats.messages > 5, "{}", m.stats.messages);

    // mpi.library predicts the Open MPI trace under MPICH.
    let s = replay_with(&reduce_trace("Open MPI v4.1.4"), &["mpi.library=mpich"]);
    assert_eq!((s.stats.messages, s.assumptions.library.by), (m.stats.messages, ChoiceBy::Setting));
}

#[test]
fn another_library_is_replayed_with_mpichs_algorithms_and_a_warning() {
    let r = replay_with(&reduce_trace("Intel(R) MPI Library 2021.10 for Linux* OS"), &[]);
    assert_eq!(r.assumptions.library.library, Library::Mpich);
    let w = r.json()["assumptions"]["mpi_library"]["warning"].as_str().unwrap().to_string();
    assert!(w.contains("Intel(R) MPI Library 2021.10") && w.contains("MPICH 4.0.2"), "{w}");
}

#[test]
fn an_unknown_library_setting_lists_the_known_ones() {
    let sets = vec!["mpi.library=intel".to_string()];
    let e = Machine::from_str(std::path::Path::new("m.toml"), BASE, &sets).unwrap_err().to_string();
    assert!(e.contains("intel") && e.contains("mpich") && e.contains("openmpi"), "{e}");
}
