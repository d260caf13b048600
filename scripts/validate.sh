#!/usr/bin/env bash
# The first prediction check (docs/validation.md): trace every test app at 2 ranks, calibrate
# this host with psins_bench, replay each trace on the calibrated host, and compare predicted
# with measured run time and communication time. Prints a Markdown table.
#
# Measured run time: the traced run from MPI_Init's return to MPI_Finalize's entry, slowest
# rank (the span the simulator predicts). Measured communication: time inside MPI calls other
# than Init and Finalize, slowest rank. Predicted: psins-sim's end time and comm_s (which
# includes waiting), slowest rank.
set -euo pipefail
# mpirun gets /dev/null as stdin: MPICH's mpiexec makes the stdin it inherits non-blocking,
# which can make this script's own later writes to the same terminal or pipe fail (O_NONBLOCK).
cd "$(dirname "$0")/.."
BIN=target/release
# app:arguments — the longer runs of scripts/overhead-apps.sh (0.1–0.6 s each): the default
# sub-millisecond runs vary by tens of percent from one run to the next.
APPS=${APPS:-"pingpong:500 ring:50000 stencil2d:10000 stencil3d:3000 cg:4000 is:2000 master_worker:200 collectives comms requests"}
out=${OUT:-build/validation}
rm -rf "$out" && mkdir -p "$out"

timeout 300 mpirun -n 2 mpi-test-apps/bin/psins_bench -o "$out/calib" < /dev/null > /dev/null
machine="$out/calib/base-machine.toml"

. scripts/lib.sh

# Slowest rank's predicted end and comm from the JSON report: "end_s comm_s".
predicted() {
  tr -d ' \n' < "$1" | grep -o '"tasks":\[[^]]*\]' | grep -o '{[^}]*}' | awk '
    { match($0, /"comm_s":[0-9.e+-]+/); c = substr($0, RSTART + 9, RLENGTH - 9) + 0
      match($0, /"end_s":[0-9.e+-]+/); e = substr($0, RSTART + 8, RLENGTH - 8) + 0
      if (c > mc) mc = c; if (e > me) me = e }
    END { printf "%.9f %.9f\n", me, mc }'
}

printf '| app | measured run (ms) | predicted run (ms) | error | measured comm (ms) | predicted comm (ms) | error |\n'
printf '|---|---:|---:|---:|---:|---:|---:|\n'
for spec in $APPS; do
  app=${spec%%:*} args=""
  [ "$spec" != "$app" ] && args=${spec#*:}
  dir="$out/$app"
  mkdir -p "$dir"
  PSINS_DIR="$dir/logs" LD_PRELOAD="$PWD/$BIN/libpsinstrace.so" timeout 300 mpirun -n 2 "mpi-test-apps/bin/$app" $args < /dev/null > "$dir/stdout" 2> /dev/null
  "$BIN/psins-consolidate" -q "$dir"/logs/*/ -o "$dir/$app.psins"
  "$BIN/psins-sim" "$dir/$app.psins" -m "$machine" -q --no-progress --json "$dir/sim.json"
  read -r ms mc < <(measured "$dir/$app.psins")
  read -r ps pc < <(predicted "$dir/sim.json")
  awk -v a="$app" -v ms="$ms" -v mc="$mc" -v ps="$ps" -v pc="$pc" 'BEGIN {
    printf "| %s | %.3f | %.3f | %+.0f %% | %.3f | %.3f | %+.0f %% |\n",
      a, ms * 1e3, ps * 1e3, 100 * (ps - ms) / ms, mc * 1e3, pc * 1e3, (mc > 0 ? 100 * (pc - mc) / mc : 0) }'
done
echo
grep -E '^(latency|bandwidth)' "$machine" | head -2 | tr '\n' ' '
echo "(calibrated by psins_bench, $machine); $(nproc) cores; $(date -u +%Y-%m-%d)"
