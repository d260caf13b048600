/*
 * sleepspin: between its MPI calls an even rank sleeps and an odd rank computes, for the
 * same time: the CPU burst a CPU-time clock (PSINS_CLOCK=cpu) must see as nothing on the
 * sleeping rank and in full on the computing one, where the wall clock sees both in full.
 * Each iteration: the burst, then MPI_Barrier. The sleeping rank sleeps `usec` of wall
 * time (nanosleep); the computing rank spins until its own CPU time has advanced `usec`
 * (so its burst is that much CPU time however loaded the host is).
 *
 * After the two lines of count.h each rank prints what it measured itself around its
 * bursts (thread CPU time and wall time, summed over the iterations):
 *   PSINS_SLEEPSPIN rank=<r> mode=<sleep|spin> bursts=<n> cpu_ns=<n> wall_ns=<n>
 *
 * usage: sleepspin [iterations=40] [usec=2000]
 */
#include "count.h"
#include <time.h>

static long long ns_of(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    int iters = (int)psins_arg(argc, argv, 1, 40);
    long usec = psins_arg(argc, argv, 2, 2000);
    int sleeper = rank % 2 == 0;
    long long cpu = 0, wall = 0;
    volatile double x = 1.0;

    CALL(MPI_Barrier, (MPI_COMM_WORLD));
    for (int it = 0; it < iters; it++) {
        long long c0 = ns_of(CLOCK_THREAD_CPUTIME_ID), w0 = ns_of(CLOCK_MONOTONIC);
        if (sleeper) {
            struct timespec ts = {usec / 1000000, (usec % 1000000) * 1000};
            while (nanosleep(&ts, &ts) != 0)
                ;
        } else {
            while (ns_of(CLOCK_THREAD_CPUTIME_ID) - c0 < usec * 1000LL)
                for (int k = 0; k < 1000; k++)
                    x = x * 1.0000001 + 1e-9;
        }
        cpu += ns_of(CLOCK_THREAD_CPUTIME_ID) - c0;
        wall += ns_of(CLOCK_MONOTONIC) - w0;
        CALL(MPI_Barrier, (MPI_COMM_WORLD));
    }
    psins_finish(rank);
    char line[256];
    int len = snprintf(line, sizeof line, "PSINS_SLEEPSPIN rank=%d mode=%s bursts=%d cpu_ns=%lld wall_ns=%lld\n",
                       rank, sleeper ? "sleep" : "spin", iters, cpu, wall);
    if (write(STDOUT_FILENO, line, (size_t)len) != len)
        perror("sleepspin: writing the report");
    return 0;
}
