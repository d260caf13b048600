//! libpsinstrace.so — the Rust core behind the C shim (`c-headers/shim.c`).
//!
//! `LD_PRELOAD=libpsinstrace.so mpirun -n N ./app` traces any MPI application built against
//! the system MPI and leaves `<PSINS_DIR>/<job>/rank-NNNNNN.bin` per rank (see
//! `docs/tracer.md`). The shim wraps every MPI function (generated from
//! `c-headers/mpi_functions.tbl` by `build.rs`), converts MPI handles to plain integers and
//! calls [`ffi`]'s entry points; this crate owns the clock, the per-rank buffer and the log.
//!
//! Intercepted-path rules (bytehound style): no allocation, locking, syscall or I/O per call
//! (the buffer is written only when full and at the end); a per-thread re-entrancy guard (in
//! the shim); every `extern "C"` entry catches panics, so none crosses the FFI boundary.

pub mod clock;
pub mod config;
mod core;
pub mod coverage;
pub mod ev;
pub mod ffi;
mod signals;

/// The function table generated from `c-headers/mpi_functions.tbl`.
pub mod functions {
    include!(concat!(env!("OUT_DIR"), "/functions.rs"));

    /// The id of an MPI function by name.
    pub fn id_of(name: &str) -> Option<u32> {
        FUNCTIONS.iter().find(|f| f.1 == name).map(|f| f.0)
    }

    /// The name of a function id.
    pub fn name_of(id: u32) -> Option<&'static str> {
        FUNCTIONS.iter().find(|f| f.0 == id).map(|f| f.1)
    }
}

// The generator of psins_ev.h (a module of build.rs), compiled here for its unit tests; it
// names the record vocabulary `crate::record`, as the build script does.
#[cfg(test)]
#[path = "../build/boundary.rs"]
#[allow(dead_code)]
mod boundary;
#[cfg(test)]
use psins_formats::record;

/// The include directories of the MPI the shim was built against (for tests).
pub const MPI_INCLUDE: &str = env!("PSINS_MPI_INCLUDE");
pub const MPI_FOUND_BY: &str = env!("PSINS_MPI_FOUND_BY");
