/*
 * groups: communicators built from groups and from Cartesian topologies.
 * MPI_Comm_group of the world, then MPI_Group_incl (even ranks), MPI_Group_excl
 * (the odd ones), MPI_Group_union (evens then odds: every rank in a new order),
 * MPI_Group_difference, MPI_Group_range_incl (the evens again, as a range) and
 * MPI_Group_translate_ranks; MPI_Comm_create from the range (odd ranks get
 * MPI_COMM_NULL) and from the union. Then MPI_Cart_create of a 2-D grid
 * (MPI_Dims_create) and its rows by MPI_Cart_sub, a 1-D line of all ranks
 * but the last (which gets MPI_COMM_NULL), and MPI_Graph_create of a ring of
 * the same ranks (the last again MPI_COMM_NULL). On each new communicator a
 * ring of MPI_Sendrecv between its ranks (checked) and, but on the line, an
 * MPI_Allreduce of world ranks (checked); each is freed.
 *
 * No arguments; 2 ranks or more.
 */
#include "count.h"

#define TAG 5

/* Ring shift of comm-local ranks: each receives its left neighbour's rank. */
static void ring(MPI_Comm comm)
{
    int r, n, in = -1;
    MPI_Status st;
    CALL(MPI_Comm_rank, (comm, &r));
    CALL(MPI_Comm_size, (comm, &n));
    CALL(MPI_Sendrecv, (&r, 1, MPI_INT, (r + 1) % n, TAG, &in, 1, MPI_INT, (r + n - 1) % n, TAG,
                        comm, &st));
    psins_sent(sizeof r);
    psins_received(&st);
    psins_check(in == (r + n - 1) % n, "ring payload");
}

static void member_sum(MPI_Comm comm, int world_rank, int expect)
{
    int sum;
    CALL(MPI_Allreduce, (&world_rank, &sum, 1, MPI_INT, MPI_SUM, comm));
    psins_check(sum == expect, "member sum");
}

static void groups(int rank, int size)
{
    MPI_Group world, evens, odds, all, rest, firsts;
    int n = (size + 1) / 2, members[n], evens_sum = 0;
    for (int i = 0; i < n; i++) {
        members[i] = 2 * i;
        evens_sum += 2 * i;
    }
    int range[1][3] = {{0, size - 1, 2}}, zero = 0, zero_in_world = -1;
    CALL(MPI_Comm_group, (MPI_COMM_WORLD, &world));
    CALL(MPI_Group_incl, (world, n, members, &evens));
    CALL(MPI_Group_excl, (world, n, members, &odds));
    CALL(MPI_Group_union, (evens, odds, &all));
    CALL(MPI_Group_difference, (all, evens, &rest));
    CALL(MPI_Group_range_incl, (world, 1, range, &firsts));
    CALL(MPI_Group_translate_ranks, (firsts, 1, &zero, world, &zero_in_world));
    psins_check(zero_in_world == 0, "translate_ranks");

    MPI_Comm c;
    CALL(MPI_Comm_create, (MPI_COMM_WORLD, firsts, &c));
    psins_check((c == MPI_COMM_NULL) == (rank % 2 == 1), "range membership");
    if (c != MPI_COMM_NULL) {
        ring(c);
        member_sum(c, rank, evens_sum);
        CALL(MPI_Comm_free, (&c));
    }
    CALL(MPI_Comm_create, (MPI_COMM_WORLD, all, &c));
    ring(c);
    member_sum(c, rank, size * (size - 1) / 2);
    CALL(MPI_Comm_free, (&c));

    MPI_Group *made[] = {&world, &evens, &odds, &all, &rest, &firsts};
    for (int i = 0; i < 6; i++)
        CALL(MPI_Group_free, (made[i]));
}

static void cart(int rank, int size)
{
    MPI_Comm grid, row, line;
    int dims[2] = {0, 0}, periods[2] = {1, 0}, keep[2] = {0, 1};
    CALL(MPI_Dims_create, (size, 2, dims));
    CALL(MPI_Cart_create, (MPI_COMM_WORLD, 2, dims, periods, 0, &grid));
    ring(grid);
    member_sum(grid, rank, size * (size - 1) / 2);
    CALL(MPI_Cart_sub, (grid, keep, &row));
    int first = rank - rank % dims[1], row_sum = 0;
    for (int r = first; r < first + dims[1]; r++)
        row_sum += r;
    ring(row);
    member_sum(row, rank, row_sum);
    CALL(MPI_Comm_free, (&row));
    CALL(MPI_Comm_free, (&grid));

    int less = size - 1, period = 0;
    CALL(MPI_Cart_create, (MPI_COMM_WORLD, 1, &less, &period, 0, &line));
    psins_check((line == MPI_COMM_NULL) == (rank == size - 1), "line membership");
    if (line != MPI_COMM_NULL) {
        ring(line);
        CALL(MPI_Comm_free, (&line));
    }
}

static void graph(int rank, int size)
{
    int nodes = size - 1, *index = malloc(nodes * sizeof *index), *edges = malloc(2 * nodes * sizeof *edges);
    for (int i = 0; i < nodes; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + nodes - 1) % nodes;
        edges[2 * i + 1] = (i + 1) % nodes;
    }
    MPI_Comm ring_graph;
    CALL(MPI_Graph_create, (MPI_COMM_WORLD, nodes, index, edges, 0, &ring_graph));
    psins_check((ring_graph == MPI_COMM_NULL) == (rank == size - 1), "graph membership");
    if (ring_graph != MPI_COMM_NULL) {
        ring(ring_graph);
        member_sum(ring_graph, rank, nodes * (nodes - 1) / 2);
        CALL(MPI_Comm_free, (&ring_graph));
    }
    free(index);
    free(edges);
}

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    groups(rank, size);
    cart(rank, size);
    graph(rank, size);
    if (rank == 0)
        printf("groups ok at %d ranks\n", size);
    return psins_finish(rank);
}
