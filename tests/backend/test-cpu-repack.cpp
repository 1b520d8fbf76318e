// CPU_REPACK: Q4_0 / Q8_0 / Q4_K / Q6_K weights stored interleaved. get_tensor returns the GGUF bytes that went
// in; mul_mat on a packed weight equals the plain path (same int8 activations, same integer block
// sums, only the float accumulation order differs) and is bit-identical across instruction sets and
// thread counts; ops other than mul_mat refuse packed tensors.
#include <gtest/gtest.h>

#if defined(GGML_CPU_ARCH_X86_64)
#    include <cpuid.h>
#endif

#include <cstring>
#include <random>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-cpu/cpu-features.h"
#include "ggml-cpu/cpu-repack.h"
#include "ggml.h"
#include "test-common.h"

// -1 auto, else a rank: 0 scalar, 1 AVX2 / NEON, 2 AVX-512 / dotprod, 3 i8mm (ops-matmul.cpp)
extern "C" void ggml_cpu_set_mm_isa(int isa);
extern "C" void ggml_cpu_set_auto_threads(bool enable);
#if defined(GGML_CPU_ARCH_X86_64)
extern "C" void ggml_cpu_repack_set_avxvnni(int enable);  // cpu-repack.avxvnni.cpp
#endif

using testing_util::nmse;

namespace {

// The kernel sets compared with the scalar reference (each level falls back to the best one the CPU has).
// x86-64: plain AVX2, AVX2 + AVX-VNNI (the same as plain AVX2 on a CPU without AVX-VNNI) and AVX-512
// VNNI; arm64: NEON, dotprod (SDOT) and i8mm (USDOT for Q8_0; SMMLA / USMMLA at 4 activation columns: N = 7,
// 64 and 129 run them, N = 1, 2, 3 and the tails of 7 and 129 the SDOT kernels).
struct isa_case {
    int level;    // ggml_cpu_set_mm_isa
    int avxvnni;  // ggml_cpu_repack_set_avxvnni (x86-64 only)
};
#if defined(GGML_CPU_ARCH_X86_64)
const isa_case kIsas[] = {{1, 0}, {1, 1}, {2, 1}};
#else
const isa_case kIsas[] = {{1, 1}, {2, 1}, {3, 1}};
#endif

void set_avxvnni(int enable) {
#if defined(GGML_CPU_ARCH_X86_64)
    ggml_cpu_repack_set_avxvnni(enable);
#else
    (void) enable;
#endif
}

void select_isa(isa_case c) {
    ggml_cpu_set_mm_isa(c.level);
    set_avxvnni(c.avxvnni);
}

// Random GGUF bytes with finite scales (the full quant range, including Q8_0's -128).
std::vector<uint8_t> random_weights(ggml_type t, int64_t K, int64_t M, uint32_t seed) {
    std::mt19937                          rng(seed);
    std::uniform_real_distribution<float> u(0.001f, 0.05f);
    const size_t                          bs = ggml_type_size(t);
    std::vector<uint8_t>                  v(ggml_row_size(t, K) * M);
    for (size_t off = 0; off < v.size(); off += bs) {
        for (size_t i = 0; i < bs; ++i)
            v[off + i] = (uint8_t) rng();
        // the fp16 scales: d first (Q6_K: last), Q4_K's dmin after d
        const ggml_fp16_t d = ggml_fp32_to_fp16(rng() % 2 ? u(rng) : -u(rng));
        std::memcpy(&v[off + (t == GGML_TYPE_Q6_K ? bs - 2 : 0)], &d, 2);
        if (t == GGML_TYPE_Q4_K) {
            const ggml_fp16_t dmin = ggml_fp32_to_fp16(u(rng));
            std::memcpy(&v[off + 2], &dmin, 2);
        }
    }
    return v;
}

struct weight {
    ggml_context *        ctx = nullptr;
    ggml_backend_buffer_t buf = nullptr;
    ggml_tensor *         w   = nullptr;

    weight(ggml_backend_buffer_type_t buft, ggml_type t, int64_t K, int64_t M, const std::vector<uint8_t> & bytes) {
        ggml_init_params ip{ggml_tensor_overhead() * 4, nullptr, true};
        ctx = ggml_init(ip);
        w   = ggml_new_tensor_2d(ctx, t, K, M);
        buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft);
        ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        ggml_backend_tensor_set(w, bytes.data(), 0, bytes.size());
    }
    ~weight() {
        ggml_backend_buffer_free(buf);
        ggml_free(ctx);
    }
};

