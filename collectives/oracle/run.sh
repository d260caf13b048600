#!/usr/bin/env bash
# Differential check of psins-collectives against MPICH's own algorithm code.
#
# Compiles MPICH's intra-communicator algorithm files (the ones docs/collectives.md cites)
# against mpiimpl.h here, a stand-in whose point-to-point calls go to a recording mock
# transport (mock.c: one thread per rank, buffered sends), runs every case that the
# oracle_dump example prints (for mpich) through the algorithm that psins-collectives selected,
# and compares each rank's sends and receives (peer, bytes, order).
#
# Usage: collectives/oracle/run.sh MPICH_SOURCE_DIR
#   MPICH_SOURCE_DIR: an unpacked MPICH release, e.g. the mpich-4.0.2 directory that
#   `apt-get source mpich` leaves on Debian 12 (needs a deb-src line for bookworm).
# Not part of CI: it needs that source tree, gcc and python3.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
coll=${1:?usage: run.sh MPICH_SOURCE_DIR}/src/mpi/coll
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

files=(
  barrier/barrier_intra_dissemination.c
  bcast/bcast_intra_binomial.c bcast/bcast_utils.c
  bcast/bcast_intra_scatter_recursive_doubling_allgather.c bcast/bcast_intra_scatter_ring_allgather.c
  reduce/reduce_intra_binomial.c reduce/reduce_intra_reduce_scatter_gather.c
  allreduce/allreduce_intra_recursive_doubling.c allreduce/allreduce_intra_reduce_scatter_allgather.c
  gather/gather_intra_binomial.c scatter/scatter_intra_binomial.c
  gatherv/gatherv_allcomm_linear.c scatterv/scatterv_allcomm_linear.c
  allgather/allgather_intra_brucks.c allgather/allgather_intra_recursive_doubling.c allgather/allgather_intra_ring.c
  allgatherv/allgatherv_intra_brucks.c allgatherv/allgatherv_intra_recursive_doubling.c allgatherv/allgatherv_intra_ring.c
  alltoall/alltoall_intra_brucks.c alltoall/alltoall_intra_pairwise.c
  alltoall/alltoall_intra_pairwise_sendrecv_replace.c alltoall/alltoall_intra_scattered.c
  alltoallv/alltoallv_intra_scattered.c alltoallv/alltoallv_intra_pairwise_sendrecv_replace.c
  alltoallw/alltoallw_intra_scattered.c alltoallw/alltoallw_intra_pairwise_sendrecv_replace.c
  reduce_scatter/reduce_scatter_intra_recursive_halving.c reduce_scatter/reduce_scatter_intra_pairwise.c
  reduce_scatter/reduce_scatter_intra_noncommutative.c reduce_scatter/reduce_scatter_intra_recursive_doubling.c
  reduce_scatter_block/reduce_scatter_block_intra_recursive_halving.c
  reduce_scatter_block/reduce_scatter_block_intra_pairwise.c
  reduce_scatter_block/reduce_scatter_block_intra_noncommutative.c
  reduce_scatter_block/reduce_scatter_block_intra_recursive_doubling.c
  scan/scan_intra_recursive_doubling.c exscan/exscan_intra_recursive_doubling.c
)
cc() { gcc -O1 -w -I"$here" -I"$coll/include" -I"$coll/bcast" -c "$@"; }
for f in "${files[@]}"; do
  cc "$coll/$f" -o "$work/$(basename "$f" .c).o"
done
cc "$here/mock.c" -o "$work/mock.o"
cc "$here/driver.c" -o "$work/driver.o"
gcc -o "$work/oracle" "$work"/*.o -lpthread

(cd "$here/../.." && cargo run -q -p psins-collectives --example oracle_dump -- mpich) > "$work/mine.txt"
python3 "$here/compare.py" "$work/oracle" "$work/mine.txt"
