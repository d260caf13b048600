//! psins-calibrate's command line: its arguments, the launches of the worker and the files it
//! writes; what it measures and how it fits them is the library's (src/lib.rs).

use clap::Parser;
use psins_calibrate::error::Error;
use psins_calibrate::states::median;
use psins_calibrate::{check, fit, launch, samples, states, write};
use psins_formats::output::Output;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Measures MPI point-to-point costs (per size band: latency, bandwidth, sender and receiver
/// overheads; the eager threshold) and collective times through a real MPI launch, and
/// writes a psins-sim machine file (with pmac collective curves beside it).
///
/// Exit codes (docs/exit-codes.md): 0 written (--check: the host matches); 1 the calibration
/// failed or was refused (launcher, worker output, placement, contradictory figures, too
/// noisy: the message names the figure; --check: the host no longer matches, naming the
/// figure); 2 bad arguments; 3 an output cannot be written.
#[derive(Parser, Debug)]
#[command(name = "psins-calibrate", version, after_help = AFTER)]
struct Args {
    /// Machine file to write.
    #[arg(short, long, default_value = "calibrated.toml")]
    output: PathBuf,
    /// Collective curves file to write (default: the output's name with .curves.toml).
    #[arg(long)]
    curves: Option<PathBuf>,
    /// Trials of every measurement in each launch (figures and spreads are over the trials of
    /// every launch).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(3..=100))]
    trials: u32,
    /// Separate launches of the worker, at least (default 3; 1 with --quick; more while a
    /// ping-pong figure is not known within --max-spread, up to --max-launches); each figure's trials are
    /// pooled over them: a figure of more trials, and what one launch draws (where MPI's and
    /// the worker's memory lies, a slower spell of the host) moves only its share of them. On the
    /// project VM, five back-to-back calibrations in one speed state agreed within 14.5 % on
    /// every figure (then medians) with 1 launch and 8.4 % with 3 (docs/calibrate.md). Over
    /// shared memory 3 take about 50 s; over TCP a launch takes about 50 s.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=20))]
    launches: Option<u32>,
    /// Seconds each trial of one figure lasts (more: steadier, slower).
    #[arg(long, default_value_t = 0.05)]
    seconds_per_trial: f64,
    /// Which measurement the model uses: warm buffers (one reused buffer, as applications that
    /// send from the same buffers see them) or cold (a new slice of a 64 MiB pool each time,
    /// as an application streaming from arrays larger than its caches sees them).
    #[arg(long, default_value = "warm", value_parser = ["cold", "warm"])]
    buffers: String,
    /// Largest acceptable spread, in percent. A calibration: the width of the 95 % interval of
    /// each ping-pong figure (a trimmed mean) over the figure (more trials narrow it: the worker is launched
    /// again, up to --max-launches, while one is wider). --check: the width of the narrowest
    /// majority of the probe's trials over their median (docs/calibrate.md).
    #[arg(long, default_value_t = 25.0)]
    max_spread: f64,
    /// Most launches of the worker while a ping-pong figure's interval is wider than
    /// --max-spread (not with --quick).
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=20))]
    max_launches: u32,
    /// Write the file even when the host is too noisy, with `[calibrated] noisy` set (psins-sim warns).
    #[arg(long)]
    allow_noisy: bool,
    /// The worker program (default: the one built with this tool).
    #[arg(long)]
    worker: Option<PathBuf>,
    /// Print the worker's path and exit (`make install` copies it).
    #[arg(long)]
    print_worker: bool,
    /// Fewer sizes and collectives: a rough calibration in a few seconds.
    #[arg(long)]
    quick: bool,
    /// The machine's name in the file.
    #[arg(long, default_value = "calibrated")]
    name: String,
    /// Both ranks on one host talk through something else than its memory (e.g. TCP forced
    /// on one host): write no `memory_bandwidth`, keep the exchanges' cost as crossing costs.
    #[arg(long)]
    no_memory_sharing: bool,
    /// Write no `serial_receive` (by default it goes on the [[intra.band]]s whose exchanges of
    /// two messages each way took 1.5 times or more one each way: the receiver copied them
    /// one at a time; docs/calibrate.md, *A receiver's copies one at a time*). The ratios are
    /// in the file's comments either way.
    #[arg(long)]
    no_serial_receive: bool,
    /// Write nothing: measure again the half round trips FILE's `[calibrated] check` records
    /// and say whether this host still matches it (exit 0) or not (exit 1, naming the size).
    /// The launcher defaults to the one FILE was calibrated with; run it with the same
    /// environment (e.g. MPIR_CVAR_NOLOCAL) too.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["output", "curves", "buffers", "allow_noisy", "quick", "name"])]
    check: Option<PathBuf>,
    /// --check: the largest change of a half round trip that still matches, in percent. Also
    /// how far a trial's empty half round trip may be from the rest before its trial is left
    /// out (the host changed speed during it), and the change beyond which a calibration
    /// replacing an older file of its own says the host has changed since.
    #[arg(long, default_value_t = 20.0)]
    tolerance: f64,
    /// Seconds a worker launch may take before it is stopped and the calibration (or check)
    /// fails; one that has written every figure but hangs in MPI_Finalize is stopped after
    /// 10 s and its figures used.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// The launcher and its arguments, after `--` (default: mpirun -n 2). The worker's path
    /// and arguments are appended.
    #[arg(last = true)]
    launcher: Vec<String>,
}

