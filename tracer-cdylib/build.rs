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

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let headers = manifest.join("../c-headers");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let table_path = headers.join("mpi_functions.tbl");
    for f in ["mpi_functions.tbl", "shim.c", "psins_shim.h"] {
        println!("cargo:rerun-if-changed={}", headers.join(f).display());
    }
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
        // Every wrapper clears its psins_ev (128 bytes): with gcc's generic tuning that is a
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
                "std" => "PSINS_MODE_STD",
                "sync" => "PSINS_MODE_SYNC",
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

// ---------------------------------------------------------------------------------- Fortran

/// A Fortran binding ABI the generator wraps: whose symbols, and how what the hooks read
/// arrives. In both, every argument comes by reference, handles as Fortran integers, then
/// `ierror`, then gfortran's hidden `size_t` length of each character argument.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fortran {
    /// MPICH's mpi_f08 (`mpi_<name>_f08[ts]_`). Its `mpif.h`/`use mpi` bindings call the C
    /// `MPI_*` functions, which the C wrappers already see.
    MpichF08,
    /// Open MPI's `mpif.h`/`use mpi` (`mpi_<name>_`) and mpi_f08 (`mpi_<name>_f08_`) bindings,
    /// which call `PMPI_*`: the f08 ones forward their arguments unchanged to `ompi_<name>_f`
    /// (what `mpi_<name>_` aliases) or to `pmpi_<name>_`, so both have one ABI.
    OpenMpi,
}

const FORTRAN: [Fortran; 2] = [Fortran::MpichF08, Fortran::OpenMpi];

impl Fortran {
    /// What its MPI's mpi.h defines: the wrappers of the other MPI are not compiled.
    fn guard(self) -> &'static str {
        match self {
            Fortran::MpichF08 => "MPICH",
            Fortran::OpenMpi => "OPEN_MPI",
        }
    }

    fn banner(self) -> &'static str {
        match self {
            Fortran::MpichF08 => "mpi_f08 bindings (MPICH): they call PMPI_* directly, so wrap them too",
            Fortran::OpenMpi => {
                "Fortran bindings (Open MPI): mpif.h, use mpi and mpi_f08 call PMPI_*, so wrap them too"
            }
        }
    }

    /// The binding symbols of `f`, each wrapped on its own (with its own real symbol).
    fn symbols(self, f: &Func) -> Vec<String> {
        let lower = f.name.to_lowercase();
        match self {
            Fortran::MpichF08 => vec![f08_symbol(f)],
            Fortran::OpenMpi => vec![format!("{lower}_"), format!("{lower}_f08_")],
        }
    }

    /// The choice buffer argument `fa` as the C binding sees it.
    fn choice(self, fa: &str) -> String {
        match self {
            // a descriptor whose first field is the address
            Fortran::MpichF08 => {
                format!("({fa} && *(void **){fa} == (void *)&MPIR_F08_MPI_IN_PLACE) ? MPI_IN_PLACE : {fa}")
            }
            Fortran::OpenMpi => format!("psins_fo_buf({fa})"),
        }
    }

    /// The Fortran status type, its MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE, and the
    /// conversion of one status to MPI_Status. Either status type has MPI_Status's layout, so
    /// an array of them is read in place.
    fn status(self) -> [&'static str; 4] {
        match self {
            Fortran::MpichF08 => {
                ["MPI_F08_status", "MPI_F08_STATUS_IGNORE", "MPI_F08_STATUSES_IGNORE", "PMPI_Status_f082c"]
            }
            Fortran::OpenMpi => {
                ["psins_fo_status", "PSINS_FO_STATUS_IGNORE", "PSINS_FO_STATUSES_IGNORE", "psins_fo_status_f2c"]
            }
        }
    }

    /// Whether the indices its Waitany/Testany/Waitsome/Testsome return are 1-based, as the
    /// standard says. MPICH 4.0.2's mpi_f08 returns the C (0-based) ones: an app's
    /// `MPI_Waitany` that completes the second request sets the index to 1 there, 2 with
    /// Open MPI. The tracer records which request really completed.
    fn one_based(self) -> bool {
        self == Fortran::OpenMpi
    }

    /// The C helpers its wrappers use, ahead of them.
    fn prelude(self) -> &'static str {
        match self {
            Fortran::MpichF08 => "",
            Fortran::OpenMpi => OPEN_MPI_FORTRAN_PRELUDE,
        }
    }
}

