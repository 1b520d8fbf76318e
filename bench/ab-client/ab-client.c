/*
 * llama-bench-ab — one benchmark client for two engines.
 *
 * Written in C99 against the subset of llama.h that our header and upstream llama.cpp's share, so the
 * very same source is compiled twice: linked to our libllama (CMake target llama-bench-ab) and to an
 * upstream build (scripts/bench-vs-upstream.sh). Both engines then see identical requests: the same
 * token ids, batch sizes, context parameters and timing code.
 *
 *   llama-bench-ab MODEL [THREADS=2] [N_PROMPT=512] [N_GEN=128] [REPS=3] [FLASH_ATTN=-1] [DEPTH=0]
 *
 * FLASH_ATTN: -1 auto (the default of both engines), 0 off, 1 on. DEPTH: tokens placed in the KV cache
 * before each timed run (not timed). Prints one line:
 *   pp=<t/s> tg=<t/s> rss_mb=<peak RSS> load_ms=<model load> pp_cpu=<t/s> tg_cpu=<t/s>
 * pp is N_PROMPT tokens decoded in one call; tg is N_GEN single-token decodes; both medians of REPS.
 * pp_cpu / tg_cpu: the same over the process's CPU time instead of the wall clock (equal to the work
 * with THREADS=1, whatever else the machine runs; with more threads it sums them all, spinning included).
 *
 *   llama-bench-ab --bw [THREADS=2] [MIB=512]
 *
 * measures the machine's read bandwidth instead (bench/common/read-bandwidth.h, best of 6 reads) and
 * prints `bw_gbs=<GB/s>`; scripts/bench-vs-upstream.sh runs it before every engine run, in its own
 * process so the peak RSS of the benchmark runs stays clean.
 * AB_THREADPOOL=1 in the environment attaches a thread pool of THREADS threads made by the caller
 * (ggml_threadpool_new + llama_attach_threadpool, as upstream's llama-bench and llama-cli do); unset, each
 * engine computes with its own threads.
 * Exit status: 0 success, 1 usage (or a failed probe), 2 load or decode failure.
 */
/* clock_gettime under -std=c99 (scripts/bench-vs-upstream.sh compiles this file with plain cc -std=c99) */
#ifndef _POSIX_C_SOURCE
#    define _POSIX_C_SOURCE 200809L
#endif
#include "../common/read-bandwidth.h"
#include "llama.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static void quiet_log(enum ggml_log_level level, const char * text, void * user) {
    (void) user;
    if (level == GGML_LOG_LEVEL_ERROR) {
        fputs(text, stderr);
    }
}

/* CPU time of the whole process in microseconds: with one thread it is the work done, whatever else
 * the machine runs (the wall clock of llama_time_us also counts the time other processes hold the core). */
