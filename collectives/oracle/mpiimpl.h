/* Minimal stand-in for MPICH's internal header: just enough for the intra-communicator
 * collective algorithm files to compile against a recording mock transport. */
#ifndef MOCK_MPIIMPL_H
#define MOCK_MPIIMPL_H
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <assert.h>
typedef long MPI_Aint;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Comm;
typedef struct { int count; int MPI_SOURCE; int MPI_TAG; int MPI_ERROR; } MPI_Status;
#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_STATUSES_IGNORE ((MPI_Status*)0)
#define MPI_IN_PLACE ((void*)-1)
#define MPI_BOTTOM ((void*)0)
#define MPI_SUCCESS 0
#define MPI_ERR_OTHER 15
#define MPI_ERR_IN_STATUS 17
#define MPI_PROC_NULL (-1)
#define MPI_ROOT (-3)
#define MPI_DATATYPE_NULL 0
#define MPI_BYTE 1
enum { MPIR_COMM_KIND__INTRACOMM = 0, MPIR_COMM_KIND__INTERCOMM = 1 };
typedef int MPIR_Errflag_t;
#define MPIR_ERR_NONE 0
#define MPIR_ERR_PROC_FAILED 1
#define MPIR_ERR_OTHER 2
#define MPIX_ERR_PROC_FAILED 101
typedef struct { int pof2; } MPIR_Coll_info;
typedef struct MPIR_Comm { int local_size, remote_size, rank, comm_kind; MPIR_Coll_info coll; } MPIR_Comm;
typedef struct MPIR_Request MPIR_Request;
#define ATTRIBUTE(x)
#define MPIR_FUNC_ENTER
#define MPIR_FUNC_EXIT
#define MPIR_CHKLMEM_DECL(n_)
#define MPIR_CHKLMEM_MALLOC(p_, t_, n_, rc_, name_, cls_) do { p_ = (t_) malloc((n_) > 0 ? (size_t)(n_) : 1); } while (0)
#define MPIR_CHKLMEM_FREEALL()
#define MPL_MEM_BUFFER 0
#define MPL_MEM_COLL 0
#define MPIR_ERR_GET_CLASS(e_) (e_)
#define MPIR_ERR_SET(e_, c_, s_) do { (e_) = 1; } while (0)
#define MPIR_ERR_SET2(e_, c_, s_, f_, a_, b_) do { (e_) = 1; } while (0)
#define MPIR_ERR_ADD(a_, b_) do { (a_) = (b_); } while (0)
#define MPIR_ERR_CHECK(e_) do { if (e_) { fprintf(stderr, "error %d at %s:%d\n", e_, __FILE__, __LINE__); abort(); } } while (0)
#define MPIR_ERR_POP(e_) MPIR_ERR_CHECK(1)
#define MPIR_Assert(c_) assert(c_)
#define MPL_MIN(a_, b_) ((a_) < (b_) ? (a_) : (b_))
#define MPL_MAX(a_, b_) ((a_) > (b_) ? (a_) : (b_))
#define MPIR_Assign_trunc(d_, s_, t_) ((d_) = (t_)(s_))
#define HANDLE_IS_BUILTIN(h_) ((h_) < 100)
#define MPIR_get_contig_ptr(p_, lb_) ((void *)((char *)(p_) + (lb_)))
extern int MPIR_CVAR_GATHER_VSMALL_MSG_SIZE, MPIR_CVAR_GATHERV_INTER_SSEND_MIN_PROCS,
    MPIR_CVAR_ALLTOALL_THROTTLE, MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE;
#define MPIR_CVAR_GET_DEFAULT_INT(n_, p_) (*(p_) = 32)
enum { MPIR_BARRIER_TAG = 1, MPIR_BCAST_TAG, MPIR_REDUCE_TAG, MPIR_ALLREDUCE_TAG, MPIR_GATHER_TAG,
    MPIR_SCATTER_TAG, MPIR_GATHERV_TAG, MPIR_SCATTERV_TAG, MPIR_ALLGATHER_TAG, MPIR_ALLGATHERV_TAG,
    MPIR_ALLTOALL_TAG, MPIR_ALLTOALLV_TAG, MPIR_ALLTOALLW_TAG, MPIR_REDUCE_SCATTER_TAG,
    MPIR_REDUCE_SCATTER_BLOCK_TAG, MPIR_SCAN_TAG, MPIR_EXSCAN_TAG };
/* datatypes: a table of sizes; extent == size */
MPI_Aint mock_type_size(MPI_Datatype t);
MPI_Datatype mock_type_new(MPI_Aint size);
#define MPIR_Datatype_get_size_macro(t_, s_) ((s_) = mock_type_size(t_))
#define MPIR_Datatype_get_extent_macro(t_, e_) ((e_) = mock_type_size(t_))
#define MPIR_Type_get_true_extent_impl(t_, lb_, ext_) do { *(lb_) = 0; *(ext_) = mock_type_size(t_); } while (0)
#define MPIR_Datatype_is_contig(t_, c_) (*(c_) = 1)
int MPIR_Type_indexed_impl(int n, const int *bl, const int *d, MPI_Datatype old, MPI_Datatype *nt);
int MPIR_Type_create_indexed_block_impl(int n, int bl, const int *d, MPI_Datatype old, MPI_Datatype *nt);
int MPIR_Type_create_struct_impl(int n, const int *bl, const MPI_Aint *d, const MPI_Datatype *old, MPI_Datatype *nt);
int MPIR_Type_contiguous_x_impl(MPI_Aint n, MPI_Datatype old, MPI_Datatype *nt);
#define MPIR_Type_commit_impl(t_) 0
#define MPIR_Type_free_impl(t_) ((void)0)
#define MPIR_Localcopy(...) 0
int MPIR_Reduce_local(const void *inbuf, void *inoutbuf, MPI_Aint count, MPI_Datatype datatype, MPI_Op op);
int MPIR_Op_is_commutative(MPI_Op op);
void MPIR_Get_count_impl(const MPI_Status *st, MPI_Datatype t, MPI_Aint *count);
static inline int MPL_mirror_permutation(unsigned x, int bits) { unsigned r = 0; for (int i = 0; i < bits; i++) if (x & (1u << i)) r |= 1u << (bits - 1 - i); return (int)r; }
int MPIC_Send(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag, MPIR_Comm * comm_ptr, MPIR_Errflag_t * errflag);
int MPIC_Recv(void *buf, MPI_Aint count, MPI_Datatype datatype, int source, int tag, MPIR_Comm * comm_ptr, MPI_Status * status, MPIR_Errflag_t * errflag);
int MPIC_Ssend(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag, MPIR_Comm * comm_ptr, MPIR_Errflag_t * errflag);
int MPIC_Sendrecv(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, int source, int recvtag, MPIR_Comm * comm_ptr, MPI_Status * status, MPIR_Errflag_t * errflag);
int MPIC_Sendrecv_replace(void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPIR_Comm * comm_ptr, MPI_Status * status, MPIR_Errflag_t * errflag);
int MPIC_Isend(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag, MPIR_Comm * comm_ptr, MPIR_Request ** request, MPIR_Errflag_t * errflag);
int MPIC_Irecv(void *buf, MPI_Aint count, MPI_Datatype datatype, int source, int tag, MPIR_Comm * comm_ptr, MPIR_Request ** request);
int MPIC_Waitall(int numreq, MPIR_Request * requests[], MPI_Status statuses[], MPIR_Errflag_t * errflag);
#endif
