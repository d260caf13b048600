/* psins oracle-ompi, libnbc: a stand-in for coll/libnbc's nbc_internal.h and coll_libnbc.h.
 * Open MPI's nbc_i*.c files build each collective's schedule with the NBC_Sched_* calls
 * declared here; nbc_driver.c implements them by printing what each schedules (sends and
 * receives with their peers and byte counts, and the ends of rounds), so the schedules can
 * be compared with psins's. No schedule cache (NBC_CACHE_SCHEDULE stays undefined), no
 * progress engine: nothing is sent. */
#ifndef PSINS_NBC_INTERNAL_H
#define PSINS_NBC_INTERNAL_H
#include "ompimock.h"
#include "opal/align.h"
typedef ompi_info_t *MPI_Info;

#define OPAL_CUDA_SUPPORT 0
#define __opal_attribute_unused__ __attribute__((unused))
#ifndef MPI_ERR_SIZE
#define MPI_ERR_SIZE 51
#endif
#ifndef OMPI_ERR_NOT_SUPPORTED
#define OMPI_ERR_NOT_SUPPORTED (-8)
#endif
#define OBJ_NEW(t) ((t *) calloc(1, sizeof(t)))

typedef struct NBC_Schedule { opal_object_t super; int unused; } NBC_Schedule;
typedef struct ompi_coll_libnbc_module_t { mca_coll_base_module_t super; } ompi_coll_libnbc_module_t;
typedef struct ompi_coll_libnbc_request_t { ompi_request_t request; } ompi_coll_libnbc_request_t;
typedef ompi_coll_libnbc_request_t NBC_Handle;
typedef struct { ompi_coll_libnbc_request_t request; } mock_request_null_t;
extern mock_request_null_t ompi_request_null;

/* the component's settings (coll_libnbc_component.c), at their defaults in nbc_driver.c */
extern bool libnbc_ibcast_skip_dt_decision;
extern int libnbc_iallgather_algorithm, libnbc_iallreduce_algorithm, libnbc_ibcast_algorithm,
    libnbc_ibcast_knomial_radix, libnbc_iexscan_algorithm, libnbc_ireduce_algorithm, libnbc_iscan_algorithm;

/* the smallest r with 2^r >= val */
static inline int ceil_of_log2(int val)
{
    int r = 0;
    while ((1 << r) < val) r++;
    return r;
}

#define NBC_IN_PLACE(sendbuf, recvbuf, inplace) \
    do { \
        inplace = 0; \
        if ((recvbuf) == (sendbuf) && MPI_BOTTOM != (sendbuf)) { \
            inplace = 1; \
        } else if ((sendbuf) == MPI_IN_PLACE) { \
            sendbuf = recvbuf; \
            inplace = 1; \
        } \
    } while (0)

int NBC_Sched_send(const void *buf, char tmpbuf, size_t count, MPI_Datatype datatype, int dest,
                   NBC_Schedule *schedule, bool barrier);
int NBC_Sched_local_send(const void *buf, char tmpbuf, size_t count, MPI_Datatype datatype, int dest,
                         NBC_Schedule *schedule, bool barrier);
int NBC_Sched_recv(void *buf, char tmpbuf, size_t count, MPI_Datatype datatype, int source,
                   NBC_Schedule *schedule, bool barrier);
int NBC_Sched_local_recv(void *buf, char tmpbuf, size_t count, MPI_Datatype datatype, int source,
                         NBC_Schedule *schedule, bool barrier);
int NBC_Sched_op(const void *buf1, char tmpbuf1, void *buf2, char tmpbuf2, size_t count, MPI_Datatype datatype,
                 MPI_Op op, NBC_Schedule *schedule, bool barrier);
int NBC_Sched_copy(void *src, char tmpsrc, size_t srccount, MPI_Datatype srctype, void *tgt, char tmptgt,
                   size_t tgtcount, MPI_Datatype tgttype, NBC_Schedule *schedule, bool barrier);
