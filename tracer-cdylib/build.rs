//! Build script of libpsinstrace.so.
//!
//! 1. Finds the system MPI the way rsmpi does: `$MPICC -show`, then `mpicc -show`, then
//!    pkg-config `mpich` and `ompi`; when none works it lists every reason.
//! 2. Generates the C wrappers from the one table of MPI signatures,
//!    `c-headers/mpi_functions.tbl`, into OUT_DIR (never into the repository):
//!    `psins_wrappers.inc` (one wrapper per MPI function, plus wrappers of the Fortran
//!    bindings that bypass them: MPICH's mpi_f08, all of Open MPI's),
//!    `psins_weak.h` (`#pragma weak` for every PMPI symbol, so the .so loads into processes
//!    without libmpi), `psins_ids.h`, and `functions.rs` (the id/name/how table for Rust).
//!    Also, from the Rust definitions (`build/boundary.rs`): `psins_ev.h`, the record codes of
//!    `formats/src/record.rs` and the `psins_ev` struct of `src/ev.rs` for C, with static
//!    assertions on its layout, and `ev_layout.rs`, the same assertions for `src/ffi.rs`.
//! 3. Compiles `c-headers/shim.c` (which includes the generated files) with the `cc` crate and
//!    links it whole into the cdylib; an extra version script exports the `MPI_*`/`mpi_*`
//!    symbols (rustc's own script would hide them). libmpi is *not* linked: the PMPI symbols
//!    resolve from the application at run time.

use std::collections::BTreeSet;
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "build/fortran.rs"]
mod fortran;
use fortran::{add_fortran, FORTRAN};

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
    for f in ["../formats/src/record.rs", "src/ev.rs", "build/boundary.rs", "build/fortran.rs"] {
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
    let funcs = parse_table(&table_text).unwrap_or_else(|e| panic!("{}: {e}", table_path.display()));

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
    let declared = declared_functions(&mpi.includes);
    let gen = generate(&funcs, &declared);
    write_if_changed(&out.join("psins_wrappers.inc"), &gen.wrappers);
    write_if_changed(&out.join("psins_weak.h"), &gen.weak);
    write_if_changed(&out.join("psins_ids.h"), &gen.ids);
    write_if_changed(&out.join("functions.rs"), &gen.rust);

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

// ---------------------------------------------------------------------------------- table

#[derive(Debug, Clone)]
struct Param {
    /// The declaration as written (`const int recvcounts[]`).
    decl: String,
    /// The type without the name (`const int []`): for classification.
    ty: String,
    name: String,
}

#[derive(Debug, Clone)]
struct Func {
    id: u32,
    how: String,
    ret: String,
    name: String,
    params: Vec<Param>,
    f08: bool,
}

fn parse_table(text: &str) -> Result<Vec<Func>, String> {
    let mut funcs = Vec::new();
    let mut ids = BTreeSet::new();
    let mut names = BTreeSet::new();
    for (ln, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |m: &str| format!("line {}: {m}: {line}", ln + 1);
        let mut rest = line;
        let id_s = next_word(&mut rest);
        let how = next_word(&mut rest).to_string();
        let id: u32 = id_s.parse().map_err(|_| err("bad id"))?;
        let mut proto = rest.trim();
        let mut f08 = false;
        if let Some(p) = proto.strip_suffix("+f08") {
            f08 = true;
            proto = p.trim();
        }
        let open = proto.find('(').ok_or_else(|| err("no '('"))?;
        let close = proto.rfind(')').ok_or_else(|| err("no ')'"))?;
        let head = proto[..open].trim();
        let (ret, name) = match head.rfind(|c: char| c.is_whitespace() || c == '*') {
            Some(p) => (head[..=p].trim().to_string(), head[p + 1..].to_string()),
            None => return Err(err("no return type")),
        };
        let mut params = Vec::new();
        let inner = proto[open + 1..close].trim();
        if inner != "void" && !inner.is_empty() {
            for p in inner.split(',') {
                params.push(parse_param(p.trim()).ok_or_else(|| err(&format!("cannot parse parameter `{p}`")))?);
            }
        }
        if !ids.insert(id) {
            return Err(err("duplicate id"));
        }
        if !names.insert(name.clone()) {
            return Err(err("duplicate function"));
        }
        known_how(&how).map_err(|m| err(&m))?;
        if how != "none" && params.iter().any(|p| p.ty == "...") {
            return Err(err("variadic functions can only be `none`"));
        }
        funcs.push(Func { id, how, ret, name, params, f08 });
    }
    Ok(funcs)
}

fn next_word<'a>(s: &mut &'a str) -> &'a str {
    let t = s.trim_start();
    let end = t.find(char::is_whitespace).unwrap_or(t.len());
    *s = &t[end..];
    &t[..end]
}

