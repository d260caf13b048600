#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
// ev2 S W: exchange (Irecv, Isend, Waitall) of S bytes and an 8-byte allreduce, N times, with
// W KiB of the rank's own data written before each exchange (a compute sweep's footprint).
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r; MPI_Comm_rank(MPI_COMM_WORLD, &r); int p = 1 - r;
  int s = atoi(argv[1]); size_t w = (size_t)atoi(argv[2]) << 10; int N = 10000;
  char *sb = malloc(1 << 16), *rb = malloc(1 << 16); memset(sb, 1, 1 << 16); memset(rb, 1, 1 << 16);
  char *work = malloc(w + 64); memset(work, 1, w + 64);
  for (int i = 0; i < N; i++) {
    if (w) memset(work, i, w);
    MPI_Request q[2];
    MPI_Irecv(rb, s, MPI_BYTE, p, 0, MPI_COMM_WORLD, &q[0]);
    MPI_Isend(sb, s, MPI_BYTE, p, 0, MPI_COMM_WORLD, &q[1]);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    double x = 1; MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
}
