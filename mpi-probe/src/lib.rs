//! Finds the system's MPI for a build script, the way rsmpi's `build-probe-mpi` does: the
//! compiler wrapper named by `$MPICC`, then `mpicc` on PATH (each asked with `-show`, MPICH's
//! spelling, and `-showme`, Open MPI's), then pkg-config (`$PSINS_MPI_PKG`, else `mpich` and
//! `ompi`). A candidate counts only when an `mpi.h` is where its flags say. When none does,
//! the error lists every candidate with why it failed, so the fix is clear without reading
//! a build script.
//!
//! The tracer's build script takes the include paths and definitions (its shim resolves the
//! PMPI symbols from the application at run time and links no libmpi); the calibration
//! worker's compiles and links a program with [`Mpi::compile_program`].

use std::env;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// An MPI installation a build can compile against.
#[derive(Clone, Debug, PartialEq)]
pub struct Mpi {
    /// `-I` directories.
    pub includes: Vec<PathBuf>,
    /// `-D` definitions, with their values.
    pub defines: Vec<(String, Option<String>)>,
    /// Link flags from pkg-config (`--libs`); empty when a wrapper was found, which links by itself.
    pub libs: Vec<String>,
    /// The compiler wrapper that was found, if one was.
    pub wrapper: Option<String>,
    /// How it was found, e.g. "`mpicc -show`" or "pkg-config mpich": for the build's messages.
    pub found_by: String,
}

/// No MPI was found: every candidate tried, in order, with why it failed.
#[derive(Clone, Debug, PartialEq)]
pub struct NotFound {
    pub reasons: Vec<String>,
}

impl fmt::Display for NotFound {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        writeln!(f, "cannot find an MPI installation to build against. Tried, in order:")?;
        for r in &self.reasons {
            writeln!(f, "  - {r}")?;
        }
        write!(
            f,
            "Install MPICH (Debian: apt-get install mpich libmpich-dev) or Open MPI (libopenmpi-dev), \
             or set MPICC to an MPI compiler wrapper (or PSINS_MPI_PKG to its pkg-config name)."
        )
    }
}

impl std::error::Error for NotFound {}

/// The environment variables the probe and [`Mpi::compile_program`] read; a build script that
/// calls them reruns when they change.
pub const ENV: [&str; 3] = ["MPICC", "PSINS_MPI_PKG", "CC"];

/// Prints `cargo:rerun-if-env-changed` for every variable in [`ENV`].
pub fn rerun_if_env_changed() {
    for v in ENV {
        println!("cargo:rerun-if-env-changed={v}");
    }
}

/// Finds MPI: the first candidate whose flags lead to an `mpi.h`.
pub fn probe() -> Result<Mpi, NotFound> {
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
                    let mut m = parse_flags(&text, format!("`{cmd} {flag}`"));
                    // The wrapper links by itself.
                    m.libs.clear();
                    m.wrapper = Some(cmd.clone());
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
        match Command::new("pkg-config").args(["--cflags", "--libs", &pkg]).output() {
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
    Err(NotFound { reasons })
}

/// Why [`Mpi::compile_program`] failed: the compiler as shown to the user, and its output.
#[derive(Debug)]
pub enum CompileError {
    /// The compiler ran and failed.
    Failed { command: String, status: std::process::ExitStatus, stderr: String },
    /// The compiler could not be started.
    NotRun { command: String, source: std::io::Error },
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            CompileError::Failed { command, status, stderr } => write!(f, "`{command}` failed ({status}): {stderr}"),
            CompileError::NotRun { command, source } => write!(f, "`{command}` could not be run: {source}"),
        }
    }
}

impl std::error::Error for CompileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CompileError::NotRun { source, .. } => Some(source),
            CompileError::Failed { .. } => None,
        }
    }
}