/// Open MPI: its `MPI_IN_PLACE`, `MPI_BOTTOM` and status ignores are the addresses of common
/// blocks, which libmpi_mpifh compares with gfortran's single-underscore names (as
/// `ompi_recv_f` does); handles are table indices while the C ones are pointers, so arrays of
/// them are converted. Everything it references is weak: the .so must load without libmpi.
const OPEN_MPI_FORTRAN_PRELUDE: &str = r#"extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_status_ignore_ __attribute__((weak));
extern int mpi_fortran_statuses_ignore_ __attribute__((weak));
#pragma weak MPI_Comm_f2c
#pragma weak MPI_Type_f2c
#pragma weak MPI_Op_f2c
#pragma weak MPI_Group_f2c
#pragma weak MPI_Info_f2c
#pragma weak MPI_Win_f2c
#pragma weak MPI_Errhandler_f2c
#pragma weak MPI_Request_f2c
#pragma weak MPI_Message_f2c
#pragma weak PMPI_Status_f2c
typedef struct { MPI_Fint v[sizeof(MPI_Status) / sizeof(MPI_Fint)]; } psins_fo_status;
#define PSINS_FO_STATUS_IGNORE ((psins_fo_status *)&mpi_fortran_status_ignore_)
#define PSINS_FO_STATUSES_IGNORE ((psins_fo_status *)&mpi_fortran_statuses_ignore_)
static inline void psins_fo_status_f2c(const psins_fo_status *f, MPI_Status *c) { PMPI_Status_f2c(f->v, c); }
static inline void *psins_fo_buf(void *f)
{
    if (f == (void *)&mpi_fortran_in_place_) return MPI_IN_PLACE;
    if (f == (void *)&mpi_fortran_bottom_) return MPI_BOTTOM;
    return f;
}
static MPI_Request *psins_fo_rq; static size_t psins_fo_rq_cap;
static MPI_Request *psins_fo_requests(const MPI_Fint *f, int n)
{
    MPI_Request *p = grow(psins_fo_rq, &psins_fo_rq_cap, (size_t)(n > 0 ? n : 1), sizeof *p);
    if (!p) return NULL;
    psins_fo_rq = p;
    for (int i = 0; i < n; i++) p[i] = MPI_Request_f2c(f[i]);
    return p;
}
/* The datatypes a w collective's hook reads: one per peer (the remote group of an
 * intercommunicator), or per neighbour on a topology (out-degree on the send side). */
static int psins_fo_npeers(MPI_Comm comm, int neighbor, int send)
{
    int n = 0, in = 0, out = 0, inter = 0;
    if (neighbor) { topo_degrees(comm, &in, &out); return send ? out : in; }
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) PMPI_Comm_remote_size(comm, &n); else PMPI_Comm_size(comm, &n);
    return n;
}
static MPI_Datatype *psins_fo_ty[2]; static size_t psins_fo_ty_cap[2];
static MPI_Datatype *psins_fo_types(const MPI_Fint *f, int n, int which)
{
    MPI_Datatype *p = grow(psins_fo_ty[which], &psins_fo_ty_cap[which], (size_t)(n > 0 ? n : 1), sizeof *p);
    if (!p) return NULL;
    psins_fo_ty[which] = p;
    for (int i = 0; i < n; i++) p[i] = MPI_Type_f2c(f[i]);
    return p;
}
"#;

/// Appends `f`'s Fortran wrappers to the section of each binding ABI (one per `FORTRAN`).
fn add_fortran(sections: &mut [String], f: &Func) {
    for (abi, s) in FORTRAN.iter().zip(sections) {
        if HAND_WRITTEN.contains(&f.how.as_str()) {
            s.push_str(&fortran_init(*abi, f));
        } else if f.f08 {
            for sym in abi.symbols(f) {
                s.push_str(&fortran_wrapper(*abi, f, &sym));
            }
        }
    }
}

/// A recorded function's Fortran binding, as far as built: its parameters, the conversions
/// to C before and after the call, and the arguments the hooks get.
#[derive(Default)]
struct FortranCall {
    params: Vec<String>,
    pre: String,
    post: String,
    cargs: Vec<String>,
}

