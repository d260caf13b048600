#!/usr/bin/env bash
# make demo: trace one test app at 2 ranks, consolidate its logs, calibrate this host with
# psins-calibrate, and predict the app's run time on this host and on the bundled targets.
#
#   scripts/demo.sh [--table]
#
# --table: print the table again from the trace and calibration a previous run left in
# build/demo, without tracing or calibrating (the same numbers every time).
# BIN (target/release) is where the tools are, DEMO_OUT (build/demo) where the demo writes.
set -euo pipefail
# mpirun gets /dev/null as stdin: MPICH's mpiexec makes the stdin it inherits non-blocking,
# which can make this script's own later writes to the same terminal or pipe fail (O_NONBLOCK).
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release}
APP=${DEMO_APP:-stencil2d}
# Long enough (~40 ms) that the run is not all start-up noise.
ARGS=${DEMO_ARGS:-2000}
OUT=${DEMO_OUT:-build/demo}
TABLE_ONLY=
case "${1:-}" in
  --table) TABLE_ONLY=1 ;;
  "") ;;
  *) echo "usage: $0 [--table]" >&2; exit 2 ;;
esac

step() { printf '\n== %s\n' "$*"; }

if [ -z "$TABLE_ONLY" ]; then
rm -rf "$OUT" && mkdir -p "$OUT"

step "trace $APP at 2 ranks (LD_PRELOAD=$BIN/libpsinstrace.so mpirun -n 2 mpi-test-apps/bin/$APP $ARGS)"
PSINS_DIR="$OUT/trace" LD_PRELOAD="$PWD/$BIN/libpsinstrace.so" \
  timeout 300 mpirun -n 2 "mpi-test-apps/bin/$APP" $ARGS < /dev/null > "$OUT/$APP.out"
job=$(ls -d "$OUT"/trace/*/ | head -1)

step "consolidate ($BIN/psins-consolidate $job -o $OUT/$APP.psins)"
"$BIN/psins-consolidate" "$job" -o "$OUT/$APP.psins"
"$BIN/psins-dump" "$OUT/$APP.psins" --stats

step "calibrate this host ($BIN/psins-calibrate -o $OUT/calib/base-machine.toml)"
# A demo must not stop because the host is busy: a noisy calibration is written, flagged.
mkdir -p "$OUT/calib"
timeout 300 "$BIN/psins-calibrate" --allow-noisy -o "$OUT/calib/base-machine.toml"
else
  for f in "$OUT/$APP.psins" "$OUT/calib/base-machine.toml"; do
    [ -f "$f" ] || { echo "demo --table: $f not found: run make demo first" >&2; exit 1; }
  done
fi

# The traced run's own time, slowest rank (scripts/lib.sh).
. scripts/lib.sh
read -r measured _ < <(measured "$OUT/$APP.psins")

machines=("$OUT/calib/base-machine.toml" configs/bus-cluster.toml)
for m in configs/torus-8x8.toml; do
  [ -f "$m" ] && "$BIN/psins-sim" check "$m" > /dev/null 2>&1 && machines+=("$m")
done

step "simulate"
printf '%-44s %-8s %14s %14s\n' machine model predicted_s comm_s
printf '%-44s %-8s %14s %14s\n' "(measured: the traced run, Init to Finalize)" - "$measured" -
for m in "${machines[@]}"; do
  json="$OUT/$(basename "$m" .toml).json"
  "$BIN/psins-sim" "$OUT/$APP.psins" -m "$m" -q --no-progress --json "$json"
  model=$("$BIN/psins-sim" check "$m" | sed -n 's/^model = "\(.*\)"/\1/p' | head -1)
  # The prediction, and the largest predicted time in communication over the ranks (the
  # report's "measured" section has the traced run's own, which is not this column's).
  read -r pred comm < <(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["predicted_seconds"], "%.9f" % max(t["comm_s"] for t in r["tasks"]))' "$json")
  printf '%-44s %-8s %14s %14s\n' "$m" "$model" "$pred" "$comm"
done
echo
echo "reports: $OUT/*.json; run e.g. $BIN/psins-sim $OUT/$APP.psins -m configs/bus-cluster.toml for the full table"
