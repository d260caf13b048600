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
# The host's state per run (docs/calibrate.md, --check): a run is in run 1's state when its
# `[calibrated] check` half round trips are each within 20 % of run 1's, as `psins-calibrate
# --check run1.toml` would judge it. Read from the files: nothing is measured again.
refs() { grep -o 'half_rtt = "[0-9.]*us"' "$1" | grep -o '[0-9.]*' | xargs; }
states=""
for ((i = 1; i <= n; i++)); do
  states+=$(awk -v a="$(refs "$out/run1.toml")" -v b="$(refs "$out/run$i.toml")" 'BEGIN {
    n = split(a, x, " "); split(b, y, " "); ok = 1
    for (k = 1; k <= n; k++) if (y[k] > 1.2 * x[k] || y[k] < x[k] / 1.2) ok = 0
    print ok }')
done
# "#   <bytes> B  <us> us  ±<spread> %" comment lines: one per size and run; the last column
# takes only the runs in run 1's state.
printf "| size (B) | half round trip medians (us) | spread of the medians | spread, runs in run 1's state |\n|---:|---|---:|---:|\n"
awk -v states="$states" '/^# +[0-9]+ B / { v[$2] = v[$2] " " $4 }
     END { for (s in v) { n = split(v[s], a, " "); lo = hi = slo = shi = a[1]
             for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i]
               if (substr(states, i, 1) == "1") { if (a[i] < slo) slo = a[i]; if (a[i] > shi) shi = a[i] } }
             printf "| %s | %s | %.1f %% | %.1f %% |\n", s, v[s], 100 * (hi - lo) / lo, 100 * (shi - slo) / slo } }' \
  "$out"/run*.toml | sort -t'|' -k2 -n
echo
echo "runs in run 1's state (each --check reference within 20 %): $(for ((i = 1; i <= n; i++)); do [ "${states:i-1:1}" = 1 ] && printf '%s ' "$i"; done)"
echo "$n runs of psins-calibrate $*; $(nproc) cores; $(date -u +%Y-%m-%d); load after: $(cut -d' ' -f1-3 /proc/loadavg)"