/// The Fortran binding `sym` of `f`. Handles are converted with the f2c functions (identity
/// on MPICH); the hooks are the C wrapper's, so the record is the same.
fn fortran_wrapper(abi: Fortran, f: &Func, sym: &str) -> String {
    if f.how.starts_with("other") {
        return fortran_other_wrapper(f, sym);
    }
    if f.how == "count" {
        return fortran_count_wrapper(f, sym);
    }
    let mut fargs: Vec<String> = f.params.iter().map(|p| format!("f_{}", p.name)).collect();
    fargs.push("ierror".into());
    let fa = fargs.join(", ");
    let untraced = format!("{{ psins_leave(); real({fa}); return; }}");
    let mut c = FortranCall::default();
    for p in &f.params {
        if let Err(t) = fortran_param(abi, f, p, &mut c, &untraced) {
            return format!("/* {}: no Fortran wrapper (parameter type `{t}`) */\n", f.name);
        }
    }
    c.params.push("MPI_Fint *ierror".into());
    let (hpre, hpost) = hook_calls(f, &c.cargs);
    let mut s = String::new();
    fortran_head(&mut s, f, sym, &c.params.join(", "));
    let _ = writeln!(s, "    if (!psins_enter()) {{ real({fa}); return; }}");
    let _ = writeln!(s, "    psins_call T;");
    s.push_str(&c.pre);
    if let Some(h) = hpre {
        let _ = writeln!(s, "    {h};");
    }
    let _ = writeln!(s, "    T.t0 = psins_now();");
    let _ = writeln!(s, "    real({fa});");
    let _ = writeln!(s, "    T.t1 = psins_now();");
    let _ = writeln!(s, "    if (ierror && *ierror != MPI_SUCCESS && *ierror != MPI_ERR_IN_STATUS) {{ h_other(&T, {}); psins_leave(); return; }}", f.id);
    s.push_str(&c.post);
    let _ = writeln!(s, "    {hpost};");
    let _ = writeln!(s, "    psins_leave();");
    s.push_str("}\n\n");
    s
}

/// Adds parameter `p` to `c`; Err(its type) if no Fortran conversion is known for it.
/// `untraced` leaves the call untraced (when a conversion finds no memory).
fn fortran_param(abi: Fortran, f: &Func, p: &Param, c: &mut FortranCall, untraced: &str) -> Result<(), String> {
    let n = &p.name;
    let fname = format!("f_{n}");
    let t = p.ty.replace("const ", "");
    match t.as_str() {
        "void*" => {
            c.params.push(format!("void *{fname}"));
            let _ = writeln!(c.pre, "    void *{n} = {};", abi.choice(&fname));
            c.cargs.push(n.clone());
        }
        "int" => {
            c.params.push(format!("MPI_Fint *{fname}"));
            let _ = writeln!(c.pre, "    int {n} = (int)*{fname}; (void){n};");
            c.cargs.push(n.clone());
        }
        "MPI_Count" | "MPI_Aint" => {
            c.params.push(format!("{t} *{fname}"));
            let _ = writeln!(c.pre, "    {t} {n} = *{fname}; (void){n};");
            c.cargs.push(n.clone());
        }
        "int*" => {
            c.params.push(format!("MPI_Fint *{fname}"));
            let _ = writeln!(c.pre, "    int {n}_v = 0;");
            if n == "indx" && abi.one_based() {
                let _ = writeln!(
                    c.post,
                    "    {n}_v = (*{fname} == MPI_UNDEFINED || *{fname} <= 0) ? MPI_UNDEFINED : (int)*{fname} - 1;"
                );
            } else {
                let _ = writeln!(c.post, "    {n}_v = (int)*{fname};");
            }
            c.cargs.push(format!("&{n}_v"));
        }
        "MPI_Comm" | "MPI_Datatype" | "MPI_Op" | "MPI_Group" | "MPI_Info" | "MPI_Win" | "MPI_Errhandler" => {
            let short = f2c_name(&t);
            c.params.push(format!("MPI_Fint *{fname}"));
            let _ = writeln!(c.pre, "    {t} {n} = MPI_{short}_f2c(*{fname}); (void){n};");
            c.cargs.push(n.clone());
        }
        "MPI_Comm*" | "MPI_Request*" | "MPI_Message*" => {
            let ct = t.trim_end_matches('*');
            let short = f2c_name(ct);
            c.params.push(format!("MPI_Fint *{fname}"));
            let _ = writeln!(c.pre, "    {ct} {n}_v = MPI_{short}_f2c(*{fname});");
            let _ = writeln!(c.post, "    {n}_v = MPI_{short}_f2c(*{fname});");
            c.cargs.push(format!("&{n}_v"));
        }
        "MPI_Status*" | "MPI_Status []" => fortran_status(abi, f, p, c),
        _ => return fortran_array(abi, f, p, c, untraced).ok_or_else(|| t.clone()),
    }
    Ok(())
}

