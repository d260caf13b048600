//! `cargo bench -p psins-formats --bench codec`: compact-trace encode/decode speed, bytes per
//! record for a realistic mix, and our slice varint decoder against `varint-rs`.
//! Figures go to docs/performance.md with the machine they ran on.

use psins_formats::*;
use std::time::Instant;

/// A stencil-like mix per iteration: 4 irecv, 4 isend, a waitall of 8, an allreduce with its
/// 2 recursive-doubling steps. Gaps and durations vary like real ones.
fn mix(iter: u64, out: &mut Vec<Record>) {
    let peers = [1, 3, 5, 7];
    let mut req = 1;
    for (i, &p) in peers.iter().enumerate() {
        out.push(Record::new(
            200 + (iter * 7 + i as u64) % 300,
            400,
            Op::Irecv { peer: p, tag: 0, bytes: 8192, comm: 0, req },
        ));
        req += 1;
    }
    for &p in &peers {
        out.push(Record::new(
            150,
            900 + iter % 500,
            Op::Isend { mode: SendMode::Standard, peer: p, tag: 0, bytes: 8192, comm: 0, req },
        ));
        req += 1;
    }
    let mut done = Vec::new();
    for r in 1..=4 {
        done.extend_from_slice(&[r, peers[(r - 1) as usize] as i64, 0, 8192]);
    }
    for r in 5..=8 {
        done.extend_from_slice(&[r, NO_RANK as i64, 0, 0]);
    }
    out.push(Record::new(100, 12_000 + iter % 3000, Op::Wait { func: WaitFn::Waitall, count: 8 }).with_list(done));
    let instance = iter as u32 + 1;
    let flags = CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE;
    out.push(Record::new(
        250_000 + iter % 10_000,
        5_000,
        Op::Coll {
            coll: Coll::Allreduce,
            comm: 0,
            root: NO_RANK,
            send_bytes: 8,
            recv_bytes: 8,
            count: 1,
            flags,
            req: 0,
            instance,
        },
    ));
    for k in [1, 2] {
        out.push(Record::new(
            0,
            0,
            Op::Step { instance, op: StepOp::SendRecv, peer: k, bytes: 8, peer2: k, bytes2: 8 },
        ));
    }
}

/// Blocking ping-pong: send/recv pairs with repeated peer, tag and size.
fn pingpong(iter: u64, out: &mut Vec<Record>) {
    out.push(Record::new(
        300 + iter % 200,
        2_000,
        Op::Send { mode: SendMode::Standard, peer: 1, tag: 5, bytes: 1024, comm: 0 },
    ));
    out.push(Record::new(150, 2_500 + iter % 700, Op::Recv { peer: 1, tag: 5, bytes: 1024, comm: 0 }));
}

fn main() {
    let mut recs = Vec::new();
    for i in 0..300_000 {
        mix(i, &mut recs);
    }
    run("stencil mix", &recs);
    let mut recs = Vec::new();
    for i in 0..1_800_000 {
        pingpong(i, &mut recs);
    }
    run("ping-pong", &recs);
    varints();
}

fn run(name: &str, recs: &[Record]) {
    let tasks = 4u32;
    let path = std::env::temp_dir().join(format!("psins-bench-{}.psins", std::process::id()));
    for (zstd, repeats) in [(None, false), (None, true), (Some(3), true)] {
        let t0 = Instant::now();
        let mut w = TraceWriter::create(&path, tasks, vec![], vec![], zstd).unwrap();
        w.set_repeats(repeats);
        for t in 0..tasks {
            w.begin_task(t).unwrap();
            for r in recs {
                w.push(r).unwrap();
            }
            w.end_task().unwrap();
        }
        w.finish().unwrap();
        let enc = t0.elapsed().as_secs_f64();
        let n = recs.len() as u64 * tasks as u64;
        let size = std::fs::metadata(&path).unwrap().len();
        let tr = TraceReader::open(&path).unwrap();
        let t0 = Instant::now();
        let mut rec = Record::default();
        let mut got = 0u64;
        for t in 0..tasks {
            let mut cur = tr.task(t, 1 << 16).unwrap();
            while cur.next(&mut rec).unwrap() {
                got += 1;
            }
        }
        let dec = t0.elapsed().as_secs_f64();
        assert_eq!(got, n);
        let label = match (zstd.is_some(), repeats) {
            (true, _) => "zstd-3, repeats   ",
            (false, true) => "plain, repeats    ",
            (false, false) => "plain, no repeats ",
        };
        println!(
            "{name:<12} compact trace {label}: {n} records, {:.2} bytes/record, encode {:.1} M records/s, decode {:.1} M records/s",
            size as f64 / n as f64,
            n as f64 / enc / 1e6,
            n as f64 / dec / 1e6
        );
    }
    let _ = std::fs::remove_file(&path);
}

/// Our slice decoder versus varint-rs's io::Read one, over the same 20 M mostly-small varints.
fn varints() {
    use varint_rs::VarintReader;
    let mut buf = Vec::new();
    let n = 20_000_000u64;
    for i in 0..n {
        varint::put_u64(&mut buf, (i * 2654435761) % 20_000);
    }
    let t0 = Instant::now();
    let (mut pos, mut sum) = (0usize, 0u64);
    for _ in 0..n {
        sum = sum.wrapping_add(varint::get_u64(&buf, &mut pos).unwrap());
    }
    let ours = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let mut cur = std::io::Cursor::new(&buf[..]);
    let mut sum2 = 0u64;
    for _ in 0..n {
        sum2 = sum2.wrapping_add(cur.read_u64_varint().unwrap());
    }
    let theirs = t0.elapsed().as_secs_f64();
    assert_eq!(sum, sum2);
    println!(
        "varint decode: psins slice decoder {:.0} M/s, varint-rs over io::Cursor {:.0} M/s",
        n as f64 / ours / 1e6,
        n as f64 / theirs / 1e6
    );
}