const AFTER: &str = "Examples:
  psins-calibrate -o base.toml                          # this host, mpirun -n 2
  psins-calibrate -o two-nodes.toml -- srun -N 2 -n 2   # two nodes of a cluster
  MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self psins-calibrate -o tcp.toml   # MPICH through TCP
  psins-calibrate --check base.toml                     # does this host still match base.toml?

Calibrate on an idle host, one rank per core. docs/calibrate.md explains every figure.";

fn main() {
    psins_cli::generate_if_asked::<Args>();
    let args = Args::parse();
    match run(&args) {
        Ok(()) => {}
        Err(e) => {
            eprintln!("psins-calibrate: {e}");
            e.exit_code().exit();
        }
    }
}

// The ranges are written as negated comparisons so that NaN, which compares false with
// everything, is refused with the rest.
#[allow(clippy::neg_cmp_op_on_partial_ord, clippy::nonminimal_bool)]
fn run(a: &Args) -> Result<(), Error> {
    if !(a.seconds_per_trial > 0.0 && a.seconds_per_trial <= 10.0) || !(a.max_spread > 0.0) {
        eprintln!("psins-calibrate: --seconds-per-trial must be in (0, 10] and --max-spread positive");
        psins_formats::exit::Exit::Usage.exit();
    }
    if !(a.tolerance > 0.0) {
        eprintln!("psins-calibrate: --tolerance must be positive");
        psins_formats::exit::Exit::Usage.exit();
    }
    let worker = find_worker(a.worker.as_deref())?;
    if a.print_worker {
        psins_formats::output::print(&format!("{}\n", worker.display()))?;
        return Ok(());
    }
    if let Some(file) = &a.check {
        return run_check(a, file, &worker);
    }
    // The file this run replaces, if psins-calibrate wrote it: its check points are compared
    // with the new figures below, so a recalibration says when the host has changed.
    let previous = a.output.is_file().then(|| check::read(&a.output).ok()).flatten();
    // Both outputs are checked before the measurement starts, not after it.
    let curves = a.curves.clone().unwrap_or_else(|| a.output.with_extension("curves.toml"));
    let machine_out = Output::prepare(&a.output, &[])?;
    let curves_out = Output::prepare(&curves, std::slice::from_ref(&a.output))?;
    let launcher =
        if a.launcher.is_empty() { vec!["mpirun".into(), "-n".into(), "2".into()] } else { a.launcher.clone() };
    let load = busy();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let wanted = |others: f64| others + 2.0 > cpus as f64;
    // Launching again helps a figure whose trials spread by nature, not a host that is busy
    // (before the run or, so far, during it) or changing speed: those are refused as they are.
    let busy_before = load.is_some_and(wanted);
    let mut raw = samples::Samples::default();
    let least = a.launches.unwrap_or(if a.quick { 1 } else { 3 });
    let most = if a.quick { least } else { a.max_launches.max(least) };
    let tolerance = a.tolerance / 100.0;
    let watch = Watch::start();
    // Launch until every ping-pong figure is known well enough, between `least` and `most`
    // launches: a transport whose trials spread by nature needs more of them (fit::Figure).
    let mut launches = 0;
    let (samples, selection) = loop {
        let one = samples::Samples::parse(&launch(&launcher, &worker, a, a.quick.then_some("-q").as_slice())?)?;
        placement(&one)?;
        raw.absorb(one);
        launches += 1;
        if launches < least {
            continue;
        }
        // Every figure from the trials of one speed state of the host (states.rs).
        let mut kept = raw.clone();
        let selection = states::keep_one_state(&mut kept, tolerance)?;
        let wide = fit::widest(&fit::pingpong(&kept, &a.buffers)).filter(|(_, f)| f.interval > a.max_spread / 100.0);
        match wide {
            Some((bytes, f))
                if launches < most
                    && !busy_before
                    && !watch.so_far().is_some_and(|(others, _)| wanted(others))
                    && !selection.as_ref().is_some_and(|s| s.too_few) =>
            {
                eprintln!(
                "psins-calibrate: note: after {launches} launches the ping-pong at {bytes} B is known to within {:.0} % (allowed {}): launching the worker again",
                    f.interval * 100.0,
                    a.max_spread
                )
            }
            _ => break (kept, selection),
        }
    };
    let during = watch.stop();
    let before = load.filter(|&others| wanted(others)).map(|others| {
        format!("{others:.0} other processes wanted a CPU before the run (median of {BUSY_SAMPLES} looks)")
    });
    let while_measuring = during.filter(|&(others, _)| wanted(others)).map(|(others, looks)| {
        format!("{others:.0} other processes wanted a CPU while the worker ran (median of {looks} looks)")
    });
    let loaded = match (before, while_measuring) {
        (None, None) => None,
        (b, w) => Some(format!(
            "{}, on {cpus} CPUs with 2 ranks to place",
            b.into_iter().chain(w).collect::<Vec<_>>().join(" and ")
        )),
    };
    let changing = selection.as_ref().filter(|s| s.too_few).map(ToString::to_string);
    let left_out = selection.as_ref().filter(|s| !s.too_few).map(ToString::to_string);
    if let Some(note) = &left_out {
        eprintln!("psins-calibrate: note: {note}");
    }
    let unsteady = match (loaded, changing) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    };
    let opts =
        fit::FitOptions { buffers: &a.buffers, max_spread: a.max_spread / 100.0, allow_noisy: a.allow_noisy, unsteady };
    let cal = fit::calibrate(&samples, &opts)?;
    if let Some(why) = &cal.noisy {
        if !a.allow_noisy {
            return Err(Error::Noisy(why.clone()));
        }
        eprintln!("psins-calibrate: warning: too noisy ({why}); the file says so");
    }
    if let Some(prev) = &previous {
        changed_since(&a.output, prev, &samples, a.tolerance / 100.0);
    }
    let curves_name = relative_to(&curves, &a.output);
    let prov = write::Provenance {
        at: now_utc(),
        launcher: &launcher.join(" "),
        buffers: &a.buffers,
        trials: a.trials,
        launches,
        name: &a.name,
        curves: &curves_name,
        left_out: left_out.as_deref(),
        memory_sharing: !a.no_memory_sharing,
        serial_receive: !a.no_serial_receive,
    };
    save(curves_out, &write::curves(&samples, &prov))?;
    save(machine_out, &write::machine(&cal, &samples, &prov))?;
    eprintln!(
        "psins-calibrate: wrote {} and {} (latency {:.3} us, {} bands, eager threshold {})",
        a.output.display(),
        curves.display(),
        cal.latency * 1e6,
        cal.bands.len(),
        cal.eager_threshold.map_or("above every size measured".into(), |e| format!("{e} B"))
    );
    Ok(())
}

