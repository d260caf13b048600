/*
 * count.h: per-rank MPI call counting shared by the psins test apps.
 *
 * The end-to-end tests compare what the tracer recorded with what the program
 * knows it did, so every MPI call an app makes goes through CALL(), which bumps
 * a counter named after the function and then makes the call:
 *
 *     CALL(MPI_Send, (buf, n, MPI_INT, peer, tag, comm));
 *
 * Point-to-point traffic is counted by hand next to the call (psins_sent,
 * psins_received), since only the app knows which calls moved a message.
 * Received bytes come from the status via MPI_Get_count, itself counted.
 *
 * At the end every rank prints exactly two lines (names sorted bytewise,
 * zero counts omitted):
 *   PSINS_COUNTS rank=<r> <MPI_Name>=<n> ...
 *   PSINS_P2P rank=<r> sent_msgs=<n> sent_bytes=<n> recv_msgs=<n> recv_bytes=<n>
 * psins_finish() counts MPI_Finalize, calls it, and prints afterwards, so the
 * printing never shows up inside the traced run.
 */
#ifndef PSINS_COUNT_H
#define PSINS_COUNT_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PSINS_MAX_NAMES 128

struct psins_counter {
    const char *name;
    long n;
};

static struct psins_counter psins_counters[PSINS_MAX_NAMES];
static int psins_ncounters;

static struct {
    long sent_msgs, sent_bytes, recv_msgs, recv_bytes;
} psins_p2p;

/* Linear search is fine: an app calls a few dozen distinct functions. */
static inline void psins_count(const char *name)
{
    for (int i = 0; i < psins_ncounters; i++) {
        if (strcmp(psins_counters[i].name, name) == 0) {
            psins_counters[i].n++;
            return;
        }
    }
    if (psins_ncounters == PSINS_MAX_NAMES) {
        fprintf(stderr, "count.h: more than %d distinct MPI functions\n", PSINS_MAX_NAMES);
        abort();
    }
    psins_counters[psins_ncounters].name = name;
    psins_counters[psins_ncounters].n = 1;
    psins_ncounters++;
}

/* Count, then call; the comma expression keeps the call's return value. */
#define CALL(fn, args) (psins_count(#fn), fn args)

static inline void psins_sent(long bytes)
{
    psins_p2p.sent_msgs++;
    psins_p2p.sent_bytes += bytes;
}

/* For receives whose status was ignored: the protocol fixes the size. */
static inline void psins_received_bytes(long bytes)
{
    psins_p2p.recv_msgs++;
    psins_p2p.recv_bytes += bytes;
}

/* Counts the actual size of a completed receive, however it was posted. */
static inline void psins_received(const MPI_Status *st)
{
    int bytes = 0;
    CALL(MPI_Get_count, (st, MPI_BYTE, &bytes));
    psins_received_bytes(bytes);
}

static inline int psins_by_name(const void *a, const void *b)
{
    return strcmp(((const struct psins_counter *)a)->name,
                  ((const struct psins_counter *)b)->name);
}

/*
 * prefix_counts/prefix_p2p let crash and abort mark lines printed mid-run.
 * Both lines go out in one write(): stdout may be unbuffered under mpirun, and
 * separate small writes from several ranks interleave mid-line.
 */
static inline void psins_report_as(const char *prefix_counts, const char *prefix_p2p, int rank)
{
    char line[8192];
    size_t len = 0;
    qsort(psins_counters, psins_ncounters, sizeof psins_counters[0], psins_by_name);
    len += snprintf(line + len, sizeof line - len, "%s rank=%d", prefix_counts, rank);
    for (int i = 0; i < psins_ncounters && len < sizeof line; i++)
        len += snprintf(line + len, sizeof line - len, " %s=%ld", psins_counters[i].name,
                        psins_counters[i].n);
    if (len < sizeof line)
        len += snprintf(line + len, sizeof line - len,
                        "\n%s rank=%d sent_msgs=%ld sent_bytes=%ld recv_msgs=%ld recv_bytes=%ld\n",
                        prefix_p2p, rank, psins_p2p.sent_msgs, psins_p2p.sent_bytes,
                        psins_p2p.recv_msgs, psins_p2p.recv_bytes);
    if (len >= sizeof line) {
        fprintf(stderr, "count.h: report longer than %zu bytes\n", sizeof line);
        abort();
    }
    fflush(stdout);
    if (write(STDOUT_FILENO, line, len) != (ssize_t)len)
        perror("count.h: writing the report");
}

static inline void psins_start(int *argc, char ***argv, int *rank, int *size)
{
    CALL(MPI_Init, (argc, argv));
    CALL(MPI_Comm_rank, (MPI_COMM_WORLD, rank));
    CALL(MPI_Comm_size, (MPI_COMM_WORLD, size));
}

static inline int psins_finish(int rank)
{
    CALL(MPI_Finalize, ());
    psins_report_as("PSINS_COUNTS", "PSINS_P2P", rank);
    return 0;
}

/* A failed self-check must fail the run loudly, not just print. */
static inline void psins_check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "psins test app: check failed: %s\n", what);
        fflush(stderr);
        CALL(MPI_Abort, (MPI_COMM_WORLD, 2));
    }
}

/* Optional positional integer argument with a default. */
static inline long psins_arg(int argc, char **argv, int i, long dflt)
{
    return argc > i ? strtol(argv[i], NULL, 10) : dflt;
}

#endif
