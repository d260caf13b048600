#!/usr/bin/env bash
# Regenerates interop/tests/fixtures/ti/: SimGrid TI traces written by SMPI itself
# (`smpirun -np 4 -trace-ti`, SimGrid 3.32) of two open-source codes built with SimGrid's
# compiler wrappers, NPB 3.4 FT class S (Fortran: MPI_LOGICAL and MPI_DOUBLE_COMPLEX) and
# miniGhost (Fortran and C: MPI_REAL8, MPI_WAITANY), and of the master_worker test app
# (receives from MPI_ANY_SOURCE).
#
#   scripts/make-ti-fixtures.sh REAL_APPS_SRC [NAME...]
#
# REAL_APPS_SRC holds the sources scripts/real-apps.sh fetches (NPB3.4-MPI, miniGhost); each is
# copied to a scratch directory and built there, nothing of it enters the repository. With
# NAMEs (npb_ft, minighost, master_worker) only those fixtures are made again. Each fixture
# holds SMPI's list file (trace.ti), its action files (trace.ti_files/, renamed rank-N.txt so
# that they carry no date) and actions.txt: each rank's actions that are not `compute`, one
# line a rank, as the trace has them.
set -euo pipefail
src=${1:?usage: $0 REAL_APPS_SRC [NAME...]}
src=$(cd "$src" && pwd)
shift
only=" $* "
cd "$(dirname "$0")/.."
root=$PWD
out=$root/interop/tests/fixtures/ti
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flegacy="-fallow-argument-mismatch -fallow-invalid-boz"

# SimGrid 3.32's smpif90 names an object after its source for .f90/.F90 only: a .f or .F
# compiled without -o lands in "-o.o", each overwriting the last. This wrapper adds the -o.
cat > "$work/smpif90-o" << 'EOF'
#!/bin/sh
c=0 o=0 src=
for a in "$@"; do
  case $a in
    -c) c=1 ;;
    -o|-o*) o=1 ;;
    *.F|*.f) src=$a ;;
  esac
done
if [ $c = 1 ] && [ $o = 0 ] && [ -n "$src" ]; then b=$(basename "$src"); set -- "$@" -o "${b%.*}.o"; fi
exec smpif90 "$@"
EOF
chmod +x "$work/smpif90-o"

# Four hosts of 1 Gflop/s joined by one 1 GB/s link of 1 µs (the platform of
# tests/tests/simgrid.rs); rank r on host hr.
{
  echo '<?xml version="1.0"?>'
  echo '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">'
  echo '<platform version="4.1"><zone id="z" routing="Full">'
  for i in 0 1 2 3; do echo "<host id=\"h$i\" speed=\"1Gf\"/>"; done
  echo '<link id="l" bandwidth="1GBps" latency="1us" sharing_policy="FATPIPE"/>'
  for i in 0 1 2 3; do for j in 0 1 2 3; do
    echo "<route src=\"h$i\" dst=\"h$j\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>"
  done; done
  echo '</zone></platform>'
} > "$work/p.xml"
printf 'h0\nh1\nh2\nh3\n' > "$work/hosts"

# NAME PROGRAM ARGS...: the trace of PROGRAM under smpirun, into the fixture NAME.
trace() {
  local name=$1; shift
  local d=$work/run-$name
  rm -rf "$d" && mkdir -p "$d"
  (cd "$d" && timeout 300 smpirun -np 4 -platform "$work/p.xml" -hostfile "$work/hosts" -trace-ti \
    --cfg=tracing/filename:trace.ti --log=root.thres:critical "$@" > /dev/null)
  rm -rf "${out:?}/$name" && mkdir -p "$out/$name/trace.ti_files"
  : > "$out/$name/trace.ti"
  local r=0
  while read -r f; do
    cp "$d/$f" "$out/$name/trace.ti_files/rank-$r.txt"
    echo "trace.ti_files/rank-$r.txt" >> "$out/$name/trace.ti"
    r=$((r + 1))
  done < "$d/trace.ti"
  for ((k = 0; k < r; k++)); do
    awk '$2 != "compute"' "$out/$name/trace.ti_files/rank-$k.txt" | wc -l
  done > "$out/$name/actions.txt"
  echo "$name: $(du -sk "$out/$name" | cut -f1) KB, $(cat "$out/$name"/trace.ti_files/* | wc -l) actions"
}

want() { [ "$only" = "  " ] || [[ $only == *" $1 "* ]]; }

# LOG COMMAND...: runs the build, and on failure shows its log's end (the scratch directory,
# where the log is, goes with the script).
build() {
  local log=$1; shift
  "$@" > "$log" 2>&1 || { tail -40 "$log" >&2; echo "$0: the build failed: $*" >&2; exit 1; }
}

if want npb_ft; then
  b=$work/npb && cp -a "$src/NPB3.4-MPI/." "$b/"
  (cd "$b" && smpicc -O2 -c -o kernel_stats/kernel_stats.o kernel_stats/kernel_stats.c &&
    smpicc -O2 -c -o kernel_stats/arg_parse.o kernel_stats/arg_parse.c)
  stats="../kernel_stats/kernel_stats.o ../kernel_stats/arg_parse.o"
  cat > "$b/config/make.def" << EOF
MPIFC = $work/smpif90-o
FLINK = \$(MPIFC)
FFLAGS = -O2 $flegacy
FLINKFLAGS = \$(FFLAGS) $stats
MPICC = smpicc
CLINK = \$(MPICC)
CFLAGS = -O2
CLINKFLAGS = \$(CFLAGS) $stats
CC = cc
BINDIR = ../bin
RAND = randi8
EOF
  mkdir -p "$b/bin" && build "$work/npb.log" make -s -C "$b" ft CLASS=S
  trace npb_ft "$b/bin/ft.S.x"
fi

if want minighost; then
  b=$work/minighost && cp -a "$src/miniGhost/." "$b/"
  # MPI_Abort's swapped arguments in main.c are an error where MPI_Comm is a pointer (SMPI).
  build "$work/minighost.log" make -s -C "$b/ref" -f makefile.mpi.gnu \
    FC="$work/smpif90-o $flegacy -ffree-line-length-none" CC="smpicc -Wno-error=int-conversion" LD=smpif90 \
    MPI_INCLUDE= miniGhost.x
  # 32 x 32 x 16 points on 2 x 2 x 1 ranks, 2 variables, 3 steps of the 7-point stencil,
  # the exchange that ends in MPI_WAITANY.
  trace minighost "$b/ref/miniGhost.x" --scaling 1 --nx 32 --ny 32 --nz 16 --num_vars 2 --num_tsteps 3 \
    --stencil 23 --comm_method 10 --npx 2 --npy 2 --npz 1
fi

if want master_worker; then
  smpicc -O2 -I"$root/mpi-test-apps" -o "$work/master_worker" "$root/mpi-test-apps/master_worker.c" -lm
  trace master_worker "$work/master_worker" 6
fi
