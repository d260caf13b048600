/*
 * idup: communicators made by MPI_Comm_idup (and, with MPI 4, MPI_Comm_idup_with_info of the
 * first one), used once their request completed: a send/recv, an allreduce, a bcast.
 *
 * Ranks 0 and 1 exchange on the idup'ed communicator before the blocking MPI_Comm_dup that
 * follows; rank 2 first uses it after that dup. A tracer that met the communicator only at
 * its first use would register the two duplicates of MPI_COMM_WORLD in a different order on
 * rank 2 than on ranks 0 and 1, and consolidation would pair them crosswise.
 *
 * usage: idup [ints=1024]   (3 ranks or more)
 */
#include "count.h"

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    psins_check(size >= 3, "idup needs 3 ranks or more");
    int n = (int)psins_arg(argc, argv, 1, 1024);
    int *buf = calloc((size_t)n, sizeof(int));
    psins_check(buf != NULL, "memory");
    MPI_Comm dup, other;
    MPI_Request req;

    CALL(MPI_Comm_idup, (MPI_COMM_WORLD, &dup, &req));
    CALL(MPI_Wait, (&req, MPI_STATUS_IGNORE));
    if (rank == 0) {
        CALL(MPI_Send, (buf, n, MPI_INT, 1, 7, dup));
        psins_sent((long)n * (long)sizeof(int));
    } else if (rank == 1) {
        MPI_Status st;
        CALL(MPI_Recv, (buf, n, MPI_INT, 0, 7, dup, &st));
        psins_received(&st);
    }
    CALL(MPI_Comm_dup, (MPI_COMM_WORLD, &other));
    int x = rank, sum = 0;
    CALL(MPI_Allreduce, (&x, &sum, 1, MPI_INT, MPI_SUM, dup));
    psins_check(sum == size * (size - 1) / 2, "allreduce on the idup'ed communicator");
    CALL(MPI_Barrier, (other));

#if MPI_VERSION >= 4
    MPI_Comm dup2;
    CALL(MPI_Comm_idup_with_info, (dup, MPI_INFO_NULL, &dup2, &req));
    CALL(MPI_Wait, (&req, MPI_STATUS_IGNORE));
    CALL(MPI_Bcast, (buf, n, MPI_INT, 0, dup2));
    CALL(MPI_Comm_free, (&dup2));
#endif

    CALL(MPI_Comm_free, (&other));
    CALL(MPI_Comm_free, (&dup));
    free(buf);
    return psins_finish(rank);
}
