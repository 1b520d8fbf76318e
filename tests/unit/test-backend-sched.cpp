// The scheduler: backend assignment, splits and copies (with a fake second backend), eval and abort
// callbacks, reserve/alloc/compute, pinning, and the CPU-only decode path.
#include "fake-backend.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml.h"
#include "test-compat.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

// The GPU block test below runs on lavapipe when that is the only Vulkan device; CPU-type Vulkan
// devices are hidden unless asked for before the registry is first touched.
static const bool g_allow_cpu_vk = (setenv("GGML_VK_ALLOW_CPU_DEVICES", "1", 0), true);

// Counts C++ heap allocations, to check that the scheduler's steady state allocates nothing.
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
static std::atomic<long> g_n_new{0};
static void *            counted_malloc(size_t n) {
               g_n_new++;
               return std::malloc(n ? n : 1);
}
void * operator new(size_t n) {
    if (void * p = counted_malloc(n)) {
        return p;
    }
    throw std::bad_alloc();
}
void * operator new[](size_t n) {
    if (void * p = counted_malloc(n)) {
        return p;
    }
    throw std::bad_alloc();
}
void * operator new(size_t n, const std::nothrow_t &) noexcept {
    return counted_malloc(n);
}
void * operator new[](size_t n, const std::nothrow_t &) noexcept {
    return counted_malloc(n);
}
void operator delete(void * p) noexcept {
    std::free(p);
}
void operator delete[](void * p) noexcept {
    std::free(p);
}
void operator delete(void * p, size_t) noexcept {
    std::free(p);
}
void operator delete[](void * p, size_t) noexcept {
    std::free(p);
}
void operator delete(void * p, const std::nothrow_t &) noexcept {
    std::free(p);
}
void operator delete[](void * p, const std::nothrow_t &) noexcept {
    std::free(p);
}

namespace {

struct ctx_guard {
    ggml_context * ctx;
    explicit ctx_guard(size_t n_tensors) {
        ggml_init_params p = {n_tensors * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
        ctx                = ggml_init(p);
    }
    ~ctx_guard() { ggml_free(ctx); }
};

struct quiet_log {
    int errors = 0;
    quiet_log() { ggml_log_set(cb, this); }
    ~quiet_log() { ggml_log_set(nullptr, nullptr); }
    static void cb(ggml_log_level level, const char *, void * ud) {
        if (level == GGML_LOG_LEVEL_ERROR) {
            ((quiet_log *) ud)->errors++;
        }
    }
};

// Places every tensor of ctx in one new buffer of buft with the given usage.
ggml_backend_buffer_t place_all(ggml_context * ctx, ggml_backend_buffer_type_t buft, ggml_backend_buffer_usage usage) {
    const size_t align = ggml_backend_buft_get_alignment(buft);
    size_t       total = 0;
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        total += (ggml_nbytes(t) + align - 1) / align * align;
    }
    ggml_backend_buffer_t buf  = ggml_backend_buft_alloc_buffer(buft, total);
    char *                base = (char *) ggml_backend_buffer_get_base(buf);
    size_t                offs = 0;
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        EXPECT_EQ(ggml_backend_tensor_alloc(buf, t, base + offs), GGML_STATUS_SUCCESS);
        offs += (ggml_nbytes(t) + align - 1) / align * align;
    }
    ggml_backend_buffer_set_usage(buf, usage);
    return buf;
}

std::vector<float> ramp(int n, float scale, float bias) {
    std::vector<float> v(n);
    for (int i = 0; i < n; i++) {
        v[i] = scale * (float) ((i * 7) % 13) + bias;
    }
    return v;
}

std::vector<float> get_f32(const ggml_tensor * t) {
    std::vector<float> v(ggml_nelements(t));
    ggml_backend_tensor_get(t, v.data(), 0, v.size() * sizeof(float));
    return v;
}

// Shared fixture: a CPU backend, the fake backend (registered once), weights w1, w2 [K, R] in a fake
// WEIGHTS buffer, and the graph  d = scale(add(sqr(mul(x, w1)), w2), 2)  with x an INPUT leaf.
// The fake backend runs MUL and ADD; SQR and SCALE fall back to the CPU: 4 splits, 4 copies.
class SchedTest : public ::testing::Test {
protected:
    static constexpr int K = 8, R = 4;

