#!/usr/bin/env bash
# stencil2d on TCP: the measured per-function profile of a trace made on TCP against the
# profile psins-sim predicts for it (and for a shared-memory trace) on the validation's TCP file
# run from the repository root; OUT: where the traces go
B=${B:-$PWD/target/release}; V=${V:-$PWD/build/validation-mpich}; OUT=${OUT:-/tmp/tcp-bursts}; mkdir -p "$OUT"
app=$PWD/mpi-test-apps/bin/stencil2d; arg=20000
for net in shm tcp; do
  if [ $net = tcp ]; then pre="env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self"; else pre=env; fi
  $pre $B/psins-calibrate --check $V/$net.toml --trials 5 --seconds-per-trial 0.01 -- mpirun -n 2 2>&1 | tail -1
done
for i in a b; do
 for net in shm tcp; do
  d=$OUT/c-$net-$i; rm -rf $d $d.psins
  if [ $net = tcp ]; then pre="env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self"; else pre=env; fi
  $pre PSINS_DIR=$d LD_PRELOAD=$B/libpsinstrace.so mpirun -n 2 $app $arg > /dev/null 2>&1
  $B/psins-consolidate $d/* -o $d.psins > /dev/null 2>&1
 done
done
for net in shm tcp; do
  if [ $net = tcp ]; then pre="env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self"; else pre=env; fi
  $pre $B/psins-calibrate --check $V/$net.toml --trials 5 --seconds-per-trial 0.01 -- mpirun -n 2 2>&1 | tail -1
done
for t in $OUT/c-shm-a $OUT/c-tcp-a $OUT/c-shm-b $OUT/c-tcp-b; do
  echo "== $t measured"; $B/psins-dump --profile $t.psins | sed -n '3,4p;6,11p;13,15p'
  $B/psins-sim $t.psins -m $V/tcp.toml -q --predicted-trace $t.on-tcp.psins > /dev/null 2>&1
  echo "== $t predicted on tcp.toml"; $B/psins-dump --profile $t.on-tcp.psins | sed -n '3,4p;6,11p;13,15p'
done
