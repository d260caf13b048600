//! The integration tests, one module per file, linked as one binary: each test binary links
//! the whole workspace below it, and one link instead of one per file is most of what the
//! tests' build saves.

mod otf2 {
    pub mod compile;
}
mod dumpi_fuzz;
mod dumpi_import;
mod import_from;
mod otf2_export;
mod otf2_import;
mod otf2_scorep;
mod paraver_export;
mod ti_export;
mod ti_fuzz;
mod ti_import;
