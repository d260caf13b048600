#!/usr/bin/env bash
# The tracer's end-to-end tests again, against Open MPI (a step of `make test`): those
# of tests/tests/tracer.rs, of PSINS_CLOCK=cpu (tests/tests/cpu_clock.rs), of the
# validation runs' span library (tests/tests/span.rs) and of psins-calibrate's eager probe
# (tests/tests/eager_probe.rs).
# Skipped, saying so, when Open MPI is not installed; CI installs it (.ci/run), and
# `bash scripts/setup.sh --openmpi` does the same by hand. The tracer is built against Open
# MPI's mpi.h into its own target directory: one .so per MPI, since their headers differ.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v mpicc.openmpi >/dev/null || ! command -v mpirun.openmpi >/dev/null; then
  echo "test-openmpi: Open MPI not installed (no mpicc.openmpi / mpirun.openmpi): skipped" >&2
  exit 0
fi
# PSINS_TEST_PROFILE: the cargo profile of the tests and tools (`make test` passes its own;
# release by default, as for `cargo test --release`).
profile=${PSINS_TEST_PROFILE:-release}
dir=$profile
[ "$profile" = dev ] && dir=debug
# The tools the tests run, current, built before Open MPI's compilers enter the environment
# (there MPICC would rebuild target/'s tracer and calibration worker against Open MPI).
cargo build --workspace --profile "$profile"
out=$PWD/target/openmpi
export MPICC=mpicc.openmpi MPIFORT=mpifort.openmpi
CARGO_TARGET_DIR=$out cargo build --profile "$profile" -p psins-tracer
make -s -C mpi-test-apps MPICC=mpicc.openmpi MPIFORT=mpifort.openmpi BIN="$out/apps/bin" OBJ="$out/apps/obj"
# the Fortran apps were built above with mpifort.openmpi: their tests must run, not skip.
# --workspace: the dependencies' features of `make test`'s build, so nothing is rebuilt.
PSINS_MPIRUN=mpirun.openmpi PSINS_TRACER_SO="$out/$dir/libpsinstrace.so" PSINS_TOOLS_DIR="$PWD/target/$dir" \
  PSINS_APPS_DIR="$out/apps/bin" PSINS_REQUIRE_FORTRAN=1 cargo test --profile "$profile" --workspace --test e2e -- tracer:: cpu_clock:: span:: eager_probe::
