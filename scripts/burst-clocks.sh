#!/usr/bin/env bash
# PSINS_CLOCK=cpu against the wall clock (docs/tracer.md, "Timing" and "More ranks than cores"):
#   bash scripts/burst-clocks.sh apps      each test app at 2 ranks (not oversubscribed), RUNS
#                                          times traced on each clock, interleaved: per rank the
#                                          median total burst on each clock and their difference
#   bash scripts/burst-clocks.sh scaling   the weak-scaling stencil (stencil2d: a fixed block per
#                                          rank) traced at 2 ranks and at NP ranks on this host,
#                                          RUNS times each: per-rank total burst on each clock
# A rank's total burst is its span less its time in MPI (psins-dump --profile: bursts_s).
# Prints Markdown tables. Env: RUNS (5), NP (16), APPS (app:args list, commas for spaces),
# STENCIL (stencil2d args, "500,256"), CLOCKS (scaling: "cpu wall"), MPIRUN (mpirun; an Open
# MPI mpirun gets --oversubscribe and -x for the settings), MPIRUN_ARGS (extra launcher
# arguments, e.g. "--mca mpi_yield_when_idle 0"), SO (the tracer), APPS_DIR (the test apps),
# BIN (the tools).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-apps}
RUNS=${RUNS:-5}
NP=${NP:-16}
APPS=${APPS:-"pingpong:500 ring:50000 stencil2d:10000 stencil3d:3000 cg:4000 is:2000 master_worker:200 collectives comms requests nbc:2000 poll rma pcontrol:2000 intercomm stencil_f:5000 stencil_f08:5000"}
STENCIL=${STENCIL:-500,256}
CLOCKS=${CLOCKS:-cpu wall}
MPIRUN=${MPIRUN:-mpirun}
SO=${SO:-$PWD/target/release/libpsinstrace.so}
APPS_DIR=${APPS_DIR:-$PWD/mpi-test-apps/bin}
BIN=${BIN:-$PWD/target/release}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
launcher=("$MPIRUN")
if "$MPIRUN" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
  launcher+=(--oversubscribe --allow-run-as-root -x LD_PRELOAD -x PSINS_DIR -x PSINS_CLOCK -x PSINS_QUIET)
fi
read -r -a extra <<< "${MPIRUN_ARGS:-}"

# trace APP NP CLOCK ARGS... -> the per-rank total bursts in ns, one line, rank order
trace() {
  local app=$1 n=$2 clock=$3
  shift 3
  rm -rf "$work/t" "$work/t.psins"
  LD_PRELOAD="$SO" PSINS_DIR="$work/t" PSINS_CLOCK="$clock" PSINS_QUIET=1 \
    timeout 900 "${launcher[@]}" "${extra[@]}" -n "$n" "$APPS_DIR/$app" "$@" < /dev/null > /dev/null 2> "$work/err" ||
    { echo "burst-clocks: $app at $n ranks failed:" >&2; cat "$work/err" >&2; exit 1; }
  "$BIN/psins-consolidate" -q "$work"/t/*/ -o "$work/t.psins"
  "$BIN/psins-dump" --profile --json "$work/t.psins" | jq -r '[.per_rank[].bursts_s * 1e9 | round] | @tsv'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# column I (1-based) of the runs in FILE, median
col_median() { cut -f"$2" "$1" | median; }

stamp() {
  echo
  echo "RUNS=$RUNS runs per clock, interleaved, medians; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" \
    "at the end; $MPIRUN $("$MPIRUN" --version 2>&1 | grep -m1 -i 'version\|openrte\|open mpi' | tr -s ' \t' ' '); $(date -u +%Y-%m-%dT%H:%MZ);" \
    "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
}

case $what in
apps)
  printf '| app | rank | bursts, wall clock (ms) | bursts, CPU clock (ms) | CPU − wall |\n|---|---:|---:|---:|---:|\n'
  for spec in $APPS; do
    app=${spec%%:*} args=""
    [ "$spec" != "$app" ] && args=${spec#*:}
    read -r -a argv <<< "${args//,/ }"
    [ -x "$APPS_DIR/$app" ] || { echo "burst-clocks: no $APPS_DIR/$app, skipped" >&2; continue; }
    : > "$work/wall"; : > "$work/cpu"
    for ((i = 0; i < RUNS; i++)); do
      trace "$app" 2 wall "${argv[@]}" >> "$work/wall"
      trace "$app" 2 cpu "${argv[@]}" >> "$work/cpu"
    done
    for r in 0 1; do
      w=$(col_median "$work/wall" $((r + 1))); c=$(col_median "$work/cpu" $((r + 1)))
      awk -v a="$app ${argv[*]}" -v r="$r" -v w="$w" -v c="$c" 'BEGIN {
        printf "| %s | %d | %.3f | %.3f | %+.2f %% |\n", a, r, w / 1e6, c / 1e6, (w > 0) ? 100 * (c - w) / w : 0 }'
    done
  done
  stamp
  ;;
scaling)
  read -r -a argv <<< "${STENCIL//,/ }"
  printf '| clock | ranks | per-rank total burst (ms): min | median | max | median / 2-rank median |\n|---|---:|---:|---:|---:|---:|\n'
  for clock in $CLOCKS; do
    : > "$work/2"; : > "$work/n"
    for ((i = 0; i < RUNS; i++)); do
      trace stencil2d 2 "$clock" "${argv[@]}" | tr '\t' '\n' >> "$work/2"
      trace stencil2d "$NP" "$clock" "${argv[@]}" | tr '\t' '\n' >> "$work/n"
    done
    base=$(median < "$work/2")
    for f in 2 n; do
      n=2; [ $f = n ] && n=$NP
      sort -g "$work/$f" | awk -v c="$clock" -v n="$n" -v b="$base" '{ v[NR] = $1 } END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "| %s | %d | %.3f | %.3f | %.3f | %.3f |\n", c, n, v[1] / 1e6, m / 1e6, v[NR] / 1e6, m / b }'
    done
  done
  echo
  echo "stencil2d ${argv[*]}: every rank of every run (min, median, max over ranks × runs)"
  stamp
  ;;
*)
  echo "usage: burst-clocks.sh apps|scaling" >&2
  exit 2
  ;;
esac
