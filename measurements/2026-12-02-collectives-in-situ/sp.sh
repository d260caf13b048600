#!/bin/bash
# sp.sh N APP:ARGS...: N traced runs of each app on shared memory; each trace replayed on old.toml and new.toml
M=/work/main; B=$M/target/release; A=$M/mpi-test-apps/bin
N=$1; shift
pe() { tr -d ' \n' < "$1" | grep -o '"tasks":\[[^]]*\]' | grep -o '"end_s":[0-9.e+-]*' | cut -d: -f2 | sort -g | tail -1; }
ms() { tr -d ' \n' < "$1" | grep -o '"measured":{[^}]*}' | grep -o '"span_s":[0-9.e+-]*' | cut -d: -f2; }
echo "app,run,traced,old,new,load"
for ((r = 1; r <= N; r++)); do
  for spec in "$@"; do
    app=${spec%%:*}; args=${spec#*:}; d=w/$app; mkdir -p $d; rm -rf $d/logs
    PSINS_DIR=$d/logs LD_PRELOAD=$B/libpsinstrace.so timeout 120 mpirun -n 2 $A/$app $args > /dev/null 2>&1
    $B/psins-consolidate -q $d/logs/*/ -o $d/t$r.psins
    for m in old new; do $B/psins-sim $d/t$r.psins -m $m.toml -q --no-progress --json $d/t$r-$m.json 2>/dev/null; done
    echo "$app,$r,$(ms $d/t$r-new.json),$(pe $d/t$r-old.json),$(pe $d/t$r-new.json),$(cut -d' ' -f1 /proc/loadavg)"
  done
done
