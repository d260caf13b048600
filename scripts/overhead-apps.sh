#!/usr/bin/env bash
# Tracer overhead on whole applications (part of `make overhead`): each test app at 2 ranks,
# RUNS times untraced and RUNS times traced, interleaved so drifting machine load hits both
# alike. Reports the median wall time (the whole mpirun) and median CPU time (user + system of
# mpirun and its children) both ways, the overhead, the added ns per traced MPI call (the calls
# the app itself counted) and the log bytes per call. Prints a Markdown table.
set -euo pipefail
# mpirun gets /dev/null as stdin: MPICH's mpiexec makes the stdin it inherits non-blocking,
# which can make this script's own later writes to the same terminal or pipe fail (O_NONBLOCK).
cd "$(dirname "$0")/.."
RUNS=${RUNS:-7}
# app:arguments — iteration counts large enough that a run takes 0.1–0.6 s at 2 ranks here,
# so tracer start-up (clock calibration, one broadcast) and 10 ms CPU-time ticks do not swamp it.
APPS=${APPS:-"pingpong:500 ring:50000 stencil2d:10000 stencil3d:3000 cg:4000 is:2000 master_worker:200 collectives comms requests"}
SO=$PWD/target/release/libpsinstrace.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One run: prints "wall_s cpu_s"; with $2 = traced, the tracer writes into $work/t.
one() {
  local app=$1 traced=$2 env=()
  local -a args
  read -r -a args <<< "$3"
  [ "$traced" = traced ] && env=(LD_PRELOAD="$SO" PSINS_DIR="$work/t")
  /usr/bin/env "${env[@]}" bash -c '
    s=$(date +%s.%N)
    mpirun -n 2 "$0" "${@:2}" < /dev/null > "$1" 2>/dev/null
    e=$(date +%s.%N)
    times > "$1.times"   # second line: CPU of mpirun and everything it waited for
    echo "$s $e" > "$1.wall"' "mpi-test-apps/bin/$app" "$work/out" "${args[@]}"
  # Read only after the run: a pipe would start awk before the times file is written.
  awk -v tf="$work/out.times" 'BEGIN { getline l1 < tf; getline l2 < tf; split(l2, c, /[ ms]+/) }
    { printf "%.6f %.6f\n", $2 - $1, c[1] * 60 + c[2] + c[3] * 60 + c[4] }' "$work/out.wall"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '| app | calls | wall untraced (s) | wall traced (s) | wall overhead | CPU untraced (s) | CPU traced (s) | added CPU per call | log bytes per call |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for spec in $APPS; do
  app=${spec%%:*} args=""
  [ "$spec" != "$app" ] && args=${spec#*:}
  args=${args//,/ }
  [ -x "mpi-test-apps/bin/$app" ] || continue
  : > "$work/u"; : > "$work/tr"
  for ((i = 0; i < RUNS; i++)); do
    one "$app" plain "$args" >> "$work/u"
    rm -rf "$work/t"
    one "$app" traced "$args" >> "$work/tr"
  done
  calls=$(grep -h '^PSINS_COUNTS ' "$work/out" | tr ' ' '\n' | awk -F= '/^MPI_/ { s += $2 } END { print s }')
  bytes=$(cat "$work"/t/*/rank-*.bin | wc -c)
  wu=$(cut -d' ' -f1 "$work/u" | median); wt=$(cut -d' ' -f1 "$work/tr" | median)
  cu=$(cut -d' ' -f2 "$work/u" | median); ct=$(cut -d' ' -f2 "$work/tr" | median)
  awk -v a="$app" -v n="$calls" -v wu="$wu" -v wt="$wt" -v cu="$cu" -v ct="$ct" -v b="$bytes" 'BEGIN {
    printf "| %s | %d | %.4f | %.4f | %+.1f %% | %.3f | %.3f | %.0f ns | %.1f |\n",
      a, n, wu, wt, 100 * (wt - wu) / wu, cu, ct, 1e9 * (ct - cu) / n, b / n }'
done
echo
echo "RUNS=$RUNS interleaved runs per app and mode, medians; $(nproc) cores; $(date -u +%Y-%m-%d)"
