/*
 * collectives: every blocking MPI collective, at sizes on both sides of
 * MPICH 4.0.2's algorithm-selection thresholds (see DESIGN.md's table), with
 * roots 0 and last and the MPI_IN_PLACE variants; one user-defined
 * non-commutative op; every MPI-3 nonblocking collective once (completed with
 * MPI_Wait / MPI_Waitall); and MPI_Neighbor_allgather / MPI_Neighbor_alltoall
 * on a periodic 1-D Cartesian communicator. Results are checked so a broken
 * MPI or interposer fails the run instead of producing a plausible trace.
 *
 * About 75 MPI calls per rank. Argument `blocking`: the blocking collectives and the user
 * op only (what a tracer of MPI-2 calls, libdumpi 13, records).
 */
#include "count.h"
#include <string.h>

#define KiB 1024
#define W MPI_COMM_WORLD

static int rank, size, last;
static char *sbuf, *rbuf;        /* scratch, big enough for every call below */
static size_t pool;

/* Byte pattern identified by a seed, so any block can be checked on arrival. */
static void fill(char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (char)(seed * 131 + i * 7);
}

static int same(const char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (char)(seed * 131 + i * 7))
            return 0;
    return 1;
}

/* Reduction inputs: rank r contributes r + i at index i, so sums are exact. */
static void fill_d(double *d, int n)
{
    for (int i = 0; i < n; i++)
        d[i] = rank + i;
}

/* Sum over ranks lo..hi-1 of (r + i). */
static double sum_d(int lo, int hi, int i)
{
    return (double)(hi - lo) * (lo + hi - 1) / 2 + (double)(hi - lo) * i;
}

static void bcast(int bytes, int root)
{
    if (rank == root)
        fill(sbuf, bytes, root);
    else
        memset(sbuf, 0, bytes);
    CALL(MPI_Bcast, (sbuf, bytes, MPI_BYTE, root, W));
    psins_check(same(sbuf, bytes, root), "bcast");
}

static void reduce(int bytes, int root, int in_place)
{
    int n = bytes / sizeof(double);
    double *s = (double *)sbuf, *r = (double *)rbuf;
    fill_d(s, n);
    if (in_place && rank == root) {
        fill_d(r, n);
        CALL(MPI_Reduce, (MPI_IN_PLACE, r, n, MPI_DOUBLE, MPI_SUM, root, W));
    } else {
        CALL(MPI_Reduce, (s, r, n, MPI_DOUBLE, MPI_SUM, root, W));
    }
    if (rank == root)
        psins_check(r[n - 1] == sum_d(0, size, n - 1), "reduce");
}

static void allreduce(int bytes, int in_place)
{
    int n = bytes / sizeof(double);
    double *s = (double *)sbuf, *r = (double *)rbuf;
    if (in_place) {
        fill_d(r, n);
        CALL(MPI_Allreduce, (MPI_IN_PLACE, r, n, MPI_DOUBLE, MPI_SUM, W));
    } else {
        fill_d(s, n);
        CALL(MPI_Allreduce, (s, r, n, MPI_DOUBLE, MPI_SUM, W));
    }
    psins_check(r[0] == sum_d(0, size, 0) && r[n - 1] == sum_d(0, size, n - 1), "allreduce");
}

static void gather(int bytes, int root, int in_place)
{
    const void *s = sbuf;
    fill(sbuf, bytes, rank);
    if (in_place && rank == root) {
        fill(rbuf + (size_t)root * bytes, bytes, root);
        s = MPI_IN_PLACE;
    }
    CALL(MPI_Gather, (s, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, root, W));
    for (int i = 0; rank == root && i < size; i++)
        psins_check(same(rbuf + (size_t)i * bytes, bytes, i), "gather");
}

static void scatter(int bytes, int root, int in_place)
{
    void *r = rbuf;
    for (int i = 0; rank == root && i < size; i++)
        fill(sbuf + (size_t)i * bytes, bytes, i);
    if (in_place && rank == root)
        r = MPI_IN_PLACE;
    CALL(MPI_Scatter, (sbuf, bytes, MPI_BYTE, r, bytes, MPI_BYTE, root, W));
    if (r != MPI_IN_PLACE)
        psins_check(same(rbuf, bytes, rank), "scatter");
}

/* v-variants: rank i's block is (i + 1) * unit bytes. */
static void v_layout(int unit, int *counts, int *displs)
{
    for (int i = 0, d = 0; i < size; i++) {
        counts[i] = (i + 1) * unit;
        displs[i] = d;
        d += counts[i];
    }
}