    void SetUp() override {
        static bool registered = [] {
            ggml_backend_register(fake::reg());
            return true;
        }();
        (void) registered;
        fake::stats() = {};
        cpu           = ggml_backend_cpu_init();
        fk            = ggml_backend_dev_init(fake::device(), nullptr);
        ASSERT_NE(cpu, nullptr);
        ASSERT_NE(fk, nullptr);

        w1 = ggml_new_tensor_2d(wctx.ctx, GGML_TYPE_F32, K, R);
        w2 = ggml_new_tensor_2d(wctx.ctx, GGML_TYPE_F32, K, R);
        ggml_set_name(w1, "w1");
        ggml_set_name(w2, "w2");
        wbuf = place_all(wctx.ctx, fake::buffer_type(), GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        ASSERT_NE(wbuf, nullptr);
        vw1 = ramp(K * R, 0.25f, -1.0f);
        vw2 = ramp(K * R, -0.5f, 2.0f);
        ggml_backend_tensor_set(w1, vw1.data(), 0, vw1.size() * 4);
        ggml_backend_tensor_set(w2, vw2.data(), 0, vw2.size() * 4);
    }

    void TearDown() override {
        ggml_backend_buffer_free(wbuf);
        ggml_backend_free(fk);
        ggml_backend_free(cpu);
    }

    ggml_backend_sched_t new_sched() {
        ggml_backend_t backends[2] = {fk, cpu};
        return ggml_backend_sched_new(backends, nullptr, 2, 256, false, false);
    }

    // Builds the fixture graph in gctx with n_rows rows of x (w broadcast over rows beyond R).
    ggml_cgraph * build(ggml_context * ctx, int n_rows) {
        x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, n_rows);
        ggml_set_name(x, "x");
        ggml_set_input(x);
        a = ggml_mul(ctx, x, w1);
        ggml_set_name(a, "a");
        b = ggml_sqr(ctx, a);
        ggml_set_name(b, "b");
        c = ggml_add(ctx, b, w2);
        ggml_set_name(c, "c");
        d = ggml_scale(ctx, c, 2.0f);
        ggml_set_name(d, "d");
        ggml_set_output(d);
        ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, d);
        return gf;
    }

    std::vector<float> expected(const std::vector<float> & vx, int n_rows) const {
        std::vector<float> out(K * n_rows);
        for (int r = 0; r < n_rows; r++) {
            for (int k = 0; k < K; k++) {
                const int   wi = (r % R) * K + k;
                const float av = vx[r * K + k] * vw1[wi];
                out[r * K + k] = 2.0f * (av * av + vw2[wi]);
            }
        }
        return out;
    }

    ggml_backend_t        cpu = nullptr, fk = nullptr;
    ctx_guard             wctx{4};
    ggml_backend_buffer_t wbuf = nullptr;
    ggml_tensor *         w1 = nullptr, *w2 = nullptr;
    std::vector<float>    vw1, vw2;
    ggml_tensor *         x = nullptr, *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
};

}  // namespace

TEST_F(SchedTest, FakeBackendIsRegistered) {
    EXPECT_EQ(ggml_backend_reg_by_name("fake"), fake::reg());
    EXPECT_EQ(ggml_backend_reg_get(0), ggml_backend_cpu_reg());  // the CPU stays first
    EXPECT_EQ(ggml_backend_dev_by_name("FAKE"), fake::device());
    EXPECT_EQ(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_ACCEL), fake::device());
    bool has_gpu = false;  // a real GPU registry (Vulkan, CUDA) may be compiled in
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        const auto t = ggml_backend_dev_type(ggml_backend_dev_get(i));
        has_gpu      = has_gpu || t == GGML_BACKEND_DEVICE_TYPE_GPU || t == GGML_BACKEND_DEVICE_TYPE_IGPU;
    }
    ggml_backend_t best = ggml_backend_init_best();  // an accelerator is not preferred over the CPU
    ASSERT_NE(best, nullptr);
    EXPECT_EQ(ggml_backend_is_cpu(best), !has_gpu);
    ggml_backend_free(best);
    const size_t n = ggml_backend_reg_count();
    ggml_backend_register(fake::reg());  // registering twice is a no-op
    EXPECT_EQ(ggml_backend_reg_count(), n);
}

TEST_F(SchedTest, RejectsBadArguments) {
    quiet_log      ql;
    ggml_backend_t wrong_order[2] = {cpu, fk};
    EXPECT_EQ(ggml_backend_sched_new(wrong_order, nullptr, 2, 256, false, false), nullptr);
    EXPECT_EQ(ggml_backend_sched_new(wrong_order, nullptr, 0, 256, false, false), nullptr);
    EXPECT_EQ(ggml_backend_sched_new(nullptr, nullptr, 1, 256, false, false), nullptr);
    EXPECT_GE(ql.errors, 3);
    ggml_backend_sched_free(nullptr);
}

