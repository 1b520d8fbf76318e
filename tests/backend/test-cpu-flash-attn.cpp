// CPU flash attention: the tiled SIMD kernel (every instruction set this CPU has, and the portable
// one) against the scalar reference loop (GGML_CPU_SCALAR path) at odd sizes, for each K/V type,
// with GQA, masks that hide whole rows, soft-cap and ALiBi; and identical bits for any thread count
// (including a decode over a long KV, which is split into key chunks and merged); every KV cache
// type and mixed pair takes the tiled kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-cpu/cpu-features.h"
#include "ggml-cpu/ops-attn.h"
#include "ggml.h"
#include "test-common.h"

extern "C" void ggml_cpu_set_scalar(bool scalar);  // internal switches (ggml-cpu.cpp, ops-matmul.cpp)
extern "C" void ggml_cpu_set_mm_isa(int isa);      // -1 auto, 0 scalar, else a level rank (cpu-features.h)
extern "C" void ggml_cpu_set_auto_threads(bool enable);

using testing_util::nmse;

namespace {

// The portable kernels (rank 0) and the SIMD levels of this build's family by rank (ggml_cpu_set_mm_isa; each capped at
// what this CPU has): AVX2, AVX-512 on x86-64; NEON, dotprod, i8mm on arm64 (the float kernels of the three arm64
// levels are one set, so this also checks that each level reaches it).
#if defined(GGML_CPU_ARCH_ARM64)
const std::vector<int> k_ranks = {0, 1, 2, 3};
#else
const std::vector<int> k_ranks = {0, 1, 2};
#endif

struct fa_case {
    int64_t   D, Dv, n_q, n_kv, n_head, n_head_kv;
    ggml_type kt, vt;
    bool      mask;
    float     softcap, max_bias;

    std::string name() const {
        return "D=" + std::to_string(D) + " Dv=" + std::to_string(Dv) + " n_q=" + std::to_string(n_q) +
               " n_kv=" + std::to_string(n_kv) + " heads=" + std::to_string(n_head) + "/" + std::to_string(n_head_kv) +
               " k=" + ggml_type_name(kt) + " v=" + ggml_type_name(vt) + (mask ? " mask" : "") +
               (softcap > 0 ? " softcap" : "") + (max_bias > 0 ? " alibi" : "");
    }
};

// Values of a row of n floats stored as type t (quantized types go through their reference quantizer).
std::vector<uint8_t> encode(ggml_type t, const std::vector<float> & f, int64_t row_len) {
    std::vector<uint8_t> out(ggml_row_size(t, row_len) * (f.size() / (size_t) row_len));
    if (t == GGML_TYPE_F32) {
        std::memcpy(out.data(), f.data(), out.size());
    } else if (t == GGML_TYPE_F16) {
        ggml_fp32_to_fp16_row(f.data(), (ggml_fp16_t *) out.data(), (int64_t) f.size());
    } else {
        ggml_quantize_chunk(t, f.data(), out.data(), 0, (int64_t) f.size() / row_len, row_len, nullptr);
    }
    return out;
}

struct fa_graph {
    ggml_context *        ctx = nullptr;
    ggml_backend_buffer_t buf = nullptr;
    ggml_cgraph *         gf  = nullptr;
    ggml_tensor *         out = nullptr;
    ggml_tensor *         k = nullptr, *v = nullptr, *m = nullptr;

    fa_graph(const fa_case & c, ggml_backend_t be, uint32_t seed) {
        ggml_init_params ip{ggml_tensor_overhead() * 16 + ggml_graph_overhead(), nullptr, true};
        ctx             = ggml_init(ip);
        ggml_tensor * q = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, c.D, c.n_q, c.n_head);
        k               = ggml_new_tensor_3d(ctx, c.kt, c.D, c.n_kv, c.n_head_kv);
        v               = ggml_new_tensor_3d(ctx, c.vt, c.Dv, c.n_kv, c.n_head_kv);
        m               = c.mask ? ggml_new_tensor_2d(ctx, GGML_TYPE_F16, c.n_kv, c.n_q + 3) : nullptr;
        const float sc  = 1.0f / std::sqrt((float) c.D);
        out             = ggml_flash_attn_ext(ctx, q, k, v, m, sc, c.max_bias, c.softcap);
        EXPECT_NE(out, nullptr) << c.name();
        gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, out);
        buf = ggml_backend_alloc_ctx_tensors(ctx, be);

