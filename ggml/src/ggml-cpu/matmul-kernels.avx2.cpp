// AVX2 + FMA + F16C mul_mat micro-kernels (8 lanes; the tail of K goes through a zero-padded copy).
#include "matmul-kernels.h"

#include <immintrin.h>

#include <cstring>

namespace {

template <int T>
inline __m256 load_a(const char * row, int64_t k) {
    if (T == GGML_TYPE_F32) {
        return _mm256_loadu_ps((const float *) row + k);
    }
    const __m128i h = _mm_loadu_si128((const __m128i *) ((const uint16_t *) row + k));
    if (T == GGML_TYPE_F16) {
        return _mm256_cvtph_ps(h);
    }
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

inline float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s        = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s        = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// PF (decode GEMV): also prefetch the next RM rows at the same offset, one prefetch per cache line
// (see matmul-kernels.avx512.cpp).
template <int T, int RM, int RN, bool PF = false>
void kernel(int64_t K, const char * a, size_t lda, const float * const * b, float * const * out) {
    constexpr size_t es = T == GGML_TYPE_F32 ? 4 : 2;
    __m256           acc[RM][RN];
    for (int r = 0; r < RM; ++r)
        for (int c = 0; c < RN; ++c)
            acc[r][c] = _mm256_setzero_ps();
    int64_t k = 0;
    for (; k + 8 <= K; k += 8) {
        __m256 vb[RN];
        for (int c = 0; c < RN; ++c)
            vb[c] = _mm256_loadu_ps(b[c] + k);
        if (PF && (k & (es == 4 ? 8 : 24)) == 0) {
            for (int r = 0; r < RM; ++r)
                _mm_prefetch(a + (RM + r) * lda + (size_t) k * es, _MM_HINT_NTA);
        }
        for (int r = 0; r < RM; ++r) {
            const __m256 va = load_a<T>(a + r * lda, k);
            for (int c = 0; c < RN; ++c)
                acc[r][c] = _mm256_fmadd_ps(va, vb[c], acc[r][c]);
        }
    }
    if (k < K) {
        const size_t      n = (size_t) (K - k);
        alignas(32) float bt[RN][8];
        alignas(32) char  at[RM][32];
        __m256            vb[RN];
        for (int c = 0; c < RN; ++c) {
            std::memset(bt[c], 0, sizeof(bt[c]));
            std::memcpy(bt[c], b[c] + k, n * 4);
            vb[c] = _mm256_load_ps(bt[c]);
        }
        for (int r = 0; r < RM; ++r) {
            std::memset(at[r], 0, sizeof(at[r]));
            std::memcpy(at[r], a + r * lda + k * es, n * es);
            const __m256 va = load_a<T>(at[r], 0);
            for (int c = 0; c < RN; ++c)
                acc[r][c] = _mm256_fmadd_ps(va, vb[c], acc[r][c]);
        }
    }
    for (int r = 0; r < RM; ++r)
        for (int c = 0; c < RN; ++c)
            out[c][r] = hsum(acc[r][c]);
}

constexpr int RM = 4, RN = 2, RM1 = 8;

#include "matmul-kernels-table.h"  // the kernel tables, their lookup and the decode GEMV

}  // namespace

const ggml_cpu_mm_isa * ggml_cpu_mm_isa_avx2() {
    return &k_isa;
}
