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

#[test]
fn streamed_written_and_true_agree() {
    let d = scratch("stencil");
    let spec = |n: u32| format!("gen:stencil2d:ranks={n},iters=12,bytes=32KiB,compute=40us,allreduce_every=3");
    let inputs: Vec<PathBuf> = [4, 8, 16].iter().map(|n| d.join(format!("s-{n}.psins"))).collect();
    for (n, p) in [4, 8, 16].iter().zip(&inputs) {
        synth(&spec(*n), p);
    }
    let opts =
        psins_extrapolate::Options { ranks: 64, scaling: psins_extrapolate::fit::Scaling::Unknown, tolerance: 0.05 };
    let (series, ex) = psins_extrapolate::from_paths(&inputs, &opts).unwrap();
    let written = d.join("x-64.psins");
    psins_extrapolate::write::trace(&Arc::new(ex), &series, &written, &written, None)
        .unwrap_or_else(|_| panic!("write"));
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
