/*
 * requests: the less common point-to-point and completion calls, each on a
 * ring (send right, receive from left): persistent requests (MPI_Send_init,
 * MPI_Recv_init, MPI_Startall, MPI_Start, MPI_Request_free), MPI_Waitany,
 * MPI_Waitsome, MPI_Testall, MPI_Testsome, an MPI_Test loop, MPI_Probe,
 * MPI_Iprobe, MPI_Mprobe + MPI_Mrecv, MPI_Issend, MPI_Ssend, MPI_Rsend (after a
 * barrier guarantees the receive is posted), MPI_Bsend with
 * MPI_Buffer_attach/detach, MPI_Sendrecv_replace, and MPI_Cancel of a receive
 * nobody matches (+ MPI_Wait + MPI_Test_cancelled).
 *
 * Test/Iprobe loops spin a timing-dependent number of times, so those counts
 * vary run to run; the printed counts are what actually happened.
 *
 * usage: requests [ints per message=1024] [dumpi=0]
 *
 * With dumpi=1 MPI_Mprobe + MPI_Mrecv are left out: libdumpi 13 records no MPI-3
 * call, so their messages would have no receive in its trace.
 * scripts/make-dumpi-fixtures.sh traces it so under libdumpi.
 */
#include "count.h"

#define W MPI_COMM_WORLD
enum { T_PERSIST = 1, T_SOME, T_TESTALL = T_SOME + 3, T_TESTSOME, T_TEST, T_PROBE, T_IPROBE,
       T_MPROBE, T_ISSEND, T_SSEND, T_RSEND, T_BSEND, T_REPLACE, T_NEVER };

static int rank, size, left, right, n;
static int *out, *in;

/*
 * Called between polls. With more ranks than cores the peer may sit
 * descheduled for a whole time slice; without a pause a poll loop makes tens
 * of thousands of calls (and trace records) waiting for it.
 */
static void pause_between_polls(void)
{
    usleep(100);
}

static void isend(int *buf, int count, int tag, MPI_Request *req)
{
    CALL(MPI_Isend, (buf, count, MPI_INT, right, tag, W, req));
    psins_sent((long)count * sizeof(int));
}

static void irecv(int *buf, int count, int tag, MPI_Request *req)
{
    CALL(MPI_Irecv, (buf, count, MPI_INT, left, tag, W, req));
}

static void expect_from_left(const int *buf, int tag)
{
    psins_check(buf[0] == left * 100 + tag, "payload from the left neighbour");
}

static void stamp(int *buf, int tag)
{
    buf[0] = rank * 100 + tag;
}

static void persistent(int rounds)
{
    MPI_Request req[2];
    MPI_Status st[2];
    CALL(MPI_Recv_init, (in, n, MPI_INT, left, T_PERSIST, W, &req[0]));
    CALL(MPI_Send_init, (out, n, MPI_INT, right, T_PERSIST, W, &req[1]));
    stamp(out, T_PERSIST);
    for (int i = 0; i < rounds; i++) {
        CALL(MPI_Startall, (2, req));
        psins_sent((long)n * sizeof(int));
        CALL(MPI_Waitall, (2, req, st));
        psins_received(&st[0]);
        expect_from_left(in, T_PERSIST);
    }
    /* Once more started one by one; Waitany skips the request it already completed. */
    CALL(MPI_Start, (&req[0]));
    CALL(MPI_Start, (&req[1]));
    psins_sent((long)n * sizeof(int));
    for (int k = 0; k < 2; k++) {
        int idx;
        MPI_Status s;
        CALL(MPI_Waitany, (2, req, &idx, &s));
        if (idx == 0)
            psins_received(&s);
    }
    CALL(MPI_Request_free, (&req[0]));
    CALL(MPI_Request_free, (&req[1]));
}

