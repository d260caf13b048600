/* psins oracle-ompi, libnbc: builds, rank by rank, the schedule Open MPI 4.1.4's coll/libnbc
 * makes for one nonblocking collective (its nbc_i*.c files compiled against nbc_internal.h),
 * and prints it: per rank, each send `S<peer>:<bytes>` and receive `R<peer>:<bytes>` in
 * schedule order, and `|` where a round that posted anything ends (a barrier, or the end of
 * the schedule).
 *
 * argv: as driver.c's (COLL P ROOT BYTES COUNT ELEM COMMUTATIVE INPLACE [COUNTS...]), COLL the
 * blocking twin's name. The send and receive buffers are distinct addresses (libnbc takes
 * equal ones for MPI_IN_PLACE); the MPI layer's early returns (ompi/mpi/c/i<coll>.c) are
 * applied here. Output: "ALG libnbc", then "rank R: tokens" per rank. */
#include "nbc_internal.h"

bool libnbc_ibcast_skip_dt_decision = true;
int libnbc_iallgather_algorithm = 0, libnbc_iallreduce_algorithm = 0, libnbc_ibcast_algorithm = 0,
    libnbc_ibcast_knomial_radix = 4, libnbc_iexscan_algorithm = 0, libnbc_ireduce_algorithm = 0,
    libnbc_iscan_algorithm = 0;
mock_request_null_t ompi_request_null;

static char *out;          /* this rank's tokens */
static size_t out_len, out_cap;
static int round_open;     /* the current round has posted something */

static void token(const char *fmt, long a, long b)
{
    char t[64];
    int n = snprintf(t, sizeof t, fmt, a, b);
    if (out_len + n + 2 > out_cap) {
        out_cap = 2 * (out_cap + n + 2);
        out = realloc(out, out_cap);
    }
    if (out_len) out[out_len++] = ' ';
    memcpy(out + out_len, t, n + 1);
    out_len += n;
}

static long bytes(size_t count, MPI_Datatype t)
{
    size_t size;
    ompi_datatype_type_size(t, &size);
    return (long) (count * size);
}

int NBC_Sched_barrier(NBC_Schedule *s)
{
    (void) s;
    if (round_open) token("|", 0, 0);
    round_open = 0;
    return OMPI_SUCCESS;
}

static int end_of(NBC_Schedule *s, bool barrier)
{
    return barrier ? NBC_Sched_barrier(s) : OMPI_SUCCESS;
}

int NBC_Sched_send(const void *buf, char tmpbuf, size_t count, MPI_Datatype t, int dest, NBC_Schedule *s, bool barrier)
{
    (void) buf; (void) tmpbuf;
    token("S%ld:%ld", dest, bytes(count, t));
    round_open = 1;
    return end_of(s, barrier);
}

int NBC_Sched_recv(void *buf, char tmpbuf, size_t count, MPI_Datatype t, int source, NBC_Schedule *s, bool barrier)
{
    (void) buf; (void) tmpbuf;
    token("R%ld:%ld", source, bytes(count, t));
    round_open = 1;
    return end_of(s, barrier);
}

/* the inter-communicator schedules' sends to the local group: never reached here */
int NBC_Sched_local_send(const void *buf, char tmpbuf, size_t count, MPI_Datatype t, int dest, NBC_Schedule *s,
                         bool barrier)
{
    (void) buf; (void) tmpbuf; (void) count; (void) t; (void) dest; (void) s; (void) barrier;
    abort();
}

int NBC_Sched_local_recv(void *buf, char tmpbuf, size_t count, MPI_Datatype t, int source, NBC_Schedule *s,
                         bool barrier)
{
    (void) buf; (void) tmpbuf; (void) count; (void) t; (void) source; (void) s; (void) barrier;
    abort();
}

/* local operations: only their barrier matters */
int NBC_Sched_op(const void *buf1, char tmpbuf1, void *buf2, char tmpbuf2, size_t count, MPI_Datatype t, MPI_Op op,
                 NBC_Schedule *s, bool barrier)
{
    (void) buf1; (void) tmpbuf1; (void) buf2; (void) tmpbuf2; (void) count; (void) t; (void) op;
    return end_of(s, barrier);
}

