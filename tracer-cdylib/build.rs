//! Build script of libpsinstrace.so.
//!
//! 1. Finds the system MPI the way rsmpi does: `$MPICC -show`, then `mpicc -show`, then
//!    pkg-config `mpich` and `ompi`; when none works it lists every reason.
//! 2. Generates the C wrappers from the one table of MPI signatures,
//!    `c-headers/mpi_functions.tbl`, into OUT_DIR (never into the repository):
//!    `psins_wrappers.inc` (one wrapper per MPI function, plus wrappers of the Fortran
//!    bindings that bypass them: MPICH's mpi_f08, all of Open MPI's),
//!    `psins_weak.h` (`#pragma weak` for every PMPI symbol, so the .so loads into processes
//!    without libmpi) and `psins_ids.h` (`build/wrappers.rs`; the table is parsed by
//!    `formats/src/mpi_table.rs`, whose crate holds the id/name table for Rust).
//!    Also, from the Rust definitions (`build/boundary.rs`): `psins_ev.h`, the record codes of
//!    `formats/src/record.rs` and the `psins_ev` struct of `src/ev.rs` for C, with static
//!    assertions on its layout, and `ev_layout.rs`, the same assertions for `src/ffi.rs`.
//! 3. Compiles `c-headers/shim.c` (which includes the generated files) with the `cc` crate and
//!    links it whole into the cdylib; an extra version script exports the `MPI_*`/`mpi_*`
//!    symbols (rustc's own script would hide them). libmpi is *not* linked: the PMPI symbols
//!    resolve from the application at run time.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

// The table's parser (shared with formats/build.rs, which writes the id -> name table) and
// the wrapper generator (build/wrappers.rs, with the Fortran bindings in build/fortran.rs).
#[path = "../formats/src/mpi_table.rs"]
#[allow(dead_code)]
mod table;
#[path = "build/wrappers.rs"]
mod wrappers;

// The one definition of what crosses the C boundary, compiled into this script as well as
// into their crates (both files are self-contained for that), and the generator of the C side.
#[path = "build/boundary.rs"]
mod boundary;
#[path = "src/ev.rs"]
#[allow(dead_code)]
mod ev;
#[path = "../formats/src/record.rs"]
#[allow(dead_code)]
mod record;

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let headers = manifest.join("../c-headers");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let table_path = headers.join("mpi_functions.tbl");
    for f in ["mpi_functions.tbl", "shim.c", "psins_shim.h", "fortran_ompi.h"] {
        println!("cargo:rerun-if-changed={}", headers.join(f).display());
    }
    for f in [
        "../formats/src/record.rs",
        "../formats/src/mpi_table.rs",
        "src/ev.rs",
        "build/boundary.rs",
        "build/wrappers.rs",
        "build/fortran.rs",
    ] {
        println!("cargo:rerun-if-changed={}", manifest.join(f).display());
    }

    // psins_ev.h / ev_layout.rs: for the target's pointer size, not this script's
    let ptr_bits: usize = env::var("CARGO_CFG_TARGET_POINTER_WIDTH").ok().and_then(|w| w.parse().ok()).unwrap_or(64);
    let b = boundary::generate(ptr_bits / 8).unwrap_or_else(|e| panic!("tracer-cdylib/src/ev.rs: {e}"));
    write_if_changed(&out.join("psins_ev.h"), &b.header);
    write_if_changed(&out.join("ev_layout.rs"), &b.rust);
    println!("cargo:rerun-if-env-changed=MPICC");
    println!("cargo:rerun-if-env-changed=PSINS_MPI_PKG");

    let table_text =
        fs::read_to_string(&table_path).unwrap_or_else(|e| panic!("cannot read {}: {e}", table_path.display()));
    let funcs = table::parse_table(&table_text).unwrap_or_else(|e| panic!("{}: {e}", table_path.display()));

    let mpi = match discover_mpi() {
        Ok(m) => m,
        Err(reasons) => {
            let mut msg = String::from(
                "psins-tracer: cannot find an MPI installation to build the C shim against.\n\
                 Tried, in order:\n",
            );
            for r in reasons {
                let _ = writeln!(msg, "  - {r}");
            }
            msg.push_str(
                "Install MPICH (Debian: apt-get install mpich libmpich-dev) or Open MPI \
                 (libopenmpi-dev), or set MPICC to an MPI compiler wrapper.",
            );
            panic!("{msg}");
        }
    };
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

    let mut b = cc::Build::new();
    b.file(headers.join("shim.c"))
        .include(&headers)
        .include(&out)
        .opt_level(2)
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

