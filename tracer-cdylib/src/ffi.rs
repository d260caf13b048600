//! The entry points the C shim calls (declared in `c-headers/psins_shim.h`). Each one catches
//! panics: a panic stops tracing on this rank and never crosses into C.
//!
//! # Safety
//! The `unsafe` entry points are for the shim only: pointers must be valid for the documented
//! lengths, and calls come from the one tracing thread (see `core::Global`).

use crate::clock::{self, BurstSource, Clock};
use crate::config::Config;
use crate::core::{Tracer, CLOSED, LOAD_CPU, LOAD_MONO, LOAD_TSC, TRACER};
use psins_formats::{Kind, LogHeader};
use std::ffi::{c_char, c_int, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Mutex;

pub use crate::ev::Ev;

// The layout the generated psins_ev.h asserts on the C side, asserted here on the Rust side
// (`const _: () = assert!(offset_of!(Ev, …) == …)`, written by build.rs from vocab/src/ev.rs).
include!(concat!(env!("OUT_DIR"), "/ev_layout.rs"));

extern "C" {
    static mut psins_active: c_int;
    static mut psins_use_tsc: c_int;
    static mut psins_cpu_clock: c_int;
    static mut psins_cpu_mult: u64;
    static mut psins_cpu_c0: u64;
    static mut psins_cpu_c1: u64;
}

/// Under `PSINS_CLOCK=cpu`, the thread's CPU time (ns) at the entry and at the exit of the
/// call being recorded, as the shim read it (`psins_cpu_c0`, `psins_cpu_c1`).
#[inline(always)]
pub(crate) fn cpu_readings() -> (u64, u64) {
    // SAFETY: plain integers the shim writes at the clock points of the call the tracing
    // thread is recording, which is this thread (calls are traced one at a time).
    unsafe { (std::ptr::addr_of!(psins_cpu_c0).read(), std::ptr::addr_of!(psins_cpu_c1).read()) }
}

/// Sets the readings [`cpu_readings`] returns: for the calls the core records itself (Init,
/// Finalize, Abort), whose readings the shim passes as arguments, and for tests.
pub(crate) fn set_cpu_readings(c0: u64, c1: u64) {
    // SAFETY: as in cpu_readings.
    unsafe {
        std::ptr::addr_of_mut!(psins_cpu_c0).write(c0);
        std::ptr::addr_of_mut!(psins_cpu_c1).write(c1);
    }
}

/// Turns the shim off for the rest of the run (every call passes straight through).
pub fn stop_tracing() {
    // SAFETY: plain int flag owned by the shim.
    unsafe { std::ptr::write_volatile(std::ptr::addr_of_mut!(psins_active), 0) };
}

/// State between psins_rs_configure and psins_rs_open (init time only, so a Mutex is fine).
struct Pending {
    cfg: Option<Config>,
    error: Option<String>,
}
static PENDING: Mutex<Pending> = Mutex::new(Pending { cfg: None, error: None });

// The loader runs the functions of `.init_array` when the .so is loaded, before main (what the
// `ctor` crate generates on Linux, without its proc-macro build in each of the tracer's builds,
// one per MPI).
#[used]
#[link_section = ".init_array"]
static AT_LOAD: extern "C" fn() = at_load;

extern "C" fn at_load() {
    // Nothing visible, nothing that can fail: pick the clock and take the first calibration
    // pair. Everything else waits for MPI_Init.
    let tsc = clock::invariant_tsc();
    clock::choose(tsc);
    // SAFETY: plain int flag owned by the shim.
    unsafe { psins_use_tsc = tsc as c_int };
    LOAD_MONO.store(clock::monotonic_ns(), Ordering::Relaxed);
    LOAD_TSC.store(clock::now(), Ordering::Relaxed);
    LOAD_CPU.store(clock::thread_cpu_ns(), Ordering::Relaxed);
}

fn guard<T>(default: T, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(_) => {
            stop_tracing();
            CLOSED.store(true, Ordering::Relaxed);
            default
        }
    }
}

