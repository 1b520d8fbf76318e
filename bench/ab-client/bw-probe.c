/*
 * llama-bw-probe — the read bandwidth of this machine right now, for scripts/bench-vs-upstream.sh.
 *
 *   llama-bw-probe [THREADS=2] [MIB=512] [REPS=6]
 *
 * Streams a MIB MiB buffer (every page touched first, so the reads come from memory, not the zero
 * page) split over THREADS threads, REPS times, and prints the best rate as one line:
 *   bw_gbs=<GB/s>
 * The same method as llama-bench's in-process probe (bench/llama-bench). It is a separate process so
 * the peak RSS the benchmark client reports is not inflated by the probe's buffer, and one binary
 * serves both engines. Exit status: 0 success, 1 usage or allocation failure.
 */
#define _POSIX_C_SOURCE 200112L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct slice {
    const uint64_t * p;
    size_t           n;
    uint64_t         sum;
};

/* Eight independent accumulators, so the loads and not the adds set the pace. */
__attribute__((target_clones("avx2", "default"))) static uint64_t sum_words(const uint64_t * p, size_t n) {
    uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
    size_t   i = 0;
    for (; i + 8 <= n; i += 8) {
        a0 += p[i], a1 += p[i + 1], a2 += p[i + 2], a3 += p[i + 3];
        a4 += p[i + 4], a5 += p[i + 5], a6 += p[i + 6], a7 += p[i + 7];
    }
    for (; i < n; i++) {
        a0 += p[i];
    }
    return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

static void * run_slice(void * arg) {
    struct slice * s = (struct slice *) arg;
    s->sum           = sum_words(s->p, s->n);
    return NULL;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static long arg_or(int argc, char ** argv, int i, long def, long lo, long hi) {
    if (argc <= i) {
        return def;
    }
    char *     end = NULL;
    const long v   = strtol(argv[i], &end, 10);
    if (!end || *end || v < lo || v > hi) {
        fprintf(stderr, "llama-bw-probe: argument %d ('%s') must be an integer in [%ld, %ld]\n", i, argv[i], lo, hi);
        exit(1);
    }
    return v;
}

int main(int argc, char ** argv) {
    if (argc > 1 && (argv[1][0] == '-')) {
        printf("usage: llama-bw-probe [THREADS=2] [MIB=512] [REPS=6]\n");
        return 0;
    }
    const int      nth  = (int) arg_or(argc, argv, 1, 2, 1, 256);
    const size_t   mib  = (size_t) arg_or(argc, argv, 2, 512, 1, 65536);
    const int      reps = (int) arg_or(argc, argv, 3, 6, 1, 1000);
    const size_t   n    = mib * 1024 * 1024 / sizeof(uint64_t);
    uint64_t *     buf  = (uint64_t *) malloc(n * sizeof(uint64_t));
    struct slice * sl   = (struct slice *) calloc((size_t) nth, sizeof(struct slice));
    pthread_t *    th   = (pthread_t *) calloc((size_t) nth, sizeof(pthread_t));
    if (!buf || !sl || !th) {
        fprintf(stderr, "llama-bw-probe: cannot allocate %zu MiB\n", mib);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        buf[i] = i;
    }
    double            best = 0;
    volatile uint64_t sink = 0; /* read nowhere: keeps the sums from being optimised away */
    for (int r = 0; r < reps; r++) {
        const double t0 = now_s();
        for (int t = 0; t < nth; t++) {
            sl[t].p = buf + n * (size_t) t / (size_t) nth;
            sl[t].n = n * (size_t) (t + 1) / (size_t) nth - n * (size_t) t / (size_t) nth;
            if (t > 0 && pthread_create(&th[t], NULL, run_slice, &sl[t]) != 0) {
                fprintf(stderr, "llama-bw-probe: cannot start a thread\n");
                return 1;
            }
        }
        run_slice(&sl[0]);
        for (int t = 1; t < nth; t++) {
            pthread_join(th[t], NULL);
        }
        const double s = now_s() - t0;
        for (int t = 0; t < nth; t++) {
            sink = sink + sl[t].sum;
        }
        if (s > 0 && (double) (n * sizeof(uint64_t)) / s > best) {
            best = (double) (n * sizeof(uint64_t)) / s;
        }
    }
    printf("bw_gbs=%.2f\n", best / 1e9);
    free(buf);
    free(sl);
    free(th);
    return 0;
}
