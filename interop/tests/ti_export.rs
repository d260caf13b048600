//! psins-export --to ti on traces written through the real writer: exact action files
//! (hand-derived), the tag contexts, and one clear error with the right exit code for each
//! kind of bad input or output.

use psins_formats::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("ti-export-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, tasks: &[Vec<Record>], comms: Vec<CommDef>) -> PathBuf {
    let path = dir.join("t.psins");
    TraceWriter::write_tasks(&path, tasks, vec![], comms).unwrap();
    path
}

fn export(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_psins-export")).args(args).output().unwrap()
}

fn run_ok(trace: &Path, out: &Path) {
    let o = export(&["--to".as_ref(), "ti".as_ref(), trace.as_os_str(), "-o".as_ref(), out.as_os_str(), "-q".as_ref()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn rec(gap_ns: u64, op: Op) -> Record {
    Record::new(gap_ns, 5, op)
}

const W: u32 = COMM_WORLD;

fn barrier(instance: u32, comm: u32) -> Op {
    Op::Coll {
        coll: Coll::Barrier,
        comm,
        root: NO_RANK,
        send_bytes: 0,
        recv_bytes: 0,
        count: 0,
        flags: 0,
        req: 0,
        instance,
    }
}

/// Two ranks: a blocking message, a wildcard receive resolved by its completion, an `Other`
/// call's time folded into the burst, a barrier without steps in the trace (generated: MPICH's
/// dissemination barrier at 2 ranks is one sendrecv with the other rank, 0 bytes).
#[test]
fn two_ranks_exact_actions() {
    let dir = scratch("exact");
    let t0 = vec![
        rec(777, Op::Init { thread_level: 0 }),
        rec(1000, Op::Send { mode: SendMode::Standard, peer: 1, tag: 5, bytes: 100, comm: W }),
        rec(500, Op::Irecv { peer: ANY_SOURCE, tag: ANY_TAG, bytes: 64, comm: W, req: 1 }),
        rec(20, Op::Other { func: 3 }),
        rec(30, Op::Wait { func: WaitFn::Wait, count: 1 }).with_list(vec![1, 1, 9, 32]),
        rec(40, barrier(1, W)),
        rec(2000, Op::Finalize),
    ];
    let t1 = vec![
        rec(0, Op::Init { thread_level: 0 }),
        rec(10, Op::Recv { peer: 0, tag: 5, bytes: 100, comm: W }),
        rec(0, Op::Isend { mode: SendMode::Standard, peer: 0, tag: 9, bytes: 32, comm: W, req: 1 }),
        rec(0, Op::Wait { func: WaitFn::Waitall, count: 1 }).with_list(vec![1, NO_RANK as i64, 9, 32]),
        rec(0, barrier(1, W)),
        rec(0, Op::Finalize),
    ];
    let trace = write(&dir, &[t0, t1], vec![]);
    let out = dir.join("ti");
    run_ok(&trace, &out);
    let c = 1u32 << 30; // the world's collective context: the first tag the table hands out
    let r0 = std::fs::read_to_string(out.join("rank-0.ti")).unwrap();
    // Init's own gap is left out (every rank starts at MPI_Init, as in psins-sim); the
    // Other call's gap + duration (20 + 5 ns) joins the wait's 30 ns burst.
    let want0 = format!(
        "0 init\n0 compute 1000\n0 send 1 5 100\n0 compute 500\n0 irecv 1 9 32\n0 compute 55\n0 wait 1 0 9\n\
         0 compute 40\n0 isend 1 {c} 0\n0 irecv 1 {c} 0\n0 wait 0 1 {c}\n0 wait 1 0 {c}\n0 compute 2000\n0 finalize\n"
    );
    assert_eq!(r0, want0);
    let r1 = std::fs::read_to_string(out.join("rank-1.ti")).unwrap();
    let want1 = format!(
        "1 init\n1 compute 10\n1 recv 0 5 100\n1 isend 0 9 32\n1 wait 1 0 9\n\
         1 isend 0 {c} 0\n1 irecv 0 {c} 0\n1 wait 1 0 {c}\n1 wait 0 1 {c}\n1 finalize\n"
    );
    assert_eq!(r1, want1);
    let list = std::fs::read_to_string(out.join("replay.txt")).unwrap();
    let abs = out.canonicalize().unwrap();
    assert_eq!(list, format!("{}\n{}\n", abs.join("rank-0.ti").display(), abs.join("rank-1.ti").display()));
}

/// Steps traced after a collective are exported as they are (a batch waits at its WaitAll);
/// messages on another communicator get tags of their own context, with comm-local peers
/// turned into world ranks; --host-speed scales compute.
#[test]
fn traced_steps_and_communicator_contexts() {
    let dir = scratch("steps");
    // Communicator 2 = world ranks [1, 0] (reversed).
    let comms = vec![CommDef::intra(2, vec![1, 0])];
    let create =
        |_r: u32| rec(0, Op::CommCreate { func: CommFn::Split, parent: W, comm: 2, split: 0 }).with_list(vec![1, 0]);
    let step = |op, peer| rec(0, Op::Step { instance: 1, op, peer, bytes: 8, peer2: NO_RANK, bytes2: 0 });
    let wall =
        rec(0, Op::Step { instance: 1, op: StepOp::WaitAll, peer: NO_RANK, bytes: 0, peer2: NO_RANK, bytes2: 0 });
    let mut tasks = Vec::new();
    for r in 0..2u32 {
        let me_on_2 = 1 - r as i32; // world rank 0 is rank 1 of communicator 2
        tasks.push(vec![
            rec(0, Op::Init { thread_level: 0 }),
            create(r),
            rec(1500, barrier(1, 2)),
            step(StepOp::ISend, 1 - me_on_2),
            step(StepOp::IRecv, 1 - me_on_2),
            wall.clone(),
            rec(0, Op::Send { mode: SendMode::Standard, peer: 1 - me_on_2, tag: 3, bytes: 1, comm: 2 }).clone(),
            rec(0, Op::Finalize),
        ]);
    }
    // Make rank 1 receive instead of sending the last message.
    tasks[1][6] = rec(0, Op::Recv { peer: 1, tag: 3, bytes: 1, comm: 2 });
    let trace = write(&dir, &tasks, comms);
    let out = dir.join("ti");
    let o = export(&[
        "--to".as_ref(),
        "ti".as_ref(),
        trace.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "--host-speed".as_ref(),
        "2e9".as_ref(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (c, p) = (1u32 << 30, (1u32 << 30) + 1);
    let r0 = std::fs::read_to_string(out.join("rank-0.ti")).unwrap();
    assert_eq!(
        r0,
        format!(
            "0 init\n0 compute 3000\n0 isend 1 {c} 8\n0 irecv 1 {c} 8\n0 wait 0 1 {c}\n0 wait 1 0 {c}\n\
             0 send 1 {p} 1\n0 finalize\n"
        )
    );
    let r1 = std::fs::read_to_string(out.join("rank-1.ti")).unwrap();
    assert!(r1.contains(&format!("1 recv 0 {p} 1\n")), "{r1}");
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn records_ti_cannot_express_are_one_error_naming_file_rank_and_record() {
    let dir = scratch("refuse");
    let rma = Op::Rma { func: RmaFn::Put, target: 0, win: 1, bytes: 8, rbytes: 0, req: 0 };
    let ibarrier = Op::Coll {
        coll: Coll::Barrier,
        comm: W,
        root: NO_RANK,
        send_bytes: 0,
        recv_bytes: 0,
        count: 0,
        flags: CollFlags::NONBLOCKING,
        req: 1,
        instance: 1,
    };
    for (op, what) in [(rma, "one-sided"), (ibarrier, "nonblocking collectives"), (Op::Cancel { req: 1 }, "MPI_Cancel")]
    {
        let t = vec![rec(0, Op::Init { thread_level: 0 }), rec(0, Op::Finalize)];
        let bad = vec![rec(0, Op::Init { thread_level: 0 }), rec(0, op), rec(0, Op::Finalize)];
        let trace = write(&dir, &[t, bad], vec![]);
        let out = dir.join("ti");
        let o = export(&["--to".as_ref(), "ti".as_ref(), trace.as_os_str(), "-o".as_ref(), out.as_os_str()]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains("t.psins: rank 1, record 1") && e.contains(what), "{e}");
        // Nothing half-written is left behind.
        assert!(!out.join("rank-0.ti").exists() && !out.join("replay.txt").exists());
    }
    // A wildcard receive that never completes has no source to name.
    let t0 = vec![
        rec(0, Op::Init { thread_level: 0 }),
        rec(0, Op::Irecv { peer: ANY_SOURCE, tag: 1, bytes: 4, comm: W, req: 1 }),
    ];
    let trace = write(&dir, &[t0], vec![]);
    let o = export(&["--to".as_ref(), "ti".as_ref(), trace.as_os_str(), "-o".as_ref(), dir.join("w").as_os_str()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("rank 0, record 1") && stderr(&o).contains("wildcard"), "{}", stderr(&o));
}

#[test]
fn damaged_trace_bad_output_and_bad_usage_exit_codes() {
    let dir = scratch("codes");
    let t = vec![rec(0, Op::Init { thread_level: 0 }), rec(10, Op::Finalize)];
    let trace = write(&dir, &[t.clone(), t], vec![]);
    // Truncated: exit 1, one message naming the file.
    let bytes = std::fs::read(&trace).unwrap();
    let cut = dir.join("cut.psins");
    std::fs::write(&cut, &bytes[..bytes.len() - 9]).unwrap();
    let o = export(&["--to".as_ref(), "ti".as_ref(), cut.as_os_str(), "-o".as_ref(), dir.join("x").as_os_str()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("cut.psins"), "{}", stderr(&o));
    // The output directory is a regular file: exit 3.
    let file = dir.join("plain");
    std::fs::write(&file, "x").unwrap();
    let o = export(&["--to".as_ref(), "ti".as_ref(), trace.as_os_str(), "-o".as_ref(), file.as_os_str()]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    // An unknown format, a bad host speed: exit 2.
    let y = dir.join("y");
    for extra in [["--to", "otf9"], ["--host-speed", "-1"]] {
        let mut a: Vec<&std::ffi::OsStr> = vec![trace.as_os_str(), "-o".as_ref(), y.as_os_str()];
        if extra[0] != "--to" {
            a.extend(["--to".as_ref(), "ti".as_ref()] as [&std::ffi::OsStr; 2]);
        }
        a.extend([extra[0].as_ref(), extra[1].as_ref()] as [&std::ffi::OsStr; 2]);
        let o = export(&a);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    }
    // A good export still works, and the ranks' files are there.
    let out = dir.join("ok");
    run_ok(&trace, &out);
    assert_eq!(std::fs::read_to_string(out.join("rank-1.ti")).unwrap(), "1 init\n1 compute 10\n1 finalize\n");
}

/// A collective traced without its steps is expanded with the algorithms of the library the
/// trace ran under, as psins-sim replays it: a reduce of 4,000 bytes to rank 0 on 6 ranks is
/// Open MPI 4.1.4's binary tree (each other rank sends once, 5 sends in all), and MPICH 4.0.2's
/// Rabenseifner reduce-scatter and gather (more).
#[test]
fn collectives_without_steps_follow_the_traces_library() {
    let sends = |version: &str| {
        let dir = scratch(&format!("library-{}", version.len()));
        let op = Op::Coll {
            coll: Coll::Reduce,
            comm: W,
            root: 0,
            send_bytes: 4000,
            recv_bytes: 4000,
            count: 1000,
            flags: CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE,
            req: 0,
            instance: 1,
        };
        let tasks: Vec<Vec<Record>> = (0..6).map(|_| vec![rec(0, op), rec(0, Op::Finalize)]).collect();
        let path = dir.join("t.psins");
        TraceWriter::write_tasks(&path, &tasks, vec![("mpi_version".to_string(), version.to_string())], vec![])
            .unwrap();
        let out = dir.join("ti");
        let o = export(&["--to".as_ref(), "ti".as_ref(), path.as_os_str(), "-o".as_ref(), out.as_os_str()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let n: usize = (0..6)
            .map(|r| {
                let t = std::fs::read_to_string(out.join(format!("rank-{r}.ti"))).unwrap();
                t.lines().filter(|l| l.split(' ').nth(1).is_some_and(|a| a == "send" || a == "isend")).count()
            })
            .sum();
        (n, String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let (n, note) = sends("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4");
    assert_eq!(n, 5, "{note}");
    assert!(
        note.contains("6 collectives had no expansion steps in the trace: expanded with Open MPI 4.1.4's"),
        "{note}"
    );
    let (n, note) = sends("MPICH Version:\t4.0.2");
    assert!(n > 5, "{n}: {note}");
    assert!(note.contains("expanded with MPICH 4.0.2's"), "{note}");
}
