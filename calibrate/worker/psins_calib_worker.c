/*
 * psins-calib-worker: the MPI side of psins-calibrate. It only measures; the Rust tool
 * launches it, reads what rank 0 prints, takes trimmed means, judges the noise, fits the size
 * bands and writes the machine file.
 *
 * usage: psins-calib-worker [-t SECONDS_PER_TRIAL] [-r TRIALS] [-q] [-p BYTES,BYTES,...]
 *   -q: quick (fewer sizes and collectives), for tests.
 *   -p: probe: only warm ping-pongs at these sizes (psins-calibrate --check compares them
 *       with a machine file's), no memcpy, overheads, eager probe or collectives.
 *
 * Output (rank 0, stdout), one measurement per line, `key=value` fields:
 *   rank r=<i> host=<name> cpu=<cpu> cpus_allowed=<n> cpus_online=<n>
 *   mpi library="<MPI_Get_library_version, first line>"
 *   timer overhead_ns=<x>                                    (the last line of the identification)
 *   memcpy trial=<k> bytes=<n> seconds=<x>                  (rank 0 alone)
 *   pingpong buffers=warm|cold bytes=<n> trial=<k> half_rtt=<seconds> mark=<seconds>
 *                                                        (mark: a short warm 0-byte ping-pong just before)
 *   send_overhead buffers=warm|cold bytes=<n> trial=<k> seconds=<x>  (inside MPI_Isend)
 *   recv_overhead buffers=warm|cold bytes=<n> trial=<k> seconds=<x>  (MPI_Recv of an arrived message)
 *   irecv_overhead trial=<k> seconds=<x>                   (inside MPI_Irecv, no message there yet)
 *   exchange buffers=warm|cold bytes=<n> trial=<k> seconds=<x>  (both ranks send at once, per exchange)
 *   exchange2 buffers=warm|cold bytes=<n> trial=<k> seconds=<x> (two messages each way at once;
 *                                                        64 KiB to 1 MiB)
 *   self buffers=warm|cold bytes=<n> trial=<k> seconds=<x>  (a rank's message to itself)
 *   state trial=<k> at=begin|end half_rtt=<seconds>         (warm 0-byte ping-pong bracketing trial k)
 *   eager bytes=<n> blocked=0|1                              (threshold probe)
 *   collective name=<c> ranks=<P> bytes=<n> trial=<k> seconds=<x>
 *   done
 *
 * Point-to-point runs between ranks 0 and 1; the others wait. "cold" buffers: every
 * repetition uses the next slice of a 64 MiB pool on both sides, so the data is not in any
 * cache, as in an application that computes between messages; "warm": one buffer, reused
 * within a trial. Each trial takes its warm buffer from another place of a second 64 MiB:
 * how well a buffer of about the cache's size (2 MiB) stays cached depends on the physical
 * pages under it, so one place for a whole run made a run's figure differ from the next
 * run's by up to 21 % (docs/validation.md, *Findings behind the method*); sampled over the
 * trials it did not.
 * The collectives' send and receive buffers move between places over the trials alike.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W MPI_COMM_WORLD
#define TAG 77
#define POOL (64u << 20)
#define MAX_BYTES (4u << 20)
#define MAX_REPS 2000
#define EAGER_DELAY 2e-3 /* the receiver waits this long before posting in the eager probe */

static int rank, size, trials = 7, quick;
static MPI_Comm P; /* ranks 0 and 1: every point-to-point measurement */
static double budget = 0.02;
static char *pool;
static char *warm; /* this trial's warm buffer */
static size_t slot;
static const char *probe; /* -p: the sizes to probe, comma-separated */

/* The buffer for this repetition: the same one (warm) or the next slice of the pool (cold). */
static char *buffer(int cold, size_t bytes)
{
    if (!cold)
        return warm;
    size_t stride = (bytes + 4095) & ~(size_t)4095;
    if (stride == 0)
        stride = 4096;
    if (slot + stride > POOL)
        slot = 0;
    char *b = pool + slot;
    slot += stride;
    return b;
}

/* Trial k's warm buffer: one of 8 places 8 MiB apart past the cold pool. */
static void warm_for(int k)
{
    warm = pool + POOL + (size_t)(k % 8) * (8u << 20);
}

/* The collectives' buffers move as the warm one does, so that how well they stay cached is
 * sampled over physical pages too: trial k's send and receive buffers are the k-th of
 * `cplaces` pairs. */
