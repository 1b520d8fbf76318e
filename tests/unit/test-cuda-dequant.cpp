// The CUDA backend's per-element dequantizers (ggml/src/ggml-cuda/dequant.cuh), compiled here as plain
// C++, against the CPU reference dequantize_row_* on random blocks: every element of every type must be
// bit-identical. The device build runs the same expressions through __fmul_rn / __fadd_rn, which round
// the same way, so this is the oracle check of the GPU's decoding without a GPU.
#if defined(__clang__)
#    pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#    pragma GCC optimize("fp-contract=off")  // the CPU reference is built with -ffp-contract=off too
#endif

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>
#include <vector>

#include "ggml-cuda/dequant.cuh"

namespace {

using namespace ggml_cuda_dq;

constexpr int kBlocks = 512;

// Random bytes, with the fp16 scale fields replaced by finite values of both signs over a wide range
// (random bits would include NaN / inf, which say nothing about the decoding).
template <typename B>
std::vector<B> random_blocks(uint32_t seed) {
    std::mt19937                       rng(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    std::vector<B>                     v(kBlocks);
    auto *                             p = reinterpret_cast<uint8_t *>(v.data());
    for (size_t i = 0; i < v.size() * sizeof(B); ++i) {
        p[i] = (uint8_t) byte(rng);
    }
    return v;
}

void set_f16(ggml_fp16_t & h, std::mt19937 & rng) {
    std::uniform_real_distribution<float> e(-14.0f, 6.0f);
    const float                           v = std::exp2(e(rng)) * ((rng() & 1) ? -1.0f : 1.0f);
    h                                       = ggml_fp32_to_fp16(v);
}

template <ggml_type T, typename RowFn>
void check_type(RowFn ref_row, uint32_t seed) {
    using B               = typename dq<T>::block;
    std::vector<B> blocks = random_blocks<B>(seed);
    std::mt19937   rng(seed * 7 + 1);
    for (auto & b : blocks) {
        // every quantized block format starts its fp16 scale(s) at known fields; fix them up per type
        set_f16(b.d, rng);
        if constexpr (T == GGML_TYPE_Q4_1 || T == GGML_TYPE_Q5_1) {
            set_f16(b.m, rng);
        } else if constexpr (T == GGML_TYPE_Q2_K || T == GGML_TYPE_Q4_K || T == GGML_TYPE_Q5_K) {
            set_f16(b.dmin, rng);
        }
    }
    const int64_t      n = (int64_t) kBlocks * dq<T>::qk;
    std::vector<float> want(n), got(n);
    ref_row(blocks.data(), want.data(), n);
    for (int64_t k = 0; k < n; ++k) {
        got[k] = row_get<T>(blocks.data(), k);
    }
    int64_t mismatches = 0, first = -1;
    for (int64_t k = 0; k < n; ++k) {
        if (std::memcmp(&want[k], &got[k], 4) != 0) {
            if (first < 0) {
                first = k;
            }
            ++mismatches;
        }
    }
    EXPECT_EQ(mismatches, 0) << ggml_type_name(T) << ": first mismatch at element " << first << " (want "
                             << (first >= 0 ? want[first] : 0.0f) << ", got " << (first >= 0 ? got[first] : 0.0f)
                             << ")";
}

TEST(CudaDequant, Q4_0) {
    check_type<GGML_TYPE_Q4_0>(dequantize_row_q4_0, 1);
}
TEST(CudaDequant, Q4_1) {
    check_type<GGML_TYPE_Q4_1>(dequantize_row_q4_1, 2);
}
TEST(CudaDequant, Q5_0) {
    check_type<GGML_TYPE_Q5_0>(dequantize_row_q5_0, 3);
}
TEST(CudaDequant, Q5_1) {
    check_type<GGML_TYPE_Q5_1>(dequantize_row_q5_1, 4);
}
TEST(CudaDequant, Q8_0) {
    check_type<GGML_TYPE_Q8_0>(dequantize_row_q8_0, 5);
}
TEST(CudaDequant, IQ4_NL) {
    check_type<GGML_TYPE_IQ4_NL>(dequantize_row_iq4_nl, 6);
}
TEST(CudaDequant, Q2_K) {
    check_type<GGML_TYPE_Q2_K>(dequantize_row_q2_K, 7);
}
TEST(CudaDequant, Q3_K) {
    check_type<GGML_TYPE_Q3_K>(dequantize_row_q3_K, 8);
}
TEST(CudaDequant, Q4_K) {
    check_type<GGML_TYPE_Q4_K>(dequantize_row_q4_K, 9);
}
TEST(CudaDequant, Q5_K) {
    check_type<GGML_TYPE_Q5_K>(dequantize_row_q5_K, 10);
}
TEST(CudaDequant, Q6_K) {
    check_type<GGML_TYPE_Q6_K>(dequantize_row_q6_K, 11);
}
TEST(CudaDequant, IQ4_XS) {
    check_type<GGML_TYPE_IQ4_XS>(dequantize_row_iq4_xs, 12);
}

// The codebook copy in the header must equal the CPU's table.
TEST(CudaDequant, Iq4nlCodebook) {
    for (int i = 0; i < 16; ++i) {
        EXPECT_EQ(kvalue_iq4nl(i), ggml_kvalues_iq4nl[i]) << i;
    }
}

// Every one of the 65536 half and bfloat16 bit patterns (NaNs compared as NaNs).
TEST(CudaDequant, F16AndBF16AllBitPatterns) {
    int bad16 = 0, badbf = 0;
    for (uint32_t h = 0; h < 65536; ++h) {
        const float want16 = ggml_fp16_to_fp32((ggml_fp16_t) h);
        const float got16  = dq<GGML_TYPE_F16>::get((uint16_t) h, 0);
        if (std::isnan(want16) ? !std::isnan(got16) : std::memcmp(&want16, &got16, 4) != 0) {
            ++bad16;
        }
        ggml_bf16_t b;
        b.bits             = (uint16_t) h;
        const float wantbf = ggml_bf16_to_fp32(b);
        const float gotbf  = dq<GGML_TYPE_BF16>::get((uint16_t) h, 0);
        if (std::isnan(wantbf) ? !std::isnan(gotbf) : std::memcmp(&wantbf, &gotbf, 4) != 0) {
            ++badbf;
        }
    }
    EXPECT_EQ(bad16, 0);
    EXPECT_EQ(badbf, 0);
}

}  // namespace
