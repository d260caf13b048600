#!/usr/bin/env bash
# Fat-tree, dragonfly and flow-model speed (part of `make bench`; targets and figures
# in docs/performance.md): packet-hops per CPU second under uniform traffic at about half of
# each bundled design's saturation throughput (docs/fattree.md, docs/dragonfly.md), and
# records per CPU second of the flow model replaying a 1,024-rank stencil on the 512-node
# flow fat-tree (two ranks per node), and the 1,048,576-rank stencil on the 524,288-node
# fattree-1m-flow (target: < 120 s on one core, <= 4 KiB per rank; --perf prints the CPU
# time and peak RSS; FLOW_1M_ITERS=0 skips it). psins-sim prints its own CPU time.
set -euo pipefail
cd "$(dirname "$0")/.."
sim=target/release/psins-sim
run() { echo "== $*"; "$sim" "$@" 2>&1 | grep -E '^(accepted|speed|perf)'; }
run synth -m configs/fattree-512.toml --pattern uniform --load 0.40 --warmup 2000 --measure 200000
run synth -m configs/fattree-512.toml --pattern uniform --load 0.39 --warmup 2000 --measure 200000 \
  --set network.fattree.routing=adaptive
run synth -m configs/dragonfly-1056.toml --pattern uniform --load 0.29 --warmup 2000 --measure 200000
run synth -m configs/dragonfly-1056.toml --pattern uniform --load 0.28 --warmup 2000 --measure 200000 \
  --set network.dragonfly.routing=ugal-l
run gen:stencil2d:ranks=1024,iters=${FLOW_ITERS:-20},bytes=8KiB,compute=50us -m configs/fattree-512-flow.toml \
  --set machine.cores_per_node=2 -q --perf
if [ "${FLOW_1M_ITERS:-1}" != 0 ]; then
  run gen:stencil2d:ranks=1048576,iters=${FLOW_1M_ITERS:-1},bytes=8KiB,compute=50us -m configs/fattree-1m-flow.toml \
    -q --perf
fi
