//! The integration tests, one module per file, linked as one binary: each test binary links
//! the whole workspace below it, and one link instead of one per file is most of what the
//! tests' build saves.

mod api;
mod common;
mod conservation;
mod deadlock;
mod dragonfly;
mod fattree;
mod paths;
mod routing;
mod throughput;
mod timing;
mod zero_load;
