#!/usr/bin/env bash
E=/work/exp100; S="extrapolate:$E/stencil2d-4.psins,$E/stencil2d-8.psins,$E/stencil2d-16.psins:ranks=65536"
probe() { /usr/bin/time -f '%U' /work/wt-test/target/release/psins-sim gen:stencil2d:ranks=1024,iters=1000,bytes=8KiB,compute=50us -m /work/main/configs/bus-cluster.toml --set machine.nodes=128 -q --no-progress 2>&1 >/dev/null | tail -1; }
echo "start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) probe $(probe)"
for b in wt-test main; do
  /usr/bin/time -f "$b %U %S %M %e" /work/$b/target/release/psins-sim $S -m /work/main/configs/fattree-64k-flow.toml -q --no-progress --json /work/tt/x65k2-$b.json 2>&1 | tail -1
  echo "probe $(probe) $(date -u +%T)"
done
echo "end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
