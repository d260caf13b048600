#!/usr/bin/env bash
# make validate-extrapolation (docs/extrapolate.md): each app traced at the SERIES rank counts
# and, as the truth, at the TARGETS (oversubscribed on a small host), extrapolated from the
# series to each target, compared rank by rank with the real trace (psins-extrapolate
# --against: peers, messages, collectives, bytes) and both replayed on the MACHINES; one CSV
# row per app, target and machine.
#
# APPS: app:arguments, the arguments separated by commas (mpi-test-apps/bin). SERIES, TARGETS: rank counts. MACHINES: bundled
# machine files that hold the largest target. PSINS_CLOCK (default cpu) times the bursts by
# the thread's CPU clock, so that an oversubscribed run's bursts are those of dedicated cores
# (docs/tracer.md); PSINS_CLOCK=wall keeps the default clock.
# OUT: the results directory (default measurements/DATE-extrapolation): results.csv, a README
# with the command, and the traces (not to be committed). REUSE=1 keeps traces already in OUT.
set -Eeuo pipefail
trap 'echo "validate-extrapolation: stopped: line $LINENO: $BASH_COMMAND failed (exit $?)" >&2' ERR
cd "$(dirname "$0")/.."
BIN=${BIN:-$PWD/target/release}
APPS=${APPS:-"stencil2d:100,64 stencil3d:60,16"}
SERIES=${SERIES:-"4 8 16"}
TARGETS=${TARGETS:-"32 64"}
MACHINES=${MACHINES:-"bus-cluster torus-8x8 dragonfly-72"}
CLOCK=${PSINS_CLOCK:-cpu}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
out=${OUT:-measurements/$(date -u +%Y-%m-%d)-extrapolation}
mkdir -p "$out"
csv=$out/results.csv

# One traced run of APP with ARGS at N ranks, consolidated into $out/APP-N.psins.
trace() {
    local app=$1 args=$2 n=$3 dir
    dir=$(mktemp -d)
    PSINS_DIR=$dir PSINS_CLOCK=$CLOCK LD_PRELOAD=$BIN/libpsinstrace.so \
        timeout "$RUN_TIMEOUT" mpirun -n "$n" "$PWD/mpi-test-apps/bin/$app" $args </dev/null >/dev/null
    "$BIN/psins-consolidate" -q "$dir"/*/ -o "$out/$app-$n.psins"
    rm -rf "$dir"
}

predicted() { # TRACE MACHINE -> the predicted time in seconds
    "$BIN/psins-sim" "$1" -m "$2" -q --json - | jq -r '.predicted_seconds'
}

echo "app,target,series,machine,extrapolated_s,traced_s,ratio,same_peers,same_messages,same_collectives,bytes_within_1pc,ranks" >"$csv"
for spec in $APPS; do
    app=${spec%%:*}
    args=$(echo "${spec#*:}" | tr ',' ' ')
    [[ $spec == *:* ]] || args=
    for n in $SERIES $TARGETS; do
        [[ ${REUSE:-0} == 1 && -s $out/$app-$n.psins ]] && continue
        echo "validate-extrapolation: tracing $app $args at $n ranks (PSINS_CLOCK=$CLOCK)" >&2
        trace "$app" "$args" "$n"
    done
    inputs=()
    for n in $SERIES; do inputs+=("$out/$app-$n.psins"); done
    for t in $TARGETS; do
        x=$out/$app-x$t.psins
        cmp=$("$BIN/psins-extrapolate" -q "${inputs[@]}" -n "$t" -o "$x" --fits-json "$out/$app-x$t.fits.json" \
            --against "$out/$app-$t.psins" || true)
        echo "$cmp" >&2
        # "against FILE: N ranks: same peers on A, same messages on B, same collectives on C, bytes within 1 % on D ..."
        read -r ranks peers msgs colls bytes < <(echo "$cmp" | sed -E 's/.*: ([0-9]+) ranks: same peers on ([0-9]+), same messages on ([0-9]+), same collectives on ([0-9]+), bytes within 1 % on ([0-9]+).*/\1 \2 \3 \4 \5/')
        for m in $MACHINES; do
            xs=$(predicted "$x" "$m")
            ts=$(predicted "$out/$app-$t.psins" "$m")
            ratio=$(python3 -c "print(f'{$xs / $ts:.4f}')")
            echo "$app,$t,${SERIES// /;},$m,$xs,$ts,$ratio,$peers,$msgs,$colls,$bytes,$ranks" | tee -a "$csv"
        done
    done
done
cat >"$out/README.md" <<EOF
Extrapolation against real traces: \`bash scripts/validate-extrapolation.sh\` on $(hostname),
$(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), PSINS_CLOCK=$CLOCK,
APPS="$APPS" SERIES="$SERIES" TARGETS="$TARGETS" MACHINES="$MACHINES", load $(cut -d' ' -f1-3 /proc/loadavg).
results.csv: one row per app, target and machine; ratio = extrapolated / traced predicted time.
EOF
echo "validate-extrapolation: $csv" >&2
