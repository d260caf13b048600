//! `psins-sim sweep` as a user runs it: a grid equals separate runs byte for byte, shards
//! merged equal the whole, an interrupted sweep resumes, bad input is one error.

use crate::common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const SIM: &str = env!("CARGO_BIN_EXE_psins-sim");
const SYNTH: &str = env!("CARGO_BIN_EXE_psins-synth");
const LAUNCH_VARS: [&str; 8] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_STEP",
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "PMI_RANK",
    "PMI_SIZE",
];

/// Runs psins-sim with `env` set and no launcher variables from outside: (code, stdout, stderr).
fn sim_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut c = Command::new(SIM);
    for v in LAUNCH_VARS {
        c.env_remove(v);
    }
    let o = c.args(args).envs(env.iter().copied()).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

fn sim(args: &[&str]) -> (i32, String, String) {
    sim_env(args, &[])
}

/// A small stencil trace and the test machine.
fn inputs() -> (PathBuf, PathBuf) {
    let trace = tmp("sw.psins");
    let st =
        Command::new(SYNTH).args(["gen:stencil2d:ranks=4,iters=3,bytes=64KiB", "-o"]).arg(&trace).status().unwrap();
    assert!(st.success());
    let m = tmp("sw-m.toml");
    std::fs::write(&m, BASE).unwrap();
    (trace, m)
}

const BW: &str = "network.bandwidth=1GB/s..4GB/s*2";
const LAT: &str = "network.latency=1us,2us";

/// The 3×2 grid's arguments into `dir`.
fn grid<'a>(trace: &'a Path, m: &'a Path, dir: &'a Path) -> Vec<&'a str> {
    let (t, m, d) = (trace.to_str().unwrap(), m.to_str().unwrap(), dir.to_str().unwrap());
    vec!["sweep", t, "-m", m, "--vary", BW, "--vary", LAT, "-o", d, "-j", "2"]
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn a_grid_equals_separate_runs_byte_for_byte() {
    let (trace, m) = inputs();
    let dir = tmp("sw-grid");
    let (code, out, err) = sim(&[&grid(&trace, &m, &dir)[..], &["--reports"][..]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 7, "a table row per point: {out}");
    let rows: Vec<serde_json::Value> =
        read(&dir.join("sweep.jsonl")).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 6);
    let expect =
        [("1GB/s", "1us"), ("1GB/s", "2us"), ("2GB/s", "1us"), ("2GB/s", "2us"), ("4GB/s", "1us"), ("4GB/s", "2us")];
    for (k, (bw, lat)) in expect.iter().enumerate() {
        let row = &rows[k];
        assert_eq!(row["point"], k);
        assert_eq!(row["vary"], serde_json::json!({"network.bandwidth": bw, "network.latency": lat}));
        // The same point as a separate run: the same report, byte for byte.
        let json = tmp("sw-single.json");
        let sets = [format!("network.bandwidth={bw}"), format!("network.latency={lat}")];
        let (code, _, err) = sim(&[
            trace.to_str().unwrap(),
            "-m",
            m.to_str().unwrap(),
            "--set",
            &sets[0],
            "--set",
            &sets[1],
            "-q",
            "--json",
            json.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        let single = read(&json);
        assert_eq!(read(&dir.join(format!("reports/point-{k}.json"))), single, "point {k}");
        let single: serde_json::Value = serde_json::from_str(&single).unwrap();
        assert_eq!(row["predicted_ps"], single["predicted_ps"]);
        assert_eq!(row["provenance"], single["provenance"]);
    }
    // More bandwidth, less time; more latency, more time.
    let t: Vec<u64> = rows.iter().map(|r| r["predicted_ps"].as_u64().unwrap()).collect();
    assert!(t[0] > t[2] && t[2] > t[4] && t[1] > t[0] && t[3] > t[2], "{t:?}");
    let csv = read(&dir.join("sweep.csv"));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 7);
    assert!(lines[0].starts_with("point,machine,network.bandwidth,network.latency,status,predicted_s,predicted_ps,"));
    assert!(lines[3].starts_with(&format!("2,{},2GB/s,1us,ok,", m.display())), "{}", lines[3]);
    // Running it again does nothing new and gives the same files.
    let (code, _, err) = sim(&grid(&trace, &m, &dir));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("6 of 6 points already done"), "{err}");
    assert_eq!(read(&dir.join("sweep.csv")), csv);
}

