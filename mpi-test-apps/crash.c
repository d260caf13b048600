/*
 * crash: a rank dies mid-run. Every iteration does a ring MPI_Sendrecv and an
 * MPI_Allreduce; at iteration K the last rank (rank 1 at 2 ranks) prints its
 * counts so far and raises SIGSEGV, as a real bug would, leaving the others
 * blocked until mpirun tears the job down. The tracer must leave a readable
 * prefix for every rank.
 *
 * The crashing rank prints, instead of the usual two lines:
 *   PSINS_COUNTS_BEFORE_CRASH rank=<r> <MPI_Name>=<n> ...
 *   PSINS_P2P_BEFORE_CRASH rank=<r> sent_msgs=<n> ...
 * The other ranks print nothing: they are killed inside an MPI call.
 *
 * usage: crash [K=3] [iterations=10]
 */
#include <signal.h>
#include "count.h"

#define TAG 31

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
    int iters = (int)psins_arg(argc, argv, 2, 10);

    for (int it = 0; it < iters; it++) {
        if (it == k && rank == size - 1) {
            psins_report_as("PSINS_COUNTS_BEFORE_CRASH", "PSINS_P2P_BEFORE_CRASH", rank);
            raise(SIGSEGV);
        }
        step(rank, size, it);
    }
    return psins_finish(rank);
}
