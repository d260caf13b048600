#!/usr/bin/env bash
cd /work/wt-test; E=/work/exp100
probe() { /usr/bin/time -f '%U' ./target/release/psins-sim gen:stencil2d:ranks=1024,iters=1000,bytes=8KiB,compute=50us -m configs/bus-cluster.toml --set machine.nodes=128 -q --no-progress 2>&1 >/dev/null | tail -1; }
echo "start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) commit $(git rev-parse --short HEAD)"
echo "probe before: $(probe) s user"
sha256sum $E/stencil2d-4.psins $E/stencil2d-8.psins $E/stencil2d-16.psins
echo "user sys maxrss_kib wall:"
/usr/bin/time -f '%U %S %M %e' target/release/psins-sim extrapolate:$E/stencil2d-4.psins,$E/stencil2d-8.psins,$E/stencil2d-16.psins:ranks=65536 -m fattree-64k-flow -q --json /work/tt/x65k.json --no-progress 2>&1 | tail -1
echo "probe after: $(probe) s user"
echo "end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