/* Three tagged messages each way, completed in whatever batches arrive. */
static void waitsome(void)
{
    MPI_Request req[6];
    MPI_Status st[6];
    int idx[6], done = 0, chunk = n / 3;
    for (int k = 0; k < 3; k++)
        irecv(in + k * chunk, chunk, T_SOME + k, &req[k]);
    for (int k = 0; k < 3; k++) {
        stamp(out + k * chunk, T_SOME + k);
        isend(out + k * chunk, chunk, T_SOME + k, &req[3 + k]);
    }
    while (done < 6) {
        int outcount;
        CALL(MPI_Waitsome, (6, req, &outcount, idx, st));
        for (int j = 0; j < outcount; j++)
            if (idx[j] < 3)
                psins_received(&st[j]);
        done += outcount;
    }
    for (int k = 0; k < 3; k++)
        expect_from_left(in + k * chunk, T_SOME + k);
}

static void testall(void)
{
    MPI_Request req[2];
    MPI_Status st[2];
    int flag = 0;
    irecv(in, n, T_TESTALL, &req[0]);
    stamp(out, T_TESTALL);
    isend(out, n, T_TESTALL, &req[1]);
    for (;;) {
        CALL(MPI_Testall, (2, req, &flag, st));
        if (flag)
            break;
        pause_between_polls();
    }
    psins_received(&st[0]);
    expect_from_left(in, T_TESTALL);
}

static void testsome(void)
{
    MPI_Request req[2];
    MPI_Status st[2];
    int idx[2], done = 0;
    irecv(in, n, T_TESTSOME, &req[0]);
    stamp(out, T_TESTSOME);
    isend(out, n, T_TESTSOME, &req[1]);
    while (done < 2) {
        int outcount;
        CALL(MPI_Testsome, (2, req, &outcount, idx, st));
        for (int j = 0; j < outcount; j++)
            if (idx[j] == 0)
                psins_received(&st[j]);
        done += outcount;
        if (outcount == 0)
            pause_between_polls();
    }
    expect_from_left(in, T_TESTSOME);
}

static void test_loop(void)
{
    MPI_Request req[2];
    irecv(in, n, T_TEST, &req[0]);
    stamp(out, T_TEST);
    isend(out, n, T_TEST, &req[1]);
    for (int i = 0; i < 2; i++) {
        MPI_Status st;
        int flag = 0;
        for (;;) {
            CALL(MPI_Test, (&req[i], &flag, &st));
            if (flag)
                break;
            pause_between_polls();
        }
        if (i == 0)
            psins_received(&st);
    }
    expect_from_left(in, T_TEST);
}

/* The size is learnt from the probe: rank r sends 8 + r ints. */
static void probe(void)
{
    MPI_Request req;
    MPI_Status st;
    int count;
    stamp(out, T_PROBE);
    isend(out, 8 + rank, T_PROBE, &req);
    CALL(MPI_Probe, (left, T_PROBE, W, &st));
    CALL(MPI_Get_count, (&st, MPI_INT, &count));
    psins_check(count == 8 + left, "probed size");
    CALL(MPI_Recv, (in, count, MPI_INT, left, T_PROBE, W, &st));
    psins_received(&st);
    CALL(MPI_Wait, (&req, MPI_STATUS_IGNORE));
    expect_from_left(in, T_PROBE);
}

/* Wildcard source, resolved from the probe's status. */
static void iprobe(void)
{
    MPI_Request req;
    MPI_Status st;
    int flag = 0;
    stamp(out, T_IPROBE);
    isend(out, n, T_IPROBE, &req);
    for (;;) {
        CALL(MPI_Iprobe, (MPI_ANY_SOURCE, T_IPROBE, W, &flag, &st));
        if (flag)
            break;
        pause_between_polls();
    }
    psins_check(st.MPI_SOURCE == left, "iprobe source");
    CALL(MPI_Recv, (in, n, MPI_INT, st.MPI_SOURCE, T_IPROBE, W, &st));
    psins_received(&st);
    CALL(MPI_Wait, (&req, MPI_STATUS_IGNORE));
    expect_from_left(in, T_IPROBE);
}

