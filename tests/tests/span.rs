//! scripts/span.c, the measure of `make validate`'s untraced runs: preloaded, it prints one
//! `PSINS_SPAN` line per rank, for C programs and for Fortran ones, whose bindings call
//! `PMPI_*` directly under MPICH's mpi_f08 and under all of Open MPI's (without span.c's
//! Fortran wrappers such a program prints no span, and validate.sh stops at it).

use psins_e2e::*;

/// scripts/span.c built with `$MPICC`, once.
fn span_so() -> std::path::PathBuf {
    static SO: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    SO.get_or_init(|| mpicc("scripts/span.c", "libpsinsspan.so", &["-O2", "-Wall", "-Werror", "-shared", "-fPIC"]))
        .clone()
}

/// The ranks whose span the run printed, in order.
fn spans(app_name: &str) -> Vec<u32> {
    let mut cmd = launcher(&["LD_PRELOAD"]);
    let _g = serial();
    let out = cmd.args(["-n", "2"]).arg(app(app_name)).env("LD_PRELOAD", span_so()).output().expect("mpirun runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{app_name}: {err}");
    let mut ranks: Vec<u32> = err
        .lines()
        .filter_map(|l| l.strip_prefix("PSINS_SPAN rank="))
        .map(|r| r.split_whitespace().next().and_then(|n| n.parse().ok()).expect("a rank number"))
        .collect();
    ranks.sort();
    ranks
}

#[test]
fn c_and_fortran_programs_each_print_one_span_per_rank() {
    need_mpi!();
    for name in ["stencil2d", "stencil_f", "stencil_f08"] {
        if name != "stencil2d" && !fortran_app_built(name) {
            continue;
        }
        assert_eq!(spans(name), vec![0, 1], "{name}: one PSINS_SPAN line per rank");
    }
}
