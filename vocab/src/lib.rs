//! psins's vocabulary, with no dependency: the record codes and the `Record` they make
//! ([`record`]), the parser of the one table of MPI signatures ([`mpi_table`]) and the struct
//! that crosses from the tracer's C shim to its Rust core ([`ev`]). Build scripts use it as
//! well as libraries (the tracer's writes the C side of all three from it; psins-formats',
//! the id → name table), so each is defined once and read by both compilers.

pub mod ev;
pub mod how;
pub mod mpi_table;
pub mod record;