/// A recalibration of a host whose figures moved beyond the tolerance since the file it
/// replaces was written says so, with the table: the VM's other speed state, a changed node
/// (docs/calibrate.md). The new file is still written: it describes the host as it is now.
fn changed_since(file: &Path, prev: &check::Calibrated, samples: &samples::Samples, tolerance: f64) {
    if let Ok((table, check::Verdict::Changed(why))) =
        check::compare(&prev.references, samples, tolerance, f64::INFINITY)
    {
        eprint!("{table}");
        eprintln!("psins-calibrate: note: this host has changed since {} was last calibrated: {why}", file.display());
    }
}

/// The worker: --worker, $PSINS_CALIB_WORKER, beside this executable (or in
/// ../libexec/psins/ of it, as `make install` lays it out), then the one cargo built.
fn find_worker(given: Option<&Path>) -> Result<PathBuf, Error> {
    let mut tried = Vec::new();
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = given {
        candidates.push(p.into());
    } else {
        if let Some(p) = std::env::var_os("PSINS_CALIB_WORKER") {
            candidates.push(p.into());
        }
        if let Some(dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)) {
            candidates.push(dir.join("psins-calib-worker"));
            candidates.push(dir.join("../libexec/psins/psins-calib-worker"));
        }
        candidates.push(concat!(env!("OUT_DIR"), "/psins-calib-worker").into());
    }
    for c in candidates {
        if c.is_file() {
            return Ok(c);
        }
        tried.push(c.display().to_string());
    }
    Err(Error::Launcher(format!("no calibration worker found (tried {})", tried.join(", "))))
}

