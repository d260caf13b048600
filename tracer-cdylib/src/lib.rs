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
/// `psins_ev`, the struct the C shim hands the core (defined in psins-vocab).
pub use psins_vocab::ev;
pub mod ffi;
mod polls;
mod signals;

/// The MPI function table (`c-headers/mpi_functions.tbl`): `FUNCTIONS`, `id_of`, `name_of`.
pub use psins_formats::functions;

/// The include directories of the MPI the shim was built against (for tests).
pub const MPI_INCLUDE: &str = env!("PSINS_MPI_INCLUDE");
pub const MPI_FOUND_BY: &str = env!("PSINS_MPI_FOUND_BY");

#[cfg(test)]
mod generated {
    /// The header the shim was compiled with is the one the generator writes.
    #[test]
    fn the_generated_header_is_the_one_the_shim_was_built_with() {
        let built = include_str!(concat!(env!("OUT_DIR"), "/psins_ev.h"));
        assert_eq!(psins_shim_gen::boundary::generate(8).unwrap().header, built);
    }
}
