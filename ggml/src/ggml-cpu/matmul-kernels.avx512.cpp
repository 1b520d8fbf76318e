// AVX-512 mul_mat micro-kernels (16 lanes; masked loads for the tail of K).
#include "matmul-kernels.h"

#include <immintrin.h>

// GCC 12's AVX-512 headers build casts from a self-initialized "undefined" vector, which
// -Wuninitialized reports at every inlined use; the value is never read.
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wuninitialized"
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace {

template <int T>
inline __m512 load_a(const char * row, int64_t k, __mmask16 m, bool tail) {
    if (T == GGML_TYPE_F32) {
        const float * p = (const float *) row + k;
        return tail ? _mm512_maskz_loadu_ps(m, p) : _mm512_loadu_ps(p);
    }
    const uint16_t * p = (const uint16_t *) row + k;
    const __m256i    h = tail ? _mm256_maskz_loadu_epi16(m, p) : _mm256_loadu_si256((const __m256i *) p);
    if (T == GGML_TYPE_F16) {
        return _mm512_cvtph_ps(h);
    }
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));  // bf16: high half of f32
}

// fixed-order horizontal sum (the header's _mm512_reduce_add_ps trips a GCC 12 warning)
inline float hsum(__m512 v) {
    const __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
    __m128       s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    s              = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s              = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// PF (decode GEMV): also prefetch the next RM rows at the same offset, one prefetch per cache line,
// so the memory system sees one stream running a group ahead of the reads (rows of 2048 F16 weights
// are one 4 KB page each, which the hardware prefetchers do not run ahead across).
template <int T, int RM, int RN, bool PF = false>
void kernel(int64_t K, const char * a, size_t lda, const float * const * b, float * const * out) {
    constexpr int64_t es = T == GGML_TYPE_F32 ? 4 : 2;
    __m512            acc[RM][RN];
    for (int r = 0; r < RM; ++r)
        for (int c = 0; c < RN; ++c)
            acc[r][c] = _mm512_setzero_ps();
    int64_t k = 0;
    for (; k + 16 <= K; k += 16) {
        __m512 vb[RN];
        for (int c = 0; c < RN; ++c)
            vb[c] = _mm512_loadu_ps(b[c] + k);
        if (PF && (es == 4 || (k & 16) == 0)) {
            for (int r = 0; r < RM; ++r)
                _mm_prefetch(a + (RM + r) * lda + k * es, _MM_HINT_NTA);
        }
        for (int r = 0; r < RM; ++r) {
            const __m512 va = load_a<T>(a + r * lda, k, 0, false);
            for (int c = 0; c < RN; ++c)
                acc[r][c] = _mm512_fmadd_ps(va, vb[c], acc[r][c]);
        }
    }
    if (k < K) {
        const __mmask16 m = (__mmask16) ((1u << (K - k)) - 1);
        __m512          vb[RN];
        for (int c = 0; c < RN; ++c)
            vb[c] = _mm512_maskz_loadu_ps(m, b[c] + k);
        for (int r = 0; r < RM; ++r) {
            const __m512 va = load_a<T>(a + r * lda, k, m, true);
            for (int c = 0; c < RN; ++c)
                acc[r][c] = _mm512_fmadd_ps(va, vb[c], acc[r][c]);
        }
    }
    for (int r = 0; r < RM; ++r)
        for (int c = 0; c < RN; ++c)
            out[c][r] = hsum(acc[r][c]);
}

constexpr int RM = 4, RN = 4, RM1 = 8;

#include "matmul-kernels-table.h"  // the kernel tables, their lookup and the decode GEMV

}  // namespace

const ggml_cpu_mm_isa * ggml_cpu_mm_isa_avx512() {
    return &k_isa;
}