TEST_F(SchedTest, WeightsPullOpsAndUnsupportedFallBackToCpu) {
    ggml_backend_sched_t sched = new_sched();
    ASSERT_NE(sched, nullptr);
    EXPECT_EQ(ggml_backend_sched_get_n_backends(sched), 2);
    EXPECT_EQ(ggml_backend_sched_get_backend(sched, 0), fk);
    EXPECT_EQ(ggml_backend_sched_get_backend(sched, 1), cpu);

    ctx_guard     g(32);
    ggml_cgraph * gf = build(g.ctx, R);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, a), fk);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, b), cpu);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, c), fk);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, d), cpu);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, x), cpu);
    EXPECT_EQ(ggml_backend_sched_get_n_splits(sched), 4);
    EXPECT_EQ(ggml_backend_sched_get_n_copies(sched), 1);
    // intermediate results live in the backend that computes them
    EXPECT_EQ(ggml_backend_buffer_get_type(a->buffer), fake::buffer_type());
    EXPECT_EQ(ggml_backend_buffer_get_type(b->buffer), ggml_backend_cpu_buffer_type());
    EXPECT_GT(ggml_backend_sched_get_buffer_size(sched, fk), 0u);
    EXPECT_GT(ggml_backend_sched_get_buffer_size(sched, cpu), 0u);
    // the user's graph is not rewired to the copies
    EXPECT_EQ(a->src[0], x);
    EXPECT_EQ(b->src[0], a);

    const std::vector<float> vx = ramp(K * R, 0.5f, -3.0f);
    ggml_backend_tensor_set(x, vx.data(), 0, vx.size() * 4);
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
    const std::vector<float> want = expected(vx, R);
    const std::vector<float> got  = get_f32(d);
    for (size_t i = 0; i < want.size(); i++) {
        EXPECT_FLOAT_EQ(got[i], want[i]) << i;
    }
    EXPECT_EQ(fake::stats().mul_nodes, 1);
    EXPECT_EQ(fake::stats().add_nodes, 1);
    EXPECT_EQ(fake::stats().other_nodes, 0);
    EXPECT_EQ(fake::stats().graph_computes, 2);
    EXPECT_EQ(a->src[0], x);

    ggml_backend_sched_free(sched);
}

TEST_F(SchedTest, MatchesAllCpuRun) {
    // the same graph with the weights in CPU memory on a CPU-only scheduler
    ctx_guard             wc(4);
    ggml_tensor *         cw1  = ggml_new_tensor_2d(wc.ctx, GGML_TYPE_F32, K, R);
    ggml_tensor *         cw2  = ggml_new_tensor_2d(wc.ctx, GGML_TYPE_F32, K, R);
    ggml_backend_buffer_t cbuf = place_all(wc.ctx, ggml_backend_cpu_buffer_type(), GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    ggml_backend_tensor_set(cw1, vw1.data(), 0, vw1.size() * 4);
    ggml_backend_tensor_set(cw2, vw2.data(), 0, vw2.size() * 4);

    const int                n_rows = 12;  // broadcasts the weights over rows
    const std::vector<float> vx     = ramp(K * n_rows, -0.75f, 1.0f);

    std::vector<float> mixed, cpu_only;
    {
        ggml_backend_sched_t sched = new_sched();
        ctx_guard            g(32);
        ggml_cgraph *        gf = build(g.ctx, n_rows);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
        ggml_backend_tensor_set(x, vx.data(), 0, vx.size() * 4);
        ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
        mixed = get_f32(d);
        ggml_backend_sched_free(sched);
    }
    {
        ggml_backend_sched_t sched = ggml_backend_sched_new(&cpu, nullptr, 1, 256, false, false);
        ASSERT_NE(sched, nullptr);
        std::swap(w1, cw1);
        std::swap(w2, cw2);
        ctx_guard     g(32);
        ggml_cgraph * gf = build(g.ctx, n_rows);
        std::swap(w1, cw1);
        std::swap(w2, cw2);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
        EXPECT_EQ(ggml_backend_sched_get_n_splits(sched), 1);
        ggml_backend_tensor_set(x, vx.data(), 0, vx.size() * 4);
        ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
        cpu_only = get_f32(d);
        ggml_backend_sched_free(sched);
    }
    EXPECT_EQ(mixed, cpu_only);
    const std::vector<float> want = expected(vx, n_rows);
    for (size_t i = 0; i < want.size(); i++) {
        EXPECT_FLOAT_EQ(mixed[i], want[i]) << i;
    }
    ggml_backend_buffer_free(cbuf);
}

TEST_F(SchedTest, EvalCallbackObservesEveryNodeAndCanStop) {
    ggml_backend_sched_t     sched = new_sched();
    ctx_guard                g(32);
    ggml_cgraph *            gf = build(g.ctx, R);
    const std::vector<float> vx = ramp(K * R, 0.5f, -3.0f);

    struct obs {
        std::vector<std::string> asked, seen;
        std::string              stop_at;
        std::vector<float>       a_vals;
    } o;
    auto cb = [](ggml_tensor * t, bool ask, void * ud) {
        auto * s = (obs *) ud;
        if (ask) {
            s->asked.push_back(t->name);
            return true;
        }
        s->seen.push_back(t->name);
        if (std::string(t->name) == "a") {
            s->a_vals = get_f32(t);  // readable right after it was computed, on the fake backend
        }
        return s->stop_at != t->name;
    };
    ggml_backend_sched_set_eval_callback(sched, cb, &o);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
    ggml_backend_tensor_set(x, vx.data(), 0, vx.size() * 4);
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
    const std::vector<std::string> all = {"a", "b", "c", "d"};
    EXPECT_EQ(o.asked, all);
    EXPECT_EQ(o.seen, all);
    ASSERT_EQ(o.a_vals.size(), (size_t) K * R);
    for (int i = 0; i < K * R; i++) {
        EXPECT_FLOAT_EQ(o.a_vals[i], vx[i] * vw1[i]);
    }

    // stop after b: c (on the fake backend) is never computed
    fake::stats() = {};
    o             = {};
    o.stop_at     = "b";
    ggml_backend_sched_reset(sched);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
    EXPECT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_ABORTED);
    EXPECT_EQ(o.seen, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(fake::stats().add_nodes, 0);
    EXPECT_EQ(fake::stats().mul_nodes, 1);

    // a callback that asks for nothing still lets the whole graph run
    auto none = [](ggml_tensor *, bool ask, void *) { return !ask; };
    ggml_backend_sched_set_eval_callback(sched, none, nullptr);
    ggml_backend_sched_reset(sched);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
    ggml_backend_tensor_set(x, vx.data(), 0, vx.size() * 4);
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
    const std::vector<float> want = expected(vx, R);
    const std::vector<float> got  = get_f32(d);
    for (size_t i = 0; i < want.size(); i++) {
        EXPECT_FLOAT_EQ(got[i], want[i]) << i;
    }
    ggml_backend_sched_free(sched);
}

TEST_F(SchedTest, AbortCallbackAborts) {
    ggml_backend_sched_t sched = new_sched();
    ctx_guard            g(32);
    ggml_cgraph *        gf    = build(g.ctx, R);
    int                  calls = 0;
    ggml_backend_sched_set_abort_callback(
        sched, [](void * ud) { return ++*(int *) ud >= 2; }, &calls);  // let the first split run
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
    const std::vector<float> vx = ramp(K * R, 0.5f, -3.0f);
    ggml_backend_tensor_set(x, vx.data(), 0, vx.size() * 4);
    EXPECT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_ABORTED);
    EXPECT_EQ(fake::stats().mul_nodes, 1);
    EXPECT_EQ(fake::stats().add_nodes, 0);

    // CPU-only: the callback reaches the CPU backend too
    ggml_backend_sched_t cs = ggml_backend_sched_new(&cpu, nullptr, 1, 256, false, false);
    ctx_guard            g2(16);
    ggml_tensor *        p = ggml_new_tensor_1d(g2.ctx, GGML_TYPE_F32, 16);
    ggml_set_input(p);
    ggml_tensor * q   = ggml_sqr(g2.ctx, p);
    ggml_cgraph * gf2 = ggml_new_graph(g2.ctx);
    ggml_build_forward_expand(gf2, q);
    ggml_backend_sched_set_abort_callback(
        cs, [](void *) { return true; }, nullptr);
    EXPECT_EQ(ggml_backend_sched_graph_compute(cs, gf2), GGML_STATUS_ABORTED);
    ggml_backend_sched_set_abort_callback(cs, nullptr, nullptr);
    ggml_backend_sched_reset(cs);
    EXPECT_EQ(ggml_backend_sched_graph_compute(cs, gf2), GGML_STATUS_SUCCESS);

    ggml_backend_sched_free(cs);
    ggml_backend_sched_free(sched);
}