static void gatherv(int unit, int root)
{
    int counts[size], displs[size];
    v_layout(unit, counts, displs);
    fill(sbuf, counts[rank], rank);
    CALL(MPI_Gatherv, (sbuf, counts[rank], MPI_BYTE, rbuf, counts, displs, MPI_BYTE, root, W));
    for (int i = 0; rank == root && i < size; i++)
        psins_check(same(rbuf + displs[i], counts[i], i), "gatherv");
}

static void scatterv(int unit, int root)
{
    int counts[size], displs[size];
    v_layout(unit, counts, displs);
    for (int i = 0; rank == root && i < size; i++)
        fill(sbuf + displs[i], counts[i], i);
    CALL(MPI_Scatterv, (sbuf, counts, displs, MPI_BYTE, rbuf, counts[rank], MPI_BYTE, root, W));
    psins_check(same(rbuf, counts[rank], rank), "scatterv");
}

static void allgather(int bytes, int in_place)
{
    const void *s = sbuf;
    fill(sbuf, bytes, rank);
    if (in_place) {
        fill(rbuf + (size_t)rank * bytes, bytes, rank);
        s = MPI_IN_PLACE;
    }
    CALL(MPI_Allgather, (s, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, W));
    for (int i = 0; i < size; i++)
        psins_check(same(rbuf + (size_t)i * bytes, bytes, i), "allgather");
}

static void allgatherv(int unit)
{
    int counts[size], displs[size];
    v_layout(unit, counts, displs);
    fill(sbuf, counts[rank], rank);
    CALL(MPI_Allgatherv, (sbuf, counts[rank], MPI_BYTE, rbuf, counts, displs, MPI_BYTE, W));
    for (int i = 0; i < size; i++)
        psins_check(same(rbuf + displs[i], counts[i], i), "allgatherv");
}

/* Block from rank a to rank b carries seed a * size + b. */
static void alltoall(int bytes, int in_place)
{
    char *src = in_place ? rbuf : sbuf;
    for (int j = 0; j < size; j++)
        fill(src + (size_t)j * bytes, bytes, rank * size + j);
    CALL(MPI_Alltoall, (in_place ? MPI_IN_PLACE : sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE,
                        W));
    for (int j = 0; j < size; j++)
        psins_check(same(rbuf + (size_t)j * bytes, bytes, j * size + rank), "alltoall");
}

/* Pair (a, b) exchanges ((a + b) % 3 + 1) * unit bytes each way: uneven, symmetric. */
static void alltoallv(int unit)
{
    int sc[size], sd[size], rc[size], rd[size];
    for (int j = 0, d = 0; j < size; j++) {
        sc[j] = rc[j] = ((rank + j) % 3 + 1) * unit;
        sd[j] = rd[j] = d;
        d += sc[j];
    }
    for (int j = 0; j < size; j++)
        fill(sbuf + sd[j], sc[j], rank * size + j);
    CALL(MPI_Alltoallv, (sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, W));
    for (int j = 0; j < size; j++)
        psins_check(same(rbuf + rd[j], rc[j], j * size + rank), "alltoallv");
}

/* Alltoallw takes byte displacements and a type per peer; ints for all here. */
static void alltoallw(int ints)
{
    int counts[size], displs[size];
    MPI_Datatype types[size];
    for (int j = 0; j < size; j++) {
        counts[j] = ints;
        displs[j] = j * ints * (int)sizeof(int);
        types[j] = MPI_INT;
        for (int i = 0; i < ints; i++)
            ((int *)sbuf)[j * ints + i] = rank * 1000 + j;
    }
    CALL(MPI_Alltoallw, (sbuf, counts, displs, types, rbuf, counts, displs, types, W));
    for (int j = 0; j < size; j++)
        psins_check(((int *)rbuf)[j * ints] == j * 1000 + rank, "alltoallw");
}

