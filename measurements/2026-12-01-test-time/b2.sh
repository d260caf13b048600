#!/usr/bin/env bash
# b2.sh TREE TARGET: in the work tree TREE (a clone whose Cargo.toml has the variant's
# [profile.test-fast.package.NAME] opt-level = 0 tables), from an empty TARGET: the
# workspace built, the test binaries built, the tests run; seconds of each.
set -u
cd "${1:?usage: b2.sh TREE TARGET}"
T=${2:?usage: b2.sh TREE TARGET}
rm -rf "$T"
s=$(date +%s.%N)
CARGO_TARGET_DIR=$T cargo build -q --workspace --profile test-fast 2>&1 | tail -3
m=$(date +%s.%N)
CARGO_TARGET_DIR=$T cargo test -q --workspace --profile test-fast --no-run 2>&1 | tail -3
e=$(date +%s.%N)
echo "build $(echo "$m-$s"|bc) tests-build $(echo "$e-$m"|bc) load $(cut -d' ' -f1 /proc/loadavg)"
s=$(date +%s.%N)
PSINS_REQUIRE_MPI=1 CARGO_TARGET_DIR=$T cargo test -q --workspace --profile test-fast > "$T.testlog" 2>&1; rc=$?
e=$(date +%s.%N)
echo "rc $rc tests-run $(echo "$e-$s"|bc) load $(cut -d' ' -f1 /proc/loadavg)"
