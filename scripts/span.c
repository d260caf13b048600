/*
 * libpsinsspan.so: the run time of an untraced MPI program, for scripts/validate.sh.
 * Preloaded (LD_PRELOAD), it wraps MPI_Init, MPI_Init_thread and MPI_Finalize through PMPI
 * and prints, on stderr, the span psins-sim predicts: from MPI_Init's return to
 * MPI_Finalize's entry, one line per rank:
 *     PSINS_SPAN rank=<world rank> seconds=<s>
 * Nothing else is intercepted, so the program runs as it would untraced. MPICH's Fortran
 * bindings call the C functions, so Fortran programs are measured too.
 * Build: mpicc -O2 -shared -fPIC -o libpsinsspan.so scripts/span.c
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static struct timespec t0;

static double since_init(void)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    return rc;
}

int MPI_Finalize(void)
{
    double span = since_init();
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "PSINS_SPAN rank=%d seconds=%.9f\n", rank, span);
    return PMPI_Finalize();
}
