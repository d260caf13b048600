#!/usr/bin/env bash
# Packet-level torus speed (part of `make bench`): packet-hops per CPU second on an 8x8 torus
# under uniform traffic at about half of each design's saturation throughput.
set -euo pipefail
cd "$(dirname "$0")/.."
synth=target/release/psins-torus-synth
for design in "--vcs 1 --routing dor --load 0.25" "--vcs 3 --routing dor --load 0.32" "--vcs 3 --routing adaptive --load 0.385"; do
  echo "== 8x8 uniform $design"
  # shellcheck disable=SC2086
  "$synth" --dims 8x8 --pattern uniform $design --measure 400000
done
