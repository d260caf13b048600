#!/usr/bin/env bash
# Instructions the tracer adds per MPI call, counted by callgrind (deterministic, unlike
# timings on a shared machine):
#   tracer-cdylib/callgrind.sh allreduce|pingpong|ring ITERS   a loop of bench/overhead.c
#   tracer-cdylib/callgrind.sh app NAME [ARGS...]              mpi-test-apps/bin/NAME, 2 ranks
# For every wrapper MPI_X of the tracer that rank 0 called: (instructions inside MPI_X, callees
# included) - (those inside the PMPI_X it forwards to), per call. What the tracer itself calls
# (PMPI_Type_size_x, write, ...) counts; MPI's own work, polling included, does not.
# Env: PSINS_TRACER_SO (target/release/libpsinstrace.so), MPICC (mpicc).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
so="${PSINS_TRACER_SO:-$root/target/release/libpsinstrace.so}"
work="$(mktemp -d /tmp/psins-callgrind.XXXXXX)"
trap 'rm -rf "$work"' EXIT
if [ "${1:-}" = app ]; then
    shift
    exe=("$root/mpi-test-apps/bin/$1" "${@:2}") np=2
else
    "${MPICC:-mpicc}" -O2 -o "$work/overhead" "$here/bench/overhead.c"
    exe=("$work/overhead" "${1:?loop}" "${2:?iterations}") np=1
    [ "$1" = pingpong ] && np=2
fi
(cd "$work" && PSINS_DIR="$work/trace" PSINS_QUIET=1 mpirun -n "$np" env LD_PRELOAD="$so" \
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p.out" "${exe[@]}" > /dev/null 2> "$work/err") || { cat "$work/err" >&2; exit 1; }
rank0=$(ls "$work"/cg.*.out | sort -t. -k3 -n | head -1)   # the lower pid: rank 0
# The raw callgrind file: "fn=" starts a function's cost lines (inlined code from other files
# included), "calls=" announces that the next cost line is the inclusive cost of a call to
# "cfn=". Names are given once as "(id) name", then as "(id)" (objects: "ob=" and "cob=" share
# the ids, functions "fn=" and "cfn=").
awk -v so="$so" '
    function name(kind, v) {
        if (!match(v, /^\([0-9]+\)/)) return v
        id = substr(v, 2, RLENGTH - 2)
        if (length(v) > RLENGTH) names[kind, id] = substr(v, RLENGTH + 2)
        return names[kind, id]
    }
    /^positions:/ { cost_field = NF }            # "positions: line" -> the cost is field 2
    /^ob=/ { ob = name("ob", substr($0, 4)); next }
    /^cob=/ { name("ob", substr($0, 5)); next }  # a callee object may be named here first
    /^fn=/ { fn = name("fn", substr($0, 4)); mine = ob == so && fn ~ /^MPI_/; next }
    /^cfn=/ { cfn = name("fn", substr($0, 5)); next }
    /^calls=/ { split(substr($0, 7), c, " "); ncalls = c[1]; in_call = 1; next }
    /^[-+*0-9]/ {
        if (mine) {
            total[fn] += $cost_field
            if (in_call && cfn == "P" fn) { forwarded[fn] += $cost_field; calls[fn] += ncalls }
        }
        in_call = 0
    }
    END {
        for (f in total) if (calls[f] > 0 && f != "MPI_Init" && f != "MPI_Finalize") {
            printf "%-16s %8d calls  %7.1f tracer instructions/call\n", f, calls[f], (total[f] - forwarded[f]) / calls[f]
            found = 1
        }
        if (!found) print "no wrapper of " so " in the profile" > "/dev/stderr"
    }
' "$rank0" | sort
