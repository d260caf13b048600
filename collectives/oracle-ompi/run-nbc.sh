#!/usr/bin/env bash
# Differential check of psins-collectives' libnbc schedules (ompi::expand_nonblocking) against
# Open MPI 4.1.4's own coll/libnbc code.
#
# Compiles Open MPI's nbc_i*.c against nbc/nbc_internal.h (a stand-in for libnbc's internal
# header whose NBC_Sched_* calls print what is scheduled) and include/ (the Open MPI runtime
# stand-ins run.sh uses); nbc/nbc_driver.c builds each rank's schedule of one call and prints
# it. compare.py then compares, case by case, each rank's sends, receives and round ends with
# psins's (`cargo run -p psins-collectives --example oracle_dump -- openmpi-nbc`).
#
# Usage: collectives/oracle-ompi/run-nbc.sh OMPI_SOURCE_DIR [DUMP]
#   OMPI_SOURCE_DIR: an unpacked Open MPI 4.1.4 source tree (tag v4.1.4).
#   DUMP: the Rust side's schedules; without it, a few cases are printed.
# Not part of CI: it needs that source tree, gcc and python3.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ompi=$(cd "${1:?usage: run-nbc.sh OMPI_SOURCE_DIR [DUMP]}" && pwd)
dump=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The sources are compiled from a copy: their own directory's nbc_internal.h would otherwise
# come before the stand-in (a quoted #include looks beside the including file first).
colls=(ibarrier ibcast iallreduce ireduce ialltoall ialltoallv ialltoallw iallgather iallgatherv igather igatherv
       iscatter iscatterv iscan iexscan ireduce_scatter ireduce_scatter_block)
cc() { gcc -O1 -w -I"$here/nbc" -I"$here/include" -I"$ompi" "$@"; }
objs=()
for f in "${colls[@]}"; do
  cp "$ompi/ompi/mca/coll/libnbc/nbc_$f.c" "$work/"
  cc -c "$work/nbc_$f.c" -o "$work/$f.o"
  objs+=("$work/$f.o")
done
cc -c "$here/mock.c" -o "$work/mock.o"
cc -c "$here/nbc/nbc_driver.c" -o "$work/nbc_driver.o"
gcc -o "$work/driver" "${objs[@]}" "$work/mock.o" "$work/nbc_driver.o" -lpthread

if [ -n "$dump" ]; then
  python3 "$here/compare.py" "$work/driver" "$dump"
else
  while read -r args; do
    echo "== $args"
    # shellcheck disable=SC2086
    "$work/driver" $args
  done <<'CASES'
barrier 5 0 0 0 1 1 0
bcast 6 2 100 0 1 1 0
allreduce 5 0 0 4 8 1 0
reduce 3 2 0 2 4 0 0
CASES
fi
