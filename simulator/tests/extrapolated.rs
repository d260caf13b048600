//! `extrapolate:` traces streamed into the replay: the same prediction as the compact trace
//! psins-extrapolate writes, and as the workload written at the target rank count.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

const SIM: &str = env!("CARGO_BIN_EXE_psins-sim");
const SYNTH: &str = env!("CARGO_BIN_EXE_psins-synth");

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("psins-extrapolated-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn synth(spec: &str, out: &Path) {
    let st = Command::new(SYNTH).args([spec, "-o"]).arg(out).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
}

/// psins-sim's predicted time of `trace` on `machine`, and its JSON report.
fn predict(trace: &str, machine: &str) -> (f64, serde_json::Value) {
    let out = Command::new(SIM).args([trace, "-m", machine, "-q", "--json", "-"]).output().unwrap();
    assert!(out.status.success(), "{trace}: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (v["predicted_seconds"].as_f64().unwrap(), v)
}

/// The series extrapolated to 64 ranks and written, as psins-extrapolate writes it; its path.
fn extrapolate_to_64(inputs: &[PathBuf], dir: &Path) -> PathBuf {
    let opts =
        psins_extrapolate::Options { ranks: 64, scaling: psins_extrapolate::fit::Scaling::Unknown, tolerance: 0.05 };
    let (series, ex) = psins_extrapolate::from_paths(inputs, &opts).unwrap();
    let written = dir.join("x-64.psins");
    psins_extrapolate::write::trace(&Arc::new(ex), &series, &written, &written, None)
        .unwrap_or_else(|_| panic!("write"));
    written
}

#[test]
fn streamed_written_and_true_agree() {
    let d = scratch("stencil");
    let spec = |n: u32| format!("gen:stencil2d:ranks={n},iters=12,bytes=32KiB,compute=40us,allreduce_every=3");
    let inputs: Vec<PathBuf> = [4, 8, 16].iter().map(|n| d.join(format!("s-{n}.psins"))).collect();
    for (n, p) in [4, 8, 16].iter().zip(&inputs) {
        synth(&spec(*n), p);
    }
    let written = extrapolate_to_64(&inputs, &d);
    let list: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
    let streamed = format!("extrapolate:{}:ranks=64", list.join(","));
    for machine in ["bus-cluster", "torus-8x8"] {
        let (truth, _) = predict(&spec(64), machine);
        let (file, report) = predict(written.to_str().unwrap(), machine);
        let (stream, sreport) = predict(&streamed, machine);
        assert_eq!(file, truth, "{machine}: the written extrapolation against the workload at 64 ranks");
        assert_eq!(stream, truth, "{machine}: the streamed extrapolation");
        for r in [&report, &sreport] {
            let x = &r["provenance"]["extrapolation"];
            assert_eq!(x["target"]["ranks"], 64, "{x}");
            assert!(x["topology"].as_str().unwrap().contains("2-D torus"), "{x}");
            assert_eq!(x["inputs"].as_array().unwrap().len(), 3, "{x}");
        }
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_bad_spec_says_what_was_expected() {
    let out = Command::new(SIM).args(["extrapolate:a.psins,b.psins", "-m", "bus-cluster"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no `:ranks=N`") && err.contains("extrapolate:TRACE,TRACE,TRACE:ranks=N"), "{err}");
    let out = Command::new(SIM).args(["extrapolate:a.psins,b.psins:ranks=64", "-m", "bus-cluster"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("a.psins"), "{err}");
}

/// NPB-CG's layout at `p` ranks, written to `path`: row and column communicators from
/// MPI_Comm_split on a 2-D grid, a shift along the row on the row communicator, reductions
/// over the row, the column and the world.
fn rows_and_columns(path: &Path, p: u32) {
    use psins_extrapolate::comms;
    use psins_formats::*;
    let g =
        psins_extrapolate::topo::Shape { ndims: 2, order: psins_extrapolate::topo::Order::RowMajor, periodic: 0 }.at(p);
    let (row, col) = (2u32, 1u32);
    let mut defs = Vec::new();
    let tasks: Vec<Vec<Record>> = (0..p)
        .map(|me| {
            let mut v = vec![Record::new(0, 0, Op::Init { thread_level: 0 })];
            for mask in [row, col] {
                let members = comms::members(&g, mask, me);
                let id = comms::global_id(&g, mask, me);
                if members[0] == me {
                    defs.push(CommDef { id, members: members.clone(), split: 0 });
                }
                let op = Op::CommCreate { func: CommFn::Split, parent: COMM_WORLD, comm: id, split: 0 };
                v.push(Record { gap_ns: 2000, dur_ns: 0, op, list: members.iter().map(|&m| m as i64).collect() });
            }
            let (rid, cid) = (comms::global_id(&g, row, me), comms::global_id(&g, col, me));
            let (n, pc) = (comms::size(&g, row), comms::rank_in(&g, row, me));
            let mut instance = 0;
            for _ in 0..4 {
                let op = Op::Sendrecv {
                    peer: ((pc + 1) % n) as i32,
                    tag: 11,
                    bytes: 64 << 10,
                    src: ((pc + n - 1) % n) as i32,
                    rtag: 11,
                    rbytes: 64 << 10,
                    comm: rid,
                    replace: false,
                };
                v.push(Record::new(30_000, 0, op));
                for comm in [rid, cid, COMM_WORLD] {
                    instance += 1;
                    let op = Op::Coll {
                        coll: Coll::Allreduce,
                        comm,
                        root: NO_RANK,
                        send_bytes: 8,
                        recv_bytes: 8,
                        count: 1,
                        flags: CollFlags::OP_BUILTIN | CollFlags::OP_COMMUTATIVE,
                        req: 0,
                        instance,
                    };
                    v.push(Record::new(1000, 0, op));
                }
            }
            v.push(Record::new(500, 0, Op::CommFree { comm: rid }));
            v.push(Record::new(0, 0, Op::CommFree { comm: cid }));
            v.push(Record::new(100, 0, Op::Finalize));
            v
        })
        .collect();
    TraceWriter::write_tasks(path, &tasks, vec![("generator".into(), "test".into())], defs).unwrap();
}

/// Row and column communicators: the written extrapolation (its communicators made by
/// consolidation from the constructors' members) and the streamed one (their table from the
/// extrapolation) predict what the trace written at the target predicts.
#[test]
fn sub_communicators_streamed_written_and_true_agree() {
    let d = scratch("rows");
    let inputs: Vec<PathBuf> = [4, 8, 16].iter().map(|n| d.join(format!("r-{n}.psins"))).collect();
    for (n, p) in [4, 8, 16].iter().zip(&inputs) {
        rows_and_columns(p, *n);
    }
    let truth = d.join("r-64.psins");
    rows_and_columns(&truth, 64);
    let written = extrapolate_to_64(&inputs, &d);
    let comms = psins_formats::TraceReader::open(&written).unwrap().header.comms;
    assert_eq!(comms.iter().filter(|c| c.members.len() == 8).count(), 16, "8 rows and 8 columns: {comms:?}");
    let list: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
    let streamed = format!("extrapolate:{}:ranks=64", list.join(","));
    for machine in ["bus-cluster", "torus-8x8"] {
        let (want, _) = predict(truth.to_str().unwrap(), machine);
        let (file, _) = predict(written.to_str().unwrap(), machine);
        let (stream, _) = predict(&streamed, machine);
        assert_eq!(file, want, "{machine}: the written extrapolation against the trace at 64 ranks");
        assert_eq!(stream, want, "{machine}: the streamed extrapolation");
    }
    std::fs::remove_dir_all(&d).ok();
}
