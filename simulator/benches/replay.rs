//! `cargo bench -p psins-sim --bench replay`: the simulator's targets, measured through the
//! real binaries (so peak memory is the simulator's own):
//! 1. replay speed of a 1,024-rank 2-D stencil trace of ≥ 10 M records under `simple` and
//!    `bus` (target ≥ 5 M records/s on one core), plus the trace decode speed alone;
//! 2. memory per rank (peak RSS / ranks) on large synthetic runs;
//! 3. a 1,048,576-rank 2-D stencil, 10 iterations, under `simple` (target < 60 s).
//!
//! `PSINS_BENCH_DIR` (default `target/psins-bench`) holds the generated traces;
//! `PSINS_BENCH_QUICK=1` runs scaled-down sizes for a smoke test.

use psins_formats::{Record, TraceReader};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const SIM: &str = env!("CARGO_BIN_EXE_psins-sim");
const SYNTH: &str = env!("CARGO_BIN_EXE_psins-synth");

fn configs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs")
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("binary runs");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{cmd:?} failed:\n{err}");
    err
}

/// Figures from psins-sim's `--perf` line.
struct Perf {
    records: f64,
    wall: f64,
    cpu: f64,
    rss_kib: f64,
    tasks: f64,
    /// Peak messages in flight × bytes each.
    msg_bytes: f64,
}

impl Perf {
    fn parse(line: &str) -> Perf {
        let num = |after: &str| -> f64 {
            let i = line.find(after).map(|i| i + after.len()).unwrap_or(0);
            line[i..]
                .trim_start()
                .split(|c: char| !(c.is_ascii_digit() || c == '.'))
                .next()
                .unwrap_or("0")
                .parse()
                .unwrap_or(0.0)
        };
        Perf {
            records: num("perf:"),
            wall: num("records in"),
            cpu: num("CPU time"),
            rss_kib: num("peak RSS"),
            tasks: num("KiB;"),
            msg_bytes: num("tasks; peak") * num("in flight of"),
        }
    }

    fn line(&self) -> String {
        format!(
            "{:.0} records, wall {:.2} s ({:.2} M records/s), CPU {:.2} s ({:.2} M records/s), peak RSS {:.0} MiB = {:.0} bytes/rank, {:.0} without the peak messages in flight",
            self.records,
            self.wall,
            self.records / self.wall / 1e6,
            self.cpu,
            self.records / self.cpu.max(0.01) / 1e6,
            self.rss_kib / 1024.0,
            self.rss_kib * 1024.0 / self.tasks.max(1.0),
            (self.rss_kib * 1024.0 - self.msg_bytes) / self.tasks.max(1.0)
        )
    }
}

/// Runs psins-sim with --perf and returns its figures.
fn sim(trace: &str, machine: &str, sets: &[&str]) -> String {
    let mut c = Command::new(SIM);
    c.arg(trace).arg("-m").arg(configs().join(machine)).args(["-q", "--perf", "--no-progress"]);
    for s in sets {
        c.arg("--set").arg(s);
    }
    let err = run(&mut c);
    Perf::parse(err.lines().find(|l| l.starts_with("perf:")).unwrap_or("perf: (missing)")).line()
}

/// Records per second decoding every task of `path` in turn (no simulation).
fn decode_rate(path: &Path) -> f64 {
    let r = TraceReader::open(path).expect("trace opens");
    let mut rec = Record::default();
    let start = Instant::now();
    let mut n = 0u64;
    for t in 0..r.tasks() {
        let mut c = r.task(t, 64 << 10).expect("task opens");
        while c.next(&mut rec).expect("record decodes") {
            n += 1;
        }
    }
    n as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let quick = std::env::var("PSINS_BENCH_QUICK").is_ok();
    let dir = std::env::var("PSINS_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/psins-bench"));
    std::fs::create_dir_all(&dir).expect("bench dir");
    let iters = if quick { 50 } else { 1000 };
    let trace = dir.join(format!("stencil2d-1024-{iters}.psins"));
    let spec = format!("gen:stencil2d:ranks=1024,iters={iters},bytes=8KiB,compute=50us");
    let t = Instant::now();
    run(Command::new(SYNTH).arg(&spec).arg("-o").arg(&trace));
    println!(
        "generate {spec}: {:.2} s, {} bytes",
        t.elapsed().as_secs_f64(),
        std::fs::metadata(&trace).map(|m| m.len()).unwrap_or(0)
    );
    println!("decode only: {:.0} records/s", decode_rate(&trace));
    let tr = trace.to_string_lossy().into_owned();
    for model in ["simple", "bus"] {
        for _ in 0..3 {
            println!(
                "replay {model:<6} 1024-rank trace: {}",
                sim(&tr, "bus-cluster.toml", &["machine.nodes=128", &format!("network.model={model}")])
            );
        }
    }
    let big = if quick { 65536 } else { 1048576 };
    for ranks in [16384, big] {
        let spec = format!("gen:stencil2d:ranks={ranks},iters=10,bytes=8KiB,compute=50us");
        println!("replay simple {spec} from the generator: {}", sim(&spec, "fat-simple.toml", &[]));
        let file = dir.join(format!("stencil2d-{ranks}-10.psins"));
        let t = Instant::now();
        run(Command::new(SYNTH).arg(&spec).arg("-o").arg(&file));
        println!(
            "generate {spec}: {:.2} s, {} bytes",
            t.elapsed().as_secs_f64(),
            std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0)
        );
        println!("replay simple {spec} from the trace: {}", sim(&file.to_string_lossy(), "fat-simple.toml", &[]));
    }
}