/// Parses the configuration; 1 if tracing is to go ahead. Rank 0 reports a bad setting.
#[no_mangle]
pub extern "C" fn psins_rs_configure(rank: c_int) -> c_int {
    guard(0, || {
        let mut p = PENDING.lock().unwrap_or_else(|e| e.into_inner());
        match Config::from_env() {
            Ok(c) if !c.trace => 0,
            Ok(c) => {
                // the shim checks rseq for PSINS_CLOCK=cpu (and reads at every call without it)
                // before psins_rs_open, which then describes the clock it settled on
                // SAFETY: plain int owned by the shim; init time, the tracing thread.
                unsafe { std::ptr::write_volatile(std::ptr::addr_of_mut!(psins_cpu_clock), c.clock.shim_mode()) };
                p.cfg = Some(c);
                1
            }
            Err(e) => {
                if rank == 0 {
                    eprintln!("psins: {e}; tracing is off for this run (the application runs normally)");
                }
                0
            }
        }
    })
}

fn local_stamp() -> String {
    // SAFETY: time/localtime_r with valid pointers.
    unsafe {
        let t = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&t, &mut tm);
        format!(
            "{:04}{:02}{:02}-{:02}{:02}{:02}",
            tm.tm_year + 1900,
            tm.tm_mon + 1,
            tm.tm_mday,
            tm.tm_hour,
            tm.tm_min,
            tm.tm_sec
        )
    }
}

/// Why [`create_job_dir`] made no job directory.
#[derive(Debug)]
pub enum JobDirError {
    CurrentDir(std::io::Error),
    OutputDir { dir: PathBuf, source: std::io::Error },
    JobDir { path: PathBuf, source: std::io::Error },
    NoFreeName { dir: PathBuf },
}

impl std::fmt::Display for JobDirError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobDirError::CurrentDir(e) => write!(f, "cannot read the current directory: {e}"),
            JobDirError::OutputDir { dir, source } => {
                write!(f, "cannot create the output directory {}: {source}", dir.display())
            }
            JobDirError::JobDir { path, source } => {
                write!(f, "cannot create the job directory {}: {source}", path.display())
            }
            JobDirError::NoFreeName { dir } => {
                write!(f, "cannot find a free job directory name under {}", dir.display())
            }
        }
    }
}

impl std::error::Error for JobDirError {}

/// Creates a fresh job directory under `dir`; never reuses an existing one.
pub fn create_job_dir(dir: &Path) -> Result<(PathBuf, u64), JobDirError> {
    let dir = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir().map_err(JobDirError::CurrentDir)?.join(dir)
    };
    if let Err(source) = std::fs::create_dir_all(&dir) {
        return Err(JobDirError::OutputDir { dir, source });
    }
    let job_id =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    let base = format!("{}-{}", local_stamp(), std::process::id());
    for n in 0..1000 {
        let name = if n == 0 { base.clone() } else { format!("{base}-{n}") };
        let p = dir.join(&name);
        match std::fs::create_dir(&p) {
            Ok(()) => return Ok((p, job_id)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(JobDirError::JobDir { path: p, source }),
        }
    }
    Err(JobDirError::NoFreeName { dir })
}

/// Rank 0: create the job directory. `buf` = job id (u64 LE), ok flag (u8), then the path
/// (or the error message), NUL-terminated. Broadcast by the shim.
#[allow(clippy::missing_safety_doc)]
#[no_mangle]
pub unsafe extern "C" fn psins_rs_job(_rank: c_int, buf: *mut c_char, len: c_int) {
    guard((), || {
        if buf.is_null() || len < 16 {
            return;
        }
        // SAFETY: the shim passes a writable buffer of len bytes.
        let out = unsafe { std::slice::from_raw_parts_mut(buf as *mut u8, len as usize) };
        out.fill(0);
        let dir = PENDING.lock().unwrap_or_else(|e| e.into_inner()).cfg.as_ref().map(|c| c.dir.clone());
        let Some(dir) = dir else { return };
        let (ok, id, text) = match create_job_dir(&dir) {
            Ok((p, id)) => (1u8, id, p.to_string_lossy().into_owned()),
            Err(e) => (0u8, 0, e.to_string()),
        };
        out[..8].copy_from_slice(&id.to_le_bytes());
        out[8] = ok;
        let t = text.as_bytes();
        let n = t.len().min(out.len() - 10);
        out[9..9 + n].copy_from_slice(&t[..n]);
    })
}

