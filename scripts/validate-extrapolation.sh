#!/usr/bin/env bash
# make validate-extrapolation (docs/extrapolate.md): each app traced at the SERIES rank counts
# and, as the truth, at the TARGETS (oversubscribed on a small host), extrapolated from the
# series to each target, compared rank by rank with the real trace (psins-extrapolate
# --against: peers, messages, collectives, bytes) and both replayed on the MACHINES (the
# predicted time, and the ranks' mean time in communication); one CSV row per app, target and
# machine.
#
# APPS: app:arguments, the arguments separated by commas (mpi-test-apps/bin), or `minighost`
# (miniGhost as scripts/real-apps.sh builds it into REAL_APPS, run weak-scaled at 32^3 points
# per rank on the MPI_Dims_create grid of each rank count; `prk_transpose`, the ParRes
# Kernels' transpose of a 1,920² matrix, strong-scaled). SERIES, TARGETS: rank counts;
# SERIES_<app>, TARGETS_<app> and SCALING_<app> (weak or strong: psins-extrapolate --scaling)
# override them for one app (cg's transposes need square grids: 4 16, then 64). MACHINES: bundled
# machine files that hold the largest target. PSINS_CLOCK (default cpu) times the bursts by
# the thread's CPU clock, so that an oversubscribed run's bursts are those of dedicated cores
# (docs/tracer.md); PSINS_CLOCK=wall keeps the default clock.
# OUT: the results directory (default measurements/DATE-extrapolation): results.csv, a README
# with the command, and the traces (not to be committed). REUSE=1 keeps traces already in OUT.
set -Eeuo pipefail
trap 'echo "validate-extrapolation: stopped: line $LINENO: $BASH_COMMAND failed (exit $?)" >&2' ERR
cd "$(dirname "$0")/.."
BIN=${BIN:-$PWD/target/release}
APPS=${APPS:-"stencil2d:100,64 stencil3d:60,16 cg:50,4096 is:10,8192${REAL_APPS:+ minighost prk_transpose}"}
SERIES_cg=${SERIES_cg:-"4 16"}
TARGETS_cg=${TARGETS_cg:-64}
SCALING_cg=${SCALING_cg:-weak}
SERIES=${SERIES:-"4 8 16"}
TARGETS=${TARGETS:-"32 64"}
MACHINES=${MACHINES:-"bus-cluster torus-8x8 dragonfly-72"}
CLOCK=${PSINS_CLOCK:-cpu}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
out=${OUT:-measurements/$(date -u +%Y-%m-%d)-extrapolation}
mkdir -p "$out"
csv=$out/results.csv

# MPI_Dims_create's grid of N ranks in D dimensions, as "d0 d1 …" (non-increasing).
dims() {
    python3 -c "
import sys
n, d = int(sys.argv[1]), int(sys.argv[2])
dims = [1] * d
f, p = [], 2
while n > 1:
    while n % p == 0:
        f.append(p); n //= p
    p += 1
for x in sorted(f, reverse=True):
    dims[dims.index(min(dims))] *= x
print(*sorted(dims, reverse=True))" "$1" "$2"
}

# The command line of APP with ARGS at N ranks.
command_of() {
    local app=$1 args=$2 n=$3
    case $app in
    minighost)
        [[ -n ${REAL_APPS:-} ]] || { echo "validate-extrapolation: minighost needs REAL_APPS (scripts/real-apps.sh)" >&2; exit 2; }
        read -r px py pz < <(dims "$n" 3)
        echo "$REAL_APPS/minighost/src/ref/miniGhost.x --scaling 2 --nx 32 --ny 32 --nz 32 --num_vars 5 --num_tsteps 20 --stencil 23 --comm_method 10 --npx $px --npy $py --npz $pz"
        ;;
    prk_transpose)
        [[ -n ${REAL_APPS:-} ]] || { echo "validate-extrapolation: prk_transpose needs REAL_APPS (scripts/real-apps.sh)" >&2; exit 2; }
        echo "$REAL_APPS/prk_transpose/src/MPI1/Transpose/transpose 10 1920"
        ;;
    *) echo "$PWD/mpi-test-apps/bin/$app $args" ;;
    esac
}

