#!/usr/bin/env bash
# Seconds per test binary and per test of the workspace's tests (test-fast profile), each
# binary run alone as `cargo test` runs it (from its package's directory). Per-test times come
# from libtest's --report-time (RUSTC_BOOTSTRAP=1 lets the stable test harness take it; the
# tests' own cargo builds drop that variable, tests/src/lib.rs).
# usage: test-times.sh OUT_DIR   (run from the repository's root)
set -euo pipefail
out=${1:?usage: test-times.sh OUT_DIR}
mkdir -p "$out"
cargo build -q --workspace --profile test-fast
cargo test --workspace --profile test-fast --no-run --message-format=json 2>/dev/null | python3 -c '
import sys, json
for l in sys.stdin:
    try: m = json.loads(l)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["target"]["name"], m["manifest_path"].split("/")[-2], m["executable"])
' > "$out/binaries.txt"
export PSINS_REQUIRE_MPI=1
while read -r name pkg exe; do
  s=$(date +%s.%N)
  (cd "$pkg" && RUSTC_BOOTSTRAP=1 "$exe" -Z unstable-options --report-time > "$out/$pkg-$name.txt" 2>&1) || echo "FAILED $pkg $name"
  e=$(date +%s.%N)
  printf '%.1f %s %s\n' "$(echo "$e - $s" | bc)" "$pkg" "$name"
done < "$out/binaries.txt" | tee "$out/summary.txt"
