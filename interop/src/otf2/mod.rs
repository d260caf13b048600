//! OTF2 archives (Score-P's format; Vampir reads them, `otf2-print` prints them) through
//! Debian's libotf2 (`libotf2-trace-dev`, OTF2 3.x): the export of a compact trace's measured
//! run ([`write`]). build.rs probes for the library; without it the crate still builds and
//! [`export`] says "built without libotf2" with the probe's reasons. docs/interop-otf2.md.

#[cfg(has_otf2)]
mod sys;
#[cfg(has_otf2)]
pub mod write;

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

/// Whether this build links libotf2; if not, why (build.rs's probe, every reason).
pub fn available() -> Result<(), String> {
    if cfg!(has_otf2) {
        Ok(())
    } else {
        Err(format!("built without libotf2 ({})", env!("PSINS_OTF2_PROBE")))
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
        let msg = available().expect_err("no libotf2");
        Err(ExportError::Output(psins_formats::Error::new(dir, msg)))
    }
}
