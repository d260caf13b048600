//! The generators of the tracer's C side, run by its build script: [`boundary`] writes
//! `psins_ev.h` and `ev_layout.rs` from the vocabulary's Rust definitions, [`wrappers`] the C
//! and Fortran wrappers, `psins_weak.h` and `psins_ids.h` from `c-headers/mpi_functions.tbl`.
//! A crate of its own so that the build script and the unit tests compile the same code.

pub mod boundary;
pub mod wrappers;
