//! Build script of libpsinstrace.so.
//!
//! 1. Finds the system MPI with `psins-mpi-probe` (a wrapper's `-show`, then pkg-config); when
//!    nothing works it lists every reason.
//! 2. Generates the C wrappers from the one table of MPI signatures,
//!    `c-headers/mpi_functions.tbl`, into OUT_DIR (never into the repository):
//!    `psins_wrappers.inc` (one wrapper per MPI function, plus wrappers of the Fortran
//!    bindings that bypass them: MPICH's mpi_f08, all of Open MPI's),
//!    `psins_weak.h` (`#pragma weak` for every PMPI symbol, so the .so loads into processes
//!    without libmpi) and `psins_ids.h` (`shim-gen/src/wrappers.rs`; the table is parsed by
//!    `vocab/src/mpi_table.rs`).
//!    Also, from the Rust definitions (`shim-gen/src/boundary.rs`): `psins_ev.h`, the record
//!    codes of `vocab/src/record.rs` and the `psins_ev` struct of `vocab/src/ev.rs` for C, with
//!    static assertions on its layout, and `ev_layout.rs`, the same assertions for `src/ffi.rs`.
//! 3. Compiles `c-headers/shim.c` (which includes the generated files) with the `cc` crate and
//!    links it whole into the cdylib; an extra version script exports the `MPI_*`/`mpi_*`
//!    symbols (rustc's own script would hide them). libmpi is *not* linked: the PMPI symbols
//!    resolve from the application at run time.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

// The table's parser (shared with formats/build.rs, which writes the id -> name table) and
// the generators of the C side: the one definition of what crosses the C boundary is in
// psins-vocab, compiled into this script through psins-shim-gen.
use psins_shim_gen::{boundary, wrappers};
use psins_vocab::mpi_table as table;

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let headers = manifest.join("../c-headers");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let table_path = headers.join("mpi_functions.tbl");
    for f in ["mpi_functions.tbl", "shim.c", "psins_shim.h", "fortran_ompi.h"] {
        println!("cargo:rerun-if-changed={}", headers.join(f).display());
    }

    // psins_ev.h / ev_layout.rs: for the target's pointer size, not this script's
    let ptr_bits: usize = env::var("CARGO_CFG_TARGET_POINTER_WIDTH").ok().and_then(|w| w.parse().ok()).unwrap_or(64);
    let b = boundary::generate(ptr_bits / 8).unwrap_or_else(|e| panic!("vocab/src/ev.rs: {e}"));
    write_if_changed(&out.join("psins_ev.h"), &b.header);
    write_if_changed(&out.join("ev_layout.rs"), &b.rust);
    psins_mpi_probe::rerun_if_env_changed();

    let table_text =
        fs::read_to_string(&table_path).unwrap_or_else(|e| panic!("cannot read {}: {e}", table_path.display()));
    let funcs = table::parse_table(&table_text).unwrap_or_else(|e| panic!("{}: {e}", table_path.display()));

    let mpi = psins_mpi_probe::probe().unwrap_or_else(|e| panic!("psins-tracer: {e}"));
    // Wrap only what this MPI's headers declare (the table is MPICH 4.0.2's mpi.h; an older
    // or other MPI lacks some functions).
    let declared = wrappers::declared_functions(&mpi.includes);
    let gen = wrappers::generate(&funcs, &declared);
    write_if_changed(&out.join("psins_wrappers.inc"), &gen.wrappers);
    write_if_changed(&out.join("psins_weak.h"), &gen.weak);
    write_if_changed(&out.join("psins_ids.h"), &gen.ids);

    println!(
        "cargo:rustc-env=PSINS_MPI_INCLUDE={}",
        env::join_paths(&mpi.includes).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
    );
    println!("cargo:rustc-env=PSINS_MPI_FOUND_BY={}", mpi.found_by);

    // -O2 in the optimised profiles (the tracer's per-call cost is measured so,
    // docs/performance.md); -O0 below opt-level 2 (the tests' profile and dev), where no speed
    // is measured: the 35,000 lines of generated wrappers compile in 5 s at -O0, 14 s at -O1
    // and 23 s at -O2.
    let opt = env::var("OPT_LEVEL").ok().and_then(|o| o.parse::<u32>().ok()).map_or(2, |o| if o >= 2 { 2 } else { 0 });
    let mut b = cc::Build::new();
    b.file(headers.join("shim.c"))
        .include(&headers)
        .include(&out)
        .opt_level(opt)
        .flag_if_supported("-fno-strict-aliasing")
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-deprecated-declarations")
        .flag_if_supported("-Werror=implicit-function-declaration")
        // Every wrapper clears its psins_ev (112 bytes): with gcc's generic tuning that is a
        // `rep stos` in some of them (tens of cycles to start up) instead of a few vector stores.
        .flag_if_supported("-mmemset-strategy=vector_loop:256:noalign,libcall:-1:noalign")
        .warnings(true)
        .link_lib_modifier("+whole-archive");
    for i in &mpi.includes {
        b.include(i);
    }
    for (k, v) in &mpi.defines {
        b.define(k, v.as_deref());
    }
    b.compile("psinsshim");

    let ver = out.join("psins_exports.ver");
    write_if_changed(&ver, "{ global: MPI_*; mpi_*; };\n");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={}", ver.display());
    println!("cargo:rustc-link-lib=dylib=dl");
}

fn write_if_changed(path: &Path, text: &str) {
    if fs::read_to_string(path).ok().as_deref() != Some(text) {
        fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }
}
