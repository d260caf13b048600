/* psins oracle-ompi: recording mock transport and the few Open MPI runtime services the
 * coll/base, coll/tuned and coll/basic files call.
 *
 * One thread per rank. Sends are buffered (send, isend and the start of a persistent send
 * never block, synchronous mode included). A receive matches the oldest message from its
 * source with its tag; receives of one rank match in the order they were posted (a wait on
 * a later receive first matches the earlier ones it depends on, as MPI's ordering rule
 * requires). Each rank records, in posting order, S<peer>:<bytes> for a send and
 * R<peer>:<bytes> for a receive; a receive's bytes are the size of the message it
 * matched. Messages to the calling rank itself are recorded like any other. */
#include "ompimock.h"
#include <pthread.h>

ompi_request_t mock_request_null = { .kind = 0 };
ompi_datatype_t mock_type_byte = { { 1, 0, 1, 0, 1 }, 1 };
ompi_datatype_t mock_type_packed = { { 1, 0, 1, 0, 1 }, 1 };
ompi_communicator_t mock_comm_world;
static opal_convertor_t local_convertor;
opal_convertor_t *ompi_mpi_local_convertor = &local_convertor;
mca_base_framework_t ompi_coll_base_framework;

/* ---- datatypes -------------------------------------------------------------------- */
mock_counts_t mock_counts(const char *coll, int P, int me, const long *cnt, int ncnt)
{
    mock_counts_t c = { calloc(P + 1, sizeof(int)), calloc(P + 1, sizeof(int)), calloc(P + 1, sizeof(int)),
                        calloc(P + 1, sizeof(int)), calloc(P + 1, sizeof(ompi_datatype_t *)) };
    for (int i = 0; i < P; i++) c.types[i] = MPI_BYTE;
    if (strcmp(coll, "alltoallv") == 0 || strcmp(coll, "alltoallw") == 0) {
        for (int i = 0; i < P; i++) { c.sc[i] = (int) cnt[me * P + i]; c.rc[i] = (int) cnt[i * P + me]; }
    } else if (ncnt >= P) {
        for (int i = 0; i < P; i++) c.sc[i] = c.rc[i] = (int) cnt[i];
    }
    for (int i = 1; i < P; i++) { c.sd[i] = c.sd[i - 1] + c.sc[i - 1]; c.rd[i] = c.rd[i - 1] + c.rc[i - 1]; }
    return c;
}

