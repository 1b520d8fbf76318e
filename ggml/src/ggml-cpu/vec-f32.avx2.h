// The F32 vector trait of the kernels written once for every instruction set (ops-attn-pv.h,
// matmul-attn-kq.h), for AVX2 + FMA: 8 lanes. Include only from files compiled with -mavx2 -mfma.
#pragma once

#include <immintrin.h>

struct vf_avx2 {
    using reg              = __m256;
    static constexpr int W = 8;
    static reg           zero() { return _mm256_setzero_ps(); }
    static reg           load(const float * p) { return _mm256_loadu_ps(p); }
    static void          store(float * p, reg v) { _mm256_storeu_ps(p, v); }
    static reg           fma_n(reg acc, reg x, float w) { return _mm256_fmadd_ps(_mm256_set1_ps(w), x, acc); }
};
