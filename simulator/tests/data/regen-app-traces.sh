#!/usr/bin/env bash
# Regenerates the real-application trace fixtures replayed by simulator/tests/apps.rs:
# every C test app, 4 ranks, traced with the release tracer and consolidated.
# Needs: mpirun (MPICH), `make -C mpi-test-apps`, `cargo build --release -p psins-tracer
# -p psins-consolidate` (or set PSINS_TRACER_SO / PSINS_CONSOLIDATE).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
so=${PSINS_TRACER_SO:-$root/target/release/libpsinstrace.so}
consolidate=${PSINS_CONSOLIDATE:-$root/target/release/psins-consolidate}
out=$root/simulator/tests/data/apps
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for app in pingpong ring stencil2d stencil3d cg is master_worker collectives comms requests; do
    (cd "$work" && rm -rf psins-trace &&
        LD_PRELOAD=$so timeout 60 mpirun -n 4 "$root/mpi-test-apps/bin/$app" >/dev/null &&
        "$consolidate" psins-trace/*/ -o "$out/$app.psins")
done
ls -l "$out"