// The scheduler hands its abort callback to the CPU backend (through the backend registry): with one
// split, the scheduler's own check passes and the CPU backend's check at the start of the graph stops it.
TEST_F(SchedTest, AbortCallbackReachesTheCpuBackend) {
    ggml_backend_sched_t cs = ggml_backend_sched_new(&cpu, nullptr, 1, 256, false, false);
    ctx_guard            g(16);
    ggml_tensor *        p = ggml_new_tensor_1d(g.ctx, GGML_TYPE_F32, 16);
    ggml_set_input(p);
    ggml_cgraph * gf = ggml_new_graph(g.ctx);
    ggml_build_forward_expand(gf, ggml_sqr(g.ctx, ggml_sqr(g.ctx, p)));
    int calls = 0;
    ggml_backend_sched_set_abort_callback(
        cs, [](void * ud) { return ++*(int *) ud >= 2; }, &calls);  // the scheduler's check is the first
    EXPECT_EQ(ggml_backend_sched_graph_compute(cs, gf), GGML_STATUS_ABORTED);
    EXPECT_EQ(calls, 2);
    ggml_backend_sched_set_abort_callback(cs, nullptr, nullptr);
    ggml_backend_sched_reset(cs);
    EXPECT_EQ(ggml_backend_sched_graph_compute(cs, gf), GGML_STATUS_SUCCESS);
    ggml_backend_sched_free(cs);
}

