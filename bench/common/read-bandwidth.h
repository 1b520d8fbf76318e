/*
 * The read-bandwidth probe shared by llama-bench (its "tg % roofline" column) and llama-bench-ab
 * (`--bw`, run by scripts/bench-vs-upstream.sh between the two engines' runs). Plain C99 + POSIX
 * threads, header-only, so the client that is compiled against upstream's tree carries it too.
 *
 * llama_bench_read_bandwidth(n_threads, mib, reps): streams a `mib` MiB buffer (every page written
 * first, so the reads come from memory, not the shared zero page) split over n_threads threads,
 * `reps` times, and returns the best rate in bytes/s; 0 if memory or a thread could not be had.
 */
#ifndef LLAMA_BENCH_READ_BANDWIDTH_H
#define LLAMA_BENCH_READ_BANDWIDTH_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

struct llama_bench_bw_slice {
    const uint64_t * p;
    size_t           n;
    uint64_t         sum;
};

/* x86-64: an AVX2 clone beside the baseline one (target_clones takes x86 ISA names only and needs
 * ELF's ifunc; elsewhere, e.g. the aarch64 cross build or Windows, the baseline's vectorised loop). */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__ELF__) /* ifunc: ELF only */
#    define LLAMA_BENCH_BW_CLONES __attribute__((target_clones("avx2", "default")))
#else
#    define LLAMA_BENCH_BW_CLONES
#endif

/* Eight independent accumulators, so the loads and not the adds set the pace. */
LLAMA_BENCH_BW_CLONES static uint64_t llama_bench_sum_words(const uint64_t * p, size_t n) {
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

static void * llama_bench_bw_run(void * arg) {
    struct llama_bench_bw_slice * s = (struct llama_bench_bw_slice *) arg;
    s->sum                          = llama_bench_sum_words(s->p, s->n);
    return NULL;
}

static double llama_bench_bw_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static double llama_bench_read_bandwidth(int n_threads, size_t mib, int reps) {
    const size_t                  n    = mib * 1024 * 1024 / sizeof(uint64_t);
    uint64_t *                    buf  = (uint64_t *) malloc(n * sizeof(uint64_t));
    struct llama_bench_bw_slice * sl   = (struct llama_bench_bw_slice *) calloc((size_t) n_threads, sizeof(*sl));
    pthread_t *                   th   = (pthread_t *) calloc((size_t) n_threads, sizeof(pthread_t));
    double                        best = 0;
    volatile uint64_t             sink = 0; /* keeps the sums from being optimised away */
    if (buf && sl && th && n_threads > 0) {
        for (size_t i = 0; i < n; i++) {
            buf[i] = i;
        }
        for (int r = 0; r < reps && best >= 0; r++) {
            const double t0      = llama_bench_bw_now();
            int          started = 1;
            for (int t = 0; t < n_threads; t++) {
                sl[t].p = buf + n * (size_t) t / (size_t) n_threads;
                sl[t].n = n * (size_t) (t + 1) / (size_t) n_threads - n * (size_t) t / (size_t) n_threads;
            }
            for (int t = 1; t < n_threads && started == t; t++) {
                started += pthread_create(&th[t], NULL, llama_bench_bw_run, &sl[t]) == 0;
            }
            llama_bench_bw_run(&sl[0]);
            for (int t = 1; t < started; t++) {
                pthread_join(th[t], NULL);
            }
            const double s = llama_bench_bw_now() - t0;
            if (started != n_threads) {
                best = -1; /* a thread did not start: no measurement */
                break;
            }
            for (int t = 0; t < n_threads; t++) {
                sink = sink + sl[t].sum;
            }
            if (s > 0 && (double) (n * sizeof(uint64_t)) / s > best) {
                best = (double) (n * sizeof(uint64_t)) / s;
            }
        }
    }
    free(buf);
    free(sl);
    free(th);
    (void) sink;
    return best > 0 ? best : 0;
}

#endif
