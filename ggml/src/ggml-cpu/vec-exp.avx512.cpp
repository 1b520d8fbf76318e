// Vector loops over the AVX-512 exp (vec-exp.avx512.h): d[i] = exp(d[i] - m) for soft_max and
// flash attention, and SwiGLU d[i] = silu(x[i]) * g[i].
#include <cstdint>

#include "ggml-cpu-impl.h"
#include "vec-exp.avx512.h"

// GCC 12's AVX-512 headers build results from _mm512_undefined_*() and warn about it (false positive).
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wuninitialized"
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

void ggml_cpu_vec_exp_sub_avx512(float * d, int64_t n, float m);
void ggml_cpu_swiglu_avx512(const float * x, const float * g, float * d, int64_t n);
void ggml_cpu_soft_max_row_avx512(const float * x, const float * m, float * d, int64_t n, float scale,
                                  float slope);  // softmax.avx512.cpp

const ggml_cpu_vec_exp * ggml_cpu_vec_exp_avx512() {
    static const ggml_cpu_vec_exp k = {ggml_cpu_vec_exp_sub_avx512, ggml_cpu_swiglu_avx512,
                                       ggml_cpu_soft_max_row_avx512};
    return &k;
}

void ggml_cpu_vec_exp_sub_avx512(float * d, int64_t n, float m) {
    const __m512 vm = _mm512_set1_ps(m);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 k = ggml_tail16(n - i);
        _mm512_mask_storeu_ps(d + i, k, ggml_exp512(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, d + i), vm)));
    }
}

void ggml_cpu_swiglu_avx512(const float * x, const float * g, float * d, int64_t n) {
    const __m512 one = _mm512_set1_ps(1.0f);
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 k  = ggml_tail16(n - i);
        const __m512    xv = _mm512_maskz_loadu_ps(k, x + i);
        // silu(x) * g = x / (1 + exp(-x)) * g, the scalar expression with a polynomial exp
        const __m512 s = _mm512_div_ps(xv, _mm512_add_ps(one, ggml_exp512(_mm512_sub_ps(_mm512_setzero_ps(), xv))));
        _mm512_mask_storeu_ps(d + i, k, _mm512_mul_ps(s, _mm512_maskz_loadu_ps(k, g + i)));
    }
}
