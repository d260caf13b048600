//! Builds the calibration worker (worker/psins_calib_worker.c) with the system's MPI compiler
//! wrapper, the way the tracer finds MPI: `$MPICC`, then `mpicc` on PATH. On failure every
//! reason is listed, so the fix is clear without reading this file.

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let src = "worker/psins_calib_worker.c";
    println!("cargo:rerun-if-changed={src}");
    println!("cargo:rerun-if-env-changed=MPICC");
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("psins-calib-worker");
    let mut tried = Vec::new();
    if let Ok(cc) = env::var("MPICC") {
        if !cc.trim().is_empty() {
            tried.push(cc);
        }
    }
    tried.push("mpicc".into());
    let mut reasons = Vec::new();
    for cc in &tried {
        match Command::new(cc).args(["-O2", "-Wall", "-o"]).arg(&out).arg(src).output() {
            Ok(o) if o.status.success() => return,
            Ok(o) => {
                reasons.push(format!("`{cc}` failed ({}): {}", o.status, String::from_utf8_lossy(&o.stderr).trim()))
            }
            Err(e) => reasons.push(format!("`{cc}` could not be run: {e}")),
        }
    }
    panic!(
        "cannot build the calibration worker {src}:\n  - {}\nInstall an MPI (Debian: libmpich-dev) or set MPICC to an MPI compiler wrapper.",
        reasons.join("\n  - ")
    );
}
