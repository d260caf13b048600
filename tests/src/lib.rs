//! The end-to-end test harness: finding the tracer, the tools and the test apps, running an
//! app under real `mpirun` with the tracer preloaded, reading its logs and its own counts.
//!
//! Uses the tracer at `$PSINS_TRACER_SO` and the tools in `$PSINS_TOOLS_DIR`, else those built
//! (`cargo build --workspace`, a no-op when up to date) under the profile these tests were
//! built with ([`profile_dir`]), and the test apps at `$PSINS_APPS_DIR`, else
//! `mpi-test-apps/bin` after `make -C mpi-test-apps`.
//! Tests skip with a message if there is no MPI (`mpirun`) on the machine.
//!
//! `$PSINS_MPIRUN` picks the launcher (default `mpirun`; Open MPI is detected from its
//! `--version` and gets `--oversubscribe --allow-run-as-root -x LD_PRELOAD -x PSINS_*`).
//! Runs are serialized (the machine has 2 cores and ranks oversubscribe) and each runs
//! under `timeout`.

mod check;
pub use check::*;

use psins_formats::{LogEnd, LogHeader, LogReader, Record};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

// ------------------------------------------------------------------------------ environment

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

pub fn serial() -> MutexGuard<'static, ()> {
    static M: Mutex<()> = Mutex::new(());
    M.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flavour {
    Mpich,
    OpenMpi,
}

/// The MPI on this machine, or None (tests skip).
pub fn mpi() -> Option<Flavour> {
    static F: OnceLock<Option<Flavour>> = OnceLock::new();
    *F.get_or_init(|| {
        let out = Command::new(mpirun()).arg("--version").output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
        if text.contains("Open MPI") || text.contains("OpenRTE") {
            Some(Flavour::OpenMpi)
        } else if out.status.success() {
            Some(Flavour::Mpich)
        } else {
            None
        }
    })
}

/// Returns from the test, saying why, when this machine has no MPI; fails it instead under
/// `PSINS_REQUIRE_MPI=1` (`make test` sets it), so that no end-to-end test passes by skipping
/// where MPI should be.
#[macro_export]
macro_rules! need_mpi {
    () => {
        if $crate::mpi().is_none() {
            $crate::skip("no working `mpirun` on this machine (install MPICH: apt-get install mpich libmpich-dev)");
            return;
        }
    };
}

/// Says why a test that needs MPI does not run; under `PSINS_REQUIRE_MPI=1` fails it.
pub fn skip(why: &str) {
    assert!(!mpi_required(std::env::var_os("PSINS_REQUIRE_MPI")), "{why}, and PSINS_REQUIRE_MPI is set");
    eprintln!("SKIP: {why}");
}

/// Whether the value of `PSINS_REQUIRE_MPI` asks for MPI: set, and neither empty nor 0.
fn mpi_required(v: Option<std::ffi::OsString>) -> bool {
    v.is_some_and(|v| !v.is_empty() && v != "0")
}

/// `$PSINS_MPIRUN` (e.g. mpirun.openmpi) or `mpirun`.
pub fn mpirun() -> String {
    std::env::var("PSINS_MPIRUN").unwrap_or_else(|_| "mpirun".into())
}

pub fn tracer_so() -> PathBuf {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        if let Ok(p) = std::env::var("PSINS_TRACER_SO") {
            return PathBuf::from(p);
        }
        // always (re)build: a no-op when up to date, and never a stale tracer
        build_workspace();
        let p = profile_dir().join("libpsinstrace.so");
        assert!(p.exists(), "no {}", p.display());
        p
    })
    .clone()
}

/// Where the test apps are: `$PSINS_APPS_DIR` (scripts/test-openmpi.sh's Open MPI builds), else
/// mpi-test-apps/bin.
fn apps_dir() -> PathBuf {
    std::env::var("PSINS_APPS_DIR").map(PathBuf::from).unwrap_or_else(|_| root().join("mpi-test-apps/bin"))
}

/// `timeout 120 mpirun`, with what Open MPI needs to run here and to pass the variables
/// `exported` to the ranks (MPICH's Hydra passes the whole environment).
pub fn launcher(exported: &[&str]) -> Command {
    let mut cmd = Command::new("timeout");
    cmd.arg("120").arg(mpirun());
    if mpi() == Some(Flavour::OpenMpi) {
        cmd.args(["--oversubscribe", "--allow-run-as-root"]);
        for k in exported {
            cmd.args(["-x", k]);
        }
    }
    cmd
}

pub fn app(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    let p = apps_dir().join(name);
    if std::env::var("PSINS_APPS_DIR").is_err() {
        // make is incremental: cheap when the apps are up to date
        BUILT.get_or_init(|| {
            let _ = Command::new("make").arg("-s").arg("-C").arg(root().join("mpi-test-apps")).status();
        });
    }
    assert!(p.exists(), "test app {} missing (make -C mpi-test-apps)", p.display());
    p
}

