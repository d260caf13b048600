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
# Each run writes over the same file, as a user recalibrating would: psins-calibrate then
# notes a host that has changed since the run before (docs/calibrate.md); a copy per run.
for ((i = 1; i <= n; i++)); do
  target/release/psins-calibrate -o "$out/host.toml" "$@" 2> "$out/run$i.log" || { cat "$out/run$i.log" >&2; exit 1; }
  cp "$out/host.toml" "$out/run$i.toml"
done
# The host's state per run (docs/calibrate.md, --check): two runs are in one state when their
# `[calibrated] check` half round trips are each within 20 % of each other's, as `psins-calibrate
# --check` would judge it. The reference is the run with the most runs in its state. Read
# from the files: nothing is measured again.
refs() { grep -o 'half_rtt = "[0-9.]*us"' "$1" | grep -o '[0-9.]*' | xargs; }
same() {
  awk -v a="$(refs "$out/run$1.toml")" -v b="$(refs "$out/run$2.toml")" 'BEGIN {
    n = split(a, x, " "); split(b, y, " "); ok = 1
    for (k = 1; k <= n; k++) if (y[k] > 1.2 * x[k] || y[k] < x[k] / 1.2) ok = 0
    print ok }'
}
ref=1 most=0
for ((r = 1; r <= n; r++)); do
  c=0
  for ((i = 1; i <= n; i++)); do c=$((c + $(same "$r" "$i"))); done
  if ((c > most)); then ref=$r most=$c; fi
done
states=""
for ((i = 1; i <= n; i++)); do states+=$(same "$ref" "$i"); done
# "#   <bytes> B  <us> us  ±<spread> %" comment lines: one per size and run; the last column
# takes only the runs in the reference run's state.
printf "| size (B) | half round trip medians (us) | spread of the medians | spread, runs in run %s's state |\n|---:|---|---:|---:|\n" "$ref"
awk -v states="$states" '/^# +[0-9]+ B / { v[$2] = v[$2] " " $4 }
     END { for (s in v) { n = split(v[s], a, " "); lo = hi = slo = shi = a[1]
             for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i]
               if (substr(states, i, 1) == "1") { if (a[i] < slo) slo = a[i]; if (a[i] > shi) shi = a[i] } }
             printf "| %s | %s | %.1f %% | %.1f %% |\n", s, v[s], 100 * (hi - lo) / lo, 100 * (shi - slo) / slo } }' \
  $(for ((i = 1; i <= n; i++)); do echo "$out/run$i.toml"; done) | sort -t'|' -k2 -n
echo
echo "runs in run $ref's state (each --check reference within 20 %): $(for ((i = 1; i <= n; i++)); do [ "${states:i-1:1}" = 1 ] && printf '%s ' "$i"; done)"
echo "runs that psins-calibrate found changed since the run before: $(for ((i = 2; i <= n; i++)); do grep -q 'has changed since' "$out/run$i.log" && printf '%s ' "$i"; done)"
echo "$n runs of psins-calibrate $*; $(nproc) cores; $(date -u +%Y-%m-%d); load after: $(cut -d' ' -f1-3 /proc/loadavg)"
