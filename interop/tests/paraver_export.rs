//! psins-export --to paraver on a trace written through the real writer: every .prv line
//! worked out by hand, the side files, and the errors.

use psins_formats::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("prv-export-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, tasks: &[Vec<Record>]) -> PathBuf {
    let path = dir.join("t.psins");
    TraceWriter::write_tasks(&path, tasks, vec![("host".into(), "n01".into())], vec![]).unwrap();
    path
}

fn export(trace: &Path, out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_psins-export"))
        .args(["--to", "paraver", "-q"])
        .arg(trace)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

const W: u32 = COMM_WORLD;

fn barrier() -> Op {
    let (root, send_bytes, recv_bytes, count, flags, req, instance) = (NO_RANK, 0, 0, 0, 0, 0, 1);
    Op::Coll { coll: Coll::Barrier, comm: W, root, send_bytes, recv_bytes, count, flags, req, instance }
}

/// Rank 0 isends 100 B (tag 7) to rank 1, receives 40 B (tag 8) from it, waits for its
/// isend; rank 1 posts a wildcard irecv, sends the 40 B, waits (its completion says: from 0,
/// tag 7, 100 B); both meet in a barrier. Each rank's clock starts when MPI_Init returns.
#[test]
fn every_line_as_worked_out_by_hand() {
    let dir = scratch("golden");
    let r0 = vec![
        Record::new(100, 50, Op::Init { thread_level: 0 }),
        // burst [0,10), isend [10,15)
        Record::new(10, 5, Op::Isend { mode: SendMode::Standard, peer: 1, tag: 7, bytes: 100, comm: W, req: 1 }),
        // burst [15,35), recv [35,65)
        Record::new(20, 30, Op::Recv { peer: 1, tag: 8, bytes: 40, comm: W }),
        // wait [65,70)
        Record::new(0, 5, Op::Wait { func: WaitFn::Wait, count: 1 }).with_list(vec![1, NO_RANK as i64, 7, 100]),
        // burst [70,100), barrier [100,110), burst [110,115) to MPI_Finalize
        Record::new(30, 10, barrier()),
        Record::new(5, 99, Op::Finalize),
    ];
    let r1 = vec![
        Record::new(0, 50, Op::Init { thread_level: 0 }),
        // irecv [0,2)
        Record::new(0, 2, Op::Irecv { peer: ANY_SOURCE, tag: ANY_TAG, bytes: 200, comm: W, req: 1 }),
        // burst [2,10), send [10,14)
        Record::new(8, 4, Op::Send { mode: SendMode::Standard, peer: 0, tag: 8, bytes: 40, comm: W }),
        // burst [14,20), wait [20,40): the irecv's message arrived
        Record::new(6, 20, Op::Wait { func: WaitFn::Wait, count: 1 }).with_list(vec![1, 0, 7, 100]),
        // burst [40,100), barrier [100,110), MPI_Finalize at once
        Record::new(60, 10, barrier()),
        Record::new(0, 7, Op::Finalize),
    ];
    let trace = write(&dir, &[r0, r1]);
    let o = export(&trace, &dir.join("x.prv"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let prv = std::fs::read_to_string(dir.join("x.prv")).unwrap();
    let mut lines = prv.lines();
    let head = lines.next().unwrap();
    assert!(head.starts_with("#Paraver (") && head.ends_with("):115_ns:1(2):1:2(1:1,1:1)"), "{head}");
    let body: Vec<&str> = lines.collect();
    let f = |n: &str| functions::id(n);
    let (p2p, coll) = (50000001, 50000002);
    let want0 = vec![
        "1:1:1:1:1:0:10:1".to_string(),
        // the message to rank 1: sent in [10,15), posted there at 0, arrived at 40
        "3:1:1:1:1:10:15:2:1:2:1:0:40:100:7".to_string(),
        format!("2:1:1:1:1:10:{p2p}:{}", f("MPI_Isend")),
        "1:1:1:1:1:10:15:10".to_string(),
        format!("2:1:1:1:1:15:{p2p}:0"),
        "1:1:1:1:1:15:35:1".to_string(),
        format!("2:1:1:1:1:35:{p2p}:{}", f("MPI_Recv")),
        "1:1:1:1:1:35:65:3".to_string(),
        format!("2:1:1:1:1:65:{p2p}:0"),
        format!("2:1:1:1:1:65:{p2p}:{}", f("MPI_Wait")),
        "1:1:1:1:1:65:70:8".to_string(),
        format!("2:1:1:1:1:70:{p2p}:0"),
        "1:1:1:1:1:70:100:1".to_string(),
        format!("2:1:1:1:1:100:{coll}:{}", f("MPI_Barrier")),
        "1:1:1:1:1:100:110:5".to_string(),
        format!("2:1:1:1:1:110:{coll}:0"),
        "1:1:1:1:1:110:115:1".to_string(),
    ];
    let want1 = vec![
        format!("2:2:1:2:1:0:{p2p}:{}", f("MPI_Irecv")),
        "1:2:1:2:1:0:2:11".to_string(),
        format!("2:2:1:2:1:2:{p2p}:0"),
        "1:2:1:2:1:2:10:1".to_string(),
        // the message to rank 0: sent in [10,14), its recv posted at 35, done at 65
        "3:2:1:2:1:10:14:1:1:1:1:35:65:40:8".to_string(),
        format!("2:2:1:2:1:10:{p2p}:{}", f("MPI_Send")),
        "1:2:1:2:1:10:14:4".to_string(),
        format!("2:2:1:2:1:14:{p2p}:0"),
        "1:2:1:2:1:14:20:1".to_string(),
        format!("2:2:1:2:1:20:{p2p}:{}", f("MPI_Wait")),
        "1:2:1:2:1:20:40:8".to_string(),
        format!("2:2:1:2:1:40:{p2p}:0"),
        "1:2:1:2:1:40:100:1".to_string(),
        format!("2:2:1:2:1:100:{coll}:{}", f("MPI_Barrier")),
        "1:2:1:2:1:100:110:5".to_string(),
        format!("2:2:1:2:1:110:{coll}:0"),
    ];
    let of =
        |cpu: &str| body.iter().filter(|l| l.split(':').nth(1) == Some(cpu)).map(|l| l.to_string()).collect::<Vec<_>>();
    assert_eq!(of("1"), want0);
    assert_eq!(of("2"), want1);
    assert_eq!(body.len(), want0.len() + want1.len());
    // Paraver reads records in time order.
    let t: Vec<u64> = body.iter().map(|l| l.split(':').nth(5).unwrap().parse().unwrap()).collect();
    assert!(t.windows(2).all(|w| w[0] <= w[1]), "{t:?}");

    let pcf = std::fs::read_to_string(dir.join("x.pcf")).unwrap();
    assert!(pcf.contains("UNITS               NANOSEC"), "{pcf}");
    for name in ["MPI_Isend", "MPI_Irecv", "MPI_Send", "MPI_Recv", "MPI_Wait", "MPI_Barrier"] {
        assert!(pcf.contains(&format!("{}   {name}\n", f(name))), "{name} in\n{pcf}");
    }
    assert!(pcf.contains("0    50000001    MPI Point-to-point") && pcf.contains("11   Immediate Receive"), "{pcf}");
    let row = std::fs::read_to_string(dir.join("x.row")).unwrap();
    assert!(
        row.starts_with("LEVEL CPU SIZE 2\n1.n01\n2.n01\n")
            && row.contains("LEVEL THREAD SIZE 2\nTHREAD 1.1.1 (rank 0)\n"),
        "{row}"
    );
}

#[test]
fn bad_outputs_and_inputs_are_one_error_each() {
    let dir = scratch("bad");
    let trace = write(&dir, &[vec![Record::new(0, 0, Op::Init { thread_level: 0 }), Record::new(3, 0, Op::Finalize)]]);
    // stdout cannot take three files
    let o = export(&trace, Path::new("-"));
    assert_eq!(o.status.code(), Some(3), "{}", String::from_utf8_lossy(&o.stderr));
    // a directory that cannot be made (/proc takes none, even from root)
    let o = export(&trace, Path::new("/proc/psins-no-such/x.prv"));
    assert_eq!(o.status.code(), Some(3), "{}", String::from_utf8_lossy(&o.stderr));
    // not a trace
    std::fs::write(dir.join("junk.psins"), b"not a trace").unwrap();
    let o = export(&dir.join("junk.psins"), &dir.join("j.prv"));
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("junk.psins") && e.lines().count() == 1, "{e}");
    assert!(!dir.join("j.prv").exists() && !dir.join("j.pcf").exists());
    // a peer outside its communicator: file, rank and record named
    let bad = vec![
        Record::new(0, 0, Op::Init { thread_level: 0 }),
        Record::new(0, 0, Op::Send { mode: SendMode::Standard, peer: 5, tag: 0, bytes: 1, comm: W }),
        Record::new(0, 0, Op::Finalize),
    ];
    let sub = scratch("bad-peer");
    let trace = write(&sub, &[bad]);
    let o = export(&trace, &sub.join("p.prv"));
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("t.psins: rank 0, record 1") && e.contains("peer 5 is outside communicator"), "{e}");
}