static char *cpool;
static size_t cspan; /* bytes of one buffer: the largest collective's, times the ranks */
static int cplaces;

static void collective_buffers(size_t span)
{
    cspan = span;
    cplaces = (int)((256u << 20) / (2 * span)); /* at most 256 MiB per rank */
    cplaces = cplaces < 1 ? 1 : cplaces > 8 ? 8 : cplaces;
    cpool = malloc(2 * span * cplaces);
    if (!cpool) {
        fprintf(stderr, "psins-calib-worker: cannot allocate %zu bytes for the collectives\n", 2 * span * cplaces);
        MPI_Abort(W, 1);
    }
    /* Written, as an application's buffers are. Calloc'd and never written, every page of a
     * send buffer is the kernel's one zero page: an allgather of 256 KiB from such buffers took
     * a median 62.4 us a call, against 31.9 us from written ones, and a bcast of 2 MiB 116.2 us
     * against 144.1 (docs/validation.md, *Findings behind the method*). */
    memset(cpool, 1, 2 * span * cplaces);
}

static char *csend(int k) { return cpool + (size_t)(k % cplaces) * 2 * cspan; }
static char *crecv(int k) { return csend(k) + cspan; }

/* Rank 0 picks a repetition count from one timed call of `one` and tells the others of `c`. */
static int agree_reps(double one, MPI_Comm c)
{
    int reps = one > 0 ? (int)(budget / one) : MAX_REPS;
    reps = reps < 5 ? 5 : reps > MAX_REPS ? MAX_REPS : reps;
    MPI_Bcast(&reps, 1, MPI_INT, 0, c);
    return reps;
}

static void round_trip(int cold, int bytes)
{
    int peer = 1 - rank;
    if (rank == 0) {
        MPI_Send(buffer(cold, bytes), bytes, MPI_BYTE, peer, TAG, P);
        MPI_Recv(buffer(cold, bytes), bytes, MPI_BYTE, peer, TAG, P, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(buffer(cold, bytes), bytes, MPI_BYTE, peer, TAG, P, MPI_STATUS_IGNORE);
        MPI_Send(buffer(cold, bytes), bytes, MPI_BYTE, peer, TAG, P);
    }
}

/* The repetition count of one trial at this size, from one timed round trip; every
 * measurement of the size reuses it. */
static int pingpong_reps(int cold, int bytes)
{
    round_trip(cold, bytes);
    double t0 = MPI_Wtime();
    round_trip(cold, bytes);
    return agree_reps(MPI_Wtime() - t0, P);
}

static double half_rtt(int cold, int bytes, int reps)
{
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps; i++)
        round_trip(cold, bytes);
    return (MPI_Wtime() - t0) / reps / 2;
}

/* Round trips of the short state mark taken before every ping-pong figure. */
#define MARK_REPS 64

/* A VM can switch speed state within a trial, between the marks at its two ends; the mark
 * just before the figure dates the figure itself (psins-calibrate leaves out a figure whose
 * own mark is in another state than the trials kept). */
static void pingpong(int cold, int bytes, int reps, int k)
{
    double mark = half_rtt(0, 0, MARK_REPS);
    double half = half_rtt(cold, bytes, reps);
    if (rank == 0)
        printf("pingpong buffers=%s bytes=%d trial=%d half_rtt=%.9e mark=%.9e\n", cold ? "cold" : "warm", bytes, k, half,
               mark);
}

/* The host's speed state at one end of trial k: a warm empty ping-pong. A VM can switch
 * between speed states while it runs (docs/calibrate.md); psins-calibrate keeps the trials
 * whose two ends agree with the state most of the run was in, so that every figure of the
 * file, the collectives' included, describes one state. */
static void state(int k, const char *at, int reps)
{
    double half = half_rtt(0, 0, reps);
    if (rank == 0)
        printf("state trial=%d at=%s half_rtt=%.9e\n", k, at, half);
}

/* o_s: time inside MPI_Isend while the receiver is already waiting; o_r: time inside an
 * MPI_Recv whose message has arrived (MPI_Probe saw it). One 0-byte reply per repetition
 * keeps the two ranks in step so neither queue fills. */
