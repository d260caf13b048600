#!/usr/bin/env bash
# Differential check of psins-collectives' Open MPI model against Open MPI 4.1.4's own code.
#
# Compiles Open MPI's coll/tuned fixed decision functions and do_this dispatchers, the
# coll/base algorithms and the coll/basic functions a one-node run uses where tuned provides
# nothing, against include/ (a stand-in for the Open MPI runtime headers) and mock.c (a
# recording mock transport: one thread per rank, buffered sends). The driver runs one call
# per invocation through Open MPI's own selection and prints each rank's sends and receives.
#
# Usage: collectives/oracle-ompi/run.sh OMPI_SOURCE_DIR [DUMP]
#   OMPI_SOURCE_DIR: an unpacked Open MPI 4.1.4 source tree (tag v4.1.4).
#   DUMP: the Rust side's expansion (CASE/ALG/rank lines); compared by compare.py.
#   Without DUMP: builds and prints a few self-test cases.
#   ORACLE_KEEP=DIR keeps the driver binary in DIR.
# Not part of CI: it needs that source tree, gcc and python3.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ompi=$(cd "${1:?usage: run.sh OMPI_SOURCE_DIR [DUMP]}" && pwd)
dump=${2:-}
coll=$ompi/ompi/mca/coll
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

base=(allgather allgatherv allreduce alltoall alltoallv barrier bcast gather reduce reduce_scatter
      reduce_scatter_block scatter scan exscan topo)
basic=(scan exscan gatherv scatterv alltoallw)
tuned=(allgather allgatherv allreduce alltoall alltoallv barrier bcast gather reduce reduce_scatter
       reduce_scatter_block scatter scan exscan)
cc() { gcc -O1 -w -I"$here/include" -I"$ompi" "$@"; }

python3 "$here/../../scripts/ompi-decisions.py" "$ompi" --c-names "$work/names.h"
objs=()
for f in "${base[@]}"; do cc -c "$coll/base/coll_base_$f.c" -o "$work/base_$f.o"; objs+=("$work/base_$f.o"); done
for f in "${basic[@]}"; do cc -c "$coll/basic/coll_basic_$f.c" -o "$work/basic_$f.o"; objs+=("$work/basic_$f.o"); done
for f in "${tuned[@]}"; do
  cc -c "$coll/tuned/coll_tuned_${f}_decision.c" -o "$work/tuned_$f.o"; objs+=("$work/tuned_$f.o")
done
# the fixed decisions call psins_<coll>_do_this (tuned_params.c), which notes the algorithm
# number and calls the real ompi_coll_tuned_<coll>_intra_do_this
renames=()
for f in "${tuned[@]}"; do renames+=("-Dompi_coll_tuned_${f}_intra_do_this=psins_${f}_do_this"); done
cc "${renames[@]}" -c "$coll/tuned/coll_tuned_decision_fixed.c" -o "$work/decision_fixed.o"
cc -c "$here/tuned_params.c" -o "$work/tuned_params.o"
cc -c "$here/mock.c" -o "$work/mock.o"
cc -I"$work" -c "$here/driver.c" -o "$work/driver.o"
gcc -o "$work/driver" "${objs[@]}" "$work/decision_fixed.o" "$work/tuned_params.o" "$work/mock.o" \
  "$work/driver.o" -lpthread
if [ -n "${ORACLE_KEEP:-}" ]; then mkdir -p "$ORACLE_KEEP" && cp "$work/driver" "$ORACLE_KEEP/"; fi

if [ -n "$dump" ]; then
  python3 "$here/compare.py" "$work/driver" "$dump"
else
  while read -r args; do
    echo "== $args"
    # shellcheck disable=SC2086
    timeout 60 "$work/driver" $args
  done <<'CASES'
allreduce 4 0 0 1 8 1 0
bcast 5 0 100 0 1 1 0
barrier 8 0 0 0 1 1 0
alltoall 3 0 64 0 1 1 0
reduce 6 0 0 1000 4 1 0
gatherv 4 1 0 0 1 1 0 10 0 30 40
CASES
fi
