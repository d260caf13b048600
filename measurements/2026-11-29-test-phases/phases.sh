#!/usr/bin/env bash
# time each phase of make test in a fresh clone of $1 (commit) into $2
set -u
src=${1:-/work/main}; dir=${2:-/work/wt-test}
rm -rf "$dir" && git clone -q "$src" "$dir" && cd "$dir" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t() { local s=$(date +%s.%N); "$@" > /tmp/phase.out 2>&1; local rc=$?; local e=$(date +%s.%N); printf '%-60s rc=%d %7.1f s\n' "$*" $rc $(echo "$e - $s" | bc); [ $rc = 0 ] || tail -30 /tmp/phase.out; }
uptime
t make setup apps
t cargo build --workspace --profile test-fast
t cargo test --workspace --profile test-fast --no-run
t cargo test --workspace --profile test-fast
t env PSINS_TEST_PROFILE=test-fast bash scripts/test-openmpi.sh
t env BIN=$dir/target/test-fast bash scripts/slurm-sweep-test.sh
t env BIN=$dir/target/test-fast bash scripts/plot-check.sh
uptime
