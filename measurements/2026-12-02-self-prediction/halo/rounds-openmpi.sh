#!/bin/bash
# 24 rounds of the halo app under Open MPI's shared memory: an untraced run (span) and a traced
# run, the trace replayed on the calibration with and without serial_receive.
M=/work/main; B=$M/target/openmpi/release; S=$M/target/release; A=$M/target/openmpi/apps/bin
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
pe() { $S/psins-sim "$1" -m "$2" -q --no-progress --json - 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); print(d['predicted_seconds'], d['measured']['span_s'])"; }
echo "round,untraced,pred_serial,traced,pred_noserial,traced2"
for ((r = 1; r <= 24; r++)); do
  LD_PRELOAD=$PWD/span.so mpirun.openmpi -n 2 $A/halo 5000 > /dev/null 2> span.log
  u=$(sed -n 's/^PSINS_SPAN rank=[0-9]* seconds=//p' span.log | sort -g | tail -1)
  rm -rf logs; PSINS_DIR=logs LD_PRELOAD=$B/libpsinstrace.so mpirun.openmpi -n 2 $A/halo 5000 > /dev/null 2>&1
  $S/psins-consolidate -q logs/*/ -o halo.psins
  echo "$r,$u,$(pe halo.psins shm.toml | tr ' ' ','),$(pe halo.psins shm-noserial.toml | tr ' ' ',')"
done