# One traced run of APP with ARGS at N ranks, consolidated into $out/APP-N.psins.
trace() {
    local app=$1 args=$2 n=$3 dir
    dir=$(mktemp -d)
    # In the scratch directory: miniGhost writes its results.yaml where it runs.
    (cd "$dir" && PSINS_DIR=$dir PSINS_CLOCK=$CLOCK LD_PRELOAD=$BIN/libpsinstrace.so \
        timeout "$RUN_TIMEOUT" mpirun -n "$n" $(command_of "$app" "$args" "$n") </dev/null >/dev/null)
    "$BIN/psins-consolidate" -q "$dir"/*/ -o "$out/$app-$n.psins"
    rm -rf "$dir"
}

predicted() { # TRACE MACHINE -> the predicted time and the ranks' mean communication time, in seconds
    "$BIN/psins-sim" "$1" -m "$2" -q --json - | jq -r '"\(.predicted_seconds) \([.tasks[].comm_s] | add / length)"'
}

echo "app,target,series,machine,extrapolated_s,traced_s,ratio,same_peers,same_messages,same_collectives,bytes_within_1pc,ranks,scaling,extrapolated_comm_s,traced_comm_s,comm_ratio" >"$csv"
for spec in $APPS; do
    app=${spec%%:*}
    args=$(echo "${spec#*:}" | tr ',' ' ')
    [[ $spec == *:* ]] || args=
    sv=SERIES_$app tv=TARGETS_$app cv=SCALING_$app
    series=${!sv:-$SERIES} targets=${!tv:-$TARGETS} scaling=${!cv:-}
    for n in $series $targets; do
        [[ ${REUSE:-0} == 1 && -s $out/$app-$n.psins ]] && continue
        echo "validate-extrapolation: tracing $app $args at $n ranks (PSINS_CLOCK=$CLOCK)" >&2
        trace "$app" "$args" "$n"
    done
    inputs=()
    for n in $series; do inputs+=("$out/$app-$n.psins"); done
    for t in $targets; do
        x=$out/$app-x$t.psins
        cmp=$("$BIN/psins-extrapolate" -q "${inputs[@]}" -n "$t" -o "$x" --fits-json "$out/$app-x$t.fits.json" \
            ${scaling:+--scaling "$scaling"} --against "$out/$app-$t.psins" || true)
        echo "$cmp" >&2
        # "against FILE: N ranks: same peers on A, same messages on B, same collectives on C, bytes within 1 % on D ..."
        read -r ranks peers msgs colls bytes < <(echo "$cmp" | sed -E 's/.*: ([0-9]+) ranks: same peers on ([0-9]+), same messages on ([0-9]+), same collectives on ([0-9]+), bytes within 1 % on ([0-9]+).*/\1 \2 \3 \4 \5/')
        for m in $MACHINES; do
            read -r xs xc < <(predicted "$x" "$m")
            read -r ts tc < <(predicted "$out/$app-$t.psins" "$m")
            ratio=$(python3 -c "print(f'{$xs / $ts:.4f}')")
            cratio=$(python3 -c "print(f'{$xc / $tc:.4f}')")
            echo "$app,$t,${series// /;},$m,$xs,$ts,$ratio,$peers,$msgs,$colls,$bytes,$ranks,${scaling:-any},$xc,$tc,$cratio" | tee -a "$csv"
        done
    done
done
cat >"$out/README.md" <<EOF
Extrapolation against real traces: \`bash scripts/validate-extrapolation.sh\` on $(hostname),
$(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), PSINS_CLOCK=$CLOCK, BIN=$BIN,
APPS="$APPS" SERIES="$SERIES" TARGETS="$TARGETS" (cg: SERIES_cg="$SERIES_cg" TARGETS_cg="$TARGETS_cg" SCALING_cg=$SCALING_cg) MACHINES="$MACHINES"${REAL_APPS:+ REAL_APPS=$REAL_APPS}, load $(cut -d' ' -f1-3 /proc/loadavg).
results.csv: one row per app, target and machine; ratio = extrapolated / traced predicted time; comm_ratio = the same of the ranks' mean time in communication (psins-sim --json: tasks[].comm_s).
EOF
echo "validate-extrapolation: $csv" >&2
