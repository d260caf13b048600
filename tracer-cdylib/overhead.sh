#!/usr/bin/env bash
# Tracer overhead: added CPU ns per traced MPI call and log bytes per call.
#   tracer-cdylib/overhead.sh [PAIRS]        (the lead's `make overhead` calls this)
# Two loops, each run traced and untraced, interleaved PAIRS times (default 7):
#   1 rank : MPI_Allreduce of one double on MPI_COMM_SELF, ITERS_ALLREDUCE calls
#   2 ranks: 8-byte MPI_Send/MPI_Recv ping-pong, ITERS_PINGPONG round trips (2 calls/rank each)
#   1 rank : the ring app's calls to itself (MPI_Irecv, MPI_Isend, MPI_Waitall of both, 8 bytes
#            on MPI_COMM_SELF), ITERS_RING iterations of 3 calls
# CPU time (user+sys, getrusage) of the timed loop; reported: median over the pairs of
# (traced - untraced) / calls, and the traced logs' bytes per record.
# Env: MPICC (mpicc), ITERS_ALLREDUCE (2000000), ITERS_PINGPONG (200000), ITERS_RING (500000),
# PSINS_TRACER_SO, CLOCKS (wall): the PSINS_CLOCK values to trace with, e.g. "wall cpu"; each
# pair is then one untraced run and a traced run per clock in turn, one line per clock.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
pairs="${1:-7}"
so="${PSINS_TRACER_SO:-$root/target/release/libpsinstrace.so}"
[ -f "$so" ] || (cd "$root" && cargo build --release -p psins-tracer >&2)
work="$(mktemp -d /tmp/psins-overhead.XXXXXX)"
trap 'rm -rf "$work"' EXIT
"${MPICC:-mpicc}" -O2 -o "$work/overhead" "$here/bench/overhead.c"
ia="${ITERS_ALLREDUCE:-2000000}"
ip="${ITERS_PINGPONG:-200000}"
ir="${ITERS_RING:-500000}"

read -r -a clocks <<< "${CLOCKS:-wall}"

# run TEST NPROCS ITERS CLOCK -> prints "cpu_ns calls" summed over the ranks; CLOCK is a
# PSINS_CLOCK value to trace with, or - for an untraced run
run() {
    local test=$1 n=$2 iters=$3 clock=$4 out
    if [ "$clock" != - ]; then
        rm -rf "$work/trace-$clock"
        out=$(PSINS_CLOCK="$clock" PSINS_DIR="$work/trace-$clock" PSINS_QUIET=1 LD_PRELOAD="$so" timeout 300 mpirun -n "$n" "$work/overhead" "$test" "$iters")
    else
        out=$(timeout 300 mpirun -n "$n" "$work/overhead" "$test" "$iters")
    fi
    # sum over ranks of cpu and calls
    echo "$out" | awk '/^OVERHEAD/ { for (i=2;i<=NF;i++) { split($i,kv,"="); v[kv[1]]=kv[2] } cpu+=v["cpu_ns"]; calls+=v["calls"] } END { printf "%d %d\n", cpu, calls }'
}

median() { sort -g | awk '{a[NR]=$1} END { if (NR%2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2 }'; }

measure() {
    local name=$1 test=$2 n=$3 iters=$4 base=() bytes c
    local -A diffs=()
    for ((i=0;i<pairs;i++)); do
        read -r cu calls < <(run "$test" "$n" "$iters" -)
        base+=("$(awk -v b="$cu" -v c="$calls" 'BEGIN{printf "%.1f", b/c}')")
        for c in "${clocks[@]}"; do
            read -r ct _ < <(run "$test" "$n" "$iters" "$c")
            diffs[$c]+="$(awk -v a="$ct" -v b="$cu" -v c="$calls" 'BEGIN{printf "%.1f", (a-b)/c}') "
        done
    done
    local d b label
    b=$(printf '%s\n' "${base[@]}" | median)
    for c in "${clocks[@]}"; do
        # log size of the last traced run: bytes of all rank logs / records
        bytes=$(cat "$work"/trace-"$c"/*/rank-*.bin | wc -c)
        d=$(printf '%s\n' ${diffs[$c]} | median)
        label=$name
        [ "${#clocks[@]}" = 1 ] && [ "$c" = wall ] || label="$name [$c]"
        printf '%-34s untraced %8s ns/call  added %7s ns/call  (pairs: %s)  log %s bytes for %s calls = %s bytes/call\n' \
            "$label" "$b" "$d" "${diffs[$c]% }" "$bytes" "$calls_total" \
            "$(awk -v a="$bytes" -v c="$calls_total" 'BEGIN{printf "%.2f", a/c}')"
    done
}

echo "# psins tracer overhead: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(mpichversion 2>/dev/null | head -1 | xargs || echo MPI)"
echo "# tracer: $so; pairs=$pairs; PSINS_CLOCK: ${clocks[*]}"
calls_total=$((ia))
measure "allreduce 1 double, COMM_SELF, 1 rank" allreduce 1 "$ia"
calls_total=$((4 * ip))
measure "ping-pong 8 B, 2 ranks" pingpong 2 "$ip"
calls_total=$((3 * ir))
measure "ring calls to self, 1 rank" ring 1 "$ir"
