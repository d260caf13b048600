//! psins-calibrate's eager probe (calibrate/worker/psins_calib_worker.c, `blocks`) under the
//! real MPI: the largest message a blocking send completes before its receive is posted.

use psins_e2e::*;
use std::path::PathBuf;
use std::process::Command;

/// The calibration worker built with `$MPICC`, once.
fn worker() -> PathBuf {
    static W: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    W.get_or_init(|| mpicc("calibrate/worker/psins_calib_worker.c", "psins-calib-worker", &["-O2"])).clone()
}

/// `eager_threshold = "4032B"` or `"8KiB"` of a machine file, in bytes.
fn eager_threshold(text: &str) -> Option<u64> {
    let v = text.lines().find_map(|l| l.strip_prefix("eager_threshold = "))?.trim_matches('"');
    let (n, unit) = v.split_at(v.find(|c: char| !c.is_ascii_digit())?);
    let n: u64 = n.parse().ok()?;
    match unit {
        "B" => Some(n),
        "KiB" => Some(n << 10),
        "MiB" => Some(n << 20),
        _ => None,
    }
}

/// Between two ranks of one host both libraries send 4 KiB eagerly: MPICH 4.0.2's shared
/// memory up to 8 KiB, Open MPI 4.1's vader up to 4 KiB (4032 B of payload). Vader completes
/// a send of more than 256 B that no fast box takes only once the receiver's progress has
/// copied it, so a receiver that waited outside MPI made 256–848 B look like its threshold,
/// and replays of codes that rely on eager sends up to 4 KiB deadlocked on the file.
#[test]
fn the_eager_probe_finds_the_librarys_threshold() {
    need_mpi!();
    let out = scratch("eager-probe").join("machine.toml");
    let l = launcher(&[]);
    // A probe that contradicts itself on a busy host leaves the threshold out of a flagged
    // file: try again then.
    for _ in 0..3 {
        let mut cmd = Command::new(tool("psins-calibrate"));
        cmd.args(["--quick", "--allow-noisy", "--worker"]).arg(worker()).arg("-o").arg(&out).arg("--");
        cmd.arg(l.get_program()).args(l.get_args()).args(["-n", "2"]);
        let o = {
            let _g = serial();
            cmd.output().expect("psins-calibrate runs")
        };
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&out).unwrap();
        if let Some(t) = eager_threshold(&text) {
            assert!((4000..=8192).contains(&t), "eager threshold {t} B under {:?}:\n{text}", mpi());
            return;
        }
    }
    panic!("three calibrations left the eager threshold out (a self-contradicting probe each time)");
}
