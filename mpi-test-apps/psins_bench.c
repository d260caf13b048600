/*
 * psins_bench (PSINSBench): calibration for the simulator's machine files.
 *
 * 1. Ping-pong between ranks 0 and 1 (MPI_Send/MPI_Recv) at 0 B and 1 B..4 MiB
 *    in powers of 4: latency = half the 0-byte round trip, bandwidth = slope
 *    of half round trips between the two largest sizes.
 * 2. For barrier, bcast, reduce, allreduce, allgather and alltoall on
 *    MPI_COMM_WORLD: mean time of one call, maximum over ranks, at sizes from
 *    8 B to 2 MiB in powers of 8.
 * Repetitions adapt so each point takes about -t seconds (default 0.05); the
 * whole run is a few seconds at 2 ranks. Run one rank per core: with more
 * ranks than cores the numbers measure the scheduler.
 *
 * usage: psins_bench [-o DIR] [-t SECONDS_PER_POINT]
 *
 * With -o DIR, rank 0 writes two files (DIR is created if missing):
 *
 * DIR/base-machine.toml (the simulator's machine-file shape):
 *     # measured by psins_bench on <host> at <date>
 *     # pingpong bytes=<n> half_rtt_us=<x>          (one comment line per size)
 *     [machine]
 *     name = "base (measured)"
 *     nodes = 1
 *     cores_per_node = <ranks in the run>
 *     [intra]
 *     latency = "<x>us"
 *     bandwidth = "<y>GB/s"                         (GB = 1e9 bytes)
 *     [network]
 *     model = "simple"
 *     latency = "<x>us"
 *     bandwidth = "<y>GB/s"
 *   [intra] and [network] carry the same numbers: the run is on one node.
 *
 * DIR/collective-curves.toml, one array-of-tables entry per collective:
 *     [[curve]]
 *     collective = "allreduce"    # barrier bcast reduce allreduce allgather alltoall
 *     ranks = <communicator size>
 *     bytes = [8, 64, ...]        # per-rank size: the buffer for bcast/reduce/
 *                                 # allreduce, each rank's part for allgather,
 *                                 # per peer for alltoall, [0] for barrier
 *     seconds = [1.2e-06, ...]    # mean time of one call, max over ranks
 *
 * Without -o the same numbers are printed on stdout (rank 0). Like every
 * test app, each rank ends with its PSINS_COUNTS / PSINS_P2P lines.
 */
#include <errno.h>
#include <sys/stat.h>
#include <time.h>
#include "count.h"

#define W MPI_COMM_WORLD
#define TAG 51
#define NPP 13                  /* ping-pong sizes: 0, then 4^0 .. 4^11 = 4 MiB */
#define NCS 7                   /* collective sizes: 8 B .. 2 MiB, powers of 8 */
#define MAX_REPS 1000

enum coll { BARRIER, BCAST, REDUCE, ALLREDUCE, ALLGATHER, ALLTOALL, NCOLL };
static const char *coll_name[NCOLL] = {"barrier", "bcast", "reduce",
                                       "allreduce", "allgather", "alltoall"};

static int rank, size;
static double budget = 0.05;
#define TRIALS 5
static const char *outdir;

struct results {
    int pp_bytes[NPP];
    double pp_half_rtt[NPP];
    int cs_bytes[NCS];
    double coll_seconds[NCOLL][NCS];
    double latency, bandwidth;  /* seconds, bytes per second */
    double call_overhead;       /* seconds spent inside one nonblocking post */
};

static int reps_for(double one_call)
{
    double r = one_call > 0 ? budget / one_call : MAX_REPS;
    return r < 3 ? 3 : r > MAX_REPS ? MAX_REPS : (int)r;
}

static void round_trip(char *buf, int bytes)
{
    MPI_Status st;
    int peer = 1 - rank;
    if (rank == 0) {
        CALL(MPI_Send, (buf, bytes, MPI_BYTE, peer, TAG, W));
        psins_sent(bytes);
    }
    CALL(MPI_Recv, (buf, bytes, MPI_BYTE, peer, TAG, W, &st));
    psins_received(&st);
    if (rank == 1) {
        CALL(MPI_Send, (buf, bytes, MPI_BYTE, peer, TAG, W));
        psins_sent(bytes);
    }
}

/* Ranks 0 and 1 only. Rank 0 sizes the run from a timed round trip and tells rank 1. */
static double pingpong_point(char *buf, int bytes)
{
    round_trip(buf, bytes);                     /* warm-up: connection, registration */
    double t0 = CALL(MPI_Wtime, ());
    round_trip(buf, bytes);
    int reps = reps_for(CALL(MPI_Wtime, ()) - t0);
    if (rank == 0) {
        CALL(MPI_Send, (&reps, 1, MPI_INT, 1, TAG, W));
        psins_sent(sizeof reps);
    } else {
        MPI_Status st;
        CALL(MPI_Recv, (&reps, 1, MPI_INT, 0, TAG, W, &st));
        psins_received(&st);
    }
    /* The fastest of several trials: on an oversubscribed or busy host a rank can lose its
     * core for a scheduler quantum, which an average over one long run would absorb. */
    int per_trial = reps / TRIALS > 0 ? reps / TRIALS : 1;
    double best = 0;
    for (int trial = 0; trial < TRIALS; trial++) {
        t0 = CALL(MPI_Wtime, ());
        for (int i = 0; i < per_trial; i++)
            round_trip(buf, bytes);
        double t = (CALL(MPI_Wtime, ()) - t0) / per_trial / 2;
        if (trial == 0 || t < best)
            best = t;
    }
    return best;
}

