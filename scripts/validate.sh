#!/usr/bin/env bash
# make validate (docs/validation.md): predicted versus measured run time of every test app at
# 2 ranks, on this host and on a second network the same host offers.
#
# 1. Calibrate two machines with psins-calibrate: this host through shared memory (MPICH's
#    default) and through TCP (MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self: every message goes
#    through UCX's TCP transport over loopback).
# 2. Trace each app once, on shared memory, and consolidate.
# 3. Predict the app's run on both calibrated machines from that one trace.
# 4. Run the app untraced on each network (RUNS times, median) and compare: measured = the
#    slowest rank's span from MPI_Init's return to MPI_Finalize's entry (scripts/span.c,
#    preloaded, prints it and intercepts nothing else), predicted = psins-sim's end time of
#    the slowest rank.
# REAL_APPS=DIR adds the open-source codes scripts/real-apps.sh built into DIR (apps.list).
# ALSO_BUFFERS=cold (or warm) calibrates both networks a second time with those buffers and
# adds their prediction errors as extra columns: an A/B of the two calibrations against the
# same measured runs.
# Run on a quiet host (load average below 1): psins-calibrate refuses a noisy one.
set -euo pipefail
# mpirun gets /dev/null as stdin: MPICH's mpiexec makes the stdin it inherits non-blocking,
# which can make this script's own later writes to the same terminal or pipe fail (O_NONBLOCK).
cd "$(dirname "$0")/.."
BIN=target/release
# app:arguments — runs of 0.3–1 s where the app takes a count (shorter ones vary by tens of
# percent between identical runs); the fixed-size apps last milliseconds and are listed for
# completeness.
APPS=${APPS:-"pingpong:500 ring:200000 stencil2d:20000 stencil3d:8000 cg:12000 is:4000 master_worker:400 collectives comms requests"}
RUNS=${RUNS:-3}
out=${OUT:-build/validation}
rm -rf "$out" && mkdir -p "$out"
TCP_ENV=(env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self)
ALSO=${ALSO_BUFFERS:-}
${MPICC:-mpicc} -O2 -shared -fPIC -o "$out/libpsinsspan.so" scripts/span.c
SPAN="$PWD/$out/libpsinsspan.so"

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$BIN/psins-calibrate" -o "$out/shm.toml" --name "this host, shared memory" ${CALIBRATE_ARGS:-}
"${TCP_ENV[@]}" "$BIN/psins-calibrate" -o "$out/tcp.toml" --name "this host, TCP" ${CALIBRATE_ARGS:-}
for b in $ALSO; do
  "$BIN/psins-calibrate" -o "$out/shm-$b.toml" --name "this host, shared memory, $b buffers" ${CALIBRATE_ARGS:-} --buffers "$b"
  "${TCP_ENV[@]}" "$BIN/psins-calibrate" -o "$out/tcp-$b.toml" --name "this host, TCP, $b buffers" ${CALIBRATE_ARGS:-} --buffers "$b"
done

# Slowest rank's predicted end from a JSON report.
predicted() {
  tr -d ' \n' < "$1" | grep -o '"tasks":\[[^]]*\]' | grep -o '"end_s":[0-9.e+-]*' | cut -d: -f2 | sort -g | tail -1
}

# Median over RUNS untraced runs of the slowest rank's span: measure ENV... -- APP ARGS
measure() {
  local spans=() i
  for ((i = 0; i < RUNS; i++)); do
    spans+=("$("$@" 2>&1 > /dev/null < /dev/null | sed -n 's/^PSINS_SPAN rank=[0-9]* seconds=//p' | sort -g | tail -1)")
  done
  printf '%s\n' "${spans[@]}" | sort -g | sed -n "$(((RUNS + 1) / 2))p"
}

row() { # app measured predicted
  awk -v ms="$1" -v ps="$2" 'BEGIN { printf "%.2f | %.2f | %+.1f %%", ms * 1e3, ps * 1e3, 100 * (ps - ms) / ms }'
}

error() { # measured predicted
  awk -v ms="$1" -v ps="$2" 'BEGIN { printf "%+.1f %%", 100 * (ps - ms) / ms }'
}

# One table row: validate NAME WORKDIR PROGRAM ARGS... (the program runs from WORKDIR).
validate() {
  local app=$1 wd=$2 dir="$PWD/$out/$1"
  shift 2
  mkdir -p "$dir"
  (cd "$wd" && PSINS_DIR="$dir/logs" LD_PRELOAD="$OLDPWD/$BIN/libpsinstrace.so" timeout 600 mpirun -n 2 "$@" < /dev/null > "$dir/stdout" 2> "$dir/stderr")
  "$BIN/psins-consolidate" -q "$dir"/logs/*/ -o "$dir/$app.psins"
  local cells=() net env ms
  for net in shm tcp; do
    "$BIN/psins-sim" "$dir/$app.psins" -m "$out/$net.toml" -q --no-progress --json "$dir/$net.json" 2> /dev/null
    if [ $net = shm ]; then env=(env); else env=("${TCP_ENV[@]}"); fi
    ms=$(cd "$wd" && measure "${env[@]}" LD_PRELOAD="$SPAN" timeout 600 mpirun -n 2 "$@")
    local cell b
    cell=$(row "$ms" "$(predicted "$dir/$net.json")")
    for b in $ALSO; do
      "$BIN/psins-sim" "$dir/$app.psins" -m "$out/$net-$b.toml" -q --no-progress --json "$dir/$net-$b.json" 2> /dev/null
      cell+=" | $(error "$ms" "$(predicted "$dir/$net-$b.json")")"
    done
    cells+=("$cell")
  done
  printf '| %s | %s | %s |\n' "$app" "${cells[0]}" "${cells[1]}"
}

extra() { local b; for b in $ALSO; do printf ' error (%s) |' "$b"; done; }
dashes() { local b; for b in $ALSO; do printf -- '---:|'; done; }
printf '| app | shm measured (ms) | shm predicted (ms) | error |%s TCP measured (ms) | TCP predicted (ms) | error |%s\n' "$(extra)" "$(extra)"
printf '|---|---:|---:|---:|%s---:|---:|---:|%s\n' "$(dashes)" "$(dashes)"
for spec in $APPS; do
  app=${spec%%:*} args=""
  [ "$spec" != "$app" ] && args=${spec#*:}
  validate "$app" . "$PWD/mpi-test-apps/bin/$app" $args
done
# The open-source codes built by scripts/real-apps.sh (REAL_APPS=its OUT_DIR).
if [ -n "${REAL_APPS:-}" ]; then
  while IFS=$'\t' read -r name wd cmd; do
    # shellcheck disable=SC2086 # the command line is split into words on purpose
    validate "$name" "$wd" $cmd
  done < "$REAL_APPS/apps.list"
fi
echo
echo "Calibrated by psins-calibrate ($out/shm.toml, $out/tcp.toml); medians of $RUNS untraced runs;"
echo "$(nproc) cores; $(date -u +%Y-%m-%d); load after: $(cut -d' ' -f1-3 /proc/loadavg)"
