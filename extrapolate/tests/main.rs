//! The integration tests, one module per file, linked as one binary: each test binary links
//! the whole workspace below it, and one link instead of one per file is most of what the
//! tests' build saves.

mod cli;
mod patterns;
