#!/usr/bin/env bash
# Whole-app overhead of several tracer builds side by side:
#   RUNS=31 tracer-cdylib/compare-apps.sh APP [ARGS...] -- TRACER.so...
# runs `mpirun -n 2 mpi-test-apps/bin/APP ARGS` untraced and with each tracer, interleaved
# RUNS times (so drifting machine load hits all alike), and prints the median wall time of
# the whole mpirun and its CPU time (user + system of mpirun and its children) for each, with
# the overhead against the untraced runs. scripts/overhead-apps.sh measures one build over
# all apps; this compares builds on one app with as many runs as its noise needs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs=${RUNS:-31}
app=${1:?app}
shift
args=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
[ $# -gt 1 ] || { echo "usage: $0 APP [ARGS...] -- TRACER.so..." >&2; exit 2; }
shift
builds=(untraced "$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One run: appends "wall_s cpu_s" to $work/<build index>.
one() {
  local i=$1 env=()
  [ "$i" -gt 0 ] && env=(LD_PRELOAD="${builds[$i]}" PSINS_DIR="$work/t" PSINS_QUIET=1)
  rm -rf "$work/t"
  # mpirun gets /dev/null as stdin (see scripts/overhead-apps.sh)
  /usr/bin/env "${env[@]}" bash -c '
    s=$(date +%s.%N)
    mpirun -n 2 "$0" "${@:2}" < /dev/null > /dev/null 2>&1
    e=$(date +%s.%N)
    times > "$1.times"
    echo "$s $e" > "$1.wall"' "$root/mpi-test-apps/bin/$app" "$work/out" "${args[@]}"
  awk -v tf="$work/out.times" 'BEGIN { getline l1 < tf; getline l2 < tf; split(l2, c, /[ ms]+/) }
    { printf "%.6f %.6f\n", $2 - $1, c[1] * 60 + c[2] + c[3] * 60 + c[4] }' "$work/out.wall" >> "$work/$i"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for ((r = 0; r < runs; r++)); do
  for i in "${!builds[@]}"; do one "$i"; done
done
wu=$(cut -d' ' -f1 "$work/0" | median); cu=$(cut -d' ' -f2 "$work/0" | median)
echo "$app ${args[*]}: $runs interleaved runs per build at 2 ranks, medians; $(date -u +%Y-%m-%d)"
for i in "${!builds[@]}"; do
  w=$(cut -d' ' -f1 "$work/$i" | median); c=$(cut -d' ' -f2 "$work/$i" | median)
  awk -v b="${builds[$i]}" -v w="$w" -v c="$c" -v wu="$wu" -v cu="$cu" 'BEGIN {
    printf "  %-40s wall %.4f s %+6.1f %%   CPU %.3f s %+6.1f %%\n", b, w, 100 * (w - wu) / wu, c, 100 * (c - cu) / cu }'
done
