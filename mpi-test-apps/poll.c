/*
 * poll: a poller spinning on MPI_Test* / MPI_Iprobe / MPI_Improbe with a little work between
 * the calls, as codes that overlap communication with computation do (the traces of such
 * codes are mostly unsuccessful tests: the tracer folds each run into one `poll` record).
 *
 * Ranks pair up: even rank r sends to r+1, which polls (an odd last rank only finalizes).
 * Message k is polled for with poll kind k % 6: MPI_Test, MPI_Testall, MPI_Testany,
 * MPI_Testsome on an MPI_Irecv, MPI_Iprobe then MPI_Recv, MPI_Improbe then MPI_Mrecv. So
 * that every message sees many unsuccessful polls however fast the machine is, the sender
 * sends message k only after the poller's "go" (a 0-byte MPI_Send made after `min_polls`
 * unsuccessful polls; the sender waits for it in MPI_Recv).
 *
 * usage: poll [messages=12] [min_polls=20000] [ints per message=64]
 */
#include "count.h"

#define GO 1
#define DATA 2

static volatile double sink;

/* The "little work" between two polls. */
static void work(void)
{
    double x = sink;
    for (int i = 0; i < 16; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* One unsuccessful-until-complete poll of message `k`; returns 1 when it completed. */
static int poll_once(int kind, MPI_Request *req, int src, MPI_Comm comm, MPI_Status *st, int *buf, int n)
{
    int flag = 0, idx = MPI_UNDEFINED, outcount = 0, indices[1];
    MPI_Message msg;
    switch (kind) {
    case 0:
        CALL(MPI_Test, (req, &flag, st));
        break;
    case 1:
        CALL(MPI_Testall, (1, req, &flag, st));
        break;
    case 2:
        CALL(MPI_Testany, (1, req, &idx, &flag, st));
        break;
    case 3:
        CALL(MPI_Testsome, (1, req, &outcount, indices, st));
        flag = outcount == 1;
        break;
    case 4:
        CALL(MPI_Iprobe, (src, DATA, comm, &flag, st));
        if (flag)
            CALL(MPI_Recv, (buf, n, MPI_INT, src, DATA, comm, st));
        break;
    default:
        CALL(MPI_Improbe, (src, DATA, comm, &flag, &msg, st));
        if (flag)
            CALL(MPI_Mrecv, (buf, n, MPI_INT, &msg, st));
        break;
    }
    return flag;
}

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    int msgs = (int)psins_arg(argc, argv, 1, 12);
    long min_polls = psins_arg(argc, argv, 2, 20000);
    int n = (int)psins_arg(argc, argv, 3, 64);
    int *buf = calloc(n, sizeof(int));
    long polls = 0;

    if (rank % 2 == 0 && rank + 1 < size) {
        for (int k = 0; k < msgs; k++) {
            MPI_Status st;
            CALL(MPI_Recv, (NULL, 0, MPI_BYTE, rank + 1, GO, MPI_COMM_WORLD, &st));
            psins_received(&st);
            for (int i = 0; i < n; i++)
                buf[i] = k * 1000 + i;
            CALL(MPI_Send, (buf, n, MPI_INT, rank + 1, DATA, MPI_COMM_WORLD));
            psins_sent((long)n * sizeof(int));
        }
    } else if (rank % 2 == 1) {
        for (int k = 0; k < msgs; k++) {
            int kind = k % 6;
            MPI_Request req = MPI_REQUEST_NULL;
            MPI_Status st;
            if (kind < 4)
                CALL(MPI_Irecv, (buf, n, MPI_INT, rank - 1, DATA, MPI_COMM_WORLD, &req));
            for (long p = 0;; p++) {
                if (poll_once(kind, &req, rank - 1, MPI_COMM_WORLD, &st, buf, n))
                    break;
                polls++;
                if (p + 1 == min_polls) {
                    CALL(MPI_Send, (NULL, 0, MPI_BYTE, rank - 1, GO, MPI_COMM_WORLD));
                    psins_sent(0);
                }
                work();
            }
            psins_received(&st);
            psins_check(buf[n - 1] == k * 1000 + n - 1, "poll payload");
        }
    }
    free(buf);
    if (rank == 1)
        printf("poll: %d messages, %ld unsuccessful polls on rank 1\n", msgs, polls);
    return psins_finish(rank);
}
