/*
 * abort: K iterations of a ring MPI_Sendrecv and an MPI_Allreduce, then rank 0
 * calls MPI_Abort(MPI_COMM_WORLD, 3) while the others wait in MPI_Barrier.
 * Rank 0 prints its counts first, MPI_Abort included (the tracer sees the
 * call before it kills the job), instead of the usual two lines:
 *   PSINS_COUNTS_BEFORE_ABORT rank=0 <MPI_Name>=<n> ...
 *   PSINS_P2P_BEFORE_ABORT rank=0 sent_msgs=<n> ...
 * The other ranks print nothing: they are killed inside MPI_Barrier.
 *
 * usage: abort [K=3]
 */
#include "count.h"

#define TAG 41

static void step(int rank, int size, int it)
{
    int out = rank * 1000 + it, in, total;
    MPI_Status st;
    CALL(MPI_Sendrecv, (&out, 1, MPI_INT, (rank + 1) % size, TAG, &in, 1, MPI_INT,
                        (rank + size - 1) % size, TAG, MPI_COMM_WORLD, &st));
    psins_sent(sizeof out);
    psins_received(&st);
    CALL(MPI_Allreduce, (&in, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    int k = (int)psins_arg(argc, argv, 1, 3);

    for (int it = 0; it < k; it++)
        step(rank, size, it);
    if (rank == 0) {
        /* Counted by hand: the line must be out before the call that never returns. */
        psins_count("MPI_Abort");
        psins_report_as("PSINS_COUNTS_BEFORE_ABORT", "PSINS_P2P_BEFORE_ABORT", rank);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    CALL(MPI_Barrier, (MPI_COMM_WORLD));
    return psins_finish(rank);
}