/// A status or array of statuses: the hooks read the actual source, tag and size, so a local
/// one stands in for MPI_STATUS[ES]_IGNORE.
fn fortran_status(abi: Fortran, f: &Func, p: &Param, c: &mut FortranCall) {
    let n = &p.name;
    let fname = format!("f_{n}");
    let [fty, ignore, ignores, f2c] = abi.status();
    c.params.push(format!("{fty} *{fname}"));
    if p.ty == "MPI_Status*" {
        let _ = writeln!(c.pre, "    {fty} {n}_f; MPI_Status {n}_v;");
        let _ = writeln!(c.pre, "    if ({fname} == {ignore} || !{fname}) {fname} = &{n}_f;");
        let _ = writeln!(c.post, "    {f2c}({fname}, &{n}_v);");
        c.cargs.push(format!("&{n}_v"));
    } else {
        let _ = writeln!(
            c.pre,
            "    if ({fname} == {ignores} || !{fname}) {fname} = ({fty} *)psins_statuses({});",
            fortran_count(f)
        );
        c.cargs.push(format!("(MPI_Status *){fname}"));
    }
}

/// `*f_count` (or `*f_incount`): the length of the request and status arrays.
fn fortran_count(f: &Func) -> String {
    param_of(f, |p| p.name == "count" || p.name == "incount")
        .map(|p| format!("*f_{}", p.name))
        .unwrap_or_else(|| "0".into())
}

/// An array parameter; None if its type is not one.
fn fortran_array(abi: Fortran, f: &Func, p: &Param, c: &mut FortranCall, untraced: &str) -> Option<()> {
    let n = &p.name;
    let fname = format!("f_{n}");
    let t = p.ty.replace("const ", "");
    let ompi = abi == Fortran::OpenMpi;
    match t.as_str() {
        "int []" if n == "array_of_indices" && abi.one_based() => {
            c.params.push(format!("MPI_Fint *{fname}"));
            let _ = writeln!(c.pre, "    int *{n}_v = NULL;");
            let _ = writeln!(c.post, "    int {n}_n = outcount_v == MPI_UNDEFINED ? 0 : outcount_v;");
            let _ = writeln!(c.post, "    {n}_v = psins_ints((size_t)({n}_n > 0 ? {n}_n : 1), 0);");
            let _ = writeln!(c.post, "    if ({n}_v) for (int k = 0; k < {n}_n; k++) {n}_v[k] = (int){fname}[k] - 1;");
            c.cargs.push(format!("{n}_v"));
        }
        "int []" | "MPI_Count []" | "MPI_Aint []" => {
            let et = t.trim_end_matches(" []");
            let ft = if et == "int" { "MPI_Fint" } else { et };
            c.params.push(format!("{ft} *{fname}"));
            c.cargs.push(format!("({et} *){fname}"));
        }
        "MPI_Request []" if ompi => {
            c.params.push(format!("MPI_Fint *{fname}"));
            let _ = writeln!(c.pre, "    MPI_Request *{n}_v = psins_fo_requests({fname}, {});", fortran_count(f));
            let _ = writeln!(c.pre, "    if (!{n}_v) {untraced}");
            c.cargs.push(format!("{n}_v"));
        }
        "MPI_Datatype []" if ompi => {
            // read by the hook after the call; the send side means nothing in place
            let send = n.starts_with("send");
            let neighbor = f.name.contains("Neighbor") as u8;
            c.params.push(format!("MPI_Fint *{fname}"));
            let conv =
                format!("psins_fo_types({fname}, psins_fo_npeers(comm, {neighbor}, {}), {})", send as u8, send as u8);
            let inplace = if send && neighbor == 0 { "sendbuf == MPI_IN_PLACE ? NULL : " } else { "" };
            let _ = writeln!(c.pre, "    MPI_Datatype *{n}_v = NULL;");
            let _ = writeln!(c.post, "    {n}_v = {inplace}{conv};");
            c.cargs.push(format!("{n}_v"));
        }
        // MPICH handles are Fortran integers: same representation
        "MPI_Request []" | "MPI_Datatype []" => {
            let ct = t.trim_end_matches(" []");
            c.params.push(format!("MPI_Fint *{fname}"));
            c.cargs.push(format!("({ct} *){fname}"));
        }
        _ => return None,
    }
    Some(())
}

