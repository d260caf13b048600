//! psins-calibrate: measures this machine's (or two cluster nodes') MPI point-to-point costs
//! and collectives through a real MPI launch, and writes a psins-sim machine file of them.
//!
//! It launches the worker (worker/psins_calib_worker.c, built against the MPI psins-mpi-probe finds)
//! through a configurable launcher, takes a trimmed mean of every figure over repeated trials,
//! refuses a host too noisy to measure, checks that the figures can all be true, fits
//! size bands (fit.rs) and writes the files (write.rs). `--check` (check.rs) measures a few
//! of a written file's figures again to say whether the host still matches it.

pub mod check;
pub mod error;
pub mod fit;
pub mod launch;
pub mod samples;
pub mod states;
pub mod write;
