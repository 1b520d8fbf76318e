// Quantized formats and CPU kernels: block sizes, hand-built known-answer blocks, round-trip error
// bounds, reference dot products against dequantized floats, and every SIMD kernel against scalar.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

extern "C" {
#include "ggml-quants.h"
}
#include "ggml-cpu/cpu-type-traits.h"

namespace {

std::vector<float> random_normal(size_t n, uint32_t seed, float scale = 1.0f) {
    std::mt19937                    rng(seed);
    std::normal_distribution<float> nd(0.0f, scale);
    std::vector<float>              v(n);
    for (auto & x : v) {
        x = nd(rng);
    }
    return v;
}

const ggml_type k_quant_types[] = {GGML_TYPE_Q4_0,  GGML_TYPE_Q4_1,   GGML_TYPE_Q5_0, GGML_TYPE_Q5_1,   GGML_TYPE_Q8_0,
                                   GGML_TYPE_Q8_1,  GGML_TYPE_IQ4_NL, GGML_TYPE_Q2_K, GGML_TYPE_Q3_K,   GGML_TYPE_Q4_K,
                                   GGML_TYPE_Q5_K,  GGML_TYPE_Q6_K,   GGML_TYPE_Q8_K, GGML_TYPE_IQ4_XS, GGML_TYPE_MXFP4,
                                   GGML_TYPE_TQ1_0, GGML_TYPE_TQ2_0};

const ggml_cpu_type_traits * scalar_traits(ggml_type t) {
    return ggml_cpu_get_type_traits_isa(t, GGML_CPU_ISA_SCALAR);
}

std::vector<uint8_t> quantize(ggml_type t, const std::vector<float> & x) {
    std::vector<uint8_t> q(ggml_row_size(t, (int64_t) x.size()));
    scalar_traits(t)->from_float_ref(x.data(), q.data(), (int64_t) x.size());
    return q;
}

std::vector<float> dequantize(ggml_type t, const void * q, size_t n) {
    std::vector<float> y(n);
    scalar_traits(t)->to_float(q, y.data(), (int64_t) n);
    return y;
}

float h(float v) {
    return v;
}
ggml_fp16_t f16(float v) {
    return ggml_fp32_to_fp16(v);
}

// ---------------------------------------------------------------------------------------------
TEST(Quants, BlockSizesMatchTypeTable) {
    EXPECT_EQ(sizeof(block_q4_0), ggml_type_size(GGML_TYPE_Q4_0));
    EXPECT_EQ(sizeof(block_q4_1), ggml_type_size(GGML_TYPE_Q4_1));
    EXPECT_EQ(sizeof(block_q5_0), ggml_type_size(GGML_TYPE_Q5_0));
    EXPECT_EQ(sizeof(block_q5_1), ggml_type_size(GGML_TYPE_Q5_1));
    EXPECT_EQ(sizeof(block_q8_0), ggml_type_size(GGML_TYPE_Q8_0));
    EXPECT_EQ(sizeof(block_q8_1), ggml_type_size(GGML_TYPE_Q8_1));
    EXPECT_EQ(sizeof(block_iq4_nl), ggml_type_size(GGML_TYPE_IQ4_NL));
    EXPECT_EQ(sizeof(block_q2_K), ggml_type_size(GGML_TYPE_Q2_K));
    EXPECT_EQ(sizeof(block_q3_K), ggml_type_size(GGML_TYPE_Q3_K));
    EXPECT_EQ(sizeof(block_q4_K), ggml_type_size(GGML_TYPE_Q4_K));
    EXPECT_EQ(sizeof(block_q5_K), ggml_type_size(GGML_TYPE_Q5_K));
    EXPECT_EQ(sizeof(block_q6_K), ggml_type_size(GGML_TYPE_Q6_K));
    EXPECT_EQ(sizeof(block_q8_K), ggml_type_size(GGML_TYPE_Q8_K));
    EXPECT_EQ(sizeof(block_iq4_xs), ggml_type_size(GGML_TYPE_IQ4_XS));
    EXPECT_EQ(sizeof(block_mxfp4), ggml_type_size(GGML_TYPE_MXFP4));
    EXPECT_EQ(sizeof(block_tq1_0), ggml_type_size(GGML_TYPE_TQ1_0));
    EXPECT_EQ(sizeof(block_tq2_0), ggml_type_size(GGML_TYPE_TQ2_0));
    for (ggml_type t : k_quant_types) {
        const ggml_cpu_type_traits * tr = scalar_traits(t);
        ASSERT_NE(tr, nullptr) << ggml_type_name(t);
        EXPECT_EQ(ggml_blck_size(tr->vec_dot_type), ggml_blck_size(t)) << ggml_type_name(t);
    }
    EXPECT_EQ(ggml_cpu_get_type_traits(GGML_TYPE_I32), nullptr);
    EXPECT_EQ(ggml_cpu_get_type_traits((ggml_type) 999), nullptr);
}

// ---------------------------------------------------------------------------------------------
// known answers: blocks built byte by byte, expected values worked out from the format definition
TEST(Quants, KnownAnswer32Blocks) {
    {
        block_q4_0 b;
        b.d = f16(0.5f);
        for (int j = 0; j < 16; j++) {
            b.qs[j] = (uint8_t) (j | ((15 - j) << 4));  // low nibble j, high nibble 15 - j
        }
        float y[32];
        dequantize_row_q4_0(&b, y, 32);
        EXPECT_EQ(y[0], 0.5f * (0 - 8));
        EXPECT_EQ(y[3], 0.5f * (3 - 8));
        EXPECT_EQ(y[15], 0.5f * (15 - 8));
        EXPECT_EQ(y[16], 0.5f * (15 - 8));  // high nibble of qs[0]
        EXPECT_EQ(y[31], 0.5f * (0 - 8));
    }
    {
        block_q4_1 b;
        b.d = f16(0.25f);
        b.m = f16(-1.0f);
        memset(b.qs, 0, sizeof(b.qs));
        b.qs[2] = 0xA7;  // element 2 -> 7, element 18 -> 10
        float y[32];
        dequantize_row_q4_1(&b, y, 32);
        EXPECT_EQ(y[2], 0.25f * 7 - 1.0f);
        EXPECT_EQ(y[18], 0.25f * 10 - 1.0f);
        EXPECT_EQ(y[0], -1.0f);
    }
    {
        block_q5_0 b;
        b.d = f16(2.0f);
        memset(b.qs, 0, sizeof(b.qs));
        b.qs[1]           = 0x3F;                                 // element 1 low 4 bits 15, element 17 low 4 bits 3
        const uint32_t qh = (1u << 1) | (1u << 17) | (1u << 31);  // fifth bit of elements 1, 17, 31
        memcpy(b.qh, &qh, 4);
        float y[32];
        dequantize_row_q5_0(&b, y, 32);
        EXPECT_EQ(y[1], 2.0f * (31 - 16));
        EXPECT_EQ(y[17], 2.0f * (19 - 16));
        EXPECT_EQ(y[31], 2.0f * (16 - 16));
        EXPECT_EQ(y[0], 2.0f * (0 - 16));
    }
    {
        block_q5_1 b;
        b.d = f16(1.0f);
        b.m = f16(0.5f);
        memset(b.qs, 0x21, sizeof(b.qs));  // low nibble 1, high nibble 2 everywhere
        const uint32_t qh = 1u << 20;      // element 20 gets +16
        memcpy(b.qh, &qh, 4);
        float y[32];
        dequantize_row_q5_1(&b, y, 32);
        EXPECT_EQ(y[0], 1.5f);
        EXPECT_EQ(y[16], 2.5f);
        EXPECT_EQ(y[20], 18.5f);
    }
    {
        block_q8_0 b;
        b.d = f16(0.125f);
        for (int j = 0; j < 32; j++) {
            b.qs[j] = (int8_t) (j * 8 - 128);
        }
        float y[32];
        dequantize_row_q8_0(&b, y, 32);
        EXPECT_EQ(y[0], -16.0f);
        EXPECT_EQ(y[31], 0.125f * 120);
    }
    {
        block_iq4_nl b;
        b.d = f16(0.5f);
        for (int j = 0; j < 16; j++) {
            b.qs[j] = (uint8_t) (j | ((15 - j) << 4));
        }
        float y[32];
        dequantize_row_iq4_nl(&b, y, 32);
        EXPECT_EQ(y[0], 0.5f * -127);
        EXPECT_EQ(y[8], 0.5f * 1);
        EXPECT_EQ(y[15], 0.5f * 113);
        EXPECT_EQ(y[16], 0.5f * 113);
        EXPECT_EQ(y[23], 0.5f * 1);  // 15 - 7 = 8 -> 1
    }
}

TEST(Quants, KnownAnswerKQuants) {
    {
        // q4_K: sub-block 1 scale 5 min 2 (plain 6-bit, j < 4); sub-block 6 scale 37 min 50 (j >= 4:
        // low 4 bits in byte 10, top 2 bits in bits 6..7 of bytes 2 (scale) and 6 (min))
        block_q4_K b;
        memset(&b, 0, sizeof(b));
        b.d          = f16(1.0f);
        b.dmin       = f16(0.25f);
        b.scales[1]  = 5;
        b.scales[5]  = 2;
        b.scales[10] = (uint8_t) ((37 & 0xF) | ((50 & 0xF) << 4));
        b.scales[2] |= (uint8_t) ((37 >> 4) << 6);
        b.scales[6] |= (uint8_t) ((50 >> 4) << 6);
        b.qs[3]      = 0x90;  // element 3 (sub-block 0): 0; element 35 (sub-block 1): 9
        b.qs[96 + 4] = 0x0C;  // element 196 (sub-block 6): 12
        float y[256];
        dequantize_row_q4_K(&b, y, 256);
        EXPECT_EQ(y[35], 5.0f * 9 - 0.25f * 2);
        EXPECT_EQ(y[196], 37.0f * 12 - 0.25f * 50);
        EXPECT_EQ(y[3], 0.0f);
    }
    {
        // q5_K: element 64*c + 32 + l takes its fifth bit from qh[l] bit 2c+1
        block_q5_K b;
        memset(&b, 0, sizeof(b));
        b.d          = f16(0.5f);
        b.scales[3]  = 7;                   // sub-block 3 = elements 96..127 (chunk 1, high half)
        b.qs[32 + 5] = 0x30;                // element 96 + 5 low 4 bits = 3
        b.qh[5]      = (uint8_t) (1 << 3);  // bit 2*1 + 1
        float y[256];
        dequantize_row_q5_K(&b, y, 256);
        EXPECT_EQ(y[101], 0.5f * 7 * (3 + 16));
    }
    {
        // q6_K: element 128 + 64 + 7 (h = 1, k = 2): high nibble of ql[64 + 7], bits 4..5 of qh[32 + 7]
        block_q6_K b;
        memset(&b, 0, sizeof(b));
        b.d          = f16(0.25f);
        b.scales[12] = -3;  // sub-block (128 + 64 + 7) / 16 = 12
        b.ql[71]     = 0x50;
        b.qh[39]     = (uint8_t) (2 << 4);
        float y[256];
        dequantize_row_q6_K(&b, y, 256);
        EXPECT_EQ(y[199], 0.25f * -3 * ((5 | (2 << 4)) - 32));
        EXPECT_EQ(y[0], 0.0f);  // scale 0
    }
    {
        // q3_K: element 128 + 32*2 + 9 (h = 1, j = 2): bits 4..5 of qs[32 + 9], hmask[9] bit 6;
        // sub-block 12: low 4 bits = high nibble of scales[4], top 2 bits = bits 6..7 of scales[8]
        block_q3_K b;
        memset(&b, 0, sizeof(b));
        b.d         = f16(1.0f);
        b.scales[4] = 0x90;                // nibble 9
        b.scales[8] = (uint8_t) (2 << 6);  // top bits 2 -> 6-bit scale 32 + 9 = 41 -> 41 - 32 = 9
        b.qs[41]    = (uint8_t) (3 << 4);
        float y[256];
        dequantize_row_q3_K(&b, y, 256);
        EXPECT_EQ(y[201], 9.0f * (3 - 4));  // hmask bit clear: minus 4
        b.hmask[9] = 1 << 6;
        dequantize_row_q3_K(&b, y, 256);
        EXPECT_EQ(y[201], 9.0f * 3);
    }
    {
        // q2_K: element 128 + 32*3 + 20 (h = 1, j = 3): bits 6..7 of qs[32 + 20], sub-block 15
        block_q2_K b;
        memset(&b, 0, sizeof(b));
        b.d          = f16(2.0f);
        b.dmin       = f16(0.5f);
        b.scales[15] = (uint8_t) (6 | (3 << 4));
        b.qs[52]     = (uint8_t) (2 << 6);
        float y[256];
        dequantize_row_q2_K(&b, y, 256);
        EXPECT_EQ(y[244], 2.0f * 6 * 2 - 0.5f * 3);
    }
    {
        // iq4_xs: sub-block 5: low 4 bits = high nibble of scales_l[2], top 2 bits = scales_h bits 10..11
        block_iq4_xs b;
        memset(&b, 0, sizeof(b));
        b.d              = f16(0.5f);
        b.scales_l[2]    = 0xB0;                  // 11
        b.scales_h       = (uint16_t) (2 << 10);  // 32 + 11 = 43 -> 11
        b.qs[16 * 5 + 4] = 0xE3;                  // element 160 + 4 -> code 3 (-65); element 160 + 20 -> 14 (89)
        float y[256];
        dequantize_row_iq4_xs(&b, y, 256);
        EXPECT_EQ(y[164], 0.5f * 11 * -65);
        EXPECT_EQ(y[180], 0.5f * 11 * 89);
        EXPECT_EQ(y[0], 0.5f * (0 - 32) * -127);  // scale bits zero: ls = 0 -> -32
    }
    {
        block_q8_K b;
        memset(&b, 0, sizeof(b));
        b.d       = 0.5f;
        b.qs[200] = -7;
        float y[256];
        dequantize_row_q8_K(&b, y, 256);
        EXPECT_EQ(y[200], -3.5f);
    }
    (void) h;
}

// ---------------------------------------------------------------------------------------------
// round trip: RMSE(dequant(quant(x)) - x) / RMS(x) on N(0, 1) data; bounds are documented in docs/quants.md
struct rt_bound {
    ggml_type type;
    double    max_rel_rmse;
};
const rt_bound k_bounds[] = {
    {GGML_TYPE_Q4_0, 0.105},  {GGML_TYPE_Q4_1, 0.090},   {GGML_TYPE_Q5_0, 0.052},   {GGML_TYPE_Q5_1, 0.045},
    {GGML_TYPE_Q8_0, 0.0065}, {GGML_TYPE_Q8_1, 0.0065},  {GGML_TYPE_IQ4_NL, 0.095}, {GGML_TYPE_Q2_K, 0.32},
    {GGML_TYPE_Q3_K, 0.19},   {GGML_TYPE_Q4_K, 0.090},   {GGML_TYPE_Q5_K, 0.045},   {GGML_TYPE_Q6_K, 0.023},
    {GGML_TYPE_Q8_K, 0.0085}, {GGML_TYPE_IQ4_XS, 0.095}, {GGML_TYPE_MXFP4, 0.14},   {GGML_TYPE_TQ1_0, 0.50},
    {GGML_TYPE_TQ2_0, 0.50},
};

TEST(Quants, RoundTripErrorBounds) {
    const size_t             n   = 256 * 64;
    const std::vector<float> x   = random_normal(n, 1234);
    double                   sxx = 0;
    for (float v : x) {
        sxx += (double) v * v;
    }
    for (const rt_bound & b : k_bounds) {
        const auto q   = quantize(b.type, x);
        const auto y   = dequantize(b.type, q.data(), n);
        double     see = 0;
        for (size_t i = 0; i < n; i++) {
            see += ((double) y[i] - x[i]) * ((double) y[i] - x[i]);
        }
        const double rel = std::sqrt(see / sxx);
        printf("  %-7s rel RMSE %.5f (bound %.4f)\n", ggml_type_name(b.type), rel, b.max_rel_rmse);
        EXPECT_LT(rel, b.max_rel_rmse) << ggml_type_name(b.type);
    }
}

TEST(Quants, ZeroAndConstantBlocks) {
    for (ggml_type t : k_quant_types) {
        std::vector<float> z(256, 0.0f);
        auto               y = dequantize(t, quantize(t, z).data(), z.size());
        for (float v : y) {
            ASSERT_EQ(v, 0.0f) << ggml_type_name(t);
        }
        std::vector<float> c(256, 0.75f);
        y = dequantize(t, quantize(t, c).data(), c.size());
        for (float v : y) {
            ASSERT_NEAR(v, 0.75f, 0.75f * 0.15f) << ggml_type_name(t);
        }
    }
}

// Each scalar dot product equals the float dot product of the dequantized rows (up to float rounding):
// this ties the integer kernels to the format definition that the known-answer tests pin down.
TEST(Quants, ReferenceDotMatchesDequantized) {
    const int n = 256 * 4;
    for (ggml_type t : k_quant_types) {
        const ggml_cpu_type_traits * tr = scalar_traits(t);
        const auto                   x  = random_normal(n, 7);
        const auto                   a  = random_normal(n, 8);
        const auto                   qx = quantize(t, x);
        std::vector<uint8_t>         qa(ggml_row_size(tr->vec_dot_type, n));
        tr->from_float(a.data(), qa.data(), n);
        const auto xd  = dequantize(t, qx.data(), n);
        const auto ad  = dequantize(tr->vec_dot_type, qa.data(), n);
        double     ref = 0, mag = 0;
        for (int i = 0; i < n; i++) {
            ref += (double) xd[i] * ad[i];
            mag += std::fabs((double) xd[i] * ad[i]);
        }
        float s = 0;
        tr->vec_dot(n, &s, qx.data(), qa.data());
        // q8_1's s field is an fp16 of d*sum: allow its rounding
        const double tol = (t == GGML_TYPE_Q4_1 || t == GGML_TYPE_Q5_1 || t == GGML_TYPE_Q8_1) ? 2e-3 : 1e-5;
        EXPECT_NEAR(s, ref, tol * mag + 1e-6) << ggml_type_name(t);
    }
}

// ---------------------------------------------------------------------------------------------
// SIMD against scalar, for each instruction set this CPU has
class QuantsIsa : public ::testing::TestWithParam<ggml_cpu_isa> {};

TEST_P(QuantsIsa, ActivationQuantizersBitExact) {
    const ggml_cpu_isa isa = GetParam();
    if (!ggml_cpu_get_type_traits_isa(GGML_TYPE_F32, isa)) {
        GTEST_SKIP() << "CPU lacks " << ggml_cpu_isa_name(isa);
    }
    for (ggml_type t : {GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q4_K}) {
        const ggml_cpu_type_traits * simd = ggml_cpu_get_type_traits_isa(t, isa);
        const ggml_cpu_type_traits * ref  = scalar_traits(simd->vec_dot_type);
        for (int nb : {1, 3, 8}) {
            const int n = nb * 256;
            auto      a = random_normal(n, 100 + nb, 3.0f);
            a[5]        = 0.0f;
            std::fill(a.begin() + 32, a.begin() + 64, 0.0f);  // an all-zero q8_0 block
            std::vector<uint8_t> q1(ggml_row_size(simd->vec_dot_type, n)), q2(q1.size());
            simd->from_float(a.data(), q1.data(), n);
            ref->from_float_ref(a.data(), q2.data(), n);
            EXPECT_EQ(0, memcmp(q1.data(), q2.data(), q1.size())) << ggml_type_name(t) << " nb=" << nb;
        }
    }
}

TEST_P(QuantsIsa, DotMatchesScalar) {
    const ggml_cpu_isa isa = GetParam();
    if (!ggml_cpu_get_type_traits_isa(GGML_TYPE_F32, isa)) {
        GTEST_SKIP() << "CPU lacks " << ggml_cpu_isa_name(isa);
    }
    for (ggml_type t : k_quant_types) {
        const ggml_cpu_type_traits * simd = ggml_cpu_get_type_traits_isa(t, isa);
        const ggml_cpu_type_traits * ref  = scalar_traits(t);
        ASSERT_NE(simd, nullptr);
        const int bs = (int) ggml_blck_size(t);
        for (int nb : {1, 2, 3, 5, 8, 33}) {
            const int            n  = nb * bs;
            auto                 x  = random_normal(n, 11 * nb + t, 1.0f);
            auto                 a  = random_normal(n, 13 * nb + t, 2.0f);
            const auto           qx = quantize(t, x);
            std::vector<uint8_t> qa(ggml_row_size(ref->vec_dot_type, n));
            ref->from_float(a.data(), qa.data(), n);
            float s_ref = 0, s_simd = 0;
            ref->vec_dot(n, &s_ref, qx.data(), qa.data());
            simd->vec_dot(n, &s_simd, qx.data(), qa.data());
            // integer parts are exact; only the order of the float block sums differs
            const auto xd  = dequantize(t, qx.data(), n);
            const auto ad  = dequantize(ref->vec_dot_type, qa.data(), n);
            double     mag = 0;
            for (int i = 0; i < n; i++) {
                mag += std::fabs((double) xd[i] * ad[i]);
            }
            EXPECT_NEAR(s_simd, s_ref, 2e-6 * mag + 1e-6) << ggml_type_name(t) << " nb=" << nb;
        }
    }
}

// n covers K without a tail, and block counts that leave 1..3 blocks after the GEMM kernels' groups
TEST_P(QuantsIsa, GemvOddRowCounts) {
    const ggml_cpu_isa isa = GetParam();
    if (!ggml_cpu_get_type_traits_isa(GGML_TYPE_F32, isa)) {
        GTEST_SKIP() << "CPU lacks " << ggml_cpu_isa_name(isa);
    }
    for (ggml_type t : {GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K,
                        GGML_TYPE_IQ4_XS, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_F32}) {
        const ggml_cpu_type_traits * ref = scalar_traits(t);
        const int                    bs  = (int) ggml_blck_size(t) < 32 ? 32 : (int) ggml_blck_size(t);
        for (int n : {512, 7 * bs, 33 * bs}) {
            for (int nrows : {1, 3, 4, 7, 8, 9, 17}) {
                const auto           w  = random_normal((size_t) n * nrows, 21 + nrows);
                const size_t         rs = ggml_row_size(t, n);
                std::vector<uint8_t> qw(rs * nrows);
                for (int r = 0; r < nrows; r++) {
                    ref->from_float_ref(w.data() + (size_t) r * n, qw.data() + r * rs, n);
                }
                const auto           a = random_normal(n, 5);
                std::vector<uint8_t> qa(ggml_row_size(ref->vec_dot_type, n));
                ref->from_float(a.data(), qa.data(), n);
                std::vector<float> out(nrows, -1.0f), expect(nrows);
                ggml_cpu_gemv_isa(t, isa, n, nrows, qw.data(), rs, qa.data(), out.data());
                for (int r = 0; r < nrows; r++) {
                    ref->vec_dot(n, &expect[r], qw.data() + r * rs, qa.data());
                    EXPECT_NEAR(out[r], expect[r], 1e-4f * (1.0f + std::fabs(expect[r])))
                        << ggml_type_name(t) << " n=" << n << " rows=" << nrows << " r=" << r;
                }
            }
        }
    }
}

// many activation rows at once (the prefill kernels), odd row and column counts (partial tiles of
// rows and of columns), tail blocks; below the kernels' chunk size every column must also equal the
// GEMV of that column exactly (same order). For the K-quants the GEMV is the vec_dot loop, so this also
// proves their tiled GEMM bit-identical to the vec_dot.
TEST_P(QuantsIsa, GemmMatchesScalar) {
    const ggml_cpu_isa isa = GetParam();
    if (!ggml_cpu_get_type_traits_isa(GGML_TYPE_F32, isa)) {
        GTEST_SKIP() << "CPU lacks " << ggml_cpu_isa_name(isa);
    }
    for (ggml_type t : {GGML_TYPE_Q4_0, GGML_TYPE_Q8_0, GGML_TYPE_Q2_K, GGML_TYPE_Q3_K, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K,
                        GGML_TYPE_Q6_K, GGML_TYPE_F16}) {
        const ggml_cpu_type_traits * ref      = scalar_traits(t);
        const int                    bs       = (int) ggml_blck_size(t) < 32 ? 32 : (int) ggml_blck_size(t);
        constexpr int                max_cols = 9;
        for (int n : {1 * bs, 4 * bs, 5 * bs, 35 * bs}) {
            // the activation rows (and their reference results per weight row below) are shared by every
            // row and column count: only the kernels run per case (this test runs under emulation too)
            const size_t              as = ggml_row_size(ref->vec_dot_type, n);
            std::vector<uint8_t>      qa(as * max_cols);
            std::vector<const void *> ys(max_cols);
            for (int c = 0; c < max_cols; c++) {
                const auto a = random_normal(n, 7 + c, 2.0f);
                ref->from_float(a.data(), qa.data() + c * as, n);
                ys[c] = qa.data() + c * as;
            }
            for (int nrows : {1, 2, 3, 4, 5, 6, 13}) {
                const auto           w  = random_normal((size_t) n * nrows, 41 + nrows);
                const size_t         rs = ggml_row_size(t, n);
                std::vector<uint8_t> qw(rs * nrows);
                for (int r = 0; r < nrows; r++) {
                    ref->from_float_ref(w.data() + (size_t) r * n, qw.data() + r * rs, n);
                }
                std::vector<float> expect((size_t) max_cols * nrows), gv((size_t) max_cols * nrows);
                for (int c = 0; c < max_cols; c++) {
                    ggml_cpu_gemv_isa(t, isa, n, nrows, qw.data(), rs, ys[c], gv.data() + (size_t) c * nrows);
                    for (int r = 0; r < nrows; r++) {
                        ref->vec_dot(n, &expect[(size_t) c * nrows + r], qw.data() + r * rs, ys[c]);
                    }
                }
                for (int ncols = 1; ncols <= max_cols; ncols++) {
                    std::vector<float>   out((size_t) nrows * ncols, -1.0f);
                    std::vector<float *> outs(ncols);
                    for (int c = 0; c < ncols; c++) {
                        outs[c] = out.data() + (size_t) c * nrows;
                    }
                    ggml_cpu_gemm_isa(t, isa, n, nrows, qw.data(), rs, ncols, ys.data(), outs.data());
                    for (int c = 0; c < ncols; c++) {
                        for (int r = 0; r < nrows; r++) {
                            const float e = expect[(size_t) c * nrows + r];
                            EXPECT_NEAR(outs[c][r], e, 1e-4f * (1.0f + std::fabs(e)))
                                << ggml_type_name(t) << " n=" << n << " rows=" << nrows << " cols=" << ncols;
                            EXPECT_EQ(outs[c][r], gv[(size_t) c * nrows + r])
                                << ggml_type_name(t) << " gemm/gemv differ";
                        }
                    }
                }
            }
        }
    }
}

// the prefill path of Q4_K_M models: the SIMD tables must install the tiled K-quant GEMMs (otherwise
// GemmMatchesScalar would only test the per-column fallback)
TEST_P(QuantsIsa, KQuantGemmInstalled) {
    const ggml_cpu_isa isa = GetParam();
    if (isa == GGML_CPU_ISA_SCALAR || !ggml_cpu_get_type_traits_isa(GGML_TYPE_F32, isa)) {
        GTEST_SKIP() << "no SIMD table " << ggml_cpu_isa_name(isa);
    }
    std::vector<ggml_type> types = {GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K};
    if (isa == GGML_CPU_ISA_NEON || isa == GGML_CPU_ISA_DOTPROD || isa == GGML_CPU_ISA_I8MM) {
        // arm64 also covers Q2_K_S / Q3_K_M files' low-bit matrices (quants-arm-kernels.h)
        types.push_back(GGML_TYPE_Q2_K);
        types.push_back(GGML_TYPE_Q3_K);
    }
    for (ggml_type t : types) {
        EXPECT_NE(ggml_cpu_get_type_traits_isa(t, isa)->gemm, nullptr) << ggml_type_name(t);
    }
    if (isa == GGML_CPU_ISA_I8MM) {
        // Q2_K..Q5_K have their own SMMLA GEMM there (quants-arm.i8mm.cpp), not the dotprod level's
        for (ggml_type t : {GGML_TYPE_Q2_K, GGML_TYPE_Q3_K, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K}) {
            EXPECT_NE(ggml_cpu_get_type_traits_isa(t, isa)->gemm,
                      ggml_cpu_get_type_traits_isa(t, GGML_CPU_ISA_DOTPROD)->gemm)
                << ggml_type_name(t);
        }
    }
}

TEST_P(QuantsIsa, FloatDotsAnyLength) {
    const ggml_cpu_isa isa = GetParam();
    if (!ggml_cpu_get_type_traits_isa(GGML_TYPE_F32, isa)) {
        GTEST_SKIP() << "CPU lacks " << ggml_cpu_isa_name(isa);
    }
    for (ggml_type t : {GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16}) {
        const ggml_cpu_type_traits * simd = ggml_cpu_get_type_traits_isa(t, isa);
        const ggml_cpu_type_traits * ref  = scalar_traits(t);
        for (int n : {1, 2, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 100, 257, 1000}) {
            const auto           x = random_normal(n, 31 + n);
            const auto           a = random_normal(n, 37 + n);
            std::vector<uint8_t> qx(ggml_row_size(t, n) + 64);
            ref->from_float_ref(x.data(), qx.data(), n);
            float s_ref = 0, s_simd = 0;
            ref->vec_dot(n, &s_ref, qx.data(), a.data());
            simd->vec_dot(n, &s_simd, qx.data(), a.data());
            double mag = 0;
            for (int i = 0; i < n; i++) {
                mag += std::fabs((double) x[i] * a[i]);
            }
            EXPECT_NEAR(s_simd, s_ref, 1e-5 * mag + 1e-6) << ggml_type_name(t) << " n=" << n;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(All, QuantsIsa,
                         ::testing::Values(GGML_CPU_ISA_SCALAR, GGML_CPU_ISA_AVX2, GGML_CPU_ISA_AVX512,
                                           GGML_CPU_ISA_NEON, GGML_CPU_ISA_DOTPROD, GGML_CPU_ISA_I8MM),
                         [](const ::testing::TestParamInfo<ggml_cpu_isa> & i) {
                             return std::string(ggml_cpu_isa_name(i.param));
                         });

}  // namespace