/* Rank i gets (i + 1) * unit doubles of the sum, or unit each if even. */
static void reduce_scatter(int unit, int even, int in_place)
{
    int counts[size], total = 0, mine_at = 0;
    for (int i = 0; i < size; i++) {
        counts[i] = even ? unit : (i + 1) * unit;
        if (i < rank)
            mine_at += counts[i];
        total += counts[i];
    }
    double *s = (double *)sbuf, *r = (double *)rbuf;
    if (in_place) {
        fill_d(r, total);
        CALL(MPI_Reduce_scatter, (MPI_IN_PLACE, r, counts, MPI_DOUBLE, MPI_SUM, W));
    } else {
        fill_d(s, total);
        CALL(MPI_Reduce_scatter, (s, r, counts, MPI_DOUBLE, MPI_SUM, W));
    }
    psins_check(r[0] == sum_d(0, size, mine_at), "reduce_scatter");
}

static void reduce_scatter_block(int n, MPI_Op op, double expect_first)
{
    double *s = (double *)sbuf, *r = (double *)rbuf;
    fill_d(s, n * size);
    CALL(MPI_Reduce_scatter_block, (s, r, n, MPI_DOUBLE, op, W));
    psins_check(r[0] == expect_first, "reduce_scatter_block");
}

static void scans(int n)
{
    double *s = (double *)sbuf, *r = (double *)rbuf;
    fill_d(s, n);
    CALL(MPI_Scan, (s, r, n, MPI_DOUBLE, MPI_SUM, W));
    psins_check(r[n - 1] == sum_d(0, rank + 1, n - 1), "scan");
    CALL(MPI_Exscan, (s, r, n, MPI_DOUBLE, MPI_SUM, W));
    psins_check(rank == 0 || r[n - 1] == sum_d(0, rank, n - 1), "exscan");
}

/*
 * "Keep the left operand": associative, not commutative. MPI computes
 * inout = in op inout with `in` from lower ranks, so a correct reduction
 * returns rank 0's values and any reordering shows up.
 */
static void keep_left(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    memcpy(inout, in, *len * sizeof(double));
}

static void user_op(void)
{
    MPI_Op op;
    CALL(MPI_Op_create, (keep_left, 0, &op));
    double in[4], out[4];
    fill_d(in, 4);
    CALL(MPI_Allreduce, (in, out, 4, MPI_DOUBLE, op, W));
    psins_check(out[3] == 3, "non-commutative allreduce keeps rank 0's values");
    /* Block b of rank 0's input starts at value 0 + b * 4. */
    reduce_scatter_block(4, op, (double)rank * 4);
    CALL(MPI_Op_free, (&op));
}

static void blocking(void)
{
    CALL(MPI_Barrier, (W));
    bcast(8, 0);                        /* binomial */
    bcast(16 * KiB, last);              /* scatter + allgather */
    bcast(600 * KiB, 0);                /* past 512 KiB: scatter + ring allgather */
    reduce(64, 0, 0);                   /* binomial */
    reduce(64 * KiB, last, 0);          /* Rabenseifner */
    reduce(64 * KiB, 0, 1);
    allreduce(8, 0);                    /* recursive doubling */
    allreduce(64 * KiB, 0);             /* Rabenseifner */
    allreduce(64 * KiB, 1);
    gather(64, 0, 0);
    gather(16 * KiB, last, 0);
    gather(1 * KiB, 0, 1);
    gatherv(256, last);
    scatter(16 * KiB, last, 0);
    scatter(1 * KiB, 0, 1);
    scatterv(256, 0);
    allgather(40 * KiB / size, 0);      /* totals below 80 KiB, */
    allgather(120 * KiB / size, 0);     /* between 80 and 512 KiB, */
    allgather(640 * KiB / size, 0);     /* and above 512 KiB */
    allgather(4 * KiB, 1);
    allgatherv(512);
    alltoall(64, 0);                    /* Bruck */
    alltoall(8 * KiB, 0);               /* scattered */
    alltoall(64 * KiB, 0);              /* pairwise */
    alltoall(1 * KiB, 1);               /* in place: pairwise sendrecv_replace */
    alltoallv(1 * KiB);
    alltoallw(256);
    reduce_scatter(64, 0, 0);                              /* small total */
    reduce_scatter(640 * KiB / 8 / size, 1, 1);            /* total 640 KiB */
    reduce_scatter_block(128, MPI_SUM, sum_d(0, size, rank * 128));
    scans(16);
    user_op();
}

static void wait1(MPI_Request *req)
{
    CALL(MPI_Wait, (req, MPI_STATUS_IGNORE));
}

