/*
 * is: an NPB-IS-like parallel bucket sort. Rank b owns the key range
 * [b*maxkey/size, (b+1)*maxkey/size). Each iteration: generate keys, count
 * them per owner, MPI_Alltoall the counts, MPI_Alltoallv the keys (uneven
 * per-peer sizes), sort locally, verify, and MPI_Allreduce the key total.
 *
 * usage: is [iterations=3] [keys per rank=8192]
 */
#include "count.h"

#define MAXKEY (1 << 16)

struct exchange {
    int *sendcounts, *sdispls, *recvcounts, *rdispls;
    int *fill;              /* scratch for pack() */
};

/* A small LCG keeps runs reproducible without touching libc's rand state. */
static unsigned next_key(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) % MAXKEY;
}

static int owner(int key, int size)
{
    return (int)((long)key * size / MAXKEY);
}

/* First key owned by rank b: the inverse of owner()'s rounding down. */
static int first_key(int b, int size)
{
    return (int)(((long)b * MAXKEY + size - 1) / size);
}

static void generate(int *keys, int n, int rank, int iter)
{
    unsigned state = 12345u + 977u * rank + 31u * iter;
    for (int i = 0; i < n; i++)
        keys[i] = (int)next_key(&state);
}

static void exclusive_sum(const int *counts, int *displs, int size)
{
    displs[0] = 0;
    for (int i = 1; i < size; i++)
        displs[i] = displs[i - 1] + counts[i - 1];
}

/* Groups keys by owning rank, in the order Alltoallv expects. */
static void pack(const int *keys, int n, int *out, struct exchange *x, int size)
{
    memset(x->fill, 0, size * sizeof(int));
    for (int i = 0; i < n; i++) {
        int o = owner(keys[i], size);
        out[x->sdispls[o] + x->fill[o]++] = keys[i];
    }
}

/* Counting sort: the local key range is small and known. */
static void local_sort(int *keys, int n, int lo, int hi)
{
    int *hist = calloc((size_t)(hi - lo), sizeof(int));
    for (int i = 0; i < n; i++)
        hist[keys[i] - lo]++;
    for (int k = lo, m = 0; k < hi; k++)
        for (int c = 0; c < hist[k - lo]; c++)
            keys[m++] = k;
    free(hist);
}

static long sort_once(int *keys, int *sendbuf, int **recvbuf, int n, struct exchange *x,
                      int rank, int size)
{
    for (int i = 0; i < size; i++)
        x->sendcounts[i] = 0;
    for (int i = 0; i < n; i++)
        x->sendcounts[owner(keys[i], size)]++;
    exclusive_sum(x->sendcounts, x->sdispls, size);
    pack(keys, n, sendbuf, x, size);

    CALL(MPI_Alltoall, (x->sendcounts, 1, MPI_INT, x->recvcounts, 1, MPI_INT, MPI_COMM_WORLD));
    exclusive_sum(x->recvcounts, x->rdispls, size);
    int total = x->rdispls[size - 1] + x->recvcounts[size - 1];
    *recvbuf = realloc(*recvbuf, (total ? total : 1) * sizeof(int));
    CALL(MPI_Alltoallv, (sendbuf, x->sendcounts, x->sdispls, MPI_INT, *recvbuf, x->recvcounts,
                         x->rdispls, MPI_INT, MPI_COMM_WORLD));

    int lo = first_key(rank, size), hi = first_key(rank + 1, size);
    for (int i = 0; i < total; i++)
        psins_check((*recvbuf)[i] >= lo && (*recvbuf)[i] < hi, "key in owner's range");
    local_sort(*recvbuf, total, lo, hi);
    for (int i = 1; i < total; i++)
        psins_check((*recvbuf)[i - 1] <= (*recvbuf)[i], "keys sorted");
    return total;
}

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    int iters = (int)psins_arg(argc, argv, 1, 3);
    int n = (int)psins_arg(argc, argv, 2, 8192);
    struct exchange x;
    x.sendcounts = malloc(size * sizeof(int));
    x.sdispls = malloc(size * sizeof(int));
    x.recvcounts = malloc(size * sizeof(int));
    x.rdispls = malloc(size * sizeof(int));
    x.fill = malloc(size * sizeof(int));
    int *keys = malloc(n * sizeof(int)), *sendbuf = malloc(n * sizeof(int)), *recvbuf = NULL;

    for (int it = 0; it < iters; it++) {
        generate(keys, n, rank, it);
        long mine = sort_once(keys, sendbuf, &recvbuf, n, &x, rank, size), all;
        CALL(MPI_Allreduce, (&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        psins_check(all == (long)n * size, "no key lost");
    }
    if (rank == 0)
        printf("is iterations=%d keys_per_rank=%d sorted ok\n", iters, n);
    return psins_finish(rank);
}
