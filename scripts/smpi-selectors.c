/*
 * The workload of scripts/smpi-selectors.sh, run live under SMPI (smpicc): one blocking
 * collective on MPI_COMM_WORLD, given by name and size in bytes on the command line, called
 * CALLS times (default 1) after a barrier, each call followed by a barrier (so that calls do
 * not overlap). SMPI's -trace-ti records each call as the TI action psins imports.
 *
 * usage: smpi-selectors COLLECTIVE BYTES [CALLS]
 *   COLLECTIVE: barrier bcast reduce allreduce allgather alltoall gather scatter
 *   BYTES: per rank (per peer for allgather, alltoall, gather and scatter)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 && argc != 4) {
        if (rank == 0)
            fprintf(stderr, "usage: %s COLLECTIVE BYTES [CALLS]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *c = argv[1];
    long n = atol(argv[2]);
    /* A block per rank where the collective moves one per rank (the root's of gather and
       scatter), else one block: SMPI holds every rank's buffers in one process. */
    int blocks = !strcmp(c, "allgather") || !strcmp(c, "alltoall") || !strcmp(c, "gather") || !strcmp(c, "scatter");
    size_t room = (size_t)n * (blocks ? size : 1) + 8;
    char *s = calloc(room, 1), *r = calloc(room, 1);
    int cn = (int)n, calls = argc == 4 ? atoi(argv[3]) : 1;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < calls; k++) {
        if (!strcmp(c, "barrier"))
            MPI_Barrier(MPI_COMM_WORLD);
        else if (!strcmp(c, "bcast"))
            MPI_Bcast(s, cn, MPI_BYTE, 0, MPI_COMM_WORLD);
        else if (!strcmp(c, "reduce"))
            MPI_Reduce(s, r, cn, MPI_BYTE, MPI_BOR, 0, MPI_COMM_WORLD);
        else if (!strcmp(c, "allreduce"))
            MPI_Allreduce(s, r, cn, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
        else if (!strcmp(c, "allgather"))
            MPI_Allgather(s, cn, MPI_BYTE, r, cn, MPI_BYTE, MPI_COMM_WORLD);
        else if (!strcmp(c, "alltoall"))
            MPI_Alltoall(s, cn, MPI_BYTE, r, cn, MPI_BYTE, MPI_COMM_WORLD);
        else if (!strcmp(c, "gather"))
            MPI_Gather(s, cn, MPI_BYTE, r, cn, MPI_BYTE, 0, MPI_COMM_WORLD);
        else if (!strcmp(c, "scatter"))
            MPI_Scatter(s, cn, MPI_BYTE, r, cn, MPI_BYTE, 0, MPI_COMM_WORLD);
        else {
            if (rank == 0)
                fprintf(stderr, "smpi-selectors: unknown collective %s\n", c);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