TEST_F(SchedTest, ReserveThenSmallerGraphsDoNotGrowBuffers) {
    ggml_backend_sched_t sched = new_sched();
    {
        ctx_guard g(32);
        ASSERT_TRUE(ggml_backend_sched_reserve(sched, build(g.ctx, 64)));
    }
    const size_t fk_size  = ggml_backend_sched_get_buffer_size(sched, fk);
    const size_t cpu_size = ggml_backend_sched_get_buffer_size(sched, cpu);
    EXPECT_GE(fk_size, (size_t) K * 64 * sizeof(float));
    EXPECT_GE(cpu_size, (size_t) K * 64 * sizeof(float));

    for (int n_rows : {4, 64, 12, 8, 36}) {
        ggml_backend_sched_reset(sched);
        ctx_guard     g(32);
        ggml_cgraph * gf = build(g.ctx, n_rows);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf)) << n_rows;
        const std::vector<float> vx = ramp(K * n_rows, 0.125f, -0.5f);
        ggml_backend_tensor_set(x, vx.data(), 0, vx.size() * 4);
        ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
        const std::vector<float> want = expected(vx, n_rows);
        const std::vector<float> got  = get_f32(d);
        for (size_t i = 0; i < want.size(); i++) {
            ASSERT_FLOAT_EQ(got[i], want[i]) << n_rows << " " << i;
        }
        EXPECT_EQ(ggml_backend_sched_get_buffer_size(sched, fk), fk_size) << n_rows;
        EXPECT_EQ(ggml_backend_sched_get_buffer_size(sched, cpu), cpu_size) << n_rows;
    }
    ggml_backend_sched_free(sched);
}

TEST_F(SchedTest, PinningOverridesTheChoice) {
    ggml_backend_sched_t sched = new_sched();
    ctx_guard            g(32);
    // no weights: everything would run on the CPU
    ggml_tensor * p = ggml_new_tensor_1d(g.ctx, GGML_TYPE_F32, 16);
    ggml_tensor * q = ggml_new_tensor_1d(g.ctx, GGML_TYPE_F32, 16);
    ggml_set_input(p);
    ggml_set_input(q);
    ggml_tensor * s  = ggml_add(g.ctx, p, q);
    ggml_tensor * t  = ggml_sqr(g.ctx, s);
    ggml_cgraph * gf = ggml_new_graph(g.ctx);
    ggml_build_forward_expand(gf, t);

    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, s), cpu);
    EXPECT_EQ(ggml_backend_sched_get_n_splits(sched), 1);

    ggml_backend_sched_reset(sched);
    ggml_backend_sched_set_tensor_backend(sched, s, fk);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, s), fk);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, s), fk);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, t), cpu);
    EXPECT_EQ(ggml_backend_sched_get_n_splits(sched), 2);
    // re-allocating the same graph re-plans it: s now lives in the fake backend's compute buffer
    EXPECT_EQ(ggml_backend_buffer_get_type(s->buffer), fake::buffer_type());
    EXPECT_EQ(ggml_backend_buffer_get_type(t->buffer), ggml_backend_cpu_buffer_type());
    const std::vector<float> vp = ramp(16, 1.0f, -6.0f), vq = ramp(16, -0.5f, 1.0f);
    ggml_backend_tensor_set(p, vp.data(), 0, 64);
    ggml_backend_tensor_set(q, vq.data(), 0, 64);
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
    EXPECT_EQ(fake::stats().add_nodes, 1);
    const std::vector<float> got = get_f32(t);
    for (int i = 0; i < 16; i++) {
        EXPECT_FLOAT_EQ(got[i], (vp[i] + vq[i]) * (vp[i] + vq[i]));
    }

    // reset forgets the pin
    ggml_backend_sched_reset(sched);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, s), nullptr);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, s), cpu);
    EXPECT_EQ(ggml_backend_buffer_get_type(s->buffer), ggml_backend_cpu_buffer_type());
    ggml_backend_sched_free(sched);
}

TEST_F(SchedTest, CpuOnlyDecodeLoopIsStableAndCheap) {
    // a decode-sized chain (~500 nodes) rebuilt and run many times, as llama_decode does per token
    ggml_backend_sched_t sched = ggml_backend_sched_new(&cpu, nullptr, 1, 2048, false, false);
    ASSERT_NE(sched, nullptr);
    const int n_layers    = 100;
    auto      build_chain = [&](ggml_context * ctx, ggml_tensor ** in, ggml_tensor ** out) {
        *in = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
        ggml_set_input(*in);
        ggml_tensor * cur = *in;
        for (int l = 0; l < n_layers; l++) {
            ggml_tensor * t = ggml_scale(ctx, cur, 0.5f);
            t               = ggml_add(ctx, t, cur);
            t               = ggml_mul(ctx, t, cur);
            t               = ggml_clamp(ctx, t, -4.0f, 4.0f);
            cur             = ggml_scale_bias(ctx, t, 0.25f, 0.01f);
        }
        *out = cur;
        ggml_set_output(cur);
        ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, cur);
        return gf;
    };
    std::vector<float> first;
    size_t             buf_size = 0;
    double             total_us = 0, alloc_us = 0;
    const int          iters = 50;
    std::vector<char>  mem(ggml_tensor_overhead() * 1024 + ggml_graph_overhead());
    for (int it = 0; it < iters; it++) {
        // same memory every time, like a context reusing its graph buffer
        ggml_init_params ip  = {mem.size(), mem.data(), true};
        ggml_context *   ctx = ggml_init(ip);
        ggml_tensor *    in = nullptr, *out = nullptr;
        ggml_cgraph *    gf = build_chain(ctx, &in, &out);
        EXPECT_EQ(ggml_graph_n_nodes(gf), 5 * n_layers);
        const auto t0 = std::chrono::steady_clock::now();
        const long n0 = g_n_new;
        ggml_backend_sched_reset(sched);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
        const long         n_new_alloc = g_n_new - n0;
        const auto         t1          = std::chrono::steady_clock::now();
        std::vector<float> v(64, 0.1f * (float) (it % 3));
        ggml_backend_tensor_set(in, v.data(), 0, 64 * 4);
        ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
        const auto t2 = std::chrono::steady_clock::now();
        if (it >= 5) {
            alloc_us += std::chrono::duration<double, std::micro>(t1 - t0).count();
            total_us += std::chrono::duration<double, std::micro>(t2 - t0).count();
        }
        if (it == 0) {
            first    = get_f32(out);
            buf_size = ggml_backend_sched_get_buffer_size(sched, cpu);
        } else if (it % 3 == 0) {
            EXPECT_EQ(get_f32(out), first);
        }
        EXPECT_EQ(ggml_backend_sched_get_buffer_size(sched, cpu), buf_size);
        EXPECT_EQ(ggml_backend_sched_get_n_splits(sched), 1);
        ggml_free(ctx);
        if (it >= 5) {
            // steady state: planning and splitting reuse their storage
            EXPECT_EQ(n_new_alloc, 0) << it;
        }
    }
    std::printf("[ info ] CPU-only %d-node graph: reset+alloc %.1f us, reset+alloc+compute %.1f us per call\n",
                5 * n_layers, alloc_us / (iters - 5), total_us / (iters - 5));
    ggml_backend_sched_free(sched);
}

