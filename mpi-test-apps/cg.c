/*
 * cg: an NPB-CG-like conjugate-gradient skeleton. Ranks form a 2-D grid
 * (MPI_Dims_create) with row and column sub-communicators from MPI_Comm_split.
 * The "sparse mat-vec" needs remote data, fetched with MPI_Sendrecv from the
 * row neighbours (on the row communicator) and from the transpose partner (on
 * MPI_COMM_WORLD). Dot products are reduced in two NPB-style steps (row
 * communicator, then column communicator) or in one on MPI_COMM_WORLD; the
 * final check compares the two.
 *
 * The matrix is a local tridiagonal (4,-1,-1) plus a small coupling to the
 * received values; the point is real arithmetic between the calls, not a
 * meaningful solve.
 *
 * usage: cg [iterations=5] [local vector length=4096]
 */
#include <math.h>
#include "count.h"

#define TAG_ROW 11
#define TAG_TRANSPOSE 12

struct cg {
    int n, h;                   /* local vector length, halo length */
    MPI_Comm row, col;
    int npcols, left, right;    /* row-communicator size and ranks */
    int partner;                /* world rank, or -1 when the rank is its own partner */
    double *x, *r, *p, *q, *halo_row, *halo_tr;
};

static int transpose_partner(int rank, int size, int nprows, int npcols)
{
    int prow = rank / npcols, pcol = rank % npcols;
    /* A non-square grid has no transpose; mirroring is another involution. */
    int partner = nprows == npcols ? pcol * npcols + prow : size - 1 - rank;
    return partner == rank ? -1 : partner;
}

static void setup(struct cg *c, int n, int rank, int size)
{
    int dims[2] = {0, 0};
    CALL(MPI_Dims_create, (size, 2, dims));
    int nprows = dims[0], npcols = dims[1];
    int prow = rank / npcols, pcol = rank % npcols;
    CALL(MPI_Comm_split, (MPI_COMM_WORLD, prow, pcol, &c->row));
    CALL(MPI_Comm_split, (MPI_COMM_WORLD, pcol, prow, &c->col));
    c->npcols = npcols;
    c->left = (pcol + npcols - 1) % npcols;
    c->right = (pcol + 1) % npcols;
    c->partner = transpose_partner(rank, size, nprows, npcols);
    c->n = n;
    c->h = n < 256 ? n : 256;
    c->x = calloc(n, sizeof(double));
    c->r = malloc(n * sizeof(double));
    c->p = malloc(n * sizeof(double));
    c->q = malloc(n * sizeof(double));
    c->halo_row = calloc(c->h, sizeof(double));
    c->halo_tr = calloc(c->h, sizeof(double));
    for (int i = 0; i < n; i++)
        c->r[i] = c->p[i] = 1.0 + 0.001 * ((rank * 7 + i) % 13);
}

static void sendrecv(double *out, double *in, int count, int peer, int tag, MPI_Comm comm)
{
    MPI_Status st;
    CALL(MPI_Sendrecv, (out, count, MPI_DOUBLE, peer, tag, in, count, MPI_DOUBLE, peer, tag,
                        comm, &st));
    psins_sent((long)count * sizeof(double));
    psins_received(&st);
}

/* Sends the tail of p right and receives the left neighbour's tail. */
static void row_exchange(struct cg *c)
{
    if (c->npcols == 1)
        return;                 /* single-column grid: nobody to talk to */
    MPI_Status st;
    CALL(MPI_Sendrecv, (c->p + c->n - c->h, c->h, MPI_DOUBLE, c->right, TAG_ROW,
                        c->halo_row, c->h, MPI_DOUBLE, c->left, TAG_ROW, c->row, &st));
    psins_sent((long)c->h * sizeof(double));
    psins_received(&st);
}

static void matvec(struct cg *c)
{
    row_exchange(c);
    if (c->partner >= 0)
        sendrecv(c->p, c->halo_tr, c->h, c->partner, TAG_TRANSPOSE, MPI_COMM_WORLD);
    int n = c->n;
    for (int i = 0; i < n; i++) {
        double lo = i > 0 ? c->p[i - 1] : 0, hi = i < n - 1 ? c->p[i + 1] : 0;
        c->q[i] = 4 * c->p[i] - lo - hi;
    }
    for (int i = 0; i < c->h; i++) {
        c->q[i] += 0.1 * c->halo_row[i];
        c->q[n - 1 - i] += 0.1 * c->halo_tr[i];
    }
}

static double local_dot(const double *a, const double *b, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

static double dot_world(const double *a, const double *b, int n)
{
    double local = local_dot(a, b, n), global;
    CALL(MPI_Allreduce, (&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    return global;
}

/* NPB reduces across the row first, then across the column. */
static double dot_row_col(struct cg *c, const double *a, const double *b)
{
    double local = local_dot(a, b, c->n), row_sum, global;
    CALL(MPI_Allreduce, (&local, &row_sum, 1, MPI_DOUBLE, MPI_SUM, c->row));
    CALL(MPI_Allreduce, (&row_sum, &global, 1, MPI_DOUBLE, MPI_SUM, c->col));
    return global;
}

static void iterate(struct cg *c, double *rho)
{
    matvec(c);
    double alpha = *rho / dot_row_col(c, c->p, c->q);
    for (int i = 0; i < c->n; i++) {
        c->x[i] += alpha * c->p[i];
        c->r[i] -= alpha * c->q[i];
    }
    double rho_new = dot_world(c->r, c->r, c->n);
    double beta = rho_new / *rho;
    for (int i = 0; i < c->n; i++)
        c->p[i] = c->r[i] + beta * c->p[i];
    *rho = rho_new;
}

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    int iters = (int)psins_arg(argc, argv, 1, 5);
    int n = (int)psins_arg(argc, argv, 2, 4096);
    struct cg c;
    setup(&c, n, rank, size);

    double rho = dot_world(c.r, c.r, n);
    for (int it = 0; it < iters; it++)
        iterate(&c, &rho);

    double a = dot_world(c.x, c.x, n), b = dot_row_col(&c, c.x, c.x);
    psins_check(isfinite(a) && fabs(a - b) <= 1e-9 * fabs(a), "row/col and world dots agree");
    if (rank == 0)
        printf("cg iterations=%d n=%d |x|^2=%.9e |r|^2=%.3e\n", iters, n, a, rho);
    CALL(MPI_Comm_free, (&c.row));
    CALL(MPI_Comm_free, (&c.col));
    return psins_finish(rank);
}
