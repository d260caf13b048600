/*
 * rma: one-sided communication with each kind of epoch, on a ring (right = rank + 1,
 * left = rank - 1):
 *   fence        MPI_Win_fence around MPI_Put, MPI_Get, MPI_Accumulate (window from
 *                MPI_Win_create over the app's own buffer);
 *   PSCW         MPI_Win_post to the left neighbour, MPI_Win_start to the right one,
 *                MPI_Put, MPI_Win_complete, then MPI_Win_wait (even rounds) or an
 *                MPI_Win_test loop (odd rounds);
 *   exclusive    every rank locks rank 0 exclusively: MPI_Fetch_and_op on a counter and an
 *                MPI_Put, then MPI_Win_unlock (the counter checks the epochs serialised);
 *   shared       MPI_Win_lock shared on the right neighbour, MPI_Get, MPI_Win_unlock;
 *   lock_all     MPI_Compare_and_swap and MPI_Put with MPI_Win_flush, the request forms
 *                (MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate + MPI_Waitall),
 *                MPI_Get_accumulate with MPI_Win_flush_local, MPI_Win_sync,
 *                MPI_Win_flush_all, MPI_Win_flush_local_all, MPI_Win_unlock_all.
 * Windows of `n` doubles from MPI_Win_allocate and MPI_Win_create, freed at the end.
 *
 * Besides count.h's two lines, every rank prints after MPI_Finalize
 *   PSINS_RMA rank=<r> ops=<operations it issued> bytes=<bytes they move, both ways>
 * (origin count x type size out; the data a get or fetch brings back).
 *
 * usage: rma [doubles per window=1024] [rounds=3]
 */
#include "count.h"

#define W MPI_COMM_WORLD

static int rank, size, left, right, n;
static long rma_ops, rma_bytes;

static void moved(long out, long back)
{
    rma_ops++;
    rma_bytes += out + back;
}

static void fence_epoch(MPI_Win win, double *mine, double *got)
{
    CALL(MPI_Win_fence, (0, win));
    CALL(MPI_Put, (mine, n, MPI_DOUBLE, right, 0, n, MPI_DOUBLE, win));
    moved((long)n * 8, 0);
    CALL(MPI_Win_fence, (0, win));
    CALL(MPI_Get, (got, n / 2, MPI_DOUBLE, left, 0, n / 2, MPI_DOUBLE, win));
    moved(0, (long)(n / 2) * 8);
    CALL(MPI_Accumulate, (mine, n / 4, MPI_DOUBLE, right, n / 2, n / 4, MPI_DOUBLE, MPI_SUM, win));
    moved((long)(n / 4) * 8, 0);
    CALL(MPI_Win_fence, (0, win));
}

static void pscw_epoch(MPI_Win win, double *mine, MPI_Group from_left, MPI_Group to_right, int round)
{
    CALL(MPI_Win_post, (from_left, 0, win));
    CALL(MPI_Win_start, (to_right, 0, win));
    CALL(MPI_Put, (mine, n, MPI_DOUBLE, right, 0, n, MPI_DOUBLE, win));
    moved((long)n * 8, 0);
    CALL(MPI_Win_complete, (win));
    if (round % 2 == 0) {
        CALL(MPI_Win_wait, (win));
    } else {
        int done = 0;
        while (!done) {
            CALL(MPI_Win_test, (win, &done));
            if (!done)
                usleep(50);
        }
    }
}

