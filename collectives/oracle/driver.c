/* Runs one MPICH algorithm on P threads over the mock transport and prints each rank's
 * records. argv: algo P root nbytes count elem commutative in_place [counts...] */
#include "mpiimpl.h"
#include <pthread.h>
void mock_init(int p); void mock_set_rank(int r); void mock_print(void); void mock_set_base(int t, MPI_Aint s);
#define DECL(f, ...) int f(__VA_ARGS__);
DECL(MPIR_Barrier_intra_dissemination, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Bcast_intra_binomial, void *, MPI_Aint, MPI_Datatype, int, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Bcast_intra_scatter_recursive_doubling_allgather, void *, MPI_Aint, MPI_Datatype, int, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Bcast_intra_scatter_ring_allgather, void *, MPI_Aint, MPI_Datatype, int, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Reduce_intra_binomial, const void *, void *, MPI_Aint, MPI_Datatype, MPI_Op, int, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Reduce_intra_reduce_scatter_gather, const void *, void *, MPI_Aint, MPI_Datatype, MPI_Op, int, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Allreduce_intra_recursive_doubling, const void *, void *, MPI_Aint, MPI_Datatype, MPI_Op, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Allreduce_intra_reduce_scatter_allgather, const void *, void *, MPI_Aint, MPI_Datatype, MPI_Op, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Scan_intra_recursive_doubling, const void *, void *, MPI_Aint, MPI_Datatype, MPI_Op, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Exscan_intra_recursive_doubling, const void *, void *, MPI_Aint, MPI_Datatype, MPI_Op, MPIR_Comm *, MPIR_Errflag_t *)
typedef int (*rooted_t)(const void *, MPI_Aint, MPI_Datatype, void *, MPI_Aint, MPI_Datatype, int, MPIR_Comm *, MPIR_Errflag_t *);
DECL(MPIR_Gather_intra_binomial, const void *, MPI_Aint, MPI_Datatype, void *, MPI_Aint, MPI_Datatype, int, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Scatter_intra_binomial, const void *, MPI_Aint, MPI_Datatype, void *, MPI_Aint, MPI_Datatype, int, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Gatherv_allcomm_linear, const void *, MPI_Aint, MPI_Datatype, void *, const MPI_Aint *, const MPI_Aint *, MPI_Datatype, int, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Scatterv_allcomm_linear, const void *, const MPI_Aint *, const MPI_Aint *, MPI_Datatype, void *, MPI_Aint, MPI_Datatype, int, MPIR_Comm *, MPIR_Errflag_t *)
typedef int (*ag_t)(const void *, MPI_Aint, MPI_Datatype, void *, MPI_Aint, MPI_Datatype, MPIR_Comm *, MPIR_Errflag_t *);
DECL(MPIR_Allgather_intra_brucks, const void *, MPI_Aint, MPI_Datatype, void *, MPI_Aint, MPI_Datatype, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Allgather_intra_recursive_doubling, const void *, MPI_Aint, MPI_Datatype, void *, MPI_Aint, MPI_Datatype, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Allgather_intra_ring, const void *, MPI_Aint, MPI_Datatype, void *, MPI_Aint, MPI_Datatype, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Alltoall_intra_brucks, const void *, MPI_Aint, MPI_Datatype, void *, MPI_Aint, MPI_Datatype, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Alltoall_intra_pairwise, const void *, MPI_Aint, MPI_Datatype, void *, MPI_Aint, MPI_Datatype, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Alltoall_intra_scattered, const void *, MPI_Aint, MPI_Datatype, void *, MPI_Aint, MPI_Datatype, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Alltoall_intra_pairwise_sendrecv_replace, const void *, MPI_Aint, MPI_Datatype, void *, MPI_Aint, MPI_Datatype, MPIR_Comm *, MPIR_Errflag_t *)
typedef int (*agv_t)(const void *, MPI_Aint, MPI_Datatype, void *, const MPI_Aint *, const MPI_Aint *, MPI_Datatype, MPIR_Comm *, MPIR_Errflag_t *);
DECL(MPIR_Allgatherv_intra_brucks, const void *, MPI_Aint, MPI_Datatype, void *, const MPI_Aint *, const MPI_Aint *, MPI_Datatype, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Allgatherv_intra_recursive_doubling, const void *, MPI_Aint, MPI_Datatype, void *, const MPI_Aint *, const MPI_Aint *, MPI_Datatype, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Allgatherv_intra_ring, const void *, MPI_Aint, MPI_Datatype, void *, const MPI_Aint *, const MPI_Aint *, MPI_Datatype, MPIR_Comm *, MPIR_Errflag_t *)
typedef int (*a2av_t)(const void *, const MPI_Aint *, const MPI_Aint *, MPI_Datatype, void *, const MPI_Aint *, const MPI_Aint *, MPI_Datatype, MPIR_Comm *, MPIR_Errflag_t *);
DECL(MPIR_Alltoallv_intra_scattered, const void *, const MPI_Aint *, const MPI_Aint *, MPI_Datatype, void *, const MPI_Aint *, const MPI_Aint *, MPI_Datatype, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Alltoallv_intra_pairwise_sendrecv_replace, const void *, const MPI_Aint *, const MPI_Aint *, MPI_Datatype, void *, const MPI_Aint *, const MPI_Aint *, MPI_Datatype, MPIR_Comm *, MPIR_Errflag_t *)
typedef int (*a2aw_t)(const void *, const MPI_Aint *, const MPI_Aint *, const MPI_Datatype *, void *, const MPI_Aint *, const MPI_Aint *, const MPI_Datatype *, MPIR_Comm *, MPIR_Errflag_t *);
DECL(MPIR_Alltoallw_intra_scattered, const void *, const MPI_Aint *, const MPI_Aint *, const MPI_Datatype *, void *, const MPI_Aint *, const MPI_Aint *, const MPI_Datatype *, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Alltoallw_intra_pairwise_sendrecv_replace, const void *, const MPI_Aint *, const MPI_Aint *, const MPI_Datatype *, void *, const MPI_Aint *, const MPI_Aint *, const MPI_Datatype *, MPIR_Comm *, MPIR_Errflag_t *)
typedef int (*rs_t)(const void *, void *, const MPI_Aint *, MPI_Datatype, MPI_Op, MPIR_Comm *, MPIR_Errflag_t *);
DECL(MPIR_Reduce_scatter_intra_recursive_halving, const void *, void *, const MPI_Aint *, MPI_Datatype, MPI_Op, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Reduce_scatter_intra_pairwise, const void *, void *, const MPI_Aint *, MPI_Datatype, MPI_Op, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Reduce_scatter_intra_noncommutative, const void *, void *, const MPI_Aint *, MPI_Datatype, MPI_Op, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Reduce_scatter_intra_recursive_doubling, const void *, void *, const MPI_Aint *, MPI_Datatype, MPI_Op, MPIR_Comm *, MPIR_Errflag_t *)
typedef int (*rsb_t)(const void *, void *, MPI_Aint, MPI_Datatype, MPI_Op, MPIR_Comm *, MPIR_Errflag_t *);
DECL(MPIR_Reduce_scatter_block_intra_recursive_halving, const void *, void *, MPI_Aint, MPI_Datatype, MPI_Op, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Reduce_scatter_block_intra_pairwise, const void *, void *, MPI_Aint, MPI_Datatype, MPI_Op, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Reduce_scatter_block_intra_noncommutative, const void *, void *, MPI_Aint, MPI_Datatype, MPI_Op, MPIR_Comm *, MPIR_Errflag_t *)
DECL(MPIR_Reduce_scatter_block_intra_recursive_doubling, const void *, void *, MPI_Aint, MPI_Datatype, MPI_Op, MPIR_Comm *, MPIR_Errflag_t *)

