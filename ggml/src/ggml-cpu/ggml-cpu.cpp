// The CPU graph compute loop (every thread walks the node list, a barrier after each node), the
// exact supports_op answer, and the helpers every op family shares (scratch sizing, row conversion).
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "cpu-op-table.h"
#include "cpu-repack.h"
#include "cpu-type-traits.h"
#include "ggml-cpu-impl.h"
#include "ggml-cpu-profile.h"
#include "threadpool.h"

float ggml_cpu_f16_table[1 << 16];

namespace {
struct f16_table_init {
    f16_table_init() {
        for (uint32_t i = 0; i < (1u << 16); ++i) {
            ggml_cpu_f16_table[i] = ggml_fp16_to_fp32((ggml_fp16_t) i);
        }
    }
} g_f16_table_init;

std::atomic<int> g_scalar{-1};  // -1: GGML_CPU_SCALAR not read yet
}  // namespace

bool ggml_cpu_use_scalar() {
    int s = g_scalar.load(std::memory_order_relaxed);
    if (s < 0) {
        const char * env = std::getenv("GGML_CPU_SCALAR");
        s                = (env && env[0] == '1') ? 1 : 0;
        g_scalar.store(s, std::memory_order_relaxed);
    }
    return s == 1;
}

extern "C" void ggml_cpu_set_scalar(bool scalar) {
    g_scalar.store(scalar ? 1 : 0, std::memory_order_relaxed);
}

namespace {
std::atomic<int> g_auto_threads{-1};  // -1: GGML_CPU_AUTO_THREADS not read yet

bool auto_threads() {
    int s = g_auto_threads.load(std::memory_order_relaxed);
    if (s < 0) {
        const char * env = std::getenv("GGML_CPU_AUTO_THREADS");
        s                = (env && env[0] == '0') ? 0 : 1;
        g_auto_threads.store(s, std::memory_order_relaxed);
    }
    return s == 1;
}

// Rough multiply-add count of a node, to decide whether extra threads pay for their barriers.
double node_work(const ggml_tensor * t) {
    return ggml_cpu_op_row_of(t->op).cost(t);
}
}  // namespace

extern "C" void ggml_cpu_set_auto_threads(bool enable) {
    g_auto_threads.store(enable ? 1 : 0, std::memory_order_relaxed);
}

void ggml_cpu_barrier(const ggml_cpu_params * p) {
    p->tp->barrier(p->nth);
}

int64_t ggml_cpu_claim(const ggml_cpu_params * p) {
    return p->tp->claim();
}

void ggml_cpu_fail(const ggml_cpu_params * p, const char * fmt, ...) {
    int expected = 0;
    if (!p->failed->compare_exchange_strong(expected, p->node + 1)) {
        return;  // another thread already reported this node
    }
    char    buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    GGML_LOG_ERROR("%s\n", buf);
}

// ---- row conversion (float-like types here, quantized ones through the CPU type traits) -------

void ggml_cpu_fp32_to_fp16_f16c(const float * x, uint16_t * y, int64_t n);  // vec-convert.avx2.cpp
void ggml_cpu_fp32_to_fp16_neon(const float * x, uint16_t * y, int64_t n);  // vec-convert.neon.cpp

namespace {
// A vector F32 -> F16 row conversion of this CPU (F16C; NEON FCVTN on every arm64 CPU), or NULL.
using fp32_to_fp16_fn = void (*)(const float *, uint16_t *, int64_t);
fp32_to_fp16_fn simd_fp32_to_fp16() {
#if defined(GGML_CPU_ARCH_X86_64)
    if (ggml_cpu_isa_available(GGML_CPU_ISA_AVX2))
        return ggml_cpu_fp32_to_fp16_f16c;
#elif defined(GGML_CPU_ARCH_ARM64)
    if (ggml_cpu_isa_available(GGML_CPU_ISA_NEON))
        return ggml_cpu_fp32_to_fp16_neon;
#endif
    return nullptr;
}
}  // namespace

bool ggml_cpu_can_from_float(ggml_type t) {
    if (cpu_is_float_type(t)) {
        return true;
    }
    if (ggml_is_quantized(t)) {
        const ggml_cpu_type_traits * tr = ggml_cpu_get_type_traits(t);
        return tr && (tr->from_float_ref || (tr->from_float && tr->vec_dot_type == t));
    }
    return false;
}

