// The CPU compute engine itself: scalar oracle vs SIMD kernels, identical results for any thread
// count, failure on bad row ids, the abort callback, and thread-pool reuse across many graphs.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-cpu/ggml-cpu-compute.h"
#include "ggml-cpu/ggml-cpu-impl.h"
#include "ggml-cpu/matmul-gemm.h"
#include "ggml-cpu/threadpool.h"
#include "ggml.h"
#include "test-common.h"

extern "C" void ggml_cpu_set_scalar(bool scalar);  // internal switches (ggml-cpu.cpp, ops-matmul.cpp)
extern "C" void ggml_cpu_set_mm_isa(int isa);      // -1 auto, 0 scalar, else a level rank (cpu-features.h)
extern "C" void ggml_cpu_set_auto_threads(bool enable);
int             ggml_cpu_mm_isa_level();  // ops-matmul.cpp: 0 scalar, 1 AVX2/NEON, 2 AVX-512/dotprod, 3 i8mm

using testing_util::nmse;

namespace {

// The SIMD levels of this build's family by rank (ggml_cpu_set_mm_isa; each capped at what this CPU
// has): AVX2, AVX-512 on x86-64; NEON, dotprod, i8mm on arm64 (the float kernels of the three arm64
// levels are one set, so this also checks that each level reaches it).
#if defined(GGML_CPU_ARCH_ARM64)
const std::vector<int> k_simd_ranks = {1, 2, 3};
#else
const std::vector<int> k_simd_ranks = {1, 2};
#endif

struct graph_fixture {
    ggml_context *        ctx = nullptr;
    ggml_backend_buffer_t buf = nullptr;
    ggml_cgraph *         gf  = nullptr;
    ggml_tensor *         out = nullptr;

    graph_fixture(const std::function<ggml_tensor *(ggml_context *)> & build, ggml_backend_t be, uint32_t seed = 1) {
        ggml_init_params ip{ggml_tensor_overhead() * 2048 + ggml_graph_overhead(), nullptr, true};
        ctx = ggml_init(ip);
        out = build(ctx);
        gf  = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, out);
        buf = ggml_backend_alloc_ctx_tensors(ctx, be);
        std::mt19937 rng(seed);
        for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
            if (t->op != GGML_OP_NONE || t->view_src)
                continue;
            std::vector<uint8_t> bytes(ggml_nbytes(t));
            if (t->type == GGML_TYPE_I32) {
                // ids: small values, valid for every use below unless a test overwrites them
                for (size_t i = 0; i < bytes.size() / 4; ++i) {
                    const int32_t v = (int32_t) (rng() % 2);
                    std::memcpy(bytes.data() + 4 * i, &v, 4);
                }
            } else if (t->type == GGML_TYPE_F32) {
                std::uniform_real_distribution<float> u(-1, 1);
                for (size_t i = 0; i < bytes.size() / 4; ++i) {
                    const float v = u(rng);
                    std::memcpy(bytes.data() + 4 * i, &v, 4);
                }
            } else if (t->type == GGML_TYPE_F16 || t->type == GGML_TYPE_BF16) {
                std::uniform_real_distribution<float> u(-1, 1);
                for (size_t i = 0; i < bytes.size() / 2; ++i) {
                    uint16_t h = t->type == GGML_TYPE_F16 ? ggml_fp32_to_fp16(u(rng)) : ggml_fp32_to_bf16(u(rng)).bits;
                    std::memcpy(bytes.data() + 2 * i, &h, 2);
                }
            } else {
                for (auto & b : bytes)
                    b = (uint8_t) (rng() & 0x77);  // quantized: arbitrary finite blocks
            }
            ggml_backend_tensor_set(t, bytes.data(), 0, bytes.size());
        }
    }
    ~graph_fixture() {
        ggml_backend_buffer_free(buf);
        ggml_free(ctx);
    }
    std::vector<float> result() const {
        std::vector<float> v((size_t) ggml_nelements(out));
        ggml_backend_tensor_get(out, v.data(), 0, v.size() * 4);
        return v;
    }
};

std::function<ggml_tensor *(ggml_context *)> mm_builder(ggml_type t, int64_t K, int64_t M, int64_t N, bool permuted_b) {
    return [=](ggml_context * ctx) {
        ggml_tensor * a = ggml_new_tensor_4d(ctx, t, K, M, 2, 1);
        ggml_tensor * b = permuted_b ? ggml_transpose(ctx, ggml_new_tensor_4d(ctx, GGML_TYPE_F32, N, K, 4, 1))
                                     : ggml_new_tensor_4d(ctx, GGML_TYPE_F32, K, N, 4, 1);
        return ggml_mul_mat(ctx, a, b);
    };
}

struct CpuCompute : ::testing::Test {
    ggml_backend_t be = nullptr;
    void           SetUp() override {
        // the failure tests provoke error logs on purpose
        ggml_log_set([](ggml_log_level, const char *, void *) {}, nullptr);
        ggml_cpu_set_auto_threads(false);  // these small graphs must really run on 2 and 3 threads
        be = ggml_backend_cpu_init();
        ASSERT_NE(be, nullptr);
    }
    void TearDown() override {
        ggml_cpu_set_scalar(false);
        ggml_cpu_set_mm_isa(-1);
        ggml_cpu_set_auto_threads(true);
        ggml_backend_free(be);
        ggml_log_set(nullptr, nullptr);
    }
};

}  // namespace

