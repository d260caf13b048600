/*
 * nbc: nonblocking collectives overlapping computation, and the blocking
 * collectives MPICH runs as batches of isend/irecv.
 *
 * Each of ITERS iterations: MPI_Iallreduce of 128 doubles, a stretch of
 * computation, MPI_Wait; then MPI_Ialltoall of 512 doubles per peer and
 * MPI_Ibcast of 1024 doubles in flight together over another stretch of
 * computation, completed by one MPI_Waitall; then MPI_Ibarrier, computation,
 * MPI_Wait. After the loop, one blocking MPI_Alltoall (scattered: MPICH posts
 * its pairs as one batch) and one MPI_Gatherv (the root posts every receive,
 * then waits). Results are checked.
 *
 * Usage: nbc [iterations] (default 20). MPI calls per rank: 6 + 7 per iteration.
 */
#include "count.h"

#define W MPI_COMM_WORLD
#define RED 128
#define A2A 512
#define BC 1024

static int rank, size;

/* About `n` units of work the compiler cannot drop. */
static double compute(long n)
{
    volatile double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

int main(int argc, char **argv)
{
    psins_start(&argc, &argv, &rank, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 20;
    double *a = malloc(RED * sizeof(double)), *c = malloc(RED * sizeof(double));
    double *s = malloc((size_t)size * A2A * sizeof(double)), *r = malloc((size_t)size * A2A * sizeof(double));
    double *b = malloc(BC * sizeof(double));
    MPI_Request req[2];
    MPI_Status st[2];
    double sink = 0;

    for (int p = 0; p < size; p++)
        for (int i = 0; i < A2A; i++)
            s[p * A2A + i] = rank * 1000 + p + i;
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < RED; i++)
            a[i] = rank + i + it;
        CALL(MPI_Iallreduce, (a, c, RED, MPI_DOUBLE, MPI_SUM, W, &req[0]));
        sink += compute(20000);
        CALL(MPI_Wait, (&req[0], &st[0]));
        psins_check(c[5] == (double)size * (5 + it) + (double)size * (size - 1) / 2, "iallreduce");

        for (int i = 0; i < BC; i++)
            b[i] = rank == 0 ? i + it : -1;
        CALL(MPI_Ialltoall, (s, A2A, MPI_DOUBLE, r, A2A, MPI_DOUBLE, W, &req[0]));
        CALL(MPI_Ibcast, (b, BC, MPI_DOUBLE, 0, W, &req[1]));
        sink += compute(20000);
        CALL(MPI_Waitall, (2, req, st));
        psins_check(r[3 * (size - 1) % size * A2A + 7] == (3 * (size - 1) % size) * 1000 + rank + 7, "ialltoall");
        psins_check(b[BC - 1] == BC - 1 + it, "ibcast");

        CALL(MPI_Ibarrier, (W, &req[0]));
        sink += compute(5000);
        CALL(MPI_Wait, (&req[0], &st[0]));
    }

    CALL(MPI_Alltoall, (s, A2A, MPI_DOUBLE, r, A2A, MPI_DOUBLE, W));
    psins_check(r[(size - 1) * A2A] == (size - 1) * 1000 + rank, "alltoall");
    int counts[size], displs[size];
    for (int p = 0; p < size; p++) {
        counts[p] = 16 * (p % 8 + 1); /* at most RED */
        displs[p] = p == 0 ? 0 : displs[p - 1] + counts[p - 1];
    }
    for (int i = 0; i < counts[rank]; i++)
        a[i] = rank;
    CALL(MPI_Gatherv, (a, counts[rank], MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, 0, W));
    if (rank == 0)
        psins_check(r[displs[size - 1]] == size - 1, "gatherv");

    if (sink < 0)
        printf("unreachable %f\n", sink);
    free(a), free(c), free(s), free(r), free(b);
    return psins_finish(rank);
}
