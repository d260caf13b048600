/* scorep_threads: a hybrid MPI + OpenMP program as Score-P records it, for the OTF2 importer's
 * tests (scripts/make-scorep-fixtures.sh, with OMP_NUM_THREADS=2): MPI_Init_thread with
 * MPI_THREAD_FUNNELED; three rounds of an OpenMP parallel loop (each thread its share of a
 * sum) followed, on the master thread, by a ring of MPI_Sendrecv and an MPI_Allreduce of the
 * round's sum; MPI_Finalize. Only the master thread calls MPI. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    double total = 0;
    for (int round = 0; round < 3; round++) {
        double local = 0;
#pragma omp parallel for reduction(+ : local)
        for (int i = 0; i < 2000000; i++)
            local += (double)((i ^ rank) % 7) * 0.5;
        double in = 0, sum = 0;
        MPI_Sendrecv(&local, 1, MPI_DOUBLE, right, round, &in, 1, MPI_DOUBLE, left, round, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Allreduce(&in, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        total += sum;
    }
    if (rank == 0)
        printf("provided %d, total %.1f\n", provided, total);
    MPI_Finalize();
    return 0;
}