bool ggml_cpu_can_to_float(ggml_type t) {
    if (cpu_is_float_type(t)) {
        return true;
    }
    if (ggml_is_quantized(t)) {
        const ggml_cpu_type_traits * tr = ggml_cpu_get_type_traits(t);
        return tr && tr->to_float;
    }
    return false;
}

bool ggml_cpu_from_float_row(ggml_type t, const float * x, void * y, int64_t n) {
    switch (t) {
        case GGML_TYPE_F32:
            std::memcpy(y, x, (size_t) n * 4);
            return true;
        case GGML_TYPE_F16:
            if (const fp32_to_fp16_fn f = ggml_cpu_use_scalar() ? nullptr : simd_fp32_to_fp16()) {
                f(x, (uint16_t *) y, n);  // vec-convert.avx2.cpp / vec-convert.neon.cpp
            } else {
                ggml_fp32_to_fp16_row(x, (ggml_fp16_t *) y, n);
            }
            return true;
        case GGML_TYPE_BF16:
            ggml_fp32_to_bf16_row(x, (ggml_bf16_t *) y, n);
            return true;
        default:
            break;
    }
    if (ggml_is_quantized(t)) {
        // from_float targets the type's vec_dot_type; it is this type's quantizer only when they agree
        const ggml_cpu_type_traits * tr = ggml_cpu_get_type_traits(t);
        if (tr && tr->from_float && tr->vec_dot_type == t) {
            tr->from_float(x, y, n);
            return true;
        }
        if (tr && tr->from_float_ref) {
            tr->from_float_ref(x, y, n);
            return true;
        }
    }
    return false;
}

bool ggml_cpu_to_float_row(ggml_type t, const void * x, float * y, int64_t n) {
    switch (t) {
        case GGML_TYPE_F32:
            std::memcpy(y, x, (size_t) n * 4);
            return true;
        case GGML_TYPE_F16: {
            const uint16_t * h = (const uint16_t *) x;
            for (int64_t i = 0; i < n; ++i) {
                y[i] = cpu_f16_to_f32(h[i]);
            }
            return true;
        }
        case GGML_TYPE_BF16: {
            const uint16_t * h = (const uint16_t *) x;
            for (int64_t i = 0; i < n; ++i) {
                y[i] = cpu_bf16_to_f32(h[i]);
            }
            return true;
        }
        default:
            break;
    }
    if (ggml_is_quantized(t)) {
        const ggml_cpu_type_traits * tr = ggml_cpu_get_type_traits(t);
        if (tr && tr->to_float) {
            tr->to_float(x, y, n);
            return true;
        }
    }
    return false;
}

// ---- scratch sizing ----------------------------------------------------------------------------

size_t ggml_cpu_work_size(const ggml_tensor * node, int nth) {
    const ggml_cpu_op_row & row = ggml_cpu_op_row_of(node->op);
    return row.work_size ? row.work_size(node, nth) : 0;
}

// ---- graph compute -------------------------------------------------------------------------------

