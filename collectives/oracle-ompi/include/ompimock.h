/* psins oracle-ompi: a small stand-in for the Open MPI / OPAL internals that the coll/base,
 * coll/tuned and coll/basic algorithm files use. Every header those files include from
 * outside ompi/mca/coll/ resolves (through the small files next to this one) to this one
 * header; the coll/ headers themselves are read from the Open MPI source tree.
 * Point-to-point calls go to the recording mock transport in mock.c. Nothing here moves
 * data: copies and reductions are no-ops, only message sizes and peers matter. */
#ifndef PSINS_OMPIMOCK_H
#define PSINS_OMPIMOCK_H
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <limits.h>
#include <assert.h>
#include <sys/uio.h>

#define BEGIN_C_DECLS
#define END_C_DECLS
#define OMPI_DECLSPEC
#define OMPI_MODULE_DECLSPEC
#define OPAL_DECLSPEC
#define OPAL_LIKELY(x) (x)
#define OPAL_UNLIKELY(x) (x)
#define OPAL_ENABLE_DEBUG 0
#define OPAL_ENABLE_HETEROGENEOUS_SUPPORT 0
#define OPAL_ENABLE_FT_MPI 0
#define OPAL_C_HAVE_BUILTIN_CLZ 0
#define OPAL_OUTPUT(x) do { } while (0)
#define opal_output(...) do { } while (0)
#define opal_output_verbose(...) do { } while (0)
#define opal_show_help(...) (0)

/* error codes */
#define MPI_SUCCESS 0
#define OMPI_SUCCESS 0
#define OPAL_SUCCESS 0
#define MPI_ERR_ARG 12
#define MPI_ERR_INTERN 16
#define MPI_ERR_IN_STATUS 17
#define MPI_ERR_PENDING 18
#define MPI_ERR_UNSUPPORTED_OPERATION 52
#define OMPI_ERROR (-1)
#define OMPI_ERR_OUT_OF_RESOURCE (-2)
#define OMPI_ERR_NOT_IMPLEMENTED (-8)
#define OMPI_ERR_BAD_PARAM (-5)

typedef ptrdiff_t MPI_Aint;
typedef long long MPI_Count;
#define MPI_UNDEFINED (-32766)
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-4)
#define MPI_IN_PLACE ((void *) 1)
#define MPI_BOTTOM ((void *) 0)

/* objects: no reference counting is needed for the oracle */
typedef struct opal_object_t { int obj_refcount; } opal_object_t;
typedef struct opal_list_item_t { opal_object_t super; struct opal_list_item_t *next, *prev; } opal_list_item_t;
typedef struct opal_list_t { opal_object_t super; } opal_list_t;
#define OBJ_CLASS_DECLARATION(t) extern int mock_class_##t
#define OBJ_CLASS_INSTANCE(...) 
#define OBJ_CONSTRUCT(p, t) do { } while (0)
#define OBJ_DESTRUCT(p) do { } while (0)
#define OBJ_RELEASE(p) do { } while (0)
#define OBJ_RETAIN(p) do { } while (0)
#define OPAL_ATOMIC_COMPARE_EXCHANGE_STRONG_32(p, o, n) (*(p) = (n), 1)

/* statuses and requests */
typedef struct ompi_status_public_t { int MPI_SOURCE, MPI_TAG, MPI_ERROR; int _cancelled; size_t _ucount; } ompi_status_public_t;
typedef ompi_status_public_t MPI_Status;
#define MPI_STATUS_IGNORE ((ompi_status_public_t *) 0)
#define MPI_STATUSES_IGNORE ((ompi_status_public_t *) 0)
struct ompi_request_t;
typedef int (*ompi_request_complete_fn_t)(struct ompi_request_t *);
typedef int (*ompi_request_free_fn_t)(struct ompi_request_t **);
typedef struct ompi_request_t {
    opal_object_t super;
    ompi_status_public_t req_status;
    int kind;            /* 0 null, 1 send, 2 receive */
    int owner, peer, tag, slot, matched;
    int persistent;      /* isend_init / irecv_init: recorded when started, freed by ompi_request_free */
    size_t posted;       /* receive: bytes posted */
    long seq;            /* posting order within the owner rank */
    struct ompi_request_t *next_pending;
} ompi_request_t;
typedef ompi_request_t *MPI_Request;
extern ompi_request_t mock_request_null;
#define MPI_REQUEST_NULL (&mock_request_null)
int ompi_request_wait(ompi_request_t **req, ompi_status_public_t *status);
int ompi_request_wait_all(size_t count, ompi_request_t **reqs, ompi_status_public_t *statuses);
int ompi_request_wait_any(size_t count, ompi_request_t **reqs, int *index, ompi_status_public_t *status);
int ompi_request_test(ompi_request_t **req, int *completed, ompi_status_public_t *status);
int ompi_request_free(ompi_request_t **req);
int ompi_request_cancel(ompi_request_t *req);

