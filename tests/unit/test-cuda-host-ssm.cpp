// The CUDA recurrent ops' work items (ggml/src/ggml-cuda/ops-ssm-math.cuh: SSM_CONV, SSM_SCAN,
// GATED_DELTA_NET) compiled for the host and run over every item of a node in the kernels' item order,
// against the CPU op (the oracle) on random inputs: several shapes, several sequences with their own
// state ids, strided sources, Mamba-1 and Mamba-2's A, both gate forms of the delta rule, snapshot slots.
// The parameter blocks come from the same ssm_*_params_of the kernels' launchers use. On the host one
// lane owns a whole state row (ssm_lane_sum is then the identity); the 32-lane split runs on a GPU only
// (tests/backend/test-backend-ops, tests/cuda). Needs no GPU and no nvcc, so it runs in every build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ggml-cpu/ggml-cpu-compute.h"
#include "ggml-cuda/ops-ssm-math.cuh"
#include "ggml-ssm-nodes.h"
#include "ggml.h"

namespace cm = ggml_cuda_math;

namespace {

struct graph_ctx {
    ggml_context * ctx;
    std::mt19937   rng{1234};
    graph_ctx() {
        ggml_init_params ip{256u << 20, nullptr, false};
        ctx = ggml_init(ip);
    }
    ~graph_ctx() { ggml_free(ctx); }

    // a [n0, n1, n2, n3] F32 view whose dims 1..3 are padded by pad[d] (strided sources, rows contiguous)
    ggml_tensor * input(const int64_t (&ne)[4], float lo, float hi, const int64_t (&pad)[4] = {0, 0, 0, 0}) {
        ggml_tensor * base =
            ggml_new_tensor_4d(ctx, GGML_TYPE_F32, ne[0] + pad[0], ne[1] + pad[1], ne[2] + pad[2], ne[3] + pad[3]);
        std::uniform_real_distribution<float> u(lo, hi);
        for (int64_t i = 0; i < ggml_nelements(base); ++i)
            ggml_get_data_f32(base)[i] = u(rng);
        if (pad[0] == 0 && pad[1] == 0 && pad[2] == 0 && pad[3] == 0)
            return base;
        return ggml_view_4d(ctx, base, ne[0], ne[1], ne[2], ne[3], base->nb[1], base->nb[2], base->nb[3], 0);
    }

    // computes the CPU op into `cpu`; `dev` (the same op, not computed) gets the host run of the CUDA math
    void run_cpu(ggml_tensor * cpu, ggml_tensor * dev) {
        ASSERT_NE(cpu, nullptr);
        ASSERT_NE(dev, nullptr);
        // slots a short sequence leaves unwritten stay as they were: the same zeros on both sides
        std::memset(cpu->data, 0, ggml_nbytes(cpu));
        std::memset(dev->data, 0, ggml_nbytes(dev));
        ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, cpu);
        ggml_cpu_threadpool * tp = ggml_cpu_threadpool_new(2);
        ASSERT_EQ(ggml_cpu_graph_compute(tp, gf, 2, nullptr, nullptr), GGML_STATUS_SUCCESS);
        ggml_cpu_threadpool_free(tp);
    }
};

// |got - want| <= tol * max(1, max |want|) everywhere; the recurrences round differently from the CPU's
// (chunked prefill, SIMD sums), never by more than a few ulps per token
void expect_close(const ggml_tensor * got, const ggml_tensor * want, float tol, const std::string & what) {
    const float * g = (const float *) got->data;
    const float * w = (const float *) want->data;
    const int64_t n = ggml_nelements(want);
    float         m = 1.0f;
    for (int64_t i = 0; i < n; ++i)
        m = std::max(m, std::fabs(w[i]));
    int bad = 0;
    for (int64_t i = 0; i < n; ++i)
        if (!(std::fabs(g[i] - w[i]) <= tol * m) && ++bad <= 3)
            ADD_FAILURE() << what << " [" << i << "]: " << g[i] << " vs CPU " << w[i];
    EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << n << " elements differ";
}

