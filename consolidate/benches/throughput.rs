//! `cargo bench -p psins-consolidate --bench throughput`: input MB/s of psins-consolidate on
//! generated logs (a stencil-like record mix, 8 ranks), with and without --compress.

use psins_formats::*;
use std::process::Command;
use std::time::Instant;

fn iteration(rank: u32, size: u32, it: u32, req: &mut u32, out: &mut Vec<u8>, enc: &mut LogEncoder) {
    let peers = [(rank + 1) % size, (rank + size - 1) % size];
    let mut done = Vec::new();
    for &p in &peers {
        *req += 1;
        enc.push(out, &Record::new(300, 500, Op::Irecv { peer: p as i32, tag: 0, bytes: 8192, comm: 0, req: *req }));
        done.extend_from_slice(&[*req as i64, p as i64, 0, 8192]);
    }
    for &p in &peers {
        *req += 1;
        enc.push(
            out,
            &Record::new(
                200,
                900 + (it % 300) as u64,
                Op::Isend { mode: SendMode::Standard, peer: p as i32, tag: 0, bytes: 8192, comm: 0, req: *req },
            ),
        );
        done.extend_from_slice(&[*req as i64, NO_RANK as i64, 0, 0]);
    }
    enc.push(
        out,
        &Record::new(100, 15_000 + (it % 5000) as u64, Op::Wait { func: WaitFn::Waitall, count: 4 }).with_list(done),
    );
    let flags = CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE;
    enc.push(
        out,
        &Record::new(
            200_000,
            8_000,
            Op::Coll {
                coll: Coll::Allreduce,
                comm: 0,
                root: NO_RANK,
                send_bytes: 8,
                recv_bytes: 8,
                count: 1,
                flags,
                req: 0,
                instance: it + 1,
            },
        ),
    );
    let mut mask = 1;
    while mask < size {
        let p = (rank ^ mask) as i32;
        enc.push(
            out,
            &Record::new(
                0,
                0,
                Op::Step { instance: it + 1, op: StepOp::SendRecv, peer: p, bytes: 8, peer2: p, bytes2: 8 },
            ),
        );
        mask <<= 1;
    }
}

fn main() {
    let (size, iters) = (8u32, 400_000u32);
    let dir = std::env::temp_dir().join(format!("psins-cbench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut in_bytes = 0;
    for rank in 0..size {
        let mut out = Vec::with_capacity(8 << 20);
        LogHeader { rank, world_size: size, job_id: 7, ..Default::default() }.write(&mut out);
        let mut enc = LogEncoder::new();
        let mut req = 0;
        let mut file = Vec::new();
        for it in 0..iters {
            iteration(rank, size, it, &mut req, &mut out, &mut enc);
            if out.len() > 4 << 20 {
                enc.close_block(&mut out);
                file.extend_from_slice(&out);
                out.clear();
            }
        }
        enc.finish(&mut out);
        file.extend_from_slice(&out);
        in_bytes += file.len();
        std::fs::write(dir.join(format!("rank-{rank:06}.bin")), file).unwrap();
    }
    for extra in [None, Some("--no-repeats"), Some("--compress")] {
        let out = dir.join("bench.psins");
        let t0 = Instant::now();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_psins-consolidate"));
        cmd.arg(&dir).arg("-o").arg(&out).arg("--quiet");
        if let Some(e) = extra {
            cmd.arg(e);
        }
        let st = cmd.status().unwrap();
        assert!(st.success());
        let secs = t0.elapsed().as_secs_f64();
        let out_bytes = std::fs::metadata(&out).unwrap().len();
        let records = TraceReader::open(&out).unwrap().header.total_records();
        println!(
            "consolidate {}: {} ranks, {records} records, input {:.1} MB in {secs:.2} s = {:.0} MB/s; output {:.2} bytes/record (log {:.2} bytes/record)",
            extra.unwrap_or("plain"),
            size,
            in_bytes as f64 / 1e6,
            in_bytes as f64 / 1e6 / secs,
            out_bytes as f64 / records as f64,
            in_bytes as f64 / records as f64
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
