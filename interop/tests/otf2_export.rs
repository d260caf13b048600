//! psins-export --to otf2 on a trace written through the real writer, read back by
//! `otf2-print` (Debian's otf2-tools): every event counted by hand. Skipped, saying so, when
//! the build has no libotf2 or otf2-print is missing (CI installs both: scripts/setup.sh).

use psins_formats::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("otf2-export-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn write(dir: &Path, tasks: &[Vec<Record>], comms: Vec<CommDef>) -> PathBuf {
    let path = dir.join("t.psins");
    TraceWriter::write_tasks(&path, tasks, vec![("host".into(), "n01".into())], comms).unwrap();
    path
}

fn export(trace: &Path, out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_psins-export"))
        .args(["--to", "otf2", "-q"])
        .arg(trace)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

fn ready() -> bool {
    if let Err(why) = psins_interop::otf2::available() {
        eprintln!("skipped: {why}");
        return false;
    }
    if Command::new("otf2-print").arg("--help").output().is_err() {
        eprintln!("skipped: otf2-print not found (Debian's otf2-tools)");
        return false;
    }
    true
}

const W: u32 = COMM_WORLD;

fn barrier(gap: u64, dur: u64) -> Record {
    let (root, send_bytes, recv_bytes, count, flags, req, instance) = (NO_RANK, 0, 0, 0, 0, 0, 1);
    Record::new(
        gap,
        dur,
        Op::Coll { coll: Coll::Barrier, comm: W, root, send_bytes, recv_bytes, count, flags, req, instance },
    )
}

/// Rank 0 isends 100 B (tag 7) to rank 1, receives 40 B (tag 8), waits, barrier; rank 1 posts
/// a wildcard irecv, sends the 40 B, waits (from 0, tag 7, 100 B), barrier.
pub fn two_ranks() -> Vec<Vec<Record>> {
    let r0 = vec![
        Record::new(100, 50, Op::Init { thread_level: 0 }),
        Record::new(10, 5, Op::Isend { mode: SendMode::Standard, peer: 1, tag: 7, bytes: 100, comm: W, req: 1 }),
        Record::new(20, 30, Op::Recv { peer: 1, tag: 8, bytes: 40, comm: W }),
        Record::new(0, 5, Op::Wait { func: WaitFn::Wait, count: 1 }).with_list(vec![1, NO_RANK as i64, 7, 100]),
        barrier(3, 4),
        Record::new(7, 0, Op::Finalize),
    ];
    let r1 = vec![
        Record::new(90, 40, Op::Init { thread_level: 0 }),
        Record::new(5, 1, Op::Irecv { peer: ANY_SOURCE, tag: ANY_TAG, bytes: 1000, comm: W, req: 1 }),
        Record::new(2, 3, Op::Send { mode: SendMode::Standard, peer: 0, tag: 8, bytes: 40, comm: W }),
        Record::new(1, 9, Op::Wait { func: WaitFn::Wait, count: 1 }).with_list(vec![1, 0, 7, 100]),
        barrier(0, 4),
        Record::new(0, 0, Op::Finalize),
    ];
    vec![r0, r1]
}

/// otf2-print's event lines as (kind, location, time, rest).
fn printed(anchor: &Path) -> Vec<(String, u64, u64, String)> {
    let out = Command::new("otf2-print").arg(anchor).output().unwrap();
    assert!(out.status.success(), "otf2-print: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut events = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() >= 3 && f[0].chars().all(|c| c.is_ascii_uppercase() || c == '_') && f[1].parse::<u64>().is_ok() {
            if let Ok(t) = f[2].parse::<u64>() {
                events.push((f[0].to_string(), f[1].parse().unwrap(), t, f[3..].join(" ")));
            }
        }
    }
    events
}