/// `--check FILE`: the probe of check.rs through FILE's launcher (or the one given).
fn run_check(a: &Args, file: &Path, worker: &Path) -> Result<(), Error> {
    let cal = check::read(file)?;
    let launcher: Vec<String> = if !a.launcher.is_empty() {
        a.launcher.clone()
    } else {
        cal.launcher.as_deref().unwrap_or("mpirun -n 2").split_whitespace().map(str::to_string).collect()
    };
    let probe = check::probe_arg(&cal.references);
    let samples = samples::Samples::parse(&launch(&launcher, worker, a, &["-p", &probe])?)?;
    placement(&samples)?;
    // The probe was asked for exactly these sizes: one missing is a broken worker.
    if let Some(r) = cal.references.iter().find(|r| !samples.pingpong.contains_key(&("warm".to_string(), r.bytes))) {
        return Err(Error::Worker(format!("the probe printed no warm ping-pong of {} bytes", r.bytes)));
    }
    let (table, verdict) = check::compare(&cal.references, &samples, a.tolerance / 100.0, a.max_spread / 100.0)?;
    psins_formats::output::print(&table)?;
    match verdict {
        check::Verdict::Matches => {}
        check::Verdict::Noisy(why) => {
            return Err(Error::Check(format!("too noisy to tell: {why} (rerun on an idle host or raise --max-spread)")))
        }
        check::Verdict::Changed(why) => {
            return Err(Error::Changed(format!("this host no longer matches {}: {why}; recalibrate", file.display())))
        }
    }
    eprintln!(
        "psins-calibrate: this host still matches {} (every half round trip within {} %)",
        file.display(),
        a.tolerance
    );
    Ok(())
}

fn launch(launcher: &[String], worker: &Path, a: &Args, extra: &[&str]) -> Result<String, Error> {
    let mut cmd = Command::new(&launcher[0]);
    cmd.args(&launcher[1..]).arg(worker);
    cmd.args(["-r", &a.trials.to_string(), "-t", &a.seconds_per_trial.to_string()]);
    cmd.args(extra);
    let shown = format!("{} {}", launcher.join(" "), worker.display());
    // Ranks placed where they cannot measure are refused before they measure.
    let placed = |out: &str| placement(&samples::Samples::parse_so_far(out)?);
    launch::run(cmd, &shown, std::time::Duration::from_secs(a.timeout), &placed)
}

