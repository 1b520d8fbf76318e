// The recurrent-layer constructors (ggml_ssm_conv, ggml_ssm_scan, ggml_gated_delta_net): the result
// shapes and op params upstream's graphs rely on, and misuse (wrong shapes, types, layouts, K) returning
// NULL with one "[op] ..." error, never a crash. A hand-broken node is refused by the CPU's supports_op.
// The AVX2 build of the kernels' row loops against the baseline one (their oracle).
// Their numerics are checked in tests/backend/test-backend-ops-ssm.inc.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "ggml-cpu/cpu-features.h"
#include "ggml-cpu/ops-ssm-rows.h"
#include "ggml-impl.h"
#include "ggml-op-table.h"
#include "ggml.h"

namespace {

struct log_capture {
    std::vector<std::string> errors;
};

void capture_cb(enum ggml_log_level level, const char * text, void * ud) {
    if (level == GGML_LOG_LEVEL_ERROR)
        static_cast<log_capture *>(ud)->errors.emplace_back(text);
}

class GgmlOpsSsm : public ::testing::Test {
protected:
    void SetUp() override {
        ggml_log_set(capture_cb, &log);
        ggml_init_params p{ggml_tensor_overhead() * 256 + ggml_graph_overhead(), nullptr, true};
        ctx = ggml_init(p);
        ASSERT_NE(ctx, nullptr);
    }
    void TearDown() override {
        ggml_free(ctx);
        ggml_log_set(nullptr, nullptr);
    }
    ggml_tensor * t(int64_t a, int64_t b = 1, int64_t c = 1, int64_t d = 1, ggml_type type = GGML_TYPE_F32) {
        return ggml_new_tensor_4d(ctx, type, a, b, c, d);
    }
    // r is NULL and exactly one error naming op was logged since the last call
    void expect_refused(ggml_tensor * r, const char * op) {
        EXPECT_EQ(r, nullptr);
        ASSERT_EQ(log.errors.size(), 1u) << op;
        EXPECT_NE(log.errors[0].find(std::string("[") + op + "]"), std::string::npos) << log.errors[0];
        log.errors.clear();
    }
    ggml_context * ctx = nullptr;
    log_capture    log;
};

bool cpu_supports(const ggml_tensor * t) {
    ggml_backend_dev_t cpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    return cpu && ggml_backend_dev_supports_op(cpu, t);
}

}  // namespace

TEST_F(GgmlOpsSsm, SsmConvShapes) {
    // d_conv 4, d_inner 6, n_t 5, n_s 3
    ggml_tensor * r = ggml_ssm_conv(ctx, t(3 + 5, 6, 3), t(4, 6));
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->op, GGML_OP_SSM_CONV);
    EXPECT_EQ(r->type, GGML_TYPE_F32);
    EXPECT_EQ(r->ne[0], 6);
    EXPECT_EQ(r->ne[1], 5);
    EXPECT_EQ(r->ne[2], 3);
    EXPECT_EQ(r->ne[3], 1);
    EXPECT_TRUE(ggml_op_node_valid(r));
    EXPECT_TRUE(cpu_supports(r));
    EXPECT_TRUE(log.errors.empty());

    expect_refused(ggml_ssm_conv(ctx, t(8, 6, 3), t(4, 7)), "ssm_conv");                    // d_inner differs
    expect_refused(ggml_ssm_conv(ctx, t(2, 6, 3), t(4, 6)), "ssm_conv");                    // shorter than d_conv - 1
    expect_refused(ggml_ssm_conv(ctx, t(8, 6, 3, 2), t(4, 6)), "ssm_conv");                 // sx 4-D
    expect_refused(ggml_ssm_conv(ctx, t(8, 6, 3), t(4, 6, 2)), "ssm_conv");                 // c 3-D
    expect_refused(ggml_ssm_conv(ctx, t(8, 6, 3, 1, GGML_TYPE_F16), t(4, 6)), "ssm_conv");  // not F32
    expect_refused(ggml_ssm_conv(ctx, ggml_transpose(ctx, t(6, 8, 1)), t(4, 6)), "ssm_conv");  // strided rows
    EXPECT_EQ(ggml_ssm_conv(ctx, nullptr, t(4, 6)), nullptr);

    r->ne[1] = 4;  // a hand-broken node: the kernel would read past sx
    EXPECT_FALSE(cpu_supports(r));
}