namespace {

bool is_noop(const ggml_tensor * t) {
    return !ggml_cpu_op_row_of(t->op).run || cpu_nelements(t) == 0;
}

void compute_node(const ggml_cpu_params * p, ggml_tensor * t) {
    const ggml_cpu_op_row & row = ggml_cpu_op_row_of(t->op);
    if (!row.run) {
        ggml_cpu_fail(p, "ggml_cpu: op %s is not supported", ggml_op_name(t->op));
        return;
    }
    row.run(p, t);
}

bool overlaps(const ggml_tensor * x, const ggml_tensor * y) {
    const char * a = (const char *) x->data;
    const char * b = (const char *) y->data;
    return a < b + ggml_nbytes(y) && b < a + ggml_nbytes(x);
}

// A single-row product that needs no barrier of its own: the activation row is F32 and contiguous
// (read in place, or quantized by every thread into its own scratch slot) and the weights take the
// decode GEMV (ops-matmul.cpp, cpu-repack.cpp).
bool is_decode_mul_mat(const ggml_tensor * t) {
    const ggml_tensor * b = t->src[1];
    return t->op == GGML_OP_MUL_MAT && cpu_nrows(b) == 1 && b->type == GGML_TYPE_F32 && b->nb[0] == 4 &&
           ggml_is_contiguous(t);
}

// True when the barrier between nodes x and y (the next node that computes) can go: both are decode
// products of the same activation row (Q/K/V, FFN gate/up) with the same weight type, width and
// layout, so every thread uses the same private scratch slot in both; neither reads what the other
// writes (the graph allocator may reuse a buffer right after its last reader).
bool shares_input_without_barrier(const ggml_tensor * x, const ggml_tensor * y) {
    if (!is_decode_mul_mat(x) || !is_decode_mul_mat(y) || x->src[1] != y->src[1])
        return false;
    const ggml_tensor * wx = x->src[0];
    const ggml_tensor * wy = y->src[0];
    if (wx->type != wy->type || wx->ne[0] != wy->ne[0] || ggml_repack_is_packed(wx) != ggml_repack_is_packed(wy))
        return false;
    return !overlaps(y, x) && !overlaps(y, wx) && !overlaps(y, x->src[1]) && !overlaps(x, wy);
}

// Ops whose kernels use no scratch shared between threads (at most a private slot per thread) and
// no barrier of their own: a thread may start one while another still computes an earlier node.
bool is_light_op(const ggml_tensor * t) {
    return ggml_cpu_op_row_of(t->op).light;
}

// True when y reads nothing x writes and writes nothing x reads or writes (by address: views and
// buffers the allocator reuses after their last reader are covered alike).
bool independent(const ggml_tensor * x, const ggml_tensor * y) {
    if (overlaps(y, x))
        return false;
    for (const ggml_tensor * s : y->src)
        if (s && s->data && overlaps(s, x))
            return false;
    for (const ggml_tensor * s : x->src)
        if (s && s->data && overlaps(y, s))
            return false;
    return true;
}

// True when node y may follow node x of the same barrier-free run: two decode products of one
// activation row (above), or two light ops with no data hazard between them (K rope, the K and V
// cache writes and the Q rope of a decode step).
bool joinable(const ggml_tensor * x, const ggml_tensor * y) {
    if (shares_input_without_barrier(x, y))
        return true;
    return is_light_op(x) && is_light_op(y) && independent(x, y);
}

// How many nodes from i on the graph loop runs as one fused pass: 3 (ADD + RMS_NORM + MUL), 2
// (RMS_NORM + MUL) or 1.
int fused_count(ggml_tensor * const * nodes, int n_nodes, int i) {
    const ggml_tensor * t = nodes[i];
    if (t->op == GGML_OP_ADD && i + 2 < n_nodes && ggml_cpu_add_rms_norm_mul_fusable(t, nodes[i + 1], nodes[i + 2]))
        return 3;
    if (i + 1 < n_nodes && ggml_cpu_rms_norm_mul_fusable(t, nodes[i + 1]))
        return 2;
    return 1;
}

// Marks no_barrier[i] where node i and the next computing node may run without a barrier between
// them: barrier-free runs, each node checked against every node of the run so far.
void plan_barriers(ggml_tensor * const * nodes, int n_nodes, uint8_t * no_barrier) {
    for (int i = 0, prev = -1, first = -1; i < n_nodes; ++i) {
        const ggml_tensor * t = nodes[i];
        if (is_noop(t))
            continue;
        // a fused pass also writes the later nodes' results, which the checks below do not see
        bool join = prev >= 0 && fused_count(nodes, n_nodes, i) == 1;
        for (int r = first; join && r <= prev; ++r)
            join = is_noop(nodes[r]) || joinable(nodes[r], t);
        if (join) {
            no_barrier[prev] = 1;
        } else {
            first = i;
        }
        prev = i;
    }
}

struct graph_job {
    ggml_tensor * const * nodes;
    const uint8_t *       no_barrier;  // no_barrier[i]: node i and the next computing node share one barrier
    int                   n_nodes;
    ggml_abort_callback   abort_cb;
    void *                abort_data;
    ggml_cpu_threadpool * tp;
    void *                wdata;
    size_t                wsize;
    std::atomic<int>      failed{0};              // node + 1 of the first failure (see ggml_cpu_params)
    std::atomic<int>      aborted_at{INT32_MAX};  // node after which thread 0's abort callback said stop
    bool                  profile = false;        // GGML_CPU_PROFILE=1: time every node and barrier
};

// Every thread must leave the node loop after the same barrier, or the others wait forever at the
// next one. So a thread stops after node i only for an abort or a failure recorded *at* a node
// <= i: those were written before barrier i, which makes them visible to all after it. A value
// written later (a fast thread already failing node i + 1, or thread 0 aborting after it) is for a
// later barrier and must not stop a slow thread that is still deciding about node i.
void graph_job_fn(int ith, int nth, void * arg) {
    graph_job *     job = (graph_job *) arg;
    ggml_cpu_params p{ith, nth, job->wdata, job->wsize, job->tp, &job->failed, 0};
    // ~80 KB: on the heap, and only in threads that profile (not in every thread's TLS block)
    thread_local std::unique_ptr<ggml_cpu_profile_rec> prof_rec;
    if (job->profile && !prof_rec)
        prof_rec.reset(new (std::nothrow) ggml_cpu_profile_rec());
    ggml_cpu_profile_rec * prof     = job->profile ? prof_rec.get() : nullptr;  // NULL: not profiling
    int                    prof_key = 0;
    int64_t                prof_t   = 0;
    if (prof)
        ggml_cpu_profile_clear(prof);
    for (int i = 0; i < job->n_nodes; ++i) {
        ggml_tensor * t = job->nodes[i];
        if (is_noop(t)) {
            continue;
        }
        p.node = i;
        const int n_fus =
            t->op == GGML_OP_ADD || t->op == GGML_OP_RMS_NORM ? fused_count(job->nodes, job->n_nodes, i) : 1;
        const bool fused = n_fus > 1;
        if (prof) {
            prof_key = ggml_cpu_profile_key(t, fused);
            prof_t   = ggml_cpu_profile_now();
        }
        if (n_fus == 3) {
            ggml_cpu_op_add_rms_norm_mul(&p, t, job->nodes[i + 1], job->nodes[i + 2]);  // one barrier
            i += 2;
        } else if (n_fus == 2) {
            ggml_cpu_op_rms_norm_mul(&p, t, job->nodes[i + 1]);  // both nodes, one barrier
            ++i;
        } else {
            compute_node(&p, t);
        }
        if (prof) {
            const int64_t now = ggml_cpu_profile_now();
            prof->compute_ns[prof_key] += now - prof_t;
            prof->calls[prof_key]++;
            prof_t = now;
        }
        if (!fused && job->no_barrier[i])
            continue;  // failures and aborts are checked at the barrier after the next node
        // thread 0 polls the abort callback; the barrier publishes its answer to the others
        if (ith == 0 && job->abort_cb && i + 1 < job->n_nodes && job->abort_cb(job->abort_data)) {
            job->aborted_at.store(i, std::memory_order_relaxed);
        }
        job->tp->barrier(nth);
        if (prof) {
            prof->barrier_ns[prof_key] += ggml_cpu_profile_now() - prof_t;
            prof->n_barriers++;
        }
        const int failed = job->failed.load(std::memory_order_relaxed);
        if ((failed != 0 && failed - 1 <= i) || job->aborted_at.load(std::memory_order_relaxed) <= i) {
            break;
        }
    }
    if (prof)
        ggml_cpu_profile_commit(prof, ith, nth);
}

}  // namespace

