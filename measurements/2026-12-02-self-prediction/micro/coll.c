#include <mpi.h>
#include <stdio.h>
// back-to-back collectives at 2 ranks, as the calibration times them
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, n; MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &n);
  double a[512] = {1}, b[512]; int N = 20000;
  int cnt[2] = {64, 64}, dis[2] = {0, 64};
  for (int i = 0; i < N; i++) MPI_Allreduce(a, b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < N; i++) MPI_Allreduce(a, b, 512, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < N; i++) MPI_Alltoall(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int i = 0; i < N; i++) MPI_Alltoallv(a, cnt, dis, MPI_DOUBLE, b, cnt, dis, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int i = 0; i < N; i++) MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < N; i++) MPI_Bcast(a, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Finalize();
}