TEST_F(GgmlOpsSsm, SsmScanShapes) {
    const int64_t ds = 16, hd = 4, nh = 6, ng = 2, nt = 5, ns = 3, n_rs = 4;
    auto          s   = [&] { return t(ds, hd, nh, n_rs); };
    auto          x   = [&] { return t(hd, nh, nt, ns); };
    auto          dt  = [&] { return t(nh, nt, ns); };
    auto          A   = [&] { return t(1, nh); };
    auto          bc  = [&] { return t(ds, ng, nt, ns); };
    auto          ids = [&] { return t(ns, 1, 1, 1, GGML_TYPE_I32); };
    for (int64_t K : {1, 3}) {
        ggml_tensor * r = ggml_ssm_scan(ctx, s(), x(), dt(), A(), bc(), bc(), ids(), K);
        ASSERT_NE(r, nullptr);
        EXPECT_EQ(r->op, GGML_OP_SSM_SCAN);
        EXPECT_EQ(ggml_nelements(r), hd * nh * nt * ns + K * ds * hd * nh * ns);
        EXPECT_EQ(r->ne[1], 1);
        EXPECT_EQ(ggml_get_op_params_i32(r, 0), K);
        for (int i = 0; i < 7; ++i)
            EXPECT_NE(r->src[i], nullptr);
        EXPECT_TRUE(ggml_op_node_valid(r));
        EXPECT_TRUE(cpu_supports(r));
    }
    // Mamba-1: A per state element, K == 1 only
    EXPECT_NE(ggml_ssm_scan(ctx, s(), x(), dt(), t(ds, nh), bc(), bc(), ids(), 1), nullptr);
    EXPECT_TRUE(log.errors.empty());
    expect_refused(ggml_ssm_scan(ctx, s(), x(), dt(), t(ds, nh), bc(), bc(), ids(), 2), "ssm_scan");

    expect_refused(ggml_ssm_scan(ctx, s(), x(), dt(), A(), bc(), bc(), ids(), 0), "ssm_scan");  // K < 1
    expect_refused(ggml_ssm_scan(ctx, s(), x(), dt(), A(), bc(), bc(), ids(), (int64_t) 1 << 40), "ssm_scan");
    expect_refused(ggml_ssm_scan(ctx, t(ds, hd + 1, nh, n_rs), x(), dt(), A(), bc(), bc(), ids(), 1), "ssm_scan");
    expect_refused(ggml_ssm_scan(ctx, s(), x(), t(nh, nt + 1, ns), A(), bc(), bc(), ids(), 1), "ssm_scan");
    expect_refused(ggml_ssm_scan(ctx, s(), x(), dt(), t(2, nh), bc(), bc(), ids(), 1), "ssm_scan");  // A 2 wide
    expect_refused(ggml_ssm_scan(ctx, s(), x(), dt(), t(1, nh + 1), bc(), bc(), ids(), 1), "ssm_scan");
    expect_refused(ggml_ssm_scan(ctx, s(), x(), dt(), A(), t(ds, 4, nt, ns), t(ds, 4, nt, ns), ids(), 1),
                   "ssm_scan");  // 6 heads over 4 groups
    expect_refused(ggml_ssm_scan(ctx, s(), x(), dt(), A(), bc(), t(ds, 1, nt, ns), ids(), 1), "ssm_scan");  // B != C
    expect_refused(ggml_ssm_scan(ctx, s(), x(), dt(), A(), t(ds + 1, ng, nt, ns), t(ds + 1, ng, nt, ns), ids(), 1),
                   "ssm_scan");
    expect_refused(ggml_ssm_scan(ctx, s(), x(), dt(), A(), bc(), bc(), t(ns + 1, 1, 1, 1, GGML_TYPE_I32), 1),
                   "ssm_scan");
    expect_refused(ggml_ssm_scan(ctx, s(), x(), dt(), A(), bc(), bc(), t(ns), 1), "ssm_scan");  // ids F32
    expect_refused(ggml_ssm_scan(ctx, t(ds, hd, nh, n_rs, GGML_TYPE_F16), x(), dt(), A(), bc(), bc(), ids(), 1),
                   "ssm_scan");
    // x with padded rows: the kernel reads heads as one block
    ggml_tensor * xp = t(hd + 1, nh, nt, ns);
    ggml_tensor * xv = ggml_view_4d(ctx, xp, hd, nh, nt, ns, xp->nb[1], xp->nb[2], xp->nb[3], 0);
    expect_refused(ggml_ssm_scan(ctx, s(), xv, dt(), A(), bc(), bc(), ids(), 1), "ssm_scan");
    EXPECT_EQ(ggml_ssm_scan(ctx, s(), x(), dt(), A(), bc(), bc(), nullptr, 1), nullptr);

    ggml_tensor * r = ggml_ssm_scan(ctx, s(), x(), dt(), A(), bc(), bc(), ids(), 2);
    ASSERT_NE(r, nullptr);
    ggml_set_op_params_i32(r, 0, 3);  // the result no longer holds K blocks
    EXPECT_FALSE(cpu_supports(r));
}

