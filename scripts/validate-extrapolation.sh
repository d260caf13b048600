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
# Kernels' transpose of a 1,920² matrix, strong-scaled; `prk_stencil`, their radius-2 stencil
# on a 1,920² grid, 50 iterations, strong-scaled; `hpccg`, HPCCG weak-scaled at 32^3 points per
# rank (the ranks stacked in z); `npb_cg`, `npb_mg`, `npb_ft`, `npb_is`, `npb_lu`, the NAS
# Parallel Benchmarks 3.4 at a fixed class, strong-scaled: CG class S, MG and IS class W, FT class A,
# LU class W cut to 50 iterations by the input deck real-apps.sh leaves in its run directory;
# the files of a real app's run directory are copied to where it runs). SERIES, TARGETS: rank
# counts; SERIES_<app>, TARGETS_<app> and SCALING_<app> (weak or strong: psins-extrapolate
# --scaling) override them for one app (cg's and NPB CG's transposes need square grids: 4 16,
# then 64; NPB CG strong-scaled; NPB LU strong-scaled, as its surface integral's message of
# c/D1 + h doubles is given by two extents of D1 only, docs/extrapolate.md).
# MACHINES: bundled machine files that hold the largest target. PSINS_CLOCK (default cpu) times the bursts by
# the thread's CPU clock, so that an oversubscribed run's bursts are those of dedicated cores
# (docs/tracer.md); PSINS_CLOCK=wall keeps the default clock. MPI=openmpi traces under Open MPI
# (mpirun.openmpi; the tracer and the test apps built against it into target/openmpi, as
# scripts/validate.sh does; REAL_APPS then names apps built with Open MPI's wrappers:
# MPICC=mpicc.openmpi MPICXX=mpicxx.openmpi MPIF90=mpif90.openmpi scripts/real-apps.sh). Or
# MPIRUN (default mpirun), SO (the tracer, default BIN/libpsinstrace.so) and APPS_DIR (the test
# apps) name another MPI's. An Open MPI mpirun gets --oversubscribe (it then yields while it
# waits, docs/tracer.md) and -x for the tracer's settings.
# REPEATS (default 1): each rank count traced that many times and the run whose prediction on
# the first of MACHINES is the median kept: an oversubscribed run on a small host differs from
# the next by tens of percent (docs/extrapolate.md, *Validation*); repeats.csv lists each run
# (with REUSE=1, the runs of the traces made now, beside those of earlier ones).
# OUT: the results directory (default measurements/DATE-extrapolation): results.csv, a README
# with the command, refusals.txt, repeats.csv, and the traces (not to be committed). REUSE=1 keeps traces
# already in OUT. A series psins-extrapolate refuses is one row marked `refused` per target
# (its target is not traced).
set -Eeuo pipefail
trap 'echo "validate-extrapolation: stopped: line $LINENO: $BASH_COMMAND failed (exit $?)" >&2' ERR
cd "$(dirname "$0")/.."
BIN=${BIN:-$PWD/target/release}
APPS=${APPS:-"stencil2d:100,64 stencil3d:60,16 cg:50,4096 is:10,8192${REAL_APPS:+ minighost prk_transpose prk_stencil hpccg npb_cg npb_mg npb_ft npb_is npb_lu}"}
SERIES_cg=${SERIES_cg:-"4 16"}
TARGETS_cg=${TARGETS_cg:-64}
SCALING_cg=${SCALING_cg:-weak}
SERIES_npb_cg=${SERIES_npb_cg:-"4 16"}
TARGETS_npb_cg=${TARGETS_npb_cg:-64}
SCALING_npb_cg=${SCALING_npb_cg:-strong}
SCALING_npb_lu=${SCALING_npb_lu:-strong}
SERIES=${SERIES:-"4 8 16"}
TARGETS=${TARGETS:-"32 64"}
MACHINES=${MACHINES:-"bus-cluster torus-8x8 dragonfly-72"}
CLOCK=${PSINS_CLOCK:-cpu}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
REPEATS=${REPEATS:-1}
[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || { echo "validate-extrapolation: REPEATS=$REPEATS: a whole number, 1 or more" >&2; exit 2; }
case ${MPI:-mpich} in
mpich) ;;
openmpi)
    command -v mpirun.openmpi >/dev/null || { echo "validate-extrapolation: MPI=openmpi needs Open MPI (mpirun.openmpi)" >&2; exit 1; }
    MPIRUN=mpirun.openmpi SO=$PWD/target/openmpi/release/libpsinstrace.so APPS_DIR=$PWD/target/openmpi/apps/bin
    MPICC=mpicc.openmpi CARGO_TARGET_DIR=$PWD/target/openmpi cargo build -q --release -p psins-tracer
    make -s -C mpi-test-apps MPICC=mpicc.openmpi MPIFORT=mpifort.openmpi BIN="$APPS_DIR" OBJ="$PWD/target/openmpi/apps/obj"
    ;;
