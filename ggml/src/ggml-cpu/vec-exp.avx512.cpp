// AVX-512 d[i] = exp(d[i] - m) for soft_max: range reduction by ln 2 (split in two constants), a
// degree-7 Taylor polynomial on |r| <= ln2/2 (relative error < 1e-8 before rounding), and scalef
// for the 2^n factor. Inputs below -110 (incl. -inf) give 0. The same exp gives the gated
// activations of the feed-forward block: SwiGLU and GEGLU (tanh form), as x / (1 + exp(-z)).
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

namespace {

// exp(x), x clamped to [-110, 88.5] (the float range; callers divide by 1 + exp, so inf never helps)
inline __m512 exp512(__m512 x) {
    const float c[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040};
    x                = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-110.0f)), _mm512_set1_ps(88.5f));
    const __m512 t   = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512       r   = _mm512_fnmadd_ps(t, _mm512_set1_ps(0.693145751953125f), x);
    r                = _mm512_fnmadd_ps(t, _mm512_set1_ps(1.428606765330187045e-06f), r);
    __m512 p         = _mm512_set1_ps(c[7]);
    for (int j = 6; j >= 0; --j)
        p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c[j]));
    return _mm512_scalef_ps(p, t);
}

// d = act(x) * g with act(x) = x / (1 + exp(-z(x)))
template <typename Z>
void gated(const float * x, const float * g, float * d, int64_t n, Z z) {
    const __m512 one = _mm512_set1_ps(1.0f);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 k  = n - i >= 16 ? (__mmask16) 0xffff : (__mmask16) ((1u << (n - i)) - 1);
        const __m512    xv = _mm512_maskz_loadu_ps(k, x + i);
        const __m512    gv = _mm512_maskz_loadu_ps(k, g + i);
        const __m512    e  = exp512(_mm512_sub_ps(_mm512_setzero_ps(), z(xv)));
        _mm512_mask_storeu_ps(d + i, k, _mm512_div_ps(_mm512_mul_ps(xv, gv), _mm512_add_ps(one, e)));
    }
}

}  // namespace

void ggml_cpu_vec_swiglu_avx512(const float * x, const float * g, float * d, int64_t n);
void ggml_cpu_vec_geglu_avx512(const float * x, const float * g, float * d, int64_t n);

void ggml_cpu_vec_swiglu_avx512(const float * x, const float * g, float * d, int64_t n) {
    gated(x, g, d, n, [](__m512 v) { return v; });  // silu(x) = x * sigmoid(x)
}

void ggml_cpu_vec_geglu_avx512(const float * x, const float * g, float * d, int64_t n) {
    // 0.5 x (1 + tanh(y)) = x / (1 + exp(-2y)), y = sqrt(2/pi) x (1 + 0.044715 x^2)
    gated(x, g, d, n, [](__m512 v) {
        const __m512 v2 = _mm512_mul_ps(v, v);
        const __m512 y  = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(2.0f * 0.79788456080286535588f), v),
                                        _mm512_fmadd_ps(_mm512_set1_ps(0.044715f), v2, _mm512_set1_ps(1.0f)));
        return y;
    });
}