TEST_F(SchedTest, ViewsFollowTheirDataAndAreCopiedWithTheirLayout) {
    ggml_backend_sched_t sched = new_sched();
    ctx_guard            g(32);
    x = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, K, R);
    ggml_set_input(x);
    a                = ggml_mul(g.ctx, x, w1);             // fake (weights)
    ggml_tensor * r  = ggml_reshape_1d(g.ctx, a, K * R);   // view of a: lives on fake
    ggml_tensor * sq = ggml_sqr(g.ctx, r);                 // CPU: r is copied
    ggml_tensor * wv = ggml_view_1d(g.ctx, w2, K * R, 0);  // view of a weight
    ggml_tensor * u  = ggml_add(g.ctx, sq, wv);            // fake (weight view), sq copied
    ggml_tensor * tr = ggml_transpose(g.ctx, a);           // non-contiguous view on fake
    ggml_tensor * ct = ggml_cont(g.ctx, tr);               // CPU: tr copied with its strides
    ggml_set_output(u);
    ggml_set_output(ct);
    ggml_cgraph * gf = ggml_new_graph(g.ctx);
    ggml_build_forward_expand(gf, u);
    ggml_build_forward_expand(gf, ct);

    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, r), fk);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, sq), cpu);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, u), fk);
    EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, ct), cpu);
    const std::vector<float> vx = ramp(K * R, 0.5f, -3.0f);
    ggml_backend_tensor_set(x, vx.data(), 0, vx.size() * 4);
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
    const std::vector<float> vu = get_f32(u), vct = get_f32(ct);
    for (int i = 0; i < K * R; i++) {
        const float av = vx[i] * vw1[i];
        EXPECT_FLOAT_EQ(vu[i], av * av + vw2[i]) << i;
    }
    for (int k = 0; k < K; k++) {
        for (int rr = 0; rr < R; rr++) {
            EXPECT_FLOAT_EQ(vct[k * R + rr], vx[rr * K + k] * vw1[rr * K + k]);
        }
    }
    ggml_backend_sched_free(sched);
}

TEST_F(SchedTest, CompareGraphBackendCpuVsFake) {
    ctx_guard     g(16);
    ggml_tensor * p  = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, 5, 3);
    ggml_tensor * q  = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, 5, 1);
    ggml_tensor * s  = ggml_add(g.ctx, p, q);
    ggml_tensor * t  = ggml_mul(g.ctx, s, p);
    ggml_cgraph * gf = ggml_new_graph(g.ctx);
    ggml_build_forward_expand(gf, t);
    ggml_backend_buffer_t    buf = place_all(g.ctx, ggml_backend_cpu_buffer_type(), GGML_BACKEND_BUFFER_USAGE_ANY);
    const std::vector<float> vp = ramp(15, 0.3f, -1.0f), vq = ramp(5, -2.0f, 0.5f);
    ggml_backend_tensor_set(p, vp.data(), 0, 60);
    ggml_backend_tensor_set(q, vq.data(), 0, 20);

    struct state {
        int  n     = 0;
        bool equal = true;
    } st;
    auto cb = [](int, ggml_tensor * t1, ggml_tensor * t2, void * ud) {
        auto * s = (state *) ud;
        s->n++;
        s->equal =
            s->equal && get_f32(t1) == get_f32(t2) && ggml_backend_buffer_get_type(t2->buffer) == fake::buffer_type();
        return true;
    };
    ASSERT_TRUE(ggml_backend_compare_graph_backend(cpu, fk, gf, cb, &st));
    EXPECT_EQ(st.n, 2);
    EXPECT_TRUE(st.equal);
    EXPECT_EQ(fake::stats().add_nodes, 1);
    EXPECT_EQ(fake::stats().mul_nodes, 1);
    ggml_backend_buffer_free(buf);
}

