#!/usr/bin/env bash
# Open MPI shared memory calibrated by the psins-calibrate of ba8f687 (old) and of the working
# tree (new) in turn; then every app of the validation run predicted with each file.
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
V=/work/main/build/validation-openmpi-1201
OLD=/work/main/target/openmpi/release/psins-calibrate
NEW=/work/tt/cal-ab/target/release/psins-calibrate
SIM=/work/main/target/release/psins-sim
cd /work/tt/cal-ab
for i in 1 2; do
  for v in old new; do
    B=$OLD; [ $v = new ] && B=$NEW
    echo "== $v $i $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    env OMPI_MCA_btl=self,vader $B -o shm-$v-$i.toml --name "this host, shared memory" -- mpirun.openmpi -n 2 2>&1 | tail -1
  done
done
