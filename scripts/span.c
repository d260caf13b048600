/*
 * libpsinsspan.so: the run time of an untraced MPI program, for scripts/validate.sh.
 * Preloaded (LD_PRELOAD), it wraps MPI_Init, MPI_Init_thread and MPI_Finalize through PMPI
 * and prints, on stderr, the span psins-sim predicts: from MPI_Init's return to
 * MPI_Finalize's entry, one line per rank:
 *     PSINS_SPAN rank=<world rank> seconds=<s>
 * Nothing else is intercepted, so the program runs as it would untraced. MPICH's mpif.h and
 * `use mpi` bindings call the C functions; its mpi_f08 bindings and all of Open MPI's call
 * PMPI_* directly, so their init and finalize symbols are wrapped too (the real ones found
 * with dlsym(RTLD_NEXT)): Fortran programs are measured under both MPIs. Where a binding goes
 * through the C functions as well (MPICH's mpif.h), the first start and the first finish count.
 * Build: mpicc -O2 -shared -fPIC -o libpsinsspan.so scripts/span.c
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <time.h>

/* Set at the first init's return; a second init or finalize through another binding of the
 * same call (older MPIs route some Fortran bindings through the C functions) changes
 * nothing, so each rank prints one span, and none without a start. */
static struct timespec t0;
static int started, reported;

static void start(void)
{
    if (!started) {
        clock_gettime(CLOCK_MONOTONIC, &t0);
        started = 1;
    }
}

static void report(void)
{
    if (!started || reported)
        return;
    reported = 1;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double span = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "PSINS_SPAN rank=%d seconds=%.9f\n", rank, span);
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    start();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    start();
    return rc;
}

int MPI_Finalize(void)
{
    report();
    return PMPI_Finalize();
}

/* A Fortran binding that calls PMPI_* itself: `sym` wrapped, its real one (the next library's,
 * dlsym: in glibc's libc itself since 2.34, so no -ldl) called. A missing real symbol is an
 * internal error in `ierror`, as the binding would give (mpi_f08 may pass no ierror). */
typedef void (*f_ierror)(MPI_Fint *);
typedef void (*f_thread)(MPI_Fint *, MPI_Fint *, MPI_Fint *);
#define SPAN_NEXT(sym, type, ierror)                   \
    static type real;                                  \
    if (!real) real = (type)dlsym(RTLD_NEXT, #sym);    \
    if (!real) {                                       \
        if (ierror) *(ierror) = MPI_ERR_INTERN;        \
        return;                                        \
    }
#define SPAN_FORTRAN_INIT(sym)                         \
    void sym(MPI_Fint *ierror)                         \
    {                                                  \
        SPAN_NEXT(sym, f_ierror, ierror)               \
        real(ierror);                                  \
        start();                                       \
    }
#define SPAN_FORTRAN_INIT_THREAD(sym)                                  \
    void sym(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror) \
    {                                                                  \
        SPAN_NEXT(sym, f_thread, ierror)                               \
        real(required, provided, ierror);                              \
        start();                                                       \
    }
#define SPAN_FORTRAN_FINALIZE(sym)                     \
    void sym(MPI_Fint *ierror)                         \
    {                                                  \
        SPAN_NEXT(sym, f_ierror, ierror)               \
        report();                                      \
        real(ierror);                                  \
    }

SPAN_FORTRAN_INIT(mpi_init_f08_)
SPAN_FORTRAN_INIT_THREAD(mpi_init_thread_f08_)
SPAN_FORTRAN_FINALIZE(mpi_finalize_f08_)
SPAN_FORTRAN_INIT(mpi_init_)
SPAN_FORTRAN_INIT_THREAD(mpi_init_thread_)
SPAN_FORTRAN_FINALIZE(mpi_finalize_)
