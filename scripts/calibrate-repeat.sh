#!/usr/bin/env bash
# Repeatability of psins-calibrate (docs/validation.md): N back-to-back calibrations of this
# host, then, per ping-pong size and per point of the collective curves, the spread of the N medians
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
  cp "$out/host.curves.toml" "$out/run$i.curves.toml"
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
# One "<figure> <microseconds>" line per figure of a run: the half round trips (the machine
# file's "#   <bytes> B  <us> us  interval … spread …" comments) and every point of the
# collective curves beside it.
medians() {
  awk '/^# +[0-9]+ B / { print $2 " B ping-pong", $4 }' "$1"
  awk -F' = ' '/^collective/ { c = $2; gsub(/"/, "", c) }
    /^bytes/ { gsub(/[][]/, "", $2); nb = split($2, b, ", ") }
    /^seconds/ { gsub(/[][]/, "", $2); split($2, t, ", "); for (i = 1; i <= nb; i++) printf "%s B %s %.3f\n", b[i], c, t[i] * 1e6 }' \
    "${1%.toml}.curves.toml"
}
printf "| figure | medians (us), runs 1 to %s | spread of the medians | spread, runs in run %s's state |\n|---|---|---:|---:|\n" "$n" "$ref"
for ((i = 1; i <= n; i++)); do medians "$out/run$i.toml" | sed "s/^/$i /"; done | awk -v states="$states" '
  { run = $1; v = $NF; $1 = ""; $NF = ""; f = substr($0, 2, length($0) - 2)
    if (!(f in all)) order[++nf] = f
    all[f] = all[f] " " v
    if (!(f in lo) || v < lo[f]) lo[f] = v; if (!(f in hi) || v > hi[f]) hi[f] = v
    if (substr(states, run, 1) == "1") { if (!(f in slo) || v < slo[f]) slo[f] = v; if (!(f in shi) || v > shi[f]) shi[f] = v } }
  END { for (k = 1; k <= nf; k++) { f = order[k]
          printf "| %s | %s | %.1f %% | %.1f %% |\n", f, substr(all[f], 2), 100 * (hi[f] - lo[f]) / lo[f], 100 * (shi[f] - slo[f]) / slo[f] } }'
echo
echo "runs in run $ref's state (each --check reference within 20 %): $(for ((i = 1; i <= n; i++)); do [ "${states:i-1:1}" = 1 ] && printf '%s ' "$i"; done)"
echo "runs that psins-calibrate found changed since the run before: $(for ((i = 2; i <= n; i++)); do grep -q 'has changed since' "$out/run$i.log" && printf '%s ' "$i"; done)"
echo "$n runs of psins-calibrate $*; $(nproc) cores; $(date -u +%Y-%m-%d); load after: $(cut -d' ' -f1-3 /proc/loadavg)"
