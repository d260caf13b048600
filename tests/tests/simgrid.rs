//! Agreement with SimGrid (docs/interop-simgrid.md): test apps traced under real mpirun,
//! exported to TI and replayed by the real `smpirun -replay` on the contention-free platform of
//! scripts/smpi-agree.sh predict within 1 % of psins-sim on the equal machine. Also the
//! synthetic alltoall of the doc's figure at 16 ranks, and the refusal of a trace TI cannot
//! hold (nonblocking collectives); and the round trip export -> psins-import -> export. Skips,
//! saying why, when smpirun or mpirun is missing.

use psins_e2e::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn have_smpirun() -> bool {
    let ok = Command::new("smpirun").arg("-version").output().map(|o| o.status.success()).unwrap_or(false);
    if !ok {
        eprintln!("SKIP: smpirun not found (SimGrid: apt-get install libsimgrid-dev, as scripts/setup.sh does)");
    }
    ok
}

/// Runs scripts/smpi-agree.sh on the flat contention-free platform; (psins seconds, smpi
/// seconds, relative difference in %).
fn agree(trace: &Path, lat_ns: &str, bw: &str) -> (f64, f64, f64) {
    agree_on(trace, lat_ns, bw, "flat")
}

/// Runs scripts/smpi-agree.sh on `topology` (flat, fattree, dragonfly).
fn agree_on(trace: &Path, lat_ns: &str, bw: &str, topology: &str) -> (f64, f64, f64) {
    // The script runs the tools from $PSINS_BIN: these tests' own, current.
    let script = root().join("scripts/smpi-agree.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg(trace)
        .args([lat_ns, bw, topology])
        .env("PSINS_BIN", tools_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "smpi-agree failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let field = |k: &str| -> f64 {
        let v =
            stdout.split_whitespace().find_map(|w| w.strip_prefix(k)).unwrap_or_else(|| panic!("no {k} in {stdout}"));
        v.parse().unwrap_or_else(|_| panic!("bad {k} in {stdout}"))
    };
    (field("psins="), field("smpi="), field("rel="))
}

#[test]
fn traced_apps_replayed_by_smpi_agree_with_psins_sim() {
    need_mpi!();
    if !have_smpirun() {
        return;
    }
    // Eager messages, rendezvous ones (pingpong's 1 and 4 MiB), wildcards (master_worker),
    // sub-communicators (cg, comms), traced expansions of allreduce and alltoall(v) (is).
    for app in ["ring", "pingpong", "stencil2d", "cg", "is", "master_worker", "comms"] {
        let run = run_traced(app, 4, &[], &[]);
        run.ok();
        let trace = run.dir.join(format!("{app}.psins"));
        run_tool("psins-consolidate", &[run.job_dir().as_os_str(), "-o".as_ref(), trace.as_os_str()]);
        for (lat, bw) in [("1000", "1e9"), ("1500", "25e9")] {
            let (p, s, rel) = agree(&trace, lat, bw);
            eprintln!("{app} L={lat}ns B={bw}: psins {p} s, smpi {s} s, {rel:+.4} %");
            assert!(p > 0.0 && s > 0.0);
            assert!(rel.abs() < 1.0, "{app} L={lat}ns B={bw}: psins {p} s vs smpi {s} s ({rel:+.3} %)");
        }
        round_trip(app, &trace, &run.dir);
    }
}

/// Export → psins-import → export: the same actions line for line, tags renamed one-to-one
/// (every message, its peers, tag context and size, every burst), and psins-sim predicts the imported trace
/// exactly as the original on the equal machine.
fn round_trip(app: &str, trace: &Path, dir: &Path) {
    let (first, back, second) = (dir.join("ti1"), dir.join("back.psins"), dir.join("ti2"));
    let export = |t: &Path, d: &Path| {
        run_tool(
            "psins-export",
            &["--to".as_ref(), "ti".as_ref(), t.as_os_str(), "-o".as_ref(), d.as_os_str(), "-q".as_ref()],
        )
    };
    export(trace, &first);
    run_tool(
        "psins-import",
        &["--from".as_ref(), "ti".as_ref(), first.as_os_str(), "-o".as_ref(), back.as_os_str(), "-q".as_ref()],
    );
    export(&back, &second);
    let n = std::fs::read_to_string(first.join("replay.txt")).unwrap().lines().count();
    assert!(n > 0);
    // The same actions line for line; TI tags may be numbered differently (the first export
    // numbers a wildcard receive's context when it completes, the second where it is posted),
    // but one-to-one over the whole trace.
    let (mut fwd, mut bwd) = (std::collections::HashMap::new(), std::collections::HashMap::new());
    for r in 0..n {
        let f = format!("rank-{r}.ti");
        let a = std::fs::read_to_string(first.join(&f)).unwrap();
        let b = std::fs::read_to_string(second.join(&f)).unwrap();
        assert_eq!(a.lines().count(), b.lines().count(), "{app}: {f} has another number of actions");
        for (i, (la, lb)) in a.lines().zip(b.lines()).enumerate() {
            let (ta, tb): (Vec<&str>, Vec<&str>) = (la.split(' ').collect(), lb.split(' ').collect());
            let tag_at = match ta.get(1) {
                Some(&"send" | &"isend" | &"recv" | &"irecv") => Some(3),
                Some(&"wait") => Some(4),
                _ => None,
            };
            let same =
                ta.len() == tb.len() && ta.iter().zip(&tb).enumerate().all(|(k, (x, y))| Some(k) == tag_at || x == y);
            assert!(same, "{app}: {f} line {}: {la:?} became {lb:?}", i + 1);
            if let Some(k) = tag_at {
                let (x, y) = (ta[k].to_string(), tb[k].to_string());
                assert_eq!(fwd.entry(x.clone()).or_insert(y.clone()), &y, "{app}: tag {x} renamed two ways");
                assert_eq!(bwd.entry(y.clone()).or_insert(x.clone()), &x, "{app}: two tags became {y}");
            }
        }
    }
    let (p0, _, _) = agree(trace, "1000", "1e9");
    let (p1, s1, _) = agree(&back, "1000", "1e9");
    assert_eq!(p0, p1, "{app}: psins-sim predicts the imported trace differently");
    assert!(((s1 / p1) - 1.0).abs() < 0.01);
}

/// SimGrid's FAT_TREE and DRAGONFLY clusters (CM02, factors 1, SPLITDUPLEX links) against
/// psins's flow model on the equal graph (scripts/smpi-agree.sh says how each is made equal):
/// the stored test-app traces (4 ranks) within 0.01 % (the target is 2 %; they agree to SMPI's
/// printed digits), and the 16-rank alltoall, whose flows contend inside the graph, within
/// 0.1 % on both.
#[test]
fn flow_model_agrees_with_smpi_on_fat_tree_and_dragonfly() {
    if !have_smpirun() {
        return;
    }
    let apps = root().join("simulator/tests/data/apps");
    for app in ["pingpong", "ring", "stencil2d", "stencil3d", "cg", "comms", "is", "master_worker"] {
        let trace = apps.join(format!("{app}.psins"));
        for topology in ["fattree", "dragonfly"] {
            let (p, s, rel) = agree_on(&trace, "250", "1e9", topology);
            eprintln!("{app} on {topology}: psins {p} s, smpi {s} s, {rel:+.4} %");
            assert!(rel.abs() < 0.01, "{app} on {topology}: psins {p} s vs smpi {s} s ({rel:+.3} %)");
        }
    }
    let dir = scratch("smpi-graph-alltoall");
    for bytes in ["256", "8KiB", "256KiB"] {
        let trace = dir.join(format!("a2a-{bytes}.psins"));
        let spec = format!("gen:alltoall:ranks=16,iters=2,bytes={bytes},compute=10us");
        run_tool("psins-synth", &[spec.as_ref(), "-o".as_ref(), trace.as_os_str()]);
        for topology in ["fattree", "dragonfly"] {
            let (p, s, rel) = agree_on(&trace, "250", "1e9", topology);
            assert!(rel.abs() < 0.1, "alltoall {bytes} on {topology}: psins {p} s vs smpi {s} s ({rel:+.3} %)");
        }
    }
}

#[test]
fn synthetic_alltoall_agrees_at_16_ranks() {
    if !have_smpirun() {
        return;
    }
    let dir = scratch("smpi-alltoall");
    // Bruck (256 B), scattered in batches (8 KiB), pairwise rendezvous (256 KiB).
    for bytes in ["256", "8KiB", "256KiB"] {
        let trace = dir.join(format!("a2a-{bytes}.psins"));
        let spec = format!("gen:alltoall:ranks=16,iters=2,bytes={bytes},compute=10us");
        run_tool("psins-synth", &[spec.as_ref(), "-o".as_ref(), trace.as_os_str()]);
        let (p, s, rel) = agree(&trace, "1000", "1e9");
        assert!(rel.abs() < 1.0, "alltoall {bytes}: psins {p} s vs smpi {s} s ({rel:+.3} %)");
    }
}

#[test]
fn nonblocking_collectives_are_refused_naming_rank_and_record() {
    need_mpi!();
    let run = run_traced("nbc", 2, &["2"], &[]);
    run.ok();
    let trace = run.dir.join("nbc.psins");
    run_tool("psins-consolidate", &[run.job_dir().as_os_str(), "-o".as_ref(), trace.as_os_str()]);
    let out = Command::new(tool("psins-export"))
        .args(["--to".as_ref(), "ti".as_ref(), trace.as_os_str(), "-o".as_ref(), run.dir.join("ti").as_os_str()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("nbc.psins: rank 0, record ") && err.contains("nonblocking collectives"), "{err}");
}

/// An app of ours built with smpicc and run by `smpirun -trace-ti` on 4 hosts, imported: the
/// psins trace of a TI trace written by SimGrid itself.
fn smpi_written(app: &str) -> PathBuf {
    let dir = scratch(&format!("smpi-ti-{app}"));
    let exe = dir.join(app);
    let src = root().join(format!("mpi-test-apps/{app}.c"));
    let st = Command::new("smpicc").arg("-O2").arg("-o").arg(&exe).arg(src).status();
    assert!(st.map(|s| s.success()).unwrap_or(false), "smpicc failed");
    let hosts: String = (0..4).map(|i| format!("h{i}\n")).collect();
    std::fs::write(dir.join("hosts"), hosts).unwrap();
    let mut xml = String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n");
    for i in 0..4 {
        xml += &format!("<host id=\"h{i}\" speed=\"1Gf\"/>\n");
    }
    xml += "<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\" sharing_policy=\"FATPIPE\"/>\n";
    for i in 0..4 {
        for j in 0..4 {
            xml += &format!("<route src=\"h{i}\" dst=\"h{j}\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n");
        }
    }
    xml += "</zone>\n</platform>\n";
    std::fs::write(dir.join("p.xml"), xml).unwrap();
    let out = Command::new("timeout")
        .args(["120", "smpirun", "-np", "4", "-platform", "p.xml", "-hostfile", "hosts", "-trace-ti"])
        .arg(format!("--cfg=tracing/filename:{app}ti"))
        .args(["--log=root.thres:warning", &format!("./{app}")])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "smpirun -trace-ti failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let trace = dir.join(format!("{app}.psins"));
    // smpirun -trace-ti writes compute amounts at smpi/host-speed (default 20 kflop/s).
    run_tool(
        "psins-import",
        &[
            "--from".as_ref(),
            "ti".as_ref(),
            dir.join(format!("{app}ti")).as_os_str(),
            "-o".as_ref(),
            trace.as_os_str(),
            "--host-speed".as_ref(),
            "20000".as_ref(),
        ],
    );
    trace
}

/// SimGrid's own TI of our ring (its `waitall N` and datatype ids as SMPI writes them) holds
/// every message (10 isends of 256 MPI_INTs per rank, all waited for), and replays in psins-sim
/// and, re-exported, in SMPI within 1 %.
#[test]
fn smpi_written_ti_imports_and_replays() {
    if !have_smpirun() {
        return;
    }
    let trace = smpi_written("ring");
    let r = psins_formats::TraceReader::open(&trace).unwrap();
    assert_eq!(r.tasks(), 4);
    for t in 0..4 {
        let mut c = r.task(t, 0).unwrap();
        let mut rec = psins_formats::Record::default();
        let (mut isends, mut completed) = (0, 0);
        while c.next(&mut rec).unwrap() {
            match rec.op {
                psins_formats::Op::Isend { bytes, .. } => {
                    assert_eq!(bytes, 1024);
                    isends += 1;
                }
                psins_formats::Op::Wait { .. } => completed += rec.list.len() / 4,
                _ => {}
            }
        }
        assert_eq!((isends, completed), (10, 20), "rank {t}");
    }
    let (p, s, rel) = agree(&trace, "1000", "1e9");
    assert!(rel.abs() < 1.0, "psins {p} s vs smpi {s} s");
}

/// SimGrid's own TI of our `is` (3 alltoall, 3 alltoallv of MPI_INT keys per rank): every
/// alltoallv keeps its per-rank counts, the bytes each rank sends to a peer are the bytes that
/// peer receives from it, and the import replays in both simulators within 1 %.
#[test]
fn smpi_written_alltoallv_keeps_its_counts() {
    if !have_smpirun() {
        return;
    }
    let trace = smpi_written("is");
    let r = psins_formats::TraceReader::open(&trace).unwrap();
    // Per alltoallv (in order) and rank: the send and the receive lists.
    let mut lists: Vec<Vec<Vec<i64>>> = Vec::new();
    for t in 0..4 {
        let mut c = r.task(t, 0).unwrap();
        let mut rec = psins_formats::Record::default();
        let mut k = 0;
        while c.next(&mut rec).unwrap() {
            if let psins_formats::Op::Coll { coll: psins_formats::Coll::Alltoallv, send_bytes, recv_bytes, .. } = rec.op
            {
                assert_eq!(rec.list.len(), 8, "rank {t}");
                assert_eq!(rec.list[..4].iter().sum::<i64>() as u64, send_bytes);
                assert_eq!(rec.list[4..].iter().sum::<i64>() as u64, recv_bytes);
                assert!(rec.list.iter().all(|&b| b % 4 == 0), "MPI_INT counts: {:?}", rec.list);
                if lists.len() == k {
                    lists.push(Vec::new());
                }
                lists[k].push(rec.list.clone());
                k += 1;
            }
        }
        assert_eq!(k, 3, "rank {t}: alltoallv calls");
    }
    for (k, l) in lists.iter().enumerate() {
        for (i, j) in (0..4).flat_map(|i| (0..4).map(move |j| (i, j))) {
            assert_eq!(l[i][j], l[j][4 + i], "alltoallv {k}: {i} -> {j}");
        }
    }
    let (p, s, rel) = agree(&trace, "1000", "1e9");
    assert!(rel.abs() < 1.0, "psins {p} s vs smpi {s} s");
}

/// scripts/smpi-selectors.sh: where SMPI's selector and psins's library pick the same
/// algorithm, the live SMPI run and psins-sim's replay of its TI trace agree (a reduce of
/// 1 MiB at 16 ranks is Open MPI's binary tree on both sides, twice the time of MPICH's
/// reduce-scatter and gather, which psins picks for mpi.library = mpich).
#[test]
fn smpi_selectors_agree_where_the_algorithms_are_the_same() {
    if !have_smpirun() {
        return;
    }
    let out = Command::new("bash")
        .arg(root().join("scripts/smpi-selectors.sh"))
        .arg("16")
        .env("PSINS_BIN", tools_dir())
        .env("CASES", "barrier:0 reduce:1048576 allgather:16384")
        .output()
        .unwrap();
    let csv = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "smpi-selectors failed:\n{csv}\n{}", String::from_utf8_lossy(&out.stderr));
    let row = |coll: &str, sel: &str| -> (f64, f64) {
        let l = csv
            .lines()
            .find(|l| l.starts_with(&format!("16,{coll},")) && l.contains(&format!(",{sel},")))
            .unwrap_or_else(|| panic!("no row {coll} {sel} in\n{csv}"));
        let f: Vec<&str> = l.split(',').collect();
        (f[4].parse().unwrap(), f[6].parse().unwrap())
    };
    for (coll, sel) in
        [("barrier", "mpich"), ("barrier", "ompi"), ("reduce", "ompi"), ("allgather", "mpich"), ("allgather", "ompi")]
    {
        let (_, rel) = row(coll, sel);
        assert!(rel.abs() < 0.01, "{coll} with {sel}: {rel} %\n{csv}");
    }
    let (ompi, _) = row("reduce", "ompi");
    let (mpich, _) = row("reduce", "mpich");
    assert!(ompi > 1.5 * mpich, "psins's Open MPI reduce {ompi} s against MPICH's {mpich} s");
}
