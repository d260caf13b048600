#!/usr/bin/env bash
# The calibration worker before (one warm buffer for an exchange's receive and send) and after
# (a second warm buffer for the receive), interleaved: shared memory under MPICH and Open MPI.
set -u
cd /work/main
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OUT=/work/notes/ab
ROUNDS=${ROUNDS:-2}
for i in $(seq 1 $ROUNDS); do
  for w in old new; do
    echo "mpich shm $w $i start $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> $OUT/log.txt
    target/release/psins-calibrate --worker $OUT/worker-$w-mpich -o $OUT/mpich-shm-$w-$i.toml --name "shm $w $i" -- mpirun -n 2 >> $OUT/calib.log 2>&1 || echo "rc=$?" >> $OUT/log.txt
    echo "ompi shm $w $i start $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> $OUT/log.txt
    OMPI_MCA_btl=self,vader target/openmpi/release/psins-calibrate --worker $OUT/worker-$w-ompi -o $OUT/ompi-shm-$w-$i.toml --name "ompi shm $w $i" -- mpirun.openmpi -n 2 >> $OUT/calib.log 2>&1 || echo "rc=$?" >> $OUT/log.txt
  done
done
echo "end $(date -u +%T)" >> $OUT/log.txt