// Row lengths for the tests: the K-quants take multiples of their 256-value super-block.
std::vector<int64_t> ks(ggml_type t, std::vector<int64_t> blocks32, std::vector<int64_t> blocks256) {
    return t == GGML_TYPE_Q4_K || t == GGML_TYPE_Q6_K ? blocks256 : blocks32;
}

// y = w x for N random activation rows, on the CPU backend with n_threads.
std::vector<float> mul_mat(ggml_backend_t be, ggml_tensor * w, int64_t N, int n_threads) {
    ggml_init_params ip{ggml_tensor_overhead() * 8 + ggml_graph_overhead(), nullptr, true};
    ggml_context *   ctx = ggml_init(ip);
    ggml_tensor *    x   = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, w->ne[0], N);
    ggml_tensor *    y   = ggml_mul_mat(ctx, w, x);
    ggml_cgraph *    gf  = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, y);
    ggml_backend_buffer_t           buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    std::mt19937                    rng(7);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float>              xv((size_t) ggml_nelements(x));
    for (float & f : xv)
        f = nd(rng);
    ggml_backend_tensor_set(x, xv.data(), 0, xv.size() * 4);
    ggml_backend_cpu_set_n_threads(be, n_threads);
    EXPECT_EQ(ggml_backend_graph_compute(be, gf), GGML_STATUS_SUCCESS);
    std::vector<float> out((size_t) ggml_nelements(y));
    ggml_backend_tensor_get(y, out.data(), 0, out.size() * 4);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    return out;
}

class CpuRepack : public ::testing::TestWithParam<ggml_type> {
protected:
    void SetUp() override {
        be = ggml_backend_cpu_init();
        ASSERT_NE(be, nullptr);
        ggml_cpu_set_auto_threads(false);
    }
    void TearDown() override {
        ggml_cpu_set_mm_isa(-1);
        set_avxvnni(1);
        ggml_cpu_set_auto_threads(true);
        ggml_backend_free(be);
    }
    ggml_backend_t be = nullptr;
};

TEST_P(CpuRepack, GetTensorReturnsTheGgufBytes) {
    const ggml_type t = GetParam();
    for (int64_t K : ks(t, {32, 96, 2048}, {256, 768, 2048})) {
        const int64_t              M     = 48;
        const std::vector<uint8_t> bytes = random_weights(t, K, M, (uint32_t) K);
        weight                     pw(ggml_backend_cpu_repack_buffer_type(), t, K, M, bytes);
        std::vector<uint8_t>       back(bytes.size());
        ggml_backend_tensor_get(pw.w, back.data(), 0, back.size());
        EXPECT_EQ(back, bytes) << "K=" << K;
        // the stored layout is not the GGUF one (the test would pass trivially otherwise)
        EXPECT_NE(std::memcmp(pw.w->data, bytes.data(), bytes.size()), 0);
        // partial reads and writes see GGUF offsets
        const size_t         off = ggml_row_size(t, K) * 17 + 3, n = ggml_row_size(t, K) + 5;
        std::vector<uint8_t> part(n);
        ggml_backend_tensor_get(pw.w, part.data(), off, n);
        EXPECT_EQ(0, std::memcmp(part.data(), bytes.data() + off, n));
        std::vector<uint8_t> patch(n, 0x11), expect = bytes;
        std::memcpy(expect.data() + off, patch.data(), n);
        ggml_backend_tensor_set(pw.w, patch.data(), off, n);
        ggml_backend_tensor_get(pw.w, back.data(), 0, back.size());
        EXPECT_EQ(back, expect);
    }
}

TEST_P(CpuRepack, MulMatEqualsThePlainPathAtOddSizes) {
    const ggml_type t = GetParam();
    // 1, 13 (a run of 8 blocks in the SMMLA kernels, then 5) and 32 blocks; 1 and 5 super-blocks
    for (int64_t K : ks(t, {32, 416, 1024}, {256, 1280})) {
        for (int64_t M : {16, 48, 272}) {
            const std::vector<uint8_t> bytes = random_weights(t, K, M, (uint32_t) (K * 1000 + M));
            weight                     plain(ggml_backend_cpu_buffer_type(), t, K, M, bytes);
            weight                     packed(ggml_backend_cpu_repack_buffer_type(), t, K, M, bytes);
            for (int64_t N : {1, 2, 3, 7, 64, 129}) {
                ggml_cpu_set_mm_isa(0);
                const std::vector<float> ref  = mul_mat(be, packed.w, N, 1);  // the scalar reference
                const std::vector<float> base = mul_mat(be, plain.w, N, 2);
                EXPECT_LT(nmse(ref, base), 1e-12) << "K=" << K << " M=" << M << " N=" << N;
                for (const isa_case isa : kIsas) {
                    select_isa(isa);
                    for (int nth : {1, 2, 3}) {
                        // identical bits: every kernel sums each block exactly and accumulates in order
                        const std::vector<float> got = mul_mat(be, packed.w, N, nth);
                        ASSERT_EQ(0, std::memcmp(got.data(), ref.data(), ref.size() * 4))
                            << "K=" << K << " M=" << M << " N=" << N << " isa=" << isa.level
                            << " avxvnni=" << isa.avxvnni << " nth=" << nth;
                    }
                }
            }
        }
    }
}

