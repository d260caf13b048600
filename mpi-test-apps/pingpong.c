/*
 * pingpong: blocking MPI_Send/MPI_Recv between ranks 0 and 1 at sizes from
 * 0 B (pure latency) to 4 MiB (well past the eager/rendezvous switch).
 * Other ranks only init and finalize, so traces also hold near-empty ranks.
 *
 * usage: pingpong [reps=3]
 */
#include "count.h"

static const int sizes[] = {0, 8, 1024, 64 * 1024, 1024 * 1024, 4 * 1024 * 1024};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])
#define TAG 1

static void send_msg(char *buf, int bytes, int peer)
{
    CALL(MPI_Send, (buf, bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD));
    psins_sent(bytes);
}

static void recv_msg(char *buf, int bytes, int peer)
{
    MPI_Status st;
    CALL(MPI_Recv, (buf, bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &st));
    psins_received(&st);
}

/* Rank 0 serves and times; rank 1 echoes. Returns seconds per round trip. */
static double pingpong(int rank, char *buf, int bytes, int reps)
{
    double t0 = CALL(MPI_Wtime, ());
    for (int i = 0; i < reps; i++) {
        if (rank == 0) {
            send_msg(buf, bytes, 1);
            recv_msg(buf, bytes, 1);
        } else {
            recv_msg(buf, bytes, 0);
            send_msg(buf, bytes, 0);
        }
    }
    return (CALL(MPI_Wtime, ()) - t0) / reps;
}

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    int reps = (int)psins_arg(argc, argv, 1, 3);
    psins_check(size >= 2, "pingpong needs at least 2 ranks");

    if (rank < 2) {
        char *buf = calloc(sizes[NSIZES - 1], 1);
        for (int s = 0; s < NSIZES; s++) {
            double rtt = pingpong(rank, buf, sizes[s], reps);
            if (rank == 0)
                printf("pingpong bytes=%d reps=%d half_rtt_us=%.2f\n", sizes[s], reps,
                       rtt / 2 * 1e6);
        }
        free(buf);
    }
    return psins_finish(rank);
}
