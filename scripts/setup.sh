#!/usr/bin/env bash
# Installs what psins needs from Debian's packages when it is missing: MPICH (compilers,
# mpirun, headers), gfortran for the Fortran test apps and SimGrid (smpirun, to replay the TI
# traces psins-export writes; docs/interop-simgrid.md). Rust comes from rustup.
#   bash scripts/setup.sh [--openmpi] [--slurm] [--plots]
# --openmpi also installs Open MPI, for the tracer's Open MPI tests (scripts/test-openmpi.sh),
# and keeps MPICH the default `mpicc`/`mpirun`: Debian switches them to Open MPI otherwise.
# --slurm installs Slurm and munge, for the job-array sweep test (scripts/slurm-sweep-test.sh);
# --openmpi, CI's full set, includes it.
# --plots installs Chromium, which scripts/plot-check.sh renders the --plot charts with;
# --openmpi includes it too.
set -euo pipefail
openmpi=no
slurm=no
plots=no
for a in "$@"; do
  case $a in
    --openmpi) openmpi=yes slurm=yes plots=yes ;;
    --slurm) slurm=yes ;;
    --plots) plots=yes ;;
    *) echo "setup: unknown option $a (use --openmpi, --slurm, --plots)" >&2; exit 2 ;;
  esac
done
command -v cargo >/dev/null || { echo "setup: cargo not found: install Rust (https://rustup.rs) first" >&2; exit 1; }
need=()
command -v mpicc >/dev/null || need+=(mpich libmpich-dev)
command -v mpifort >/dev/null && mpifort --version >/dev/null 2>&1 || need+=(gfortran)
command -v smpirun >/dev/null || need+=(libsimgrid-dev)
{ [ -e /usr/include/otf2/otf2.h ] && command -v otf2-print >/dev/null; } || need+=(libotf2-trace-dev otf2-tools)
if [ $openmpi = yes ] && ! command -v mpicc.openmpi >/dev/null; then
  need+=(libopenmpi-dev openmpi-bin)
fi
if [ $slurm = yes ] && ! { command -v slurmctld && command -v slurmd && command -v sbatch && command -v munged; } >/dev/null; then
  need+=(slurmctld slurmd slurm-client munge)
fi
if [ $plots = yes ] && ! command -v chromium >/dev/null; then
  need+=(chromium)
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# Pin MPICH as the default before Open MPI arrives (manual mode survives the install) and
# again after (in case both came in this one install).
keep_mpich() {
  if [ $openmpi = yes ] && [ -x /usr/bin/mpicc.mpich ]; then
    $sudo update-alternatives --quiet --set mpi /usr/bin/mpicc.mpich
    $sudo update-alternatives --quiet --set mpirun /usr/bin/mpirun.mpich
  fi
}
keep_mpich
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
keep_mpich
