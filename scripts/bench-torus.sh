#!/usr/bin/env bash
# Packet-level torus speed (part of `make bench`): packet-hops per CPU second on an 8x8 torus
# under uniform traffic at about half of each design's saturation throughput.
set -euo pipefail
cd "$(dirname "$0")/.."
sim=target/release/psins-sim
for design in "vcs=1 routing=dor 0.25" "vcs=3 routing=dor 0.32" "vcs=3 routing=adaptive 0.385"; do
  read -r vcs routing load <<<"$design"
  echo "== 8x8 uniform $vcs $routing load $load"
  "$sim" synth -m torus-8x8 --set "network.torus.$vcs" --set "network.torus.$routing" \
    --pattern uniform --load "$load" --measure 400000
done
