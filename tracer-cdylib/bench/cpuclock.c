/* What a read of each candidate source of a thread's CPU time costs on this host, and how
 * finely it resolves (for PSINS_CLOCK=cpu, docs/tracer.md "Timing").
 *   cc -O2 -o cpuclock tracer-cdylib/bench/cpuclock.c && ./cpuclock [READS] [ROUNDS]
 * Each source is read READS times in a loop (default 1,000,000); the sources take turns,
 * ROUNDS times (default 7), and the line per source gives the median over the rounds of the
 * ns per read (wall time of the loop / READS) and the smallest non-zero step between two
 * successive reads seen. The wall-clock sources (rdtsc, vDSO CLOCK_MONOTONIC) are there for
 * scale: they are what the tracer reads for every call already. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static uint64_t ts_ns(struct timespec t) { return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec; }

static uint64_t mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return ts_ns(t);
}
static uint64_t tsc(void) { return __rdtsc(); }
static uint64_t thread_cputime(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return ts_ns(t);
}
/* The same clock through the system call itself: glibc's clock_gettime first tries the vDSO,
 * whose fallback for a CPU-time clock is this system call. */
static uint64_t thread_cputime_raw(void)
{
    struct timespec t;
    long rc;
    __asm__ volatile("syscall"
                     : "=a"(rc)
                     : "0"((long)SYS_clock_gettime), "D"((long)CLOCK_THREAD_CPUTIME_ID), "S"(&t)
                     : "rcx", "r11", "memory");
    (void)rc;
    return ts_ns(t);
}
static clockid_t tid_clock;
static uint64_t thread_cputime_by_id(void)
{
    struct timespec t;
    clock_gettime(tid_clock, &t);
    return ts_ns(t);
}
static uint64_t process_cputime(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return ts_ns(t);
}
static uint64_t rusage_thread(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
           (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}
static int schedstat_fd = -1;
/* /proc/thread-self/schedstat: "<ns on CPU> <ns waiting> <slices>" */
static uint64_t schedstat(void)
{
    char b[96];
    ssize_t n = pread(schedstat_fd, b, sizeof b - 1, 0);
    if (n <= 0) return 0;
    b[n] = 0;
    return strtoull(b, NULL, 10);
}

struct src {
    const char *name;
    uint64_t (*read)(void);
    double ns[64];
    uint64_t step;
};

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long reads = argc > 1 ? atol(argv[1]) : 1000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    if (rounds < 1 || rounds > 64 || reads < 1) {
        fprintf(stderr, "usage: cpuclock [READS] [ROUNDS (1..64)]\n");
        return 2;
    }
    pthread_getcpuclockid(pthread_self(), &tid_clock);
    schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY);
    struct src s[] = {
        {"rdtsc (wall, for scale)", tsc, {0}, 0},
        {"clock_gettime(CLOCK_MONOTONIC) (vDSO, wall)", mono, {0}, 0},
        {"clock_gettime(CLOCK_THREAD_CPUTIME_ID)", thread_cputime, {0}, 0},
        {"syscall(clock_gettime, CLOCK_THREAD_CPUTIME_ID)", thread_cputime_raw, {0}, 0},
        {"clock_gettime(pthread_getcpuclockid(self))", thread_cputime_by_id, {0}, 0},
        {"clock_gettime(CLOCK_PROCESS_CPUTIME_ID)", process_cputime, {0}, 0},
        {"getrusage(RUSAGE_THREAD)", rusage_thread, {0}, 0},
        {"pread(/proc/thread-self/schedstat)", schedstat, {0}, 0},
    };
    int n = (int)(sizeof s / sizeof s[0]) - (schedstat_fd < 0);
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++) {
            uint64_t prev = s[i].read(), sink = 0;
            uint64_t t0 = mono();
            for (long k = 0; k < reads; k++) {
                uint64_t v = s[i].read();
                uint64_t d = v - prev;
                if (d && (!s[i].step || d < s[i].step)) s[i].step = d;
                prev = v;
                sink += v;
            }
            uint64_t t1 = mono();
            __asm__ volatile("" ::"r"(sink));
            s[i].ns[r] = (double)(t1 - t0) / (double)reads;
        }
    }
    printf("# %ld reads per source per round, %d rounds; median ns per read, smallest non-zero step\n", reads,
           rounds);
    for (int i = 0; i < n; i++) {
        qsort(s[i].ns, (size_t)rounds, sizeof(double), cmp);
        double med = rounds % 2 ? s[i].ns[rounds / 2] : (s[i].ns[rounds / 2 - 1] + s[i].ns[rounds / 2]) / 2;
        printf("%-50s %8.1f ns/read  step %llu%s\n", s[i].name, med, (unsigned long long)s[i].step,
               i == 0 ? " ticks" : " ns");
    }
    return 0;
}