/// A Fortran app may be missing only where no Fortran compiler could build it, and not at
/// all under `PSINS_REQUIRE_FORTRAN=1` (scripts/test-openmpi.sh), so that the tests of
/// Fortran programs cannot pass by skipping.
pub fn skip_fortran(what: &str) {
    assert!(std::env::var_os("PSINS_REQUIRE_FORTRAN").is_none(), "{what} (PSINS_REQUIRE_FORTRAN is set)");
    eprintln!("SKIP: {what}");
}

/// Whether the Fortran test app `name` is built (making the apps once if not); says why
/// not, through [`skip_fortran`].
pub fn fortran_app_built(name: &str) -> bool {
    let dir = apps_dir();
    if !dir.join(name).exists() && std::env::var_os("PSINS_APPS_DIR").is_none() {
        let _ = Command::new("make").arg("-C").arg(root().join("mpi-test-apps")).status();
    }
    if dir.join(name).exists() {
        return true;
    }
    skip_fortran(&format!("{name} was not built (no Fortran compiler for it)"));
    false
}

pub fn scratch(tag: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let d = std::env::temp_dir().join("psins-tracer-tests").join(format!(
        "{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `src` (a path in the repository) compiled with `$MPICC` (scripts/test-openmpi.sh sets Open
/// MPI's; `mpicc` otherwise) and `flags` into a scratch directory's `name`.
pub fn mpicc(src: &str, name: &str, flags: &[&str]) -> PathBuf {
    let out = scratch(name).join(name);
    let cc = std::env::var("MPICC").unwrap_or_else(|_| "mpicc".into());
    let st = Command::new(&cc)
        .args(flags)
        .arg("-o")
        .arg(&out)
        .arg(root().join(src))
        .status()
        .unwrap_or_else(|e| panic!("cannot run {cc}: {e}"));
    assert!(st.success(), "{cc} could not build {src}");
    out
}

// ------------------------------------------------------------------------------ running

pub struct Run {
    pub out: Output,
    pub stdout: String,
    pub stderr: String,
    /// PSINS_DIR of the run.
    pub dir: PathBuf,
}

impl Run {
    pub fn job_dirs(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_dir()).collect())
            .unwrap_or_default();
        v.sort();
        v
    }
    pub fn job_dir(&self) -> PathBuf {
        let v = self.job_dirs();
        assert_eq!(
            v.len(),
            1,
            "expected one job directory in {}: {:?}\nstderr:\n{}",
            self.dir.display(),
            v,
            self.stderr
        );
        v[0].clone()
    }
    pub fn logs(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(self.job_dir())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().map(|e| e == "bin").unwrap_or(false))
            .collect();
        v.sort();
        v
    }
    pub fn ok(&self) -> &Self {
        assert!(
            self.out.status.success(),
            "run failed: {:?}\nstdout:\n{}\nstderr:\n{}",
            self.out.status,
            self.stdout,
            self.stderr
        );
        self
    }
}

/// `timeout 120 mpirun -n N app args` with the tracer preloaded and PSINS_DIR set.
pub fn run_traced(name: &str, n: u32, args: &[&str], env: &[(&str, &str)]) -> Run {
    run_exe(name, &app(name), n, args, env)
}

pub fn run_exe(name: &str, exe: &Path, n: u32, args: &[&str], env: &[(&str, &str)]) -> Run {
    let dir = scratch(name);
    let out_dir = dir.join("trace");
    let so = tracer_so();
    let _g = serial();
    let exported: Vec<&str> = ["LD_PRELOAD", "PSINS_DIR"].into_iter().chain(env.iter().map(|(k, _)| *k)).collect();
    let mut cmd = launcher(&exported);
    cmd.arg("-n").arg(n.to_string()).arg(exe).args(args);
    cmd.env("LD_PRELOAD", &so).env("PSINS_DIR", &out_dir).current_dir(&dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("cannot run mpirun");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        out,
        dir: out_dir,
    }
}

pub struct Log {
    pub header: LogHeader,
    pub records: Vec<Record>,
    pub end: LogEnd,
}

pub fn read_log(p: &Path) -> Log {
    let mut r = LogReader::open(p).unwrap_or_else(|e| panic!("{e}"));
    let mut records = Vec::new();
    let mut rec = Record::default();
    while r.next(&mut rec).unwrap_or_else(|e| panic!("{e}")) {
        records.push(rec.clone());
    }
    Log { header: r.header.clone(), records, end: r.end().clone() }
}

pub fn read_logs(run: &Run, n: u32) -> Vec<Log> {
    let logs = run.logs();
    assert_eq!(logs.len(), n as usize, "logs: {logs:?}");
    let v: Vec<Log> = logs.iter().map(|p| read_log(p)).collect();
    for (i, l) in v.iter().enumerate() {
        assert_eq!(l.header.rank, i as u32);
        assert_eq!(l.header.world_size, n);
    }
    v
}

