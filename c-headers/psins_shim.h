/* psins tracer: the interface between the C shim (c-headers/shim.c, the only code that sees
 * mpi.h) and the Rust core (tracer-cdylib/src). Only plain integers cross it: no MPI handle.
 * The entry points below are defined in tracer-cdylib/src/ffi.rs. */
#ifndef PSINS_SHIM_H
#define PSINS_SHIM_H
#include <stdint.h>

/* psins_ev (one traced call), the record codes (K_*, C_*, W_*, PSINS_MODE_*, ...) and the
 * PSINS_EV_* flags: generated into OUT_DIR by tracer-cdylib/build.rs from their Rust
 * definitions (vocab/src/ev.rs, vocab/src/record.rs), with static assertions that
 * both compilers lay psins_ev out alike. Never declare them by hand. */
#include "psins_ev.h"

/* Rust core entry points (tracer-cdylib/src/ffi.rs). Every one catches panics. Only the shim
 * calls them: hidden, so the calls are direct rather than through the PLT, and the library
 * exports only MPI's symbols. */
#pragma GCC visibility push(hidden)
int psins_rs_configure(int rank);
void psins_rs_job(int rank, char *buf, int len);
/* t0, t1: MPI_Init's entry and exit (psins_now); c0, c1: the thread's CPU time then (ns). */
int psins_rs_open(const char *jobbuf, int rank, int size, int thread_level, const char *libver,
                  uint64_t t0, uint64_t t1, uint64_t c0, uint64_t c1);
/* `now`: the clock as the tracer's set-up ends, which every rank reaches together (after
 * an allreduce): the application's first CPU burst is measured from there; `cpu_now` the
 * thread's CPU time then (PSINS_CLOCK=cpu; else 0). */
void psins_rs_report(int first_failed_rank, int rank, int size, uint64_t now, uint64_t cpu_now);
void psins_rs_record(const psins_ev *ev);
void psins_rs_finalize(uint64_t t0, uint64_t t1, uint64_t c0, uint64_t c1, const uint64_t *counts, int n,
                       uint64_t other_thread_calls);
void psins_rs_abort(uint64_t t0, uint64_t c0, int code);
void psins_rs_after_fork_child(void);
#pragma GCC visibility pop

/* Shared flags: set by the Rust core, read by the shim on every call. */
extern volatile int psins_active;   /* tracing is on (between a good MPI_Init and Finalize) */
extern int psins_use_tsc;           /* clock: 1 = rdtsc, 0 = clock_gettime(CLOCK_MONOTONIC) */
extern int psins_cpu_clock;         /* bursts: 0 wall, 1 thread CPU time (rseq-gated reads), 2 CPU read always */
extern uint64_t psins_cpu_mult;     /* ns per psins_now tick, 32.32 fixed point */

#endif