int NBC_Sched_copy(void *src, char tmpsrc, size_t srccount, MPI_Datatype srctype, void *tgt, char tmptgt,
                   size_t tgtcount, MPI_Datatype tgttype, NBC_Schedule *s, bool barrier)
{
    (void) src; (void) tmpsrc; (void) srccount; (void) srctype; (void) tgt; (void) tmptgt; (void) tgtcount;
    (void) tgttype;
    return end_of(s, barrier);
}

int NBC_Sched_unpack(void *inbuf, char tmpinbuf, size_t count, MPI_Datatype t, void *outbuf, char tmpoutbuf,
                     NBC_Schedule *s, bool barrier)
{
    (void) inbuf; (void) tmpinbuf; (void) count; (void) t; (void) outbuf; (void) tmpoutbuf;
    return end_of(s, barrier);
}

int NBC_Sched_commit(NBC_Schedule *s) { (void) s; return OMPI_SUCCESS; }

int NBC_Schedule_request(NBC_Schedule *s, ompi_communicator_t *comm, ompi_coll_libnbc_module_t *module,
                         bool persistent, ompi_request_t **request, void *tmpbuf)
{
    (void) comm; (void) module; (void) persistent; (void) tmpbuf;
    NBC_Sched_barrier(s);
    *request = &ompi_request_null.request.request;
    return OMPI_SUCCESS;
}

int NBC_Start(NBC_Handle *handle) { (void) handle; return OMPI_SUCCESS; }
void NBC_Return_handle(ompi_coll_libnbc_request_t *request) { (void) request; }

int nbc_get_noop_request(bool persistent, ompi_request_t **request)
{
    (void) persistent;
    *request = &ompi_request_null.request.request;
    return OMPI_SUCCESS;
}

int ompi_datatype_pack_external_size(const char *rep, int count, MPI_Datatype t, MPI_Aint *size)
{
    (void) rep;
    *size = bytes(count, t);
    return OMPI_SUCCESS;
}

int ompi_datatype_pack_external(const char *rep, const void *in, int count, MPI_Datatype t, void *o,
                                MPI_Aint outsize, MPI_Aint *position)
{
    (void) rep; (void) in; (void) count; (void) t; (void) o; (void) outsize; (void) position;
    return OMPI_SUCCESS;
}

#define IS(s) (strcmp(coll, s) == 0)

