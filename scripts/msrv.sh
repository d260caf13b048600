#!/usr/bin/env bash
# make msrv (CI runs it before make test, .ci/run): the workspace, its tests included, checked
# with the oldest Rust it declares (Cargo.toml's `rust-version`), so that the declaration stays
# true; then the importers again without libotf2 (PSINS_NO_OTF2=1, docs/interop-otf2.md), which
# reuses the first check's dependencies (psins-interop's build script reruns on PSINS_NO_OTF2,
# so a second `make msrv` checks psins-interop and what depends on it again in both steps).
# The toolchain comes from rustup (installed with the minimal profile when missing); without
# rustup this fails, naming what to install.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^rust-version *= *"\([0-9.]*\)".*/\1/p' Cargo.toml | head -1)
[ -n "$version" ] || { echo "msrv: Cargo.toml declares no rust-version" >&2; exit 1; }
command -v rustup >/dev/null || {
  echo "msrv: rustup not found: Rust $version is checked through rustup (https://rustup.rs)" >&2
  exit 1
}
rustup run "$version" rustc -V > /dev/null 2>&1 || rustup toolchain install "$version" --profile minimal
CARGO_TARGET_DIR=target/msrv cargo "+$version" check --workspace --all-targets --quiet
PSINS_NO_OTF2=1 CARGO_TARGET_DIR=target/msrv cargo "+$version" check -p psins-interop --all-targets --quiet
echo "msrv: the workspace builds with Rust $version, and psins-interop without libotf2"