TEST_F(SchedTest, OpOffloadMovesOpsOnHostWeights) {
    ctx_guard             wc(4);
    ggml_tensor *         cw1  = ggml_new_tensor_2d(wc.ctx, GGML_TYPE_F32, K, R);
    ggml_backend_buffer_t cbuf = place_all(wc.ctx, ggml_backend_cpu_buffer_type(), GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    ggml_backend_tensor_set(cw1, vw1.data(), 0, vw1.size() * 4);
    fake::stats().offload_mul = true;

    for (bool offload : {false, true}) {
        ggml_backend_t       backends[2] = {fk, cpu};
        ggml_backend_sched_t sched       = ggml_backend_sched_new(backends, nullptr, 2, 64, false, offload);
        ctx_guard            g(16);
        ggml_tensor *        in = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, K, R);
        ggml_set_input(in);
        ggml_tensor * m  = ggml_mul(g.ctx, in, cw1);
        ggml_tensor * sq = ggml_sqr(g.ctx, m);
        ggml_cgraph * gf = ggml_new_graph(g.ctx);
        ggml_build_forward_expand(gf, sq);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
        EXPECT_EQ(ggml_backend_sched_get_tensor_backend(sched, m), offload ? fk : cpu) << offload;
        EXPECT_EQ(ggml_backend_sched_get_n_splits(sched), offload ? 2 : 1);
        const std::vector<float> vx = ramp(K * R, 0.5f, -3.0f);
        ggml_backend_tensor_set(in, vx.data(), 0, vx.size() * 4);
        ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
        const std::vector<float> got = get_f32(sq);
        for (int i = 0; i < K * R; i++) {
            const float v = vx[i] * vw1[i];
            EXPECT_FLOAT_EQ(got[i], v * v);
        }
        ggml_backend_sched_free(sched);
    }
    EXPECT_EQ(fake::stats().mul_nodes, 1);
    ggml_backend_buffer_free(cbuf);
}

// With a real GPU registry compiled in (Vulkan, CUDA), a small transformer-like block with its weights
// on the GPU must give the CPU's results; ops the GPU lacks fall back to the CPU through copies.
TEST(SchedGpu, WeightsOnGpuMatchCpu) {
    ggml_backend_dev_t gpu_dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU);
    if (!gpu_dev) {
        gpu_dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_IGPU);
    }
    if (!gpu_dev) {
        GTEST_SKIP() << "no GPU backend compiled in or no device";
    }
    ggml_backend_t gpu = ggml_backend_dev_init(gpu_dev, nullptr);
    ggml_backend_t cpu = ggml_backend_cpu_init();
    ASSERT_NE(gpu, nullptr);
    ASSERT_NE(cpu, nullptr);
    const int n_embd = 64, n_ff = 96, n_tok = 5;

    auto run = [&](ggml_backend_t wbackend, std::vector<ggml_backend_t> backends, int * n_splits) {
        ctx_guard             wc(8);
        ggml_tensor *         wn  = ggml_new_tensor_1d(wc.ctx, GGML_TYPE_F32, n_embd);
        ggml_tensor *         wup = ggml_new_tensor_2d(wc.ctx, GGML_TYPE_F32, n_embd, n_ff);
        ggml_tensor *         wg  = ggml_new_tensor_2d(wc.ctx, GGML_TYPE_F32, n_embd, n_ff);
        ggml_tensor *         wdn = ggml_new_tensor_2d(wc.ctx, GGML_TYPE_F16, n_ff, n_embd);
        ggml_backend_buffer_t wbuf =
            place_all(wc.ctx, ggml_backend_get_default_buffer_type(wbackend), GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        for (ggml_tensor * w : {wn, wup, wg}) {
            const std::vector<float> v = ramp((int) ggml_nelements(w), 0.02f, -0.1f);
            ggml_backend_tensor_set(w, v.data(), 0, ggml_nbytes(w));
        }
        std::vector<ggml_fp16_t> vh(ggml_nelements(wdn));
        const std::vector<float> vd = ramp((int) vh.size(), -0.015f, 0.09f);
        ggml_fp32_to_fp16_row(vd.data(), vh.data(), (int64_t) vh.size());
        ggml_backend_tensor_set(wdn, vh.data(), 0, ggml_nbytes(wdn));

        ggml_backend_sched_t sched =
            ggml_backend_sched_new(backends.data(), nullptr, (int) backends.size(), 256, false, false);
        EXPECT_NE(sched, nullptr);
        ctx_guard     g(64);
        ggml_tensor * inp = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, n_embd, n_tok);
        ggml_set_input(inp);
        ggml_tensor * cur = ggml_mul(g.ctx, ggml_rms_norm(g.ctx, inp, 1e-5f), wn);
        ggml_tensor * up  = ggml_mul_mat(g.ctx, wup, cur);
        ggml_tensor * gt  = ggml_mul_mat(g.ctx, wg, cur);
        ggml_tensor * ff  = ggml_mul(g.ctx, ggml_silu(g.ctx, gt), up);
        ggml_tensor * dn  = ggml_mul_mat(g.ctx, wdn, ff);
        ggml_tensor * out = ggml_soft_max(g.ctx, ggml_add(g.ctx, dn, inp));
        ggml_set_output(out);
        ggml_cgraph * gf = ggml_new_graph(g.ctx);
        ggml_build_forward_expand(gf, out);
        std::vector<float> res;
        if (sched && ggml_backend_sched_alloc_graph(sched, gf)) {
            const std::vector<float> vi = ramp(n_embd * n_tok, 0.3f, -1.5f);
            ggml_backend_tensor_set(inp, vi.data(), 0, vi.size() * 4);
            EXPECT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
            *n_splits = ggml_backend_sched_get_n_splits(sched);
            res       = get_f32(out);
        }
        ggml_backend_sched_free(sched);
        ggml_backend_buffer_free(wbuf);
        return res;
    };
    int                      splits_cpu = 0, splits_gpu = 0;
    const std::vector<float> ref = run(cpu, {cpu}, &splits_cpu);
    const std::vector<float> got = run(gpu, {gpu, cpu}, &splits_gpu);
    ASSERT_EQ(ref.size(), (size_t) n_embd * n_tok);
    ASSERT_EQ(got.size(), ref.size());
    double err = 0, norm = 0;
    for (size_t i = 0; i < ref.size(); i++) {
        err += (got[i] - ref[i]) * (double) (got[i] - ref[i]);
        norm += ref[i] * (double) ref[i];
    }
    EXPECT_LT(err / norm, 1e-5) << ggml_backend_name(gpu) << ", " << splits_gpu << " splits";
    std::printf("[ info ] %s + CPU: %d splits, nmse %.3g\n", ggml_backend_name(gpu), splits_gpu, err / norm);
    ggml_backend_free(gpu);
    ggml_backend_free(cpu);
}