/* datatypes: size, extent (lb..ub) and true extent; no layout */
typedef struct opal_datatype_t { size_t size; ptrdiff_t lb, ub, true_lb, true_ub; int align; } opal_datatype_t;
typedef struct ompi_datatype_t { opal_datatype_t super; int predefined; } ompi_datatype_t;
typedef ompi_datatype_t *MPI_Datatype;
extern ompi_datatype_t mock_type_byte, mock_type_packed;
#define MPI_BYTE (&mock_type_byte)
#define MPI_PACKED (&mock_type_packed)
#define MPI_DATATYPE_NULL ((ompi_datatype_t *) 0)
ompi_datatype_t *mock_type_new(size_t size, ptrdiff_t extent);

/* The counts and displacements (bytes, MPI_BYTE each) both drivers pass to a v/w collective:
 * rank me's row (sends) and column (receives) of alltoallv's P x P matrix cnt, else cnt's
 * first P entries both ways (when there are that many); arrays of P + 1, freed by the caller. */
typedef struct {
    int *sc, *rc, *sd, *rd;
    ompi_datatype_t **types;
} mock_counts_t;
mock_counts_t mock_counts(const char *coll, int P, int me, const long *cnt, int ncnt);
int ompi_datatype_type_size(const ompi_datatype_t *t, size_t *size);
int ompi_datatype_type_extent(const ompi_datatype_t *t, ptrdiff_t *extent);
int ompi_datatype_get_extent(const ompi_datatype_t *t, ptrdiff_t *lb, ptrdiff_t *extent);
int ompi_datatype_get_true_extent(const ompi_datatype_t *t, ptrdiff_t *lb, ptrdiff_t *extent);
int ompi_datatype_copy_content_same_ddt(const ompi_datatype_t *t, size_t count, char *dst, char *src);
int ompi_datatype_sndrcv(const void *sb, int sc, const ompi_datatype_t *st, void *rb, int rc, const ompi_datatype_t *rt);
int ompi_datatype_create_contiguous(int count, const ompi_datatype_t *old, ompi_datatype_t **nt);
int ompi_datatype_create_vector(int count, int bl, int stride, const ompi_datatype_t *old, ompi_datatype_t **nt);
int ompi_datatype_create_indexed(int count, const int *bl, const int *disp, const ompi_datatype_t *old, ompi_datatype_t **nt);
int ompi_datatype_create_indexed_block(int count, int bl, const int *disp, const ompi_datatype_t *old, ompi_datatype_t **nt);
int ompi_datatype_commit(ompi_datatype_t **t);
int ompi_datatype_destroy(ompi_datatype_t **t);
int ompi_datatype_is_predefined(const ompi_datatype_t *t);
int opal_datatype_type_size(const opal_datatype_t *t, size_t *size);
ptrdiff_t opal_datatype_span(const opal_datatype_t *t, int64_t count, ptrdiff_t *gap);

/* convertors: only the packed size is tracked */
typedef struct opal_convertor_t { size_t total, done; } opal_convertor_t;
typedef struct { int dummy; } opal_convertor_master_t;
extern opal_convertor_t *ompi_mpi_local_convertor;
int opal_convertor_copy_and_prepare_for_send(const opal_convertor_t *master, const opal_datatype_t *t, size_t count, const void *buf, int32_t flags, opal_convertor_t *c);
int opal_convertor_get_packed_size(const opal_convertor_t *c, size_t *size);
int opal_convertor_clone(const opal_convertor_t *src, opal_convertor_t *dst, int32_t copy_stack);
int opal_convertor_prepare_for_send(opal_convertor_t *c, const opal_datatype_t *t, size_t count, const void *buf);
int32_t opal_convertor_pack(opal_convertor_t *c, struct iovec *iov, uint32_t *iov_count, size_t *max_data);

