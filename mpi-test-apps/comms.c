/*
 * comms: communicator creation and use. MPI_Comm_dup, MPI_Comm_split (with one
 * rank passing MPI_UNDEFINED and getting MPI_COMM_NULL), MPI_Cart_create +
 * MPI_Cart_sub, MPI_Comm_create from a group (MPI_Comm_group/MPI_Group_incl),
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED). Each new communicator carries a
 * ring of MPI_Sendrecv (peers are communicator-local ranks, so the trace must
 * translate them) and a collective, then is freed.
 *
 * No arguments.
 */
#include "count.h"

#define TAG 21

/* Ring shift on comm; with one member the rank talks to itself. */
static void ring(MPI_Comm comm, int world_rank)
{
    int r, n;
    CALL(MPI_Comm_rank, (comm, &r));
    CALL(MPI_Comm_size, (comm, &n));
    int out = world_rank, in = -1;
    MPI_Status st;
    CALL(MPI_Sendrecv, (&out, 1, MPI_INT, (r + 1) % n, TAG, &in, 1, MPI_INT, (r + n - 1) % n,
                        TAG, comm, &st));
    psins_sent(sizeof out);
    psins_received(&st);
    psins_check(in >= 0, "ring payload");
}

/* Sum of world ranks over comm's members, checked against what we expect. */
static void member_sum(MPI_Comm comm, int world_rank, int expect)
{
    int sum;
    CALL(MPI_Allreduce, (&world_rank, &sum, 1, MPI_INT, MPI_SUM, comm));
    psins_check(sum == expect, "member sum");
}

static void dup_world(int rank, int size)
{
    MPI_Comm c;
    CALL(MPI_Comm_dup, (MPI_COMM_WORLD, &c));
    ring(c, rank);
    member_sum(c, rank, size * (size - 1) / 2);
    CALL(MPI_Comm_free, (&c));
}

/* Even/odd halves in reverse key order; the last rank opts out. */
static void split(int rank, int size)
{
    MPI_Comm c;
    int last = size - 1;
    int color = rank == last ? MPI_UNDEFINED : rank % 2;
    CALL(MPI_Comm_split, (MPI_COMM_WORLD, color, -rank, &c));
    if (rank == last) {
        psins_check(c == MPI_COMM_NULL, "MPI_UNDEFINED gives MPI_COMM_NULL");
        return;
    }
    int expect = 0;
    for (int r = rank % 2; r < last; r += 2)
        expect += r;
    ring(c, rank);
    member_sum(c, rank, expect);
    CALL(MPI_Comm_free, (&c));
}

/* 2-D grid, periodic in its first dimension only, then its rows via MPI_Cart_sub. */
static void cart(int rank, int size)
{
    MPI_Comm grid, row;
    int dims[2] = {0, 0}, periods[2] = {1, 0}, keep[2] = {0, 1}, src, dst;
    CALL(MPI_Dims_create, (size, 2, dims));
    CALL(MPI_Cart_create, (MPI_COMM_WORLD, 2, dims, periods, 0, &grid));
    CALL(MPI_Cart_shift, (grid, 0, 1, &src, &dst));
    int out = rank, in = -1;
    MPI_Status st;
    CALL(MPI_Sendrecv, (&out, 1, MPI_INT, dst, TAG, &in, 1, MPI_INT, src, TAG, grid, &st));
    psins_sent(sizeof out);
    psins_received(&st);
    int root_value = rank == 0 ? 42 : 0;
    CALL(MPI_Bcast, (&root_value, 1, MPI_INT, 0, grid));
    psins_check(root_value == 42, "bcast on cart");

    CALL(MPI_Cart_sub, (grid, keep, &row));
    int first = rank - rank % dims[1], expect = 0;
    for (int r = first; r < first + dims[1]; r++)
        expect += r;
    ring(row, rank);
    member_sum(row, rank, expect);
    CALL(MPI_Comm_free, (&row));
    CALL(MPI_Comm_free, (&grid));
}

/* Even world ranks via a group; odd ranks get MPI_COMM_NULL. */
static void create(int rank, int size)
{
    MPI_Group world, evens;
    int n = (size + 1) / 2, members[n], expect = 0;
    for (int i = 0; i < n; i++) {
        members[i] = 2 * i;
        expect += 2 * i;
    }
    CALL(MPI_Comm_group, (MPI_COMM_WORLD, &world));
    CALL(MPI_Group_incl, (world, n, members, &evens));
    MPI_Comm c;
    CALL(MPI_Comm_create, (MPI_COMM_WORLD, evens, &c));
    CALL(MPI_Group_free, (&evens));
    CALL(MPI_Group_free, (&world));
    psins_check((c == MPI_COMM_NULL) == (rank % 2 == 1), "group membership");
    if (c == MPI_COMM_NULL)
        return;
    ring(c, rank);
    member_sum(c, rank, expect);
    CALL(MPI_Comm_free, (&c));
}

/* One node here, so the shared-memory communicator is MPI_COMM_WORLD's twin. */
static void split_type(int rank)
{
    MPI_Comm c;
    CALL(MPI_Comm_split_type, (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &c));
    int n;
    CALL(MPI_Comm_size, (c, &n));
    int *all = malloc(n * sizeof(int));
    CALL(MPI_Allgather, (&rank, 1, MPI_INT, all, 1, MPI_INT, c));
    for (int i = 1; i < n; i++)
        psins_check(all[i - 1] < all[i], "split_type keeps key order");
    free(all);
    ring(c, rank);
    CALL(MPI_Comm_free, (&c));
}

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    dup_world(rank, size);
    split(rank, size);
    cart(rank, size);
    create(rank, size);
    split_type(rank);
    if (rank == 0)
        printf("comms ok at %d ranks\n", size);
    return psins_finish(rank);
}
