# A: HEAD, B: the change; the Open MPI tracer build of scripts/test-openmpi.sh from an empty target dir
export MPICC=mpicc.openmpi MPIFORT=mpifort.openmpi
for i in 1 2; do
  for v in A B; do
    if [ $v = A ]; then src=/work/wt-base; else src=/work/main; fi
    rm -rf /tmp/bt/t$v
    s=$(date +%s.%N)
    (cd $src && CARGO_TARGET_DIR=/tmp/bt/t$v cargo build -q --profile test-fast -p psins-tracer) 
    e=$(date +%s.%N)
    echo "$v run$i $(echo "$e - $s" | bc) load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
