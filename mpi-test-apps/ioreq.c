/*
 * ioreq: requests the trace does not model, completed by MPI_Wait. Every rank writes its
 * block of a shared file with MPI_File_iwrite_at, reads it back with MPI_File_iread_at,
 * writes it again with the collective MPI_File_iwrite_at_all (MPI 3.1), each followed by
 * MPI_Wait; then a generalized request (MPI_Grequest_start, MPI_Grequest_complete, MPI_Wait);
 * with MPI 4, a persistent barrier (MPI_Barrier_init, two MPI_Start + MPI_Wait,
 * MPI_Request_free). The file is PSINS_IOREQ_FILE or ioreq.dat in the working directory,
 * deleted at the end.
 *
 * The generalized request's callbacks make MPI calls inside MPI_Wait: not counted (the
 * tracer does not record calls made inside another call).
 *
 * usage: ioreq [ints per rank=1024]
 */
#include "count.h"

static int query_fn(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int free_fn(void *extra) { (void)extra; return MPI_SUCCESS; }
static int cancel_fn(void *extra, int complete) { (void)extra; (void)complete; return MPI_SUCCESS; }

int main(int argc, char **argv)
{
    int rank, size;
    psins_start(&argc, &argv, &rank, &size);
    int n = (int)psins_arg(argc, argv, 1, 1024);
    const char *path = getenv("PSINS_IOREQ_FILE") ? getenv("PSINS_IOREQ_FILE") : "ioreq.dat";
    int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    psins_check(out && in, "memory");
    for (int i = 0; i < n; i++)
        out[i] = rank * n + i;
    MPI_File fh;
    MPI_Request req;
    MPI_Status st;
    MPI_Offset at = (MPI_Offset)rank * n * (MPI_Offset)sizeof(int);

    CALL(MPI_File_open, (MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CALL(MPI_File_iwrite_at, (fh, at, out, n, MPI_INT, &req));
    CALL(MPI_Wait, (&req, &st));
    CALL(MPI_File_iread_at, (fh, at, in, n, MPI_INT, &req));
    CALL(MPI_Wait, (&req, &st));
    psins_check(memcmp(in, out, sizeof(int) * (size_t)n) == 0, "read back what was written");
    CALL(MPI_File_iwrite_at_all, (fh, at, out, n, MPI_INT, &req));
    CALL(MPI_Wait, (&req, MPI_STATUS_IGNORE));

    CALL(MPI_Grequest_start, (query_fn, free_fn, cancel_fn, NULL, &req));
    CALL(MPI_Grequest_complete, (req));
    CALL(MPI_Wait, (&req, MPI_STATUS_IGNORE));

#if MPI_VERSION >= 4
    CALL(MPI_Barrier_init, (MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    for (int i = 0; i < 2; i++) {
        CALL(MPI_Start, (&req));
        CALL(MPI_Wait, (&req, MPI_STATUS_IGNORE));
    }
    CALL(MPI_Request_free, (&req));
#endif

    CALL(MPI_File_close, (&fh));
    CALL(MPI_Barrier, (MPI_COMM_WORLD));
    if (rank == 0)
        CALL(MPI_File_delete, (path, MPI_INFO_NULL));
    free(out);
    free(in);
    return psins_finish(rank);
}
