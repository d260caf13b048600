#!/usr/bin/env bash
# Regenerates interop/tests/fixtures/scorep/: OTF2 archives written by Score-P itself, of
# interop/tests/otf2/scorep_ring.c and scorep_topo.c, of the collectives test app's blocking part, of NPB IS
# (with REAL_APPS_SRC, below) and of the
# groups, comms, intercomm, rma and ioreq (MPI-IO, with Score-P's I/O recording) test apps (communicators from groups, splits, dups, Cartesian
# and graph topologies, intercommunicators, one-sided epochs of every kind), and of interop/tests/otf2/scorep_threads.c (OpenMP,
# 2 threads a rank), at 4 ranks
# under MPICH. ONLY="NAME..." makes those fixtures again and keeps the others' bytes.
#
#   scripts/make-scorep-fixtures.sh SCOREP_PREFIX [LIBDIR...]
#
# SCOREP_PREFIX is a Score-P installation (SCOREP_PREFIX/bin/scorep): Score-P 8.4's release
# sources configured with --with-mpi=mpich4 --with-otf2=/usr/bin (Debian's libotf2 3.0) and
# installed there; nothing of it enters the repository. Each fixture gets calls.txt: the MPI
# calls otf2-print finds on each rank. LIBDIR... are added to the programs'
# run path (e.g. the libbfd Score-P was configured with, when it is not in a system
# directory). Each fixture keeps the archive only (traces.otf2, traces.def, traces/), and the
# intercomm, rma, topo and npb_is fixtures psins's own trace of the same program (psins-tracer.psins: the release
# tracer and psins-consolidate, `cargo build --release -p psins-tracer -p psins-consolidate`).
set -euo pipefail
prefix=${1:?usage: $0 SCOREP_PREFIX [LIBDIR...]}
shift
prefix=$(cd "$prefix" && pwd)
[ -z "${REAL_APPS_SRC:-}" ] || REAL_APPS_SRC=$(cd "$REAL_APPS_SRC" && pwd)
cd "$(dirname "$0")/.."
root=$PWD
out=$root/interop/tests/fixtures/scorep
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rpath=""
for d in "$@"; do rpath="$rpath -Wl,-rpath,$(cd "$d" && pwd)"; done
export PATH="$prefix/bin:$PATH"

# Whether fixture NAME is to be made (all, or those ONLY names).
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }

# name, source, arguments
trace() {
  local name=$1 src=$2; shift 2
  want "$name" || return 0
  # THREADS=N: an OpenMP program, instrumented as such and run with N threads a rank.
  local flags=()
  [ -z "${THREADS:-}" ] || flags=(--thread=omp)
  # IO=1: Score-P's POSIX I/O and MPI-IO recording as well.
  [ -z "${IO:-}" ] || flags+=(--io=posix,mpiio)
  # shellcheck disable=SC2086
  scorep --mpp=mpi "${flags[@]}" --nocompiler mpicc -O2 ${THREADS:+-fopenmp} -I"$root/mpi-test-apps" \
    -o "$work/$name" "$src" -lm $rpath
  trace_of "$name" "$work/$name" "$@"
}

# Score-P's trace of a program built with it: NAME PROGRAM ARGS...
trace_of() {
  local name=$1 prog=$2 threads=${THREADS:-1}; shift 2
  rm -rf "$work/run-$name"
  (cd "$work" && OMP_NUM_THREADS=$threads SCOREP_ENABLE_TRACING=true SCOREP_ENABLE_PROFILING=false \
    SCOREP_EXPERIMENT_DIRECTORY="$work/run-$name" timeout 120 mpirun -n 4 "$prog" "$@" < /dev/null > /dev/null)
  rm -rf "${out:?}/$name"
  mkdir -p "$out/$name"
  cp -r "$work/run-$name/traces.otf2" "$work/run-$name/traces.def" "$work/run-$name/traces" "$out/$name/"
  # What otf2-print finds: each rank's MPI calls (its Enters of MPI_ regions), a line a rank.
  otf2-print "$out/$name/traces.otf2" | awk '$1 == "ENTER" && $5 ~ /^"MPI_/ { n[$2]++ }
    END { for (r in n) print r, n[r] }' | sort -n | awk '{ print $2 }' > "$out/$name/calls.txt"
  echo "$name: $(du -sk "$out/$name" | cut -f1) KB, $(otf2-print "$out/$name/traces.otf2" | grep -c '^[A-Z]') events"
}