ompi_datatype_t *mock_type_new(size_t size, ptrdiff_t extent)
{
    ompi_datatype_t *t = calloc(1, sizeof *t);
    t->super.size = size;
    t->super.lb = t->super.true_lb = 0;
    t->super.ub = t->super.true_ub = extent;
    return t;
}
int ompi_datatype_type_size(const ompi_datatype_t *t, size_t *size) { *size = t->super.size; return 0; }
int opal_datatype_type_size(const opal_datatype_t *t, size_t *size) { *size = t->size; return 0; }
int ompi_datatype_type_extent(const ompi_datatype_t *t, ptrdiff_t *e) { *e = t->super.ub - t->super.lb; return 0; }
int ompi_datatype_get_extent(const ompi_datatype_t *t, ptrdiff_t *lb, ptrdiff_t *e)
{
    *lb = t->super.lb; *e = t->super.ub - t->super.lb; return 0;
}
int ompi_datatype_get_true_extent(const ompi_datatype_t *t, ptrdiff_t *lb, ptrdiff_t *e)
{
    *lb = t->super.true_lb; *e = t->super.true_ub - t->super.true_lb; return 0;
}
ptrdiff_t opal_datatype_span(const opal_datatype_t *t, int64_t count, ptrdiff_t *gap)
{
    if (count == 0) { *gap = 0; return 0; }
    *gap = t->true_lb;
    return (t->ub - t->lb) * (count - 1) + (t->true_ub - t->true_lb);
}
int ompi_datatype_copy_content_same_ddt(const ompi_datatype_t *t, size_t count, char *dst, char *src) { return 0; }
int ompi_datatype_sndrcv(const void *sb, int sc, const ompi_datatype_t *st, void *rb, int rc, const ompi_datatype_t *rt) { return 0; }
int ompi_datatype_create_contiguous(int count, const ompi_datatype_t *old, ompi_datatype_t **nt)
{
    ptrdiff_t e = old->super.ub - old->super.lb;
    *nt = mock_type_new(old->super.size * count, e * count);
    return 0;
}
int ompi_datatype_create_vector(int count, int bl, int stride, const ompi_datatype_t *old, ompi_datatype_t **nt)
{
    ptrdiff_t e = old->super.ub - old->super.lb;
    *nt = mock_type_new(old->super.size * count * bl, count > 0 ? e * ((ptrdiff_t) (count - 1) * stride + bl) : 0);
    return 0;
}
int ompi_datatype_create_indexed(int count, const int *bl, const int *disp, const ompi_datatype_t *old, ompi_datatype_t **nt)
{
    ptrdiff_t e = old->super.ub - old->super.lb, lo = 0, hi = 0; size_t size = 0; int any = 0;
    for (int i = 0; i < count; i++) {
        if (bl[i] == 0) continue;
        ptrdiff_t a = (ptrdiff_t) disp[i] * e, b = (ptrdiff_t) (disp[i] + bl[i]) * e;
        if (!any || a < lo) lo = a;
        if (!any || b > hi) hi = b;
        any = 1; size += (size_t) bl[i] * old->super.size;
    }
    *nt = mock_type_new(size, hi - lo);
    (*nt)->super.lb = (*nt)->super.true_lb = lo;
    (*nt)->super.ub = (*nt)->super.true_ub = hi;
    return 0;
}
int ompi_datatype_create_indexed_block(int count, int bl, const int *disp, const ompi_datatype_t *old, ompi_datatype_t **nt)
{
    int *b = malloc(sizeof(int) * (count + 1));
    for (int i = 0; i < count; i++) b[i] = bl;
    int r = ompi_datatype_create_indexed(count, b, disp, old, nt);
    free(b);
    return r;
}
int ompi_datatype_commit(ompi_datatype_t **t) { return 0; }
int ompi_datatype_destroy(ompi_datatype_t **t)
{
    if (*t && !(*t)->predefined) free(*t);
    *t = NULL;
    return 0;
}
int ompi_datatype_is_predefined(const ompi_datatype_t *t) { return t->predefined; }

/* ---- convertors (only sizes) ------------------------------------------------------ */
int opal_convertor_copy_and_prepare_for_send(const opal_convertor_t *master, const opal_datatype_t *t, size_t count,
                                             const void *buf, int32_t flags, opal_convertor_t *c)
{
    c->total = t->size * count; c->done = 0; return 0;
}
int opal_convertor_get_packed_size(const opal_convertor_t *c, size_t *size) { *size = c->total; return 0; }
int opal_convertor_clone(const opal_convertor_t *src, opal_convertor_t *dst, int32_t copy_stack) { *dst = *src; return 0; }
int opal_convertor_prepare_for_send(opal_convertor_t *c, const opal_datatype_t *t, size_t count, const void *buf)
{
    c->total = t->size * count; c->done = 0; return 0;
}
int32_t opal_convertor_pack(opal_convertor_t *c, struct iovec *iov, uint32_t *iov_count, size_t *max_data)
{
    size_t room = 0;
    for (uint32_t i = 0; i < *iov_count; i++) room += iov[i].iov_len;
    if (*max_data < room) room = *max_data;
    size_t n = c->total - c->done < room ? c->total - c->done : room;
    c->done += n; *max_data = n;
    return c->done == c->total;
}
static ompi_proc_t mock_proc = { { &local_convertor } };
ompi_proc_t *ompi_comm_peer_lookup(const ompi_communicator_t *c, int peer) { return &mock_proc; }