// Model-sized weights (over 2 MiB: the buffer takes the huge-page path, starting on a 2 MiB boundary)
// round-trip and give the scalar reference's bits on every ISA at the decode shape and small batches
// (N = 70: two column tiles per group, so the runs of tiles the threads claim cross groups).
TEST_P(CpuRepack, LargeWeightsOnHugePageAlignedBuffers) {
    const ggml_type            t = GetParam();
    const int64_t              K = 2048, M = 2064;  // 129 groups: an odd split over 2 and 3 threads
    const std::vector<uint8_t> bytes = random_weights(t, K, M, 99u);
    ASSERT_GE(bytes.size(), (size_t) 2 << 20);
    weight packed(ggml_backend_cpu_repack_buffer_type(), t, K, M, bytes);
    EXPECT_EQ(0u, (uintptr_t) ggml_backend_buffer_get_base(packed.buf) % ((uintptr_t) 2 << 20));
    std::vector<uint8_t> back(bytes.size());
    ggml_backend_tensor_get(packed.w, back.data(), 0, back.size());
    EXPECT_EQ(back, bytes);
    weight plain(ggml_backend_cpu_buffer_type(), t, K, M, bytes);  // the unpacked path agrees too
    ggml_cpu_set_mm_isa(0);
    EXPECT_LT(nmse(mul_mat(be, packed.w, 1, 1), mul_mat(be, plain.w, 1, 2)), 1e-12);
    for (int64_t N : {1, 5, 70}) {
        ggml_cpu_set_mm_isa(0);
        const std::vector<float> ref = mul_mat(be, packed.w, N, 1);
        for (const isa_case isa : kIsas) {
            select_isa(isa);
            for (int nth : {1, 2, 3}) {
                const std::vector<float> got = mul_mat(be, packed.w, N, nth);
                ASSERT_EQ(0, std::memcmp(got.data(), ref.data(), ref.size() * 4))
                    << "N=" << N << " isa=" << isa.level << " avxvnni=" << isa.avxvnni << " nth=" << nth;
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Types, CpuRepack,
                         ::testing::Values(GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K),
                         [](const ::testing::TestParamInfo<ggml_type> & i) { return ggml_type_name(i.param); });

// The AVX2 level runs the AVX-VNNI kernels where the CPU has them and the switch is on, the plain AVX2
// kernels otherwise (so both stay reachable, and the bit-identity tests above cover both).
TEST(CpuRepackDispatch, AvxVnniAtTheAvx2LevelWhereTheCpuHasIt) {
#if defined(GGML_CPU_ARCH_X86_64)
    if (!ggml_cpu_isa_available(GGML_CPU_ISA_AVX2))
        GTEST_SKIP() << "no AVX2";
    unsigned   a = 0, b = 0, c = 0, d = 0;  // CPUID leaf 7 sub-leaf 1, EAX bit 4: AVX-VNNI
    const bool has = __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a >> 4 & 1) != 0;
    ggml_cpu_set_mm_isa(1);
    ggml_cpu_repack_set_avxvnni(1);
    EXPECT_EQ(ggml_repack_kernels_avxvnni() != nullptr, has);
    EXPECT_EQ(ggml_repack_kernels_active(), has ? ggml_repack_kernels_avxvnni() : ggml_repack_kernels_avx2());
    ggml_cpu_repack_set_avxvnni(0);
    EXPECT_EQ(ggml_repack_kernels_avxvnni(), nullptr);
    EXPECT_EQ(ggml_repack_kernels_active(), ggml_repack_kernels_avx2());
    ggml_cpu_repack_set_avxvnni(1);
    ggml_cpu_set_mm_isa(-1);
#else
    GTEST_SKIP() << "x86 only";
#endif
}

// arm64: each rank selects that level's own kernel set where the CPU has the level (so the bit-identity
// tests above run the NEON, SDOT and USDOT kernels, not the scalar reference), the next lower one
// otherwise.
TEST(CpuRepackDispatch, ArmLevelsSelectTheirOwnKernels) {
#if defined(GGML_CPU_ARCH_ARM64)
    const ggml_repack_kernels * sets[] = {ggml_repack_kernels_scalar(), ggml_repack_kernels_neon(),
                                          ggml_repack_kernels_dotprod(), ggml_repack_kernels_i8mm()};
    const ggml_cpu_isa isas[] = {GGML_CPU_ISA_SCALAR, GGML_CPU_ISA_NEON, GGML_CPU_ISA_DOTPROD, GGML_CPU_ISA_I8MM};
    for (int rank = 0; rank < 4; ++rank) {
        int expect = rank;
        while (expect > 0 && !ggml_cpu_isa_available(isas[expect]))
            --expect;
        ggml_cpu_set_mm_isa(rank);
        EXPECT_EQ(ggml_repack_kernels_active(), sets[expect]) << "rank " << rank;
        if (rank > 0) {  // every type has an ARM kernel at every level
            EXPECT_NE(sets[rank]->q4_0, ggml_repack_kernels_scalar()->q4_0);
            EXPECT_NE(sets[rank]->q8_0, ggml_repack_kernels_scalar()->q8_0);
            EXPECT_NE(sets[rank]->q4_K, ggml_repack_kernels_scalar()->q4_K);
            EXPECT_NE(sets[rank]->q6_K, ggml_repack_kernels_scalar()->q6_K);
        }
    }
    EXPECT_TRUE(ggml_cpu_isa_available(GGML_CPU_ISA_NEON));  // every arm64 CPU
    ggml_cpu_set_mm_isa(-1);
#else
    GTEST_SKIP() << "arm64 only";
#endif
}

TEST(CpuRepackDevice, OffersTheBufferTypeAndRefusesOtherOpsOnPackedWeights) {
    ggml_backend_reg_t reg = ggml_backend_cpu_reg();
    ggml_backend_dev_t dev = ggml_backend_reg_dev_get(reg, 0);
    auto               get =
        (ggml_backend_dev_get_extra_bufts_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_dev_get_extra_bufts");
    ASSERT_NE(get, nullptr);
    ggml_backend_buffer_type_t * list = get(dev);
    ASSERT_NE(list, nullptr);
    if (ggml_repack_offered()) {
        EXPECT_EQ(list[0], ggml_backend_cpu_repack_buffer_type());
        EXPECT_EQ(list[1], nullptr);
    } else {  // the arm64 NEON level (cpu-repack.h)
        EXPECT_EQ(list[0], nullptr);
    }
#if defined(GGML_CPU_ARCH_ARM64)
    // offered from SDOT up, not at plain NEON (unless GGML_CPU_REPACK_NEON=1, which ctest does not set)
    ggml_cpu_set_mm_isa(1);  // rank 1: NEON
    EXPECT_EQ(get(dev)[0], nullptr);
    ggml_cpu_set_mm_isa(2);  // rank 2: dotprod
    EXPECT_EQ(get(dev)[0] != nullptr, ggml_cpu_isa_available(GGML_CPU_ISA_DOTPROD));
    ggml_cpu_set_mm_isa(-1);
#endif
    EXPECT_TRUE(ggml_backend_dev_supports_buft(dev, ggml_backend_cpu_repack_buffer_type()));
    EXPECT_FALSE(ggml_backend_buft_is_host(ggml_backend_cpu_repack_buffer_type()));

    const std::vector<uint8_t> bytes = random_weights(GGML_TYPE_Q4_0, 64, 32, 3);
    weight                     pw(ggml_backend_cpu_repack_buffer_type(), GGML_TYPE_Q4_0, 64, 32, bytes);
    ggml_init_params           ip{ggml_tensor_overhead() * 8, nullptr, true};
    ggml_context *             ctx = ggml_init(ip);
    ggml_tensor *              mm  = ggml_mul_mat(ctx, pw.w, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 2));
    ggml_tensor *              gr  = ggml_get_rows(ctx, pw.w, ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 1));
    EXPECT_TRUE(ggml_backend_dev_supports_op(dev, mm));
    EXPECT_FALSE(ggml_backend_dev_supports_op(dev, gr));
    ggml_free(ctx);
}

}  // namespace