extern "C" ggml_cpu_threadpool * ggml_cpu_threadpool_new(int n_threads) {
    if (n_threads < 1) {
        n_threads = 1;
    }
    try {
        auto * tp = new ggml_cpu_threadpool(n_threads);
        if (tp->size() < n_threads) {
            GGML_LOG_WARN("ggml_cpu: started only %d of %d threads\n", tp->size(), n_threads);
        }
        return tp;
    } catch (...) {
        GGML_LOG_ERROR("ggml_cpu: cannot create a thread pool of %d threads\n", n_threads);
        return nullptr;
    }
}

extern "C" void ggml_cpu_threadpool_free(ggml_cpu_threadpool * tp) {
    delete tp;
}

// Each extra thread costs a barrier per node; on a small graph (a small model's decode step, or a
// batch of a few tokens) that exceeds the work it takes over, and on a busy machine a descheduled
// thread stalls every node: measured on stories260K (~100 nodes) with 2 threads on a loaded 2-core
// VM, ~10 us per barrier, 1 ms per decode against 0.04-0.3 ms on one thread. Require ~64K
// multiply-adds per node and thread (a few microseconds of work) before adding a thread.
extern "C" int ggml_cpu_graph_threads(const ggml_cgraph * gf, int n_threads) {
    if (!gf || n_threads <= 1) {
        return 1;
    }
    double work  = 0;
    int    n_run = 0;
    for (int i = 0; i < ggml_graph_n_nodes(gf); ++i) {
        const ggml_tensor * t = ggml_graph_node(gf, i);
        if (!is_noop(t)) {
            work += node_work(t);
            ++n_run;
        }
    }
    const double per_thread = 65536.0 * (double) std::max(n_run, 1);
    return (int) std::max(1.0, std::min((double) n_threads, work / per_thread));
}