# psins's tracer's trace of fixture NAME's program (its source and arguments as to trace).
ours() {
  local name=$1 src=$2; shift 2
  want "$name" || return 0
  mpicc -O2 -I"$root/mpi-test-apps" -o "$work/$name-plain" "$src" -lm
  ours_of "$name" "$work/$name-plain" "$@"
}

# The same of a program built without Score-P: NAME PROGRAM ARGS...
ours_of() {
  local name=$1 prog=$2; shift 2
  local so=$root/target/release/libpsinstrace.so consolidate=$root/target/release/psins-consolidate
  [ -x "$consolidate" ] && [ -f "$so" ] || { echo "$0: build the release tracer and psins-consolidate first" >&2; exit 1; }
  (cd "$work" && PSINS_DIR="$work/ours-$name" LD_PRELOAD="$so" timeout 120 mpirun -n 4 "$prog" "$@" \
    < /dev/null > /dev/null)
  "$consolidate" -q "$work/ours-$name"/*/ -o "$out/$name/psins-tracer.psins"
}

trace ring "$root/interop/tests/otf2/scorep_ring.c"
trace collectives "$root/mpi-test-apps/collectives.c" blocking
trace groups "$root/mpi-test-apps/groups.c"
trace comms "$root/mpi-test-apps/comms.c"
trace intercomm "$root/mpi-test-apps/intercomm.c"
THREADS=2 trace threads "$root/interop/tests/otf2/scorep_threads.c"
trace rma "$root/mpi-test-apps/rma.c" 64 2
IO=1 trace ioreq "$root/mpi-test-apps/ioreq.c" 256
trace topo "$root/interop/tests/otf2/scorep_topo.c"
ours topo "$root/interop/tests/otf2/scorep_topo.c"
ours rma "$root/mpi-test-apps/rma.c" 64 2
ours intercomm "$root/mpi-test-apps/intercomm.c"

# NPB 3.4 IS class S, with REAL_APPS_SRC=DIR (the sources scripts/real-apps.sh fetches, copied
# and built here twice: with Score-P's wrapper, and plain for psins's tracer).
if [ -n "${REAL_APPS_SRC:-}" ] && want npb_is; then
  for kind in scorep plain; do
    b=$work/npb-$kind && cp -a "$REAL_APPS_SRC/NPB3.4-MPI/." "$b/"
    case $kind in scorep) wrap="scorep --mpp=mpi --nocompiler" ;; *) wrap="" ;; esac
    (cd "$b" && mpicc -O2 -c -o kernel_stats/kernel_stats.o kernel_stats/kernel_stats.c &&
      mpicc -O2 -c -o kernel_stats/arg_parse.o kernel_stats/arg_parse.c)
    printf '%s\n' "MPICC = $wrap mpicc" 'CLINK = $(MPICC)' 'CFLAGS = -O2' \
      "CLINKFLAGS = \$(CFLAGS) ../kernel_stats/kernel_stats.o ../kernel_stats/arg_parse.o $rpath" \
      'MPIFC = mpif90' 'FLINK = $(MPIFC)' 'CC = cc' 'BINDIR = ../bin' 'RAND = randi8' > "$b/config/make.def"
    mkdir -p "$b/bin"
    make -s -C "$b" is CLASS=S > "$work/npb-$kind.log" 2>&1 ||
      { tail -40 "$work/npb-$kind.log" >&2; echo "$0: NPB IS did not build ($kind)" >&2; exit 1; }
  done
  trace_of npb_is "$work/npb-scorep/bin/is.S.x"
  ours_of npb_is "$work/npb-plain/bin/is.S.x"
fi
