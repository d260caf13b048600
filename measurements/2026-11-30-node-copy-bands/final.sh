#!/usr/bin/env bash
# A subset of make validate under MPICH (both networks, the networks' runs alternating) and
# the halo under Open MPI (shared memory).
cd /work/main
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
APPS="pingpong:500 halo:5000 stencil2d:20000 master_worker:400" REAL_APPS=/work/build-real2 OUT=/work/halo/val-mpich \
  bash scripts/validate.sh > /work/halo/val-mpich.txt 2> /work/halo/val-mpich.err
echo "mpich done $(date -u +%T) rc=$? load $(cut -d' ' -f1-3 /proc/loadavg)"
MPI=openmpi APPS="halo:5000" NETS=shm OUT=/work/halo/val-ompi \
  bash scripts/validate.sh > /work/halo/val-ompi.txt 2> /work/halo/val-ompi.err
echo "openmpi done $(date -u +%T) rc=$? load $(cut -d' ' -f1-3 /proc/loadavg)"