fn parse_param(p: &str) -> Option<Param> {
    if p == "..." {
        return Some(Param { decl: p.into(), ty: p.into(), name: String::new() });
    }
    // name = last identifier before an optional array suffix
    let (base, arr) = match p.find('[') {
        Some(i) => (&p[..i], &p[i..]),
        None => (p, ""),
    };
    let base = base.trim_end();
    let start = base.rfind(|c: char| !(c.is_alphanumeric() || c == '_'))? + 1;
    let name = base[start..].to_string();
    if name.is_empty() {
        return None;
    }
    let ty = format!("{}{}", base[..start].trim(), if arr.is_empty() { String::new() } else { format!(" {arr}") });
    Some(Param { decl: p.to_string(), ty: norm(&ty), name })
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").replace(" *", "*").replace("* ", "*")
}

const SIMPLE_KINDS: &[&str] = &[
    "none",
    "count",
    "other",
    "other_req",
    "other_comm",
    "init",
    "init_thread",
    "finalize",
    "abort",
    "recv",
    "irecv",
    "recv_init",
    "mrecv",
    "imrecv",
    "sendrecv",
    "sendrecv_replace",
    "isendrecv",
    "isendrecv_replace",
    "probe",
    "iprobe",
    "mprobe",
    "improbe",
    "start",
    "startall",
    "request_free",
    "cancel",
    "wait",
    "waitall",
    "waitany",
    "waitsome",
    "test",
    "testall",
    "testany",
    "testsome",
    "comm_free",
    "put",
    "get",
    "accumulate",
    "get_accumulate",
    "fetch_and_op",
    "compare_and_swap",
    "rput",
    "rget",
    "raccumulate",
    "rget_accumulate",
    "win_fence",
    "win_post",
    "win_start",
    "win_complete",
    "win_wait",
    "win_test",
    "win_lock",
    "win_unlock",
    "win_lock_all",
    "win_unlock_all",
    "win_flush",
    "win_flush_all",
    "win_flush_local",
    "win_flush_local_all",
    "win_sync",
    "win_create",
    "win_allocate",
    "win_allocate_shared",
    "win_create_dynamic",
    "win_free",
];

fn known_how(how: &str) -> Result<(), String> {
    if SIMPLE_KINDS.contains(&how) {
        return Ok(());
    }
    let (k, a) = how.split_once(':').ok_or_else(|| format!("unknown kind `{how}`"))?;
    match k {
        "send" | "isend" | "send_init" if ["std", "sync", "ready", "buffered"].contains(&a) => Ok(()),
        "coll" | "comm_new" => Ok(()),
        _ => Err(format!("unknown kind `{how}`")),
    }
}

// ---------------------------------------------------------------------------------- generation

struct Generated {
    wrappers: String,
    weak: String,
    ids: String,
    rust: String,
}

/// Names `MPI_*` followed by `(` in the MPI headers (mpi*.h) of `includes`; None if no
/// header could be read (then everything is wrapped).
fn declared_functions(includes: &[PathBuf]) -> Option<BTreeSet<String>> {
    let mut names = BTreeSet::new();
    let mut macros = BTreeSet::new();
    let mut dirs = includes.to_vec();
    dirs.push("/usr/include".into());
    let mut any = false;
    for d in dirs {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().to_string();
            if !(n.starts_with("mpi") && n.ends_with(".h")) || n.starts_with("mpif") {
                continue;
            }
            let Ok(text) = fs::read_to_string(e.path()) else { continue };
            if n == "mpi.h" {
                any = true;
            }
            let b = text.as_bytes();
            let mut i = 0;
            while let Some(p) = text[i..].find("MPI_") {
                let start = i + p;
                let mut end = start;
                while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
                    end += 1;
                }
                let mut k = end;
                while k < b.len() && (b[k] == b' ' || b[k] == b'\t') {
                    k += 1;
                }
                if k < b.len() && b[k] == b'(' {
                    let line_start = text[..start].rfind('\n').map_or(0, |q| q + 1);
                    let before = text[line_start..start].trim();
                    if before.starts_with('#') && before.contains("define") {
                        macros.insert(text[start..end].to_string()); // e.g. removed MPI-1 functions
                    } else {
                        names.insert(text[start..end].to_string());
                    }
                }
                i = end.max(start + 1);
            }
        }
    }
    any.then(|| names.difference(&macros).cloned().collect())
}

/// The kinds whose C wrappers are hand-written in shim.c.
const HAND_WRITTEN: &[&str] = &["init", "init_thread", "finalize", "abort"];

