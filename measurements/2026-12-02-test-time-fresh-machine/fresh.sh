#!/usr/bin/env bash
set -u
cd /work && rm -rf wt-test && git clone -q /work/main wt-test && cd wt-test
git rev-parse --short HEAD
probe() { /usr/bin/time -f '%U' ./target/release/psins-sim gen:stencil2d:ranks=1024,iters=1000,bytes=8KiB,compute=50us -m configs/bus-cluster.toml --set machine.nodes=128 -q --no-progress 2>&1 >/dev/null | tail -1; }
echo "demo start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
s=$(date +%s.%N); make demo > /work/tt/demo.txt 2>&1; rc=$?; e=$(date +%s.%N)
echo "demo rc $rc wall $(echo "$e - $s" | bc) s"
echo "probe after demo: $(probe) s user"
echo "test start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
s=$(date +%s.%N); make test > /work/tt/test.txt 2>&1; rc=$?; e=$(date +%s.%N)
echo "test rc $rc wall $(echo "$e - $s" | bc) s"
echo "probe after test: $(probe) s user"
echo "end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