static void overheads(int cold, int bytes, int reps, int k)
{
    int peer = 1 - rank;
    double os = 0, or = 0;
    for (int i = 0; i < reps; i++) {
        if (rank == 0) {
            MPI_Request rq;
            char *b = buffer(cold, bytes);
            double t0 = MPI_Wtime();
            MPI_Isend(b, bytes, MPI_BYTE, peer, TAG, P, &rq);
            os += MPI_Wtime() - t0;
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG + 1, P, MPI_STATUS_IGNORE);
        } else {
            char *b = buffer(cold, bytes);
            MPI_Probe(peer, TAG, P, MPI_STATUS_IGNORE);
            double t0 = MPI_Wtime();
            MPI_Recv(b, bytes, MPI_BYTE, peer, TAG, P, MPI_STATUS_IGNORE);
            or += MPI_Wtime() - t0;
            MPI_Send(NULL, 0, MPI_BYTE, peer, TAG + 1, P);
        }
    }
    /* rank 1's figure travels to rank 0, which prints both */
    double mine = (rank == 0 ? os : or) / reps, theirs = 0;
    if (rank == 1)
        MPI_Send(&mine, 1, MPI_DOUBLE, 0, TAG + 2, P);
    else
        MPI_Recv(&theirs, 1, MPI_DOUBLE, 1, TAG + 2, P, MPI_STATUS_IGNORE);
    if (rank == 0) {
        const char *kind = cold ? "cold" : "warm";
        printf("send_overhead buffers=%s bytes=%d trial=%d seconds=%.9e\n", kind, bytes, k, mine);
        printf("recv_overhead buffers=%s bytes=%d trial=%d seconds=%.9e\n", kind, bytes, k, theirs);
    }
}

/* The time inside an MPI_Irecv posted before its message is sent (rank 1; rank 0 sends once
 * told to): what posting a nonblocking receive costs the CPU, apart from the message. */
static void irecv_post(int reps, int k)
{
    int peer = 1 - rank;
    double post = 0;
    for (int i = 0; i < reps; i++) {
        if (rank == 0) {
            MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG + 4, P, MPI_STATUS_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, peer, TAG + 3, P);
        } else {
            MPI_Request rq;
            double t0 = MPI_Wtime();
            MPI_Irecv(NULL, 0, MPI_BYTE, peer, TAG + 3, P, &rq);
            post += MPI_Wtime() - t0;
            MPI_Send(NULL, 0, MPI_BYTE, peer, TAG + 4, P);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        }
    }
    double mine = post / reps;
    if (rank == 1)
        MPI_Send(&mine, 1, MPI_DOUBLE, 0, TAG + 2, P);
    else {
        MPI_Recv(&mine, 1, MPI_DOUBLE, 1, TAG + 2, P, MPI_STATUS_IGNORE);
        printf("irecv_overhead trial=%d seconds=%.9e\n", k, mine);
    }
}

/* The receive buffer of a receive in flight beside a send: never the send's (MPI forbids
 * it, and a receive into the buffer being sent makes the copies fight over its cache lines;
 * with one warm buffer for both an exchange of 256 KiB to 4 MiB measured a node copy
 * bandwidth well below what an application's halo exchange gets, docs/calibrate.md). Warm:
 * the second half of the trial's 8 MiB place; cold: the pool's next slice. */
static char *recv_buffer(int cold, size_t bytes)
{
    return cold ? buffer(1, bytes) : warm + MAX_BYTES;
}

/* Seconds per Irecv + Isend + Waitall with `peer`, both ranks at once, `reps` times: the
 * slower rank's mean (the pair is done when both are). */
static double irecv_isend_waitall(int cold, int bytes, int reps, int peer)
{
    MPI_Barrier(P);
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps; i++) {
        MPI_Request rq[2];
        MPI_Irecv(recv_buffer(cold, bytes), bytes, MPI_BYTE, peer, TAG, P, &rq[0]);
        MPI_Isend(buffer(cold, bytes), bytes, MPI_BYTE, peer, TAG, P, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
    double t = (MPI_Wtime() - t0) / reps;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, P);
    return t;
}

/* Both ranks send to each other at once (Irecv, Isend, Waitall), as a halo exchange does. On
 * some transports the two directions are not independent (TCP over loopback: each message's
 * kernel work runs on the same two CPUs, and the two sockets' locks meet), so an exchange
 * costs more than a one-way message: psins-calibrate fits that excess as the crossing cost. */
