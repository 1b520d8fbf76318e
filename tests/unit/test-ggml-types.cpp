// Type traits must match the GGUF type table exactly (ids, block sizes, bytes per block), and the
// half/bfloat16 conversions must be exact and round to nearest even.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "ggml.h"

namespace {

struct type_row {
    ggml_type    type;
    int          id;
    const char * name;
    int64_t      blck;
    size_t       bytes;
};

// Written from the GGUF specification's block layouts, independently of ggml-types.c.
const type_row k_expected[] = {
    {GGML_TYPE_F32, 0, "f32", 1, 4},
    {GGML_TYPE_F16, 1, "f16", 1, 2},
    {GGML_TYPE_Q4_0, 2, "q4_0", 32, 18},
    {GGML_TYPE_Q4_1, 3, "q4_1", 32, 20},
    {GGML_TYPE_Q5_0, 6, "q5_0", 32, 22},
    {GGML_TYPE_Q5_1, 7, "q5_1", 32, 24},
    {GGML_TYPE_Q8_0, 8, "q8_0", 32, 34},
    {GGML_TYPE_Q8_1, 9, "q8_1", 32, 36},
    {GGML_TYPE_Q2_K, 10, "q2_K", 256, 84},
    {GGML_TYPE_Q3_K, 11, "q3_K", 256, 110},
    {GGML_TYPE_Q4_K, 12, "q4_K", 256, 144},
    {GGML_TYPE_Q5_K, 13, "q5_K", 256, 176},
    {GGML_TYPE_Q6_K, 14, "q6_K", 256, 210},
    {GGML_TYPE_Q8_K, 15, "q8_K", 256, 292},
    {GGML_TYPE_IQ2_XXS, 16, "iq2_xxs", 256, 66},
    {GGML_TYPE_IQ2_XS, 17, "iq2_xs", 256, 74},
    {GGML_TYPE_IQ3_XXS, 18, "iq3_xxs", 256, 98},
    {GGML_TYPE_IQ1_S, 19, "iq1_s", 256, 50},
    {GGML_TYPE_IQ4_NL, 20, "iq4_nl", 32, 18},
    {GGML_TYPE_IQ3_S, 21, "iq3_s", 256, 110},
    {GGML_TYPE_IQ2_S, 22, "iq2_s", 256, 82},
    {GGML_TYPE_IQ4_XS, 23, "iq4_xs", 256, 136},
    {GGML_TYPE_I8, 24, "i8", 1, 1},
    {GGML_TYPE_I16, 25, "i16", 1, 2},
    {GGML_TYPE_I32, 26, "i32", 1, 4},
    {GGML_TYPE_I64, 27, "i64", 1, 8},
    {GGML_TYPE_F64, 28, "f64", 1, 8},
    {GGML_TYPE_IQ1_M, 29, "iq1_m", 256, 56},
    {GGML_TYPE_BF16, 30, "bf16", 1, 2},
    {GGML_TYPE_TQ1_0, 34, "tq1_0", 256, 54},
    {GGML_TYPE_TQ2_0, 35, "tq2_0", 256, 66},
    {GGML_TYPE_MXFP4, 39, "mxfp4", 32, 17},
};

TEST(GgmlTypes, TableMatchesGgufSpec) {
    for (const auto & r : k_expected) {
        SCOPED_TRACE(r.name);
        EXPECT_EQ((int) r.type, r.id);
        EXPECT_TRUE(ggml_type_is_valid(r.type));
        EXPECT_STREQ(ggml_type_name(r.type), r.name);
        EXPECT_EQ(ggml_blck_size(r.type), r.blck);
        EXPECT_EQ(ggml_type_size(r.type), r.bytes);
    }
    EXPECT_EQ(sizeof(k_expected) / sizeof(k_expected[0]), 32u);
}

TEST(GgmlTypes, RemovedAndOutOfRangeIdsAreInvalid) {
    for (int id : {4, 5, 31, 32, 33, 36, 37, 38, 40, 41, 1000, -1}) {
        SCOPED_TRACE(id);
        const ggml_type t = (ggml_type) id;
        EXPECT_FALSE(ggml_type_is_valid(t));
        EXPECT_STREQ(ggml_type_name(t), "invalid");
        EXPECT_EQ(ggml_blck_size(t), 0);
        EXPECT_EQ(ggml_type_size(t), 0u);
        EXPECT_EQ(ggml_row_size(t, 256), 0u);
    }
}

TEST(GgmlTypes, RowSize) {
    EXPECT_EQ(ggml_row_size(GGML_TYPE_F32, 7), 28u);
    EXPECT_EQ(ggml_row_size(GGML_TYPE_Q4_0, 64), 36u);
    EXPECT_EQ(ggml_row_size(GGML_TYPE_Q4_K, 4096), 16u * 144u);
    EXPECT_TRUE(ggml_is_quantized(GGML_TYPE_Q6_K));
    EXPECT_FALSE(ggml_is_quantized(GGML_TYPE_BF16));
}

// The KV cache types are upstream's -ctk/-ctv set; every other id (K-quants, integers, removed or
// out-of-range ids) is refused by the cache and by flash attention.
TEST(GgmlTypes, KvCacheTypes) {
    const std::set<int> kv = {GGML_TYPE_F32,  GGML_TYPE_F16,  GGML_TYPE_BF16, GGML_TYPE_Q8_0,  GGML_TYPE_Q4_0,
                              GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_IQ4_NL};
    for (int id = -1; id <= GGML_TYPE_COUNT; id++) {
        SCOPED_TRACE(id);
        EXPECT_EQ(ggml_type_is_kv_cache((ggml_type) id), kv.count(id) == 1);
    }
}

TEST(GgmlTypes, Fp16RoundTripIsExactForEveryHalf) {
    for (uint32_t h = 0; h < 65536; h++) {
        const float f = ggml_fp16_to_fp32((ggml_fp16_t) h);
        if (std::isnan(f)) {
            EXPECT_TRUE(std::isnan(ggml_fp16_to_fp32(ggml_fp32_to_fp16(f))));
            continue;
        }
        ASSERT_EQ(ggml_fp32_to_fp16(f), (ggml_fp16_t) h) << "half bits " << h;
    }
}

TEST(GgmlTypes, Fp16RoundsToNearestEven) {
    // 1 + 2^-11 is exactly between 1 and 1 + 2^-10: ties go to the even mantissa (1.0)
    EXPECT_EQ(ggml_fp32_to_fp16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
    // 1 + 3*2^-11 is between 1+2^-10 (odd) and 1+2^-9 (even): goes up
    EXPECT_EQ(ggml_fp32_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
    EXPECT_EQ(ggml_fp32_to_fp16(65504.0f), 0x7bff);
    EXPECT_EQ(ggml_fp32_to_fp16(65520.0f), 0x7c00);  // rounds past max: inf
    EXPECT_EQ(ggml_fp32_to_fp16(-INFINITY), 0xfc00);
    EXPECT_EQ(ggml_fp32_to_fp16(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
    EXPECT_EQ(ggml_fp32_to_fp16(std::ldexp(1.0f, -26)), 0x0000);  // below half of it: zero
    EXPECT_FLOAT_EQ(ggml_fp16_to_fp32(0x3555), 0.333251953125f);
}

TEST(GgmlTypes, Bf16Conversion) {
    EXPECT_EQ(ggml_fp32_to_bf16(1.0f).bits, 0x3f80);
    EXPECT_EQ(ggml_bf16_to_fp32(ggml_bf16_t{0xc040}), -3.0f);
    // 1 + 2^-8 is a tie between 1 and 1 + 2^-7: even (1.0)
    EXPECT_EQ(ggml_fp32_to_bf16(1.0f + std::ldexp(1.0f, -8)).bits, 0x3f80);
    EXPECT_TRUE(std::isnan(ggml_bf16_to_fp32(ggml_fp32_to_bf16(NAN))));
    for (uint32_t b = 0; b < 65536; b++) {
        const float f = ggml_bf16_to_fp32(ggml_bf16_t{(uint16_t) b});
        if (!std::isnan(f)) {
            ASSERT_EQ(ggml_fp32_to_bf16(f).bits, b);
        }
    }
}

}  // namespace
