/* psins tracer: the interface between the C shim (c-headers/shim.c, the only code that sees
 * mpi.h) and the Rust core (tracer-cdylib/src). Only plain integers cross it: no MPI handle.
 * The Rust mirror of these declarations is tracer-cdylib/src/ffi.rs; keep them in step. */
#ifndef PSINS_SHIM_H
#define PSINS_SHIM_H
#include <stdint.h>

/* One traced call, filled by the shim and turned into a psins_formats::Record by the core.
 * `kind` is a psins_formats::Kind code; the meaning of `sub` depends on it:
 * SendMode (send kinds), WaitFn (wait), Coll (coll), CommFn (comm_create), function id
 * (other), ProbeFlags (probe), thread level (init), RmaFn (rma), WinSyncFn (win_sync), WinFn
 * (win_create). One-sided kinds: `comm` is the window id (0xFFFFFFFF: unknown); rma: `peer`
 * the target, `bytes`/`bytes2` origin -> target / back, `req`; win_sync: `peer` the target
 * or -3, `flags` WinFlags, the list the post/start group; win_create: `parent` its comm. */
typedef struct psins_ev {
    uint64_t t0, t1;          /* clock ticks at entry and exit */
    uint32_t kind, sub;
    int32_t peer, tag;        /* comm-local rank / tag (psins sentinels) */
    uint64_t bytes;
    int32_t peer2, tag2;      /* receive side of sendrecv */
    uint64_t bytes2;
    uint32_t comm, req;       /* psins communicator id, psins request id */
    uint32_t parent, flags;   /* parent comm (comm_create); CollFlags / PSINS_EV_* */
    int32_t root, comm_size;  /* collective root; size of comm (-1: intercomm, no expansion) */
    int32_t comm_rank, code;  /* my rank in comm; abort code */
    uint64_t count;           /* reduction element count / number of requests /
                                 remote group size (comm_create of an intercommunicator) */
    const int64_t *list;      /* record list (see psins_formats::record) */
    uint64_t list_len;
} psins_ev;

/* psins_ev.flags bits beyond the CollFlags byte */
#define PSINS_EV_NO_TIME 0x100u   /* chained sub-record: gap = dur = 0 */
#define PSINS_EV_REPLACE 0x200u   /* sendrecv_replace */

/* Rust core entry points (tracer-cdylib/src/ffi.rs). Every one catches panics. Only the shim
 * calls them: hidden, so the calls are direct rather than through the PLT, and the library
 * exports only MPI's symbols. */
#pragma GCC visibility push(hidden)
int psins_rs_configure(int rank);
void psins_rs_job(int rank, char *buf, int len);
int psins_rs_open(const char *jobbuf, int rank, int size, int thread_level, const char *libver,
                  uint64_t t0, uint64_t t1);
/* `now`: the clock as the tracer's set-up ends, which every rank reaches together (after
 * an allreduce): the application's first CPU burst is measured from there. */
void psins_rs_report(int first_failed_rank, int rank, int size, uint64_t now);
void psins_rs_record(const psins_ev *ev);
void psins_rs_finalize(uint64_t t0, uint64_t t1, const uint64_t *counts, int n, uint64_t other_thread_calls);
void psins_rs_abort(uint64_t t0, int code);
void psins_rs_after_fork_child(void);
#pragma GCC visibility pop

/* Shared flags: set by the Rust core, read by the shim on every call. */
extern volatile int psins_active;   /* tracing is on (between a good MPI_Init and Finalize) */
extern int psins_use_tsc;           /* clock: 1 = rdtsc, 0 = clock_gettime(CLOCK_MONOTONIC) */

#endif