*) echo "validate-extrapolation: MPI=$MPI: mpich or openmpi" >&2; exit 2 ;;
esac
MPIRUN=${MPIRUN:-mpirun}
SO=${SO:-$BIN/libpsinstrace.so}
APPS_DIR=${APPS_DIR:-$PWD/mpi-test-apps/bin}
launcher=("$MPIRUN")
if "$MPIRUN" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
    launcher+=(--oversubscribe --allow-run-as-root -x LD_PRELOAD -x PSINS_DIR -x PSINS_CLOCK)
fi
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
    minighost | prk_* | hpccg | npb_*)
        [[ -n ${REAL_APPS:-} ]] || { echo "validate-extrapolation: $app needs REAL_APPS (scripts/real-apps.sh)" >&2; exit 2; }
        ;;
    esac
    case $app in
    minighost)
        read -r px py pz < <(dims "$n" 3)
        echo "$REAL_APPS/minighost/src/ref/miniGhost.x --scaling 2 --nx 32 --ny 32 --nz 32 --num_vars 5 --num_tsteps 20 --stencil 23 --comm_method 10 --npx $px --npy $py --npz $pz"
        ;;
    prk_transpose) echo "$REAL_APPS/prk_transpose/src/MPI1/Transpose/transpose 10 1920" ;;
    # The stencil splits the grid over its own 2D factorisation of N (equal blocks up to 64 ranks).
    prk_stencil) echo "$REAL_APPS/prk_stencil/src/MPI1/Stencil/stencil 50 1920" ;;
    # HPCCG's sizes are per rank; it stacks the ranks in z itself.
    hpccg) echo "$REAL_APPS/hpccg/src/test_HPCCG 32 32 32" ;;
    # NPB: the class is compiled in, the process grid chosen at run time (N a power of two).
    npb_cg) echo "$REAL_APPS/npb_cg/src/bin/cg.S.x" ;;
    npb_mg) echo "$REAL_APPS/npb_mg/src/bin/mg.W.x" ;;
    npb_ft) echo "$REAL_APPS/npb_ft/src/bin/ft.A.x" ;; # 1-D layout up to 128 ranks (W's is 2-D past 32)
    npb_is) echo "$REAL_APPS/npb_is/src/bin/is.W.x" ;;
    npb_lu) echo "$REAL_APPS/npb_lu/src/bin/lu.W.x" ;; # with run/inputlu.data: 50 iterations
    *) echo "$APPS_DIR/$app $args" ;;
    esac
}

