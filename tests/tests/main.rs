//! The integration tests, one module per file, linked as one binary: each test binary links
//! the whole workspace below it, and one link instead of one per file is most of what the
//! tests' build saves.

mod cpu_clock;
mod demo;
mod dumpi;
mod eager_probe;
mod otf2;
mod other_requests;
mod packaging;
mod paraver;
mod peers;
mod pipeline;
mod polls;
mod predicted;
mod simgrid;
mod span;
mod timeline;
mod tracer;