/// Ranks 0 and 1 must be able to run at once: two distinct CPUs.
fn placement(s: &samples::Samples) -> Result<(), Error> {
    let (Some(r0), Some(r1)) = (s.ranks.iter().find(|r| r.rank == 0), s.ranks.iter().find(|r| r.rank == 1)) else {
        return Err(Error::Worker("ranks 0 and 1 did not both report".into()));
    };
    if r0.host != r1.host {
        return Ok(());
    }
    if r0.cpus_online < 2 {
        return Err(Error::Placement(format!("host {} has {} CPU: ranks 0 and 1 share it", r0.host, r0.cpus_online)));
    }
    if r0.cpus_allowed == 1 && r1.cpus_allowed == 1 && r0.cpu == r1.cpu {
        return Err(Error::Placement(format!(
            "ranks 0 and 1 are both bound to CPU {} of {}: bind them to different cores",
            r0.cpu, r0.host
        )));
    }
    Ok(())
}

/// Looks at how many processes are runnable before the run.
const BUSY_SAMPLES: usize = 21;

/// Runnable scheduling entities in the kernel's count (/proc/loadavg's fourth field), the
/// reader included; None if the system does not say.
fn running() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    s.split_whitespace().nth(3)?.split('/').next()?.parse().ok()
}

/// Other runnable processes: the median of [`BUSY_SAMPLES`] looks at the
/// kernel's count of running processes 20 ms apart, less this one; None if the system does
/// not say. Not the load average: that still counts, for a minute, the ranks of a calibration
/// that has just ended (back to back, the second was refused for the first's load).
fn busy() -> Option<f64> {
    let mut v = Vec::with_capacity(BUSY_SAMPLES);
    for _ in 0..BUSY_SAMPLES {
        v.push((running()? - 1.0).max(0.0));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    Some(median(v))
}

/// The same look, every 20 ms while the worker runs: what else wanted a CPU during the
/// measurement itself, beyond the two ranks (which poll, so they count as runnable) and the
/// looking thread. A host that turns busy after the run has started spreads some trials and
/// not others; this names the cause instead of leaving it to the spreads.
struct Watch {
    stop: Arc<AtomicBool>,
    looks: Arc<Mutex<Vec<f64>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watch {
    fn start() -> Watch {
        let stop = Arc::new(AtomicBool::new(false));
        let looks = Arc::new(Mutex::new(Vec::new()));
        let (flag, into) = (stop.clone(), looks.clone());
        let thread = std::thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                let Some(r) = running() else { break };
                into.lock().unwrap_or_else(PoisonError::into_inner).push((r - 3.0).max(0.0));
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        });
        Watch { stop, looks, thread: Some(thread) }
    }

    /// (median of other runnable processes, looks) so far; None when there was no look.
    fn so_far(&self) -> Option<(f64, usize)> {
        let v = self.looks.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let n = v.len();
        (n > 0).then(|| (median(v), n))
    }

    /// [`Watch::so_far`] once the looking has stopped.
    fn stop(mut self) -> Option<(f64, usize)> {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        self.so_far()
    }
}

/// Fills a prepared output and moves it into place (psins_formats::output: a failed run
/// leaves no half file).
fn save(out: Output, text: &str) -> Result<(), Error> {
    std::fs::write(out.temp_path(), text).map_err(|e| psins_formats::Error::io(out.path(), "cannot write", e))?;
    Ok(out.commit()?)
}

/// `target`'s path as the machine file at `from` should name it (relative when side by side).
fn relative_to(target: &Path, from: &Path) -> String {
    match (target.parent(), from.parent()) {
        (Some(a), Some(b)) if a == b => target.file_name().map_or_else(String::new, |f| f.to_string_lossy().into()),
        _ => std::fs::canonicalize(target.parent().unwrap_or(Path::new(".")))
            .map(|d| d.join(target.file_name().unwrap_or_default()))
            .unwrap_or_else(|_| target.to_path_buf())
            .display()
            .to_string(),
    }
}

/// ISO 8601 UTC from the system clock.
fn now_utc() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (y, m, d, h, mi, s) = psins_cli::utc(secs);
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}