/* operations */
typedef struct ompi_op_t { int commute; } ompi_op_t;
typedef ompi_op_t *MPI_Op;
static inline bool ompi_op_is_commute(const ompi_op_t *op) { return op->commute != 0; }
static inline bool ompi_op_is_intrinsic(const ompi_op_t *op) { return true; }
static inline void ompi_op_reduce(ompi_op_t *op, const void *src, void *dst, size_t count, ompi_datatype_t *t) { }
static inline void ompi_3buff_op_reduce(ompi_op_t *op, const void *a, const void *b, void *dst, int count, ompi_datatype_t *t) { }

/* processes (alltoallw in place asks for the peer's convertor) */
typedef struct { opal_convertor_t *proc_convertor; } opal_proc_t;
typedef struct ompi_proc_t { opal_proc_t super; } ompi_proc_t;

/* MCA variables (only the registration calls in the tuned decision files use these) */
typedef struct { int value; const char *string; } mca_base_var_enum_value_t;
typedef struct mca_base_var_enum_t { int dummy; } mca_base_var_enum_t;
typedef struct { int framework_output; } mca_base_framework_t;
typedef struct { int dummy; } ompi_info_t;
enum { MCA_BASE_VAR_TYPE_INT = 0, MCA_BASE_VAR_FLAG_SETTABLE = 0, MCA_BASE_VAR_FLAG_DEFAULT_ONLY = 0,
       MCA_BASE_VAR_SCOPE_ALL = 0, MCA_BASE_VAR_SCOPE_CONSTANT = 0, MCA_BASE_VAR_SCOPE_READONLY = 0,
       OPAL_INFO_LVL_1 = 0, OPAL_INFO_LVL_5 = 0, OPAL_INFO_LVL_6 = 0, OPAL_INFO_LVL_9 = 0 };
#define mca_base_component_var_register(...) (0)
#define mca_base_var_enum_create(...) (0)

/* coll framework: the module, the per-communicator table of selected functions */
typedef struct { int collm_version; } mca_coll_base_component_2_0_0_t;
typedef mca_coll_base_component_2_0_0_t mca_coll_base_component_t;
struct mca_coll_base_comm_t;
typedef struct mca_coll_base_module_2_3_0_t {
    opal_object_t super;
    struct mca_coll_base_comm_t *base_data;
} mca_coll_base_module_t;
typedef mca_coll_base_module_t mca_coll_base_module_2_3_0_t;
struct ompi_communicator_t;
#define MOCK_C const void *
#define MOCK_DT struct ompi_datatype_t *
#define MOCK_CM struct ompi_communicator_t *
#define MOCK_MD mca_coll_base_module_t *
typedef struct mca_coll_base_comm_coll_t {
    int (*coll_allgather)(MOCK_C, int, MOCK_DT, void *, int, MOCK_DT, MOCK_CM, MOCK_MD);
    MOCK_MD coll_allgather_module;
    int (*coll_allgatherv)(MOCK_C, int, MOCK_DT, void *, const int *, const int *, MOCK_DT, MOCK_CM, MOCK_MD);
    MOCK_MD coll_allgatherv_module;
    int (*coll_allreduce)(MOCK_C, void *, int, MOCK_DT, struct ompi_op_t *, MOCK_CM, MOCK_MD);
    MOCK_MD coll_allreduce_module;
    int (*coll_alltoall)(MOCK_C, int, MOCK_DT, void *, int, MOCK_DT, MOCK_CM, MOCK_MD);
    MOCK_MD coll_alltoall_module;
    int (*coll_alltoallv)(MOCK_C, const int *, const int *, MOCK_DT, void *, const int *, const int *, MOCK_DT, MOCK_CM, MOCK_MD);
    MOCK_MD coll_alltoallv_module;
    int (*coll_alltoallw)(MOCK_C, const int *, const int *, MOCK_DT const *, void *, const int *, const int *, MOCK_DT const *, MOCK_CM, MOCK_MD);
    MOCK_MD coll_alltoallw_module;
    int (*coll_barrier)(MOCK_CM, MOCK_MD);
    MOCK_MD coll_barrier_module;
    int (*coll_bcast)(void *, int, MOCK_DT, int, MOCK_CM, MOCK_MD);
    MOCK_MD coll_bcast_module;
    int (*coll_exscan)(MOCK_C, void *, int, MOCK_DT, struct ompi_op_t *, MOCK_CM, MOCK_MD);
    MOCK_MD coll_exscan_module;
    int (*coll_gather)(MOCK_C, int, MOCK_DT, void *, int, MOCK_DT, int, MOCK_CM, MOCK_MD);
    MOCK_MD coll_gather_module;
    int (*coll_gatherv)(MOCK_C, int, MOCK_DT, void *, const int *, const int *, MOCK_DT, int, MOCK_CM, MOCK_MD);
    MOCK_MD coll_gatherv_module;
    int (*coll_reduce)(MOCK_C, void *, int, MOCK_DT, struct ompi_op_t *, int, MOCK_CM, MOCK_MD);
    MOCK_MD coll_reduce_module;
    int (*coll_reduce_scatter)(MOCK_C, void *, const int *, MOCK_DT, struct ompi_op_t *, MOCK_CM, MOCK_MD);
    MOCK_MD coll_reduce_scatter_module;
    int (*coll_reduce_scatter_block)(MOCK_C, void *, int, MOCK_DT, struct ompi_op_t *, MOCK_CM, MOCK_MD);
    MOCK_MD coll_reduce_scatter_block_module;
    int (*coll_scan)(MOCK_C, void *, int, MOCK_DT, struct ompi_op_t *, MOCK_CM, MOCK_MD);
    MOCK_MD coll_scan_module;
    int (*coll_scatter)(MOCK_C, int, MOCK_DT, void *, int, MOCK_DT, int, MOCK_CM, MOCK_MD);
    MOCK_MD coll_scatter_module;
    int (*coll_scatterv)(MOCK_C, const int *, const int *, MOCK_DT, void *, int, MOCK_DT, int, MOCK_CM, MOCK_MD);
    MOCK_MD coll_scatterv_module;
} mca_coll_base_comm_coll_t;

