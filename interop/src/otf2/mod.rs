//! OTF2 archives (Score-P's format; Vampir reads them, `otf2-print` prints them) through
//! Debian's libotf2 (`libotf2-trace-dev`, OTF2 3.x): the export of a compact trace's measured
//! run ([`write`]) and the import of an archive as consolidation's per-rank inputs
//! ([`import`], [`convert`]). build.rs probes for the library; without it the crate still builds and
//! [`export`] says "built without libotf2" with the probe's reasons. docs/interop-otf2.md.

#[cfg(has_otf2)]
mod calls;
#[cfg(has_otf2)]
pub mod convert;
#[cfg(has_otf2)]
mod defs;
#[cfg(has_otf2)]
mod events;
#[cfg(has_otf2)]
mod handle;
#[cfg(has_otf2)]
pub mod import;
#[cfg(has_otf2)]
mod members;
#[cfg(has_otf2)]
mod scorep;
#[cfg(has_otf2)]
mod sys;
#[cfg(has_otf2)]
pub mod write;

#[cfg(has_otf2)]
pub use errors::{last_error, quiet_errors};

/// libotf2's error messages, kept for ours instead of printed on stderr.
#[cfg(has_otf2)]
mod errors {
    use super::sys;
    use std::ffi::{c_void, CStr};
    use std::os::raw::c_char;
    use std::sync::{Mutex, Once};

    static LAST: Mutex<String> = Mutex::new(String::new());

    extern "C" {
        fn vsnprintf(buf: *mut c_char, n: usize, fmt: *const c_char, va: *mut c_void) -> i32;
    }

    extern "C" fn keep(
        _: *mut c_void,
        _: *const c_char,
        _: u64,
        _: *const c_char,
        code: sys::ErrorCode,
        fmt: *const c_char,
        va: *mut c_void,
    ) -> sys::ErrorCode {
        let mut buf = [0 as c_char; 512];
        // SAFETY: libotf2 passes its printf format and arguments; vsnprintf bounds the write.
        let msg = if fmt.is_null() {
            String::new()
        } else {
            unsafe { vsnprintf(buf.as_mut_ptr(), buf.len(), fmt, va) };
            unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned()
        };
        if let Ok(mut l) = LAST.lock().as_deref_mut().map(|l| l.is_empty().then_some(l)) {
            let Some(l) = l.as_mut() else { return code };
            **l = format!("{}: {msg}", sys::describe(code));
        }
        code
    }

    /// Routes libotf2's error messages to [`last_error`] (once per process).
    pub fn quiet_errors() {
        static ONCE: Once = Once::new();
        // SAFETY: registers a callback that lives for the whole process.
        ONCE.call_once(|| unsafe {
            sys::OTF2_Error_RegisterCallback(keep, std::ptr::null_mut());
        });
    }

    /// `what`, with libotf2's first message since the last call (the root cause; later
    /// messages are its consequences).
    pub fn last_error(what: &str) -> String {
        let l = LAST.lock().map(|mut l| std::mem::take(&mut *l)).unwrap_or_default();
        if l.is_empty() {
            format!("libotf2: {what}")
        } else {
            format!("libotf2: {what} ({l})")
        }
    }
}

use crate::ExportError;
use std::path::Path;

/// What an export wrote.
#[derive(Debug, Default)]
pub struct Otf2Summary {
    pub tasks: u32,
    pub records: u64,
    /// OTF2 events written, all locations.
    pub events: u64,
    pub regions: u32,
    pub comms: u32,
}

/// The anchor file of the archive an export to `dir` writes.
pub fn anchor(dir: &Path) -> std::path::PathBuf {
    dir.join("traces.otf2")
}

/// This build does not link libotf2: why, in build.rs's probe's words (every reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("built without libotf2 ({probe})")]
pub struct Unavailable {
    pub probe: &'static str,
}

/// Whether this build links libotf2; if not, why.
pub fn available() -> Result<(), Unavailable> {
    if cfg!(has_otf2) {
        Ok(())
    } else {
        Err(Unavailable { probe: env!("PSINS_OTF2_PROBE") })
    }
}

/// Exports `trace` as an OTF2 archive in `dir` (`dir/traces.otf2`, `traces.def`, `traces/`).
pub fn export(trace: &Path, dir: &Path) -> Result<Otf2Summary, ExportError> {
    #[cfg(has_otf2)]
    {
        write::export(trace, dir)
    }
    #[cfg(not(has_otf2))]
    {
        let _ = trace;
        let why = available().expect_err("no libotf2");
        Err(ExportError::Output(psins_formats::Error::new(dir, why.to_string())))
    }
}
