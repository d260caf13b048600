//! psins-import --from otf2 on the sequence Score-P writes (tests/otf2/scorep.c reproduces it
//! event for event through libotf2; Score-P itself is not built here): MPI_Initialized before
//! MPI_Init and MPI_Finalized after MPI_Finalize, which refused the whole trace at its first
//! event ("MPI_Init after the first MPI call"), fold; so do the compiler, user and OpenMP
//! regions, a MeasurementOnOff pair and a BufferFlush, counted in the summary; a second thread
//! of rank 0 is not read, with one warning. A call that communicates before MPI_Init or after
//! MPI_Finalize is refused. Skipped, saying so, in a build without libotf2.

use psins_formats::*;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::otf2::compile;

fn ready() -> bool {
    match psins_interop::otf2::available() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("skipped: {why}");
            false
        }
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("otf2-scorep-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// tests/otf2/scorep.c, compiled once.
fn writer() -> PathBuf {
    compile::writer("scorep", || scratch("writer"))
}

/// The archive of `variant` (scorep.c): its anchor file.
fn archive(variant: &str) -> PathBuf {
    let dir = scratch(variant);
    let w = Command::new(writer()).arg(dir.join("a")).arg(variant).output().unwrap();
    assert!(w.status.success(), "scorep {variant}: {}", String::from_utf8_lossy(&w.stderr));
    dir.join("a/s.otf2")
}

fn import(anchor: &Path, out: &Path, quiet: bool) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_psins-import"));
    c.args(["--from", "otf2"]);
    if quiet {
        c.arg("-q");
    }
    c.arg(anchor).arg("-o").arg(out).output().unwrap()
}

/// Both ranks' records, worked out by hand from scorep.c's ticks (ns): rank 0's span starts
/// when MPI_Init returns (30), MPI_Send [60,70] (foo, the OpenMP region and the measurement's
/// pause between), MPI_Finalize [90,100]; rank 1's at 28, MPI_Recv [50,72], MPI_Finalize
/// [90,101]. MPI_Initialized and MPI_Finalized are no records.
fn want() -> Vec<Vec<Record>> {
    let send = Op::Send { mode: SendMode::Standard, peer: 1, tag: 3, bytes: 16, comm: COMM_WORLD };
    let recv = Op::Recv { peer: 0, tag: 3, bytes: 16, comm: COMM_WORLD };
    vec![
        vec![
            Record::new(0, 0, Op::Init { thread_level: 0 }),
            Record::new(30, 10, send),
            Record::new(20, 10, Op::Finalize),
        ],
        vec![
            Record::new(0, 0, Op::Init { thread_level: 0 }),
            Record::new(22, 22, recv),
            Record::new(18, 11, Op::Finalize),
        ],
    ]
}

const THREADS: &str = "psins-import: warning: 1 location besides the ranks' is not read (other threads; the first: \
                       location 4294967296, in rank 0's process): each rank's MPI calls are its master thread's, the \
                       other threads' events are folded into its computation";

#[test]
fn scoreps_sequence_imports_with_its_folds_counted() {
    if !ready() {
        return;
    }
    // Without the MPI COMM_LOCATIONS group the ranks are each process's first location: the
    // same ranks, and the same thread left out.
    for variant in ["scorep", "nolocs"] {
        let anchor = archive(variant);
        let out = anchor.with_file_name("x.psins");
        let o = import(&anchor, &out, false);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{variant}: {err}");
        let trace = TraceReader::open(&out).unwrap().read_tasks().unwrap();
        assert_eq!(trace, want(), "{variant}");
        let lines: Vec<&str> = err.trim_end().lines().collect();
        assert_eq!(
            lines,
            [
                format!("psins-import: 2 ranks, 6 records -> {}", out.display()).as_str(),
                THREADS,
                "psins-import: warning: 3 calls without communication before MPI_Init or after MPI_Finalize folded \
                 (MPI_Finalized 1, MPI_Initialized 2)",
                // main on both ranks; on rank 0 foo, the parallel region (its master thread's),
                // MEASUREMENT OFF's pair of events and one flush.
                "psins-import: 7 regions and measurement events besides MPI folded into computation (BufferFlush 1, \
                 MeasurementOnOff 2, OpenMP regions 1, compiler regions 2, user regions 1)",
            ],
            "{variant}"
        );
        // -q keeps the thread warning only (as it keeps the empty-rank one).
        let o = import(&anchor, &out, true);
        assert!(o.status.success());
        assert_eq!(String::from_utf8_lossy(&o.stderr).trim_end(), THREADS, "{variant} -q");
    }
}

/// MPI_Send before MPI_Init is refused as before (at MPI_Init, naming its Enter, event 6);
/// after MPI_Finalize, at the call (event 17). No output either time.
#[test]
fn a_call_that_communicates_outside_init_and_finalize_is_refused() {
    if !ready() {
        return;
    }
    for (variant, want) in [
        ("sendfirst", "event 6: MPI_Init after the first MPI call"),
        (
            "sendlast",
            "event 17: MPI_Send after MPI_Finalize (only calls without communication, such as MPI_Finalized, may \
             follow it)",
        ),
    ] {
        let anchor = archive(variant);
        let out = anchor.with_file_name("x.psins");
        let o = import(&anchor, &out, true);
        let evt = anchor.with_extension("").join("0.evt");
        assert_eq!(o.status.code(), Some(1), "{variant}");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr).trim_end(),
            format!("psins-import: {}: rank 0: {want}", evt.display()),
            "{variant}"
        );
        assert!(!out.exists(), "{variant}: no trace written");
    }
}