#[test]
fn shards_merged_equal_the_whole() {
    let (trace, m) = inputs();
    let (whole, sharded) = (tmp("sw-whole"), tmp("sw-sharded"));
    assert_eq!(sim(&grid(&trace, &m, &whole)).0, 0);
    let args = grid(&trace, &m, &sharded);
    let (code, _, err) = sim(&[&args[..], &["--shard", "0/3"][..]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(!sharded.join("sweep.csv").exists(), "a shard does not merge");
    // Merging before every shard has run: one error, no merged file.
    let (code, _, err) = sim(&["sweep", "merge", sharded.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("4 of 6 points are missing (points 1, 2, 4, 5)"), "{err}");
    assert!(!sharded.join("sweep.csv").exists() && !sharded.join("sweep.jsonl").exists());
    // Shard 1 from a Slurm job array's variables (--array=1-3), shard 2 from Open MPI's.
    let slurm = [("SLURM_ARRAY_TASK_ID", "2"), ("SLURM_ARRAY_TASK_COUNT", "3"), ("SLURM_ARRAY_TASK_MIN", "1")];
    let (code, _, err) = sim_env(&args, &slurm);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("shard 1/3 (from the Slurm job array)"), "{err}");
    let (code, _, err) = sim_env(&args, &[("OMPI_COMM_WORLD_RANK", "2"), ("OMPI_COMM_WORLD_SIZE", "3")]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = sim(&["sweep", "merge", sharded.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("merged 6 points from 3 part files"), "{err}");
    assert_eq!(out.lines().count(), 7, "{out}");
    for f in ["sweep.csv", "sweep.jsonl", "sweep.def.json"] {
        assert_eq!(read(&sharded.join(f)), read(&whole.join(f)), "{f}");
    }
}

#[test]
fn an_interrupted_sweep_resumes_without_redoing_points() {
    let (trace, m) = inputs();
    let dir = tmp("sw-resume");
    assert_eq!(sim(&grid(&trace, &m, &dir)).0, 0);
    let (csv, jsonl) = (read(&dir.join("sweep.csv")), read(&dir.join("sweep.jsonl")));
    // As if killed after 3 rows and halfway through writing the 4th.
    let part = dir.join("part-0-of-1.jsonl");
    let text = read(&part);
    let lines: Vec<&str> = text.lines().collect();
    let cut = format!("{}\n{}\n{}\n{}", lines[0], lines[1], lines[2], &lines[3][..40]);
    std::fs::write(&part, cut).unwrap();
    for f in ["sweep.csv", "sweep.jsonl"] {
        std::fs::remove_file(dir.join(f)).unwrap();
    }
    let (code, _, err) = sim(&grid(&trace, &m, &dir));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("3 of 6 points already done"), "{err}");
    let replayed = err.lines().filter(|l| l.contains("psins-sim: sweep: ") && l.contains(" point ")).count();
    assert_eq!(replayed, 3, "only the unfinished points are replayed: {err}");
    assert_eq!(read(&dir.join("sweep.csv")), csv);
    assert_eq!(read(&dir.join("sweep.jsonl")), jsonl);
    assert_eq!(read(&part).lines().count(), 6, "the cut row was dropped");
}

#[test]
fn bad_input_is_one_error_naming_the_argument() {
    let (trace, m) = inputs();
    let (t, mm) = (trace.to_str().unwrap(), m.to_str().unwrap());
    let dir = tmp("sw-bad");
    let d = dir.to_str().unwrap();
    for (vary, code, what) in [
        ("network.bandwdth=1GB/s,2GB/s", 2, "--vary network.bandwdth=1GB/s"),
        ("network.bandwidth=16GB/s..1GB/s*2", 2, "--vary `network.bandwidth=16GB/s..1GB/s*2`"),
        ("network.bandwidth=fast", 2, "--vary network.bandwidth=fast"),
    ] {
        let (c, _, err) = sim(&["sweep", t, "-m", mm, "--vary", vary, "-o", d]);
        assert_eq!(c, code, "{vary}: {err}");
        assert!(err.contains(what), "{vary}: {err}");
    }
    assert!(!dir.exists(), "nothing written for bad arguments");
    let (c, _, err) = sim(&["sweep", t, "-m", mm, "--vary", BW, "-o", d, "--shard", "3/3"]);
    assert_eq!(c, 2);
    assert!(err.contains("--shard `3/3`") && err.contains("out of range"), "{err}");
    let (c, _, err) = sim_env(
        &["sweep", t, "-m", mm, "--vary", BW, "-o", d],
        &[("SLURM_ARRAY_TASK_ID", "4"), ("SLURM_ARRAY_TASK_COUNT", "3")],
    );
    assert_eq!(c, 2);
    assert!(err.contains("SLURM_ARRAY_TASK_ID=4"), "{err}");
    // Another sweep into the same directory is refused.
    assert_eq!(sim(&["sweep", t, "-m", mm, "--vary", BW, "-o", d, "--shard", "0/2", "-q"]).0, 0);
    let (c, _, err) = sim(&["sweep", t, "-m", mm, "--vary", LAT, "-o", d, "--shard", "1/2"]);
    assert_eq!(c, 1);
    assert!(err.contains("sweep.def.json: the directory holds another sweep"), "{err}");
    // Shards of different sweeps brought together: the merge names the file, writes nothing.
    let other = tmp("sw-other");
    let o = other.to_str().unwrap();
    assert_eq!(sim(&["sweep", t, "-m", mm, "--vary", LAT, "-o", o, "--shard", "1/2", "-q"]).0, 0);
    std::fs::copy(other.join("part-1-of-2.jsonl"), dir.join("part-1-of-2.jsonl")).unwrap();
    let (c, _, err) = sim(&["sweep", "merge", d]);
    assert_eq!(c, 1);
    assert!(err.contains("part-1-of-2.jsonl: line 1: a row of another sweep"), "{err}");
    assert!(!dir.join("sweep.csv").exists() && !dir.join("sweep.jsonl").exists());
    let (c, _, err) = sim(&["sweep", "merge", tmp("sw-nothing").to_str().unwrap()]);
    assert_eq!(c, 1);
    assert!(err.contains("sweep.def.json: cannot read"), "{err}");
}