TEST_F(CpuCompute, MatMulScalarOracleAgreesWithSimdKernels) {
    // BF16 at N >= 16 runs the BF16 GEMM where the CPU has it (tiles of 48 rows on AVX-512, 16 on
    // arm64: M = 67 leaves partial row blocks and an odd row; N = 17, 37, 130 partial panels, N = 16
    // the threshold; K % 4 = 1, 2, 3 partial k groups, 4097 one past the last k block), everything
    // else the dot-product kernels
    for (ggml_type t : {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16})
        for (int64_t K : {1, 15, 16, 17, 258, 4097})
            for (int64_t N : {1, 3, 16, 17, 37, 64, 130})
                for (bool perm : {false, true}) {
                    graph_fixture g(mm_builder(t, K, 67, N, perm), be);
                    ggml_cpu_set_scalar(true);
                    ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS);
                    const std::vector<float> ref = g.result();
                    ggml_cpu_set_scalar(false);
                    for (int isa : k_simd_ranks) {
                        ggml_cpu_set_mm_isa(isa);
                        ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS);
                        // in the BF16 GEMM (vdpbf16ps on AVX-512, BFMMLA at arm64 i8mm), BF16 weights
                        // meet activations rounded to BF16: relative error up to 2^-9 per product, an
                        // nmse of about 2^-18 / 3 ~ 1.3e-6 for independent errors (BFMMLA's round-to-odd
                        // sums add ~2^-23 per step); every other case is exact up to sum order
#if defined(GGML_CPU_ARCH_X86_64)
                        const bool bf16_act = t == GGML_TYPE_BF16 && isa == 2 && N >= 16;
#elif defined(GGML_CPU_ARCH_ARM64)
                        const bool bf16_act = t == GGML_TYPE_BF16 && isa == 3 && N >= 16;
#else
                        const bool bf16_act = false;
#endif
                        const double tol = bf16_act ? 1e-5 : 1e-11;
                        EXPECT_LT(nmse(g.result(), ref), tol)
                            << ggml_type_name(t) << " K=" << K << " N=" << N << " perm=" << perm << " isa=" << isa;
                    }
                }
}

TEST_F(CpuCompute, FloatDecodeGemvMatchesBatchBitsAndOracle) {
    // a 2-D float weight against one activation row runs the streaming GEMV (contiguous row slices per
    // thread, prefetching): its rows must equal column 0 of the same weight times 3 rows (the tiled
    // kernels) bit for bit, for every thread count, and the scalar oracle up to sum order. M covers
    // slices of a partial 8-row group and threads left with no rows.
    auto build = [](ggml_type t, int64_t K, int64_t M, int64_t N) {
        return [=](ggml_context * ctx) {
            ggml_tensor * a = ggml_new_tensor_2d(ctx, t, K, M);  // filled first: same values for any N
            return ggml_mul_mat(ctx, a, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, K, N));
        };
    };
    for (ggml_type t : {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16})
        for (int64_t K : {1, 15, 16, 17, 33, 255, 4097})
            for (int64_t M : {1, 7, 9, 16, 17, 67, 200}) {
                graph_fixture one(build(t, K, M, 1), be), three(build(t, K, M, 3), be);
                ggml_cpu_set_scalar(true);
                ASSERT_EQ(ggml_backend_graph_compute(be, one.gf), GGML_STATUS_SUCCESS);
                const std::vector<float> ref = one.result();
                ggml_cpu_set_scalar(false);
                for (int isa : k_simd_ranks) {
                    ggml_cpu_set_mm_isa(isa);
                    ggml_backend_cpu_set_n_threads(be, 1);
                    ASSERT_EQ(ggml_backend_graph_compute(be, three.gf), GGML_STATUS_SUCCESS);
                    const std::vector<float> batch = three.result();
                    for (int nt : {1, 2, 3}) {
                        ggml_backend_cpu_set_n_threads(be, nt);
                        ASSERT_EQ(ggml_backend_graph_compute(be, one.gf), GGML_STATUS_SUCCESS);
                        const std::vector<float> r = one.result();
                        EXPECT_LT(nmse(r, ref), 1e-11) << ggml_type_name(t) << " K=" << K << " M=" << M;
                        for (int64_t m = 0; m < M; ++m)
                            ASSERT_EQ(0, std::memcmp(&r[m], &batch[m], 4))
                                << ggml_type_name(t) << " K=" << K << " M=" << M << " row " << m << " isa=" << isa
                                << " threads=" << nt;
                    }
                }
            }
}

TEST_F(CpuCompute, Bf16GemmTakesPrefillSizesOnly) {
    // guards the comparison above: the BF16 GEMM must really run for BF16 weights at N >= 16 on a
    // CPU with AVX-512 BF16 (vdpbf16ps) or at the arm64 i8mm level (BFMMLA; the level requires
    // FEAT_BF16), and never under the scalar switch (the oracle), a lower level, or for other weight
    // types (their dot-product kernels keep GEMV and GEMM in one summation order)
    bool has_bf16 = false;
    int  below    = 0;  // a cap one level under the GEMM's
#if defined(GGML_CPU_ARCH_X86_64)
    has_bf16 = __builtin_cpu_supports("avx512bf16") && ggml_cpu_mm_isa_level() == 2;
    below    = 1;
#elif defined(GGML_CPU_ARCH_ARM64)
    has_bf16 = ggml_cpu_mm_isa_level() == 3;
    below    = 2;
#endif
    for (ggml_type t : {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16})
        for (int64_t N : {3, 15, 16, 130}) {
            graph_fixture g(mm_builder(t, 100, 67, N, false), be);
            EXPECT_EQ(ggml_cpu_mm_gemm_applies(g.out), has_bf16 && t == GGML_TYPE_BF16 && N >= 16) << N;
            ggml_cpu_set_scalar(true);
            EXPECT_FALSE(ggml_cpu_mm_gemm_applies(g.out));
            ggml_cpu_set_scalar(false);
            ggml_cpu_set_mm_isa(below);
            EXPECT_FALSE(ggml_cpu_mm_gemm_applies(g.out));
            ggml_cpu_set_mm_isa(-1);
        }
}

