/* scorep_ring: what Score-P records of a small MPI program, for the OTF2 importer's tests
 * (scripts/make-scorep-fixtures.sh): MPI_Init, MPI_Initialized, a ring of MPI_Sendrecv, an
 * MPI_Allreduce, MPI_Comm_split into two halves with an MPI_Barrier on each, MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int flag = 0, rank, size;

    MPI_Init(&argc, &argv);
    MPI_Initialized(&flag);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int right = (rank + 1) % size;
    int left  = (rank - 1 + size) % size;
    int sendval = rank, recvval = -1;
    MPI_Sendrecv(&sendval, 1, MPI_INT, right, 42,
                 &recvval, 1, MPI_INT, left, 42,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    MPI_Comm half;
    int color = rank < size / 2 ? 0 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    MPI_Barrier(half);
    int hrank;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_free(&half);

    printf("rank %d/%d: initialized=%d got %d from %d, sum=%d, half %d rank %d\n",
           rank, size, flag, recvval, left, sum, color, hrank);

    MPI_Finalize();
    return 0;
}
