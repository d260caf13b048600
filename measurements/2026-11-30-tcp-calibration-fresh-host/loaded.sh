#!/usr/bin/env bash
cd "$(dirname "$0")"
s=$(date +%s); l=$(cut -d' ' -f1 /proc/loadavg)
( sleep 20; for i in 1 2 3 4; do timeout 400 bash -c 'while :; do :; done' & done; wait ) &
MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self psins-calibrate -o loaded.toml > loaded-out.txt 2> loaded-err.txt
rc=$?
pkill -f "timeout 400 bash" ; 
echo "loaded run rc $rc start $(date -u -d @$s +%H:%M:%S) load-before $l took $(( $(date +%s) - s )) s" >> series.txt