impl Mpi {
    /// Compiles and links the C program `src` into `out`: with the wrapper when one was found,
    /// else with `$CC` (or `cc`) and pkg-config's flags. The error holds the command's output.
    pub fn compile_program(&self, src: &Path, out: &Path, cflags: &[&str]) -> Result<(), CompileError> {
        let (mut cmd, shown) = match &self.wrapper {
            Some(w) => (Command::new(w), w.clone()),
            None => {
                let cc = env::var("CC").ok().filter(|c| !c.trim().is_empty()).unwrap_or_else(|| "cc".into());
                let mut c = Command::new(&cc);
                c.args(self.includes.iter().map(|i| format!("-I{}", i.display())));
                c.args(self.defines.iter().map(|(k, v)| match v {
                    Some(v) => format!("-D{k}={v}"),
                    None => format!("-D{k}"),
                }));
                (c, format!("{cc} (with the flags of {})", self.found_by))
            }
        };
        cmd.args(cflags).arg("-o").arg(out).arg(src).args(&self.libs);
        match cmd.output() {
            Ok(o) if o.status.success() => Ok(()),
            Ok(o) => Err(CompileError::Failed {
                command: shown,
                status: o.status,
                stderr: String::from_utf8_lossy(&o.stderr).trim().to_string(),
            }),
            Err(source) => Err(CompileError::NotRun { command: shown, source }),
        }
    }
}

/// The include paths, definitions and link flags of a wrapper's `-show` or of pkg-config.
fn parse_flags(text: &str, found_by: String) -> Mpi {
    let mut m = Mpi { includes: Vec::new(), defines: Vec::new(), libs: Vec::new(), wrapper: None, found_by };
    let mut toks = text.split_whitespace();
    while let Some(t) = toks.next() {
        if let Some(p) = t.strip_prefix("-I") {
            match (p.is_empty(), p) {
                (true, _) => m.includes.extend(toks.next().map(PathBuf::from)),
                (false, p) => m.includes.push(PathBuf::from(p)),
            }
        } else if let Some(d) = t.strip_prefix("-D") {
            let (k, v) = d.split_once('=').map_or((d, None), |(k, v)| (k, Some(v.to_string())));
            m.defines.push((k.to_string(), v));
        } else if t.starts_with("-l") || t.starts_with("-L") || t.starts_with("-Wl,") || t == "-pthread" {
            m.libs.push(t.to_string());
        }
    }
    m
}

/// A candidate's include directories (and the system's) hold no `mpi.h`.
#[derive(Debug)]
struct NoMpiH {
    dirs: Vec<PathBuf>,
}

impl fmt::Display for NoMpiH {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "no mpi.h in {:?}", self.dirs)
    }
}

impl std::error::Error for NoMpiH {}

fn check_mpi_h(m: &Mpi) -> Result<(), NoMpiH> {
    let mut dirs = m.includes.clone();
    dirs.push("/usr/include".into());
    dirs.push("/usr/local/include".into());
    if dirs.iter().any(|d| d.join("mpi.h").is_file()) {
        Ok(())
    } else {
        Err(NoMpiH { dirs })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrappers_show_gives_includes_and_definitions() {
        let m = parse_flags(
            "gcc -I/usr/include/x86_64-linux-gnu/mpich -I /opt/mpi/include -DOMPI_SKIP=1 -DNDEBUG -L/usr/lib -lmpich -pthread",
            "`mpicc -show`".into(),
        );
        assert_eq!(
            m.includes,
            vec![PathBuf::from("/usr/include/x86_64-linux-gnu/mpich"), PathBuf::from("/opt/mpi/include")]
        );
        assert_eq!(m.defines, vec![("OMPI_SKIP".into(), Some("1".into())), ("NDEBUG".into(), None)]);
        assert_eq!(m.libs, vec!["-L/usr/lib", "-lmpich", "-pthread"]);
    }

    #[test]
    fn every_reason_is_listed() {
        let e = NotFound { reasons: vec!["MPICC is not set".into(), "mpicc on PATH: cannot run `mpicc -show`".into()] };
        let text = e.to_string();
        assert!(text.contains("  - MPICC is not set\n  - mpicc on PATH"), "{text}");
        assert!(text.contains("PSINS_MPI_PKG"), "{text}");
    }
}