int ggml_cpu_graph_barriers(const ggml_cgraph * gf) {
    const int                  n = ggml_graph_n_nodes(gf);
    std::vector<ggml_tensor *> nodes((size_t) std::max(n, 0));
    std::vector<uint8_t>       no_barrier(nodes.size(), 0);
    for (int i = 0; i < n; ++i)
        nodes[(size_t) i] = ggml_graph_node(gf, i);
    plan_barriers(nodes.data(), n, no_barrier.data());
    int count = 0;
    for (int i = 0; i < n; ++i) {
        if (is_noop(nodes[(size_t) i]))
            continue;
        const int n_fus = fused_count(nodes.data(), n, i);
        i += n_fus - 1;
        count += n_fus > 1 || !no_barrier[(size_t) i];
    }
    return count;
}

extern "C" enum ggml_status ggml_cpu_graph_compute(ggml_cpu_threadpool * tp, ggml_cgraph * gf, int n_threads,
                                                   ggml_abort_callback abort_cb, void * abort_data) {
    if (!tp || !gf) {
        GGML_LOG_ERROR("ggml_cpu_graph_compute: NULL thread pool or graph\n");
        return GGML_STATUS_FAILED;
    }
    const int64_t t_entry = ggml_cpu_profile_on() ? ggml_cpu_profile_now() : 0;
    if (n_threads < 1) {
        n_threads = 1;
    }
    if (n_threads > tp->size()) {
        tp->reserve(n_threads);
        n_threads = std::min(n_threads, tp->size());
    }
    const int n_nodes = ggml_graph_n_nodes(gf);
    if (n_nodes <= 0) {
        return GGML_STATUS_SUCCESS;
    }
    thread_local std::vector<ggml_tensor *> nodes;  // reused: no allocation per graph in steady state
    thread_local std::vector<uint8_t>       no_barrier;
    nodes.resize((size_t) n_nodes);
    no_barrier.assign((size_t) n_nodes, 0);
    size_t wsize = 0;
    for (int i = 0; i < n_nodes; ++i) {
        ggml_tensor * t   = ggml_graph_node(gf, i);
        nodes[(size_t) i] = t;
        if (!is_noop(t) && !t->data) {
            GGML_LOG_ERROR("ggml_cpu_graph_compute: node %d (%s, %s) has no data\n", i, t->name, ggml_op_name(t->op));
            return GGML_STATUS_FAILED;
        }
    }
    if (auto_threads()) {
        n_threads = ggml_cpu_graph_threads(gf, n_threads);
    }
    plan_barriers(nodes.data(), n_nodes, no_barrier.data());
    if (t_entry != 0) {
        std::vector<uint8_t> barrier_after((size_t) n_nodes, 0);  // as graph_job_fn will wait
        for (int i = 0; i < n_nodes; ++i) {
            if (is_noop(nodes[(size_t) i]))
                continue;
            const int n_fus = fused_count(nodes.data(), n_nodes, i);
            i += n_fus - 1;
            barrier_after[(size_t) i] = n_fus > 1 || !no_barrier[(size_t) i];
        }
        ggml_cpu_profile_dump(nodes.data(), barrier_after.data(), n_nodes, is_noop);
    }
    for (int i = 0; i < n_nodes; ++i) {
        const ggml_tensor * t = nodes[(size_t) i];
        if (!is_noop(t)) {
            wsize = std::max(wsize, ggml_cpu_work_size(t, n_threads));
        }
    }
    void * wdata = nullptr;
    if (wsize > 0) {
        wdata = tp->work_data(wsize);
        if (!wdata) {
            GGML_LOG_ERROR("ggml_cpu_graph_compute: cannot allocate %zu bytes of scratch\n", wsize);
            return GGML_STATUS_ALLOC_FAILED;
        }
    }
    if (abort_cb && abort_cb(abort_data)) {
        return GGML_STATUS_ABORTED;
    }
    graph_job job;
    job.nodes      = nodes.data();
    job.no_barrier = no_barrier.data();
    job.n_nodes    = n_nodes;
    job.abort_cb   = abort_cb;
    job.abort_data = abort_data;
    job.tp         = tp;
    job.wdata      = wdata;
    job.wsize      = wsize;
    job.profile    = t_entry != 0;
    tp->run(graph_job_fn, &job, n_threads);
    if (job.profile)
        ggml_cpu_profile_graph(ggml_cpu_profile_now() - t_entry, n_threads);
    if (job.failed.load()) {
        return GGML_STATUS_FAILED;
    }
    if (job.aborted_at.load() != INT32_MAX) {
        return GGML_STATUS_ABORTED;
    }
    return GGML_STATUS_SUCCESS;
}