TEST_F(CpuCompute, Bf16GemmMicroKernelMatchesReference) {
    // the micro-kernel of this CPU's BF16 GEMM (if any) against a double-precision sum of the same BF16
    // products, for every row count up to MR, every partial k group, and accumulation into c: the
    // products are exact in F32, and a chain rounds at most once per k of its groups (< K + KG times),
    // each time by under one F32 ulp (BFMMLA without FEAT_EBF16 rounds to odd, vdpbf16ps to nearest),
    // so |error| <= (K + KG) 2^-23 sum |a b|.
    // The weights past each row's K are NaN: the kernel must read them alone.
    const ggml_cpu_gemm_isa * isa = nullptr;
#if defined(GGML_CPU_ARCH_X86_64)
    if (__builtin_cpu_supports("avx512bf16") && ggml_cpu_mm_isa_level() == 2)
        isa = ggml_cpu_gemm_isa_avx512bf16();
#elif defined(GGML_CPU_ARCH_ARM64)
    if (ggml_cpu_mm_isa_level() == 3)
        isa = ggml_cpu_gemm_isa_i8mm();
#endif
    if (!isa)
        GTEST_SKIP() << "no BF16 GEMM on this CPU";
    const int                             NP = isa->NP, KG = isa->KG;
    std::mt19937                          rng(7);
    std::uniform_real_distribution<float> u(-1, 1);
    auto                                  bf = [&] { return ggml_fp32_to_bf16(u(rng)).bits; };
    auto                                  fl = [](uint16_t h) { return ggml_bf16_to_fp32(ggml_bf16_t{h}); };
    for (int64_t K : {1, 2, 3, 4, 5, 7, 8, 13, 62}) {
        const int64_t         kg = K / KG, ngroups = (K + KG - 1) / KG;
        const int             tail = (int) (K % KG);
        const size_t          lda  = (size_t) K + 3;  // 3 NaN past each row
        std::vector<uint16_t> a((size_t) isa->MR * lda, 0x7fc0), panel((size_t) (ngroups * KG * NP), 0);
        for (int r = 0; r < isa->MR; ++r)
            for (int64_t k = 0; k < K; ++k)
                a[r * lda + k] = bf();
        for (int64_t k = 0; k < K; ++k)
            for (int j = 0; j < NP; ++j)
                panel[(k / KG) * KG * NP + KG * j + k % KG] = bf();
        for (int mr = 1; mr <= isa->MR; ++mr)
            for (bool first : {true, false}) {
                std::vector<float> c((size_t) isa->MR * NP), c0(c.size());
                for (float & v : c0)
                    v = u(rng);
                c = c0;
                isa->bf16(mr, kg, tail, a.data(), lda, panel.data(), c.data(), first);
                for (int r = 0; r < mr; ++r)
                    for (int j = 0; j < NP; ++j) {
                        double ref = first ? 0.0 : c0[r * NP + j], mag = std::fabs(ref);
                        for (int64_t k = 0; k < K; ++k) {
                            const double p =
                                (double) fl(a[r * lda + k]) * fl(panel[(k / KG) * KG * NP + KG * j + k % KG]);
                            ref += p;
                            mag += std::fabs(p);
                        }
                        EXPECT_LE(std::fabs(c[r * NP + j] - ref), (K + KG) * std::ldexp(mag, -23) + 1e-30)
                            << "K=" << K << " mr=" << mr << " r=" << r << " j=" << j << " first=" << first;
                    }
                for (size_t i = (size_t) mr * NP; i < c.size(); ++i)
                    ASSERT_EQ(c[i], c0[i]) << "row past mr written: K=" << K << " mr=" << mr;
            }
    }
}

// SwiGLU on AVX-512 and NEON uses a polynomial exp (vec-exp.avx512.h, vec-exp.neon.h): within a
// few ulp of the scalar expression x / (1 + std::exp(-x)) * g everywhere, including where exp
// overflows or underflows, at odd lengths (masked or one-at-a-time tails), split by rows (prefill)
// or by columns (one row, decode).
TEST_F(CpuCompute, SwigluVectorExpStaysWithinUlpsOfTheScalar) {
    for (int64_t n : {1, 17, 250, 5632}) {
        for (int64_t rows : {1, 5}) {
            ggml_tensor * x = nullptr;
            ggml_tensor * g = nullptr;
            graph_fixture f(
                [&](ggml_context * ctx) {
                    x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, rows);
                    g = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, rows);
                    return ggml_swiglu_split(ctx, x, g);
                },
                be);
            std::vector<float> xv((size_t) (n * rows));
            std::mt19937       rng(7);
            const float        special[] = {0.0f,   -0.0f,   1e-30f, -1e-30f, 88.0f,  -88.0f, 89.5f,
                                            -89.5f, -100.0f, 100.0f, -120.0f, 120.0f, 15.9f,  -15.9f};
            for (size_t i = 0; i < xv.size(); ++i) {
                xv[i] = i < sizeof(special) / sizeof(special[0])
                            ? special[i]
                            : std::uniform_real_distribution<float>(-30.0f, 30.0f)(rng);
            }
            ggml_backend_tensor_set(x, xv.data(), 0, xv.size() * 4);
            ggml_cpu_set_scalar(true);
            ASSERT_EQ(ggml_backend_graph_compute(be, f.gf), GGML_STATUS_SUCCESS);
            const std::vector<float> ref = f.result();
            ggml_cpu_set_scalar(false);
            for (int nt : {1, 2}) {
                ggml_backend_cpu_set_n_threads(be, nt);
                ASSERT_EQ(ggml_backend_graph_compute(be, f.gf), GGML_STATUS_SUCCESS);
                const std::vector<float> r     = f.result();
                int64_t                  worst = 0;
                for (size_t i = 0; i < r.size(); ++i) {
                    ASSERT_EQ(std::isfinite(ref[i]), std::isfinite(r[i])) << "x=" << xv[i];
                    if (std::fabs(ref[i]) < 1e-35f && std::fabs(r[i]) < 1e-35f)
                        continue;  // both (near) zero: the sign of a zero product is not compared
                    ASSERT_EQ(std::signbit(ref[i]), std::signbit(r[i])) << "x=" << xv[i];
                    int32_t a, b;
                    std::memcpy(&a, &ref[i], 4);
                    std::memcpy(&b, &r[i], 4);
                    worst = std::max<int64_t>(worst, std::llabs((int64_t) a - (int64_t) b));
                }
                EXPECT_LE(worst, 4) << "n=" << n << " rows=" << rows << " threads=" << nt;
            }
        }
    }
}