int main(int argc, char **argv)
{
    if (argc < 9) {
        fprintf(stderr, "usage: %s COLL P ROOT BYTES COUNT ELEM COMMUTATIVE INPLACE [COUNTS...]\n", argv[0]);
        return 2;
    }
    const char *coll = argv[1];
    int P = atoi(argv[2]), root = atoi(argv[3]), commutative = atoi(argv[7]), inplace = atoi(argv[8]);
    long nbytes = atol(argv[4]), count = atol(argv[5]), elem = atol(argv[6]);
    int ncnt = argc - 9;
    long *cnt = calloc(ncnt + 1, sizeof(long));
    for (int i = 0; i < ncnt; i++) cnt[i] = atol(argv[9 + i]);
    if (P < 1 || root < 0 || root >= P || elem < 1) { fprintf(stderr, "bad arguments\n"); return 2; }
    if ((IS("alltoallv") || IS("alltoallw")) && ncnt < P * P) { fprintf(stderr, "need P*P counts\n"); return 2; }
    if ((IS("gatherv") || IS("scatterv") || IS("allgatherv") || IS("reduce_scatter")) && ncnt < P) {
        fprintf(stderr, "need P counts\n");
        return 2;
    }
    char *sbuf = malloc(64), *rbuf = malloc(64);
    ompi_datatype_t *T = mock_type_new(elem, elem);
    T->predefined = 1;
    ompi_op_t op = { commutative };
    printf("ALG libnbc\n");
    for (int me = 0; me < P; me++) {
        out_len = 0;
        if (out) out[0] = 0;
        round_open = 0;
        ompi_communicator_t comm = { 0 };
        comm.c_my_rank = me; comm.c_size = P; comm.c_cube_dim = opal_cube_dim(P); comm.c_name = "oracle";
        ompi_coll_libnbc_module_t module = { 0 };
        mca_coll_base_module_2_3_0_t *m = &module.super;
        ompi_request_t *req = NULL;
        int rooted = IS("reduce") || IS("gather") || IS("scatter") || IS("gatherv") || IS("scatterv");
        int ip = inplace && (!rooted || me == root);
        const void *sb = ip ? MPI_IN_PLACE : sbuf;
        mock_counts_t counts = mock_counts(coll, P, me, cnt, ncnt);
        int *sc = counts.sc, *rc = counts.rc, *sd = counts.sd, *rd = counts.rd;
        ompi_datatype_t **types = counts.types;
        int n = (int) nbytes, k = (int) count, err = 0, all_zero = 1;
        for (int i = 0; i < P; i++) if (rc[i]) all_zero = 0;
        /* the MPI layer returns first for one rank (ibcast) and for these zero counts */
        if ((IS("bcast") && (P == 1 || n == 0)) || ((IS("reduce") || IS("allreduce")) && k == 0) ||
            (IS("reduce_scatter") && all_zero) || (IS("reduce_scatter_block") && n == 0)) {
        } else if (IS("barrier")) err = ompi_coll_libnbc_ibarrier(&comm, &req, m);
        else if (IS("bcast")) err = ompi_coll_libnbc_ibcast(rbuf, n, MPI_BYTE, root, &comm, &req, m);
        else if (IS("reduce")) err = ompi_coll_libnbc_ireduce(sb, rbuf, k, T, &op, root, &comm, &req, m);
        else if (IS("allreduce")) err = ompi_coll_libnbc_iallreduce(sb, rbuf, k, T, &op, &comm, &req, m);
        else if (IS("scan")) err = ompi_coll_libnbc_iscan(sb, rbuf, k, T, &op, &comm, &req, m);
        else if (IS("exscan")) err = ompi_coll_libnbc_iexscan(sb, rbuf, k, T, &op, &comm, &req, m);
        else if (IS("gather"))
            err = ompi_coll_libnbc_igather(sb, n, MPI_BYTE, rbuf, n, MPI_BYTE, root, &comm, &req, m);
        else if (IS("scatter"))
            err = ompi_coll_libnbc_iscatter(sbuf, n, MPI_BYTE, ip ? MPI_IN_PLACE : rbuf, n, MPI_BYTE, root, &comm,
                                            &req, m);
        else if (IS("gatherv"))
            err = ompi_coll_libnbc_igatherv(sb, sc[me], MPI_BYTE, rbuf, rc, rd, MPI_BYTE, root, &comm, &req, m);
        else if (IS("scatterv"))
            err = ompi_coll_libnbc_iscatterv(sbuf, sc, sd, MPI_BYTE, ip ? MPI_IN_PLACE : rbuf, rc[me], MPI_BYTE, root,
                                             &comm, &req, m);
        else if (IS("allgather"))
            err = ompi_coll_libnbc_iallgather(sb, n, MPI_BYTE, rbuf, n, MPI_BYTE, &comm, &req, m);
        else if (IS("allgatherv"))
            err = ompi_coll_libnbc_iallgatherv(sb, sc[me], MPI_BYTE, rbuf, rc, rd, MPI_BYTE, &comm, &req, m);
        else if (IS("alltoall"))
            err = ompi_coll_libnbc_ialltoall(sb, n, MPI_BYTE, rbuf, n, MPI_BYTE, &comm, &req, m);
        else if (IS("alltoallv"))
            err = ompi_coll_libnbc_ialltoallv(sb, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, &comm, &req, m);
        else if (IS("alltoallw"))
            err = ompi_coll_libnbc_ialltoallw(sb, sc, sd, types, rbuf, rc, rd, types, &comm, &req, m);
        else if (IS("reduce_scatter"))
            err = ompi_coll_libnbc_ireduce_scatter(sb, rbuf, rc, T, &op, &comm, &req, m);
        else if (IS("reduce_scatter_block"))
            err = ompi_coll_libnbc_ireduce_scatter_block(sb, rbuf, n, T, &op, &comm, &req, m);
        else { fprintf(stderr, "unknown collective %s\n", coll); return 2; }
        if (err) { fprintf(stderr, "rank %d: libnbc returned error %d\n", me, err); return 4; }
        NBC_Sched_barrier(NULL);
        printf("rank %d: %s\n", me, out_len ? out : "");
        free(sc); free(rc); free(sd); free(rd); free(types);
    }
    return 0;
}