static int64_t cpu_time_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int cmp_double(const void * a, const void * b) {
    const double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double median(double * v, int n) {
    qsort(v, (size_t) n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Decodes n tokens of `toks` in chunks of at most `chunk`; 0 on success. */
static int decode_chunks(struct llama_context * ctx, llama_token * toks, int n, int chunk) {
    for (int i = 0; i < n; i += chunk) {
        const int m = n - i < chunk ? n - i : chunk;
        if (llama_decode(ctx, llama_batch_get_one(toks + i, m)) != 0) {
            return 1;
        }
    }
    return 0;
}

static long arg_or(int argc, char ** argv, int i, long def, long lo, long hi) {
    if (argc <= i) {
        return def;
    }
    char *     end = NULL;
    const long v   = strtol(argv[i], &end, 10);
    if (!end || *end || v < lo || v > hi) {
        fprintf(stderr, "llama-bench-ab: argument %d ('%s') must be an integer in [%ld, %ld]\n", i, argv[i], lo, hi);
        exit(1);
    }
    return v;
}

int main(int argc, char ** argv) {
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: llama-bench-ab MODEL [THREADS=2] [N_PROMPT=512] [N_GEN=128] [REPS=3] [FLASH_ATTN=-1] "
                "[DEPTH=0]\n       llama-bench-ab --bw [THREADS=2] [MIB=512]\n");
        return argc < 2 ? 1 : 0;
    }
    if (!strcmp(argv[1], "--bw")) {
        const double bw = llama_bench_read_bandwidth((int) arg_or(argc, argv, 2, 2, 1, 512),
                                                     (size_t) arg_or(argc, argv, 3, 512, 1, 65536), 6);
        if (bw <= 0) {
            fprintf(stderr, "llama-bench-ab: the bandwidth probe could not run\n");
            return 1;
        }
        printf("bw_gbs=%.2f\n", bw / 1e9);
        return 0;
    }
    const int n_threads = (int) arg_or(argc, argv, 2, 2, 1, 512);
    const int n_prompt  = (int) arg_or(argc, argv, 3, 512, 0, 65536);
    const int n_gen     = (int) arg_or(argc, argv, 4, 128, 0, 65536);
    const int reps      = (int) arg_or(argc, argv, 5, 3, 1, 1000);
    const int fa        = (int) arg_or(argc, argv, 6, -1, -1, 1);
    const int depth     = (int) arg_or(argc, argv, 7, 0, 0, 1 << 20);

    llama_log_set(quiet_log, NULL);
    llama_backend_init();

    const int64_t             t_load0 = llama_time_us();
    struct llama_model_params mp      = llama_model_default_params();
    struct llama_model *      model   = llama_model_load_from_file(argv[1], mp);
    const int64_t             t_load1 = llama_time_us();
    if (!model) {
        fprintf(stderr, "llama-bench-ab: cannot load %s\n", argv[1]);
        return 2;
    }
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx                       = (uint32_t) (depth + (n_prompt > n_gen ? n_prompt : n_gen) + 16);
    cp.n_batch                     = (uint32_t) (n_prompt > 0 ? n_prompt : 1);
    cp.n_threads                   = n_threads;
    cp.n_threads_batch             = n_threads;
    cp.flash_attn_type             = (enum llama_flash_attn_type) fa;
    struct llama_context * ctx     = llama_init_from_model(model, cp);
    if (!ctx) {
        fprintf(stderr, "llama-bench-ab: cannot create a context\n");
        llama_model_free(model);
        return 2;
    }

    struct ggml_threadpool * pool   = NULL;
    const char *             tp_env = getenv("AB_THREADPOOL");
    if (tp_env && strcmp(tp_env, "1") == 0) {
        struct ggml_threadpool_params tpp = ggml_threadpool_params_default(n_threads);
        pool                              = ggml_threadpool_new(&tpp);
        if (!pool) {
            fprintf(stderr, "llama-bench-ab: cannot create a thread pool\n");
            llama_free(ctx);
            llama_model_free(model);
            return 2;
        }
        llama_attach_threadpool(ctx, pool, NULL);
    }

    const int     n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    const int     n_tok   = depth + n_prompt + n_gen + 1;
    llama_token * toks    = (llama_token *) malloc(sizeof(llama_token) * (size_t) n_tok);
    double *      pp      = (double *) calloc((size_t) reps, sizeof(double));
    double *      tg      = (double *) calloc((size_t) reps, sizeof(double));
    double *      pp_cpu  = (double *) calloc((size_t) reps, sizeof(double));
    double *      tg_cpu  = (double *) calloc((size_t) reps, sizeof(double));
    unsigned      seed    = 12345u;
    for (int i = 0; i < n_tok; ++i) { /* fixed pseudo-random ids, identical for both engines */
        seed    = seed * 1103515245u + 12345u;
        toks[i] = (llama_token) ((seed >> 8) % (unsigned) (n_vocab > 1 ? n_vocab - 1 : 1)) + 1;
    }
    const int chunk = (int) cp.n_batch;
    int       rc    = 0;
    /* one untimed warm-up of each phase, as llama-bench does */
    for (int r = -1; r < reps && rc == 0; ++r) {
        if (n_prompt > 0) {
            llama_memory_clear(llama_get_memory(ctx), true);
            rc |= decode_chunks(ctx, toks, depth, chunk);
            const int64_t t0 = llama_time_us(), c0 = cpu_time_us();
            rc |= decode_chunks(ctx, toks + depth, n_prompt, chunk);
            const int64_t t1 = llama_time_us(), c1 = cpu_time_us();
            if (r >= 0) {
                pp[r]     = n_prompt / ((t1 - t0) * 1e-6);
                pp_cpu[r] = n_prompt / ((c1 - c0 > 0 ? c1 - c0 : 1) * 1e-6);
            }
        }
        if (n_gen > 0) {
            llama_memory_clear(llama_get_memory(ctx), true);
            rc |= decode_chunks(ctx, toks, depth, chunk);
            const int64_t t0 = llama_time_us(), c0 = cpu_time_us();
            for (int i = 0; i < n_gen && rc == 0; ++i) {
                rc |= decode_chunks(ctx, toks + depth + n_prompt + i, 1, 1);
            }
            const int64_t t1 = llama_time_us(), c1 = cpu_time_us();
            if (r >= 0) {
                tg[r]     = n_gen / ((t1 - t0) * 1e-6);
                tg_cpu[r] = n_gen / ((c1 - c0 > 0 ? c1 - c0 : 1) * 1e-6);
            }
        }
    }
    if (rc != 0) {
        fprintf(stderr, "llama-bench-ab: llama_decode failed\n");
    } else {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("pp=%.2f tg=%.2f rss_mb=%.0f load_ms=%.0f pp_cpu=%.2f tg_cpu=%.2f\n",
               n_prompt > 0 ? median(pp, reps) : 0.0, n_gen > 0 ? median(tg, reps) : 0.0, ru.ru_maxrss / 1024.0,
               (t_load1 - t_load0) / 1000.0, n_prompt > 0 ? median(pp_cpu, reps) : 0.0,
               n_gen > 0 ? median(tg_cpu, reps) : 0.0);
    }
    free(toks);
    free(pp);
    free(tg);
    free(pp_cpu);
    free(tg_cpu);
    llama_free(ctx);
    if (pool) {
        ggml_threadpool_free(pool);
    }
    llama_model_free(model);
    llama_backend_free();
    return rc ? 2 : 0;
}