// The vector exp set of this CPU (AVX-512 or NEON; none under scalar-only builds): exp_sub within a
// few ulp of std::exp across the whole float range, where the result is a subnormal, where it
// overflows to +inf and where it underflows to 0 (-inf included), at every tail length.
TEST_F(CpuCompute, VectorExpSetStaysWithinUlpsOfStdExp) {
    const ggml_cpu_vec_exp * vx = ggml_cpu_vec_exp_active();
    if (!vx)
        GTEST_SKIP() << "no vector exp set on this CPU";
    std::vector<float> x;
    for (float v = -110.0f; v <= 95.0f; v += 0.0137f)
        x.push_back(v);
    for (float v : {-INFINITY, -1e30f, -200.0f, -103.9f, -87.4f, -0.0f, 0.0f, 1e-30f, 88.72f, 88.73f, 1e30f, INFINITY})
        x.push_back(v);
    for (size_t n : {x.size(), (size_t) 1, (size_t) 2, (size_t) 3, (size_t) 5, (size_t) 7}) {
        std::vector<float> d(x.begin(), x.begin() + (long) n);
        vx->exp_sub(d.data(), (int64_t) n, 0.0f);
        int64_t worst = 0;
        for (size_t i = 0; i < n; ++i) {
            const float ref = std::exp(x[i]);
            ASSERT_EQ(std::isinf(ref), std::isinf(d[i])) << "x=" << x[i];
            ASSERT_GE(d[i], 0.0f) << "x=" << x[i];
            int32_t a, b;
            std::memcpy(&a, &ref, 4);
            std::memcpy(&b, &d[i], 4);
            const int64_t ulp = std::llabs((int64_t) a - (int64_t) b);
            ASSERT_LE(ulp, 8) << "x=" << x[i] << " exp=" << ref << " got=" << d[i];
            worst = std::max(worst, ulp);
        }
        EXPECT_LE(worst, 4) << "n=" << n;
    }
}

// SOFT_MAX with an F32 mask (-inf keys, one row masked everywhere) and ALiBi slopes: the vector row
// kernel of this CPU against the scalar oracle, at row lengths with and without vector tails.
TEST_F(CpuCompute, SoftMaxRowKernelAgreesWithTheScalarOracle) {
    for (int64_t n : {1, 3, 4, 17, 250, 1031}) {
        for (bool with_mask : {false, true}) {
            ggml_tensor * mask = nullptr;
            graph_fixture f(
                [&](ggml_context * ctx) {
                    ggml_tensor * a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, n, 5, 4);
                    mask            = with_mask ? ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, 5) : nullptr;
                    return ggml_soft_max_ext(ctx, a, mask, 3.0f, with_mask ? 8.0f : 0.0f);
                },
                be);
            if (mask) {
                std::vector<float> mv((size_t) (n * 5));
                for (int64_t r = 0; r < 5; ++r)
                    for (int64_t j = 0; j < n; ++j)
                        mv[(size_t) (r * n + j)] = r == 2 || (j % 3 == 1) ? -INFINITY : -0.1f * (float) (j % 7);
                ggml_backend_tensor_set(mask, mv.data(), 0, mv.size() * 4);
            }
            ggml_cpu_set_scalar(true);
            ASSERT_EQ(ggml_backend_graph_compute(be, f.gf), GGML_STATUS_SUCCESS);
            const std::vector<float> ref = f.result();
            ggml_cpu_set_scalar(false);
            ASSERT_EQ(ggml_backend_graph_compute(be, f.gf), GGML_STATUS_SUCCESS);
            const std::vector<float> r = f.result();
            EXPECT_LT(nmse(r, ref), 1e-11) << "n=" << n << " mask=" << with_mask;
            for (size_t i = 0; i < r.size(); ++i) {
                ASSERT_TRUE(std::isfinite(r[i])) << "n=" << n << " i=" << i;
                if (ref[i] == 0.0f) {
                    ASSERT_EQ(r[i], 0.0f) << "n=" << n << " i=" << i;  // masked keys and rows stay exactly 0
                }
            }
        }
    }
}

TEST_F(CpuCompute, RmsNormMulFusionGivesTheSameBits) {
    // the graph loop runs RMS_NORM + MUL(weight row) as one pass (not under GGML_CPU_SCALAR): both
    // results must equal the unfused nodes' bit for bit, including the norm output used elsewhere
    for (int64_t n : {1, 15, 64, 2049}) {
        ggml_tensor * norm = nullptr;
        ggml_tensor * mul  = nullptr;
        graph_fixture g(
            [&](ggml_context * ctx) {
                ggml_tensor * x = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, n, 7, 3);
                ggml_tensor * w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
                norm            = ggml_rms_norm(ctx, x, 1e-5f);
                mul             = ggml_mul(ctx, norm, w);
                return ggml_add(ctx, mul, ggml_scale(ctx, norm, 0.5f));
            },
            be);
        ASSERT_TRUE(ggml_cpu_rms_norm_mul_fusable(norm, mul));
        ggml_cpu_set_scalar(true);
        EXPECT_FALSE(ggml_cpu_rms_norm_mul_fusable(norm, mul));
        ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS);
        const std::vector<float> ref = g.result();
        ggml_cpu_set_scalar(false);
        for (int nt : {1, 2, 3}) {
            ggml_backend_cpu_set_n_threads(be, nt);
            ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS);
            const std::vector<float> r = g.result();
            EXPECT_EQ(0, std::memcmp(ref.data(), r.data(), r.size() * 4)) << "n=" << n << " threads=" << nt;
        }
    }
}

