#!/usr/bin/env bash
# Compact-trace size over the test apps (part of `make bench`): each app at 2 ranks with enough
# iterations that per-file headers do not dominate, consolidated three ways. Prints per app and
# overall bytes per record: whole files (headers and index included) and task streams only.
set -euo pipefail
# mpirun gets /dev/null as stdin: MPICH's mpiexec makes the stdin it inherits non-blocking,
# which can make this script's own later writes to the same terminal or pipe fail (O_NONBLOCK).
cd "$(dirname "$0")/.."
B=$PWD/target/release
APPS=${APPS:-"pingpong:50 ring:2000 stencil2d:500 stencil3d:200 cg:200 is:50 master_worker:200 collectives comms requests stencil_f:200 stencil_f08:200"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-14s %9s %10s %10s %10s %10s\n' app records log repeats no-repeats zstd
for spec in $APPS; do
  app=${spec%%:*} args=""
  [ "$spec" != "$app" ] && args=${spec#*:}
  [ -x "mpi-test-apps/bin/$app" ] || continue
  # shellcheck disable=SC2086
  PSINS_DIR="$work/$app" LD_PRELOAD="$B/libpsinstrace.so" timeout 120 mpirun -n 2 "mpi-test-apps/bin/$app" $args < /dev/null > /dev/null 2>&1
  d=$(ls -d "$work/$app"/*/)
  "$B/psins-consolidate" -q "$d" -o "$work/r.psins"
  "$B/psins-consolidate" -q --no-repeats "$d" -o "$work/n.psins"
  "$B/psins-consolidate" -q --compress "$d" -o "$work/z.psins"
  n=$("$B/psins-dump" "$work/r.psins" --stats | awk '/^total/ { print $2 }')
  printf '%-14s %9d %10d %10d %10d %10d\n' "$app" "$n" "$(cat "$d"/rank-*.bin | wc -c)" \
    "$(stat -c %s "$work/r.psins")" "$(stat -c %s "$work/n.psins")" "$(stat -c %s "$work/z.psins")"
done | tee "$work/sizes"
awk '{ n += $2; l += $3; r += $4; x += $5; z += $6 }
  END { printf "%-14s %9d %10.2f %10.2f %10.2f %10.2f   bytes per record, whole files\n", "all", n, l / n, r / n, x / n, z / n }' "$work/sizes"