// ---------------------------------------------------------------------------------- MPI

struct Mpi {
    includes: Vec<PathBuf>,
    defines: Vec<(String, Option<String>)>,
    found_by: String,
}

fn discover_mpi() -> Result<Mpi, Vec<String>> {
    let mut reasons = Vec::new();
    let mut wrappers: Vec<(String, String)> = Vec::new();
    match env::var("MPICC") {
        Ok(cc) if !cc.trim().is_empty() => wrappers.push((cc.clone(), format!("MPICC={cc}"))),
        _ => reasons.push("MPICC is not set".to_string()),
    }
    wrappers.push(("mpicc".into(), "mpicc on PATH".into()));
    for (cmd, what) in wrappers {
        for flag in ["-show", "-showme"] {
            match Command::new(&cmd).arg(flag).output() {
                Err(e) => {
                    reasons.push(format!("{what}: cannot run `{cmd} {flag}`: {e}"));
                    break;
                }
                Ok(o) if !o.status.success() => reasons.push(format!(
                    "{what}: `{cmd} {flag}` failed ({}): {}",
                    o.status,
                    String::from_utf8_lossy(&o.stderr).trim()
                )),
                Ok(o) => {
                    let text = String::from_utf8_lossy(&o.stdout).to_string();
                    let m = parse_flags(&text, format!("`{cmd} {flag}`"));
                    match check_mpi_h(&m) {
                        Ok(()) => return Ok(m),
                        Err(e) => reasons.push(format!("{what}: `{cmd} {flag}` printed `{}` but {e}", text.trim())),
                    }
                }
            }
        }
    }
    let pkgs: Vec<String> = match env::var("PSINS_MPI_PKG") {
        Ok(p) if !p.is_empty() => vec![p],
        _ => vec!["mpich".into(), "ompi".into()],
    };
    for pkg in pkgs {
        match Command::new("pkg-config").args(["--cflags", &pkg]).output() {
            Err(e) => reasons.push(format!("pkg-config {pkg}: cannot run pkg-config: {e}")),
            Ok(o) if !o.status.success() => reasons
                .push(format!("pkg-config {pkg}: {}", String::from_utf8_lossy(&o.stderr).trim().replace('\n', " "))),
            Ok(o) => {
                let m = parse_flags(&String::from_utf8_lossy(&o.stdout), format!("pkg-config {pkg}"));
                match check_mpi_h(&m) {
                    Ok(()) => return Ok(m),
                    Err(e) => reasons.push(format!("pkg-config {pkg}: {e}")),
                }
            }
        }
    }
    Err(reasons)
}

fn parse_flags(text: &str, found_by: String) -> Mpi {
    let mut m = Mpi { includes: Vec::new(), defines: Vec::new(), found_by };
    let toks: Vec<&str> = text.split_whitespace().collect();
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        if let Some(p) = t.strip_prefix("-I") {
            if p.is_empty() {
                if let Some(n) = toks.get(i + 1) {
                    m.includes.push(PathBuf::from(n));
                    i += 1;
                }
            } else {
                m.includes.push(PathBuf::from(p));
            }
        } else if let Some(d) = t.strip_prefix("-D") {
            let mut kv = d.splitn(2, '=');
            let k = kv.next().unwrap().to_string();
            m.defines.push((k, kv.next().map(str::to_string)));
        }
        i += 1;
    }
    m
}

fn check_mpi_h(m: &Mpi) -> Result<(), String> {
    let mut dirs = m.includes.clone();
    dirs.push("/usr/include".into());
    dirs.push("/usr/local/include".into());
    if dirs.iter().any(|d| d.join("mpi.h").is_file()) {
        Ok(())
    } else {
        Err(format!("no mpi.h in {:?}", dirs))
    }
}