TEST_F(CpuCompute, AddRmsNormMulFusionGivesTheSameBits) {
    // the residual ADD before a norm joins the fused RMS_NORM + MUL pass: the sum (also read later,
    // as the next residual), the norm and the product must equal the unfused nodes' bits
    for (int64_t rows : {1, 5}) {
        for (int64_t n : {1, 17, 64, 2049}) {
            ggml_tensor * add  = nullptr;
            ggml_tensor * norm = nullptr;
            ggml_tensor * mul  = nullptr;
            graph_fixture g(
                [&](ggml_context * ctx) {
                    ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, rows);
                    ggml_tensor * y = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, rows);
                    ggml_tensor * w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, n);
                    add             = ggml_add(ctx, ggml_scale(ctx, x, 1.5f), y);
                    norm            = ggml_rms_norm(ctx, add, 1e-5f);
                    mul             = ggml_mul(ctx, norm, w);
                    // every result is read: the sum, the norm and the product
                    return ggml_add(ctx, ggml_add(ctx, mul, ggml_scale(ctx, norm, 0.25f)), ggml_scale(ctx, add, 0.5f));
                },
                be);
            ASSERT_TRUE(ggml_cpu_add_rms_norm_mul_fusable(add, norm, mul));
            ggml_cpu_set_scalar(true);  // no fusion at all: the reference
            ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS);
            const std::vector<float> ref = g.result();
            ggml_cpu_set_scalar(false);
            for (int nt : {1, 2, 3}) {
                ggml_backend_cpu_set_n_threads(be, nt);
                ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS);
                const std::vector<float> r = g.result();
                EXPECT_EQ(0, std::memcmp(ref.data(), r.data(), r.size() * 4))
                    << "rows=" << rows << " n=" << n << " threads=" << nt;
            }
        }
    }
}

TEST_F(CpuCompute, AddRmsNormMulFusionNeedsSameShapeRowsAndNoOverlap) {
    // a broadcast ADD, a norm that does not read the ADD, or a result partly over an input stays unfused
    ggml_init_params ip{ggml_tensor_overhead() * 16, nullptr, true};
    ggml_context *   ctx  = ggml_init(ip);
    ggml_tensor *    x    = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 3);
    ggml_tensor *    b    = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    ggml_tensor *    w    = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    ggml_tensor *    add  = ggml_add(ctx, x, b);
    ggml_tensor *    norm = ggml_rms_norm(ctx, add, 1e-5f);
    EXPECT_FALSE(ggml_cpu_add_rms_norm_mul_fusable(add, norm, ggml_mul(ctx, norm, w)));
    ggml_tensor * add2  = ggml_add(ctx, x, x);
    ggml_tensor * norm2 = ggml_rms_norm(ctx, x, 1e-5f);
    EXPECT_FALSE(ggml_cpu_add_rms_norm_mul_fusable(add2, norm2, ggml_mul(ctx, norm2, w)));
    ggml_tensor * norm3 = ggml_rms_norm(ctx, add2, 1e-5f);
    ggml_tensor * mul3  = ggml_mul(ctx, norm3, w);
    EXPECT_TRUE(ggml_cpu_add_rms_norm_mul_fusable(add2, norm3, mul3));
    // the graph allocator may place a later node's result over an input the earlier node no longer
    // needs: fused, one thread would overwrite rows another still reads. Exactly in place is fine.
    std::vector<float> mem(64 * 3 * 6);
    auto               at = [&](ggml_tensor * t, size_t row) { t->data = mem.data() + row * 64; };
    at(x, 0);
    at(w, 3);
    at(add2, 6);
    at(norm3, 9);
    at(mul3, 12);
    EXPECT_TRUE(ggml_cpu_add_rms_norm_mul_fusable(add2, norm3, mul3));
    at(mul3, 1);  // one row into x
    EXPECT_FALSE(ggml_cpu_add_rms_norm_mul_fusable(add2, norm3, mul3));
    at(mul3, 0);  // exactly over x: each element is read before it is written, in one thread
    EXPECT_TRUE(ggml_cpu_add_rms_norm_mul_fusable(add2, norm3, mul3));
    at(mul3, 10);  // one row into the norm's result
    EXPECT_FALSE(ggml_cpu_add_rms_norm_mul_fusable(add2, norm3, mul3));
    EXPECT_FALSE(ggml_cpu_rms_norm_mul_fusable(norm3, mul3));
    at(mul3, 7);  // one row into the norm's input
    EXPECT_FALSE(ggml_cpu_rms_norm_mul_fusable(norm3, mul3));
    ggml_free(ctx);
}

TEST_F(CpuCompute, IndependentLightNodesShareABarrier) {
    // a decoder layer's tail: the residual ADD + norm + MUL fused, then two products of the normed
    // row (one barrier), then two independent elementwise nodes (one barrier for both)
    ggml_tensor * x = nullptr;
    graph_fixture g(
        [&](ggml_context * ctx) {
            x               = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 256, 1);
            ggml_tensor * r = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 256, 1);
            ggml_tensor * w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 256);
            ggml_tensor * h = ggml_mul(ctx, ggml_rms_norm(ctx, ggml_add(ctx, x, r), 1e-5f), w);
            ggml_tensor * a = ggml_mul_mat(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 256, 64), h);
            ggml_tensor * b = ggml_mul_mat(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_Q8_0, 256, 64), h);
            ggml_tensor * p = ggml_mul(ctx, a, b);
            ggml_tensor * q = ggml_add(ctx, a, b);  // independent of p
            return ggml_add(ctx, p, q);
        },
        be);
    // add+norm+mul | a, b | a*b, a+b | add
    EXPECT_EQ(ggml_cpu_graph_barriers(g.gf), 4);
    std::vector<float> first;
    for (int nt : {1, 2, 3}) {
        ggml_backend_cpu_set_n_threads(be, nt);
        for (int rep = 0; rep < 20; ++rep) {  // repeated: a missing barrier shows as a changing result
            ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS);
            const std::vector<float> r = g.result();
            if (first.empty())
                first = r;
            ASSERT_EQ(0, std::memcmp(first.data(), r.data(), r.size() * 4)) << nt << " threads";
        }
    }
}