#[test]
fn otf2_print_reads_every_event_worked_out_by_hand() {
    if !ready() {
        return;
    }
    let dir = scratch("golden");
    let trace = write(&dir, &two_ranks(), vec![]);
    let out = dir.join("otf2");
    let o = export(&trace, &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ev = printed(&out.join("traces.otf2"));
    let of = |loc: u64| ev.iter().filter(|e| e.1 == loc).map(|e| (e.0.as_str(), e.2)).collect::<Vec<_>>();
    // Rank 0: Init at 0; computation [0,10); MPI_Isend [10,15); computation [15,35); MPI_Recv
    // [35,65) with its message at the end; MPI_Wait [65,70); computation [70,73); barrier
    // [73,77); computation [77,84); MPI_Finalize at 84.
    let r0 = [
        ("ENTER", 0),
        ("LEAVE", 0),
        ("ENTER", 0),
        ("LEAVE", 10),
        ("ENTER", 10),
        ("MPI_ISEND", 10),
        ("LEAVE", 15),
        ("ENTER", 15),
        ("LEAVE", 35),
        ("ENTER", 35),
        ("MPI_RECV", 65),
        ("LEAVE", 65),
        ("ENTER", 65),
        ("MPI_ISEND_COMPLETE", 70),
        ("LEAVE", 70),
        ("ENTER", 70),
        ("LEAVE", 73),
        ("ENTER", 73),
        ("MPI_COLLECTIVE_BEGIN", 73),
        ("MPI_COLLECTIVE_END", 77),
        ("LEAVE", 77),
        ("ENTER", 77),
        ("LEAVE", 84),
        ("ENTER", 84),
        ("LEAVE", 84),
    ];
    assert_eq!(of(0), r0);
    let r1 = [
        ("ENTER", 0),
        ("LEAVE", 0),
        ("ENTER", 0),
        ("LEAVE", 5),
        ("ENTER", 5),
        ("MPI_IRECV_REQUEST", 5),
        ("LEAVE", 6),
        ("ENTER", 6),
        ("LEAVE", 8),
        ("ENTER", 8),
        ("MPI_SEND", 8),
        ("LEAVE", 11),
        ("ENTER", 11),
        ("LEAVE", 12),
        ("ENTER", 12),
        ("MPI_IRECV", 21),
        ("LEAVE", 21),
        ("ENTER", 21),
        ("MPI_COLLECTIVE_BEGIN", 21),
        ("MPI_COLLECTIVE_END", 25),
        ("LEAVE", 25),
        ("ENTER", 25),
        ("LEAVE", 25),
    ];
    assert_eq!(of(1), r1);
    assert_eq!(ev.len(), 25 + 23);
    // The message fields as otf2-print shows them.
    let find = |k: &str, loc: u64| ev.iter().find(|e| e.0 == k && e.1 == loc).unwrap().3.clone();
    assert!(
        find("MPI_ISEND", 0).contains("Receiver: 1")
            && find("MPI_ISEND", 0).contains("Tag: 7")
            && find("MPI_ISEND", 0).contains("Length: 100")
    );
    assert!(find("MPI_IRECV", 1).contains("Sender: 0") && find("MPI_IRECV", 1).contains("Length: 100"));
    assert!(find("MPI_COLLECTIVE_END", 0).contains("BARRIER"));
}

/// An output libotf2 cannot write is one error naming it, exit code 3 — not libotf2's own
/// chain of messages on stderr (a dozen lines for one failure), and never a signal. Made to
/// fail twice: a DIR nothing can be created in (/proc/self), and libotf2 running out of file
/// descriptors mid-archive (`ulimit -n`, from the smallest limit the program loads with up to
/// the first that succeeds).
#[test]
fn an_output_libotf2_cannot_write_is_one_error() {
    if !ready() {
        return;
    }
    let dir = scratch("unwritable");
    let trace = write(&dir, &two_ranks(), vec![]);
    let one_error = |o: &std::process::Output, names: &str| {
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "exit status {:?} (None: a signal): {err}", o.status);
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
        assert!(err.starts_with("psins-export: ") && err.contains(names), "names {names}: {err}");
        err.to_string()
    };
    one_error(&export(&trace, Path::new("/proc/self")), "/proc/self/.psins-otf2-");
    let bin = env!("CARGO_BIN_EXE_psins-export");
    let (mut failed_in_libotf2, mut done) = (0, false);
    for limit in 4..=32 {
        let out = dir.join(format!("fds{limit}"));
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -n {limit} && exec \"$0\" --to otf2 -q \"$1\" -o \"$2\""))
            .arg(bin)
            .arg(&trace)
            .arg(&out)
            .output()
            .unwrap();
        if o.status.success() {
            done = true;
            break;
        }
        if String::from_utf8_lossy(&o.stderr).contains("error while loading shared libraries") {
            continue; // too few descriptors to start at all
        }
        let err = one_error(&o, &out.display().to_string());
        assert!(err.contains("Too many opened files"), "libotf2's root cause kept: {err}");
        failed_in_libotf2 += 1;
    }
    assert!(done, "no limit up to 32 descriptors let the export succeed");
    assert!(failed_in_libotf2 > 0, "no descriptor limit made libotf2 fail: the error path went untested");
}

/// An archive in DIR the exporting user cannot replace (its traces/ is not theirs): exit 3
/// naming it, the old archive left whole — not its anchor and definitions replaced and its
/// events not — and no temporary directory left behind. Root may move anything, so as root
/// the export runs as nobody (util-linux's setpriv), in a DIR nobody owns.
#[test]
fn an_archive_that_cannot_be_replaced_is_left_whole() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    if !ready() {
        return;
    }
    let dir = scratch("replace");
    let out = dir.join("o");
    assert!(export(&write(&dir, &two_ranks(), vec![]), &out).status.success());
    let newer = dir.join("newer");
    std::fs::create_dir(&newer).unwrap();
    let mut tasks = two_ranks();
    tasks[0][1].gap_ns += 1000;
    let trace = write(&newer, &tasks, vec![]);
    let as_root = std::fs::metadata(&trace).unwrap().uid() == 0;
    let events = out.join("traces");
    let mut cmd = if as_root {
        if Command::new("setpriv").arg("--help").output().is_err() {
            eprintln!("skipped: running as root and setpriv (util-linux) not found");
            return;
        }
        std::os::unix::fs::chown(&out, Some(65534), Some(65534)).unwrap();
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", env!("CARGO_BIN_EXE_psins-export")]);
        c
    } else {
        std::fs::set_permissions(&events, std::fs::Permissions::from_mode(0o555)).unwrap();
        Command::new(env!("CARGO_BIN_EXE_psins-export"))
    };
    let before: Vec<Vec<u8>> =
        ["traces.otf2", "traces.def"].iter().map(|f| std::fs::read(out.join(f)).unwrap()).collect();
    let o = cmd.args(["--to", "otf2", "-q"]).arg(&trace).arg("-o").arg(&out).output().unwrap();
    if !as_root {
        std::fs::set_permissions(&events, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "exit status {:?} (None: a signal): {err}", o.status);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(&events.display().to_string()), "names {}: {err}", events.display());
    let after: Vec<Vec<u8>> =
        ["traces.otf2", "traces.def"].iter().map(|f| std::fs::read(out.join(f)).unwrap()).collect();
    assert!(before == after, "the old archive's anchor and definitions were replaced");
    let left: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    assert!(!left.iter().any(|n| n.starts_with(".psins-otf2-")), "temporary directory left behind: {left:?}");
    // The trace exported here, not by nobody, does replace it.
    assert!(export(&trace, &out).status.success());
    let replaced = std::fs::read(out.join("traces.def")).unwrap();
    assert!(replaced != before[1], "the newer trace's definitions differ");
}