int NBC_Sched_unpack(void *inbuf, char tmpinbuf, size_t count, MPI_Datatype datatype, void *outbuf,
                     char tmpoutbuf, NBC_Schedule *schedule, bool barrier);
int NBC_Sched_barrier(NBC_Schedule *schedule);
int NBC_Sched_commit(NBC_Schedule *schedule);
int NBC_Start(NBC_Handle *handle);
int NBC_Schedule_request(NBC_Schedule *schedule, ompi_communicator_t *comm, ompi_coll_libnbc_module_t *module,
                         bool persistent, ompi_request_t **request, void *tmpbuf);
void NBC_Return_handle(ompi_coll_libnbc_request_t *request);
int nbc_get_noop_request(bool persistent, ompi_request_t **request);
int ompi_datatype_pack_external_size(const char *rep, int count, MPI_Datatype t, MPI_Aint *size);
int ompi_datatype_pack_external(const char *rep, const void *in, int count, MPI_Datatype t, void *out,
                                MPI_Aint outsize, MPI_Aint *position);

static inline void NBC_Error(const char *format, ...) { (void) format; }
static inline int NBC_Type_intrinsic(MPI_Datatype type) { (void) type; return 1; }
static inline int NBC_Copy(const void *src, int srccount, MPI_Datatype srctype, void *tgt, int tgtcount,
                           MPI_Datatype tgttype, MPI_Comm comm)
{
    (void) src; (void) srccount; (void) srctype; (void) tgt; (void) tgtcount; (void) tgttype; (void) comm;
    return OMPI_SUCCESS;
}
/* the entry points the driver calls (coll_libnbc.h's declarations, so that a mismatch with the
 * definitions in nbc_i*.c does not compile) */
int ompi_coll_libnbc_ibarrier(struct ompi_communicator_t *comm, ompi_request_t **request,
                              struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_ibcast(void *buffer, int count, MPI_Datatype datatype, int root, struct ompi_communicator_t *comm,
                            ompi_request_t **request, struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                struct ompi_communicator_t *comm, ompi_request_t **request,
                                struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                             struct ompi_communicator_t *comm, ompi_request_t **request,
                             struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, struct ompi_communicator_t *comm,
                             ompi_request_t **request, struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, struct ompi_communicator_t *comm,
                              ompi_request_t **request, struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                              const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                              struct ompi_communicator_t *comm, ompi_request_t **request,
                              struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_iscatterv(const void *sendbuf, const int *sendcounts, const int *displs, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                               struct ompi_communicator_t *comm, ompi_request_t **request,
                               struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, struct ompi_communicator_t *comm,
                                ompi_request_t **request, struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                                 struct ompi_communicator_t *comm, ompi_request_t **request,
                                 struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               int recvcount, MPI_Datatype recvtype, struct ompi_communicator_t *comm,
                               ompi_request_t **request, struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_ialltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls, MPI_Datatype sendtype,
                                void *recvbuf, const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                                struct ompi_communicator_t *comm, ompi_request_t **request,
                                struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_ialltoallw(const void *sbuf, const int *scounts, const int *sdisps,
                                struct ompi_datatype_t *const *sdtypes, void *rbuf, const int *rcounts,
                                const int *rdisps, struct ompi_datatype_t *const *rdtypes,
                                struct ompi_communicator_t *comm, ompi_request_t **request,
                                struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_ireduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts, MPI_Datatype datatype,
                                     MPI_Op op, struct ompi_communicator_t *comm, ompi_request_t **request,
                                     struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, struct ompi_datatype_t *dtype,
                                           struct ompi_op_t *op, struct ompi_communicator_t *comm,
                                           ompi_request_t **request, struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           struct ompi_communicator_t *comm, ompi_request_t **request,
                           struct mca_coll_base_module_2_3_0_t *module);
int ompi_coll_libnbc_iexscan(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                             struct ompi_op_t *op, struct ompi_communicator_t *comm, ompi_request_t **request,
                             struct mca_coll_base_module_2_3_0_t *module);
#endif
