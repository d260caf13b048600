//! Helpers for the simulator's tests: tiny traces written through the real writer, a test
//! machine with round numbers, and replay.
#![allow(dead_code)]

use psins_formats::*;
use psins_sim::source::compact::CompactTrace;
use psins_sim::{simulate, Machine, Options, Report, SimError};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

pub const US: u64 = 1_000_000; // picoseconds

/// The test machine: 8 nodes of 1 core; network L = 1us, B = 1 GB/s (1000 bytes take 1us);
/// intra-node L = 0.5us, B = 2 GB/s; eager up to 64 KiB; analytic allreduce = 2*log.
pub const BASE: &str = r#"
[machine]
nodes = 8
cores_per_node = 1

[intra]
latency = "0.5us"
bandwidth = "2GB/s"

[mpi]
eager_threshold = "64KiB"
collectives = "analytic"

[mpi.collective_shape]
allreduce = "2*log"

[network]
model = "simple"
latency = "1us"
bandwidth = "1GB/s"
"#;

pub fn machine(sets: &[&str]) -> Machine {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Machine::from_str(Path::new("test-machine.toml"), BASE, &sets).expect("test machine is valid")
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

pub fn tmp(name: &str) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    // Cargo's scratch directory for integration tests (under target/), one folder per run.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("psins-sim-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{n}-{name}"))
}

/// Writes one record list per task as a compact trace.
pub fn write(name: &str, tasks: &[Vec<Record>], comms: Vec<CommDef>) -> PathBuf {
    let path = tmp(name);
    TraceWriter::write_tasks(&path, tasks, vec![], comms).unwrap();
    path
}

pub fn replay(tasks: &[Vec<Record>], m: &Machine) -> std::result::Result<Report, SimError> {
    let path = write("t.psins", tasks, vec![]);
    simulate(CompactTrace::open(&path)?, m, Options::default())
}

pub fn run(tasks: &[Vec<Record>], sets: &[&str]) -> Report {
    replay(tasks, &machine(sets)).unwrap_or_else(|e| panic!("replay failed: {e}"))
}

// Record builders (gap in microseconds).
pub fn rec(gap_us: u64, op: Op) -> Record {
    Record::new(gap_us * 1000, 0, op)
}

/// The first MPI_Alltoall on MPI_COMM_WORLD, `block` bytes to and from each rank.
pub fn alltoall(block: u64) -> Record {
    let op = Op::Coll {
        coll: Coll::Alltoall,
        comm: COMM_WORLD,
        root: NO_RANK,
        send_bytes: block,
        recv_bytes: block,
        count: 0,
        flags: 0,
        req: 0,
        instance: 1,
    };
    rec(0, op)
}
pub fn send(gap_us: u64, peer: i32, bytes: u64) -> Record {
    rec(gap_us, Op::Send { mode: SendMode::Standard, peer, tag: 7, bytes, comm: COMM_WORLD })
}
pub fn ssend(gap_us: u64, peer: i32, bytes: u64) -> Record {
    rec(gap_us, Op::Send { mode: SendMode::Synchronous, peer, tag: 7, bytes, comm: COMM_WORLD })
}
pub fn recv(gap_us: u64, peer: i32, bytes: u64) -> Record {
    rec(gap_us, Op::Recv { peer, tag: 7, bytes, comm: COMM_WORLD })
}
pub fn isend(gap_us: u64, peer: i32, bytes: u64, req: u32) -> Record {
    rec(gap_us, Op::Isend { mode: SendMode::Standard, peer, tag: 7, bytes, comm: COMM_WORLD, req })
}
pub fn irecv(gap_us: u64, peer: i32, bytes: u64, req: u32) -> Record {
    rec(gap_us, Op::Irecv { peer, tag: 7, bytes, comm: COMM_WORLD, req })
}
/// Waitall over completions (req, source, bytes); source NO_RANK for sends.
pub fn waitall(gap_us: u64, done: &[(u32, i32, u64)]) -> Record {
    let list = done.iter().flat_map(|&(r, s, b)| [r as i64, s as i64, 7, b as i64]).collect();
    rec(gap_us, Op::Wait { func: WaitFn::Waitall, count: done.len() as u32 }).with_list(list)
}
pub fn allreduce(gap_us: u64, bytes: u64, instance: u32) -> Record {
    let flags = CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE;
    rec(
        gap_us,
        Op::Coll {
            coll: Coll::Allreduce,
            comm: COMM_WORLD,
            root: NO_RANK,
            send_bytes: bytes,
            recv_bytes: bytes,
            count: bytes / 8,
            flags,
            req: 0,
            instance,
        },
    )
}
pub fn fin() -> Record {
    rec(0, Op::Finalize)
}

/// Predicted time in picoseconds.
pub fn predicted(r: &Report) -> u64 {
    r.predicted
}
/// End time of one task.
pub fn end(r: &Report, t: usize) -> u64 {
    r.tasks[t].end
}
