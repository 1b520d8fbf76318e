// AVX2 micro-kernels of the KQ MUL_MAT (matmul-attn.h): 6 rows x 16 keys in 12 accumulators, and the
// F16 -> F32 transposition that packs kt.
#include <immintrin.h>

#include "matmul-attn.h"

namespace {

constexpr int RK = 6;

// stores the first n (< 8 allowed) lanes of v
inline void store_n(float * d, __m256 v, int n) {
    if (n >= 8) {
        _mm256_storeu_ps(d, v);
        return;
    }
    alignas(32) float t[8];
    _mm256_store_ps(t, v);
    for (int i = 0; i < n; ++i)
        d[i] = t[i];
}

template <int R>
void kq_rows(int nk, int D, const float * const * q, const float * kt, int ldk, float * const * s) {
    for (int j = 0; j < nk; j += 16) {
        __m256 acc[R][2];
        for (int r = 0; r < R; ++r)
            acc[r][0] = acc[r][1] = _mm256_setzero_ps();
        const float * kp = kt + j;
        for (int d = 0; d < D; ++d) {
            const __m256 b0 = _mm256_loadu_ps(kp + (size_t) d * ldk);
            const __m256 b1 = _mm256_loadu_ps(kp + (size_t) d * ldk + 8);
            for (int r = 0; r < R; ++r) {
                const __m256 a = _mm256_broadcast_ss(q[r] + d);
                acc[r][0]      = _mm256_fmadd_ps(a, b0, acc[r][0]);
                acc[r][1]      = _mm256_fmadd_ps(a, b1, acc[r][1]);
            }
        }
        for (int r = 0; r < R; ++r) {
            store_n(s[r] + j, acc[r][0], nk - j);
            if (nk - j > 8)
                store_n(s[r] + j + 8, acc[r][1], nk - j - 8);
        }
    }
}

using kq_fn                = void (*)(int, int, const float * const *, const float *, int, float * const *);
constexpr kq_fn kq_tab[RK] = {kq_rows<1>, kq_rows<2>, kq_rows<3>, kq_rows<4>, kq_rows<5>, kq_rows<6>};

void kq(int nr, int nk, int D, const float * const * q, const float * kt, int ldk, float * const * s) {
    for (int c = 0; c < nr; c += RK) {
        const int r = nr - c < RK ? nr - c : RK;
        kq_tab[r - 1](nk, D, q + c, kt, ldk, s + c);
    }
}

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

const ggml_cpu_attn_mm_isa k_isa = {RK, kq, transpose_f16};

}  // namespace

const ggml_cpu_attn_mm_isa * ggml_cpu_attn_mm_avx2() {
    return &k_isa;
}
