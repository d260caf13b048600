/* Mock transport: P threads, eager buffered sends, blocking receives; records each rank's
 * sends and receives (peer, bytes) in call order, messages to the calling rank itself
 * included (MPICH sends them through the device; psins-collectives expands them). */
#include "mpiimpl.h"
#include <pthread.h>

int MPIR_CVAR_GATHER_VSMALL_MSG_SIZE = 1024, MPIR_CVAR_GATHERV_INTER_SSEND_MIN_PROCS = 32,
    MPIR_CVAR_ALLTOALL_THROTTLE = 32, MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE = 32768;

#define MAXT (1 << 22)
static MPI_Aint type_sizes[MAXT];
static int ntypes = 100;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

MPI_Aint mock_type_size(MPI_Datatype t) { return t == MPI_BYTE ? 1 : type_sizes[t]; }
MPI_Datatype mock_type_new(MPI_Aint size) {
    pthread_mutex_lock(&mu);
    int t = ntypes++;
    assert(t < MAXT);
    type_sizes[t] = size;
    pthread_mutex_unlock(&mu);
    return t;
}
void mock_set_base(int t, MPI_Aint size) { type_sizes[t] = size; }
int MPIR_Type_indexed_impl(int n, const int *bl, const int *d, MPI_Datatype old, MPI_Datatype *nt) {
    MPI_Aint s = 0; for (int i = 0; i < n; i++) s += bl[i];
    *nt = mock_type_new(s * mock_type_size(old)); return 0;
}
int MPIR_Type_create_indexed_block_impl(int n, int bl, const int *d, MPI_Datatype old, MPI_Datatype *nt) {
    *nt = mock_type_new((MPI_Aint) n * bl * mock_type_size(old)); return 0;
}
int MPIR_Type_create_struct_impl(int n, const int *bl, const MPI_Aint *d, const MPI_Datatype *old, MPI_Datatype *nt) {
    MPI_Aint s = 0; for (int i = 0; i < n; i++) s += (MPI_Aint) bl[i] * mock_type_size(old[i]);
    *nt = mock_type_new(s); return 0;
}
int MPIR_Type_contiguous_x_impl(MPI_Aint n, MPI_Datatype old, MPI_Datatype *nt) {
    *nt = mock_type_new(n * mock_type_size(old)); return 0;
}
int MPIR_Reduce_local(const void *a, void *b, MPI_Aint c, MPI_Datatype t, MPI_Op op) { return 0; }
int MPIR_Op_is_commutative(MPI_Op op) { return op == 1; }
void MPIR_Get_count_impl(const MPI_Status *st, MPI_Datatype t, MPI_Aint *count) {
    MPI_Aint s = mock_type_size(t); *count = s ? st->count / s : 0;
}

typedef struct Msg { MPI_Aint bytes; int tag; struct Msg *next; } Msg;
static int P;
static Msg **qhead, **qtail; /* [src * P + dst] */
typedef struct { char kind; int peer; MPI_Aint bytes; } Rec;
static Rec **recs; static int *nrec, *caprec;
static __thread int me;

static int record(char kind, int peer, MPI_Aint bytes) {
    if (nrec[me] == caprec[me]) { caprec[me] = caprec[me] * 2 + 16; recs[me] = realloc(recs[me], caprec[me] * sizeof(Rec)); }
    recs[me][nrec[me]] = (Rec) { kind, peer, bytes };
    return nrec[me]++;
}
static void post(int dst, MPI_Aint bytes, int tag) {
    Msg *m = malloc(sizeof *m); m->bytes = bytes; m->tag = tag; m->next = NULL;
    pthread_mutex_lock(&mu);
    int q = me * P + dst;
    if (qtail[q]) qtail[q]->next = m; else qhead[q] = m;
    qtail[q] = m;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}