# One traced run of APP with ARGS at N ranks, consolidated into FILE.
trace_once() {
    local app=$1 args=$2 n=$3 file=$4 dir
    dir=$(mktemp -d)
    # In the scratch directory: miniGhost writes its results.yaml where it runs, HPCCG its
    # hpccg-*.yaml; NPB LU reads its inputlu.data there (files only: the tracer's are directories).
    if [[ -n ${REAL_APPS:-} && -d $REAL_APPS/$app/run ]]; then
        find "$REAL_APPS/$app/run" -maxdepth 1 -type f -exec cp -t "$dir" {} +
    fi
    (cd "$dir" && PSINS_DIR=$dir PSINS_CLOCK=$CLOCK LD_PRELOAD=$SO \
        timeout "$RUN_TIMEOUT" "${launcher[@]}" -n "$n" $(command_of "$app" "$args" "$n") </dev/null >/dev/null)
    "$BIN/psins-consolidate" -q "$dir"/*/ -o "$file"
    rm -rf "$dir"
}

predicted() { # TRACE MACHINE -> the predicted time and the ranks' mean communication time, in seconds
    "$BIN/psins-sim" "$1" -m "$2" -q --json - | jq -r '"\(.predicted_seconds) \([.tasks[].comm_s] | add / length)"'
}

# APP with ARGS at N ranks into $out/APP-N.psins: of REPEATS traced runs, the one whose
# prediction on the first of MACHINES is the median (the lower of the middle two for an even
# count); every run's prediction goes to repeats.csv.
trace() {
    local app=$1 args=$2 n=$3 i s runs=()
    if ((REPEATS == 1)); then
        trace_once "$app" "$args" "$n" "$out/$app-$n.psins"
        return
    fi
    for ((i = 1; i <= REPEATS; i++)); do
        trace_once "$app" "$args" "$n" "$out/$app-$n.run$i.psins"
        s=$(predicted "$out/$app-$n.run$i.psins" "${MACHINES%% *}" | cut -d' ' -f1)
        [[ -n $s ]] || { echo "validate-extrapolation: $app at $n ranks, run $i: no prediction on ${MACHINES%% *}" >&2; exit 1; }
        echo "$app,$n,$i,${MACHINES%% *},$s" >>"$out/repeats.csv"
        runs+=("$s $i")
    done
    i=$(printf '%s\n' "${runs[@]}" | sort -g | sed -n "$(((REPEATS + 1) / 2))p" | cut -d' ' -f2)
    mv "$out/$app-$n.run$i.psins" "$out/$app-$n.psins"
    rm -f "$out/$app-$n".run*.psins
    echo "validate-extrapolation: $app at $n ranks: run $i of $REPEATS kept (the median prediction)" >&2
}

rm -f "$out/refusals.txt"
[[ ${REUSE:-0} == 1 && -s $out/repeats.csv ]] || echo "app,ranks,run,machine,predicted_s" >"$out/repeats.csv"
echo "app,target,series,machine,extrapolated_s,traced_s,ratio,same_peers,same_messages,same_collectives,bytes_within_1pc,ranks,scaling,extrapolated_comm_s,traced_comm_s,comm_ratio" >"$csv"
for spec in $APPS; do
    app=${spec%%:*}
    args=$(echo "${spec#*:}" | tr ',' ' ')
    [[ $spec == *:* ]] || args=
    sv=SERIES_$app tv=TARGETS_$app cv=SCALING_$app
    series=${!sv:-$SERIES} targets=${!tv:-$TARGETS} scaling=${!cv:-}
    for n in $series; do
        [[ ${REUSE:-0} == 1 && -s $out/$app-$n.psins ]] && continue
        echo "validate-extrapolation: tracing $app $args at $n ranks (PSINS_CLOCK=$CLOCK)" >&2
        trace "$app" "$args" "$n"
    done
    inputs=()
    for n in $series; do inputs+=("$out/$app-$n.psins"); done
    for t in $targets; do
        x=$out/$app-x$t.psins
        # Extrapolated first: a refusal is a row of its own (its reason in refusals.txt), and
        # the target, which would be traced only to be compared, is not.
        if ! why=$("$BIN/psins-extrapolate" -q "${inputs[@]}" -n "$t" -o "$x" --fits-json "$out/$app-x$t.fits.json" \
            ${scaling:+--scaling "$scaling"} 2>&1 >/dev/null); then
            echo "$why" >&2
            printf '%s at %s from %s:\n%s\n\n' "$app" "$t" "$series" "$why" >>"$out/refusals.txt"
            echo "$app,$t,${series// /;},,,,refused,,,,,,${scaling:-any},,," | tee -a "$csv"
            continue
        fi
        if [[ ${REUSE:-0} != 1 || ! -s $out/$app-$t.psins ]]; then
            echo "validate-extrapolation: tracing $app $args at $t ranks (PSINS_CLOCK=$CLOCK)" >&2
            trace "$app" "$args" "$t"
        fi
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
overrides=$(for v in $(compgen -v | grep -E '^(SERIES|TARGETS|SCALING)_' | sort); do printf '%s="%s" ' "$v" "${!v}"; done)
cat >"$out/README.md" <<EOF
Extrapolation against real traces: \`${MPI:+MPI=$MPI }bash scripts/validate-extrapolation.sh\` on $(hostname),
$(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), PSINS_CLOCK=$CLOCK, BIN=$BIN, MPIRUN=$MPIRUN ($("$MPIRUN" --version 2>&1 | head -1)),
APPS="$APPS" SERIES="$SERIES" TARGETS="$TARGETS" REPEATS=$REPEATS (per app: ${overrides% }) MACHINES="$MACHINES"${REAL_APPS:+ REAL_APPS=$REAL_APPS}, load $(cut -d' ' -f1-3 /proc/loadavg).
repeats.csv: each traced run's prediction on the first machine (the median run kept). results.csv: one row per app, target and machine; ratio = extrapolated / traced predicted time; comm_ratio = the same of the ranks' mean time in communication (psins-sim --json: tasks[].comm_s). An app refused at a target has one row with ratio "refused" (the target not traced) and psins-extrapolate's message in refusals.txt.
EOF
echo "validate-extrapolation: $csv" >&2
