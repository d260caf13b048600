//! Probes for libotf2 (Debian's libotf2-trace-dev, OTF2 3.x): compiles and links a small C
//! program against it with the system C compiler. On success the crate is built with
//! `cfg(has_otf2)` and links `-lotf2`; otherwise it still builds, and `--to otf2` /
//! `--from otf2` report "built without libotf2" with every reason the probe found (in
//! `PSINS_OTF2_PROBE`). `PSINS_NO_OTF2=1` skips the probe (to build and test that path).

use std::env;
use std::fs;
use std::path::PathBuf;
use std::process::Command;

/// Calls the writer API with OTF2 3.x's signatures (WriteComm got its flags in 3.0), so that
/// an older library fails here rather than at run time.
const PROBE: &str = r#"
#include <otf2/otf2.h>
int main(void) {
    OTF2_Archive* a = OTF2_Archive_Open("/nonexistent", "probe", OTF2_FILEMODE_WRITE,
                                        1024 * 1024, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    OTF2_GlobalDefWriter* g = a ? OTF2_Archive_GetGlobalDefWriter(a) : 0;
    if (g) OTF2_GlobalDefWriter_WriteComm(g, 0, 0, 0, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_Reader* r = OTF2_Reader_Open("/nonexistent/x.otf2");
    if (r) OTF2_Reader_Close(r);
    return a == 0;
}
"#;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(has_otf2)");
    println!("cargo:rerun-if-env-changed=PSINS_NO_OTF2");
    println!("cargo:rerun-if-env-changed=CC");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=/usr/include/otf2/otf2.h");
    match probe() {
        Ok(libs) => {
            println!("cargo:rustc-cfg=has_otf2");
            for l in libs {
                if let Some(dir) = l.strip_prefix("-L") {
                    println!("cargo:rustc-link-search=native={dir}");
                } else if let Some(lib) = l.strip_prefix("-l") {
                    println!("cargo:rustc-link-lib={lib}");
                }
            }
            println!("cargo:rustc-env=PSINS_OTF2_PROBE=found");
        }
        Err(reasons) => {
            let all = reasons.join("; ");
            println!("cargo:warning=building without libotf2: {all}");
            println!("cargo:rustc-env=PSINS_OTF2_PROBE={all}");
        }
    }
}

/// The link arguments for libotf2, or every reason it cannot be used.
fn probe() -> Result<Vec<String>, Vec<String>> {
    if env::var_os("PSINS_NO_OTF2").is_some_and(|v| v != "0") {
        return Err(vec!["PSINS_NO_OTF2 is set".into()]);
    }
    let mut reasons = Vec::new();
    // otf2-config knows where a non-system install is; without it, the system paths.
    let config = |arg: &str| -> Option<Vec<String>> {
        let out = Command::new("otf2-config").arg(arg).output().ok().filter(|o| o.status.success())?;
        Some(String::from_utf8_lossy(&out.stdout).split_whitespace().map(String::from).collect())
    };
    let (cflags, mut libs) = match (config("--cppflags"), config("--ldflags"), config("--libs")) {
        (Some(c), Some(l), Some(x)) => (c, l.into_iter().chain(x).collect::<Vec<_>>()),
        _ => {
            reasons.push("otf2-config not found or failing (install libotf2-trace-dev)".into());
            (Vec::new(), vec!["-lotf2".to_string()])
        }
    };
    if !libs.iter().any(|l| l == "-lotf2") {
        libs.push("-lotf2".into());
    }
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let src = out.join("otf2_probe.c");
    let exe = out.join("otf2_probe");
    if let Err(e) = fs::write(&src, PROBE) {
        reasons.push(format!("cannot write {}: {e}", src.display()));
        return Err(reasons);
    }
    let cc = env::var("CC").unwrap_or_else(|_| "cc".into());
    let run = Command::new(&cc).args(&cflags).arg(&src).arg("-o").arg(&exe).args(&libs).output();
    match run {
        Err(e) => reasons.push(format!("C compiler {cc:?} cannot run: {e}")),
        Ok(o) if o.status.success() => return Ok(libs),
        Ok(o) => {
            let text = String::from_utf8_lossy(&o.stderr);
            if text.contains("otf2.h") {
                reasons.push("header otf2/otf2.h not found".into());
            } else if text.contains("-lotf2") || text.contains("undefined reference") {
                reasons.push("cannot link -lotf2 (library missing or not OTF2 3.x)".into());
            } else if text.contains("too few arguments") || text.contains("too many arguments") {
                reasons.push("libotf2 is older than 3.0 (OTF2_GlobalDefWriter_WriteComm has no flags)".into());
            }
            let first = text.lines().find(|l| l.contains("error")).unwrap_or("").trim();
            reasons.push(format!("probe program did not build with {cc}: {first}"));
        }
    }
    Err(reasons)
}
