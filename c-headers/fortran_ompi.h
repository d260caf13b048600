/* psins tracer: C helpers of the generated wrappers of Open MPI's Fortran bindings
 * (shim-gen/src/wrappers/fortran.rs, `Fortran::OpenMpi`); included by the generated code inside
 * shim.c under #ifdef OPEN_MPI, after the shim's own helpers (grow, topo_degrees, comm_get).
 *
 * Open MPI's MPI_IN_PLACE, MPI_BOTTOM and status ignores are the addresses of common blocks,
 * which libmpi_mpifh compares with gfortran's single-underscore names (as ompi_recv_f does);
 * handles are table indices while the C ones are pointers, so arrays of them are converted.
 * Everything referenced is weak: the .so must load without libmpi. */
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_status_ignore_ __attribute__((weak));
extern int mpi_fortran_statuses_ignore_ __attribute__((weak));
#pragma weak MPI_Comm_f2c
#pragma weak MPI_Type_f2c
#pragma weak MPI_Op_f2c
#pragma weak MPI_Group_f2c
#pragma weak MPI_Info_f2c
#pragma weak MPI_Win_f2c
#pragma weak MPI_Errhandler_f2c
#pragma weak MPI_Request_f2c
#pragma weak MPI_Message_f2c
#pragma weak PMPI_Status_f2c
typedef struct { MPI_Fint v[sizeof(MPI_Status) / sizeof(MPI_Fint)]; } psins_fo_status;
#define PSINS_FO_STATUS_IGNORE ((psins_fo_status *)&mpi_fortran_status_ignore_)
#define PSINS_FO_STATUSES_IGNORE ((psins_fo_status *)&mpi_fortran_statuses_ignore_)
static inline void psins_fo_status_f2c(const psins_fo_status *f, MPI_Status *c) { PMPI_Status_f2c(f->v, c); }
static inline void *psins_fo_buf(void *f)
{
    if (f == (void *)&mpi_fortran_in_place_) return MPI_IN_PLACE;
    if (f == (void *)&mpi_fortran_bottom_) return MPI_BOTTOM;
    return f;
}
static MPI_Request *psins_fo_rq; static size_t psins_fo_rq_cap;
static MPI_Request *psins_fo_requests(const MPI_Fint *f, int n)
{
    MPI_Request *p = grow(psins_fo_rq, &psins_fo_rq_cap, (size_t)(n > 0 ? n : 1), sizeof *p);
    if (!p) return NULL;
    psins_fo_rq = p;
    for (int i = 0; i < n; i++) p[i] = MPI_Request_f2c(f[i]);
    return p;
}
/* The datatypes a w collective's hook reads: one per peer (the remote group of an
 * intercommunicator), or per neighbour on a topology (out-degree on the send side). */
static int psins_fo_npeers(MPI_Comm comm, int neighbor, int send)
{
    int in = 0, out = 0;
    if (neighbor) { topo_degrees(comm, &in, &out); return send ? out : in; }
    return comm_get(comm)->peers;
}
static MPI_Datatype *psins_fo_ty[2]; static size_t psins_fo_ty_cap[2];
static MPI_Datatype *psins_fo_types(const MPI_Fint *f, int n, int which)
{
    MPI_Datatype *p = grow(psins_fo_ty[which], &psins_fo_ty_cap[which], (size_t)(n > 0 ? n : 1), sizeof *p);
    if (!p) return NULL;
    psins_fo_ty[which] = p;
    for (int i = 0; i < n; i++) p[i] = MPI_Type_f2c(f[i]);
    return p;
}
