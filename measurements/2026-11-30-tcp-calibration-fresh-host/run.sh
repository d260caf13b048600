#!/usr/bin/env bash
cd "$(dirname "$0")"
for i in 1 2 3 4 5; do
  s=$(date +%s); l=$(cut -d' ' -f1 /proc/loadavg)
  MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self psins-calibrate -o tcp-$i.toml > out-$i.txt 2> err-$i.txt
  rc=$?
  echo "run $i rc $rc start $(date -u -d @$s +%H:%M:%S) load-before $l took $(( $(date +%s) - s )) s" >> series.txt
  sleep 20
done
echo finished >> series.txt
