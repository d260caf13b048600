//! `cargo bench -p psins-interop --bench dumpi_import`: MB/s of DUMPI input read by
//! psins-import --from dumpi (the release binary, consolidation included) on a generated
//! trace: 8 rank files as libdumpi 13 lays them out (every record with thread id, CPU and wall
//! times and statuses, as libdumpi writes by default), each iteration a stencil-like mix of 2
//! MPI_Irecv, 2 MPI_Isend, an MPI_Waitall and an MPI_Allreduce. The figure is the lead's to
//! measure (docs/performance.md); the target is 50 MB/s per core.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

const HEAD_MAGIC: u64 = 0xffaa_dd44_554d_5049;
const FOOT_MAGIC: u64 = 0xf007_fee7;
const FUNCTIONS: usize = 291;
const END_OF_STREAM: u16 = 293;
/// dumpi's function labels.
const IRECV: u16 = 12;
const ISEND: u16 = 8;
const WAITALL: u16 = 18;
const ALLREDUCE: u16 = 65;
const INIT: u16 = 124;
const FINALIZE: u16 = 125;

/// A big-endian writer of one rank file.
struct W {
    b: Vec<u8>,
    calls: Vec<u32>,
    ns: u64,
}

impl W {
    fn u8(&mut self, v: u8) {
        self.b.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.b.extend_from_slice(&v.to_be_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.b.extend_from_slice(&v.to_be_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.b.extend_from_slice(&v.to_be_bytes());
    }
    fn time(&mut self, ns: u64) {
        self.u16((ns / 1_000_000_000) as u16);
        self.u32((ns % 1_000_000_000) as u32);
    }
    /// A record's label, mask (statuses, CPU and wall times, thread id), thread, times.
    fn start(&mut self, label: u16, inside: u64) {
        self.calls[label as usize] += 1;
        self.u16(label);
        self.u8(0x4f);
        self.u16(0);
        let (t0, t1) = (self.ns + 700, self.ns + 700 + inside);
        self.ns = t1;
        for _ in 0..2 {
            self.time(t0);
            self.time(t1);
        }
    }
    fn p2p(&mut self, label: u16, peer: u32, req: u32) {
        self.start(label, 400);
        self.u32(1024);
        self.u16(14); // MPI_DOUBLE
        self.u32(peer);
        self.u32(0);
        self.u16(2); // MPI_COMM_WORLD
        self.u32(req);
    }
}

fn rank_file(rank: u32, size: u32, iters: u32) -> Vec<u8> {
    let mut w = W { b: Vec::new(), calls: vec![0; FUNCTIONS], ns: 1_000_000 };
    w.u64(HEAD_MAGIC);
    let body = w.b.len() as u64;
    w.u32(0);
    w.u32(0);
    w.start(INIT, 1000);
    w.u32(0);
    let peers = [(rank + 1) % size, (rank + size - 1) % size];
    for _ in 0..iters {
        w.p2p(IRECV, peers[0], 2);
        w.p2p(IRECV, peers[1], 3);
        w.p2p(ISEND, peers[0], 4);
        w.p2p(ISEND, peers[1], 5);
        w.start(WAITALL, 15_000);
        w.u32(4);
        w.u32(4);
        (2..6).for_each(|r| w.u32(r));
        w.u32(4);
        for (i, &p) in [peers[0], peers[1], rank, rank].iter().enumerate() {
            w.u32(if i < 2 { 8192 } else { 0 });
            w.u32(p);
            w.u8(0);
            w.u8(0);
            w.u32(0);
        }
        w.start(ALLREDUCE, 8000);
        w.u32(1);
        w.u16(14);
        w.u8(3); // MPI_SUM
        w.u16(2);
    }
    w.start(FINALIZE, 10);
    w.u16(END_OF_STREAM);
    let header = w.b.len() as u64;
    w.b.extend_from_slice(&[13, 0, 0]);
    w.u64(0);
    w.u16(0);
    w.u16(0);
    w.u32(0);
    let footer = w.b.len() as u64;
    w.u64(FOOT_MAGIC);
    let calls = w.calls.clone();
    calls.iter().for_each(|&c| w.u32(c));
    (0..FUNCTIONS).for_each(|_| w.u32(0));
    let sizes = w.b.len() as u64;
    let table = [0u32, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8, 16, 8, 8, 8, 1, 0, 0, 8, 12, 16, 6, 8, 32];
    w.u32(table.len() as u32);
    table.iter().for_each(|&s| w.u32(s));
    for v in [HEAD_MAGIC, sizes, 0, 0, header, body, footer, 0] {
        w.u64(v);
    }
    w.b
}

fn main() {
    let (size, iters) = (8u32, 30_000u32);
    let dir = std::env::temp_dir().join(format!("psins-dumpi-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut bytes = 0u64;
    for r in 0..size {
        let b = rank_file(r, size, iters);
        bytes += b.len() as u64;
        std::fs::write(dir.join(format!("bench-{r:04}.bin")), b).unwrap();
    }
    std::fs::write(dir.join("bench.meta"), format!("numprocs={size}\nfileprefix=bench\n")).unwrap();
    let out = dir.join("x.psins");
    let t0 = Instant::now();
    let st = Command::new(env!("CARGO_BIN_EXE_psins-import"))
        .args(["--from", "dumpi", "-q"])
        .arg(&dir)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success(), "psins-import --from dumpi failed");
    let secs = t0.elapsed().as_secs_f64();
    let records = u64::from(size) * (u64::from(iters) * 6 + 2);
    println!(
        "import --from dumpi: {:.1} MB of DUMPI ({records} records) in {secs:.2} s = {:.0} MB/s, {:.2} M records/s",
        bytes as f64 / 1e6,
        bytes as f64 / secs / 1e6,
        records as f64 / secs / 1e6
    );
    let _ = std::fs::remove_dir_all(Path::new(&dir));
}