fn hostname() -> String {
    let mut b = [0u8; 256];
    // SAFETY: valid buffer.
    unsafe { libc::gethostname(b.as_mut_ptr() as *mut c_char, b.len()) };
    let n = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..n]).into_owned()
}

/// Opens this rank's log; 1 on success. On failure the message is kept for
/// [`psins_rs_report`].
#[allow(clippy::missing_safety_doc)]
#[no_mangle]
pub unsafe extern "C" fn psins_rs_open(
    jobbuf: *const c_char,
    rank: c_int,
    size: c_int,
    thread_level: c_int,
    libver: *const c_char,
    t0: u64,
    t1: u64,
    c0: u64,
    c1: u64,
) -> c_int {
    guard(0, || {
        let mut p = PENDING.lock().unwrap_or_else(|e| e.into_inner());
        let Some(cfg) = p.cfg.take() else { return 0 };
        // SAFETY: the shim passes the broadcast job buffer (>= 16 bytes, NUL-terminated text).
        let (id, ok, text) = unsafe {
            let b = std::slice::from_raw_parts(jobbuf as *const u8, 9);
            let id = u64::from_le_bytes(b[..8].try_into().unwrap());
            let text = CStr::from_ptr(jobbuf.add(9)).to_string_lossy().into_owned();
            (id, b[8] == 1, text)
        };
        if !ok {
            p.error = Some(format!(
                "psins: {}; this run is not traced (the application runs normally)",
                if text.is_empty() { "rank 0 could not create the job directory".to_string() } else { text }
            ));
            return 0;
        }
        let job_dir = PathBuf::from(&text);
        let path = job_dir.join(format!("rank-{rank:06}.bin"));
        let cpath = match std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) {
            Ok(c) => c,
            Err(_) => return 0,
        };
        // SAFETY: valid C string.
        let fd = unsafe {
            libc::open(cpath.as_ptr(), libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC, 0o644)
        };
        if fd < 0 {
            let e = std::io::Error::last_os_error();
            p.error = Some(format!(
                "psins: rank {rank}: cannot create the trace log {}: {e}; this run is not traced on that rank \
                 (the application runs normally)",
                path.display()
            ));
            return 0;
        }
        let clk = Clock::calibrate(LOAD_TSC.load(Ordering::Relaxed), LOAD_MONO.load(Ordering::Relaxed));
        // SAFETY: plain ints owned by the shim; init time, the tracing thread (the shim reads
        // the multiplier only once tracing has started, after this).
        let bursts = unsafe {
            std::ptr::write_volatile(std::ptr::addr_of_mut!(psins_cpu_mult), clk.mult);
            let mode = std::ptr::read_volatile(std::ptr::addr_of!(psins_cpu_clock));
            BurstSource::of_shim_mode(mode, cfg.clock == crate::config::ClockSetting::Cpu)
        };
        let clock_text = clk.describe_with(bursts);
        let libver = if libver.is_null() {
            String::new()
        } else {
            // SAFETY: NUL-terminated string from MPI_Get_library_version.
            unsafe { CStr::from_ptr(libver) }.to_string_lossy().lines().next().unwrap_or("").trim().to_string()
        };
        let header = LogHeader {
            rank: rank as u32,
            world_size: size as u32,
            job_id: id,
            pid: std::process::id(),
            start_unix_ns: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0),
            clock: clock_text.clone(),
            host: hostname(),
            mpi_version: libver.clone(),
            settings: cfg.header_string(),
            tracer_version: concat!("psins-tracer ", env!("CARGO_PKG_VERSION")).to_string(),
        };
        if rank == 0 {
            let extra = vec![
                ("job_id".to_string(), id.to_string()),
                ("world_size".to_string(), size.to_string()),
                ("clock".to_string(), clock_text),
                ("mpi".to_string(), libver),
                ("tracer".to_string(), header.tracer_version.clone()),
            ];
            let _ = std::fs::write(job_dir.join("settings.txt"), cfg.settings_txt(&extra));
        }
        let signals = cfg.signals;
        let mut t = Tracer::new(cfg, &header, fd, path, job_dir, clk, bursts != BurstSource::Wall, rank);
        // the Init record
        let ev = Ev::bare(t0, t1, Kind::Init, thread_level as u32);
        set_cpu_readings(c0, c1);
        CLOSED.store(false, Ordering::Relaxed);
        t.record_once(&ev);
        // write the header and the Init record now: even a rank killed with SIGKILL then
        // leaves a readable (if short) log
        t.flush();
        // SAFETY: init time, single thread.
        unsafe { TRACER.set(t) };
        crate::signals::install(signals);
        1
    })
}

