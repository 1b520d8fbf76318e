// AVX-512 soft_max row for F32 scores and an optional F32 mask (the plain attention at long
// contexts, where the rows are thousands of keys): three passes instead of five, the first two
// fused with the scale/mask/max and the sum, the exp inlined (vec-exp.avx512.h).
#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "vec-exp.avx512.h"

// GCC 12's AVX-512 headers build results from _mm512_undefined_*() and warn about it (false positive).
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wuninitialized"
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// d[i] = softmax(x * scale + slope * m)[i] (m may be NULL); a row that is -inf everywhere gives 0.
void ggml_cpu_soft_max_row_avx512(const float * x, const float * m, float * d, int64_t n, float scale, float slope);

void ggml_cpu_soft_max_row_avx512(const float * x, const float * m, float * d, int64_t n, float scale, float slope) {
    const __m512 vs = _mm512_set1_ps(scale), vsl = _mm512_set1_ps(slope);
    __m512       vmax = _mm512_set1_ps(-INFINITY);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 k = ggml_tail16(n - i);
        __m512          v = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, x + i), vs);
        if (m)
            v = _mm512_fmadd_ps(vsl, _mm512_maskz_loadu_ps(k, m + i), v);
        _mm512_mask_storeu_ps(d + i, k, v);
        vmax = _mm512_mask_max_ps(vmax, k, vmax, v);
    }
    const float mx = _mm512_reduce_max_ps(vmax);
    if (mx == -INFINITY) {
        for (int64_t i = 0; i < n; i += 16)
            _mm512_mask_storeu_ps(d + i, ggml_tail16(n - i), _mm512_setzero_ps());
        return;
    }
    const __m512 vm  = _mm512_set1_ps(mx);
    __m512       sum = _mm512_setzero_ps();
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 k = ggml_tail16(n - i);
        const __m512    e = ggml_exp512(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, d + i), vm));
        _mm512_mask_storeu_ps(d + i, k, e);
        sum = _mm512_mask_add_ps(sum, k, sum, e);
    }
    const __m512 inv = _mm512_set1_ps((float) (1.0 / (double) _mm512_reduce_add_ps(sum)));
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 k = ggml_tail16(n - i);
        _mm512_mask_storeu_ps(d + i, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, d + i), inv));
    }
}
