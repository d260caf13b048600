#!/usr/bin/env bash
# One pass of docs/performance.md's benchmarks (formats, consolidation, import/export, packet
# topologies, timeline, sweep, the 32x32x32 torus), after `cargo build --release --workspace` and
# `cargo bench --no-run -p psins-formats -p psins-consolidate -p psins-interop`.
set -u
cd "$(dirname "$0")/../.."
O=$(dirname "$0")
d=target/release/deps
bin() { ls -t $d/$1-* | grep -v "\.d$" | head -1; }
probe() { echo "probe $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg): $( { /usr/bin/time -f '%U' target/release/psins-sim gen:stencil2d:ranks=1024,iters=1000,bytes=8KiB,compute=50us -m configs/bus-cluster.toml --set machine.nodes=128 -q --no-progress; } 2>&1 | tail -1) s user" >> $O/probes.txt; }
echo "commit $(git rev-parse --short HEAD)" > $O/probes.txt
probe
for i in 1 2 3; do echo "== run $i $(date -u +%H:%M:%S)"; taskset -c 1 $(bin codec) --bench; done > $O/codec.txt 2>&1
probe
for i in 1 2; do echo "== run $i $(date -u +%H:%M:%S)"; taskset -c 1 $(bin throughput) --bench; done > $O/throughput.txt 2>&1
probe
for i in 1 2; do echo "== run $i $(date -u +%H:%M:%S)"; $(bin interop) --bench; $(bin dumpi_import) --bench; done > $O/interop.txt 2>&1
probe
FLOW_ITERS=10 FLOW_1M_ITERS=0 bash scripts/bench-topologies.sh > $O/topologies.txt 2>&1
probe
# timeline: three runs with and without
for i in 1 2 3; do
  for tl in no yes; do
    if [ $tl = yes ]; then a=(--timeline /tmp/tl.json); else a=(); fi
    /usr/bin/time -f "timeline=$tl %U %S %e" target/release/psins-sim gen:stencil2d:ranks=256,iters=1000 -m configs/fat-simple.toml -q --no-progress "${a[@]}"
  done
done > $O/timeline.txt 2>&1
probe
# sweep: 100 points on both cores
rm -rf /tmp/sw /tmp/st.psins; target/release/psins-synth gen:stencil2d:ranks=1024,iters=1000,bytes=8KiB,compute=50us -o /tmp/st.psins > /dev/null 2>&1
/usr/bin/time -f "sweep %U %S %e %M" target/release/psins-sim sweep /tmp/st.psins -m configs/bus-cluster.toml --set machine.nodes=128 \
  --vary network.bandwidth=1GB/s..10GB/s+1GB/s --vary network.latency=1us..10us+1us -o /tmp/sw > $O/sweep.txt 2>&1
probe
# 32x32x32 torus, two runs
for i in 1 2; do /usr/bin/time -v target/release/psins-sim gen:stencil3d:ranks=32768,iters=10,bytes=1KiB -m configs/torus-8x8.toml \
  --set network.torus.dims=32x32x32 --set machine.nodes=32768 --set network.torus.vcs=3 \
  --set network.torus.routing=adaptive --perf 2>&1 | grep -E "perf|speed|Maximum resident|Elapsed|User time|System time|records"; done > $O/torus32.txt 2>&1
probe
echo done >> $O/probes.txt
