/* Small apps for tests/tests/tracer.rs (built by the test with mpicc).
 *   misc threads   MPI_THREAD_MULTIPLE: the main thread and a second thread both ping-pong
 *                  on their own communicator; prints MAIN_CALLS=<n> (the main thread's
 *                  traced calls after MPI_Init, Finalize included) and OTHER_CALLS=<n>
 *   misc exit      MPI_Init, two barriers, then exit(0) without MPI_Finalize
 *   misc fork      after MPI_Init, fork() a child that makes no MPI call and exits
 *                  through exit() (atexit handlers run in the child) */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static MPI_Comm c2;
static int rank;

static void *worker(void *arg)
{
    (void)arg;
    int peer = 1 - rank, x = 0;
    for (int i = 0; i < 100; i++) {
        if (rank == 0) {
            MPI_Send(&x, 1, MPI_INT, peer, 2, c2);
            MPI_Recv(&x, 1, MPI_INT, peer, 2, c2, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&x, 1, MPI_INT, peer, 2, c2, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_INT, peer, 2, c2);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "threads";
    if (strcmp(mode, "threads") == 0) {
        int provided;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_dup(MPI_COMM_WORLD, &c2);
        long main_calls = 1; /* the dup */
        pthread_t t;
        pthread_create(&t, NULL, worker, NULL);
        int peer = 1 - rank, x = 0;
        for (int i = 0; i < 100; i++) {
            if (rank == 0) {
                MPI_Send(&x, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(&x, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&x, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&x, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
            }
            main_calls += 2;
        }
        pthread_join(t, NULL);
        MPI_Comm_free(&c2);
        main_calls += 2; /* free + finalize */
        MPI_Finalize();
        printf("MISC rank=%d provided=%d MAIN_CALLS=%ld OTHER_CALLS=200\n", rank, provided, main_calls);
    } else if (strcmp(mode, "exit") == 0) {
        MPI_Init(&argc, &argv);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        exit(0);
    } else {
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Barrier(MPI_COMM_WORLD);
        pid_t pid = fork();
        if (pid == 0) {
            exit(0); /* runs atexit handlers in the child */
        }
        int st;
        waitpid(pid, &st, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        printf("MISC rank=%d forked=1\n", rank);
    }
    return 0;
}