static void exclusive_epoch(MPI_Win counter_win, MPI_Win win, double *mine)
{
    long one = 1, before = -1;
    CALL(MPI_Win_lock, (MPI_LOCK_EXCLUSIVE, 0, 0, counter_win));
    CALL(MPI_Fetch_and_op, (&one, &before, MPI_LONG, 0, 0, MPI_SUM, counter_win));
    moved(8, 8);
    CALL(MPI_Win_unlock, (0, counter_win));
    psins_check(before >= 0, "fetch_and_op returned the counter");
    CALL(MPI_Win_lock, (MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CALL(MPI_Put, (mine, n / 8, MPI_DOUBLE, 0, rank * (n / 8) % n, n / 8, MPI_DOUBLE, win));
    moved((long)(n / 8) * 8, 0);
    CALL(MPI_Win_unlock, (0, win));
}

static void shared_epoch(MPI_Win win, double *got)
{
    CALL(MPI_Win_lock, (MPI_LOCK_SHARED, right, 0, win));
    CALL(MPI_Get, (got, n, MPI_DOUBLE, right, 0, n, MPI_DOUBLE, win));
    moved(0, (long)n * 8);
    CALL(MPI_Win_unlock, (right, win));
}

static void lock_all_epoch(MPI_Win counter_win, MPI_Win win, double *mine, double *got)
{
    long cmp = 0, swap = rank, old = -1;
    MPI_Request req[4];
    MPI_Status st[4];
    CALL(MPI_Win_lock_all, (0, counter_win));
    CALL(MPI_Compare_and_swap, (&swap, &cmp, &old, MPI_LONG, right, 1, counter_win));
    moved(16, 8);
    CALL(MPI_Win_flush, (right, counter_win));
    CALL(MPI_Win_unlock_all, (counter_win));

    CALL(MPI_Win_lock_all, (0, win));
    CALL(MPI_Put, (mine, n / 2, MPI_DOUBLE, right, 0, n / 2, MPI_DOUBLE, win));
    moved((long)(n / 2) * 8, 0);
    CALL(MPI_Win_flush, (right, win));
    CALL(MPI_Rput, (mine, n / 4, MPI_DOUBLE, left, 0, n / 4, MPI_DOUBLE, win, &req[0]));
    moved((long)(n / 4) * 8, 0);
    CALL(MPI_Rget, (got, n / 4, MPI_DOUBLE, right, 0, n / 4, MPI_DOUBLE, win, &req[1]));
    moved(0, (long)(n / 4) * 8);
    CALL(MPI_Raccumulate, (mine, 16, MPI_DOUBLE, right, 0, 16, MPI_DOUBLE, MPI_SUM, win, &req[2]));
    moved(16 * 8, 0);
    CALL(MPI_Rget_accumulate, (mine, 8, MPI_DOUBLE, got + n / 2, 8, MPI_DOUBLE, left, 0, 8, MPI_DOUBLE,
                               MPI_SUM, win, &req[3]));
    moved(8 * 8, 8 * 8);
    CALL(MPI_Waitall, (4, req, st));
    CALL(MPI_Get_accumulate, (mine, 4, MPI_DOUBLE, got, 4, MPI_DOUBLE, right, 0, 4, MPI_DOUBLE, MPI_SUM, win));
    moved(4 * 8, 4 * 8);
    CALL(MPI_Win_flush_local, (right, win));
    CALL(MPI_Win_sync, (win));
    CALL(MPI_Win_flush_all, (win));
    CALL(MPI_Win_flush_local_all, (win));
    CALL(MPI_Win_unlock_all, (win));
}

int main(int argc, char **argv)
{
    psins_start(&argc, &argv, &rank, &size);
    n = (int)psins_arg(argc, argv, 1, 1024);
    int rounds = (int)psins_arg(argc, argv, 2, 3);
    if (n < 64)
        n = 64;
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;

    double *mine = malloc((size_t)n * sizeof *mine), *got = malloc((size_t)n * sizeof *got);
    double *exposed = malloc((size_t)n * sizeof *exposed);
    psins_check(mine && got && exposed, "allocation");
    for (int i = 0; i < n; i++)
        mine[i] = rank + i * 1e-3;

    MPI_Win win, own, counter_win;
    double *base;
    long *counter;
    CALL(MPI_Win_allocate, ((MPI_Aint)n * sizeof(double), sizeof(double), MPI_INFO_NULL, W, &base, &win));
    CALL(MPI_Win_create, (exposed, (MPI_Aint)n * sizeof(double), sizeof(double), MPI_INFO_NULL, W, &own));
    CALL(MPI_Win_allocate, (2 * sizeof(long), sizeof(long), MPI_INFO_NULL, W, &counter, &counter_win));
    counter[0] = counter[1] = 0;
    CALL(MPI_Barrier, (W));

    MPI_Group world, from_left, to_right;
    CALL(MPI_Comm_group, (W, &world));
    CALL(MPI_Group_incl, (world, 1, &left, &from_left));
    CALL(MPI_Group_incl, (world, 1, &right, &to_right));

    for (int r = 0; r < rounds; r++) {
        fence_epoch(own, mine, got);
        pscw_epoch(win, mine, from_left, to_right, r);
        exclusive_epoch(counter_win, win, mine);
        shared_epoch(win, got);
        lock_all_epoch(counter_win, win, mine, got);
        CALL(MPI_Barrier, (W));
    }
    /* every rank added 1 per round to rank 0's counter */
    if (rank == 0) {
        CALL(MPI_Win_lock, (MPI_LOCK_SHARED, 0, 0, counter_win));
        psins_check(counter[0] == (long)rounds * size, "exclusive epochs added every increment");
        CALL(MPI_Win_unlock, (0, counter_win));
    }
    CALL(MPI_Barrier, (W));

    CALL(MPI_Group_free, (&from_left));
    CALL(MPI_Group_free, (&to_right));
    CALL(MPI_Group_free, (&world));
    CALL(MPI_Win_free, (&counter_win));
    CALL(MPI_Win_free, (&own));
    CALL(MPI_Win_free, (&win));
    free(mine);
    free(got);
    free(exposed);
    psins_finish(rank);
    char line[128];
    int len = snprintf(line, sizeof line, "PSINS_RMA rank=%d ops=%ld bytes=%ld\n", rank, rma_ops, rma_bytes);
    fflush(stdout);
    if (write(STDOUT_FILENO, line, (size_t)len) != len)
        perror("rma: writing the report");
    return 0;
}