static const char *algo; static int P, root, comm_, inplace; static long nbytes, count, elem; static long *cnt; static int ncnt;
static char dummy[64];
#define IS(s) (strcmp(algo, s) == 0)

static void *run(void *arg) {
    int me = (int) (long) arg;
    mock_set_rank(me);
    MPIR_Comm c = { P, P, me, MPIR_COMM_KIND__INTRACOMM, { 0 } };
    c.coll.pof2 = 1; while (c.coll.pof2 * 2 <= P) c.coll.pof2 *= 2;
    MPIR_Errflag_t e = 0;
    MPI_Op op = comm_ ? 1 : 2;
    void *sb = inplace ? MPI_IN_PLACE : dummy, *rsb = (inplace && me == root) ? MPI_IN_PLACE : dummy;
    MPI_Aint *disp = calloc(P + 1, sizeof(MPI_Aint)), *sc = calloc(P + 1, sizeof(MPI_Aint)), *rc = calloc(P + 1, sizeof(MPI_Aint));
    MPI_Datatype *types = calloc(P + 1, sizeof(MPI_Datatype));
    for (int i = 0; i < P; i++) types[i] = MPI_BYTE;
    if (IS("barrier_dissemination")) MPIR_Barrier_intra_dissemination(&c, &e);
    else if (IS("bcast_binomial")) MPIR_Bcast_intra_binomial(dummy, nbytes, MPI_BYTE, root, &c, &e);
    else if (IS("bcast_scatter_recursive_doubling_allgather")) MPIR_Bcast_intra_scatter_recursive_doubling_allgather(dummy, nbytes, MPI_BYTE, root, &c, &e);
    else if (IS("bcast_scatter_ring_allgather")) MPIR_Bcast_intra_scatter_ring_allgather(dummy, nbytes, MPI_BYTE, root, &c, &e);
    else if (IS("reduce_binomial")) MPIR_Reduce_intra_binomial(rsb, dummy, count, 2, op, root, &c, &e);
    else if (IS("reduce_reduce_scatter_gather")) MPIR_Reduce_intra_reduce_scatter_gather(rsb, dummy, count, 2, op, root, &c, &e);
    else if (IS("allreduce_recursive_doubling")) MPIR_Allreduce_intra_recursive_doubling(sb, dummy, count, 2, op, &c, &e);
    else if (IS("allreduce_reduce_scatter_allgather")) MPIR_Allreduce_intra_reduce_scatter_allgather(sb, dummy, count, 2, op, &c, &e);
    else if (IS("scan_recursive_doubling")) MPIR_Scan_intra_recursive_doubling(sb, dummy, count, 2, op, &c, &e);
    else if (IS("exscan_recursive_doubling")) MPIR_Exscan_intra_recursive_doubling(sb, dummy, count, 2, op, &c, &e);
    else if (IS("gather_binomial")) MPIR_Gather_intra_binomial(rsb, nbytes, MPI_BYTE, dummy, nbytes, MPI_BYTE, root, &c, &e);
    else if (IS("scatter_binomial")) MPIR_Scatter_intra_binomial(dummy, nbytes, MPI_BYTE, (inplace && me == root) ? MPI_IN_PLACE : dummy, nbytes, MPI_BYTE, root, &c, &e);
    else if (IS("gatherv_linear")) { for (int i = 0; i < P; i++) sc[i] = cnt[i]; MPIR_Gatherv_allcomm_linear(dummy, cnt[me], MPI_BYTE, dummy, sc, disp, MPI_BYTE, root, &c, &e); }
    else if (IS("scatterv_linear")) { for (int i = 0; i < P; i++) sc[i] = cnt[i]; MPIR_Scatterv_allcomm_linear(dummy, sc, disp, MPI_BYTE, dummy, cnt[me], MPI_BYTE, root, &c, &e); }
    else if (!strncmp(algo, "allgather_", 10)) {
        ag_t f = IS("allgather_brucks") ? MPIR_Allgather_intra_brucks : IS("allgather_ring") ? MPIR_Allgather_intra_ring : MPIR_Allgather_intra_recursive_doubling;
        f(sb, nbytes, MPI_BYTE, dummy, nbytes, MPI_BYTE, &c, &e);
    } else if (!strncmp(algo, "allgatherv_", 11)) {
        agv_t f = IS("allgatherv_brucks") ? MPIR_Allgatherv_intra_brucks : IS("allgatherv_ring") ? MPIR_Allgatherv_intra_ring : MPIR_Allgatherv_intra_recursive_doubling;
        for (int i = 0; i < P; i++) sc[i] = cnt[i];
        f(sb, cnt[me], MPI_BYTE, dummy, sc, disp, MPI_BYTE, &c, &e);
    } else if (!strncmp(algo, "alltoall_", 9)) {
        ag_t f = IS("alltoall_brucks") ? MPIR_Alltoall_intra_brucks : IS("alltoall_pairwise") ? MPIR_Alltoall_intra_pairwise : IS("alltoall_scattered") ? MPIR_Alltoall_intra_scattered : MPIR_Alltoall_intra_pairwise_sendrecv_replace;
        f(sb, nbytes, MPI_BYTE, dummy, nbytes, MPI_BYTE, &c, &e);
    } else if (!strncmp(algo, "alltoallv_", 10) || !strncmp(algo, "alltoallw_", 10)) {
        for (int i = 0; i < P; i++) { sc[i] = cnt[me * P + i]; rc[i] = cnt[i * P + me]; }
        if (algo[8] == 'v') {
            a2av_t f = strstr(algo, "scattered") ? MPIR_Alltoallv_intra_scattered : MPIR_Alltoallv_intra_pairwise_sendrecv_replace;
            f(sb, sc, disp, MPI_BYTE, dummy, rc, disp, MPI_BYTE, &c, &e);
        } else {
            a2aw_t f = strstr(algo, "scattered") ? MPIR_Alltoallw_intra_scattered : MPIR_Alltoallw_intra_pairwise_sendrecv_replace;
            f(sb, sc, disp, types, dummy, rc, disp, types, &c, &e);
        }
    } else if (!strncmp(algo, "reduce_scatter_block_", 21)) {
        rsb_t f = strstr(algo, "halving") ? MPIR_Reduce_scatter_block_intra_recursive_halving : strstr(algo, "pairwise") ? MPIR_Reduce_scatter_block_intra_pairwise : strstr(algo, "noncomm") ? MPIR_Reduce_scatter_block_intra_noncommutative : MPIR_Reduce_scatter_block_intra_recursive_doubling;
        f(sb, dummy, nbytes, MPI_BYTE, op, &c, &e);
    } else if (!strncmp(algo, "reduce_scatter_", 15)) {
        rs_t f = strstr(algo, "halving") ? MPIR_Reduce_scatter_intra_recursive_halving : strstr(algo, "pairwise") ? MPIR_Reduce_scatter_intra_pairwise : strstr(algo, "noncomm") ? MPIR_Reduce_scatter_intra_noncommutative : MPIR_Reduce_scatter_intra_recursive_doubling;
        for (int i = 0; i < P; i++) sc[i] = cnt[i];
        f(sb, dummy, sc, MPI_BYTE, op, &c, &e);
    } else if (IS("noop")) {
    } else { fprintf(stderr, "unknown algo %s\n", algo); abort(); }
    return NULL;
}

int main(int argc, char **argv) {
    algo = argv[1]; P = atoi(argv[2]); root = atoi(argv[3]); nbytes = atol(argv[4]); count = atol(argv[5]);
    elem = atol(argv[6]); comm_ = atoi(argv[7]); inplace = atoi(argv[8]);
    ncnt = argc - 9; cnt = calloc(ncnt + 1, sizeof(long));
    for (int i = 0; i < ncnt; i++) cnt[i] = atol(argv[9 + i]);
    mock_set_base(2, elem);
    mock_init(P);
    pthread_t *t = calloc(P, sizeof(pthread_t));
    for (long i = 0; i < P; i++) pthread_create(&t[i], NULL, run, (void *) i);
    for (int i = 0; i < P; i++) pthread_join(t[i], NULL);
    mock_print();
    return 0;
}
