/* psins oracle-ompi: coll/tuned's component-level variables at their Open MPI 4.1.4 defaults
 * (coll_tuned_component.c is not compiled: it registers MCA parameters and opens the
 * component), plus wrappers around the tuned do_this functions that note which algorithm
 * number a rank's outermost fixed decision chose. run.sh compiles coll_tuned_decision_fixed.c
 * with -Dompi_coll_tuned_<coll>_intra_do_this=psins_<coll>_do_this so that its calls land
 * here; nested collectives reached through comm->c_coll go through the same path but do not
 * overwrite the first choice. */
#include "ompi_config.h"
#include "ompi/mca/coll/tuned/coll_tuned.h"

int   ompi_coll_tuned_stream = -1;
int   ompi_coll_tuned_priority = 30;
bool  ompi_coll_tuned_use_dynamic_rules = false;
char *ompi_coll_tuned_dynamic_rules_filename = NULL;
int   ompi_coll_tuned_init_tree_fanout = 4;
int   ompi_coll_tuned_init_chain_fanout = 4;
int   ompi_coll_tuned_init_max_requests = 128;
int   ompi_coll_tuned_alltoall_small_msg = 200;
int   ompi_coll_tuned_alltoall_intermediate_msg = 3000;
int   ompi_coll_tuned_alltoall_large_msg = 3000;
int   ompi_coll_tuned_alltoall_min_procs = 0;
int   ompi_coll_tuned_alltoall_max_requests = 0;
int   ompi_coll_tuned_scatter_intermediate_msg = 0;
int   ompi_coll_tuned_scatter_large_msg = 0;
int   ompi_coll_tuned_scatter_min_procs = 0;
int   ompi_coll_tuned_scatter_blocking_send_ratio = 0;
int   ompi_coll_tuned_forced_max_algorithms[COLLCOUNT];
coll_tuned_force_algorithm_mca_param_indices_t ompi_coll_tuned_forced_params[COLLCOUNT];
mca_coll_tuned_component_t mca_coll_tuned_component;

__thread int psins_alg = -1;

#define NOTE (psins_alg < 0 ? (void) (psins_alg = algorithm) : (void) 0)
int psins_allgather_do_this(ALLGATHER_ARGS, int algorithm, int faninout, int segsize)
{ NOTE; return ompi_coll_tuned_allgather_intra_do_this(ALLGATHER_BASE_ARG_NAMES, module, algorithm, faninout, segsize); }
int psins_allgatherv_do_this(ALLGATHERV_ARGS, int algorithm, int faninout, int segsize)
{ NOTE; return ompi_coll_tuned_allgatherv_intra_do_this(ALLGATHERV_BASE_ARG_NAMES, module, algorithm, faninout, segsize); }
int psins_allreduce_do_this(ALLREDUCE_ARGS, int algorithm, int faninout, int segsize)
{ NOTE; return ompi_coll_tuned_allreduce_intra_do_this(ALLREDUCE_BASE_ARG_NAMES, module, algorithm, faninout, segsize); }
int psins_alltoall_do_this(ALLTOALL_ARGS, int algorithm, int faninout, int segsize, int max_requests)
{ NOTE; return ompi_coll_tuned_alltoall_intra_do_this(ALLTOALL_BASE_ARG_NAMES, module, algorithm, faninout, segsize, max_requests); }
int psins_alltoallv_do_this(ALLTOALLV_ARGS, int algorithm)
{ NOTE; return ompi_coll_tuned_alltoallv_intra_do_this(ALLTOALLV_BASE_ARG_NAMES, module, algorithm); }
int psins_barrier_do_this(BARRIER_ARGS, int algorithm, int faninout, int segsize)
{ NOTE; return ompi_coll_tuned_barrier_intra_do_this(BARRIER_BASE_ARG_NAMES, module, algorithm, faninout, segsize); }
int psins_bcast_do_this(BCAST_ARGS, int algorithm, int faninout, int segsize)
{ NOTE; return ompi_coll_tuned_bcast_intra_do_this(BCAST_BASE_ARG_NAMES, module, algorithm, faninout, segsize); }
int psins_gather_do_this(GATHER_ARGS, int algorithm, int faninout, int segsize)
{ NOTE; return ompi_coll_tuned_gather_intra_do_this(GATHER_BASE_ARG_NAMES, module, algorithm, faninout, segsize); }
int psins_reduce_do_this(REDUCE_ARGS, int algorithm, int faninout, int segsize, int max_requests)
{ NOTE; return ompi_coll_tuned_reduce_intra_do_this(REDUCE_BASE_ARG_NAMES, module, algorithm, faninout, segsize, max_requests); }
int psins_reduce_scatter_do_this(REDUCESCATTER_ARGS, int algorithm, int faninout, int segsize)
{ NOTE; return ompi_coll_tuned_reduce_scatter_intra_do_this(REDUCESCATTER_BASE_ARG_NAMES, module, algorithm, faninout, segsize); }
int psins_reduce_scatter_block_do_this(REDUCESCATTERBLOCK_ARGS, int algorithm, int faninout, int segsize)
{ NOTE; return ompi_coll_tuned_reduce_scatter_block_intra_do_this(REDUCESCATTERBLOCK_BASE_ARG_NAMES, module, algorithm, faninout, segsize); }
int psins_scatter_do_this(SCATTER_ARGS, int algorithm, int faninout, int segsize)
{ NOTE; return ompi_coll_tuned_scatter_intra_do_this(SCATTER_BASE_ARG_NAMES, module, algorithm, faninout, segsize); }

/* The per-communicator request array that coll/base algorithms borrow (Open MPI keeps it in
 * coll_base_frame.c): grown on demand, new slots MPI_REQUEST_NULL. */
ompi_request_t **ompi_coll_base_comm_get_reqs(mca_coll_base_comm_t *data, int nreqs)
{
    if (nreqs == 0) return NULL;
    if (data->mcct_num_reqs < nreqs) {
        data->mcct_reqs = realloc(data->mcct_reqs, sizeof(ompi_request_t *) * nreqs);
        for (int i = data->mcct_num_reqs; i < nreqs; i++) data->mcct_reqs[i] = MPI_REQUEST_NULL;
        data->mcct_num_reqs = nreqs;
    }
    return data->mcct_reqs;
}