/* Each MPI-3 nonblocking collective once, small sizes; results spot-checked. */
static void nonblocking(void)
{
    int n = 64, counts[size], displs[size], wcounts[size], wdispls[size];
    MPI_Datatype types[size];
    double *s = (double *)sbuf, *r = (double *)rbuf;
    double a[4], b[4], c[4];
    MPI_Request req[3];
    MPI_Status st[3];
    for (int i = 0; i < size; i++) {
        counts[i] = n;
        displs[i] = i * n;
        wcounts[i] = n;
        wdispls[i] = i * n * (int)sizeof(double);
        types[i] = MPI_DOUBLE;
    }
    fill_d(s, n * size);
    fill_d(a, 4);
    if (rank == 0)
        fill_d(b, 4);

    /* Three outstanding at once, completed together. */
    CALL(MPI_Ibarrier, (W, &req[0]));
    CALL(MPI_Ibcast, (b, 4, MPI_DOUBLE, 0, W, &req[1]));
    CALL(MPI_Iallreduce, (a, c, 4, MPI_DOUBLE, MPI_SUM, W, &req[2]));
    CALL(MPI_Waitall, (3, req, st));
    psins_check(b[3] == 3 && c[3] == sum_d(0, size, 3), "ibcast / iallreduce");

    CALL(MPI_Ireduce, (s, r, n, MPI_DOUBLE, MPI_SUM, last, W, req));
    wait1(req);
    CALL(MPI_Igather, (s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, 0, W, req));
    wait1(req);
    CALL(MPI_Igatherv, (s, n, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, last, W, req));
    wait1(req);
    CALL(MPI_Iscatter, (s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, 0, W, req));
    wait1(req);
    CALL(MPI_Iscatterv, (s, counts, displs, MPI_DOUBLE, r, n, MPI_DOUBLE, last, W, req));
    wait1(req);
    CALL(MPI_Iallgather, (s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, W, req));
    wait1(req);
    CALL(MPI_Iallgatherv, (s, n, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, W, req));
    wait1(req);
    CALL(MPI_Ialltoall, (s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, W, req));
    wait1(req);
    CALL(MPI_Ialltoallv, (s, counts, displs, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, W, req));
    wait1(req);
    CALL(MPI_Ialltoallw, (s, wcounts, wdispls, types, r, wcounts, wdispls, types, W, req));
    wait1(req);
    psins_check(r[0] == 0 + rank * n, "ialltoallw");      /* rank 0's block for me */
    CALL(MPI_Ireduce_scatter, (s, r, counts, MPI_DOUBLE, MPI_SUM, W, req));
    wait1(req);
    CALL(MPI_Ireduce_scatter_block, (s, r, n, MPI_DOUBLE, MPI_SUM, W, req));
    wait1(req);
    psins_check(r[0] == sum_d(0, size, rank * n), "ireduce_scatter_block");
    CALL(MPI_Iscan, (s, r, n, MPI_DOUBLE, MPI_SUM, W, req));
    wait1(req);
    CALL(MPI_Iexscan, (s, r, n, MPI_DOUBLE, MPI_SUM, W, req));
    wait1(req);
}

/* Neighbourhood collectives on a periodic ring: left is index 0, right is 1. */
static void neighbours(void)
{
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    CALL(MPI_Cart_create, (W, 1, dims, periods, 0, &ring));
    int mine = rank, got[2], out[2] = {rank * 10 + 0, rank * 10 + 1}, in[2];
    CALL(MPI_Neighbor_allgather, (&mine, 1, MPI_INT, got, 1, MPI_INT, ring));
    CALL(MPI_Neighbor_alltoall, (out, 1, MPI_INT, in, 1, MPI_INT, ring));
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    psins_check(got[0] == left && got[1] == right, "neighbor_allgather");
    /* My left neighbour sent me its "right" block, my right one its "left" block. */
    psins_check(in[0] == left * 10 + 1 && in[1] == right * 10 + 0, "neighbor_alltoall");
    CALL(MPI_Comm_free, (&ring));
}

int main(int argc, char **argv)
{
    psins_start(&argc, &argv, &rank, &size);
    last = size - 1;
    pool = 1024 * KiB;
    if ((size_t)64 * KiB * size > pool)
        pool = (size_t)64 * KiB * size;
    pool += 64 * KiB;
    sbuf = malloc(pool);
    rbuf = malloc(pool);

    blocking();
    if (argc < 2 || strcmp(argv[1], "blocking") != 0) {
        nonblocking();
        neighbours();
    }
    if (rank == 0)
        printf("collectives ok at %d ranks\n", size);
    free(sbuf);
    free(rbuf);
    return psins_finish(rank);
}