        std::mt19937                          rng(seed);
        std::uniform_real_distribution<float> u(-1, 1);
        auto                                  fill = [&](ggml_tensor * t, float amp) {
            std::vector<float> f((size_t) ggml_nelements(t));
            for (auto & x : f)
                x = amp * u(rng);
            const std::vector<uint8_t> bytes = encode(t->type, f, t->ne[0]);
            ggml_backend_tensor_set(t, bytes.data(), 0, bytes.size());
        };
        fill(q, 2.0f);  // wide enough scores that the softmax is not flat
        fill(k, 2.0f);
        fill(v, 1.0f);
        if (m) {
            // causal over the last n_q keys, random holes, and row 1 hidden entirely (if there is one)
            std::vector<float> f((size_t) ggml_nelements(m));
            for (int64_t i = 0; i < m->ne[1]; ++i)
                for (int64_t j = 0; j < c.n_kv; ++j) {
                    float x = u(rng);
                    if (j > c.n_kv - c.n_q + i || rng() % 5 == 0 || (i == 1 && c.n_q > 2))
                        x = -INFINITY;
                    f[(size_t) (i * c.n_kv + j)] = x;
                }
            const std::vector<uint8_t> bytes = encode(GGML_TYPE_F16, f, c.n_kv);
            ggml_backend_tensor_set(m, bytes.data(), 0, bytes.size());
        }
    }
    ~fa_graph() {
        ggml_backend_buffer_free(buf);
        ggml_free(ctx);
    }
    std::vector<float> result() const {
        std::vector<float> r((size_t) ggml_nelements(out));
        ggml_backend_tensor_get(out, r.data(), 0, r.size() * 4);
        return r;
    }
};

// Every K/V type: the kernel and the reference see the same K/V values and F32 Q; only the order of
// summation and the exp polynomial differ (observed nmse ~1e-12).
constexpr double k_max_nmse = 1e-10;

std::vector<fa_case> cases() {
    std::vector<fa_case> v;
    const ggml_type      types[] = {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0};
    for (ggml_type t : types)
        for (int64_t D : {64, 80, 128, 33})
            for (int64_t n_q : {1, 3, 17, 64})
                for (int64_t n_kv : {1, 7, 256, 1037}) {
                    if (ggml_is_quantized(t) && D % 32 != 0)
                        continue;
                    if (n_q == 64 && n_kv == 1037 && D != 64)
                        continue;                                        // keeps the scalar reference quick
                    const int   variant = (int) ((D + n_q + n_kv) % 4);  // spread the options over the grid
                    const bool  gqa     = variant != 1;
                    const float softcap = variant == 2 ? 30.0f : 0.0f;
                    const float alibi   = variant == 3 ? 8.0f : 0.0f;
                    v.push_back({D, D, n_q, n_kv, 8, gqa ? 2 : 8, t, t, n_kv > 1 || variant == 0, softcap, alibi});
                }
    // the other KV cache types over a decode and a prefill each (long and short KV)
    for (ggml_type t : {GGML_TYPE_BF16, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_IQ4_NL})
        for (int64_t n_q : {1, 17})
            for (int64_t n_kv : {7, 1037})
                v.push_back({64, 64, n_q, n_kv, 8, 2, t, t, true, n_q == 17 ? 30.0f : 0.0f, 0.0f});
    // mixed K/V types and a V head size different from K's
    v.push_back({64, 64, 17, 300, 4, 1, GGML_TYPE_Q8_0, GGML_TYPE_F16, true, 0.0f, 0.0f});
    v.push_back({64, 64, 1, 300, 4, 2, GGML_TYPE_BF16, GGML_TYPE_IQ4_NL, true, 0.0f, 0.0f});
    v.push_back({128, 128, 9, 200, 4, 2, GGML_TYPE_Q5_1, GGML_TYPE_Q4_1, true, 0.0f, 0.0f});
    v.push_back({128, 64, 5, 200, 4, 2, GGML_TYPE_F16, GGML_TYPE_Q4_0, true, 0.0f, 0.0f});
    v.push_back({64, 40, 9, 130, 6, 3, GGML_TYPE_F16, GGML_TYPE_F32, true, 0.0f, 8.0f});
    return v;
}

