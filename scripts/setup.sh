#!/usr/bin/env bash
# Installs what psins needs from Debian's packages when it is missing: MPICH (compilers,
# mpirun, headers) and gfortran for the Fortran test apps. Rust comes from rustup.
set -euo pipefail
need=()
command -v mpicc >/dev/null || need+=(mpich libmpich-dev)
command -v mpifort >/dev/null && mpifort --version >/dev/null 2>&1 || need+=(gfortran)
command -v cargo >/dev/null || { echo "setup: cargo not found: install Rust (https://rustup.rs) first" >&2; exit 1; }
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${need[@]}" >/dev/null