// ------------------------------------------------------------------------------ the app's own counts

/// PSINS_COUNTS and PSINS_P2P per rank.
#[derive(Default, Debug)]
pub struct AppCounts {
    pub calls: BTreeMap<String, u64>,
    pub p2p: BTreeMap<String, u64>,
}

pub fn parse_app(stdout: &str, prefix: &str) -> BTreeMap<u32, AppCounts> {
    let mut m: BTreeMap<u32, AppCounts> = BTreeMap::new();
    for line in stdout.lines() {
        let mut it = line.split_whitespace();
        let Some(head) = it.next() else { continue };
        let is_counts = head == prefix;
        let is_p2p = head == prefix.replace("COUNTS", "P2P");
        if !is_counts && !is_p2p {
            continue;
        }
        let mut rank = None;
        let mut kv = BTreeMap::new();
        for t in it {
            let (k, v) = t.split_once('=').unwrap();
            if k == "rank" {
                rank = Some(v.parse::<u32>().unwrap());
            } else {
                kv.insert(k.to_string(), v.parse::<u64>().unwrap());
            }
        }
        let e = m.entry(rank.unwrap()).or_default();
        if is_counts {
            e.calls = kv;
        } else {
            e.p2p = kv;
        }
    }
    m
}

/// The directory of the cargo profile these tests were built with, where [`tool`] and
/// [`tracer_so`] build and find the workspace's programs: `target/release` under `cargo test
/// --release`, `target/test-fast` under `make test` (`--profile test-fast`, Cargo.toml),
/// `target/debug` under plain `cargo test`. Read from the test binary's own path,
/// `<dir>/deps/<test>-<hash>`, so the tools are always those of the source and profile under
/// test, whatever the command and `CARGO_TARGET_DIR`.
pub fn profile_dir() -> PathBuf {
    static D: OnceLock<PathBuf> = OnceLock::new();
    D.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test binary's path");
        let deps = exe.parent().expect("the test binary's directory");
        assert!(
            deps.file_name() == Some("deps".as_ref()),
            "{}: a test binary outside cargo's <target>/<profile>/deps/; cannot tell which profile's tools to run",
            exe.display()
        );
        deps.parent().unwrap().to_path_buf()
    })
    .clone()
}

/// The name of the cargo profile of [`profile_dir`]: the directory's name, except `debug`,
/// which is the dev profile's.
pub fn profile_name() -> String {
    let dir = profile_dir();
    match dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => "dev".into(),
        Some(name) => name.into(),
        None => panic!("{}: no profile name", dir.display()),
    }
}

/// Builds the workspace's programs under the profile of [`profile_dir`], into its target
/// directory, once per test process (cargo: a no-op when they are up to date). The whole
/// workspace, as `make` and `cargo test --workspace` build it: a single package (`-p`) would
/// resolve its dependencies' features alone and rebuild them and the tools a second time.
fn build_workspace() {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = profile_dir();
        let profile = profile_name();
        // Without RUSTC_BOOTSTRAP, which a test run may set to time its tests (libtest's
        // --report-time) and which would change every crate's fingerprint: a full rebuild.
        let st = Command::new(env!("CARGO"))
            .env_remove("RUSTC_BOOTSTRAP")
            .args(["build", "--workspace", "--profile", &profile, "--target-dir"])
            .arg(dir.parent().unwrap())
            .current_dir(root())
            .status();
        assert!(st.map(|s| s.success()).unwrap_or(false), "cargo build --workspace --profile {profile} failed");
    });
}

/// Where the workspace's programs are: `$PSINS_TOOLS_DIR` when set (by a caller that has just
/// built them, as scripts/test-openmpi.sh does), else [`profile_dir`], built first
/// (`build_workspace`) so a test never runs a stale one.
pub fn tools_dir() -> PathBuf {
    match std::env::var_os("PSINS_TOOLS_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            build_workspace();
            profile_dir()
        }
    }
}

/// A program of the workspace (`psins-consolidate`, `psins-dump`, `psins-sim`, …) in
/// [`tools_dir`].
pub fn tool(name: &str) -> PathBuf {
    tools_dir().join(name)
}

/// Runs a tool and returns its output, failing the test with its stderr if it fails.
pub fn run_tool(name: &str, args: &[&std::ffi::OsStr]) -> Output {
    let out = Command::new(tool(name)).args(args).output().unwrap_or_else(|e| panic!("cannot run {name}: {e}"));
    assert!(
        out.status.success(),
        "{name} {:?} failed ({:?}):\n{}",
        args,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn mpi_is_required_when_the_variable_says_so() {
        use super::mpi_required;
        assert!(!mpi_required(None));
        assert!(!mpi_required(Some("".into())));
        assert!(!mpi_required(Some("0".into())));
        assert!(mpi_required(Some("1".into())));
    }
}