TEST_F(SchedTest, ImpossiblePlacementFailsCleanly) {
    // a CPY that writes into a fake-buffer tensor: the fake backend cannot run CPY and the CPU cannot
    // write fake memory, so allocation must fail with a logged error (no crash, no wrong result)
    ggml_backend_sched_t sched = new_sched();
    ctx_guard            g(16);
    ggml_tensor *        in = ggml_new_tensor_2d(g.ctx, GGML_TYPE_F32, K, R);
    ggml_set_input(in);
    ggml_tensor * cp = ggml_cpy(g.ctx, in, w1);
    ggml_cgraph * gf = ggml_new_graph(g.ctx);
    ggml_build_forward_expand(gf, cp);
    {
        quiet_log ql;
        EXPECT_FALSE(ggml_backend_sched_alloc_graph(sched, gf));
        EXPECT_GE(ql.errors, 1);
        EXPECT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_ALLOC_FAILED);
    }
    // the scheduler stays usable
    ggml_backend_sched_reset(sched);
    ctx_guard     g2(32);
    ggml_cgraph * gf2 = build(g2.ctx, R);
    ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf2));
    const std::vector<float> vx = ramp(K * R, 0.5f, -3.0f);
    ggml_backend_tensor_set(x, vx.data(), 0, vx.size() * 4);
    ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf2), GGML_STATUS_SUCCESS);
    const std::vector<float> want = expected(vx, R), got = get_f32(d);
    for (size_t i = 0; i < want.size(); i++) {
        EXPECT_FLOAT_EQ(got[i], want[i]) << i;
    }
    ggml_backend_sched_free(sched);
}

TEST_F(SchedTest, MultiBackendSteadyStateAllocatesNothing) {
    ggml_backend_sched_t     sched = new_sched();
    ctx_guard                g(32);
    ggml_cgraph *            gf = build(g.ctx, R);
    const std::vector<float> vx = ramp(K * R, 0.5f, -3.0f);
    for (int it = 0; it < 6; it++) {
        const long n0 = g_n_new;
        ggml_backend_sched_reset(sched);
        ASSERT_TRUE(ggml_backend_sched_alloc_graph(sched, gf));
        const long n_alloc = g_n_new - n0;
        ggml_backend_tensor_set(x, vx.data(), 0, vx.size() * 4);
        ASSERT_EQ(ggml_backend_sched_graph_compute(sched, gf), GGML_STATUS_SUCCESS);
        EXPECT_EQ(ggml_backend_sched_get_n_splits(sched), 4);
        if (it >= 2) {
            EXPECT_EQ(n_alloc, 0) << it;
        }
    }
    const std::vector<float> want = expected(vx, R), got = get_f32(d);
    for (size_t i = 0; i < want.size(); i++) {
        EXPECT_FLOAT_EQ(got[i], want[i]) << i;
    }
    ggml_backend_sched_free(sched);
}
