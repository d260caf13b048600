/*
 * pcontrol: MPI_Pcontrol regions and pauses. Level 2 around a ring of MPI_Sendrecv, level 3
 * around MPI_Allreduce, level 0 (the tracer pauses) around a phase of both plus some work,
 * level 1 (it resumes) around an MPI_Barrier, then level 0 again until MPI_Finalize (which the
 * tracer records all the same: the log must end).
 *
 * The calls made while paused are deliberately NOT counted (no CALL()): the tracer must not
 * record them, so PSINS_COUNTS lists exactly what the log must hold. Every MPI_Pcontrol is
 * counted: each is made while recording, or resumes it.
 *
 * usage: pcontrol [iterations=10]
 */
#include "count.h"

static volatile double sink;

static void work(int n)
{
    double x = sink;
    for (int i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    int iters = (int)psins_arg(argc, argv, 1, 10);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int out = rank, in = -1, sum = 0;
    MPI_Status st;

    CALL(MPI_Pcontrol, (2));
    for (int i = 0; i < iters; i++) {
        work(20000);
        CALL(MPI_Sendrecv, (&out, 1, MPI_INT, right, 0, &in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &st));
        psins_sent(sizeof(int));
        psins_received(&st);
        psins_check(in == left, "ring payload");
    }
    CALL(MPI_Pcontrol, (3));
    for (int i = 0; i < iters; i++) {
        work(20000);
        CALL(MPI_Allreduce, (&out, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        psins_check(sum == size * (size - 1) / 2, "allreduce sum");
    }
    CALL(MPI_Pcontrol, (0));
    for (int i = 0; i < iters; i++) { /* paused: not traced, not counted */
        work(200000);
        MPI_Sendrecv(&out, 1, MPI_INT, right, 1, &in, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    CALL(MPI_Pcontrol, (1));
    CALL(MPI_Barrier, (MPI_COMM_WORLD));
    CALL(MPI_Pcontrol, (0));
    MPI_Barrier(MPI_COMM_WORLD); /* paused */
    return psins_finish(rank);
}