/* ---- small coll/base utilities (own implementations of coll_base_util.c / coll_base_frame.c helpers) */
unsigned int ompi_mirror_perm(unsigned int x, int nbits)
{   /* reverse the nbits low-order bits of x */
    unsigned int r = 0;
    for (int i = 0; i < nbits; i++) if (x & (1u << i)) r |= 1u << (nbits - 1 - i);
    return r;
}
int ompi_rounddown(int num, int factor) { return num / factor * factor; }

/* ---- transport ---------------------------------------------------------------------- */
typedef struct Msg { size_t bytes; int tag; struct Msg *next; } Msg;
typedef struct { char kind; int peer; long bytes; int any, blocking_send; } Rec;
typedef struct {
    Rec *recs; int nrec, caprec;
    ompi_request_t *pending_head, *pending_tail; /* posted, unmatched receives, posting order */
    long seq;
    int state;        /* 0 running, 1 blocked, 2 finished */
    long seen_epoch;  /* post epoch at which the rank last found nothing to match */
    int active;       /* requests posted and not yet completed by a wait/test/free */
    const char *waiting_for;
} Rank;
static int P;
static Rank *ranks;
static Msg **qhead, **qtail; /* [src * P + dst] */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long epoch;
static __thread int me = -1;

void mock_init(int p)
{
    P = p;
    ranks = calloc(p, sizeof(Rank));
    qhead = calloc((size_t) p * p, sizeof(Msg *)); qtail = calloc((size_t) p * p, sizeof(Msg *));
}
void mock_set_rank(int r) { me = r; }
int mock_rank(void) { return me; }

static int record(char kind, int peer, long bytes)
{   /* caller holds mu or owns the rank exclusively */
    Rank *r = &ranks[me];
    if (r->nrec == r->caprec) { r->caprec = r->caprec * 2 + 16; r->recs = realloc(r->recs, r->caprec * sizeof(Rec)); }
    r->recs[r->nrec] = (Rec) { kind, peer, bytes, peer == MPI_ANY_SOURCE, 0 };
    return r->nrec++;
}

