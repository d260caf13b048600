#!/usr/bin/env bash
cd "$(git rev-parse --show-toplevel)"
export PSINS_REQUIRE_MPI=1 CARGO_TARGET_DIR=target-exp-A
s=$(date +%s.%N); cargo test --workspace --profile test-fast > out/exp2-cargo.log 2>&1; r=$?
e=$(date +%s.%N); echo "cargo-test rc $r $(echo "$e - $s" | bc) load $(cut -d' ' -f1 /proc/loadavg)" >> out/exp2.txt
s=$(date +%s.%N); cargo nextest run --workspace --cargo-profile test-fast --no-fail-fast > out/exp2-nextest.log 2>&1; r=$?
e=$(date +%s.%N); echo "nextest rc $r $(echo "$e - $s" | bc) load $(cut -d' ' -f1 /proc/loadavg)" >> out/exp2.txt
echo done >> out/exp2.txt