/* The software cost of posting a nonblocking operation: the time inside an MPI_Irecv plus an
 * MPI_Isend of 8 bytes, halved, fastest of TRIALS. The simulator adds it to every MPI call
 * (mpi.call_overhead); a latency/bandwidth model alone has no such term. Ranks 0 and 1. */
static double post_overhead(void)
{
    enum { POSTS = 2000 };
    int peer = 1 - rank, v = 0, w = 0;
    double best = 0;
    for (int trial = 0; trial < TRIALS; trial++) {
        double inside = 0;
        for (int i = 0; i < POSTS; i++) {
            MPI_Request rq[2];
            double t0 = CALL(MPI_Wtime, ());
            CALL(MPI_Irecv, (&w, 1, MPI_INT, peer, TAG + 1, W, &rq[0]));
            CALL(MPI_Isend, (&v, 1, MPI_INT, peer, TAG + 1, W, &rq[1]));
            inside += CALL(MPI_Wtime, ()) - t0;
            psins_sent(sizeof v);
            MPI_Status st[2];
            CALL(MPI_Waitall, (2, rq, st));
            psins_received(&st[0]);
        }
        double t = inside / POSTS / 2;
        if (trial == 0 || t < best)
            best = t;
    }
    return best;
}

static void pingpong(struct results *res)
{
    char *buf = calloc(4 << 20, 1);
    for (int i = 0; i < NPP; i++) {
        res->pp_bytes[i] = i == 0 ? 0 : 1 << (2 * (i - 1));
        if (rank < 2)
            res->pp_half_rtt[i] = pingpong_point(buf, res->pp_bytes[i]);
    }
    free(buf);
    if (rank >= 2)
        return;
    res->call_overhead = post_overhead();
    double big = res->pp_bytes[NPP - 1], smaller = res->pp_bytes[NPP - 2];
    double dt = res->pp_half_rtt[NPP - 1] - res->pp_half_rtt[NPP - 2];
    res->latency = res->pp_half_rtt[0];
    /* Noise can make the slope meaningless; then fall back to size over time. */
    res->bandwidth = dt > 0 ? (big - smaller) / dt : big / res->pp_half_rtt[NPP - 1];
}

static void run_collective(enum coll c, int bytes, char *s, char *r)
{
    int doubles = bytes / 8 > 0 ? bytes / 8 : 1;
    switch (c) {
    case BARRIER:
        CALL(MPI_Barrier, (W));
        break;
    case BCAST:
        CALL(MPI_Bcast, (s, bytes, MPI_BYTE, 0, W));
        break;
    case REDUCE:
        CALL(MPI_Reduce, (s, r, doubles, MPI_DOUBLE, MPI_SUM, 0, W));
        break;
    case ALLREDUCE:
        CALL(MPI_Allreduce, (s, r, doubles, MPI_DOUBLE, MPI_SUM, W));
        break;
    case ALLGATHER:
        CALL(MPI_Allgather, (s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, W));
        break;
    default:
        CALL(MPI_Alltoall, (s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, W));
        break;
    }
}

static double max_over_ranks(double t)
{
    double m;
    CALL(MPI_Allreduce, (&t, &m, 1, MPI_DOUBLE, MPI_MAX, W));
    return m;
}

/* Every rank derives reps from the same reduced trial time, so all agree. */
static double time_collective(enum coll c, int bytes, char *s, char *r)
{
    run_collective(c, bytes, s, r);             /* warm-up: connections, buffers */
    CALL(MPI_Barrier, (W));
    double t0 = CALL(MPI_Wtime, ());
    run_collective(c, bytes, s, r);
    int reps = reps_for(max_over_ranks(CALL(MPI_Wtime, ()) - t0));
    CALL(MPI_Barrier, (W));
    t0 = CALL(MPI_Wtime, ());
    for (int i = 0; i < reps; i++)
        run_collective(c, bytes, s, r);
    return max_over_ranks((CALL(MPI_Wtime, ()) - t0) / reps);
}

static void collectives(struct results *res)
{
    size_t biggest = (size_t)8 << (3 * (NCS - 1));
    char *s = calloc(biggest * size, 1), *r = calloc(biggest * size, 1);
    for (int i = 0; i < NCS; i++)
        res->cs_bytes[i] = 8 << (3 * i);
    for (int c = 0; c < NCOLL; c++)
        for (int i = 0; i < (c == BARRIER ? 1 : NCS); i++)
            res->coll_seconds[c][i] = time_collective(c, c == BARRIER ? 0 : res->cs_bytes[i], s, r);
    free(s);
    free(r);
}

