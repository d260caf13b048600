#!/usr/bin/env bash
# The collective-selection cross-check of docs/interop-simgrid.md: each blocking collective at
# sizes around the libraries' thresholds, run live under SMPI (scripts/smpi-selectors.c built
# with smpicc) with its mpich and its ompi selector, against psins-sim replaying SMPI's TI
# trace of the same run with mpi.library = mpich and openmpi, on the contention-free platform
# of scripts/smpi-agree.sh. Each side chooses and expands the algorithm itself.
# A call's time is that of the workload with two calls less that with one, on each side (a
# call and the barrier that follows it, which both sides time alike): SMPI builds its
# node-aware communicators (Comm::init_smp) at the first call of several of its algorithms,
# messages its TI trace does not hold, once per communicator.
#   bash scripts/smpi-selectors.sh [RANKS...]        (default 16 64 256)
# Prints one CSV row per rank count, collective, size and selector:
#   ranks,collective,bytes,selector,psins_s,smpi_s,rel_percent   (one call and its barrier)
# CASES (environment) overrides the list of `collective:bytes` (bytes per rank, per peer for
# allgather, alltoall, gather and scatter). Needs what smpi-agree.sh needs, and smpicc.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(16 64 256)
# Below, between and above the sizes at which MPICH 4.0 or Open MPI 4.1 changes algorithm
# (docs/collectives.md).
CASES=${CASES:-"barrier:0 bcast:1024 bcast:65536 bcast:1048576 reduce:1024 reduce:65536 reduce:1048576 allreduce:8 allreduce:65536 allreduce:1048576 allgather:64 allgather:16384 alltoall:64 alltoall:16384 gather:1024 scatter:1024"}
command -v smpicc >/dev/null || { echo "smpi-selectors: smpicc not found (apt-get install libsimgrid-dev)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/smpi-selectors.XXXXXX")
trap 'rm -rf "$work"' EXIT
smpicc -O2 "$root/scripts/smpi-selectors.c" -o "$work/workload" 2> "$work/build.log" ||
  { cat "$work/build.log" >&2; exit 1; }
echo "ranks,collective,bytes,selector,psins_s,smpi_s,rel_percent"
for n in "${ranks[@]}"; do
  for c in $CASES; do
    for sel in mpich ompi; do
      times=()
      for calls in 1 2; do
        line=$(SELECTOR=$sel LIVE_RANKS=$n LIVE_ARGS="${c%%:*} ${c#*:} $calls" bash "$root/scripts/smpi-agree.sh" "$work/workload")
        times+=($(echo "$line" | sed -E 's/.*psins=([^ ]+) smpi=([^ ]+) .*/\1 \2/'))
      done
      awk -v n="$n" -v c="${c%%:*}" -v b="${c#*:}" -v s="$sel" -v p1="${times[0]}" -v s1="${times[1]}" -v p2="${times[2]}" -v s2="${times[3]}" \
        'BEGIN { p = p2 - p1; q = s2 - s1; printf "%d,%s,%s,%s,%.9g,%.9g,%.4f\n", n, c, b, s, p, q, (p > 0 ? (q / p - 1) * 100 : 0) }'
    done
  done
done
