#!/usr/bin/env bash
cd "$(git rev-parse --show-toplevel)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { # name, extra args...
  local n=$1; shift
  rm -rf target-exp-$n
  local s=$(date +%s.%N)
  CARGO_TARGET_DIR=target-exp-$n cargo build --workspace --profile test-fast "$@" --timings > out/exp-$n-build.log 2>&1
  local b=$(date +%s.%N)
  CARGO_TARGET_DIR=target-exp-$n cargo test --workspace --profile test-fast "$@" --no-run --timings > out/exp-$n-testbuild.log 2>&1
  local t=$(date +%s.%N)
  echo "$n build $(echo "$b - $s" | bc) testbuild $(echo "$t - $b" | bc) load $(cut -d' ' -f1 /proc/loadavg)" >> out/exp.txt
  cp -r target-exp-$n/cargo-timings out/timings-$n
}
run A
run B --config 'profile.test-fast.opt-level=1' --config 'profile.test-fast.package."*".opt-level=3'
echo done >> out/exp.txt