TEST_F(CpuCompute, F16RowConversionMatchesTheReference) {
    // F32 -> F16 rows (KV cache writes) use F16C where present: same bits as ggml_fp32_to_fp16 for
    // every non-NaN value: each half, the float just below / above each midpoint between halves,
    // the exact midpoints (ties to even), subnormals, overflow to inf; NaN stays NaN
    std::vector<float> x;
    for (uint32_t h = 0; h < 0x7c00; ++h) {
        const float a = ggml_fp16_to_fp32((ggml_fp16_t) h);
        const float b = ggml_fp16_to_fp32((ggml_fp16_t) (h + 1));
        const float m = a + (b - a) * 0.5f;
        for (float v : {a, m, std::nextafter(m, a), std::nextafter(m, b)}) {
            x.push_back(v);
            x.push_back(-v);
        }
    }
    for (float v : {65504.0f, 65519.99f, 65520.0f, 1e9f, INFINITY, 1e-9f, 3e-8f, 0.0f})
        for (float s : {1.0f, -1.0f})
            x.push_back(v * s);
    x.push_back(std::nanf(""));
    std::vector<uint16_t> y(x.size());
    ASSERT_TRUE(ggml_cpu_from_float_row(GGML_TYPE_F16, x.data(), y.data(), (int64_t) x.size()));
    for (size_t i = 0; i + 1 < x.size(); ++i)
        ASSERT_EQ(y[i], ggml_fp32_to_fp16(x[i])) << "x=" << x[i];
    EXPECT_TRUE(std::isnan(ggml_fp16_to_fp32(y.back())));
}

TEST_F(CpuCompute, ThreadCountsGiveIdenticalResults) {
    std::vector<std::pair<std::string, std::function<ggml_tensor *(ggml_context *)>>> graphs = {
        {"mul_mat f32", mm_builder(GGML_TYPE_F32, 300, 70, 40, false)},
        {"mul_mat f16", mm_builder(GGML_TYPE_F16, 300, 70, 1, false)},
        {"mul_mat bf16 prefill", mm_builder(GGML_TYPE_BF16, 301, 101, 70, false)},
        {"mul_mat bf16 permuted", mm_builder(GGML_TYPE_BF16, 64, 33, 9, true)},
        {"mul_mat q8_0", mm_builder(GGML_TYPE_Q8_0, 256, 70, 40, false)},
        {"mul_mat q4_K", mm_builder(GGML_TYPE_Q4_K, 256, 70, 3, false)},
        {"mul_mat q4_0 decode", mm_builder(GGML_TYPE_Q4_0, 512, 70, 1, false)},
        {"mul_mat q8_0 decode", mm_builder(GGML_TYPE_Q8_0, 1024, 77, 1, false)},
        {"mul_mat q4_0 decode permuted", mm_builder(GGML_TYPE_Q4_0, 512, 70, 1, true)},
        // decode products of one row share a barrier (Q/K/V): the consumer must see all three
        {"q/k/v decode, one barrier",
         [](ggml_context * ctx) {
             ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 512, 1);
             ggml_tensor * q = ggml_mul_mat(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 512, 70), x);
             ggml_tensor * k = ggml_mul_mat(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 512, 70), x);
             ggml_tensor * v = ggml_mul_mat(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, 512, 70), x);
             return ggml_add(ctx, ggml_mul(ctx, q, k), v);
         }},
        {"f16 gate/up decode, one barrier",
         [](ggml_context * ctx) {
             ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 300, 1);
             ggml_tensor * g = ggml_mul_mat(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 300, 77), x);
             ggml_tensor * u = ggml_mul_mat(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 300, 77), x);
             return ggml_mul(ctx, g, u);
         }},
        // float decode GEMV: one slice of rows per thread, the last one shorter
        {"f16 decode gemv, odd rows",
         [](ggml_context * ctx) {
             ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 256, 1);
             return ggml_mul_mat(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 256, 1003), x);
         }},
        {"bf16 decode gemv, odd rows",
         [](ggml_context * ctx) {
             ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 130, 1);
             return ggml_mul_mat(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_BF16, 130, 77), x);
         }},
        // one row: the threads split the columns of the gated activation
        {"swiglu decode row",
         [](ggml_context * ctx) {
             ggml_tensor * g = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5632 + 7, 1);
             ggml_tensor * u = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 5632 + 7, 1);
             return ggml_swiglu_split(ctx, g, u);
         }},
        {"silu decode row",
         [](ggml_context * ctx) { return ggml_silu(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 37, 1)); }},
        // independent light nodes share one barrier (K rope, K and V cache writes, Q rope): the
        // consumer must see all of them, and no node may overwrite what another of its run reads
        {"decode rope and cache writes, shared barriers",
         [](ggml_context * ctx) {
             ggml_tensor * q   = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 64, 8, 1);
             ggml_tensor * k   = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 64, 2, 1);
             ggml_tensor * v   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 128, 1);
             ggml_tensor * pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1);
             ggml_tensor * idx = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1);
             ggml_tensor * kc  = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 128, 4);
             ggml_tensor * vc  = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 128, 4);
             ggml_tensor * kr = ggml_rope_ext(ctx, k, pos, nullptr, 64, 0, 512, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
             ggml_tensor * ks = ggml_set_rows(ctx, kc, ggml_reshape_2d(ctx, kr, 128, 1), idx);
             ggml_tensor * vs = ggml_set_rows(ctx, vc, v, idx);
             ggml_tensor * qr = ggml_rope_ext(ctx, q, pos, nullptr, 64, 0, 512, 10000.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f);
             ggml_tensor * kall = ggml_cpy(ctx, ks, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 128, 4));
             ggml_tensor * vall = ggml_cpy(ctx, vs, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 128, 4));
             return ggml_add(ctx, ggml_add(ctx, kall, vall), ggml_reshape_2d(ctx, qr, 128, 4));
         }},
        {"rms_norm+softmax",
         [](ggml_context * ctx) {
             ggml_tensor * a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 200, 17, 3);
             return ggml_soft_max_ext(ctx, ggml_rms_norm(ctx, a, 1e-5f), nullptr, 0.5f, 0.0f);
         }},
        {"flash_attn",
         [](ggml_context * ctx) {
             return ggml_flash_attn_ext(ctx, ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 64, 5, 4),
                                        ggml_new_tensor_3d(ctx, GGML_TYPE_F16, 64, 40, 2),
                                        ggml_new_tensor_3d(ctx, GGML_TYPE_F16, 64, 40, 2), nullptr, 0.125f, 0.0f, 0.0f);
         }},
    };
    for (auto & [name, build] : graphs) {
        graph_fixture      g(build, be);
        std::vector<float> first;
        for (int nt : {1, 2, 3}) {
            ggml_backend_cpu_set_n_threads(be, nt);
            ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS) << name;
            const std::vector<float> r = g.result();
            if (first.empty()) {
                first = r;
                continue;
            }
            EXPECT_EQ(0, std::memcmp(first.data(), r.data(), r.size() * 4)) << name << " with " << nt << " threads";
        }
    }
}