static void mprobe(void)
{
    MPI_Request req;
    MPI_Status st;
    MPI_Message msg;
    int count;
    stamp(out, T_MPROBE);
    isend(out, n, T_MPROBE, &req);
    CALL(MPI_Mprobe, (left, T_MPROBE, W, &msg, &st));
    CALL(MPI_Get_count, (&st, MPI_INT, &count));
    CALL(MPI_Mrecv, (in, count, MPI_INT, &msg, &st));
    psins_received(&st);
    CALL(MPI_Wait, (&req, MPI_STATUS_IGNORE));
    expect_from_left(in, T_MPROBE);
}

static void issend(void)
{
    MPI_Request req[2];
    MPI_Status st[2];
    irecv(in, n, T_ISSEND, &req[0]);
    stamp(out, T_ISSEND);
    CALL(MPI_Issend, (out, n, MPI_INT, right, T_ISSEND, W, &req[1]));
    psins_sent((long)n * sizeof(int));
    CALL(MPI_Waitall, (2, req, st));
    psins_received(&st[0]);
    expect_from_left(in, T_ISSEND);
}

static void recv_from_left(int tag)
{
    MPI_Status st;
    CALL(MPI_Recv, (in, n, MPI_INT, left, tag, W, &st));
    psins_received(&st);
    expect_from_left(in, tag);
}

/* Synchronous sends block until matched: odd ranks receive first, so the ring can't deadlock. */
static void ssend(void)
{
    stamp(out, T_SSEND);
    if (rank % 2 == 1)
        recv_from_left(T_SSEND);
    CALL(MPI_Ssend, (out, n, MPI_INT, right, T_SSEND, W));
    psins_sent((long)n * sizeof(int));
    if (rank % 2 == 0)
        recv_from_left(T_SSEND);
}

/* A ready send is only legal once the receive is posted; the barrier proves it. */
static void rsend(void)
{
    MPI_Request req;
    MPI_Status st;
    irecv(in, n, T_RSEND, &req);
    CALL(MPI_Barrier, (W));
    stamp(out, T_RSEND);
    CALL(MPI_Rsend, (out, n, MPI_INT, right, T_RSEND, W));
    psins_sent((long)n * sizeof(int));
    CALL(MPI_Wait, (&req, &st));
    psins_received(&st);
    expect_from_left(in, T_RSEND);
}

static void bsend(void)
{
    int bytes = n * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    void *attached = malloc(bytes), *detached;
    CALL(MPI_Buffer_attach, (attached, bytes));
    stamp(out, T_BSEND);
    CALL(MPI_Bsend, (out, n, MPI_INT, right, T_BSEND, W));
    psins_sent((long)n * sizeof(int));
    recv_from_left(T_BSEND);
    /* Detach waits until the buffered message has left. */
    CALL(MPI_Buffer_detach, (&detached, &bytes));
    free(detached);
}

static void sendrecv_replace(void)
{
    MPI_Status st;
    stamp(in, T_REPLACE);
    CALL(MPI_Sendrecv_replace, (in, n, MPI_INT, right, T_REPLACE, left, T_REPLACE, W, &st));
    psins_sent((long)n * sizeof(int));
    psins_received(&st);
    expect_from_left(in, T_REPLACE);
}

static void cancel(void)
{
    MPI_Request req;
    MPI_Status st;
    int cancelled;
    irecv(in, n, T_NEVER, &req);
    CALL(MPI_Cancel, (&req));
    CALL(MPI_Wait, (&req, &st));
    CALL(MPI_Test_cancelled, (&st, &cancelled));
    psins_check(cancelled, "unmatched receive was cancelled");
}

int main(int argc, char **argv)
{
    psins_start(&argc, &argv, &rank, &size);
    n = (int)psins_arg(argc, argv, 1, 1024);
    int dumpi = (int)psins_arg(argc, argv, 2, 0);
    psins_check(n >= 8 + size, "messages too small for the probe phase");
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    out = calloc(n, sizeof(int));
    in = calloc(n, sizeof(int));

    persistent(3);
    waitsome();
    testall();
    testsome();
    test_loop();
    probe();
    iprobe();
    if (!dumpi)
        mprobe();
    issend();
    ssend();
    rsend();
    bsend();
    sendrecv_replace();
    cancel();
    if (rank == 0)
        printf("requests ok at %d ranks\n", size);
    free(out);
    free(in);
    return psins_finish(rank);
}
