// AVX-512 d[i] = exp(d[i] - m) for soft_max: range reduction by ln 2 (split in two constants), a
// degree-7 Taylor polynomial on |r| <= ln2/2 (relative error < 1e-8 before rounding), and scalef
// for the 2^n factor. Inputs below -110 (incl. -inf) give 0.
#include <immintrin.h>

#include <cmath>
#include <cstdint>

#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

void ggml_cpu_vec_exp_sub_avx512(float * d, int64_t n, float m);

void ggml_cpu_vec_exp_sub_avx512(float * d, int64_t n, float m) {
    const __m512 vm     = _mm512_set1_ps(m);
    const __m512 lo     = _mm512_set1_ps(-110.0f);
    const __m512 log2e  = _mm512_set1_ps(1.44269504088896341f);
    const __m512 ln2_hi = _mm512_set1_ps(0.693145751953125f);
    const __m512 ln2_lo = _mm512_set1_ps(1.428606765330187045e-06f);
    const float  c[8]   = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040};
    int64_t      i      = 0;
    for (; i < n; i += 16) {
        const __mmask16 k = n - i >= 16 ? (__mmask16) 0xffff : (__mmask16) ((1u << (n - i)) - 1);
        __m512          x = _mm512_sub_ps(_mm512_maskz_loadu_ps(k, d + i), vm);
        x                 = _mm512_max_ps(x, lo);  // also maps -inf to -110
        const __m512 t = _mm512_roundscale_ps(_mm512_mul_ps(x, log2e), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m512       r = _mm512_fnmadd_ps(t, ln2_hi, x);
        r              = _mm512_fnmadd_ps(t, ln2_lo, r);
        __m512 p       = _mm512_set1_ps(c[7]);
        for (int j = 6; j >= 0; --j)
            p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c[j]));
        _mm512_mask_storeu_ps(d + i, k, _mm512_scalef_ps(p, t));
    }
}
