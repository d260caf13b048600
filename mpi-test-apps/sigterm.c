/*
 * sigterm: an application that handles SIGTERM itself, as codes that checkpoint on the batch
 * system's warning do. Before MPI_Init it installs a handler for SIGTERM (or, with argument
 * `ignore`, ignores SIGTERM); after half of its iterations rank 0 sends itself a SIGTERM, and
 * every rank runs on to MPI_Finalize. The tracer must keep tracing: a signal the process
 * survives is not the end of the run.
 *
 * usage: sigterm [handle|ignore] [iterations=200]
 * Rank 0 checks that its handler ran (handle) and prints the usual two count lines.
 */
#include <signal.h>
#include "count.h"

static volatile sig_atomic_t caught;

static void on_term(int sig)
{
    (void)sig;
    caught = 1;
}

int main(int argc, char **argv)
{
    int ignore = argc > 1 && strcmp(argv[1], "ignore") == 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = ignore ? SIG_IGN : on_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);

    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    long iters = psins_arg(argc, argv, 2, 200);
    for (long i = 0; i < iters; i++) {
        if (i == iters / 2 && rank == 0)
            raise(SIGTERM);
        int v = rank, sum = 0;
        CALL(MPI_Allreduce, (&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    }
    if (rank == 0 && !ignore)
        psins_check(caught, "the application's SIGTERM handler ran");
    return psins_finish(rank);
}