/// The start of every Fortran wrapper: what it wraps, and the real binding, looked up once
/// (`MPI_ERR_INTERN` when the MPI library has none).
fn fortran_head(s: &mut String, f: &Func, sym: &str, fp: &str) {
    let _ = writeln!(s, "/* {} ({}) as {sym} */", f.name, f.how);
    let _ = writeln!(s, "typedef void (*psins_f08_{sym}_t)({fp});");
    let _ = writeln!(s, "void {sym}({fp})\n{{");
    let _ = writeln!(s, "    static psins_f08_{sym}_t real;");
    let _ = writeln!(s, "    if (!real) real = (psins_f08_{sym}_t)dlsym(RTLD_NEXT, \"{sym}\");");
    let _ = writeln!(s, "    if (!real) {{ if (ierror) *ierror = MPI_ERR_INTERN; return; }}");
}

/// A local query: counted, no record (no conversion needed).
fn fortran_count_wrapper(f: &Func, sym: &str) -> String {
    let (fp, fa) = fortran_passthrough(f);
    let mut s = String::new();
    fortran_head(&mut s, f, sym, &fp);
    let _ = writeln!(s, "    psins_count({});", f.id);
    let _ = writeln!(s, "    real({fa});\n}}\n");
    s
}

/// `void *` parameters that are `type(c_ptr)` or `integer(MPI_ADDRESS_KIND)` in mpi_f08, not
/// choice buffers: they do not make the binding a `_f08ts_` one.
const F08_NOT_CHOICE: &[&str] = &["baseptr", "buffer_addr", "extra_state", "attribute_val"];

/// The MPICH mpi_f08 symbol of `f`: `mpi_<name>_f08_`, `_f08ts_` with a choice buffer,
/// `_large_` appended for the `_c` large-count variants.
fn f08_symbol(f: &Func) -> String {
    let base = f.name.strip_suffix("_c").unwrap_or(&f.name);
    let large = base.len() != f.name.len();
    let ts = f.params.iter().any(|p| p.ty.contains("void*") && !F08_NOT_CHOICE.contains(&p.name.as_str()));
    format!("{}_f08{}{}_", base.to_lowercase(), if ts { "ts" } else { "" }, if large { "_large" } else { "" })
}

/// The parameters and arguments of a Fortran binding passed through untouched: every
/// argument by reference (`void *`), `ierror`, then gfortran's hidden `size_t` length of each
/// character argument.
fn fortran_passthrough(f: &Func) -> (String, String) {
    let mut fparams: Vec<String> = f.params.iter().map(|p| format!("void *f_{}", p.name)).collect();
    let mut fargs: Vec<String> = f.params.iter().map(|p| format!("f_{}", p.name)).collect();
    fparams.push("MPI_Fint *ierror".into());
    fargs.push("ierror".into());
    for p in f.params.iter().filter(|p| p.ty.contains("char")) {
        fparams.push(format!("size_t f_{}_len", p.name));
        fargs.push(format!("f_{}_len", p.name));
    }
    (fparams.join(", "), fargs.join(", "))
}

