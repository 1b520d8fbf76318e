// arm64 BF16 GEMM micro-kernels at the i8mm level (matmul-gemm.h), which implies FEAT_BF16. BFMMLA
// multiplies a 2 x 4 BF16 block of weights (two rows, four k) by a 4 x 2 block of a panel (four k,
// two columns) into a 2 x 2 F32 block: 16 multiply-adds per instruction, four times FMLA .4s. So the
// panels come in k quads (KG = 4): one 16-byte load is a column pair's four k. A call takes up to 2
// row pairs (MR = 4) against a panel of 16 columns (8 column pairs): 16 accumulators, each pair's
// weights loaded once per quad as the two 8-byte halves of one register (LDR D + LD1 lane), each
// column pair once for 2 instructions. Per quad: 16 BFMMLA, 4 weight loads, 4 LDP Q (+ 6 address
// and loop instructions): 256 multiply-adds in 30 instructions, 0.12 per multiply-add; the FMLA
// kernel (matmul-kernels.neon.cpp, BF16 4 x 3) needs 0.25 FMLA per multiply-add alone and 0.82
// instructions in all (SHLL widening, loads, spills). 3 row pairs (24 accumulators) would save a
// few loads, but GCC then hoists the 8 panel loads and spills accumulators.
//
// Rounding: without FEAT_EBF16 (or with FPCR.EBF = 0, as Linux leaves it) BFMMLA ignores the FPCR:
// each 2-way sum and each addition to the accumulator is rounded to odd, denormal inputs and results
// are flushed to zero. The BF16 products are exact in F32; the extra error over round-to-nearest is
// at most one F32 ulp per step, far below the 2^-9 of rounding the activations to BF16.
#include <arm_neon.h>

#include <cstring>

#include "matmul-gemm.h"

namespace {

constexpr int NP = 16, MR = 4, KG = 4, CP = NP / 2;

// BF16 bits as the instruction's operand type (the data is written as uint16_t).
inline bfloat16x8_t load_bf(const uint16_t * p) {
    return vreinterpretq_bf16_u16(vld1q_u16(p));
}

// Rows r and r + 1 of one k quad as one BFMMLA operand: r's four k in the low half, r + 1's in the
// high half (zero when r + 1 is past mr).
inline bfloat16x8_t load_pair(const uint16_t * r0, const uint16_t * r1, bool one) {
    uint64_t lo, hi = 0;
    std::memcpy(&lo, r0, 8);
    uint64x2_t v = vcombine_u64(vcreate_u64(lo), vdup_n_u64(0));  // LDR D
    if (!one) {
        std::memcpy(&hi, r1, 8);
        v = vsetq_lane_u64(hi, v, 1);  // LD1 {v.d}[1]
    }
    return vreinterpretq_bf16_u64(v);
}

// The accumulator of row pair p, column pair q holds {c[2p][2q], c[2p][2q+1], c[2p+1][2q], c[2p+1][2q+1]}.
// P row pairs; ODD: the last pair has one row.
template <int P, bool ODD>
void k_bf16(int64_t kg, int tail, const uint16_t * a, size_t lda, const uint16_t * bp, float * c, bool first) {
    float32x4_t acc[P][CP];
    for (int p = 0; p < P; ++p) {
        const bool one = ODD && p == P - 1;
        for (int q = 0; q < CP; ++q) {
            const float * c0 = c + 2 * p * NP + 2 * q;
            acc[p][q] =
                first ? vdupq_n_f32(0.0f) : vcombine_f32(vld1_f32(c0), one ? vdup_n_f32(0.0f) : vld1_f32(c0 + NP));
        }
    }
    for (int64_t g = 0; g < kg; ++g) {
        bfloat16x8_t va[P];
        for (int p = 0; p < P; ++p)
            va[p] = load_pair(a + 2 * p * lda + KG * g, a + (2 * p + 1) * lda + KG * g, ODD && p == P - 1);
        const uint16_t * b = bp + g * KG * NP;
        for (int q = 0; q < CP; ++q) {
            const bfloat16x8_t vb = load_bf(b + 2 * KG * q);
            for (int p = 0; p < P; ++p)
                acc[p][q] = vbfmmlaq_f32(acc[p][q], va[p], vb);
        }
    }
    if (tail > 0) {
        // the last 1..3 k of each row, zero-padded: the bits past the row may be anything (NaN)
        uint16_t at[2 * P][KG] = {};
        for (int r = 0; r < 2 * P - (ODD ? 1 : 0); ++r)
            std::memcpy(at[r], a + r * lda + KG * kg, (size_t) tail * 2);
        bfloat16x8_t va[P];
        for (int p = 0; p < P; ++p)
            va[p] = load_pair(at[2 * p], at[2 * p + 1], false);
        const uint16_t * b = bp + kg * KG * NP;
        for (int q = 0; q < CP; ++q) {
            const bfloat16x8_t vb = load_bf(b + 2 * KG * q);
            for (int p = 0; p < P; ++p)
                acc[p][q] = vbfmmlaq_f32(acc[p][q], va[p], vb);
        }
    }
    for (int p = 0; p < P; ++p)
        for (int q = 0; q < CP; ++q) {
            float * c0 = c + 2 * p * NP + 2 * q;
            vst1_f32(c0, vget_low_f32(acc[p][q]));
            if (!(ODD && p == P - 1))
                vst1_f32(c0 + NP, vget_high_f32(acc[p][q]));
        }
}

using bf16_fn = void (*)(int64_t, int, const uint16_t *, size_t, const uint16_t *, float *, bool);

constexpr bf16_fn k_bf16_tab[MR] = {k_bf16<1, true>, k_bf16<1, false>, k_bf16<2, true>, k_bf16<2, false>};

void bf16(int mr, int64_t kg, int tail, const uint16_t * a, size_t lda, const uint16_t * bp, float * c, bool first) {
    k_bf16_tab[mr - 1](kg, tail, a, lda, bp, c, first);
}

const ggml_cpu_gemm_isa k_isa = {NP, MR, KG, bf16};

}  // namespace

const ggml_cpu_gemm_isa * ggml_cpu_gemm_isa_i8mm() {
    return &k_isa;
}
