/* psins tracer overhead micro-benchmark (driven by tracer-cdylib/overhead.sh).
 *   overhead allreduce ITERS   1 rank: MPI_Allreduce of one double on MPI_COMM_SELF
 *   overhead pingpong ITERS    2 ranks: 8-byte MPI_Send/MPI_Recv ping-pong
 *   overhead ring ITERS        1 rank: the ring app's calls to itself: MPI_Irecv and MPI_Isend
 *                              of 8 bytes on MPI_COMM_SELF, MPI_Waitall of both (3 calls)
 * Prints one line per rank: "OVERHEAD test=<t> rank=<r> calls=<n> cpu_ns=<ns> wall_ns=<ns>",
 * CPU time (user+system, getrusage) and wall time of the timed loop only. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

static long long cpu_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL
         + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}
static long long wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *test = argc > 1 ? argv[1] : "allreduce";
    long iters = argc > 2 ? atol(argv[2]) : 1000000;
    long calls = 0;
    double x = 1.0, y = 0.0;
    char buf[8];
    memset(buf, 0, sizeof buf);
    /* warm-up */
    for (int i = 0; i < 1000; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
    MPI_Barrier(MPI_COMM_WORLD);
    long long c0 = cpu_ns(), w0 = wall_ns();
    if (strcmp(test, "allreduce") == 0) {
        for (long i = 0; i < iters; i++) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
        calls = iters;
    } else if (strcmp(test, "ring") == 0) {
        MPI_Request reqs[2];
        MPI_Status st[2];
        char in[8];
        for (long i = 0; i < iters; i++) {
            MPI_Irecv(in, 8, MPI_BYTE, 0, 7, MPI_COMM_SELF, &reqs[0]);
            MPI_Isend(buf, 8, MPI_BYTE, 0, 7, MPI_COMM_SELF, &reqs[1]);
            MPI_Waitall(2, reqs, st);
        }
        calls = 3 * iters;
    } else if (size >= 2 && rank < 2) {
        int peer = 1 - rank;
        for (long i = 0; i < iters; i++) {
            if (rank == 0) {
                MPI_Send(buf, 8, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
                MPI_Recv(buf, 8, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, 8, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, 8, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
            }
        }
        calls = 2 * iters;
    }
    long long c1 = cpu_ns(), w1 = wall_ns();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    printf("OVERHEAD test=%s rank=%d calls=%ld cpu_ns=%lld wall_ns=%lld\n", test, rank, calls, c1 - c0, w1 - w0);
    return 0;
}