TEST_F(CpuCompute, OutOfRangeRowIdsFailTheCompute) {
    for (int which = 0; which < 4; ++which) {
        graph_fixture g(
            [which](ggml_context * ctx) -> ggml_tensor * {
                ggml_tensor * ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 3);
                ggml_set_name(ids, "ids");
                if (which == 0)
                    return ggml_get_rows(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 4), ids);
                if (which == 1 || which == 3) {
                    const int64_t k = which == 1 ? 8 : 1;  // 1: the one-element rows of the V cache write
                    return ggml_set_rows(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_F16, k, 4),
                                         ggml_new_tensor_2d(ctx, GGML_TYPE_F32, k, 3), ids);
                }
                ggml_tensor * eids = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 3, 1);
                ggml_set_name(eids, "ids");
                return ggml_mul_mat_id(ctx, ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 16, 5, 4),
                                       ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 16, 1, 1), eids);
            },
            be);
        ASSERT_NE(g.out, nullptr);
        ggml_tensor * ids = ggml_graph_get_tensor(g.gf, "ids");
        ASSERT_NE(ids, nullptr);
        for (int32_t bad : {4, -1, 1 << 30}) {
            const int32_t v[3] = {0, bad, 1};
            ggml_backend_tensor_set(ids, v, 0, sizeof(v));
            for (int nt : {1, 2}) {
                ggml_backend_cpu_set_n_threads(be, nt);
                EXPECT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_FAILED) << "op " << which << " id " << bad;
            }
        }
        const int32_t ok[3] = {0, 3, 1};
        ggml_backend_tensor_set(ids, ok, 0, sizeof(ok));
        EXPECT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS) << "op " << which;
    }
}

TEST_F(CpuCompute, AbortCallbackStopsBetweenNodes) {
    graph_fixture g(
        [](ggml_context * ctx) {
            ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
            for (int i = 0; i < 50; ++i)
                x = ggml_scale(ctx, x, 1.0f);
            return x;
        },
        be);
    struct counter {
        int calls   = 0;
        int stop_at = 0;
    } c;
    c.stop_at = 5;
    ggml_backend_cpu_set_abort_callback(
        be,
        [](void * d) {
            auto * cc = (counter *) d;
            return ++cc->calls >= cc->stop_at;
        },
        &c);
    EXPECT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_ABORTED);
    EXPECT_EQ(c.calls, 5);
    c = counter{0, 1000};
    EXPECT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS);
    ggml_backend_cpu_set_abort_callback(be, nullptr, nullptr);
}

TEST_F(CpuCompute, AbortWithMoreThreadsThanCoresNeverHangs) {
    // Thread 0 may call the abort callback for node i + 1 while a descheduled thread is still
    // deciding whether to stop after node i; all must still leave at the same barrier (this hung
    // under ThreadSanitizer before the stop decision was tied to the node index).
    graph_fixture g(
        [](ggml_context * ctx) {
            ggml_tensor * x = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
            for (int i = 0; i < 40; ++i)
                x = ggml_scale(ctx, x, 1.0f);
            return x;
        },
        be);
    struct counter {
        int calls   = 0;
        int stop_at = 0;
    } c;
    ggml_cpu_set_auto_threads(false);  // the tiny graph must really run on 8 threads
    ggml_backend_cpu_set_n_threads(be, 8);
    ggml_backend_cpu_set_abort_callback(
        be,
        [](void * d) {
            auto * cc = (counter *) d;
            return ++cc->calls >= cc->stop_at;
        },
        &c);
    for (int rep = 0; rep < 300; ++rep) {
        c = counter{0, 1 + rep % 30};
        EXPECT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_ABORTED) << rep;
        EXPECT_EQ(c.calls, c.stop_at) << rep;
    }
    ggml_backend_cpu_set_abort_callback(be, nullptr, nullptr);
    ggml_cpu_set_auto_threads(true);
}

TEST_F(CpuCompute, PoolSurvivesManyGraphsAndThreadChanges) {
    // a decode-sized chain of small nodes, recomputed with varying thread counts (incl. growing the pool)
    graph_fixture g(
        [](ggml_context * ctx) {
            ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 2);
            ggml_tensor * w = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 64);
            for (int i = 0; i < 100; ++i)
                x = ggml_rms_norm(ctx, ggml_add(ctx, ggml_mul_mat(ctx, w, x), x), 1e-5f);
            return x;
        },
        be);
    ggml_backend_cpu_set_n_threads(be, 1);
    ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS);
    const std::vector<float> ref = g.result();
    for (int iter = 0; iter < 40; ++iter) {
        ggml_backend_cpu_set_n_threads(be, 1 + iter % 4);
        ASSERT_EQ(ggml_backend_graph_compute(be, g.gf), GGML_STATUS_SUCCESS);
        if (iter % 8 == 0) {
            EXPECT_EQ(0, std::memcmp(ref.data(), g.result().data(), ref.size() * 4)) << iter;
        }
    }
}

