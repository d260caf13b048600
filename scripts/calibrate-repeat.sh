#!/usr/bin/env bash
# Repeatability of psins-calibrate (docs/validation.md): N back-to-back calibrations of this
# host, then, per ping-pong size and for the fitted parameters, the spread of the N medians
# ((max - min) / min). Run on a quiet host. Extra arguments go to psins-calibrate.
#   bash scripts/calibrate-repeat.sh [N] [psins-calibrate options...]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5}
shift || true
out=build/calibrate-repeat
rm -rf "$out" && mkdir -p "$out"
for ((i = 1; i <= n; i++)); do
  target/release/psins-calibrate -o "$out/run$i.toml" "$@" 2> "$out/run$i.log" || { cat "$out/run$i.log" >&2; exit 1; }
done
# "#   <bytes> B  <us> us  ±<spread> %" comment lines: one per size and run.
printf '| size (B) | half round trip medians (us) | spread of the medians |\n|---:|---|---:|\n'
awk '/^# +[0-9]+ B / { v[$2] = v[$2] " " $4 }
     END { for (s in v) { n = split(v[s], a, " "); lo = hi = a[1]
             for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
             printf "| %s | %s | %.1f %% |\n", s, v[s], 100 * (hi - lo) / lo } }' "$out"/run*.toml | sort -t'|' -k2 -n
echo
echo "$n runs of psins-calibrate $*; $(nproc) cores; $(date -u +%Y-%m-%d); load after: $(cut -d' ' -f1-3 /proc/loadavg)"
