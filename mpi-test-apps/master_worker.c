/*
 * master_worker: rank 0 hands out tasks, workers return results. The master
 * receives with MPI_ANY_SOURCE and MPI_ANY_TAG, alternating between a real
 * status and MPI_STATUS_IGNORE (then the sender and kind come from the
 * payload), so a trace must resolve wildcards from the completion alone.
 * Termination is by tag: an empty TAG_STOP message. Works from 2 ranks up.
 *
 * usage: master_worker [tasks=20]
 */
#include "count.h"

enum { TAG_READY = 1, TAG_RESULT, TAG_WORK, TAG_STOP };

/* What a worker sends; carries its own sender/kind for MPI_STATUS_IGNORE. */
struct report {
    int worker;
    int task;               /* -1 in the first, "ready" message */
    long value;
};

/* Real CPU work with an exact answer: primes below a task-dependent bound. */
static long work(int task)
{
    long count = 0;
    for (int n = 2; n < 2000 + 300 * task; n++) {
        int prime = 1;
        for (int d = 2; d * d <= n && prime; d++)
            prime = n % d != 0;
        count += prime;
    }
    return count;
}

static void receive_report(struct report *r, int use_status)
{
    if (use_status) {
        MPI_Status st;
        CALL(MPI_Recv, (r, sizeof *r, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                        &st));
        psins_received(&st);
        psins_check(st.MPI_SOURCE == r->worker, "status source matches payload");
        psins_check(st.MPI_TAG == (r->task < 0 ? TAG_READY : TAG_RESULT), "status tag");
    } else {
        CALL(MPI_Recv, (r, sizeof *r, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        psins_received_bytes(sizeof *r);
    }
}

/* Answers each report with the next task, or a stop once tasks run out. */
static long master(int size, int ntasks)
{
    long sum = 0;
    int next = 0, active = size - 1;
    for (int k = 0; active > 0; k++) {
        struct report r;
        receive_report(&r, k % 2 == 0);
        if (r.task >= 0)
            sum += r.value;
        if (next < ntasks) {
            CALL(MPI_Send, (&next, 1, MPI_INT, r.worker, TAG_WORK, MPI_COMM_WORLD));
            psins_sent(sizeof next);
            next++;
        } else {
            CALL(MPI_Send, (NULL, 0, MPI_INT, r.worker, TAG_STOP, MPI_COMM_WORLD));
            psins_sent(0);
            active--;
        }
    }
    return sum;
}

static void worker(int rank)
{
    struct report r = {rank, -1, 0};
    int tag = TAG_READY;
    for (;;) {
        CALL(MPI_Send, (&r, sizeof r, MPI_BYTE, 0, tag, MPI_COMM_WORLD));
        psins_sent(sizeof r);
        MPI_Status st;
        int task;
        CALL(MPI_Recv, (&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        psins_received(&st);
        if (st.MPI_TAG == TAG_STOP)
            return;
        r.task = task;
        r.value = work(task);
        tag = TAG_RESULT;
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    int ntasks = (int)psins_arg(argc, argv, 1, 20);
    psins_check(size >= 2, "master_worker needs at least 2 ranks");

    if (rank == 0) {
        long sum = master(size, ntasks), expect = 0;
        for (int t = 0; t < ntasks; t++)
            expect += work(t);
        psins_check(sum == expect, "every task's result arrived once");
        printf("master_worker tasks=%d workers=%d sum=%ld\n", ntasks, size - 1, sum);
    } else {
        worker(rank);
    }
    return psins_finish(rank);
}