static MPI_Aint take(int src, int tag, MPI_Aint posted) {
    pthread_mutex_lock(&mu);
    int q = src * P + me;
    for (;;) {
        Msg *prev = NULL;
        for (Msg *m = qhead[q]; m; prev = m, m = m->next) {
            if (m->tag != tag) continue;
            if (prev) prev->next = m->next; else qhead[q] = m->next;
            if (qtail[q] == m) qtail[q] = prev;
            pthread_mutex_unlock(&mu);
            MPI_Aint b = m->bytes; free(m);
            if (b > posted) { fprintf(stderr, "truncation: %d<-%d %ld > %ld\n", me, src, b, posted); abort(); }
            return b;
        }
        pthread_cond_wait(&cv, &mu);
    }
}
static void do_send(MPI_Aint count, MPI_Datatype t, int dst, int tag) {
    if (dst == MPI_PROC_NULL) return;
    MPI_Aint b = count * mock_type_size(t); record('S', dst, b); post(dst, b, tag);
}
static MPI_Aint do_recv(MPI_Aint count, MPI_Datatype t, int src, int tag, MPI_Status *st) {
    MPI_Aint b = take(src, tag, count * mock_type_size(t)); record('R', src, b);
    if (st) st->count = (int) b;
    return b;
}
int MPIC_Send(const void *buf, MPI_Aint count, MPI_Datatype t, int dest, int tag, MPIR_Comm *c, MPIR_Errflag_t *e) { do_send(count, t, dest, tag); return 0; }
int MPIC_Ssend(const void *buf, MPI_Aint count, MPI_Datatype t, int dest, int tag, MPIR_Comm *c, MPIR_Errflag_t *e) { do_send(count, t, dest, tag); return 0; }
int MPIC_Recv(void *buf, MPI_Aint count, MPI_Datatype t, int src, int tag, MPIR_Comm *c, MPI_Status *st, MPIR_Errflag_t *e) { do_recv(count, t, src, tag, st); return 0; }
int MPIC_Sendrecv(const void *sb, MPI_Aint sc, MPI_Datatype st_, int dest, int stag, void *rb, MPI_Aint rc, MPI_Datatype rt, int src, int rtag, MPIR_Comm *c, MPI_Status *st, MPIR_Errflag_t *e) {
    do_send(sc, st_, dest, stag); do_recv(rc, rt, src, rtag, st); return 0;
}
int MPIC_Sendrecv_replace(void *buf, MPI_Aint count, MPI_Datatype t, int dest, int stag, int src, int rtag, MPIR_Comm *c, MPI_Status *st, MPIR_Errflag_t *e) {
    do_send(count, t, dest, stag); do_recv(count, t, src, rtag, st); return 0;
}
struct MPIR_Request { int is_recv, src, tag, slot; MPI_Aint posted; };
int MPIC_Isend(const void *buf, MPI_Aint count, MPI_Datatype t, int dest, int tag, MPIR_Comm *c, MPIR_Request **r, MPIR_Errflag_t *e) {
    *r = calloc(1, sizeof **r); do_send(count, t, dest, tag); return 0;
}
int MPIC_Irecv(void *buf, MPI_Aint count, MPI_Datatype t, int src, int tag, MPIR_Comm *c, MPIR_Request **r) {
    *r = calloc(1, sizeof **r);
    (*r)->is_recv = 1; (*r)->src = src; (*r)->tag = tag; (*r)->posted = count * mock_type_size(t);
    (*r)->slot = record('R', src, -1);
    return 0;
}
int MPIC_Waitall(int n, MPIR_Request *reqs[], MPI_Status sts[], MPIR_Errflag_t *e) {
    for (int i = 0; i < n; i++) {
        MPIR_Request *r = reqs[i];
        if (r->is_recv) {
            MPI_Aint b = take(r->src, r->tag, r->posted);
            if (r->slot >= 0) recs[me][r->slot].bytes = b;
        }
        free(r);
    }
    return 0;
}

void mock_init(int p) {
    P = p;
    qhead = calloc((size_t) p * p, sizeof(Msg *)); qtail = calloc((size_t) p * p, sizeof(Msg *));
    recs = calloc(p, sizeof(Rec *)); nrec = calloc(p, sizeof(int)); caprec = calloc(p, sizeof(int));
}
void mock_set_rank(int r) { me = r; }
void mock_print(void) {
    for (int r = 0; r < P; r++) {
        printf("rank %d:", r);
        for (int i = 0; i < nrec[r]; i++) printf(" %c%d:%ld", recs[r][i].kind, recs[r][i].peer, recs[r][i].bytes);
        printf("\n");
    }
}