TEST_F(GgmlOpsSsm, GatedDeltaNetShapes) {
    const int64_t S = 8, H = 4, Hk = 2, nt = 3, ns = 2;
    auto          qk   = [&] { return t(S, Hk, nt, ns); };
    auto          v    = [&] { return t(S, H, nt, ns); };
    auto          g    = [&] { return t(1, H, nt, ns); };
    auto          beta = [&] { return t(1, H, nt, ns); };
    auto          st   = [&] { return t(S, S, H, ns); };
    for (int64_t K : {1, 4}) {
        ggml_tensor * r = ggml_gated_delta_net(ctx, qk(), qk(), v(), g(), beta(), st(), K);
        ASSERT_NE(r, nullptr);
        EXPECT_EQ(r->op, GGML_OP_GATED_DELTA_NET);
        EXPECT_EQ(r->ne[0], S * H);
        EXPECT_EQ(r->ne[1], nt * ns + K * S * ns);
        EXPECT_EQ(r->ne[2], 1);
        EXPECT_EQ(ggml_get_op_params_i32(r, 0), K);
        EXPECT_TRUE(ggml_op_node_valid(r));
        EXPECT_TRUE(cpu_supports(r));
    }
    // per-channel gate (KDA); q/k broadcast over sequences
    EXPECT_NE(ggml_gated_delta_net(ctx, qk(), qk(), v(), t(S, H, nt, ns), beta(), st(), 1), nullptr);
    EXPECT_NE(ggml_gated_delta_net(ctx, t(S, Hk, nt, 1), t(S, 1, nt, 1), v(), g(), beta(), st(), 1), nullptr);
    EXPECT_TRUE(log.errors.empty());

    const char * op = "gated_delta_net";
    expect_refused(ggml_gated_delta_net(ctx, qk(), qk(), v(), g(), beta(), st(), 0), op);
    expect_refused(ggml_gated_delta_net(ctx, t(S + 1, Hk, nt, ns), qk(), v(), g(), beta(), st(), 1), op);  // S_k
    expect_refused(ggml_gated_delta_net(ctx, qk(), t(S, 3, nt, ns), v(), g(), beta(), st(), 1), op);       // 4 % 3
    expect_refused(ggml_gated_delta_net(ctx, qk(), t(S, Hk, nt + 1, ns), v(), g(), beta(), st(), 1), op);
    expect_refused(ggml_gated_delta_net(ctx, t(S, Hk, nt, 3), qk(), v(), g(), beta(), st(), 1), op);  // 2 % 3
    expect_refused(ggml_gated_delta_net(ctx, qk(), qk(), v(), t(2, H, nt, ns), beta(), st(), 1), op);
    expect_refused(ggml_gated_delta_net(ctx, qk(), qk(), v(), g(), t(S, H, nt, ns), st(), 1), op);  // beta
    expect_refused(ggml_gated_delta_net(ctx, qk(), qk(), v(), g(), beta(), t(S, S, H, ns + 1), 1), op);
    expect_refused(ggml_gated_delta_net(ctx, qk(), qk(), v(), g(), beta(), t(S, S + 1, H, ns), 1), op);
    expect_refused(ggml_gated_delta_net(ctx, qk(), qk(), v(), g(), beta(), t(S, S, H, ns, GGML_TYPE_F16), 1), op);
    expect_refused(ggml_gated_delta_net(ctx, qk(), qk(), v(), g(), beta(), ggml_transpose(ctx, st()), 1), op);
    expect_refused(ggml_gated_delta_net(ctx, qk(), qk(), v(), g(), beta(), st(), (int64_t) 1 << 40), op);
    EXPECT_EQ(ggml_gated_delta_net(ctx, qk(), qk(), v(), nullptr, beta(), st(), 1), nullptr);

    ggml_tensor * r = ggml_gated_delta_net(ctx, qk(), qk(), v(), g(), beta(), st(), 1);
    ASSERT_NE(r, nullptr);
    r->src[5]        = st();
    r->src[5]->ne[2] = H - 1;  // a hand-broken state: the kernel would read past it
    EXPECT_FALSE(cpu_supports(r));
}