TEST(CudaHostSsm, ConvReproducesTheCpuOp) {
    struct shape {
        int64_t d_conv, d_inner, nt, ns;
        bool    strided;
    };
    for (const shape & sh : {shape{4, 16, 1, 1, false}, shape{4, 24, 7, 3, true}, shape{3, 5, 2, 2, true},
                             shape{1, 8, 4, 1, false}, shape{4, 64, 33, 2, true}}) {
        graph_ctx     g;
        const int64_t pad = sh.strided ? 2 : 0;
        ggml_tensor * sx  = g.input({sh.d_conv - 1 + sh.nt, sh.d_inner, sh.ns, 1}, -1, 1, {0, pad, pad, 0});
        ggml_tensor * c   = g.input({sh.d_conv, sh.d_inner, 1, 1}, -1, 1, {0, pad, 0, 0});
        ggml_tensor * cpu = ggml_ssm_conv(g.ctx, sx, c);
        ggml_tensor * dev = ggml_ssm_conv(g.ctx, sx, c);
        g.run_cpu(cpu, dev);
        ASSERT_TRUE(ggml_ssm_conv_node_ok(dev));
        const cm::ssm_conv_params p = cm::ssm_conv_params_of(dev);
        for (int64_t e = 0; e < ggml_nelements(dev); ++e)
            cm::ssm_conv_elem(p, e);
        expect_close(dev, cpu, 1e-6f,
                     "ssm_conv d_conv=" + std::to_string(sh.d_conv) + " d_inner=" + std::to_string(sh.d_inner) +
                         " nt=" + std::to_string(sh.nt) + " ns=" + std::to_string(sh.ns));
    }
}

TEST(CudaHostSsm, ScanReproducesTheCpuOp) {
    struct shape {
        int64_t ds, hd, nh, ng, nt, ns, n_rs, K;
        bool    mamba1, strided;
    };
    const shape shapes[] = {
        {16, 4, 2, 1, 1, 1, 1, 1, false, false}, {32, 8, 4, 2, 5, 3, 4, 1, false, true},
        {16, 4, 4, 4, 6, 2, 3, 3, false, false}, {16, 8, 2, 1, 9, 2, 2, 1, true, true},
        {128, 4, 2, 1, 3, 2, 5, 4, false, true}, {7, 3, 3, 1, 2, 3, 3, 2, false, false},
        {16, 4, 2, 2, 0, 2, 2, 1, false, false},  // no tokens: nothing written
    };
    for (const shape & sh : shapes) {
        graph_ctx     g;
        const int64_t pad = sh.strided ? 1 : 0;
        ggml_tensor * s   = g.input({sh.ds, sh.hd, sh.nh, sh.n_rs}, -1, 1);
        ggml_tensor * x   = g.input({sh.hd, sh.nh, sh.nt, sh.ns}, -1, 1, {0, 0, pad, pad});
        ggml_tensor * dt  = g.input({sh.nh, sh.nt, sh.ns, 1}, -3, 1);
        ggml_tensor * A   = g.input({sh.mamba1 ? sh.ds : 1, sh.nh, 1, 1}, -2, -0.1f);
        ggml_tensor * B   = g.input({sh.ds, sh.ng, sh.nt, sh.ns}, -1, 1, {0, 0, pad, 0});
        ggml_tensor * C   = g.input({sh.ds, sh.ng, sh.nt, sh.ns}, -1, 1, {0, 0, 0, pad});
        ggml_tensor * ids = ggml_new_tensor_1d(g.ctx, GGML_TYPE_I32, sh.ns);
        for (int64_t i = 0; i < sh.ns; ++i)  // sequences read states in another order than their own
            ((int32_t *) ids->data)[i] = (int32_t) ((sh.n_rs - 1 - i + sh.n_rs) % sh.n_rs);
        ggml_tensor * cpu = ggml_ssm_scan(g.ctx, s, x, dt, A, B, C, ids, sh.K);
        ggml_tensor * dev = ggml_ssm_scan(g.ctx, s, x, dt, A, B, C, ids, sh.K);
        g.run_cpu(cpu, dev);
        ASSERT_TRUE(ggml_ssm_scan_node_ok(dev));
        const cm::ssm_scan_params p = cm::ssm_scan_params_of(dev);
        for (int64_t r = 0; r < sh.ns * sh.nh * sh.hd; ++r)
            cm::ssm_scan_item(p, r, 0, 1);
        expect_close(dev, cpu, 2e-6f,
                     std::string(sh.mamba1 ? "mamba1" : "mamba2") + " ssm_scan ds=" + std::to_string(sh.ds) + " hd=" +
                         std::to_string(sh.hd) + " nh=" + std::to_string(sh.nh) + " nt=" + std::to_string(sh.nt) +
                         " ns=" + std::to_string(sh.ns) + " K=" + std::to_string(sh.K));
    }
}

