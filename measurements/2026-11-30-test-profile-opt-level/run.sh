#!/usr/bin/env bash
# Variant A (test-fast as committed) and C (the whole test-fast profile at opt-level 1, via
# CARGO_PROFILE_TEST_FAST_OPT_LEVEL), each from an empty target directory: workspace build,
# test binaries, tests run.
set -u
cd /work/main
OUT=/work/notes/optc
for V in A C; do
  T=/work/optc-target-$V
  rm -rf $T
  if [ $V = C ]; then export CARGO_PROFILE_TEST_FAST_OPT_LEVEL=1; else unset CARGO_PROFILE_TEST_FAST_OPT_LEVEL; fi
  echo "$V start $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)" >> $OUT/times.txt
  s=$(date +%s.%N); CARGO_TARGET_DIR=$T cargo build -q --workspace --profile test-fast > $OUT/$V.build.log 2>&1; e=$(date +%s.%N)
  echo "$V build $(echo "$e - $s" | bc)" >> $OUT/times.txt
  s=$(date +%s.%N); CARGO_TARGET_DIR=$T cargo test -q --workspace --profile test-fast --no-run > $OUT/$V.testbuild.log 2>&1; e=$(date +%s.%N)
  echo "$V test-build $(echo "$e - $s" | bc)" >> $OUT/times.txt
  s=$(date +%s.%N); CARGO_TARGET_DIR=$T PSINS_REQUIRE_MPI=1 cargo test -q --workspace --profile test-fast > $OUT/$V.run.log 2>&1; rc=$?; e=$(date +%s.%N)
  echo "$V run $(echo "$e - $s" | bc) rc=$rc" >> $OUT/times.txt
done
echo "end $(date -u +%T)" >> $OUT/times.txt