fn generate(funcs: &[Func], declared: &Option<BTreeSet<String>>) -> Generated {
    let max_id = funcs.iter().map(|f| f.id).max().unwrap_or(0);
    let mut weak = String::from("/* generated by tracer-cdylib/build.rs from c-headers/mpi_functions.tbl */\n");
    let mut w = String::from("/* generated by tracer-cdylib/build.rs from c-headers/mpi_functions.tbl */\n\n");
    let mut fortran = vec![String::new(); FORTRAN.len()];
    for f in funcs {
        if f.how != "none" {
            let _ = writeln!(weak, "#pragma weak P{}", f.name);
        }
        match f.how.as_str() {
            "none" => continue,
            h if HAND_WRITTEN.contains(&h) => {
                add_fortran(&mut fortran, f);
                continue;
            }
            _ => {}
        }
        if let Some(d) = declared {
            if !d.contains(&f.name) {
                let _ = writeln!(w, "/* {}: not declared by this MPI's headers, not wrapped */\n", f.name);
                continue;
            }
        }
        w.push_str(&c_wrapper(f));
        add_fortran(&mut fortran, f);
    }
    // extra PMPI symbols the hooks use that are not wrapped themselves
    for extra in ["PMPI_Init", "PMPI_Init_thread", "PMPI_Finalize", "PMPI_Abort"] {
        let _ = writeln!(weak, "#pragma weak {extra}");
    }
    for (abi, s) in FORTRAN.iter().zip(&fortran) {
        let g = abi.guard();
        let _ = write!(w, "\n/* ---- {} ---- */\n#ifdef {g}\n{}{s}#endif /* {g} */\n", abi.banner(), abi.prelude());
    }
    let ids = format!("/* generated by tracer-cdylib/build.rs */\n#define PSINS_N_FUNCS {}\n", max_id + 1);
    let mut rust = String::from(
        "// generated by tracer-cdylib/build.rs from c-headers/mpi_functions.tbl\n\
         /// (id, name, how) for every MPI function in the table.\n\
         pub const FUNCTIONS: &[(u32, &str, &str)] = &[\n",
    );
    for f in funcs {
        let how = if f.f08 { format!("{} +f08", f.how) } else { f.how.clone() };
        let _ = writeln!(rust, "    ({}, \"{}\", \"{}\"),", f.id, f.name, how);
    }
    rust.push_str("];\n");
    let _ = writeln!(rust, "pub const N_FUNCS: usize = {};", max_id + 1);
    Generated { wrappers: w, weak, ids, rust }
}

fn args(f: &Func) -> String {
    f.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
}

fn decls(f: &Func) -> String {
    if f.params.is_empty() {
        "void".into()
    } else {
        f.params.iter().map(|p| p.decl.as_str()).collect::<Vec<_>>().join(", ")
    }
}

fn param_of(f: &Func, pred: impl Fn(&Param) -> bool) -> Option<&Param> {
    f.params.iter().find(|p| pred(p))
}
fn last_param_of(f: &Func, pred: impl Fn(&Param) -> bool) -> Option<&Param> {
    f.params.iter().rev().find(|p| pred(p))
}

const STATUS_KINDS: &[&str] = &[
    "recv",
    "mrecv",
    "sendrecv",
    "sendrecv_replace",
    "probe",
    "iprobe",
    "mprobe",
    "improbe",
    "wait",
    "test",
    "waitany",
    "testany",
];
const STATUSES_KINDS: &[&str] = &["waitall", "testall", "waitsome", "testsome"];
const PRE_KINDS: &[&str] = &[
    "wait",
    "test",
    "waitall",
    "testall",
    "waitany",
    "testany",
    "waitsome",
    "testsome",
    "request_free",
    "comm_free",
    "win_free",
    "mrecv",
    "imrecv",
];

