// ggml_threadpool_* and ggml_numa_* of ggml.h / ggml-cpu.h (see threadpool-api.h).
#include "threadpool-api.h"

#include "ggml-impl.h"

#include <cstring>
#include <new>

struct ggml_threadpool_params ggml_threadpool_params_default(int n_threads) {
    struct ggml_threadpool_params p;
    ggml_threadpool_params_init(&p, n_threads);
    return p;
}

void ggml_threadpool_params_init(struct ggml_threadpool_params * p, int n_threads) {
    if (!p) {
        return;
    }
    std::memset(p, 0, sizeof(*p));
    p->n_threads = n_threads;
    p->prio      = GGML_SCHED_PRIO_NORMAL;
    p->poll      = 50;
}

bool ggml_threadpool_params_match(const struct ggml_threadpool_params * p0, const struct ggml_threadpool_params * p1) {
    if (!p0 || !p1) {
        return p0 == p1;
    }
    return p0->n_threads == p1->n_threads && p0->prio == p1->prio && p0->poll == p1->poll &&
           p0->strict_cpu == p1->strict_cpu && p0->paused == p1->paused &&
           std::memcmp(p0->cpumask, p1->cpumask, sizeof(p0->cpumask)) == 0;
}

struct ggml_threadpool * ggml_threadpool_new(struct ggml_threadpool_params * params) {
    if (!params || params->n_threads < 1 || params->n_threads > GGML_MAX_N_THREADS) {
        GGML_LOG_ERROR("%s: n_threads must be in [1, %d]\n", __func__, GGML_MAX_N_THREADS);
        return nullptr;
    }
    auto * pool = new (std::nothrow) ggml_threadpool;
    if (!pool) {
        return nullptr;
    }
    pool->tp = ggml_cpu_threadpool_new(params->n_threads);
    if (!pool->tp) {
        GGML_LOG_ERROR("%s: failed to start %d threads\n", __func__, params->n_threads);
        delete pool;
        return nullptr;
    }
    pool->n_threads = params->n_threads;
    pool->paused    = params->paused;
    return pool;
}

void ggml_threadpool_free(struct ggml_threadpool * threadpool) {
    if (threadpool) {
        ggml_cpu_threadpool_free(threadpool->tp);
        delete threadpool;
    }
}

int ggml_threadpool_get_n_threads(struct ggml_threadpool * threadpool) {
    return threadpool ? threadpool->n_threads : 0;
}

void ggml_threadpool_pause(struct ggml_threadpool * threadpool) {
    if (threadpool) {
        threadpool->paused = true;
    }
}

void ggml_threadpool_resume(struct ggml_threadpool * threadpool) {
    if (threadpool) {
        threadpool->paused = false;
    }
}

void ggml_numa_init(enum ggml_numa_strategy numa) {
    (void) numa;  // threads are not placed per NUMA node (documented in ggml-cpu.h)
}

bool ggml_is_numa(void) {
    return false;
}
