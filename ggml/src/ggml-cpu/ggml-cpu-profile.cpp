// GGML_CPU_PROFILE=1: per-op compute and barrier-wait time of every CPU graph, summed per thread,
// printed at exit per graph (divide by the graph count the summary gives).
#include "ggml-cpu-profile.h"

#include "cpu-op-table.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace {
constexpr int MAX_TH = 8;

struct totals {
    std::mutex           mtx;
    ggml_cpu_profile_rec th[MAX_TH]{};
    int64_t              graphs = 0, graph_ns = 0, threads_sum = 0;
    int64_t              last_end = 0, gaps = 0, gap_ns = 0;  // between graphs: the caller's own time

    ~totals() {
        if (graphs == 0)
            return;
        const double g = (double) graphs;
        std::fprintf(stderr,
                     "\nggml_cpu profile: %lld graphs, %.1f us per graph (entry to return), %.2f threads, "
                     "%.1f barriers per graph (thread 0)\n",
                     (long long) graphs, graph_ns / g / 1e3, threads_sum / g, th[0].n_barriers / g);
        if (gaps > 0)
            std::fprintf(stderr, "between graphs (caller: graph build, inputs, logits; gaps < 50 ms): %.1f us\n",
                         gap_ns / (double) gaps / 1e3);
        std::fprintf(stderr, "%-28s %8s %12s %12s %12s %12s\n", "op [type]", "calls/g", "t0 us/g", "t0 wait/g",
                     "t1 us/g", "t1 wait/g");
        std::vector<int> keys;
        for (int k = 0; k < ggml_cpu_profile_rec::N_KEYS; ++k)
            if (th[0].calls[k] > 0)
                keys.push_back(k);
        std::sort(keys.begin(), keys.end(), [&](int a, int b) { return th[0].compute_ns[a] > th[0].compute_ns[b]; });
        double sum_c[2] = {0, 0}, sum_w[2] = {0, 0};
        for (int k : keys) {
            const int op = k / (GGML_TYPE_COUNT + 1), ty = k % (GGML_TYPE_COUNT + 1);
            char      name[64];
            std::snprintf(name, sizeof(name), "%s%s%s%s", ggml_op_name((ggml_op) op), ty < GGML_TYPE_COUNT ? " " : "",
                          ty < GGML_TYPE_COUNT ? ggml_type_name((ggml_type) ty) : "", "");
            std::fprintf(stderr, "%-28s %8.1f %12.1f %12.1f %12.1f %12.1f\n", name, th[0].calls[k] / g,
                         th[0].compute_ns[k] / g / 1e3, th[0].barrier_ns[k] / g / 1e3, th[1].compute_ns[k] / g / 1e3,
                         th[1].barrier_ns[k] / g / 1e3);
            for (int i = 0; i < 2; ++i) {
                sum_c[i] += th[i].compute_ns[k] / g / 1e3;
                sum_w[i] += th[i].barrier_ns[k] / g / 1e3;
            }
        }
        std::fprintf(stderr, "%-28s %8s %12.1f %12.1f %12.1f %12.1f\n", "total", "", sum_c[0], sum_w[0], sum_c[1],
                     sum_w[1]);
    }
};

totals & g_totals() {
    static totals t;
    return t;
}
}  // namespace

namespace {
int profile_level() {
    static const int level = [] {
        const char * e = std::getenv("GGML_CPU_PROFILE");
        return e && (e[0] == '1' || e[0] == '2') ? e[0] - '0' : 0;
    }();
    return level;
}
}  // namespace

bool ggml_cpu_profile_on() {
    static const bool on = [] {
        if (profile_level() > 0) {
            g_totals();  // constructed now, so destroyed (and printed) after every user
            return true;
        }
        return false;
    }();
    return on;
}

int64_t ggml_cpu_profile_now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

int ggml_cpu_profile_key(const ggml_tensor * t, bool fused_next) {
    int ty = GGML_TYPE_COUNT;
    switch (ggml_cpu_op_row_of(t->op).prof) {
        case cpu_prof::src0:
            ty = t->src[0]->type;
            break;
        case cpu_prof::src1:
            ty = t->src[1]->type;
            break;
        case cpu_prof::dst:
            ty = t->type;
            break;
        case cpu_prof::fused:
            ty = fused_next ? GGML_TYPE_F32 : GGML_TYPE_COUNT;  // "ADD f32", "RMS_NORM f32": a fused pass
            break;
        case cpu_prof::none:
            break;
    }
    return (int) t->op * (GGML_TYPE_COUNT + 1) + ty;
}

void ggml_cpu_profile_clear(ggml_cpu_profile_rec * r) {
    std::fill(r->compute_ns, r->compute_ns + ggml_cpu_profile_rec::N_KEYS, 0);
    std::fill(r->barrier_ns, r->barrier_ns + ggml_cpu_profile_rec::N_KEYS, 0);
    std::fill(r->calls, r->calls + ggml_cpu_profile_rec::N_KEYS, 0);
    r->n_barriers = 0;
}

void ggml_cpu_profile_commit(const ggml_cpu_profile_rec * r, int ith, int nth) {
    (void) nth;
    if (ith >= MAX_TH)
        return;
    totals &                    T = g_totals();
    std::lock_guard<std::mutex> lk(T.mtx);
    ggml_cpu_profile_rec &      d = T.th[ith];
    for (int k = 0; k < ggml_cpu_profile_rec::N_KEYS; ++k) {
        d.compute_ns[k] += r->compute_ns[k];
        d.barrier_ns[k] += r->barrier_ns[k];
        d.calls[k] += r->calls[k];
    }
    d.n_barriers += r->n_barriers;
}

void ggml_cpu_profile_graph(int64_t ns, int n_threads) {
    totals &                    T   = g_totals();
    const int64_t               now = ggml_cpu_profile_now();
    std::lock_guard<std::mutex> lk(T.mtx);
    const int64_t               gap = now - ns - T.last_end;
    if (T.last_end != 0 && gap < 50000000) {
        T.gaps++;
        T.gap_ns += gap;
    }
    T.last_end = now;
    T.graphs++;
    T.graph_ns += ns;
    T.threads_sum += n_threads;
}

void ggml_cpu_profile_dump(ggml_tensor * const * nodes, const uint8_t * barrier_after, int n_nodes,
                           bool (*is_noop)(const ggml_tensor *)) {
    static std::atomic<bool> done{false};
    if (profile_level() < 2 || n_nodes <= 64 || done.exchange(true))
        return;
    std::fprintf(stderr, "ggml_cpu graph: %d nodes\n", n_nodes);
    for (int i = 0; i < n_nodes; ++i) {
        const ggml_tensor * t = nodes[i];
        if (is_noop(t))
            continue;
        std::fprintf(stderr, "%4d %-14s %-28s [%lld %lld %lld %lld] %s\n", i, ggml_op_name(t->op), t->name,
                     (long long) t->ne[0], (long long) t->ne[1], (long long) t->ne[2], (long long) t->ne[3],
                     barrier_after[i] ? "|" : "");
    }
}
