/*
 * stencil2d: Jacobi iteration on a 2-D process grid (MPI_Dims_create, plain
 * MPI_COMM_WORLD ranks in row-major order, non-periodic, so edge ranks have
 * fewer neighbours). Each iteration: halo exchange with Irecv/Isend/Waitall,
 * a local 5-point sweep (the CPU burst between calls), and an 8-byte
 * MPI_Allreduce of the residual.
 *
 * usage: stencil2d [iterations=20] [local n=128]
 */
#include "count.h"

#define TAG 3
enum { NORTH, SOUTH, WEST, EAST, NDIR };

struct grid {
    int n;                  /* interior points per side; arrays are (n+2)^2 */
    double *u, *v;
    int nbr[NDIR];          /* world rank, or -1 at the global boundary */
    double *sendbuf[NDIR], *recvbuf[NDIR];
};

#define AT(g, a, i, j) ((a)[(i) * ((g)->n + 2) + (j)])

static void find_neighbours(struct grid *g, int rank, int size)
{
    int dims[2] = {0, 0};
    CALL(MPI_Dims_create, (size, 2, dims));
    int r = rank / dims[1], c = rank % dims[1];
    g->nbr[NORTH] = r > 0 ? rank - dims[1] : -1;
    g->nbr[SOUTH] = r < dims[0] - 1 ? rank + dims[1] : -1;
    g->nbr[WEST] = c > 0 ? rank - 1 : -1;
    g->nbr[EAST] = c < dims[1] - 1 ? rank + 1 : -1;
}

static void grid_init(struct grid *g, int n, int rank, int size)
{
    g->n = n;
    g->u = calloc((size_t)(n + 2) * (n + 2), sizeof(double));
    g->v = calloc((size_t)(n + 2) * (n + 2), sizeof(double));
    for (int d = 0; d < NDIR; d++) {
        g->sendbuf[d] = malloc(n * sizeof(double));
        g->recvbuf[d] = malloc(n * sizeof(double));
    }
    find_neighbours(g, rank, size);
    /* A hot top edge of the global domain gives the iteration something to do. */
    if (g->nbr[NORTH] < 0)
        for (int j = 0; j < n + 2; j++)
            AT(g, g->u, 0, j) = AT(g, g->v, 0, j) = 1.0;
}

/* Copies the interior edge facing direction d into (or a halo out of) buf. */
static void edge_copy(struct grid *g, int d, double *buf, int to_halo)
{
    int n = g->n;
    for (int k = 0; k < n; k++) {
        int i, j;
        switch (d) {
        case NORTH: i = to_halo ? 0 : 1;         j = k + 1; break;
        case SOUTH: i = to_halo ? n + 1 : n;     j = k + 1; break;
        case WEST:  i = k + 1; j = to_halo ? 0 : 1;         break;
        default:    i = k + 1; j = to_halo ? n + 1 : n;     break;
        }
        if (to_halo)
            AT(g, g->u, i, j) = buf[k];
        else
            buf[k] = AT(g, g->u, i, j);
    }
}

static void halo_exchange(struct grid *g)
{
    MPI_Request reqs[2 * NDIR];
    MPI_Status st[2 * NDIR];
    int nreq = 0, recv_dir[NDIR], nrecv = 0;
    for (int d = 0; d < NDIR; d++) {
        if (g->nbr[d] < 0)
            continue;
        CALL(MPI_Irecv, (g->recvbuf[d], g->n, MPI_DOUBLE, g->nbr[d], TAG, MPI_COMM_WORLD,
                         &reqs[nreq++]));
        recv_dir[nrecv++] = d;
    }
    for (int d = 0; d < NDIR; d++) {
        if (g->nbr[d] < 0)
            continue;
        edge_copy(g, d, g->sendbuf[d], 0);
        CALL(MPI_Isend, (g->sendbuf[d], g->n, MPI_DOUBLE, g->nbr[d], TAG, MPI_COMM_WORLD,
                         &reqs[nreq++]));
        psins_sent((long)g->n * sizeof(double));
    }
    CALL(MPI_Waitall, (nreq, reqs, st));
    for (int k = 0; k < nrecv; k++) {
        psins_received(&st[k]);
        edge_copy(g, recv_dir[k], g->recvbuf[recv_dir[k]], 1);
    }
}

/* One Jacobi sweep; returns the local sum of squared updates. */
static double sweep(struct grid *g)
{
    double res = 0;
    for (int i = 1; i <= g->n; i++)
        for (int j = 1; j <= g->n; j++) {
            double x = 0.25 * (AT(g, g->u, i - 1, j) + AT(g, g->u, i + 1, j) +
                               AT(g, g->u, i, j - 1) + AT(g, g->u, i, j + 1));
            double d = x - AT(g, g->u, i, j);
            res += d * d;
            AT(g, g->v, i, j) = x;
        }
    double *t = g->u;
    g->u = g->v;
    g->v = t;
    return res;
}

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    int iters = (int)psins_arg(argc, argv, 1, 20);
    int n = (int)psins_arg(argc, argv, 2, 128);
    struct grid g;
    grid_init(&g, n, rank, size);

    double global = 0;
    for (int it = 0; it < iters; it++) {
        halo_exchange(&g);
        double local = sweep(&g);
        CALL(MPI_Allreduce, (&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    }
    psins_check(global == global && global >= 0, "residual is a number");
    if (rank == 0)
        printf("stencil2d iterations=%d n=%d residual=%.6e\n", iters, n, global);
    return psins_finish(rank);
}
