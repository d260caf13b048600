//! The integration tests, one module per file, linked as one binary: each test binary links
//! the whole workspace below it, and one link instead of one per file is most of what the
//! tests' build saves.

mod analytic_algorithms;
mod apps;
mod batch_progress;
mod binary;
mod cli;
mod common;
mod critpath;
mod crossing;
mod dragonfly;
mod empty_trace;
mod extrapolated;
mod fattree;
mod flow;
mod golden;
mod golden_coll;
mod golden_self;
mod interrupt;
mod meaningless;
mod model_plugin;
mod mpi_library;
mod node_memory;
mod open_requests;
mod outputs;
mod overflow;
mod overheads;
mod pipes;
mod plots;
mod polls_regions;
mod predicted_trace;
mod report_text;
mod rma;
mod robustness;
mod semantics;
mod slips;
mod sweep;
mod timeline;
mod torus;
mod torus_cli;
mod tracer_overhead;
mod which_rank;