static void post_send(size_t count, ompi_datatype_t *t, int dst, int tag)
{
    if (dst == MPI_PROC_NULL) return;
    if (dst < 0 || dst >= P) { fprintf(stderr, "rank %d: send to invalid rank %d\n", me, dst); abort(); }
    size_t b = count * t->super.size;
    Msg *m = malloc(sizeof *m); m->bytes = b; m->tag = tag; m->next = NULL;
    pthread_mutex_lock(&mu);
    record('S', dst, (long) b);
    int q = me * P + dst;
    if (qtail[q]) qtail[q]->next = m; else qhead[q] = m;
    qtail[q] = m;
    epoch++;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static ompi_request_t *new_req(int kind, int peer, int tag, size_t posted)
{
    ompi_request_t *r = calloc(1, sizeof *r);
    r->kind = kind; r->owner = me; r->peer = peer; r->tag = tag; r->posted = posted; r->slot = -1;
    ranks[me].active++;
    return r;
}

static void post_recv(ompi_request_t *r)
{   /* r->kind == 2; called when the receive is posted (or a persistent one started) */
    if (r->peer == MPI_PROC_NULL) { r->matched = 1; r->req_status._ucount = 0; return; }
    if (r->peer != MPI_ANY_SOURCE && (r->peer < 0 || r->peer >= P)) {
        fprintf(stderr, "rank %d: receive from invalid rank %d\n", me, r->peer); abort();
    }
    pthread_mutex_lock(&mu);
    Rank *k = &ranks[me];
    r->matched = 0; r->seq = k->seq++;
    r->slot = record('R', r->peer, -1);
    r->next_pending = NULL;
    if (k->pending_tail) k->pending_tail->next_pending = r; else k->pending_head = r;
    k->pending_tail = r;
    pthread_mutex_unlock(&mu);
}

static Msg *take_msg(int src, int tag)
{   /* mu held: remove and return the oldest message src -> me with tag */
    int q = src * P + me;
    for (Msg *m = qhead[q], *prev = NULL; m; prev = m, m = m->next) {
        if (m->tag != tag) continue;
        if (prev) prev->next = m->next; else qhead[q] = m->next;
        if (qtail[q] == m) qtail[q] = prev;
        return m;
    }
    return NULL;
}

static int progress(void)
{   /* mu held: match this rank's pending receives in posting order; returns how many matched */
    Rank *k = &ranks[me];
    int n = 0;
    for (ompi_request_t *r = k->pending_head, *prev = NULL; r; ) {
        Msg *m = NULL; int src = r->peer;
        if (src == MPI_ANY_SOURCE) {
            for (int s = 0; s < P && !m; s++) if ((m = take_msg(s, r->tag))) src = s;
        } else {
            m = take_msg(src, r->tag);
        }
        if (!m) { prev = r; r = r->next_pending; continue; }
        if (m->bytes > r->posted) {
            fprintf(stderr, "truncation: rank %d receiving from %d: %zu bytes > %zu posted\n", me, src, m->bytes, r->posted);
            abort();
        }
        if (m->bytes < r->posted && getenv("ORACLE_NOTE_SHORT"))
            fprintf(stderr, "short receive: rank %d from %d got %zu of %zu posted bytes\n", me, src, m->bytes, r->posted);
        r->matched = 1;
        r->req_status.MPI_SOURCE = src; r->req_status.MPI_TAG = r->tag; r->req_status.MPI_ERROR = 0;
        r->req_status._ucount = m->bytes;
        k->recs[r->slot].bytes = (long) m->bytes;
        k->recs[r->slot].peer = src;
        free(m);
        n++;
        ompi_request_t *next = r->next_pending;
        if (prev) prev->next_pending = next; else k->pending_head = next;
        if (k->pending_tail == r) k->pending_tail = prev;
        r = next;
    }
    return n;
}

static void dump_deadlock(void)
{
    fprintf(stderr, "DEADLOCK: every rank is blocked or finished\n");
    for (int i = 0; i < P; i++) {
        fprintf(stderr, "  rank %d %s", i, ranks[i].state == 2 ? "finished" : ranks[i].state == 1 ? "blocked" : "running");
        if (ranks[i].state == 1) {
            fprintf(stderr, " in %s on", ranks[i].waiting_for);
            for (ompi_request_t *r = ranks[i].pending_head; r; r = r->next_pending) fprintf(stderr, " R%d(tag %d)", r->peer, r->tag);
        }
        fprintf(stderr, "\n");
    }
    fflush(stderr);
    _exit(3);
}

static void block(const char *what)
{   /* mu held: nothing matched; sleep until some rank posts a message */
    Rank *k = &ranks[me];
    k->state = 1; k->seen_epoch = epoch; k->waiting_for = what;
    int stuck = 1;
    for (int i = 0; i < P; i++)
        if (ranks[i].state == 0 || (ranks[i].state == 1 && ranks[i].seen_epoch != epoch)) stuck = 0;
    if (stuck) dump_deadlock();
    pthread_cond_wait(&cv, &mu);
    k->state = 0;
}

void mock_finish(void)
{
    pthread_mutex_lock(&mu);
    ranks[me].state = 2;
    int stuck = 1, any_blocked = 0;
    for (int i = 0; i < P; i++) {
        if (ranks[i].state == 0 || (ranks[i].state == 1 && ranks[i].seen_epoch != epoch)) stuck = 0;
        if (ranks[i].state == 1) any_blocked = 1;
    }
    if (stuck && any_blocked) dump_deadlock();
    pthread_mutex_unlock(&mu);
}

static void complete(ompi_request_t *r, const char *what)
{   /* wait for one request, matching earlier receives first */
    if (r == MPI_REQUEST_NULL || r->kind != 2 || r->matched) return;
    pthread_mutex_lock(&mu);
    for (;;) {
        progress();
        if (r->matched) break;
        block(what);
    }
    pthread_mutex_unlock(&mu);
}

/* ANY_SOURCE receives completed by one wait_all are reported with their sources in
 * ascending order (the real order depends on arrival timing). */
static void sort_any_source(ompi_request_t **reqs, size_t n)
{
    Rank *k = &ranks[me];
    int slots[n ? n : 1]; size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (reqs[i] != MPI_REQUEST_NULL && reqs[i]->kind == 2 && reqs[i]->slot >= 0 && k->recs[reqs[i]->slot].any)
            slots[m++] = reqs[i]->slot;
    for (size_t i = 0; i < m; i++)           /* slots ascend already (posting order) */
        for (size_t j = i + 1; j < m; j++) {
            Rec *a = &k->recs[slots[i]], *b = &k->recs[slots[j]];
            if (b->peer < a->peer || (b->peer == a->peer && b->bytes < a->bytes)) {
                Rec t = *a; *a = *b; *b = t;
            }
        }
}

static void release(ompi_request_t **rp)
{
    ompi_request_t *r = *rp;
    if (r == MPI_REQUEST_NULL || !r) return;
    if (r->persistent) return;   /* stays until ompi_request_free */
    ranks[me].active--;
    free(r);
    *rp = MPI_REQUEST_NULL;
}

/* An irecv, then one blocking send, then a wait for that irecv with no other request
 * outstanding is a send-receive (Open MPI's own ompi_coll_base_sendrecv_actual, the
 * barrier's sendrecv_zero, alltoallw in place): printed S then R, as psins prints SendRecv. */
static void sendrecv_order(ompi_request_t *r)
{
    Rank *k = &ranks[me];
    if (r == MPI_REQUEST_NULL || r->kind != 2 || r->slot < 0 || k->active != 1) return;
    if (r->slot != k->nrec - 2 || !k->recs[k->nrec - 1].blocking_send) return;
    Rec t = k->recs[r->slot]; k->recs[r->slot] = k->recs[k->nrec - 1]; k->recs[k->nrec - 1] = t;
    r->slot = k->nrec - 1;
}

int ompi_request_wait(ompi_request_t **req, ompi_status_public_t *status)
{
    sendrecv_order(*req);
    complete(*req, "wait");
    if (status && *req != MPI_REQUEST_NULL) *status = (*req)->req_status;
    release(req);
    return 0;
}
int ompi_request_wait_all(size_t count, ompi_request_t **reqs, ompi_status_public_t *statuses)
{
    for (size_t i = 0; i < count; i++) complete(reqs[i], "wait_all");
    sort_any_source(reqs, count);
    for (size_t i = 0; i < count; i++) {
        if (statuses && reqs[i] != MPI_REQUEST_NULL) statuses[i] = reqs[i]->req_status;
        release(&reqs[i]);
    }
    return 0;
}
/* wait_any completes the lowest-indexed active request (sends are complete as soon as they
 * are posted; a receive is waited for). Deterministic stand-in for arrival order. */
int ompi_request_wait_any(size_t count, ompi_request_t **reqs, int *index, ompi_status_public_t *status)
{
    for (size_t i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL || reqs[i]->kind == 0) continue;
        complete(reqs[i], "wait_any");
        if (status) *status = reqs[i]->req_status;
        *index = (int) i;
        release(&reqs[i]);
        return 0;
    }
    *index = MPI_UNDEFINED;
    return 0;
}
int ompi_request_test(ompi_request_t **req, int *completed, ompi_status_public_t *status)
{
    ompi_request_t *r = *req;
    if (r != MPI_REQUEST_NULL && r->kind == 2 && !r->matched) {
        pthread_mutex_lock(&mu); progress(); pthread_mutex_unlock(&mu);
    }
    *completed = (r == MPI_REQUEST_NULL || r->kind != 2 || r->matched);
    if (*completed) { if (status && r != MPI_REQUEST_NULL) *status = r->req_status; release(req); }
    return 0;
}
int ompi_request_free(ompi_request_t **req)
{
    if (*req != MPI_REQUEST_NULL && *req) { ranks[me].active--; free(*req); }
    *req = MPI_REQUEST_NULL;
    return 0;
}
int ompi_request_cancel(ompi_request_t *req) { return 0; }