// ids are data: one out of range fails the compute with a logged reason instead of reading past s.
TEST_F(GgmlOpsSsm, SsmScanBadIdFailsTheCompute) {
    const int64_t ds = 4, hd = 2, nh = 2, nt = 3, ns = 2, n_rs = 2;
    ggml_tensor * ids = t(ns, 1, 1, 1, GGML_TYPE_I32);
    ggml_tensor * r   = ggml_ssm_scan(ctx, t(ds, hd, nh, n_rs), t(hd, nh, nt, ns), t(nh, nt, ns), t(1, nh),
                                      t(ds, 1, nt, ns), t(ds, 1, nt, ns), ids, 1);
    ASSERT_NE(r, nullptr);
    ggml_cgraph * gf = ggml_new_graph(ctx);
    ASSERT_NE(gf, nullptr);
    ggml_build_forward_expand(gf, r);
    ggml_backend_t be = ggml_backend_dev_init(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU), nullptr);
    ASSERT_NE(be, nullptr);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    ASSERT_NE(buf, nullptr);
    ggml_backend_buffer_clear(buf, 0);
    for (int32_t bad : {(int32_t) n_rs, -1}) {
        const int32_t v[2] = {0, bad};
        ggml_backend_tensor_set(ids, v, 0, sizeof(v));
        log.errors.clear();
        EXPECT_NE(ggml_backend_graph_compute(be, gf), GGML_STATUS_SUCCESS) << bad;
        ASSERT_FALSE(log.errors.empty());
        EXPECT_NE(log.errors[0].find("[ssm_scan]"), std::string::npos) << log.errors[0];
    }
    const int32_t ok[2] = {1, 0};
    ggml_backend_tensor_set(ids, ok, 0, sizeof(ok));
    EXPECT_EQ(ggml_backend_graph_compute(be, gf), GGML_STATUS_SUCCESS);
    ggml_backend_buffer_free(buf);
    ggml_backend_free(be);
}

