/*
 * halo: every rank exchanges a message of the same size with both ring neighbours at once
 * (two MPI_Irecv's, two MPI_Isend's, one MPI_Waitall), the halo of a 1-D decomposition. On 2
 * ranks both neighbours are the other rank: two messages cross in each direction at once,
 * four copies through one node's memory (docs/models.md, *A node's memory*).
 *
 * usage: halo [iterations=10] [bytes per message=262144]
 */
#include "count.h"

static void exchange(char *out, char *in, int n, int left, int right)
{
    MPI_Request reqs[4];
    MPI_Status st[4];
    CALL(MPI_Irecv, (in, n, MPI_BYTE, left, 1, MPI_COMM_WORLD, &reqs[0]));
    CALL(MPI_Irecv, (in + n, n, MPI_BYTE, right, 2, MPI_COMM_WORLD, &reqs[1]));
    CALL(MPI_Isend, (out, n, MPI_BYTE, right, 1, MPI_COMM_WORLD, &reqs[2]));
    psins_sent(n);
    CALL(MPI_Isend, (out + n, n, MPI_BYTE, left, 2, MPI_COMM_WORLD, &reqs[3]));
    psins_sent(n);
    CALL(MPI_Waitall, (4, reqs, st));
    psins_received(&st[0]);
    psins_received(&st[1]);
}

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    int iters = (int)psins_arg(argc, argv, 1, 10);
    int n = (int)psins_arg(argc, argv, 2, 262144);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    char *out = malloc(2 * (size_t)n + 1), *in = malloc(2 * (size_t)n + 1);

    for (int it = 0; it < iters; it++) {
        memset(out, (rank + it) & 0x7f, 2 * (size_t)n);
        exchange(out, in, n, left, right);
        psins_check(n == 0 || (in[0] == ((left + it) & 0x7f) && in[2 * (size_t)n - 1] == ((right + it) & 0x7f)),
                    "halo payload");
    }
    free(out);
    free(in);
    return psins_finish(rank);
}