/* communicators: one intra-communicator per rank (thread) */
typedef struct ompi_communicator_t {
    int c_my_rank, c_size, c_contextid;
    int c_cube_dim;      /* opal_cube_dim(size), cached as Open MPI does */
    int32_t c_nbc_tag;
    const char *c_name;
    mca_coll_base_comm_coll_t *c_coll;
} ompi_communicator_t;
typedef ompi_communicator_t *MPI_Comm;
extern ompi_communicator_t mock_comm_world; /* only named by the MCA registration code */
#define MPI_COMM_WORLD (&mock_comm_world)
static inline int ompi_comm_size(const ompi_communicator_t *c) { return c->c_size; }
static inline int ompi_comm_rank(const ompi_communicator_t *c) { return c->c_my_rank; }
static inline int ompi_comm_remote_size(const ompi_communicator_t *c) { return 0; }
#define OMPI_COMM_IS_INTER(c) 0
#define OMPI_COMM_IS_INTRA(c) 1
ompi_proc_t *ompi_comm_peer_lookup(const ompi_communicator_t *c, int peer);

/* point-to-point: MCA_PML_CALL(send(...)) becomes mock_pml_send(...) */
typedef enum { MCA_PML_BASE_SEND_SYNCHRONOUS, MCA_PML_BASE_SEND_COMPLETE, MCA_PML_BASE_SEND_BUFFERED,
               MCA_PML_BASE_SEND_READY, MCA_PML_BASE_SEND_STANDARD } mca_pml_base_send_mode_t;
#define MCA_PML_CALL(a) mock_pml_##a
int mock_pml_send(const void *buf, size_t count, ompi_datatype_t *t, int dst, int tag, mca_pml_base_send_mode_t mode, ompi_communicator_t *c);
int mock_pml_isend(const void *buf, size_t count, ompi_datatype_t *t, int dst, int tag, mca_pml_base_send_mode_t mode, ompi_communicator_t *c, ompi_request_t **req);
int mock_pml_recv(void *buf, size_t count, ompi_datatype_t *t, int src, int tag, ompi_communicator_t *c, ompi_status_public_t *st);
int mock_pml_irecv(void *buf, size_t count, ompi_datatype_t *t, int src, int tag, ompi_communicator_t *c, ompi_request_t **req);

/* OPAL bit helpers (same results as opal/util/bit_ops.h; written from their documented meaning) */
static inline int opal_hibit(int value, int start)
{   /* highest set bit of value below bit position start, or -1 */
    for (int b = start - 1; b >= 0; b--) if (value & (1 << b)) return b;
    return -1;
}
static inline int opal_cube_dim(int value)
{   /* ceil(log2(value)), 0 for value <= 1 */
    int d = 0; while ((1 << d) < value) d++; return d;
}
static inline int opal_next_poweroftwo(int value)
{   /* smallest power of two strictly above value */
    int p = 1; while (p <= value) p <<= 1; return p;
}
static inline int opal_next_poweroftwo_inclusive(int value)
{   /* smallest power of two not below value */
    int p = 1; while (p < value) p <<= 1; return p;
}
#endif