/// The Fortran wrapper of an `other*` function: the record needs no argument, so every
/// argument is passed through untouched; only the request or communicator it returns is
/// converted, after the call, for `other_req` / `other_comm`.
fn fortran_other_wrapper(f: &Func, sym: &str) -> String {
    let (fp, fa) = fortran_passthrough(f);
    let pos = |pred: fn(&Param) -> bool| f.params.iter().rposition(pred);
    let out = match f.how.as_str() {
        "other_req" => {
            pos(|p| p.ty == "MPI_Request*" || p.ty == "MPIO_Request*").map(|i| ("MPI_Request", "Request", i))
        }
        "other_comm" => pos(|p| p.ty == "MPI_Comm*").map(|i| ("MPI_Comm", "Comm", i)),
        _ => None,
    };
    let mut s = String::new();
    fortran_head(&mut s, f, sym, &fp);
    let _ = writeln!(s, "    if (!psins_enter()) {{ real({fa}); return; }}");
    let _ = writeln!(s, "    psins_call T;");
    let _ = writeln!(s, "    T.t0 = psins_now();");
    let _ = writeln!(s, "    real({fa});");
    let _ = writeln!(s, "    T.t1 = psins_now();");
    let _ =
        writeln!(s, "    if (ierror && *ierror != MPI_SUCCESS) {{ h_other(&T, {}); psins_leave(); return; }}", f.id);
    // the hook reads only the returned handle: the other arguments are NULL
    let mut argv = vec!["NULL".to_string(); f.params.len()];
    if let Some((ct, short, i)) = out {
        let n = &f.params[i].name;
        let _ = writeln!(s, "    {ct} {n}_v = MPI_{short}_f2c(*(MPI_Fint *)f_{n});");
        argv[i] = format!("&{n}_v");
    }
    let (_, hpost) = hook_calls(f, &argv);
    let _ = writeln!(s, "    {hpost};");
    let _ = writeln!(s, "    psins_leave();");
    s.push_str("}\n\n");
    s
}

/// MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort in Fortran. Open MPI's bindings are
/// exactly the C call with `argc` = 0 and `argv` = NULL (`objdump -d` of `ompi_init_f` &
/// co.), so they call the C wrappers, which open, write and close the log. MPICH's mpi_f08
/// ones are hand-written in shim.c: its Fortran init does set-up of its own.
fn fortran_init(abi: Fortran, f: &Func) -> String {
    if abi == Fortran::MpichF08 {
        return String::new();
    }
    let syms = abi.symbols(f);
    let mut fparams = Vec::new();
    let mut cargs = Vec::new();
    for p in &f.params {
        let n = &p.name;
        match (p.ty.as_str(), n.as_str()) {
            (_, "argc" | "argv") => cargs.push(format!("&{n}")),
            ("int", _) => cargs.push(format!("(int)*f_{n}")),
            ("int*", _) => cargs.push(format!("(int *)f_{n}")),
            ("MPI_Comm", _) => cargs.push(format!("MPI_Comm_f2c(*f_{n})")),
            (t, _) => panic!("{}: no Fortran conversion for `{t}`", f.name),
        }
        if !matches!(n.as_str(), "argc" | "argv") {
            fparams.push(format!("MPI_Fint *f_{n}"));
        }
    }
    fparams.push("MPI_Fint *ierror".into());
    let fp = fparams.join(", ");
    let mut s = format!("/* {} ({}) as {} */\n", f.name, f.how, syms.join(", "));
    let _ = writeln!(s, "void {}({fp})\n{{", syms[0]);
    if f.params.iter().any(|p| p.name == "argc") {
        let _ = writeln!(s, "    int argc = 0; char **argv = NULL;");
    }
    let _ = writeln!(s, "    int rc = {}({});", f.name, cargs.join(", "));
    let _ = writeln!(s, "    if (ierror) *ierror = rc;\n}}");
    for alias in &syms[1..] {
        let _ = writeln!(s, "void {alias}({fp}) __attribute__((alias(\"{}\")));", syms[0]);
    }
    s.push('\n');
    s
}

/// `MPI_<x>_f2c` for a handle type.
fn f2c_name(t: &str) -> &'static str {
    match t {
        "MPI_Comm" => "Comm",
        "MPI_Datatype" => "Type",
        "MPI_Op" => "Op",
        "MPI_Group" => "Group",
        "MPI_Info" => "Info",
        "MPI_Win" => "Win",
        "MPI_Errhandler" => "Errhandler",
        "MPI_Request" => "Request",
        "MPI_Message" => "Message",
        _ => "Comm",
    }
}
