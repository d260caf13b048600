/*
 * stencil3d: Jacobi iteration on a 3-D process grid (MPI_Dims_create, plain
 * MPI_COMM_WORLD ranks in row-major order, non-periodic). Each iteration:
 * up to six face exchanges with Irecv/Isend/Waitall, a 7-point sweep over the
 * local block (the CPU burst), and an MPI_Allreduce of the residual.
 *
 * usage: stencil3d [iterations=10] [local n=24]
 */
#include "count.h"

#define TAG 4
#define NFACE 6             /* face f: dimension f/2, low side if f is even */

struct block {
    int n, e;               /* interior points per side; e = n + 2 with halo */
    double *u, *v;
    int nbr[NFACE];         /* world rank, or -1 at the global boundary */
    double *sendbuf[NFACE], *recvbuf[NFACE];
};

static size_t idx(const struct block *b, int i, int j, int k)
{
    return ((size_t)i * b->e + j) * b->e + k;
}

static void find_neighbours(struct block *b, int rank, int size)
{
    int dims[3] = {0, 0, 0}, coord[3];
    CALL(MPI_Dims_create, (size, 3, dims));
    int stride[3] = {dims[1] * dims[2], dims[2], 1};
    for (int d = 0; d < 3; d++)
        coord[d] = rank / stride[d] % dims[d];
    for (int d = 0; d < 3; d++) {
        b->nbr[2 * d] = coord[d] > 0 ? rank - stride[d] : -1;
        b->nbr[2 * d + 1] = coord[d] < dims[d] - 1 ? rank + stride[d] : -1;
    }
}

static void block_init(struct block *b, int n, int rank, int size)
{
    b->n = n;
    b->e = n + 2;
    size_t cells = (size_t)b->e * b->e * b->e;
    b->u = calloc(cells, sizeof(double));
    b->v = calloc(cells, sizeof(double));
    for (int f = 0; f < NFACE; f++) {
        b->sendbuf[f] = malloc((size_t)n * n * sizeof(double));
        b->recvbuf[f] = malloc((size_t)n * n * sizeof(double));
    }
    find_neighbours(b, rank, size);
    /* Global low-x face held at 1 so the sweep does real work. */
    if (b->nbr[0] < 0)
        for (int j = 0; j < b->e; j++)
            for (int k = 0; k < b->e; k++)
                b->u[idx(b, 0, j, k)] = b->v[idx(b, 0, j, k)] = 1.0;
}

/* Copies face f of the interior into buf, or buf into face f's halo plane. */
static void face_copy(struct block *b, int f, double *buf, int to_halo)
{
    int dim = f / 2, low = f % 2 == 0;
    int plane = to_halo ? (low ? 0 : b->n + 1) : (low ? 1 : b->n);
    int c[3], m = 0;
    for (int p = 1; p <= b->n; p++)
        for (int q = 1; q <= b->n; q++) {
            c[dim] = plane;
            c[(dim + 1) % 3] = p;
            c[(dim + 2) % 3] = q;
            double *cell = &b->u[idx(b, c[0], c[1], c[2])];
            if (to_halo)
                *cell = buf[m++];
            else
                buf[m++] = *cell;
        }
}

static void halo_exchange(struct block *b)
{
    MPI_Request reqs[2 * NFACE];
    MPI_Status st[2 * NFACE];
    int count = b->n * b->n, nreq = 0, recv_face[NFACE], nrecv = 0;
    for (int f = 0; f < NFACE; f++) {
        if (b->nbr[f] < 0)
            continue;
        CALL(MPI_Irecv, (b->recvbuf[f], count, MPI_DOUBLE, b->nbr[f], TAG, MPI_COMM_WORLD,
                         &reqs[nreq++]));
        recv_face[nrecv++] = f;
    }
    for (int f = 0; f < NFACE; f++) {
        if (b->nbr[f] < 0)
            continue;
        face_copy(b, f, b->sendbuf[f], 0);
        CALL(MPI_Isend, (b->sendbuf[f], count, MPI_DOUBLE, b->nbr[f], TAG, MPI_COMM_WORLD,
                         &reqs[nreq++]));
        psins_sent((long)count * sizeof(double));
    }
    CALL(MPI_Waitall, (nreq, reqs, st));
    for (int k = 0; k < nrecv; k++) {
        psins_received(&st[k]);
        face_copy(b, recv_face[k], b->recvbuf[recv_face[k]], 1);
    }
}

static double sweep(struct block *b)
{
    double res = 0;
    size_t sj = b->e, si = (size_t)b->e * b->e;
    for (int i = 1; i <= b->n; i++)
        for (int j = 1; j <= b->n; j++)
            for (int k = 1; k <= b->n; k++) {
                size_t c = idx(b, i, j, k);
                double x = (b->u[c - si] + b->u[c + si] + b->u[c - sj] + b->u[c + sj] +
                            b->u[c - 1] + b->u[c + 1]) / 6.0;
                double d = x - b->u[c];
                res += d * d;
                b->v[c] = x;
            }
    double *t = b->u;
    b->u = b->v;
    b->v = t;
    return res;
}

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    int iters = (int)psins_arg(argc, argv, 1, 10);
    int n = (int)psins_arg(argc, argv, 2, 24);
    struct block b;
    block_init(&b, n, rank, size);

    double global = 0;
    for (int it = 0; it < iters; it++) {
        halo_exchange(&b);
        double local = sweep(&b);
        CALL(MPI_Allreduce, (&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    }
    psins_check(global == global && global >= 0, "residual is a number");
    if (rank == 0)
        printf("stencil3d iterations=%d n=%d residual=%.6e\n", iters, n, global);
    return psins_finish(rank);
}
