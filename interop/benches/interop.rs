//! `cargo bench -p psins-interop --bench interop`: records per second of the exporters
//! (psins-export --to ti, --to paraver, --to otf2 when built with libotf2) and the TI and OTF2
//! importers (psins-import --from ti, --from otf2: MB/s of their input), each
//! the release binary on one generated trace (8 ranks of a stencil-like mix: 2 irecv, 2 isend,
//! a waitall, an allreduce with its steps per iteration). Figures: docs/performance.md.

use psins_formats::*;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const W: u32 = COMM_WORLD;

fn task(rank: u32, size: u32, iters: u32) -> Vec<Record> {
    let mut v = vec![Record::new(0, 10, Op::Init { thread_level: 0 })];
    let peers = [(rank + 1) % size, (rank + size - 1) % size];
    let mut req = 0;
    for it in 0..iters {
        let mut done = Vec::new();
        for &p in &peers {
            req += 1;
            v.push(Record::new(300, 500, Op::Irecv { peer: p as i32, tag: 0, bytes: 8192, comm: W, req }));
            done.extend_from_slice(&[req as i64, p as i64, 0, 8192]);
        }
        for &p in &peers {
            req += 1;
            let op = Op::Isend { mode: SendMode::Standard, peer: p as i32, tag: 0, bytes: 8192, comm: W, req };
            v.push(Record::new(200, 900 + (it % 300) as u64, op));
            done.extend_from_slice(&[req as i64, NO_RANK as i64, 0, 0]);
        }
        v.push(Record::new(100, 15_000, Op::Wait { func: WaitFn::Waitall, count: 4 }).with_list(done));
        let flags = CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE;
        let (root, send_bytes, recv_bytes, count, instance) = (NO_RANK, 8, 8, 1, it + 1);
        let coll =
            Op::Coll { coll: Coll::Allreduce, comm: W, root, send_bytes, recv_bytes, count, flags, req: 0, instance };
        v.push(Record::new(200_000, 8_000, coll));
        let mut mask = 1;
        while mask < size {
            let p = (rank ^ mask) as i32;
            v.push(Record::new(
                0,
                0,
                Op::Step { instance, op: StepOp::SendRecv, peer: p, bytes: 8, peer2: p, bytes2: 8 },
            ));
            mask <<= 1;
        }
    }
    v.push(Record::new(1000, 10, Op::Finalize));
    v
}

fn timed(what: &str, records: u64, bytes_in: u64, cmd: &mut Command) {
    let t0 = Instant::now();
    let st = cmd.status().unwrap();
    assert!(st.success(), "{what} failed");
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "{what}: {records} records in {secs:.2} s = {:.2} M records/s, {:.0} MB/s of input",
        records as f64 / secs / 1e6,
        bytes_in as f64 / secs / 1e6
    );
}

fn size_of(p: &Path) -> u64 {
    if p.is_dir() {
        std::fs::read_dir(p).unwrap().map(|e| size_of(&e.unwrap().path())).sum()
    } else {
        std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
    }
}

fn main() {
    let (size, iters) = (8u32, 100_000u32);
    let dir = std::env::temp_dir().join(format!("psins-ibench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("bench.psins");
    let mut w = TraceWriter::create(&trace, size, vec![], vec![], None).unwrap();
    for r in 0..size {
        w.begin_task(r).unwrap();
        for rec in task(r, size, iters) {
            w.push(&rec).unwrap();
        }
        w.end_task().unwrap();
    }
    w.finish().unwrap();
    let records = TraceReader::open(&trace).unwrap().header.total_records();
    let trace_bytes = size_of(&trace);
    let export = env!("CARGO_BIN_EXE_psins-export");
    let ti = dir.join("ti");
    timed(
        "export --to ti",
        records,
        trace_bytes,
        Command::new(export).args(["--to", "ti", "-q"]).arg(&trace).arg("-o").arg(&ti),
    );
    let prv = dir.join("x.prv");
    timed(
        "export --to paraver",
        records,
        trace_bytes,
        Command::new(export).args(["--to", "paraver", "-q"]).arg(&trace).arg("-o").arg(&prv),
    );
    // The TI export expands each allreduce into its steps: count the imported records.
    let back = dir.join("back.psins");
    let t0 = Instant::now();
    let st = Command::new(env!("CARGO_BIN_EXE_psins-import"))
        .args(["--from", "ti", "-q"])
        .arg(&ti)
        .arg("-o")
        .arg(&back)
        .status()
        .unwrap();
    assert!(st.success());
    let secs = t0.elapsed().as_secs_f64();
    let imported = TraceReader::open(&back).unwrap().header.total_records();
    let ti_bytes = size_of(&ti);
    println!(
        "import --from ti: {:.1} MB of TI ({imported} records) in {secs:.2} s = {:.0} MB/s, {:.2} M records/s",
        ti_bytes as f64 / 1e6,
        ti_bytes as f64 / secs / 1e6,
        imported as f64 / secs / 1e6
    );
    if psins_interop::otf2::available().is_ok() {
        let otf2 = dir.join("otf2");
        timed(
            "export --to otf2",
            records,
            trace_bytes,
            Command::new(export).args(["--to", "otf2", "-q"]).arg(&trace).arg("-o").arg(&otf2),
        );
        let back = dir.join("back-otf2.psins");
        let t0 = Instant::now();
        let st = Command::new(env!("CARGO_BIN_EXE_psins-import"))
            .args(["--from", "otf2", "-q"])
            .arg(otf2.join("traces.otf2"))
            .arg("-o")
            .arg(&back)
            .status()
            .unwrap();
        assert!(st.success());
        let secs = t0.elapsed().as_secs_f64();
        let imported = TraceReader::open(&back).unwrap().header.total_records();
        let otf2_bytes = size_of(&otf2);
        println!(
            "import --from otf2: {:.1} MB of OTF2 ({imported} records) in {secs:.2} s = {:.0} MB/s, {:.2} M records/s",
            otf2_bytes as f64 / 1e6,
            otf2_bytes as f64 / secs / 1e6,
            imported as f64 / secs / 1e6
        );
    } else {
        println!("otf2: skipped ({})", psins_interop::otf2::available().unwrap_err());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