/// The hook call for `f` (its post-call part) and the pre-call hook, if any. `fid` is the
/// function id expression; arguments are the wrapper's parameter names.
fn hook_calls(f: &Func, argv: &[String]) -> (Option<String>, String) {
    let a = argv.join(", ");
    let arg_of = |p: &Param| -> String {
        let i = f.params.iter().position(|q| std::ptr::eq(q, p)).unwrap();
        argv[i].clone()
    };
    let sep = if a.is_empty() { "" } else { ", " };
    let kind = f.how.as_str();
    let (k, arg) = kind.split_once(':').unwrap_or((kind, ""));
    let fid = f.id;
    let post = match k {
        "other" => format!("h_other(&T, {fid})"),
        "other_req" => {
            let req = last_param_of(f, |p| p.ty == "MPI_Request*" || p.ty == "MPIO_Request*")
                .map(arg_of)
                .unwrap_or_else(|| "NULL".into());
            let persistent = f.name.trim_end_matches("_c").ends_with("_init");
            let h = if persistent { "h_other_preq" } else { "h_other_req" };
            format!("{h}(&T, {fid}, {req})")
        }
        "other_comm" => {
            let c = last_param_of(f, |p| p.ty == "MPI_Comm*").map(arg_of).unwrap_or_else(|| "NULL".into());
            format!("h_other_comm(&T, {fid}, {c})")
        }
        "send" | "isend" | "send_init" => {
            let mode = match arg {
                // SendMode's names, as psins_ev.h spells them
                "std" => "PSINS_MODE_STANDARD",
                "sync" => "PSINS_MODE_SYNCHRONOUS",
                "ready" => "PSINS_MODE_READY",
                _ => "PSINS_MODE_BUFFERED",
            };
            format!("h_{k}(&T, {fid}, {mode}{sep}{a})")
        }
        "coll" => {
            let nb = f.params.last().map(|p| p.ty == "MPI_Request*").unwrap_or(false);
            let suffix = if f.name.ends_with("_c") { "_c" } else { "" };
            let extra = if nb { "" } else { ", NULL" };
            format!("h_coll_{}{suffix}(&T, {fid}, {}{sep}{a}{extra})", arg.to_lowercase(), nb as u8)
        }
        "comm_new" => {
            let parent = param_of(f, |p| p.ty == "MPI_Comm").map(arg_of).unwrap_or_else(|| "MPI_COMM_NULL".into());
            let newc = last_param_of(f, |p| p.ty == "MPI_Comm*").map(arg_of).unwrap_or_else(|| "NULL".into());
            format!("h_comm_new(&T, {fid}, PSINS_COMMFN_{arg}, {parent}, {newc})")
        }
        _ => format!("h_{k}(&T, {fid}{sep}{a})"),
    };
    let pre = PRE_KINDS.contains(&k).then(|| format!("pre_{k}(&T, {fid}{sep}{a})"));
    (pre, post)
}

fn status_fixups(f: &Func, indent: &str) -> String {
    let mut s = String::new();
    let k = f.how.split(':').next().unwrap();
    if STATUS_KINDS.contains(&k) {
        for p in f.params.iter().filter(|p| p.ty == "MPI_Status*") {
            let _ = writeln!(s, "{indent}if ({0} == MPI_STATUS_IGNORE) {0} = &T.st;", p.name);
        }
    }
    if STATUSES_KINDS.contains(&k) {
        let n = param_of(f, |p| p.name == "count" || p.name == "incount")
            .map(|p| p.name.clone())
            .unwrap_or_else(|| "0".into());
        for p in f.params.iter().filter(|p| p.ty == "MPI_Status []") {
            let _ = writeln!(s, "{indent}if ({0} == MPI_STATUSES_IGNORE) {0} = psins_statuses({n});", p.name);
        }
    }
    s
}

fn c_wrapper(f: &Func) -> String {
    let mut s = String::new();
    let a = args(f);
    let ret_void = f.ret == "void";
    let _ = writeln!(s, "/* {} ({}) */", f.name, f.how);
    let _ = writeln!(s, "{} {}({})\n{{", f.ret, f.name, decls(f));
    if f.how == "count" {
        let _ = writeln!(s, "    psins_count({});", f.id);
        let _ = writeln!(s, "    {}P{}({});\n}}\n", if ret_void { "" } else { "return " }, f.name, a);
        return s;
    }
    let argv: Vec<String> = f.params.iter().map(|p| p.name.clone()).collect();
    let (pre, post) = hook_calls(f, &argv);
    let _ = writeln!(s, "    if (!psins_enter()) {}P{}({});", if ret_void { "{ " } else { "return " }, f.name, a);
    let _ = writeln!(s, "    psins_call T;");
    s.push_str(&status_fixups(f, "    "));
    if let Some(pre) = pre {
        let _ = writeln!(s, "    {pre};");
    }
    let _ = writeln!(s, "    T.t0 = psins_now();");
    let _ = writeln!(s, "    {} P{}({});", if ret_void { "" } else { "int rc =" }, f.name, a);
    let _ = writeln!(s, "    T.t1 = psins_now();");
    if ret_void {
        let _ = writeln!(s, "    {post};");
    } else {
        // output arguments are undefined after an error: then only an `other` record
        let _ = writeln!(s, "    if (__builtin_expect(rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS, 1)) {post};");
        let _ = writeln!(s, "    else h_other(&T, {});", f.id);
    }
    let _ = writeln!(s, "    psins_leave();");
    if !ret_void {
        let _ = writeln!(s, "    return rc;");
    }
    s.push_str("}\n\n");
    s
}