// Every row loop of the AVX2 and AVX-512 builds against the baseline build, on lengths around their
// lanes: the results and the updated rows agree to float rounding (the SIMD builds contract into FMAs).
TEST(GgmlOpsSsmRows, SimdMatchesBaseline) {
#if defined(__x86_64__) || defined(_M_X64)
    if (!ggml_cpu_isa_available(GGML_CPU_ISA_AVX2))
        GTEST_SKIP() << "no AVX2 on this CPU";
    const ggml_cpu_ssm_rows *              base   = ggml_cpu_ssm_rows_base();
    std::vector<const ggml_cpu_ssm_rows *> levels = {ggml_cpu_ssm_rows_avx2()};
    if (ggml_cpu_isa_available(GGML_CPU_ISA_AVX512))
        levels.push_back(ggml_cpu_ssm_rows_avx512());
    std::mt19937                          rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    auto                                  rnd = [&](int64_t n) {
        std::vector<float> v((size_t) n);
        for (float & x : v)
            x = u(rng);
        return v;
    };
    auto near = [](float a, float b) { return std::fabs(a - b) <= 1e-5f * (1.0f + std::fabs(b)); };
    auto same = [&](const std::vector<float> & x, const std::vector<float> & y, int64_t n) {
        for (size_t i = 0; i < x.size(); ++i)
            ASSERT_TRUE(near(x[i], y[i])) << "n " << n << " element " << i;
    };
    for (const ggml_cpu_ssm_rows * simd : levels)
        for (int64_t n : {1, 7, 15, 16, 17, 31, 64, 100, 128, 257}) {
            const std::vector<float> a = rnd(n), k = rnd(n), q = rnd(n), e = rnd(n), src = rnd(n);
            std::vector<float>       r0 = rnd(n), r1 = r0;
            EXPECT_TRUE(near(simd->dot(a.data(), k.data(), n), base->dot(a.data(), k.data(), n))) << n;
            EXPECT_TRUE(near(simd->scale_dot(r1.data(), r1.data(), 0.9f, k.data(), n),
                             base->scale_dot(r0.data(), r0.data(), 0.9f, k.data(), n)));
            EXPECT_TRUE(near(simd->decay_dot(r1.data(), r1.data(), e.data(), k.data(), n),
                             base->decay_dot(r0.data(), r0.data(), e.data(), k.data(), n)));
            EXPECT_TRUE(near(simd->axpy_dot(r1.data(), -0.3f, k.data(), q.data(), n),
                             base->axpy_dot(r0.data(), -0.3f, k.data(), q.data(), n)));
            EXPECT_TRUE(near(simd->scan(r1.data(), 0.8f, k.data(), 0.25f, q.data(), n),
                             base->scan(r0.data(), 0.8f, k.data(), 0.25f, q.data(), n)));
            same(r1, r0, n);
            // the decays reading another row (the state before the first token)
            EXPECT_TRUE(near(simd->scale_dot(r1.data(), src.data(), 0.9f, k.data(), n),
                             base->scale_dot(r0.data(), src.data(), 0.9f, k.data(), n)));
            same(r1, r0, n);
            EXPECT_TRUE(near(simd->decay_dot(r1.data(), src.data(), e.data(), k.data(), n),
                             base->decay_dot(r0.data(), src.data(), e.data(), k.data(), n)));
            same(r1, r0, n);
            // the chunked gated delta net's kernels: 4 rows . 2 vectors, and sums of m rows
            const int64_t      m     = 5;
            std::vector<float> rows4 = rnd(4 * n), xs = rnd(m * n), c = rnd(m), c2 = rnd(m), o0(8), o1(8);
            simd->dot4x2(rows4.data(), n, k.data(), q.data(), n, o1.data());
            base->dot4x2(rows4.data(), n, k.data(), q.data(), n, o0.data());
            same(o1, o0, n);
            for (int l = 0; l < 4; ++l)
                EXPECT_TRUE(near(o0[(size_t) l], base->dot(rows4.data() + l * n, k.data(), n))) << n;
            std::vector<float> s0 = r0, s1 = r0, t0 = a, t1 = a;
            simd->axpys(s1.data(), c.data(), xs.data(), n, m, n);
            base->axpys(s0.data(), c.data(), xs.data(), n, m, n);
            same(s1, s0, n);
            simd->axpys2(s1.data(), t1.data(), c.data(), c2.data(), xs.data(), n, m, n);
            base->axpys2(s0.data(), t0.data(), c.data(), c2.data(), xs.data(), n, m, n);
            same(s1, s0, n);
            same(t1, t0, n);
            float want = r0[0];  // one element by hand: r0[0] + 2 * sum_s c[s] xs[s][0] after the two calls
            for (int64_t s = 0; s < m; ++s)
                want += 2 * c[(size_t) s] * xs[(size_t) (s * n)];
            EXPECT_TRUE(near(s0[0], want)) << n;
        }
#else
    GTEST_SKIP() << "x86-64 only (the arm64 build has one level of these loops)";
#endif
}
