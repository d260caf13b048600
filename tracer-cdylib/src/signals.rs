//! Crash safety: SIGSEGV/SIGBUS/SIGABRT/SIGTERM/SIGINT handlers and an atexit hook that write
//! the buffer out (async-signal-safe: seal the block — pure computation — and write(2)), so
//! the log is readable up to its last whole block. The previous handler is restored and the
//! signal re-raised, so the process dies (or not) exactly as it would have without us.
//!
//! A signal the application handles itself (a handler installed before MPI_Init, as codes
//! that checkpoint on the batch system's SIGTERM warning do) may well not end the run: then
//! the application's handler is called and tracing goes on untouched. If that handler ends
//! the process through exit(), the atexit hook writes the buffer; closed blocks are on disk
//! already (core.rs writes each as it closes). A signal the application ignores is left
//! alone: our handler is not installed for it.

use crate::core::{BUSY, CLOSED, TRACER};
use std::sync::atomic::{AtomicBool, Ordering};

const SIGNALS: [libc::c_int; 5] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGABRT, libc::SIGTERM, libc::SIGINT];
static mut OLD: [std::mem::MaybeUninit<libc::sigaction>; 5] = [std::mem::MaybeUninit::uninit(); 5];
static INSTALLED: AtomicBool = AtomicBool::new(false);
static IN_HANDLER: AtomicBool = AtomicBool::new(false);

/// Writes what can be trusted: everything if no record was being appended, else only the
/// sealed blocks. No footer. Async-signal-safe.
fn emergency_flush() {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    // SAFETY: see the module doc; the tracing thread may be interrupted, handled via BUSY.
    let Some(t) = (unsafe { TRACER.get() }) else { return };
    // SAFETY: getpid is async-signal-safe.
    if unsafe { libc::getpid() } != t.owner_pid {
        return;
    }
    CLOSED.store(true, Ordering::Relaxed);
    crate::ffi::stop_tracing();
    if BUSY.load(Ordering::Relaxed) {
        let sealed = t.block_start;
        t.write_prefix(sealed, true);
    } else {
        t.end_run_in_place();
        t.seal();
        t.write_out(true);
    }
    if t.fd >= 0 {
        // SAFETY: our descriptor.
        unsafe { libc::close(t.fd) };
        t.fd = -1;
    }
}

/// The handler installed before ours for signal `i`, if `i` is one a process may survive
/// (SIGTERM, SIGINT) and a handler (not the default action) was there. Faults and aborts are
/// never survived, so for them the buffer is always written first.
fn app_handler(i: usize) -> Option<libc::sigaction> {
    if !matches!(SIGNALS[i], libc::SIGTERM | libc::SIGINT) {
        return None;
    }
    // SAFETY: OLD[i] was filled by install() before our handler was set.
    let old = unsafe { (*std::ptr::addr_of!(OLD))[i].assume_init() };
    (old.sa_sigaction != libc::SIG_DFL && old.sa_sigaction != libc::SIG_IGN).then_some(old)
}

extern "C" fn on_signal(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let i = SIGNALS.iter().position(|&s| s == sig);
    if let Some(old) = i.and_then(app_handler) {
        // The application decides: call its handler as the kernel would have, keep tracing.
        // SAFETY: the handler the application registered, called with its own convention.
        unsafe {
            if old.sa_flags & libc::SA_SIGINFO != 0 {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(old.sa_sigaction);
                f(sig, info, ctx);
            } else {
                let f: extern "C" fn(libc::c_int) = std::mem::transmute(old.sa_sigaction);
                f(sig);
            }
        }
        return;
    }
    if !IN_HANDLER.swap(true, Ordering::SeqCst) {
        emergency_flush();
    }
    // restore the previous disposition and re-raise
    if let Some(i) = SIGNALS.iter().position(|&s| s == sig) {
        // SAFETY: OLD[i] was filled by install() before our handler was set.
        unsafe {
            let old = (*std::ptr::addr_of!(OLD))[i].as_ptr();
            libc::sigaction(sig, old, std::ptr::null_mut());
        }
    }
    IN_HANDLER.store(false, Ordering::SeqCst);
    // SAFETY: raise is async-signal-safe. For SIGSEGV/SIGBUS raised by a faulting
    // instruction, returning re-executes it under the restored handler as well.
    unsafe { libc::raise(sig) };
}

extern "C" fn at_exit() {
    emergency_flush();
}

pub fn install(signals: bool) {
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    // SAFETY: plain libc calls with valid pointers; runs once at MPI_Init.
    unsafe {
        libc::atexit(at_exit);
        if !signals {
            return;
        }
        for (i, &sig) in SIGNALS.iter().enumerate() {
            let old = (*std::ptr::addr_of_mut!(OLD))[i].as_mut_ptr();
            libc::sigaction(sig, std::ptr::null(), old);
            if (*old).sa_sigaction == libc::SIG_IGN {
                continue; // ignored by the application: it cannot end the run
            }
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) as usize;
            sa.sa_flags = libc::SA_RESTART | libc::SA_SIGINFO;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}