TEST(CudaHostSsm, GatedDeltaNetReproducesTheCpuOp) {
    struct shape {
        int64_t S, H, H_k, nt, ns, ns_k, K;
        bool    per_channel, strided;
    };
    // decode steps, short and long prefills (from 6 tokens on the CPU runs its chunked form: another
    // rounding of the same recurrence), q/k heads and sequences shared, snapshot slots, both gates
    const shape shapes[] = {
        {16, 2, 2, 1, 1, 1, 1, false, false},  {16, 4, 2, 5, 2, 2, 1, false, true},
        {7, 3, 1, 3, 3, 1, 1, true, true},     {32, 2, 1, 6, 2, 1, 3, false, false},
        {16, 3, 3, 2, 1, 1, 4, true, false},   {64, 4, 2, 20, 2, 2, 1, false, true},
        {48, 2, 1, 40, 2, 2, 3, true, true},   {128, 2, 1, 1, 3, 3, 1, true, false},
        {128, 4, 2, 17, 2, 1, 2, false, true}, {20, 2, 2, 0, 2, 2, 1, false, false},  // no tokens, K == 1
    };
    for (const shape & sh : shapes) {
        graph_ctx     g;
        const int64_t pad = sh.strided ? 1 : 0;
        // model-like inputs: unit q/k rows, beta in (0, 1), log decays in [-1, 0]
        ggml_tensor * q = g.input({sh.S, sh.H_k, sh.nt, sh.ns_k}, -1, 1, {0, pad, 0, pad});
        ggml_tensor * k = g.input({sh.S, sh.H_k, sh.nt, sh.ns_k}, -1, 1, {0, 0, pad, 0});
        for (ggml_tensor * t : {q, k})
            for (int64_t i3 = 0; i3 < t->ne[3]; ++i3)
                for (int64_t i2 = 0; i2 < t->ne[2]; ++i2)
                    for (int64_t i1 = 0; i1 < t->ne[1]; ++i1) {
                        float * r  = (float *) ((char *) t->data + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3]);
                        float   ss = 0;
                        for (int64_t i = 0; i < sh.S; ++i)
                            ss += r[i] * r[i];
                        for (int64_t i = 0; i < sh.S; ++i)
                            r[i] /= std::sqrt(ss);
                    }
        ggml_tensor * v     = g.input({sh.S, sh.H, sh.nt, sh.ns}, -1, 1, {0, pad, pad, 0});
        ggml_tensor * gate  = g.input({sh.per_channel ? sh.S : 1, sh.H, sh.nt, sh.ns}, -1, 0);
        ggml_tensor * beta  = g.input({1, sh.H, sh.nt, sh.ns}, 0.05f, 0.95f);
        ggml_tensor * state = g.input({sh.S, sh.S, sh.H, sh.ns}, -0.5f, 0.5f);
        ggml_tensor * cpu   = ggml_gated_delta_net(g.ctx, q, k, v, gate, beta, state, sh.K);
        ggml_tensor * dev   = ggml_gated_delta_net(g.ctx, q, k, v, gate, beta, state, sh.K);
        g.run_cpu(cpu, dev);
        ASSERT_TRUE(ggml_gated_delta_net_node_ok(dev));
        const cm::gdn_params p = cm::gdn_params_of(dev);
        for (int64_t r = 0; r < sh.ns * sh.H * sh.S; ++r)
            cm::gdn_item(p, r, 0, 1);
        expect_close(dev, cpu, 2e-5f,
                     std::string(sh.per_channel ? "kda" : "scalar-gate") + " gated_delta_net S=" +
                         std::to_string(sh.S) + " H=" + std::to_string(sh.H) + " nt=" + std::to_string(sh.nt) +
                         " ns=" + std::to_string(sh.ns) + " K=" + std::to_string(sh.K));
    }
}

}  // namespace