struct CpuFlashAttn : ::testing::Test {
    ggml_backend_t be = nullptr;
    void           SetUp() override {
        ggml_cpu_set_auto_threads(false);
        be = ggml_backend_cpu_init();
        ASSERT_NE(be, nullptr);
        ggml_backend_cpu_set_n_threads(be, 2);
    }
    void TearDown() override {
        ggml_cpu_set_scalar(false);
        ggml_cpu_set_mm_isa(-1);
        ggml_cpu_set_auto_threads(true);
        ggml_backend_free(be);
    }
};

}  // namespace

TEST_F(CpuFlashAttn, TiledKernelsAgreeWithScalarReference) {
    uint32_t seed = 1;
    for (const fa_case & c : cases()) {
        fa_graph g(c, be, seed++);
        ASSERT_NE(g.out, nullptr);
        ggml_cpu_set_scalar(true);
        ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS) << c.name();
        const std::vector<float> ref = g.result();
        ggml_cpu_set_scalar(false);
        for (int isa : k_ranks) {
            ggml_cpu_set_mm_isa(isa);
            ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS) << c.name();
            const std::vector<float> r = g.result();
            EXPECT_LT(nmse(r, ref), k_max_nmse) << c.name() << " isa=" << isa;
            if (c.mask && c.n_q > 2) {
                // mask row 1 hides every key: that query's output is exactly zero, as in the reference
                for (int64_t h = 0; h < c.n_head; ++h)
                    for (int64_t d = 0; d < c.Dv; ++d)
                        ASSERT_EQ(r[(size_t) ((1 * c.n_head + h) * c.Dv + d)], 0.0f) << c.name() << " isa=" << isa;
            }
        }
        ggml_cpu_set_mm_isa(-1);
    }
}

// Every KV cache type and mixed pair takes the tiled kernel (the SIMD path of each instruction set),
// never the scalar reference loop, whatever the cache layout the KV cache gives it.
TEST_F(CpuFlashAttn, EveryKvTypeTakesTheTiledKernel) {
    const ggml_type types[] = {GGML_TYPE_F16,  GGML_TYPE_BF16, GGML_TYPE_Q8_0, GGML_TYPE_Q4_0,
                               GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_IQ4_NL};
    for (ggml_type kt : types)
        for (ggml_type vt : types) {
            const fa_case c{64, 64, 1, 64, 4, 2, kt, vt, true, 0.0f, 0.0f};
            fa_graph      g(c, be, 5);
            ASSERT_NE(g.out, nullptr) << c.name();
            EXPECT_TRUE(ggml_cpu_flash_attn_tiled_supported(g.out)) << c.name();
        }
}

TEST_F(CpuFlashAttn, ReferenceIsNotTheTiledKernel) {
    // guards the comparison above: the scalar switch must really select another code path
    const fa_case c{64, 64, 17, 256, 8, 2, GGML_TYPE_Q8_0, GGML_TYPE_Q8_0, true, 0.0f, 0.0f};
    fa_graph      g(c, be, 7);
    ggml_cpu_set_scalar(true);
    ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS);
    const std::vector<float> ref = g.result();
    ggml_cpu_set_scalar(false);
    ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS);
    EXPECT_NE(0, std::memcmp(ref.data(), g.result().data(), ref.size() * 4));
}

TEST_F(CpuFlashAttn, ThreadCountsGiveIdenticalBits) {
    const std::vector<fa_case> cs = {
        {64, 64, 1, 1500, 8, 2, GGML_TYPE_F16, GGML_TYPE_F16, true, 0.0f, 0.0f},     // decode, chunked KV
        {128, 128, 1, 700, 4, 4, GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, true, 0.0f, 0.0f},  // decode, MHA, chunked
        {64, 64, 40, 300, 8, 2, GGML_TYPE_F16, GGML_TYPE_F16, true, 20.0f, 0.0f},    // prefill tiles
    };
    for (const fa_case & c : cs) {
        fa_graph           g(c, be, 3);
        std::vector<float> first;
        for (int nt : {1, 2, 3, 5}) {
            ggml_backend_cpu_set_n_threads(be, nt);
            ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS) << c.name();
            const std::vector<float> r = g.result();
            if (first.empty()) {
                first = r;
                continue;
            }
            EXPECT_EQ(0, std::memcmp(first.data(), r.data(), r.size() * 4)) << c.name() << " threads=" << nt;
        }
    }
}