static void exchange(int cold, int bytes, int reps, int k)
{
    double t = irecv_isend_waitall(cold, bytes, reps, 1 - rank);
    if (rank == 0)
        printf("exchange buffers=%s bytes=%d trial=%d seconds=%.9e\n", cold ? "cold" : "warm", bytes, k, t);
}

/* Two messages each way at once (two Irecv, two Isend, Waitall), as a halo exchange whose
 * neighbours on both sides are the same rank does: against `exchange`, whether a rank's
 * incoming copies run side by side or one after the other (psins-calibrate --serial-receive
 * writes `serial_receive` for a band where they take about twice as long). Every buffer its own: the
 * warm ones at 0 and 1 MiB (sends) and 4 and 5 MiB (receives) into the trial's place. */
#define EXCHANGE2_FROM (64u << 10)
#define EXCHANGE2_UPTO (1u << 20)
static void exchange2(int cold, int bytes, int reps, int k)
{
    int peer = 1 - rank;
    MPI_Barrier(P);
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps; i++) {
        MPI_Request rq[4];
        for (int j = 0; j < 2; j++)
            MPI_Irecv(cold ? buffer(1, bytes) : warm + MAX_BYTES + (size_t)j * EXCHANGE2_UPTO, bytes, MPI_BYTE,
                      peer, TAG + j, P, &rq[j]);
        for (int j = 0; j < 2; j++)
            MPI_Isend(cold ? buffer(1, bytes) : warm + (size_t)j * EXCHANGE2_UPTO, bytes, MPI_BYTE, peer, TAG + j,
                      P, &rq[2 + j]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    }
    double t = (MPI_Wtime() - t0) / reps;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, P);
    if (rank == 0)
        printf("exchange2 buffers=%s bytes=%d trial=%d seconds=%.9e\n", cold ? "cold" : "warm", bytes, k, t);
}

/* A rank's message to itself: Irecv from itself, Isend to itself, Waitall, as MPICH's
 * scattered alltoall does for the own block (it goes through the device: UCX's `self`
 * transport on TCP, the shared-memory path otherwise). Both ranks at once, each with itself;
 * the slower rank's figure. */
static void self_path(int cold, int bytes, int reps, int k)
{
    double t = irecv_isend_waitall(cold, bytes, reps, rank);
    if (rank == 0)
        printf("self buffers=%s bytes=%d trial=%d seconds=%.9e\n", cold ? "cold" : "warm", bytes, k, t);
}

/* Rank 1's EAGER_DELAY before posting the receive: inside MPI (probing for a message no one
 * sends), as a rank whose send waits is. Open MPI 4.1's vader completes a send of more than
 * 256 B (max_inline_send) that no fast box takes only once the receiver's progress has copied
 * it, so such a send waits for any MPI call of the receiver, not for the matching receive; a
 * receiver spinning outside MPI made 256-848 B look like the eager threshold there, where it
 * is 4 KiB (docs/calibrate.md). */
static void progress_for(double seconds)
{
    double t0 = MPI_Wtime();
    int flag;
    while (MPI_Wtime() - t0 < seconds)
        MPI_Iprobe(MPI_ANY_SOURCE, TAG + 3, P, &flag, MPI_STATUS_IGNORE);
}

/* Does a send of `bytes` complete before its receive is posted? Rank 1 posts EAGER_DELAY late,
 * making MPI progress meanwhile; an eager send returns at once, a rendezvous send waits for
 * the receive. Fastest of 3. */
static int blocks(int bytes)
{
    int peer = 1 - rank;
    double best = 1e9;
    for (int k = 0; k < 3; k++) {
        MPI_Barrier(P);
        if (rank == 0) {
            double t0 = MPI_Wtime();
            MPI_Send(pool, bytes, MPI_BYTE, peer, TAG, P);
            double t = MPI_Wtime() - t0;
            best = t < best ? t : best;
        } else {
            progress_for(EAGER_DELAY);
            MPI_Recv(pool, bytes, MPI_BYTE, peer, TAG, P, MPI_STATUS_IGNORE);
        }
    }
    int b = best > EAGER_DELAY / 2;
    MPI_Bcast(&b, 1, MPI_INT, 0, P);
    if (rank == 0)
        printf("eager bytes=%d blocked=%d\n", bytes, b);
    return b;
}

