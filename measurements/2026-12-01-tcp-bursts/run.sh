#!/usr/bin/env bash
# stencil2d traced on shm and TCP in turn; per rank: span, MPI time, compute
# run from the repository root; OUT: where the traces go
B=${B:-$PWD/target/release}; OUT=${OUT:-/tmp/tcp-bursts}; mkdir -p "$OUT"
app=${APP:-$PWD/mpi-test-apps/bin/stencil2d}; arg=${ARG:-20000}
for i in 1 2 3; do
 for net in shm tcp; do
  d=$OUT/$net-$i; rm -rf $d
  if [ $net = tcp ]; then pre="env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self"; else pre=env; fi
  $pre PSINS_DIR=$d LD_PRELOAD=$B/libpsinstrace.so mpirun -n 2 $app $arg > /dev/null 2>&1
  $B/psins-consolidate $d/* -o $d.psins > /dev/null 2>&1
  $B/psins-dump --profile --json $d.psins > $d.json
  python3 - $d.json $net <<'P'
import json,sys
v=json.load(open(sys.argv[1]))
print(sys.argv[2], ' '.join(f"span {t['span_s']:.4f} mpi {t['mpi_s']:.4f} bursts {t['bursts_s']:.4f}" for t in v['per_rank']))
P
 done
done
