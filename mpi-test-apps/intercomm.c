/*
 * intercomm: traffic over an intercommunicator, where a point-to-point peer is a
 * rank of the *other* group. World ranks r with r % 3 == 0 form group 0, the
 * rest group 1 in reverse world order (so local ranks differ from world ranks
 * and, from 4 ranks on, the two groups differ in order and layout). Over
 * MPI_Intercomm_create's result: every rank exchanges a message with every
 * remote rank (isend/irecv/waitall; the payload is the sender's world rank and
 * its length depends on it, so a trace that maps a peer to the wrong world
 * rank cannot pair sends with receives), an MPI_ANY_SOURCE receive, barrier,
 * bcast rooted in group 0 (MPI_ROOT / MPI_PROC_NULL), allreduce; then a send
 * on its MPI_Comm_dup, and MPI_Intercomm_merge with an allreduce and a ring.
 *
 * Needs at least 2 ranks. No arguments.
 */
#include "count.h"

#define TAG 100

static int group_of(int world_rank) { return world_rank % 3 == 0 ? 0 : 1; }

/* Every local rank exchanges one message with every remote rank. */
static void all_pairs(MPI_Comm inter, int world_rank)
{
    int lrank, rsize;
    CALL(MPI_Comm_rank, (inter, &lrank));
    CALL(MPI_Comm_remote_size, (inter, &rsize));
    enum { MAXR = 64, MAXLEN = 1024 };
    psins_check(rsize <= MAXR, "at most 64 remote ranks");
    static int out[MAXLEN], in[MAXR][MAXLEN];
    int len = world_rank + 1;
    psins_check(len <= MAXLEN, "world rank below 1024");
    for (int i = 0; i < len; i++)
        out[i] = world_rank;
    MPI_Request rq[2 * MAXR];
    MPI_Status st[2 * MAXR];
    for (int j = 0; j < rsize; j++)
        CALL(MPI_Irecv, (in[j], MAXLEN, MPI_INT, j, TAG + j, inter, &rq[j]));
    for (int j = 0; j < rsize; j++) {
        CALL(MPI_Isend, (out, len, MPI_INT, j, TAG + lrank, inter, &rq[rsize + j]));
        psins_sent(len * (long)sizeof(int));
    }
    CALL(MPI_Waitall, (2 * rsize, rq, st));
    for (int j = 0; j < rsize; j++) {
        int n = 0;
        psins_received(&st[j]);
        CALL(MPI_Get_count, (&st[j], MPI_INT, &n));
        psins_check(st[j].MPI_SOURCE == j, "status names the remote rank");
        psins_check(n == in[j][0] + 1 && group_of(in[j][0]) != group_of(world_rank),
                    "payload from the other group, as long as its sender's rank + 1");
    }
}

/* Group 0's first rank to group 1's first, which receives from MPI_ANY_SOURCE. */
static void wildcard(MPI_Comm inter, int group, int tag)
{
    int lrank, v = 7;
    MPI_Status st;
    CALL(MPI_Comm_rank, (inter, &lrank));
    if (lrank != 0)
        return;
    if (group == 0) {
        CALL(MPI_Send, (&v, 1, MPI_INT, 0, tag, inter));
        psins_sent(sizeof v);
    } else {
        CALL(MPI_Recv, (&v, 1, MPI_INT, MPI_ANY_SOURCE, tag, inter, &st));
        psins_received(&st);
        psins_check(st.MPI_SOURCE == 0 && v == 7, "wildcard receive from remote rank 0");
    }
}

static void collectives(MPI_Comm inter, int group, int world_rank, int size)
{
    int lrank, v = 0, sum = 0, expect = 0;
    CALL(MPI_Comm_rank, (inter, &lrank));
    CALL(MPI_Barrier, (inter));
    if (group == 0)
        v = 42;
    int root = group == 1 ? 0 : (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    CALL(MPI_Bcast, (&v, 1, MPI_INT, root, inter));
    psins_check(v == 42, "bcast from group 0");
    /* on an intercommunicator each group receives the other group's reduction */
    CALL(MPI_Allreduce, (&world_rank, &sum, 1, MPI_INT, MPI_SUM, inter));
    for (int r = 0; r < size; r++)
        if (group_of(r) != group)
            expect += r;
    psins_check(sum == expect, "allreduce sums the other group");
}

static void merged(MPI_Comm inter, int group, int world_rank, int size)
{
    MPI_Comm m;
    int r, n, sum = 0, in = -1;
    MPI_Status st;
    CALL(MPI_Intercomm_merge, (inter, group, &m));
    CALL(MPI_Comm_rank, (m, &r));
    CALL(MPI_Comm_size, (m, &n));
    CALL(MPI_Allreduce, (&world_rank, &sum, 1, MPI_INT, MPI_SUM, m));
    psins_check(n == size && sum == size * (size - 1) / 2, "merge holds every rank");
    CALL(MPI_Sendrecv, (&world_rank, 1, MPI_INT, (r + 1) % n, TAG, &in, 1, MPI_INT, (r + n - 1) % n, TAG,
                        m, &st));
    psins_sent(sizeof world_rank);
    psins_received(&st);
    CALL(MPI_Comm_free, (&m));
}

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    psins_check(size >= 2, "at least 2 ranks");
    int group = group_of(rank);
    MPI_Comm local, inter, dup;
    CALL(MPI_Comm_split, (MPI_COMM_WORLD, group, group == 0 ? rank : -rank, &local));
    /* each group's leader is its local rank 0: world 0, and group 1's highest world rank */
    int leader1 = size - 1;
    while (group_of(leader1) != 1)
        leader1--;
    CALL(MPI_Intercomm_create, (local, 0, MPI_COMM_WORLD, group == 0 ? leader1 : 0, 11, &inter));
    all_pairs(inter, rank);
    wildcard(inter, group, 7);
    collectives(inter, group, rank, size);
    CALL(MPI_Comm_dup, (inter, &dup));
    wildcard(dup, group, 8);
    CALL(MPI_Comm_free, (&dup));
    merged(inter, group, rank, size);
    CALL(MPI_Comm_free, (&inter));
    CALL(MPI_Comm_free, (&local));
    return psins_finish(rank);
}