/* Largest size that does not block: doubling from 256 B, then bisection to 1/64 of it. */
static void eager_threshold(void)
{
    int lo = 0, hi = 256;
    while (hi <= (int)MAX_BYTES && !blocks(hi)) {
        lo = hi;
        hi *= 2;
    }
    if (hi > (int)MAX_BYTES)
        return;
    while (hi - lo > (lo / 64 > 8 ? lo / 64 : 8)) {
        int mid = lo + (hi - lo) / 2;
        if (blocks(mid))
            hi = mid;
        else
            lo = mid;
    }
}

static void memcpy_rate(void)
{
    size_t bytes = 16u << 20;
    char *dst = malloc(bytes);
    memcpy(dst, pool, bytes);
    for (int k = 0; k < trials; k++) {
        double t0 = MPI_Wtime();
        memcpy(dst, pool + (k & 1) * bytes, bytes);
        __asm__ volatile("" : : "r"(dst) : "memory"); /* the copy is used: keep it */
        double t = MPI_Wtime() - t0;
        printf("memcpy trial=%d bytes=%zu seconds=%.9e\n", k, bytes, t);
    }
    free(dst);
}

enum coll { BARRIER, BCAST, REDUCE, ALLREDUCE, ALLGATHER, ALLTOALL, NCOLL };
static const char *coll_name[NCOLL] = {"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"};

static void run_collective(enum coll c, int bytes, char *s, char *r)
{
    int doubles = bytes / 8 > 0 ? bytes / 8 : 1;
    switch (c) {
    case BARRIER: MPI_Barrier(W); break;
    case BCAST: MPI_Bcast(s, bytes, MPI_BYTE, 0, W); break;
    case REDUCE: MPI_Reduce(s, r, doubles, MPI_DOUBLE, MPI_SUM, 0, W); break;
    case ALLREDUCE: MPI_Allreduce(s, r, doubles, MPI_DOUBLE, MPI_SUM, W); break;
    case ALLGATHER: MPI_Allgather(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, W); break;
    default: MPI_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, W); break;
    }
}

/* The repetition count of one trial of a collective, from one timed call (the slowest rank's). */
static int collective_reps(enum coll c, int bytes, char *s, char *r)
{
    run_collective(c, bytes, s, r);
    MPI_Barrier(W);
    double t0 = MPI_Wtime(), one, t;
    run_collective(c, bytes, s, r);
    t = MPI_Wtime() - t0;
    MPI_Allreduce(&t, &one, 1, MPI_DOUBLE, MPI_MAX, W);
    return agree_reps(one, W);
}

/* Trial k of a collective: the mean time of one call, the slowest rank's. One call first
 * brings this trial's buffers into the caches, as the warm ping-pong's are. */
static void collective(enum coll c, int bytes, int reps, int k, char *s, char *r)
{
    run_collective(c, bytes, s, r);
    MPI_Barrier(W);
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps; i++)
        run_collective(c, bytes, s, r);
    double t = (MPI_Wtime() - t0) / reps;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, W);
    if (rank == 0)
        printf("collective name=%s ranks=%d bytes=%d trial=%d seconds=%.9e\n", coll_name[c], size, bytes, k, t);
}

static void identify(void)
{
    char host[256] = "unknown", line[512];
    gethostname(host, sizeof host - 1);
    cpu_set_t set;
    int allowed = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
    snprintf(line, sizeof line, "rank r=%d host=%s cpu=%d cpus_allowed=%d cpus_online=%ld", rank, host,
             sched_getcpu(), allowed, sysconf(_SC_NPROCESSORS_ONLN));
    char all[512 * 64];
    int n = size < 64 ? size : 64;
    MPI_Gather(line, 512, MPI_CHAR, all, 512, MPI_CHAR, 0, W);
    if (rank != 0)
        return;
    for (int i = 0; i < n; i++)
        printf("%s\n", all + 512 * i);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n\"")] = 0;
    printf("mpi library=\"%s\"\n", lib);
    double t0 = MPI_Wtime(), t1 = t0;
    for (int i = 0; i < 1000; i++)
        t1 = MPI_Wtime();
    printf("timer overhead_ns=%.1f\n", (t1 - t0) / 1000 * 1e9);
    /* Now, not at the end: psins-calibrate checks where the ranks run before any measurement
     * (two ranks bound to one CPU would take minutes to measure). */
    fflush(stdout);
}

