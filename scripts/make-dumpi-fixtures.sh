#!/usr/bin/env bash
# Regenerates interop/tests/fixtures/dumpi/: traces written by the real libdumpi (sst-dumpi)
# of nine test apps at 2 and 4 ranks, each in its own directory with the .meta renamed to the
# app's name (fileprefix=APP, APP-NNNN.bin) so the fixtures do not carry a date.
#
#   scripts/make-dumpi-fixtures.sh SST_DUMPI_SRC [APP...]
#
# With APP names only those fixtures are made again (the others keep their bytes).
# DUMPI_PREFIX=DIR uses a libdumpi already installed there (DIR/lib/libdumpi.so, built by this
# script's steps) instead of building one.
#
# REAL_APPS=DIR (scripts/real-apps.sh's build) adds traces of open-source codes at 4 ranks
# (NPB IS and FT, the ParRes stencil, miniGhost). Each fixture gets calls.txt: the calls
# sst-dumpi's dumpi2ascii finds in each rank file, one line a rank.
#
# SST_DUMPI_SRC is a checkout of https://github.com/sstsimulator/sst-dumpi (tested at its
# a4c8bf5, dumpi 13.0.0). It is built into a scratch prefix with autotools and MPICH's mpicc
# (needs autoconf, automake, libtool); nothing of it enters the repository. The apps are
# mpi-test-apps/bin, run under mpirun with libdumpi preloaded.
set -euo pipefail
src=${1:?usage: $0 SST_DUMPI_SRC}
src=$(cd "$src" && pwd)
cd "$(dirname "$0")/.."
root=$PWD
out=$root/interop/tests/fixtures/dumpi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

shift
only=" $* "

if [ -n "${DUMPI_PREFIX:-}" ]; then
  lib=$DUMPI_PREFIX/lib/libdumpi.so
  [ -f "$lib" ] || { echo "$lib: not found" >&2; exit 1; }
else
  # Build libdumpi out of the source tree (bootstrap once if configure is missing).
  if [ ! -x "$src/configure" ]; then (cd "$src" && ./bootstrap.sh) >"$work/bootstrap.log" 2>&1; fi
  mkdir -p "$work/build"
  (cd "$work/build" && "$src/configure" --enable-libdumpi --prefix="$work/prefix" CC=mpicc CXX=mpicxx &&
    make -j2 && make install) >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
  lib=$work/prefix/lib/libdumpi.so
fi
dumpi2ascii=$(dirname "$lib")/../bin/dumpi2ascii
make -s -C mpi-test-apps >/dev/null

# app, ranks, arguments: small runs (a few KB per rank file).
trace() {
  local app=$1 n=$2; shift 2
  trace_cmd "$app" "$n" "$root/mpi-test-apps/bin/$app" "$@"
}

# app, ranks, program and arguments.
trace_cmd() {
  local app=$1 n=$2; shift 2
  if [ "$only" != "  " ] && [[ $only != *" $app "* ]]; then return; fi
  local d=$work/run-$app
  mkdir -p "$d"
  (cd "$d" && LD_PRELOAD=$lib timeout 60 mpirun -n "$n" "$@" >/dev/null)
  local meta
  meta=$(ls "$d"/*.meta)
  local prefix
  prefix=$(sed -n 's/^fileprefix=//p' "$meta")
  rm -rf "${out:?}/$app"
  mkdir -p "$out/$app"
  for ((r = 0; r < n; r++)); do
    mv "$d/$(printf '%s-%04d.bin' "$prefix" "$r")" "$out/$app/$(printf '%s-%04d.bin' "$app" "$r")"
  done
  sed "s/^fileprefix=.*/fileprefix=$app/" "$meta" >"$out/$app/$app.meta"
  # What sst-dumpi's own reader finds in each rank file: its calls, for the tests to compare.
  for ((r = 0; r < n; r++)); do
    "$dumpi2ascii" "$out/$app/$(printf '%s-%04d.bin' "$app" "$r")" 2>/dev/null | grep -c " entering at walltime" || true
  done >"$out/$app/calls.txt"
  echo "$app: $n ranks, $(du -sk "$out/$app" | cut -f1) KB"
}

trace pingpong 2 1
trace ring 4 3 4
trace stencil2d 4 2 8
trace is 4 1 64
# Persistent requests, probes, the completion calls, the send modes, a cancelled receive
# (dumpi=1: without MPI_Mprobe, which libdumpi 13 does not record).
trace requests 4 64 1
# Row and column communicators from MPI_Comm_split of the world, used and freed.
trace cg 4 2 64
# Communicators from groups (MPI_Comm_group, MPI_Group_*, MPI_Comm_create) and Cartesian
# topologies (MPI_Cart_create, MPI_Cart_sub).
trace groups 4
# An intercommunicator between two groups split from the world (MPI_Intercomm_create), its
# traffic and collectives, its MPI_Comm_dup and MPI_Intercomm_merge.
trace intercomm 4
# The blocking collectives, among them MPI_Alltoallw and MPI_Reduce_scatter, and a reduction
# of the program's own (MPI_Op_create). libdumpi 13 records no MPI-3 call (the nonblocking
# collectives, MPI_Reduce_scatter_block), so the run leaves them out.
trace collectives 4 blocking

# Open-source codes (REAL_APPS: scripts/real-apps.sh's build), 4 ranks, small inputs: NPB IS
# and FT (class W; FT's row communicator from MPI_Comm_split), the ParRes stencil (10
# iterations of 480²), miniGhost (a 2x2x1 grid, 16³ per rank, 4 steps).
if [ -n "${REAL_APPS:-}" ]; then
  trace_cmd npb_is 4 "$REAL_APPS/npb_is/src/bin/is.W.x"
  trace_cmd npb_ft 4 "$REAL_APPS/npb_ft/src/bin/ft.W.x"
  trace_cmd prk_stencil 4 "$REAL_APPS/prk_stencil/src/MPI1/Stencil/stencil" 10 480
  trace_cmd minighost 4 "$REAL_APPS/minighost/src/ref/miniGhost.x" --scaling 2 --nx 16 --ny 16 --nz 16 \
    --num_vars 2 --num_tsteps 4 --stencil 23 --comm_method 10 --npx 2 --npy 2 --npz 1
fi