TEST_F(CpuFlashAttn, NanInMaskedKvCellDoesNotLeak) {
    // A masked cell (-inf in the mask) must contribute exactly nothing, as in the reference, which
    // skips it: NaN/Inf left in K or V there (stale or never-written KV cache cells) must not reach
    // the output. Key `hidden` is masked for every query row; the last key (prefill cases) only for
    // the rows before the last (causal); rows that do see it are not compared. n_kv > 512 also covers
    // the decode split into key chunks.
    for (ggml_type t : {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_Q8_0}) {
        for (int64_t n_q : {1, 5, 40}) {
            const fa_case c{64, 64, n_q, 600, 8, 2, t, t, true, 0.0f, 0.0f};
            fa_graph      g(c, be, 11);
            ASSERT_NE(g.out, nullptr);
            const int64_t     hidden = 37, last = n_q > 1 ? c.n_kv - 1 : hidden;
            std::vector<bool> sees_last((size_t) c.n_q);
            for (int64_t i = 0; i < g.m->ne[1]; ++i) {
                std::vector<ggml_fp16_t> h((size_t) c.n_kv);
                ggml_backend_tensor_get(g.m, h.data(), (size_t) i * g.m->nb[1], h.size() * 2);
                h[(size_t) hidden] = ggml_fp32_to_fp16(-INFINITY);
                ggml_backend_tensor_set(g.m, h.data(), (size_t) i * g.m->nb[1], h.size() * 2);
                if (i < c.n_q)
                    sees_last[(size_t) i] = ggml_fp16_to_fp32(h[(size_t) last]) != -INFINITY;
            }
            for (ggml_tensor * kv : {g.k, g.v}) {
                std::vector<uint8_t> bytes = encode(kv->type, std::vector<float>((size_t) kv->ne[0], 1.0f), kv->ne[0]);
                if (kv->type == GGML_TYPE_F32) {
                    const std::vector<float> nan((size_t) kv->ne[0], std::nanf(""));
                    std::memcpy(bytes.data(), nan.data(), bytes.size());
                } else {
                    // F16 values, or the F16 scale that starts each Q8_0 block: 0x7e00 is a NaN
                    const size_t step = kv->type == GGML_TYPE_F16 ? 2 : ggml_type_size(kv->type);
                    for (size_t o = 0; o < bytes.size(); o += step) {
                        bytes[o]     = 0x00;
                        bytes[o + 1] = 0x7e;
                    }
                }
                for (int64_t h = 0; h < kv->ne[2]; ++h)
                    for (int64_t j : {hidden, last})
                        ggml_backend_tensor_set(kv, bytes.data(), (size_t) (h * kv->nb[2] + j * kv->nb[1]),
                                                bytes.size());
            }
            ggml_cpu_set_scalar(true);
            ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS) << c.name();
            const std::vector<float> ref = g.result();
            ggml_cpu_set_scalar(false);
            for (int isa : k_ranks) {
                ggml_cpu_set_mm_isa(isa);
                ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS) << c.name();
                const std::vector<float> r = g.result();
                std::vector<float>       rf, reff;  // rows that must be finite
                for (int64_t iq = 0; iq < c.n_q; ++iq) {
                    if (sees_last[(size_t) iq])
                        continue;  // NaN is visible to it: garbage in, garbage out in both paths
                    for (int64_t h = 0; h < c.n_head; ++h)
                        for (int64_t d = 0; d < c.Dv; ++d) {
                            const size_t i = (size_t) ((iq * c.n_head + h) * c.Dv + d);
                            ASSERT_TRUE(std::isfinite(r[i])) << c.name() << " isa=" << isa << " row " << iq;
                            ASSERT_TRUE(std::isfinite(ref[i])) << c.name() << " row " << iq;
                            rf.push_back(r[i]);
                            reff.push_back(ref[i]);
                        }
                }
                EXPECT_FALSE(rf.empty()) << c.name();
                EXPECT_LT(nmse(rf, reff), k_max_nmse) << c.name() << " isa=" << isa;
            }
            ggml_cpu_set_mm_isa(-1);
        }
    }
}