/* -p: warm ping-pongs only, trials outermost as in the full run. */
static void probe_sizes(void)
{
    int bytes[32], reps[32], n = 0;
    for (const char *c = probe; *c && n < 32; c = strchr(c, ',') ? strchr(c, ',') + 1 : "") {
        long b = atol(c);
        bytes[n++] = b < 0 ? 0 : b > (long)MAX_BYTES ? (int)MAX_BYTES : (int)b;
    }
    if (rank < 2) {
        for (int i = 0; i < n; i++)
            reps[i] = pingpong_reps(0, bytes[i]);
        for (int k = 0; k < trials; k++) {
            warm_for(k);
            for (int i = 0; i < n; i++)
                pingpong(0, bytes[i], reps[i], k);
        }
    }
    MPI_Barrier(W);
    if (rank == 0)
        printf("done\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            budget = atof(argv[++i]);
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
            trials = atoi(argv[++i]);
        else if (strcmp(argv[i], "-q") == 0)
            quick = 1;
        else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
            probe = argv[++i];
        else {
            if (rank == 0)
                fprintf(stderr, "psins-calib-worker: unknown argument `%s`\n", argv[i]);
            MPI_Abort(W, 2);
        }
    }
    if (size < 2 || budget <= 0 || trials < 1) {
        if (rank == 0)
            fprintf(stderr, "psins-calib-worker: needs at least 2 ranks, -t > 0 and -r >= 1\n");
        MPI_Abort(W, 2);
    }
    MPI_Comm_split(W, rank < 2 ? 0 : MPI_UNDEFINED, rank, &P);
    pool = malloc(2 * (size_t)POOL);
    memset(pool, 1, 2 * (size_t)POOL); /* fault every page in before timing anything */
    warm_for(0);
    identify();
    if (probe) {
        probe_sizes();
        MPI_Finalize();
        return 0;
    }
    if (rank == 0)
        memcpy_rate();
    /* sizes: 0, then powers of 2 (quick: powers of 8) up to 4 MiB; collectives: 8 B, then
     * powers of 8 */
    int step = quick ? 8 : 2, ncs = quick ? 3 : 7;
    size_t biggest = (size_t)8 << (3 * (ncs - 1));
    collective_buffers(biggest * size);
    int reps[2][32], creps[NCOLL][7], n = 0;
    if (rank < 2)
        for (int cold = 0; cold < 2; cold++) {
            n = 0;
            for (long b = 0; b <= MAX_BYTES; b = b ? b * step : 1)
                reps[cold][n++] = pingpong_reps(cold, (int)b);
        }
    MPI_Barrier(W);
    for (int c = 0; c < NCOLL; c++)
        for (int i = 0; i < (c == BARRIER ? 1 : ncs); i++)
            creps[c][i] = collective_reps(c, c == BARRIER ? 0 : 8 << (3 * i), csend(0), crecv(0));
    /* Trials outermost: each trial sweeps every size and every collective, so a host that
     * slows down for a while (a neighbour on the physical machine) spoils one trial of every
     * figure, which the trimming drops, rather than every trial of a few figures; and the
     * state marks at the trial's two ends date every figure in it. */
    for (int k = 0; k < trials; k++) {
        if (rank < 2) {
            warm_for(k);
            state(k, "begin", reps[0][0]);
            irecv_post(reps[0][0], k);
            for (int cold = 0; cold < 2; cold++) {
                int i = 0;
                for (long b = 0; b <= MAX_BYTES; b = b ? b * step : 1, i++) {
                    pingpong(cold, (int)b, reps[cold][i], k);
                    overheads(cold, (int)b, reps[cold][i], k);
                    exchange(cold, (int)b, reps[cold][i], k);
                    if (b >= EXCHANGE2_FROM && b <= EXCHANGE2_UPTO)
                        exchange2(cold, (int)b, reps[cold][i], k);
                    self_path(cold, (int)b, reps[cold][i], k);
                }
            }
        }
        MPI_Barrier(W);
        for (int c = 0; c < NCOLL; c++)
            for (int i = 0; i < (c == BARRIER ? 1 : ncs); i++)
                collective(c, c == BARRIER ? 0 : 8 << (3 * i), creps[c][i], k, csend(k), crecv(k));
        if (rank < 2)
            state(k, "end", reps[0][0]);
    }
    if (rank < 2)
        eager_threshold();
    MPI_Barrier(W);
    if (rank == 0)
        printf("done\n");
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
