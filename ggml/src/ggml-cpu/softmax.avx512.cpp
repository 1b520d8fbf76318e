// AVX-512 soft_max row for F32 scores and an optional F32 mask (the plain attention at long
// contexts, where the rows are thousands of keys): three passes instead of five, the first two
// fused with the scale/mask/max and the sum, the exp inlined (the polynomial of vec-exp.avx512.cpp).
#include <immintrin.h>

#include <cmath>
#include <cstdint>

#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// d[i] = softmax(x * scale + slope * m)[i] (m may be NULL); a row that is -inf everywhere gives 0.
void ggml_cpu_soft_max_row_avx512(const float * x, const float * m, float * d, int64_t n, float scale, float slope);

namespace {

inline __mmask16 tail(int64_t rem) {
    return rem >= 16 ? (__mmask16) 0xffff : (__mmask16) ((1u << rem) - 1);
}

// exp(x) with x <= 0: range reduction by ln 2 (two constants), degree-7 Taylor, scalef; x below
// -110 (incl. -inf) gives 0
inline __m512 exp_neg(__m512 x) {
    x              = _mm512_max_ps(x, _mm512_set1_ps(-110.0f));
    const __m512 t = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512       r = _mm512_fnmadd_ps(t, _mm512_set1_ps(0.693145751953125f), x);
    r              = _mm512_fnmadd_ps(t, _mm512_set1_ps(1.428606765330187045e-06f), r);
    __m512 p       = _mm512_set1_ps(1.0f / 5040);
    p              = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720));
    p              = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
    p              = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
    p              = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
    p              = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p              = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p              = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(p, t);
}

}  // namespace

void ggml_cpu_soft_max_row_avx512(const float * x, const float * m, float * d, int64_t n, float scale, float slope) {
    const __m512 vs = _mm512_set1_ps(scale), vsl = _mm512_set1_ps(slope);
    __m512       vmax = _mm512_set1_ps(-INFINITY);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 k = tail(n - i);
        __m512          v = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, x + i), vs);
        if (m)
            v = _mm512_fmadd_ps(vsl, _mm512_maskz_loadu_ps(k, m + i), v);
        _mm512_mask_storeu_ps(d + i, k, v);
        vmax = _mm512_mask_max_ps(vmax, k, vmax, v);
    }
    const float mx = _mm512_reduce_max_ps(vmax);
    if (mx == -INFINITY) {
        for (int64_t i = 0; i < n; i += 16)
            _mm512_mask_storeu_ps(d + i, tail(n - i), _mm512_setzero_ps());
        return;
    }
    const __m512 vm  = _mm512_set1_ps(mx);
    __m512       sum = _mm512_setzero_ps();
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 k = tail(n - i);
        const __m512    e = exp_neg(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, d + i), vm));
        _mm512_mask_storeu_ps(d + i, k, e);
        sum = _mm512_mask_add_ps(sum, k, sum, e);
    }
    const __m512 inv = _mm512_set1_ps((float) (1.0 / (double) _mm512_reduce_add_ps(sum)));
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 k = tail(n - i);
        _mm512_mask_storeu_ps(d + i, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, d + i), inv));
    }
}