// The scale + mask + max step of each key tile (ggml_cpu_fa_kernels::scale_mask_max): the AVX2,
// AVX-512 and NEON kernels give the scalar expression's bits for every score, at odd lengths, with keys masked
// by -inf, a NaN mask value (propagates) and a NaN score (never the max), with and without a mask.
TEST(CpuFlashAttnKernels, ScaleMaskMaxMatchesTheScalarBits) {
    std::vector<const ggml_cpu_fa_kernels *> ks;
#if defined(GGML_CPU_ARCH_X86_64)
    if (ggml_cpu_isa_available(GGML_CPU_ISA_AVX2))
        ks.push_back(ggml_cpu_fa_kernels_avx2());
    if (ggml_cpu_isa_available(GGML_CPU_ISA_AVX512))
        ks.push_back(ggml_cpu_fa_kernels_avx512());
#elif defined(GGML_CPU_ARCH_ARM64)
    ks.push_back(ggml_cpu_fa_kernels_neon());  // ARMv8.0: every arm64 CPU
#endif
    if (ks.empty())
        GTEST_SKIP() << "no SIMD kernels on this CPU";
    std::mt19937                          rng(11);
    std::uniform_real_distribution<float> u(-8.0f, 8.0f);
    for (int n : {1, 7, 8, 15, 16, 17, 100, 128}) {
        std::vector<float> s0((size_t) n), mask((size_t) n);
        for (int j = 0; j < n; ++j) {
            s0[(size_t) j]   = u(rng);
            mask[(size_t) j] = (j % 5 == 1) ? -INFINITY : -std::fabs(u(rng)) / 4;
        }
        if (n > 3)
            mask[2] = NAN;
        if (n > 5)
            s0[4] = NAN;
        for (bool with_mask : {false, true}) {
            const float        scale = 0.125f, slope = 0.7f;
            std::vector<float> ref = s0;
            float              mx  = -INFINITY;
            for (int j = 0; j < n; ++j) {
                volatile float prod = slope * mask[(size_t) j];  // rounded on its own, as the kernels
                float          x    = ref[(size_t) j] * scale;
                if (with_mask)
                    x = mask[(size_t) j] == -INFINITY ? -INFINITY : x + prod;
                ref[(size_t) j] = x;
                mx              = std::max(mx, x);
            }
            for (const ggml_cpu_fa_kernels * k : ks) {
                std::vector<float> s = s0;
                const float        m = k->scale_mask_max(s.data(), n, scale, with_mask ? mask.data() : nullptr, slope);
                EXPECT_EQ(0, std::memcmp(s.data(), ref.data(), (size_t) n * 4)) << "n=" << n << " mask=" << with_mask;
                EXPECT_EQ(m, mx) << "n=" << n << " mask=" << with_mask;
            }
        }
    }
}

// The Q8_0 widening of a K/V tile (ggml_cpu_fa_kernels::q8_0_to_f32): every instruction set's kernel
// gives the bits of the type's dequantizer, including zero and subnormal block scales.
TEST(CpuFlashAttnKernels, Q8_0WideningMatchesTheDequantizerBits) {
    std::vector<const ggml_cpu_fa_kernels *> ks;
#if defined(GGML_CPU_ARCH_X86_64)
    if (ggml_cpu_isa_available(GGML_CPU_ISA_AVX2))
        ks.push_back(ggml_cpu_fa_kernels_avx2());
    if (ggml_cpu_isa_available(GGML_CPU_ISA_AVX512))
        ks.push_back(ggml_cpu_fa_kernels_avx512());
#elif defined(GGML_CPU_ARCH_ARM64)
    ks.push_back(ggml_cpu_fa_kernels_neon());
#endif
    if (ks.empty())
        GTEST_SKIP() << "no SIMD kernels on this CPU";
    std::mt19937                          rng(5);
    std::uniform_real_distribution<float> u(-3.0f, 3.0f);
    for (int64_t n : {32, 64, 256}) {
        std::vector<float> f((size_t) n);
        for (auto & x : f)
            x = u(rng);
        for (int j = 0; j < 32; ++j)
            f[(size_t) j] = 0.0f;  // a zero block: scale 0
        if (n > 32)
            for (int j = 32; j < 64; ++j)
                f[(size_t) j] *= 1e-6f;  // a subnormal F16 scale
        const std::vector<uint8_t> q = encode(GGML_TYPE_Q8_0, f, n);
        std::vector<float>         ref((size_t) n);
        ASSERT_TRUE(ggml_cpu_to_float_row(GGML_TYPE_Q8_0, q.data(), ref.data(), n));
        for (const ggml_cpu_fa_kernels * k : ks) {
            std::vector<float> y((size_t) n, -1.0f);
            k->q8_0_to_f32(q.data(), y.data(), n);
            EXPECT_EQ(0, std::memcmp(y.data(), ref.data(), (size_t) n * 4)) << "n=" << n;
        }
    }
}
