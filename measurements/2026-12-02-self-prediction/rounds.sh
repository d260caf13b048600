#!/bin/bash
# rounds.sh N APP:ARGS...: N rounds; each round, per app: untraced and traced runs on shm and
# tcp (order alternating by round), predictions of each trace on both calibrations.
M=/work/main; B=$M/target/release; A=$M/mpi-test-apps/bin
N=$1; shift
pe() { tr -d ' \n' < "$1" | grep -o '"tasks":\[[^]]*\]' | grep -o '"end_s":[0-9.e+-]*' | cut -d: -f2 | sort -g | tail -1; }
ms() { tr -d ' \n' < "$1" | grep -o '"measured":{[^}]*}' | grep -o '"span_s":[0-9.e+-]*' | cut -d: -f2; }
env_of() { if [ $1 = tcp ]; then echo "MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self"; fi; }
echo "app,round,net,untraced,traced,pred_on_shm,pred_on_tcp,pred_on_shm0,pred_on_tcp0,load"
for ((r = 1; r <= N; r++)); do
  for spec in "$@"; do
    app=${spec%%:*}; args=${spec#*:}; d=w/$app; mkdir -p $d
    if ((r % 2)); then nets="shm tcp"; else nets="tcp shm"; fi
    declare -A U T
    for net in $nets; do
      env $(env_of $net) LD_PRELOAD=$PWD/span.so timeout 120 mpirun -n 2 $A/$app $args >/dev/null 2> $d/span.log
      U[$net]=$(sed -n 's/^PSINS_SPAN rank=[0-9]* seconds=//p' $d/span.log | sort -g | tail -1)
    done
    for net in $nets; do
      rm -rf $d/logs
      env $(env_of $net) PSINS_DIR=$d/logs LD_PRELOAD=$B/libpsinstrace.so timeout 120 mpirun -n 2 $A/$app $args > /dev/null 2>&1
      $B/psins-consolidate -q $d/logs/*/ -o $d/$net.psins
    done
    for net in shm tcp; do
      for m in shm tcp shm0 tcp0; do $B/psins-sim $d/$net.psins -m $m.toml -q --no-progress --json $d/$net-on-$m.json 2>/dev/null; done
      echo "$app,$r,$net,${U[$net]},$(ms $d/$net-on-shm.json),$(pe $d/$net-on-shm.json),$(pe $d/$net-on-tcp.json),$(pe $d/$net-on-shm0.json),$(pe $d/$net-on-tcp0.json),$(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done
