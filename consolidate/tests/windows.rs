//! psins-consolidate on one-sided records (logs written with the real encoder): each rank's
//! window ids become one global id per window, and an unbalanced epoch is one error naming
//! the file, the rank and the record.

use psins_formats::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("psins-cons-win-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write_log(d: &Path, rank: u32, recs: &[Record]) -> PathBuf {
    let h = LogHeader { rank, world_size: 2, job_id: 7, clock: "test".into(), ..Default::default() };
    let mut out = Vec::new();
    h.write(&mut out);
    let mut enc = LogEncoder::new();
    for r in recs {
        enc.push(&mut out, r);
    }
    enc.finish(&mut out);
    let p = d.join(format!("rank-{rank:06}.bin"));
    std::fs::write(&p, out).unwrap();
    p
}

fn rec(op: Op) -> Record {
    Record::new(10, 20, op)
}

/// Two windows over world; rank 1 numbers them 4 and 9 (as if it had freed others first).
/// Each rank locks the other exclusively, puts 64 bytes, unlocks.
fn program(rank: u32, unlock: bool) -> Vec<Record> {
    let (a, b) = if rank == 0 { (0, 1) } else { (4, 9) };
    let peer = 1 - rank as i32;
    let mut v = vec![
        rec(Op::Init { thread_level: 0 }),
        rec(Op::WinCreate { func: WinFn::Allocate, comm: COMM_WORLD, win: a }),
        rec(Op::WinCreate { func: WinFn::Create, comm: COMM_WORLD, win: b }),
        rec(Op::WinSync { func: WinSyncFn::Lock, win: b, rank: peer, flags: WinFlags::EXCLUSIVE }),
        rec(Op::Rma { func: RmaFn::Put, target: peer, win: b, bytes: 64, rbytes: 0, req: 0 }),
    ];
    if unlock {
        v.push(rec(Op::WinSync { func: WinSyncFn::Unlock, win: b, rank: peer, flags: 0 }));
    }
    v.extend([rec(Op::WinFree { win: b }), rec(Op::WinFree { win: a }), rec(Op::Finalize)]);
    v
}

fn consolidate(d: &Path) -> (std::process::Output, PathBuf) {
    let out = d.join("app.psins");
    let o = Command::new(env!("CARGO_BIN_EXE_psins-consolidate")).arg(d).arg("-o").arg(&out).output().unwrap();
    (o, out)
}

#[test]
fn windows_get_one_global_id() {
    let d = dir("ids");
    write_log(&d, 0, &program(0, true));
    write_log(&d, 1, &program(1, true));
    let (o, out) = consolidate(&d);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let tr = TraceReader::open(&out).unwrap();
    for t in 0..2 {
        let mut c = tr.task(t, 256).unwrap();
        let mut r = Record::default();
        let mut wins = Vec::new();
        while c.next(&mut r).unwrap() {
            match r.op {
                Op::WinCreate { win, .. } | Op::Rma { win, .. } | Op::WinSync { win, .. } | Op::WinFree { win } => {
                    wins.push(win)
                }
                _ => {}
            }
        }
        assert_eq!(wins, [0, 1, 1, 1, 1, 1, 0], "task {t}");
    }
}

#[test]
fn an_unbalanced_epoch_names_file_rank_and_record() {
    let d = dir("unbalanced");
    write_log(&d, 0, &program(0, true));
    let p = write_log(&d, 1, &program(1, false));
    let (o, out) = consolidate(&d);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains(&p.display().to_string())
            && e.contains("rank 1")
            && e.contains("record 5")
            && e.contains("window 9 freed with a lock of target 0 still open"),
        "{e}"
    );
    assert!(!out.exists());
}
