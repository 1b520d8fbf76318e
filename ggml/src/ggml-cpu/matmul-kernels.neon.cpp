// ARMv8.0 NEON mul_mat micro-kernels (matmul-kernels.h). Each dot product runs in two 4-lane
// accumulators over steps of 8 (lanes k..k+3 in the first, k+4..k+7 in the second: two independent
// FMA chains hide the FMA latency), then one fixed horizontal sum; the tail of K goes through a
// zero-padded copy. Every (RM, RN) variant and the GEMV do exactly this, so the sums never depend on
// the blocking. F16 weights widen with FCVTL (base ARMv8.0), BF16 by a 16-bit left shift.
#include <arm_neon.h>

#include <cstring>

#include "matmul-kernels.h"

namespace {

template <int T>
inline float32x4_t load_a(const char * row, int64_t k) {
    if (T == GGML_TYPE_F32)
        return vld1q_f32((const float *) row + k);
    const uint16x4_t h = vld1_u16((const uint16_t *) row + k);
    if (T == GGML_TYPE_F16)
        return vcvt_f32_f16(vreinterpret_f16_u16(h));
    return vreinterpretq_f32_u32(vshll_n_u16(h, 16));
}

// PF (decode GEMV): also prefetch the next RM rows at the same offset, once per 64-byte line.
template <int T, int RM, int RN, bool PF = false>
void kernel(int64_t K, const char * a, size_t lda, const float * const * b, float * const * out) {
    constexpr size_t es = T == GGML_TYPE_F32 ? 4 : 2;
    float32x4_t      acc0[RM][RN], acc1[RM][RN];
    for (int r = 0; r < RM; ++r)
        for (int c = 0; c < RN; ++c)
            acc0[r][c] = acc1[r][c] = vdupq_n_f32(0.0f);
    int64_t k = 0;
    for (; k + 8 <= K; k += 8) {
        float32x4_t vb0[RN], vb1[RN];
        for (int c = 0; c < RN; ++c) {
            vb0[c] = vld1q_f32(b[c] + k);
            vb1[c] = vld1q_f32(b[c] + k + 4);
        }
        if (PF && (k & (es == 4 ? 8 : 24)) == 0) {
            for (int r = 0; r < RM; ++r) {
#if defined(_MSC_VER) && !defined(__clang__)
                __prefetch(a + (RM + r) * lda + (size_t) k * es);
#else
                __builtin_prefetch(a + (RM + r) * lda + (size_t) k * es, 0, 0);
#endif
            }
        }
        for (int r = 0; r < RM; ++r) {
            const float32x4_t va0 = load_a<T>(a + r * lda, k);
            const float32x4_t va1 = load_a<T>(a + r * lda, k + 4);
            for (int c = 0; c < RN; ++c) {
                acc0[r][c] = vfmaq_f32(acc0[r][c], va0, vb0[c]);
                acc1[r][c] = vfmaq_f32(acc1[r][c], va1, vb1[c]);
            }
        }
    }
    if (k < K) {
        const size_t      n = (size_t) (K - k);
        alignas(16) float bt[RN][8];
        alignas(16) char  at[RM][32];
        float32x4_t       vb0[RN], vb1[RN];
        for (int c = 0; c < RN; ++c) {
            std::memset(bt[c], 0, sizeof(bt[c]));
            std::memcpy(bt[c], b[c] + k, n * 4);
            vb0[c] = vld1q_f32(bt[c]);
            vb1[c] = vld1q_f32(bt[c] + 4);
        }
        for (int r = 0; r < RM; ++r) {
            std::memset(at[r], 0, sizeof(at[r]));
            std::memcpy(at[r], a + r * lda + k * es, n * es);
            const float32x4_t va0 = load_a<T>(at[r], 0);
            const float32x4_t va1 = load_a<T>(at[r], 4);
            for (int c = 0; c < RN; ++c) {
                acc0[r][c] = vfmaq_f32(acc0[r][c], va0, vb0[c]);
                acc1[r][c] = vfmaq_f32(acc1[r][c], va1, vb1[c]);
            }
        }
    }
    for (int r = 0; r < RM; ++r)
        for (int c = 0; c < RN; ++c)
            out[c][r] = vaddvq_f32(vaddq_f32(acc0[r][c], acc1[r][c]));
}

// 32 vector registers: RM x RN x 2 accumulators + the operands. 4 x 3 uses 24 accumulators,
// 8 x 1 (decode) 16.
constexpr int RM = 4, RN = 3, RM1 = 8;

#include "matmul-kernels-table.h"  // the kernel tables, their lookup and the decode GEMV

}  // namespace

const ggml_cpu_mm_isa * ggml_cpu_mm_isa_neon() {
    return &k_isa;
}
