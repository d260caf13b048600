/*
 * ring: every rank MPI_Isend's to its right neighbour and MPI_Irecv's from its
 * left one, then completes both with one MPI_Waitall: the simplest nonblocking
 * pattern, with request ids that must be matched to their completions.
 *
 * usage: ring [iterations=10] [ints per message=256]
 */
#include "count.h"

#define TAG 7

static void fill(int *buf, int n, int rank, int iter)
{
    for (int i = 0; i < n; i++)
        buf[i] = rank * 1000 + iter + i;
}

static void exchange(int *out, int *in, int n, int left, int right)
{
    MPI_Request reqs[2];
    MPI_Status st[2];
    CALL(MPI_Irecv, (in, n, MPI_INT, left, TAG, MPI_COMM_WORLD, &reqs[0]));
    CALL(MPI_Isend, (out, n, MPI_INT, right, TAG, MPI_COMM_WORLD, &reqs[1]));
    psins_sent((long)n * sizeof(int));
    CALL(MPI_Waitall, (2, reqs, st));
    psins_received(&st[0]);
}

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    int iters = (int)psins_arg(argc, argv, 1, 10);
    int n = (int)psins_arg(argc, argv, 2, 256);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int *out = malloc(n * sizeof(int)), *in = malloc(n * sizeof(int));

    for (int it = 0; it < iters; it++) {
        fill(out, n, rank, it);
        exchange(out, in, n, left, right);
        psins_check(n == 0 || in[n - 1] == left * 1000 + it + n - 1, "ring payload");
    }
    free(out);
    free(in);
    return psins_finish(rank);
}
