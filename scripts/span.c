/*
 * libpsinsspan.so: the run time of an untraced MPI program, for scripts/validate.sh.
 * Preloaded (LD_PRELOAD), it wraps MPI_Init, MPI_Init_thread and MPI_Finalize through PMPI
 * and prints, on stderr, the span psins-sim predicts: from MPI_Init's return to
 * MPI_Finalize's entry, one line per rank:
 *     PSINS_SPAN rank=<world rank> seconds=<s>
 * Nothing else is intercepted, so the program runs as it would untraced. MPICH's mpif.h and
 * `use mpi` bindings call the C functions; its mpi_f08 bindings and all of Open MPI's call
 * PMPI_* directly, so their init and finalize symbols are wrapped too (the real ones found
 * with dlsym(RTLD_NEXT)): Fortran programs are measured under both MPIs.
 * Build: mpicc -O2 -shared -fPIC -o libpsinsspan.so scripts/span.c
 */
#define _GNU_SOURCE
#include <dlfcn.h>
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

static void report(void)
{
    double span = since_init();
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "PSINS_SPAN rank=%d seconds=%.9f\n", rank, span);
}

int MPI_Finalize(void)
{
    report();
    return PMPI_Finalize();
}

/* A Fortran binding that calls PMPI_* itself: `sym` wrapped, its real one called. A missing
 * real symbol is an internal error, as the binding would give. */
typedef void (*f_ierror)(MPI_Fint *);
typedef void (*f_thread)(MPI_Fint *, MPI_Fint *, MPI_Fint *);
#define SPAN_NEXT(sym, type)                                  \
    static type real;                                         \
    if (!real) real = (type)dlsym(RTLD_NEXT, #sym);           \
    if (!real) {                                              \
        if (ierror) *ierror = MPI_ERR_INTERN;                 \
        return;                                               \
    }
#define SPAN_FORTRAN_INIT(sym)                                \
    void sym(MPI_Fint *ierror)                                \
    {                                                         \
        SPAN_NEXT(sym, f_ierror)                  \
        real(ierror);                                         \
        clock_gettime(CLOCK_MONOTONIC, &t0);                  \
    }
#define SPAN_FORTRAN_INIT_THREAD(sym)                         \
    void sym(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror) \
    {                                                         \
        SPAN_NEXT(sym, f_thread)             \
        real(required, provided, ierror);                     \
        clock_gettime(CLOCK_MONOTONIC, &t0);                  \
    }
#define SPAN_FORTRAN_FINALIZE(sym)                            \
    void sym(MPI_Fint *ierror)                                \
    {                                                         \
        SPAN_NEXT(sym, f_ierror)                  \
        report();                                             \
        real(ierror);                                         \
    }

SPAN_FORTRAN_INIT(mpi_init_f08_)
SPAN_FORTRAN_INIT_THREAD(mpi_init_thread_f08_)
SPAN_FORTRAN_FINALIZE(mpi_finalize_f08_)
#ifdef OPEN_MPI
SPAN_FORTRAN_INIT(mpi_init_)
SPAN_FORTRAN_INIT_THREAD(mpi_init_thread_)
SPAN_FORTRAN_FINALIZE(mpi_finalize_)
#endif
