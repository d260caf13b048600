//! psins-import --from otf2: an archive written by libotf2 itself (a small C writer compiled
//! here against the library) imported record by record as worked out by hand; our own export
//! re-imported; damaged event files (truncated, bits flipped) refused with one error naming
//! the file and rank, never a panic; small archives (tests/otf2/cases.c) with a rank outside
//! its communicator, or ranks without events. Skipped, saying so, in a build without libotf2.

use psins_formats::*;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::otf2::compile;

use crate::otf2_export as export;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("otf2-import-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ready() -> bool {
    match psins_interop::otf2::available() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("skipped: {why}");
            false
        }
    }
}

fn import(anchor: &Path, out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_psins-import"))
        .args(["--from", "otf2", "-q"])
        .arg(anchor)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

fn records(trace: &Path) -> Vec<Vec<Record>> {
    TraceReader::open(trace).unwrap().read_tasks().unwrap()
}

#[test]
fn an_archive_libotf2_wrote_imports_as_worked_out_by_hand() {
    if !ready() {
        return;
    }
    let dir = scratch("c-writer");
    let exe = dir.join("writer");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/otf2/writer.c");
    let cc = Command::new("cc").arg(&src).arg("-o").arg(&exe).arg("-lotf2").output().unwrap();
    assert!(cc.status.success(), "{}", String::from_utf8_lossy(&cc.stderr));
    let w = Command::new(&exe).arg(dir.join("archive")).output().unwrap();
    assert!(w.status.success(), "{}", String::from_utf8_lossy(&w.stderr));
    let out = dir.join("x.psins");
    let o = import(&dir.join("archive/w.otf2"), &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Ticks are µs (1000 ns) from offset 1000. Rank 0's clock starts when MPI_Init returns
    // (tick 1002): foo [1005,1010] is computation, so MPI_Send begins 10 ticks later.
    let coll = |instance| Op::Coll {
        coll: Coll::Allreduce,
        comm: COMM_WORLD,
        root: NO_RANK,
        send_bytes: 8,
        recv_bytes: 8,
        // No psins::count attribute: a reduction's elements are its bytes.
        count: 8,
        flags: 0,
        req: 0,
        instance,
    };
    let r0 = vec![
        Record::new(0, 0, Op::Init { thread_level: 0 }),
        Record::new(10_000, 3_000, Op::Send { mode: SendMode::Standard, peer: 1, tag: 5, bytes: 64, comm: COMM_WORLD }),
        Record::new(5_000, 10_000, coll(1)),
        Record::new(10_000, 1_000, Op::Finalize),
    ];
    let r1 = vec![
        Record::new(0, 0, Op::Init { thread_level: 0 }),
        Record::new(2_000, 13_000, Op::Recv { peer: 0, tag: 5, bytes: 64, comm: COMM_WORLD }),
        Record::new(5_000, 9_000, coll(1)),
        Record::new(1_000, 2_000, Op::Finalize),
    ];
    assert_eq!(records(&out), vec![r0, r1]);
}

/// Our export of the two-rank trace of otf2_export.rs, imported: the same records but for
/// MPI_Init's own times (outside the span) and the posted receive's wildcards (OTF2 keeps the
/// completion's source, tag and size).
#[test]
fn our_export_imports_back() {
    if !ready() || Command::new("otf2-print").arg("--help").output().is_err() {
        return;
    }
    let dir = scratch("ours");
    let trace = export::write(&dir, &export::two_ranks(), vec![]);
    let o = Command::new(env!("CARGO_BIN_EXE_psins-export"))
        .args(["--to", "otf2", "-q"])
        .arg(&trace)
        .arg("-o")
        .arg(dir.join("o"))
        .output()
        .unwrap();
    assert!(o.status.success());
    let back = dir.join("back.psins");
    let o = import(&dir.join("o/traces.otf2"), &back);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut want = export::two_ranks();
    for t in &mut want {
        t[0] = Record::new(0, 0, Op::Init { thread_level: 0 });
    }
    want[0][3].list = vec![1, NO_RANK as i64, 0, 0];
    want[1][1].op = Op::Irecv { peer: 0, tag: 7, bytes: 100, comm: COMM_WORLD, req: 1 };
    assert_eq!(records(&back), want);
}

/// Truncations and bit flips of a rank's event file: the import fails with one error naming
/// that file and rank (or, for a flip libotf2 reads as other valid data, succeeds), never a
/// panic or a crash.
#[test]
fn damaged_event_files_are_refused_with_one_error() {
    if !ready() {
        return;
    }
    let dir = scratch("fuzz");
    let trace = export::write(&dir, &export::two_ranks(), vec![]);
    let o = Command::new(env!("CARGO_BIN_EXE_psins-export"))
        .args(["--to", "otf2", "-q"])
        .arg(&trace)
        .arg("-o")
        .arg(dir.join("o"))
        .output()
        .unwrap();
    assert!(o.status.success());
    let evt = dir.join("o/traces/1.evt");
    let good = std::fs::read(&evt).unwrap();
    let mut cases: Vec<Vec<u8>> = (0..good.len()).step_by(3).map(|n| good[..n].to_vec()).collect();
    let mut seed = 0x2545F4914F6CDD1Du64;
    for _ in 0..60 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut b = good.clone();
        let at = (seed % (8 * b.len() as u64)) as usize;
        b[at / 8] ^= 1 << (at % 8);
        cases.push(b);
    }
    let (mut refused, mut read) = (0, 0);
    for (i, bytes) in cases.iter().enumerate() {
        std::fs::write(&evt, bytes).unwrap();
        let o = import(&dir.join("o/traces.otf2"), &dir.join("x.psins"));
        let err = String::from_utf8_lossy(&o.stderr);
        match o.status.code() {
            Some(0) => read += 1,
            Some(1) => {
                refused += 1;
                assert_eq!(err.trim().lines().count(), 1, "case {i}: one error line: {err}");
                assert!(err.contains("1.evt") && err.contains("rank 1"), "case {i}: names file and rank: {err}");
            }
            other => panic!("case {i}: exit {other:?}: {err}"),
        }
    }
    assert!(refused > 0, "no damage was noticed ({read} read)");
}

/// tests/otf2/cases.c, compiled once.
fn cases_writer() -> PathBuf {
    compile::writer("cases", || scratch("cases-writer"))
}

/// The archive of `case` (cases.c) naming rank `peer`: its anchor file.
fn case(name: &str, peer: u32) -> PathBuf {
    let dir = scratch(&format!("{name}-{peer}"));
    let w = Command::new(cases_writer()).arg(dir.join("a")).arg(name).arg(peer.to_string()).output().unwrap();
    assert!(w.status.success(), "cases {name} {peer}: {}", String::from_utf8_lossy(&w.stderr));
    dir.join("a/c.otf2")
}

/// Exit 1 with one line holding every one of `want`.
fn refused(anchor: &Path, want: &[&str]) {
    let out = anchor.with_file_name("x.psins");
    let o = import(anchor, &out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    for w in want {
        assert!(err.contains(w), "{w:?} not in {err}");
    }
    assert!(!out.exists(), "no trace written");
}

/// A receiver, sender or root that is no rank of the event's communicator was written into
/// the trace as it was (a send to rank 7 of a one-rank run); now one error naming the event
/// file, the rank, and the event by index, kind and tick. The same archives naming rank 0
/// import.
#[test]
fn a_rank_outside_its_communicator_is_one_error_naming_the_event() {
    if !ready() {
        return;
    }
    for (name, peer, event, what) in [
        ("send", 7, 3, "MpiSend at tick 30: receiver 7 is outside communicator 0 (size 1)"),
        ("recv", 7, 3, "MpiRecv at tick 40: sender 7 is outside communicator 0 (size 1)"),
        ("isend", 7, 3, "MpiIsend at tick 30: receiver 7 is outside communicator 0 (size 1)"),
        ("irecv", 7, 6, "MpiIrecv at tick 60: sender 7 is outside communicator 0 (size 1)"),
        ("root", 7, 4, "MpiCollectiveEnd at tick 40: root 7 is outside communicator 0 (size 1)"),
        // Rank 1 is in the world of two, not in communicator 2 = {0}.
        ("subsend", 1, 3, "MpiSend at tick 30: receiver 1 is outside communicator 2 (size 1)"),
    ] {
        let anchor = case(name, peer);
        let evt = anchor.with_extension("").join("0.evt");
        refused(&anchor, &[&format!("{}: rank 0: event {event}: {what}", evt.display())]);
        let good = case(name, 0);
        let o = import(&good, &good.with_file_name("x.psins"));
        assert!(o.status.success(), "{name} with rank 0: {}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn a_communicator_defined_with_a_rank_beyond_the_archive_is_refused() {
    if !ready() {
        return;
    }
    let anchor = case("member", 7);
    let want = format!("{}: the definitions' communicator 2 lists rank 7; the archive has 1 rank", anchor.display());
    refused(&anchor, &[&want]);
}

/// Score-P's OpenMP thread teams are communicators of another paradigm, whose members are
/// threads: left out, where they were taken for MPI communicators of ranks 0 to 3.
#[test]
fn another_paradigms_communicators_are_left_out() {
    if !ready() {
        return;
    }
    let anchor = case("team", 0);
    let out = anchor.with_file_name("x.psins");
    let o = import(&anchor, &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r0 = vec![Record::new(0, 0, Op::Init { thread_level: 0 }), Record::new(80, 10, Op::Finalize)];
    assert_eq!(records(&out), vec![r0]);
    assert_eq!(TraceReader::open(&out).unwrap().header.comms.len(), 1, "the world only");
}

/// A location without events imported as a rank holding one made-up MPI_Finalize; now an
/// empty rank, with a warning naming it, and an archive of empty ranks only is refused.
#[test]
fn ranks_without_events_are_empty_ranks_and_an_archive_of_them_is_refused() {
    if !ready() {
        return;
    }
    let anchor = case("half", 0);
    let out = anchor.with_file_name("x.psins");
    let o = import(&anchor, &out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let evt = anchor.with_extension("").join("1.evt");
    let warning = format!(
        "psins-import: warning: 1 of 2 ranks hold no MPI call, written as empty ranks (no records): 1 (rank 1: {})",
        evt.display()
    );
    assert_eq!(err.trim_end(), warning);
    // Rank 0: MPI_Init [10,20] ns, MPI_Finalize [100,110] ns.
    let r0 = vec![Record::new(0, 0, Op::Init { thread_level: 0 }), Record::new(80, 10, Op::Finalize)];
    assert_eq!(records(&out), vec![r0, vec![]]);
    let anchor = case("empty", 0);
    refused(
        &anchor,
        &[&format!("{}: no rank holds an MPI call (2 ranks, all empty): nothing to import", anchor.display())],
    );
}

/// An empty rank that other ranks' events need (a member of a communicator they use, or
/// their message's peer): the archive lacks its events. It was refused by consolidation's
/// "communicator definitions disagree" (naming rank 0's file and creations the importer had
/// made up), or, for a message to it on the world, imported and replayed with a send to no
/// one; now one error naming the archive, both ranks, the communicator and the event. A
/// message to a rank with calls, beside the empty rank, imports.
#[test]
fn an_empty_rank_other_ranks_need_is_one_error_naming_both() {
    if !ready() {
        return;
    }
    for (name, peer, tail) in [
        (
            "subcoll",
            0,
            "communicator 2, which rank 0 uses in MPI_Allreduce at event 4 of EVT (MpiCollectiveEnd at tick 40)",
        ),
        (
            "tosub",
            2,
            "communicator 2, which rank 0 uses in MPI_Send at event 3 of EVT (MpiSend at tick 30, receiver 2)",
        ),
        // Rank 0 sends to rank 1 on communicator 2 = {0, 1, 2}: its creation needed rank 2.
        (
            "tosub",
            1,
            "communicator 2, which rank 0 uses in MPI_Send at event 3 of EVT (MpiSend at tick 30, receiver 1)",
        ),
        (
            "toworld",
            2,
            "communicator 0, which rank 0 uses in MPI_Send at event 3 of EVT (MpiSend at tick 30, receiver 2)",
        ),
        (
            "worldcoll",
            0,
            "communicator 0, which rank 0 uses in MPI_Allreduce at event 4 of EVT (MpiCollectiveEnd at tick 40)",
        ),
        (
            "subcreate",
            0,
            "communicator 2, which rank 0 uses in MPI_Comm_split at event 4 of EVT (MpiCollectiveEnd at tick 40)",
        ),
        (
            "fromworld",
            2,
            "communicator 0, which rank 0 uses in MPI_Recv at event 3 of EVT (MpiRecv at tick 40, sender 2)",
        ),
        ("subdef", 0, "communicator 2 with rank 0, which holds calls (a communicator's members create it together)"),
    ] {
        let anchor = case(name, peer);
        let dir = anchor.with_extension("");
        let tail = tail.replace("EVT", &dir.join("0.evt").display().to_string());
        let want = format!(
            "psins-import: {}: rank 2 holds no MPI call ({}) but is a member of {tail}: the archive is incomplete",
            anchor.display(),
            dir.join("2.evt").display()
        );
        let out = anchor.with_file_name("x.psins");
        let o = import(&anchor, &out);
        assert_eq!(o.status.code(), Some(1), "{name} {peer}");
        assert_eq!(String::from_utf8_lossy(&o.stderr).trim_end(), want, "{name} {peer}");
        assert!(!out.exists(), "{name} {peer}: no trace written");
    }
    let anchor = case("toworld", 1);
    let out = anchor.with_file_name("x.psins");
    let o = import(&anchor, &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let send = Op::Send { mode: SendMode::Standard, peer: 1, tag: 1, bytes: 8, comm: COMM_WORLD };
    let r0 = vec![
        Record::new(0, 0, Op::Init { thread_level: 0 }),
        Record::new(10, 10, send),
        Record::new(60, 10, Op::Finalize),
    ];
    let r1 = vec![Record::new(0, 0, Op::Init { thread_level: 0 }), Record::new(80, 10, Op::Finalize)];
    assert_eq!(records(&out), vec![r0, r1, vec![]]);
}
