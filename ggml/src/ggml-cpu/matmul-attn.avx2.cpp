// AVX2 micro-kernels of the KQ MUL_MAT (matmul-attn.h): 6 rows x 16 keys in 12 accumulators, and the
// F16 -> F32 transposition that packs kt.
#include <immintrin.h>

#include "matmul-attn.h"
#include "vec-f32.avx2.h"

namespace {

constexpr int RK = 6;

#include "matmul-attn-kq.h"  // kq<V>: the KQ kernel, written once for every instruction set

// rows widened 8 at a time by vcvtph2ps, scattered as columns
void transpose_f16(int R, int C, const uint16_t * src, size_t lds, float * dst, int ldd) {
    for (int r = 0; r < R; ++r) {
        const uint16_t * s = src + (size_t) r * lds;
        for (int c0 = 0; c0 < C; c0 += 8) {
            alignas(32) float t[8];
            if (C - c0 >= 8) {
                _mm256_store_ps(t, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (s + c0))));
            } else {
                alignas(16) uint16_t h[8] = {0};
                for (int i = 0; i < C - c0; ++i)
                    h[i] = s[c0 + i];
                _mm256_store_ps(t, _mm256_cvtph_ps(_mm_load_si128((const __m128i *) h)));
            }
            for (int i = 0; i < 8 && c0 + i < C; ++i)
                dst[(size_t) (c0 + i) * ldd + r] = t[i];
        }
    }
}

const ggml_cpu_attn_mm_isa k_isa = {RK, kq<vf_avx2>, transpose_f16};

}  // namespace

const ggml_cpu_attn_mm_isa * ggml_cpu_attn_mm_avx2() {
    return &k_isa;
}
