//! Builds the calibration worker (worker/psins_calib_worker.c) against the system's MPI, found
//! the way the tracer finds it (`psins-mpi-probe`). On failure every reason is listed.

use std::env;
use std::path::{Path, PathBuf};

fn main() {
    let src = "worker/psins_calib_worker.c";
    println!("cargo:rerun-if-changed={src}");
    psins_mpi_probe::rerun_if_env_changed();
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("psins-calib-worker");
    let mpi = psins_mpi_probe::probe().unwrap_or_else(|e| panic!("cannot build the calibration worker {src}: {e}"));
    if let Err(e) = mpi.compile_program(Path::new(src), &out, &["-O2", "-Wall"]) {
        panic!("cannot build the calibration worker {src} with the MPI {} found: {e}", mpi.found_by);
    }
}
