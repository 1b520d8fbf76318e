// The AVX-512 exp shared by the soft_max, flash-attention and GLU kernels (include only from files
// compiled for AVX-512, *.avx512.cpp): range reduction by ln 2 (split in two constants), a degree-7
// Taylor polynomial on |r| <= ln2/2 (relative error < 1e-8 before rounding), and scalef for the 2^n
// factor. Inputs below -110 (incl. -inf) give 0; above 89, +inf.
#pragma once

#include <immintrin.h>

static inline __m512 ggml_exp512(__m512 x) {
    x              = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-110.0f)), _mm512_set1_ps(89.0f));
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

// Mask of the first min(rem, 16) lanes.
static inline __mmask16 ggml_tail16(int64_t rem) {
    return rem >= 16 ? (__mmask16) 0xffff : (__mmask16) ((1u << rem) - 1);
}