/// After the shim's allreduce: the first failing rank prints its message; if none failed,
/// rank 0 says where the logs are, and every rank starts its first CPU burst at `now`, so the
/// tracer's own set-up (directory, broadcast, log header) is neither a burst nor a skew
/// between ranks.
#[no_mangle]
pub extern "C" fn psins_rs_report(first_failed_rank: c_int, rank: c_int, size: c_int, now: u64, cpu_now: u64) {
    guard((), || {
        let mut p = PENDING.lock().unwrap_or_else(|e| e.into_inner());
        if first_failed_rank >= 0 {
            if first_failed_rank == rank {
                if let Some(e) = p.error.take() {
                    eprintln!("{e}");
                }
            }
            // a partly traced run is worse than none: close this rank's log too
            // SAFETY: init time, tracing thread.
            if let Some(t) = unsafe { TRACER.get() } {
                if t.fd >= 0 {
                    t.close();
                }
            }
            return;
        }
        // SAFETY: init time, tracing thread.
        if let Some(t) = unsafe { TRACER.get() } {
            t.set_last_exit(now, cpu_now);
        }
        if rank == 0 {
            // SAFETY: init time, tracing thread.
            if let Some(t) = unsafe { TRACER.get() } {
                if !t.cfg.quiet {
                    eprintln!("psins: tracing {size} rank(s); logs in {}/", t.job_dir.display());
                }
            }
        }
    })
}

/// One traced call.
#[allow(clippy::missing_safety_doc)]
#[no_mangle]
pub unsafe extern "C" fn psins_rs_record(ev: *const Ev) {
    guard((), || {
        // SAFETY: tracing thread; ev is a valid pointer for the call.
        if let (Some(t), Some(ev)) = unsafe { (TRACER.get(), ev.as_ref()) } {
            t.record(ev);
        }
    })
}

#[allow(clippy::missing_safety_doc)]
#[no_mangle]
pub unsafe extern "C" fn psins_rs_finalize(
    t0: u64,
    t1: u64,
    c0: u64,
    c1: u64,
    counts: *const u64,
    n: c_int,
    other_thread_calls: u64,
) {
    guard((), || {
        // SAFETY: tracing thread.
        let Some(t) = (unsafe { TRACER.get() }) else { return };
        if CLOSED.load(Ordering::Relaxed) {
            return;
        }
        let ev = Ev::bare(t0, t1, Kind::Finalize, 0);
        set_cpu_readings(c0, c1);
        t.record_once(&ev);
        let counts: &[u64] = if counts.is_null() || n <= 0 {
            &[]
        } else {
            // SAFETY: the shim's counts array of n entries.
            unsafe { std::slice::from_raw_parts(counts, n as usize) }
        };
        t.finish(counts, other_thread_calls);
    })
}

/// MPI_Abort: record it and write everything out (no footer: the run did not finish).
#[no_mangle]
pub extern "C" fn psins_rs_abort(t0: u64, c0: u64, code: c_int) {
    guard((), || {
        // SAFETY: tracing thread.
        let Some(t) = (unsafe { TRACER.get() }) else { return };
        if CLOSED.load(Ordering::Relaxed) {
            return;
        }
        let ev = Ev { code, ..Ev::bare(t0, t0, Kind::Abort, 0) };
        set_cpu_readings(c0, c0);
        t.record_once(&ev);
        t.flush();
        t.close();
    })
}

/// In a child after fork(): never trace, never write the parent's buffer.
#[no_mangle]
pub extern "C" fn psins_rs_after_fork_child() {
    CLOSED.store(true, Ordering::Relaxed);
}
