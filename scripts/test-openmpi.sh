#!/usr/bin/env bash
# The tracer's end-to-end tests again, against Open MPI (the last step of `make test`).
# Skipped, saying so, when Open MPI is not installed; CI installs it (.ci/run), and
# `bash scripts/setup.sh --openmpi` does the same by hand. The tracer is built against Open
# MPI's mpi.h into its own target directory: one .so per MPI, since their headers differ.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v mpicc.openmpi >/dev/null || ! command -v mpirun.openmpi >/dev/null; then
  echo "test-openmpi: Open MPI not installed (no mpicc.openmpi / mpirun.openmpi): skipped" >&2
  exit 0
fi
out=$PWD/target/openmpi
export MPICC=mpicc.openmpi MPIFORT=mpifort.openmpi
CARGO_TARGET_DIR=$out cargo build --release -p psins-tracer
make -s -C mpi-test-apps MPICC=mpicc.openmpi MPIFORT=mpifort.openmpi BIN="$out/apps/bin" OBJ="$out/apps/obj"
# the Fortran apps were built above with mpifort.openmpi: their tests must run, not skip
PSINS_MPIRUN=mpirun.openmpi PSINS_TRACER_SO="$out/release/libpsinstrace.so" PSINS_APPS_DIR="$out/apps/bin" \
  PSINS_REQUIRE_FORTRAN=1 cargo test --release -p psins-e2e --test tracer