static void header(FILE *f, const char *what)
{
    char host[256] = "unknown", date[64];
    time_t now = time(NULL);
    gethostname(host, sizeof host - 1);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "# %s measured by psins_bench on %s at %s\n", what, host, date);
}

/* No interconnect, let alone shared memory, takes this long for an empty message: a latency
 * above it means the ranks waited for cores (another job, or more ranks than cores). */
#define BUSY_LATENCY 100e-6

/* The warning for a latency measured on a busy host, or NULL. */
static const char *busy_host(const struct results *res)
{
    static char why[256];
    double load[1] = {0};
    if (res->latency <= BUSY_LATENCY)
        return NULL;
    if (getloadavg(load, 1) < 1)
        load[0] = -1;
    snprintf(why, sizeof why,
             "0-byte latency %.0f us: the ranks waited for cores (load average %.1f on %ld CPUs), "
             "so every time here is inflated; calibrate on an idle host",
             res->latency * 1e6, load[0], sysconf(_SC_NPROCESSORS_ONLN));
    return why;
}

static void write_machine(FILE *f, const struct results *res)
{
    header(f, "base machine");
    if (busy_host(res))
        fprintf(f, "# WARNING: %s\n", busy_host(res));
    fprintf(f, "# latency: half round trip at 0 B; bandwidth: slope between %d and %d B; each the fastest of 5 trials\n",
            res->pp_bytes[NPP - 2], res->pp_bytes[NPP - 1]);
    for (int i = 0; i < NPP; i++)
        fprintf(f, "# pingpong bytes=%d half_rtt_us=%.3f\n", res->pp_bytes[i],
                res->pp_half_rtt[i] * 1e6);
    const char *sections[2] = {"intra", "network"};
    fprintf(f, "[machine]\nname = \"base (measured)\"\nnodes = 1\ncores_per_node = %d\n", size);
    for (int k = 0; k < 2; k++) {
        fprintf(f, "[%s]\n", sections[k]);
        if (k == 1)
            fprintf(f, "model = \"simple\"\n");
        fprintf(f, "latency = \"%.3fus\"\nbandwidth = \"%.3fGB/s\"\n", res->latency * 1e6,
                res->bandwidth / 1e9);
    }
    fprintf(f, "# call_overhead: time inside one nonblocking post (Irecv + Isend of 8 B, halved)\n");
    fprintf(f, "[mpi]\ncall_overhead = \"%.3fus\"\n", res->call_overhead * 1e6);
}

static void write_curves(FILE *f, const struct results *res)
{
    header(f, "collective curves");
    fprintf(f, "# bytes: per-rank size (allgather: each rank's part; alltoall: per peer)\n"
               "# seconds: mean time of one call, max over ranks\n");
    for (int c = 0; c < NCOLL; c++) {
        int n = c == BARRIER ? 1 : NCS;
        fprintf(f, "\n[[curve]]\ncollective = \"%s\"\nranks = %d\nbytes = [", coll_name[c], size);
        for (int i = 0; i < n; i++)
            fprintf(f, "%s%d", i ? ", " : "", c == BARRIER ? 0 : res->cs_bytes[i]);
        fprintf(f, "]\nseconds = [");
        for (int i = 0; i < n; i++)
            fprintf(f, "%s%.6e", i ? ", " : "", res->coll_seconds[c][i]);
        fprintf(f, "]\n");
    }
}

static int write_file(const char *name, void (*writer)(FILE *, const struct results *),
                      const struct results *res)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "psins_bench: cannot write %s: %s\n", path, strerror(errno));
        return 0;
    }
    writer(f, res);
    fclose(f);
    printf("psins_bench: wrote %s\n", path);
    return 1;
}

static int report(const struct results *res)
{
    if (!outdir) {
        write_machine(stdout, res);
        write_curves(stdout, res);
        return 1;
    }
    if (mkdir(outdir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "psins_bench: cannot create %s: %s\n", outdir, strerror(errno));
        return 0;
    }
    return write_file("base-machine.toml", write_machine, res) &&
           write_file("collective-curves.toml", write_curves, res);
}

static int parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            outdir = argv[++i];
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            budget = atof(argv[++i]);
        else
            return 0;
    }
    return budget > 0;
}

int main(int argc, char **argv)
{
    psins_start(&argc, &argv, &rank, &size);
    if (!parse_args(argc, argv)) {
        if (rank == 0)
            fprintf(stderr, "usage: psins_bench [-o DIR] [-t SECONDS_PER_POINT]\n");
        psins_check(0, "arguments");
    }
    psins_check(size >= 2, "psins_bench needs at least 2 ranks");

    struct results res = {0};
    pingpong(&res);
    CALL(MPI_Barrier, (W));     /* idle ranks wait here during the ping-pong */
    collectives(&res);
    if (rank == 0 && busy_host(&res))
        fprintf(stderr, "psins_bench: warning: %s\n", busy_host(&res));
    int ok = rank != 0 || report(&res);
    fflush(stdout);
    psins_finish(rank);
    return ok ? 0 : 1;
}