TEST(CpuComputeDirect, ThreadPoolApiWithoutBackend) {
    ggml_cpu_threadpool * tp = ggml_cpu_threadpool_new(2);
    ASSERT_NE(tp, nullptr);
    EXPECT_EQ(ggml_cpu_graph_compute(tp, nullptr, 2, nullptr, nullptr), GGML_STATUS_FAILED);
    ggml_cpu_threadpool_free(tp);
    ggml_cpu_threadpool_free(nullptr);
}

// Work items claimed first come, first served (ggml_cpu_claim): a thread that arrives late finds the
// items taken by the one that was there (a static split would leave it half), every item goes to
// exactly one thread, and the counter starts from 0 again after every barrier and in every job.
TEST(CpuComputeDirect, ClaimedItemsGoOnceEachAndRestartAfterBarriers) {
    constexpr int64_t N1 = 64, N2 = 9;
    struct state {
        ggml_cpu_threadpool * tp;
        std::atomic<int>      hits1[N1];
        std::atomic<int>      hits2[N2];
        std::atomic<int>      by_thread[2];
        std::atomic<bool>     first_done{false};
        bool                  hold_back_1 = true;
    };
    ggml_cpu_threadpool pool(2);
    ASSERT_EQ(pool.size(), 2);
    for (int job = 0; job < 3; ++job) {
        state st;
        st.tp          = &pool;
        st.hold_back_1 = job < 2;  // the third job lets both threads race
        for (auto & h : st.hits1)
            h = 0;
        for (auto & h : st.hits2)
            h = 0;
        st.by_thread[0] = st.by_thread[1] = 0;
        pool.run(
            [](int ith, int nth, void * arg) {
                auto * s = (state *) arg;
                if (ith == 1 && s->hold_back_1)
                    while (!s->first_done.load())  // thread 1 is "slow": it starts after thread 0 ran out
                        ggml_cpu_spin_pause();
                for (int64_t t = s->tp->claim(); t < N1; t = s->tp->claim()) {
                    s->hits1[t]++;
                    s->by_thread[ith]++;
                }
                if (ith == 0)
                    s->first_done = true;
                s->tp->barrier(nth);
                for (int64_t t = s->tp->claim(); t < N2; t = s->tp->claim())
                    s->hits2[t]++;
            },
            &st, 2);
        for (int64_t t = 0; t < N1; ++t) {
            EXPECT_EQ(st.hits1[t].load(), 1) << "job " << job << " item " << t;
        }
        for (int64_t t = 0; t < N2; ++t) {
            EXPECT_EQ(st.hits2[t].load(), 1) << "job " << job << " item " << t << " after the barrier";
        }
        EXPECT_EQ(st.by_thread[0] + st.by_thread[1], N1);
        if (st.hold_back_1) {
            EXPECT_EQ(st.by_thread[0].load(), N1) << "the thread that was there should take every item";
        }
    }
    // one thread (run() calls the job directly): the same restarts
    std::atomic<int> seen{0};
    struct one {
        ggml_cpu_threadpool * tp;
        std::atomic<int> *    seen;
    } o{&pool, &seen};
    for (int job = 0; job < 2; ++job) {
        pool.run(
            [](int, int nth, void * arg) {
                auto * s = (one *) arg;
                for (int round = 0; round < 2; ++round) {
                    int64_t n = 0;
                    for (int64_t t = s->tp->claim(); t < 5; t = s->tp->claim()) {
                        EXPECT_EQ(t, n++);
                    }
                    *s->seen += (int) n;
                    s->tp->barrier(nth);
                }
            },
            &o, 1);
    }
    EXPECT_EQ(seen.load(), 20);
}

// The thread count the engine picks for a graph (auto threads): a small model's step stays on one
// thread even when the graph writes into a large KV cache, a big matmul takes every thread offered.
TEST(CpuComputeDirect, GraphThreadsFollowTheWorkNotTheCacheSize) {
    ggml_init_params ip  = {256 * ggml_tensor_overhead() + 2 * ggml_graph_overhead(), nullptr, true};
    ggml_context *   ctx = ggml_init(ip);
    ASSERT_NE(ctx, nullptr);

    // a decode step of a tiny model: 16 tokens through 32 layers of 64-wide matmuls, each layer
    // storing its 16 rows into a 65536-cell cache (the write's work is the rows, not the cache)
    ggml_cgraph * small = ggml_new_graph(ctx);
    ASSERT_NE(small, nullptr);
    ggml_tensor * x   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 16);
    ggml_tensor * w   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 64);
    ggml_tensor * ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I64, 16);
    for (int il = 0; il < 32; ++il) {
        ggml_tensor * cache = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 64, 65536);
        x                   = ggml_mul_mat(ctx, w, x);
        ggml_build_forward_expand(small, ggml_set_rows(ctx, cache, x, ids));
    }
    ggml_build_forward_expand(small, x);
    EXPECT_EQ(ggml_cpu_graph_threads(small, 4), 1);
    EXPECT_EQ(ggml_cpu_graph_threads(small, 2), 1);

    // one token through a 4096 x 4096 matrix: ~16M multiply-adds in one node
    ggml_cgraph * big = ggml_new_graph(ctx);
    ASSERT_NE(big, nullptr);
    ggml_tensor * wb = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4096, 4096);
    ggml_tensor * xb = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4096, 1);
    ggml_build_forward_expand(big, ggml_mul_mat(ctx, wb, xb));
    EXPECT_EQ(ggml_cpu_graph_threads(big, 4), 4);
    EXPECT_EQ(ggml_cpu_graph_threads(big, 2), 2);
    EXPECT_EQ(ggml_cpu_graph_threads(big, 1), 1);
    EXPECT_EQ(ggml_cpu_graph_threads(nullptr, 4), 1);
    ggml_free(ctx);
}
