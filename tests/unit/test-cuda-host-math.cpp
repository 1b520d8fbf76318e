// The CUDA backend's shared math (ggml/src/ggml-cuda/ops-math.cuh, quantize.cuh) compiled for the host:
// the same functions the kernels call (GGML_CUDA_HD), checked against the CPU backend, the oracle.
// Needs no GPU and no nvcc, so it runs in every build. Quantizers must match the CPU reference bit for
// bit; rope, soft_max and the activations must reproduce the CPU op on real inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ggml-cpu/ggml-cpu-compute.h"
#include "ggml-cuda/ops-math.cuh"
#include "ggml-cuda/quantize.cuh"
#include "ggml.h"
#include "test-kv-quant-inputs.h"

float ggml_cpu_alibi_slope(float max_bias, int64_t n_head, int64_t h);  // ggml-cpu/ops-softmax.cpp

namespace cm = ggml_cuda_math;

namespace {

uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

// Float inputs covering the conversion edge cases: zeros, subnormals, rounding ties, overflow, inf, NaN.
std::vector<float> conversion_inputs() {
    std::vector<float> v = {0.0f,     -0.0f,    1.0f,     -1.0f,   65504.0f, 65519.0f, 65520.0f, 1e10f,     -1e10f,
                            5.96e-8f, 2.98e-8f, 2.99e-8f, 6.1e-5f, 6.09e-5f, 1e-40f,   INFINITY, -INFINITY, NAN};
    std::mt19937       rng(7);
    for (int i = 0; i < 200000; ++i) {
        const uint32_t u = (uint32_t) rng();
        float          f;
        std::memcpy(&f, &u, 4);
        v.push_back(f);  // every exponent, including NaN patterns
    }
    std::normal_distribution<float> n(0.0f, 1.0f);
    for (int i = 0; i < 100000; ++i) {
        v.push_back(n(rng) * std::pow(2.0f, (float) (i % 40 - 30)));
    }
    return v;
}

TEST(CudaHostMath, HalfAndBf16MatchTheCoreConversions) {
    for (uint32_t h = 0; h < 65536; ++h) {
        ASSERT_EQ(bits(cm::fp16_to_f32((uint16_t) h)), bits(ggml_fp16_to_fp32((ggml_fp16_t) h))) << h;
        ggml_bf16_t b;
        b.bits = (uint16_t) h;
        ASSERT_EQ(bits(cm::bf16_to_f32((uint16_t) h)), bits(ggml_bf16_to_fp32(b))) << h;
    }
    for (float f : conversion_inputs()) {
        ASSERT_EQ(cm::f32_to_fp16(f), ggml_fp32_to_fp16(f)) << f;
        ASSERT_EQ(cm::f32_to_bf16(f), ggml_fp32_to_bf16(f).bits) << f;
    }
}

class CudaHostQuant : public testing::TestWithParam<ggml_type> {};

TEST_P(CudaHostQuant, BlocksAreBitExactWithTheCpuReference) {
    const ggml_type type    = GetParam();
    const int       nblocks = 4096;
    const size_t    bs      = ggml_type_size(type);
    ASSERT_TRUE(cm::quantize_block_supported(type));
    const std::vector<float> x = kv_quant_inputs::blocks(nblocks);
    std::vector<uint8_t>     ref((size_t) nblocks * bs), got((size_t) nblocks * bs, 0xAB);
    // 8 rows of 512 (the reference walks rows of blocks; the CUDA kernels quantize block by block)
    ASSERT_EQ(ggml_quantize_chunk(type, x.data(), ref.data(), 0, 8, nblocks * 32 / 8, nullptr), ref.size());
    for (int b = 0; b < nblocks; ++b) {
        cm::quantize_block(type, x.data() + (size_t) b * 32, got.data() + (size_t) b * bs);
    }
    int mismatches = 0;
    for (int b = 0; b < nblocks; ++b) {
        if (std::memcmp(ref.data() + (size_t) b * bs, got.data() + (size_t) b * bs, bs) != 0 && ++mismatches <= 3) {
            ADD_FAILURE() << ggml_type_name(type) << " block " << b << " (kind " << b % kv_quant_inputs::k_kinds
                          << ") differs";
        }
    }
    EXPECT_EQ(mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(KvCacheTypes, CudaHostQuant,
                         testing::Values(GGML_TYPE_Q8_0, GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1,
                                         GGML_TYPE_IQ4_NL),
                         [](const testing::TestParamInfo<ggml_type> & i) {
                             return std::string(ggml_type_name(i.param));
                         });

// ---- ops computed by the CPU backend, redone with the CUDA math -------------------------------------
struct cpu_graph {
    ggml_context * ctx;
    cpu_graph() {
        ggml_init_params ip{64u << 20, nullptr, false};
        ctx = ggml_init(ip);
    }
    ~cpu_graph() { ggml_free(ctx); }
    void run(ggml_tensor * out) {
        ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, out);
        ggml_cpu_threadpool * tp = ggml_cpu_threadpool_new(1);
        ASSERT_EQ(ggml_cpu_graph_compute(tp, gf, 1, nullptr, nullptr), GGML_STATUS_SUCCESS);
        ggml_cpu_threadpool_free(tp);
    }
    ggml_tensor * f32(int64_t n0, int64_t n1, int64_t n2, float lo, float hi, uint32_t seed) {
        ggml_tensor *                         t = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, n0, n1, n2, 1);
        std::mt19937                          rng(seed);
        std::uniform_real_distribution<float> u(lo, hi);
        for (int64_t i = 0; i < ggml_nelements(t); ++i)
            ggml_get_data_f32(t)[i] = u(rng);
        return t;
    }
};

// |got - want| within a few float ulps of the row's scale (the GPU may fuse a multiply-add)
void expect_close(const float * got, const float * want, int64_t n, float scale, const char * what) {
    int bad = 0;
    for (int64_t i = 0; i < n; ++i) {
        if (!(std::fabs(got[i] - want[i]) <= 4e-7f * scale) && ++bad <= 3) {
            ADD_FAILURE() << what << "[" << i << "]: " << got[i] << " vs CPU " << want[i];
        }
    }
    EXPECT_EQ(bad, 0) << what;
}

struct rope_case {
    int   mode, n_dims;
    bool  freq_factors;
    float freq_scale, ext_factor;
    int   pos_scale;  // positions are i * pos_scale
};

class CudaHostRope : public testing::TestWithParam<rope_case> {};

TEST_P(CudaHostRope, AnglesReproduceTheCpuOp) {
    const rope_case c        = GetParam();
    const int64_t   head_dim = 64, n_head = 3, n_tok = 7;
    cpu_graph       g;
    ggml_tensor *   a   = g.f32(head_dim, n_head, n_tok, -2.0f, 2.0f, 1);
    ggml_tensor *   pos = ggml_new_tensor_1d(g.ctx, GGML_TYPE_I32, n_tok);
    for (int i = 0; i < n_tok; ++i)
        ((int32_t *) pos->data)[i] = i * c.pos_scale;
    ggml_tensor * ff   = c.freq_factors ? g.f32(c.n_dims / 2, 1, 1, 0.5f, 4.0f, 2) : nullptr;
    const float   base = 10000.0f, attn = 1.25f, beta_fast = 32.0f, beta_slow = 1.0f;
    const int     n_ctx_orig = 4096;
    ggml_tensor * out = ggml_rope_ext(g.ctx, a, pos, ff, c.n_dims, c.mode, n_ctx_orig, base, c.freq_scale, c.ext_factor,
                                      attn, beta_fast, beta_slow);
    g.run(out);

    // what k_rope computes, element by element
    const cm::rope_params p =
        cm::rope_params_make(c.n_dims, n_ctx_orig, base, c.freq_scale, c.ext_factor, attn, beta_fast, beta_slow);
    const bool         neox = (c.mode & GGML_ROPE_TYPE_NEOX) != 0;
    std::vector<float> want((size_t) ggml_nelements(a));
    const float *      x = ggml_get_data_f32(a);
    for (int64_t t = 0; t < n_tok; ++t) {
        for (int64_t h = 0; h < n_head; ++h) {
            const float * xr   = x + (t * n_head + h) * head_dim;
            float *       dr   = want.data() + (t * n_head + h) * head_dim;
            const int     half = c.n_dims / 2;
            for (int k = 0; k < half; ++k) {
                float cs, sn;
                cm::rope_cos_sin(p, (double) ((int32_t *) pos->data)[t], k,
                                 ff ? (double) ggml_get_data_f32(ff)[k] : 1.0, &cs, &sn);
                const int j0 = neox ? k : 2 * k, j1 = neox ? k + half : 2 * k + 1;
                dr[j0] = xr[j0] * cs - xr[j1] * sn;
                dr[j1] = xr[j0] * sn + xr[j1] * cs;
            }
            for (int64_t k = c.n_dims; k < head_dim; ++k)
                dr[k] = xr[k];
        }
    }
    expect_close(want.data(), ggml_get_data_f32(out), ggml_nelements(out), 2.0f * 2.0f * attn * 1.5f, "rope");
}

INSTANTIATE_TEST_SUITE_P(Modes, CudaHostRope,
                         testing::Values(rope_case{GGML_ROPE_TYPE_NORMAL, 64, false, 1.0f, 0.0f, 1},
                                         rope_case{GGML_ROPE_TYPE_NEOX, 64, false, 1.0f, 0.0f, 1},
                                         rope_case{GGML_ROPE_TYPE_NEOX, 32, true, 1.0f, 0.0f, 3},
                                         rope_case{GGML_ROPE_TYPE_NORMAL, 48, true, 0.25f, 1.0f, 17},
                                         rope_case{GGML_ROPE_TYPE_NEOX, 64, false, 0.125f, 1.0f, 20011}),
                         [](const testing::TestParamInfo<rope_case> & i) {
                             const rope_case & c = i.param;
                             return std::string(c.mode == GGML_ROPE_TYPE_NEOX ? "neox" : "normal") + "_dims" +
                                    std::to_string(c.n_dims) + (c.freq_factors ? "_ff" : "") +
                                    (c.ext_factor != 0.0f ? "_yarn" : "") + "_pos" + std::to_string(c.pos_scale);
                         });

TEST(CudaHostMath, AlibiSlopeIsTheCpuFormula) {
    for (float max_bias : {0.0f, 1.0f, 8.0f}) {
        for (int64_t n_head : {1, 5, 8, 12, 32, 40}) {
            for (int64_t h = 0; h < n_head; ++h) {
                ASSERT_EQ(bits(cm::alibi_slope(max_bias, n_head, h)), bits(ggml_cpu_alibi_slope(max_bias, n_head, h)))
                    << max_bias << " " << n_head << " " << h;
            }
        }
    }
}

TEST(CudaHostMath, SoftMaxWithMaskAndAlibiReproducesTheCpuOp) {
    const int64_t n = 37, rows = 5, heads = 6;
    cpu_graph     g;
    ggml_tensor * a    = g.f32(n, rows, heads, -8.0f, 8.0f, 3);
    ggml_tensor * mask = g.f32(n, rows, 1, -1.0f, 1.0f, 4);
    float *       m    = ggml_get_data_f32(mask);
    for (int64_t i = 0; i < n * rows; ++i)
        if (i % 5 == 0 || i / n == 2)
            m[i] = -INFINITY;  // row 2 fully masked: zeros
    const float   scale = 0.7f, max_bias = 8.0f;
    ggml_tensor * out = ggml_soft_max_ext(g.ctx, a, mask, scale, max_bias);
    g.run(out);

    // k_soft_max's order of operations (the row sum order differs on the GPU: tolerance)
    std::vector<float> want((size_t) ggml_nelements(a));
    for (int64_t h = 0; h < heads; ++h) {
        const float slope = cm::alibi_slope(max_bias, heads, h);
        for (int64_t r = 0; r < rows; ++r) {
            const float * x    = ggml_get_data_f32(a) + (h * rows + r) * n;
            const float * mr   = m + r * n;
            float *       d    = want.data() + (h * rows + r) * n;
            float         vmax = -INFINITY;
            for (int64_t i = 0; i < n; ++i) {
                d[i] = x[i] * scale + slope * mr[i];
                vmax = std::fmax(vmax, d[i]);
            }
            if (vmax == -INFINITY) {
                for (int64_t i = 0; i < n; ++i)
                    d[i] = 0.0f;
                continue;
            }
            float sum = 0.0f;
            for (int64_t i = 0; i < n; ++i) {
                d[i] = std::exp(d[i] - vmax);
                sum += d[i];
            }
            for (int64_t i = 0; i < n; ++i)
                d[i] *= 1.0f / sum;
        }
    }
    expect_close(want.data(), ggml_get_data_f32(out), ggml_nelements(out), 4.0f, "soft_max");
}

TEST(CudaHostMath, ActivationsReproduceTheCpuOps) {
    const int64_t n = 4001;
    cpu_graph     g;
    ggml_tensor * a = g.f32(n, 1, 1, -12.0f, 12.0f, 5);
    struct act {
        ggml_unary_op op;
        float (*f)(float);
    };
    const act acts[] = {{GGML_UNARY_OP_SILU, cm::silu},
                        {GGML_UNARY_OP_GELU, cm::gelu_tanh},
                        {GGML_UNARY_OP_GELU_ERF, cm::gelu_erf},
                        {GGML_UNARY_OP_SIGMOID, cm::sigmoid}};
    for (const act & t : acts) {
        ggml_tensor * out = ggml_unary(g.ctx, a, t.op);
        g.run(out);
        std::vector<float> want((size_t) n);
        for (int64_t i = 0; i < n; ++i)
            want[(size_t) i] = t.f(ggml_get_data_f32(a)[i]);
        expect_close(want.data(), ggml_get_data_f32(out), n, 12.0f, ggml_unary_op_name(t.op));
    }
}

}  // namespace
