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

template <int T>
struct tables {
    static constexpr ggml_cpu_mm_kernel one[RM1] = {kernel<T, 1, 1>, kernel<T, 2, 1>, kernel<T, 3, 1>, kernel<T, 4, 1>,
                                                    kernel<T, 5, 1>, kernel<T, 6, 1>, kernel<T, 7, 1>, kernel<T, 8, 1>};
    static constexpr ggml_cpu_mm_kernel many[RN - 1][RM] = {
        {kernel<T, 1, 2>, kernel<T, 2, 2>, kernel<T, 3, 2>, kernel<T, 4, 2>},
        {kernel<T, 1, 3>, kernel<T, 2, 3>, kernel<T, 3, 3>, kernel<T, 4, 3>},
    };
};

template <int T>
ggml_cpu_mm_kernel pick(int rm, int rn) {
    if (rn == 1)
        return rm >= 1 && rm <= RM1 ? tables<T>::one[rm - 1] : nullptr;
    return rm >= 1 && rm <= RM && rn >= 2 && rn <= RN ? tables<T>::many[rn - 2][rm - 1] : nullptr;
}

ggml_cpu_mm_kernel get(ggml_type t, int rm, int rn) {
    switch (t) {
        case GGML_TYPE_F32:
            return pick<GGML_TYPE_F32>(rm, rn);
        case GGML_TYPE_F16:
            return pick<GGML_TYPE_F16>(rm, rn);
        case GGML_TYPE_BF16:
            return pick<GGML_TYPE_BF16>(rm, rn);
        default:
            return nullptr;
    }
}

// Decode: M weight rows against one activation row, RM1 rows per pass, each pass prefetching the
// next; the same kernels (and so the same sums) as the tiled path.
template <int T>
void gemv_t(int64_t K, const char * a, size_t lda, int64_t M, const float * b, float * out) {
    int64_t r = 0;
    for (; r + 2 * RM1 <= M; r += RM1) {
        float * o = out + r;
        kernel<T, RM1, 1, true>(K, a + r * lda, lda, &b, &o);
    }
    for (; r < M;) {
        const int rm = (int) (M - r < RM1 ? M - r : RM1);
        float *   o  = out + r;
        tables<T>::one[rm - 1](K, a + r * lda, lda, &b, &o);
        r += rm;
    }
}

void gemv(ggml_type t, int64_t K, const char * a, size_t lda, int64_t M, const float * b, float * out) {
    switch (t) {
        case GGML_TYPE_F32:
            gemv_t<GGML_TYPE_F32>(K, a, lda, M, b, out);
            break;
        case GGML_TYPE_F16:
            gemv_t<GGML_TYPE_F16>(K, a, lda, M, b, out);
            break;
        default:
            gemv_t<GGML_TYPE_BF16>(K, a, lda, M, b, out);
            break;
    }
}

const ggml_cpu_mm_isa k_isa = {RM, RN, RM1, get, gemv};

}  // namespace

const ggml_cpu_mm_isa * ggml_cpu_mm_isa_neon() {
    return &k_isa;
}
