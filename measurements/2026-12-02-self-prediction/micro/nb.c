#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
// ping-pong round trips: blocking Send/Recv against Irecv+Isend+Waitall (as stencil codes post),
// and the cost of MPI_Irecv posting and of MPI_Wait on a completed request.
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r; MPI_Comm_rank(MPI_COMM_WORLD, &r); int p = 1 - r;
  int N = 20000; int sizes[] = {8, 1024, 4096};
  char *sb = calloc(1, 1 << 20), *rb = calloc(1, 1 << 20);
  for (int si = 0; si < 3; si++) {
    int s = sizes[si];
    for (int rep = 0; rep < 3; rep++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int i = 0; i < N; i++) {
        if (r == 0) { MPI_Send(sb, s, MPI_BYTE, p, 0, MPI_COMM_WORLD); MPI_Recv(rb, s, MPI_BYTE, p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
        else { MPI_Recv(rb, s, MPI_BYTE, p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); MPI_Send(sb, s, MPI_BYTE, p, 0, MPI_COMM_WORLD); }
      }
      double tb = (MPI_Wtime() - t0) / N / 2;
      MPI_Barrier(MPI_COMM_WORLD);
      // exchange, both at once, blocking: Sendrecv
      t0 = MPI_Wtime();
      for (int i = 0; i < N; i++) MPI_Sendrecv(sb, s, MPI_BYTE, p, 0, rb, s, MPI_BYTE, p, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double tsr = (MPI_Wtime() - t0) / N;
      MPI_Barrier(MPI_COMM_WORLD);
      // exchange nonblocking: Irecv, Isend, Waitall
      double tpost = 0, twait = 0;
      t0 = MPI_Wtime();
      for (int i = 0; i < N; i++) {
        MPI_Request q[2];
        double a = MPI_Wtime();
        MPI_Irecv(rb, s, MPI_BYTE, p, 0, MPI_COMM_WORLD, &q[0]);
        double b = MPI_Wtime();
        MPI_Isend(sb, s, MPI_BYTE, p, 0, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        tpost += b - a;
      }
      double tnb = (MPI_Wtime() - t0) / N;
      // wait on completed requests: Irecv a message already arrived (probe first), then Wait
      MPI_Barrier(MPI_COMM_WORLD);
      double tw = 0; int M = 2000;
      for (int i = 0; i < M; i++) {
        MPI_Request q;
        if (r == 0) { MPI_Send(sb, s, MPI_BYTE, p, 1, MPI_COMM_WORLD); MPI_Recv(rb, 0, MPI_BYTE, p, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
        else { MPI_Status st; MPI_Probe(p, 1, MPI_COMM_WORLD, &st); MPI_Irecv(rb, s, MPI_BYTE, p, 1, MPI_COMM_WORLD, &q); int f = 0; while (!f) MPI_Test(&q, &f, MPI_STATUS_IGNORE); MPI_Send(sb, 0, MPI_BYTE, p, 2, MPI_COMM_WORLD); }
      }
      if (r == 1 || 1) {
        double v[2] = {tpost / N, 0};
        if (r == 0) printf("size %5d: pingpong half RTT %.3f us; sendrecv exchange %.3f us; irecv+isend+waitall exchange %.3f us; irecv post %.3f us\n", s, tb * 1e6, tsr * 1e6, tnb * 1e6, v[0] * 1e6);
      }
    }
  }
  MPI_Finalize();
}
