#!/usr/bin/env bash
# Every kind of `--plot` chart, looked at as a person would (a step of `make test`): draws a
# sweep (also one on a log axis across a power of ten), a replay's per-rank bars and
# message-size histogram, a synthetic latency-versus-load curve (also with the longest title a
# bundled machine gives) and a measured message-size histogram, renders each SVG with headless
# Chromium to a PNG, and checks the picture: not blank, its series' colours present, text
# drawn, nothing cut off at its edges, no tick label twice in a row. KEEP=DIR keeps the SVGs and PNGs there to
# look at. Skipped, saying so, only when Chromium is not installed (scripts/setup.sh
# --plots, which CI's --openmpi includes).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "plot-check: $*" >&2; }
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chrome" ]; then
  say "SKIPPED: Chromium is not installed (bash scripts/setup.sh --plots installs it)"
  exit 0
fi
BIN=${BIN:-$PWD/target/release}
for t in psins-sim psins-synth psins-dump; do
  [ -x "$BIN/$t" ] || { say "FAILED: build first ($BIN/$t)"; exit 1; }
done
work=${KEEP:-$(mktemp -d /tmp/psins-plots.XXXXXX)}
mkdir -p "$work"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

# The charts: (file, what it must show in its text).
"$BIN/psins-sim" sweep gen:stencil2d:ranks=16,iters=20 -m configs/bus-cluster.toml \
  --vary network.bandwidth=1GB/s..16GB/s*2 --vary network.latency=1us,4us,10us \
  -o "$work/sweep" --plot "$work/sweep.svg" -q
"$BIN/psins-sim" gen:stencil2d:ranks=16,iters=20 -m configs/bus-cluster.toml --plot "$work/ranks.svg" \
  --plot-sizes "$work/replay-sizes.svg" -q
"$BIN/psins-sim" synth -m configs/torus-4x4.toml --sweep "$work/curve.csv" --plot "$work/curve.svg" \
  --loads 0.2,0.4,0.6,0.8,1.0 --warmup 300 --measure 1500 >/dev/null
# A geometric sweep across a power of ten (a log axis whose ticks pass 10).
"$BIN/psins-sim" sweep gen:stencil2d:ranks=16,iters=5 -m configs/bus-cluster.toml \
  --vary network.bandwidth=1GB/s..16GB/s*2 -o "$work/sweep-log" --plot "$work/sweep-log.svg" -q
# The longest title a bundled machine gives: the dragonfly's topology, routing and pattern.
"$BIN/psins-sim" synth -m configs/dragonfly-72.toml --pattern group-shift --set network.dragonfly.routing=ugal-g \
  --sweep "$work/long-title.csv" --plot "$work/long-title.svg" --loads 0.2,0.6,1.0 --warmup 300 --measure 1500 >/dev/null
"$BIN/psins-synth" gen:pingpong:ranks=2,iters=4,bytes=64KiB -o "$work/pp.psins" 2>/dev/null
"$BIN/psins-dump" --profile "$work/pp.psins" --plot "$work/sizes.svg" >/dev/null

fail=0
for c in "sweep|network.bandwidth (GB/s)|network.latency=10us" "ranks|rank|waiting" \
         "curve|offered load|saturated from load" "long-title|offered load|ugal-g" \
         "sweep-log|network.bandwidth (GB/s)|predicted" "sizes|message size|messages" \
         "replay-sizes|message size|Message sizes replayed"; do
  IFS='|' read -r name axis legend <<<"$c"
  svg="$work/$name.svg" png="$work/$name.png"
  for want in "$axis" "$legend"; do
    grep -qF "$want" "$svg" || { say "FAILED: $svg has no text \`$want\`"; fail=1; }
  done
  # A tick label drawn twice in a row (one axis's labels come in order).
  python3 -c '
import re, sys
t = [m.group(1).strip() for m in re.finditer(r"<text[^>]*>\s*([^<]*)</text>", open(sys.argv[1]).read())]
num = [x for x in t if re.fullmatch(r"-?[0-9.]+(e[-+]?[0-9]+)?", x)]
dup = [a for a, b in zip(num, num[1:]) if a == b]
sys.exit(f"plot-check: FAILED: {sys.argv[1]}: tick label {dup[0]} drawn twice in a row" if dup else 0)' "$svg" || fail=1
  # The SVG is 1000x620; a fresh profile directory each time, no GPU, no sandbox (root).
  timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$work/chrome-profile" --window-size=1000,620 --screenshot="$png" "$svg" \
    >/dev/null 2>&1 || { say "FAILED: Chromium could not render $svg"; fail=1; continue; }
  python3 scripts/png-check.py "$png" || fail=1
done
[ $fail -eq 0 ] || { say "FAILED (pictures in $work)"; exit 1; }
say "7 passed, 0 failed"