/* ---- PML entry points ------------------------------------------------------------ */
int mock_pml_send(const void *buf, size_t count, ompi_datatype_t *t, int dst, int tag, mca_pml_base_send_mode_t mode, ompi_communicator_t *c)
{
    int n = ranks[me].nrec;
    post_send(count, t, dst, tag);
    if (ranks[me].nrec > n) ranks[me].recs[n].blocking_send = 1;
    return 0;
}
int mock_pml_isend(const void *buf, size_t count, ompi_datatype_t *t, int dst, int tag, mca_pml_base_send_mode_t mode, ompi_communicator_t *c, ompi_request_t **req)
{
    post_send(count, t, dst, tag);
    *req = new_req(1, dst, tag, 0);
    (*req)->matched = 1;
    return 0;
}
int mock_pml_irecv(void *buf, size_t count, ompi_datatype_t *t, int src, int tag, ompi_communicator_t *c, ompi_request_t **req)
{
    *req = new_req(2, src, tag, count * t->super.size);
    post_recv(*req);
    return 0;
}
int mock_pml_recv(void *buf, size_t count, ompi_datatype_t *t, int src, int tag, ompi_communicator_t *c, ompi_status_public_t *st)
{
    ompi_request_t *r;
    mock_pml_irecv(buf, count, t, src, tag, c, &r);
    return ompi_request_wait(&r, st);
}
/* persistent requests: recorded when started */
int mock_pml_isend_init(const void *buf, size_t count, ompi_datatype_t *t, int dst, int tag, mca_pml_base_send_mode_t mode, ompi_communicator_t *c, ompi_request_t **req)
{
    *req = new_req(1, dst, tag, count * t->super.size);
    (*req)->persistent = 1;
    return 0;
}
int mock_pml_irecv_init(void *buf, size_t count, ompi_datatype_t *t, int src, int tag, ompi_communicator_t *c, ompi_request_t **req)
{
    *req = new_req(2, src, tag, count * t->super.size);
    (*req)->persistent = 1;
    return 0;
}
int mock_pml_start(size_t n, ompi_request_t **reqs)
{
    for (size_t i = 0; i < n; i++) {
        ompi_request_t *r = reqs[i];
        if (r->kind == 1) { post_send(r->posted, &mock_type_byte, r->peer, r->tag); r->matched = 1; }
        else if (r->kind == 2) post_recv(r);
    }
    return 0;
}

/* ompi_coll_base_sendrecv_actual (coll_base_util.c): irecv, blocking send, wait; the wait
 * prints it as S then R (sendrecv_order). */
int ompi_coll_base_sendrecv_actual(const void *sendbuf, size_t scount, ompi_datatype_t *sdatatype, int dest, int stag,
                                   void *recvbuf, size_t rcount, ompi_datatype_t *rdatatype, int source, int rtag,
                                   struct ompi_communicator_t *comm, ompi_status_public_t *status)
{
    ompi_request_t *r;
    mock_pml_irecv(recvbuf, rcount, rdatatype, source, rtag, comm, &r);
    mock_pml_send(sendbuf, scount, sdatatype, dest, stag, MCA_PML_BASE_SEND_STANDARD, comm);
    return ompi_request_wait(&r, status);
}

void mock_print(void)
{
    for (int r = 0; r < P; r++) {
        printf("rank %d:", r);
        for (int i = 0; i < ranks[r].nrec; i++) printf(" %c%d:%ld", ranks[r].recs[i].kind, ranks[r].recs[i].peer, ranks[r].recs[i].bytes);
        printf("\n");
    }
}
