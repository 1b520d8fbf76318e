// AVX-512 micro-kernels of the KQ MUL_MAT (matmul-attn.h): 8 rows x 32 keys in 16 accumulators, per
// d two loads of kt and 8 broadcasts; and the F16 -> F32 transposition that packs kt.
#include <immintrin.h>

#include "matmul-attn.h"

// GCC 12's maskz intrinsics read an undefined placeholder vector (false positives)
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wuninitialized"
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace {

inline __mmask16 tail_mask(int rem) {
    return rem >= 16 ? (__mmask16) 0xffff : rem <= 0 ? (__mmask16) 0 : (__mmask16) ((1u << rem) - 1);
}

constexpr int RK = 8;

template <int R>
void kq_rows(int nk, int D, const float * const * q, const float * kt, int ldk, float * const * s) {
    for (int j = 0; j < nk; j += 32) {
        __m512 acc[R][2];
        for (int r = 0; r < R; ++r)
            acc[r][0] = acc[r][1] = _mm512_setzero_ps();
        const float * kp = kt + j;
        for (int d = 0; d < D; ++d) {
            const __m512 b0 = _mm512_loadu_ps(kp + (size_t) d * ldk);
            const __m512 b1 = _mm512_loadu_ps(kp + (size_t) d * ldk + 16);
            for (int r = 0; r < R; ++r) {
                const __m512 a = _mm512_set1_ps(q[r][d]);
                acc[r][0]      = _mm512_fmadd_ps(a, b0, acc[r][0]);
                acc[r][1]      = _mm512_fmadd_ps(a, b1, acc[r][1]);
            }
        }
        const __mmask16 m0 = tail_mask(nk - j), m1 = tail_mask(nk - j - 16);
        for (int r = 0; r < R; ++r) {
            _mm512_mask_storeu_ps(s[r] + j, m0, acc[r][0]);
            _mm512_mask_storeu_ps(s[r] + j + 16, m1, acc[r][1]);
        }
    }
}

using kq_fn                = void (*)(int, int, const float * const *, const float *, int, float * const *);
constexpr kq_fn kq_tab[RK] = {kq_rows<1>, kq_rows<2>, kq_rows<3>, kq_rows<4>,
                              kq_rows<5>, kq_rows<6>, kq_rows<7>, kq_rows<8>};

void kq(int nr, int nk, int D, const float * const * q, const float * kt, int ldk, float * const * s) {
    for (int c = 0; c < nr; c += RK) {
        const int r = nr - c < RK ? nr - c : RK;
        kq_tab[r - 1](nk, D, q + c, kt, ldk, s + c);
    }
}

// 16 x 16 blocks: rows widened by vcvtph2ps, transposed in registers (unpack ps, unpack pd, two
// rounds of 128-bit lane shuffles), stored as columns with the row mask.
void transpose_f16(int R, int C, const uint16_t * src, size_t lds, float * dst, int ldd) {
    for (int r0 = 0; r0 < R; r0 += 16) {
        const __mmask16 rm = tail_mask(R - r0);
        for (int c0 = 0; c0 < C; c0 += 16) {
            const __mmask16 cm = tail_mask(C - c0);
            __m512          x[16], a[16];
            for (int i = 0; i < 16; ++i)
                x[i] = r0 + i < R ? _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(cm, src + (size_t) (r0 + i) * lds + c0))
                                  : _mm512_setzero_ps();
            for (int i = 0; i < 8; ++i) {
                a[2 * i]     = _mm512_unpacklo_ps(x[2 * i], x[2 * i + 1]);
                a[2 * i + 1] = _mm512_unpackhi_ps(x[2 * i], x[2 * i + 1]);
            }
            for (int i = 0; i < 4; ++i) {  // x[4i + k], lane L: column 4L + k of rows 4i .. 4i + 3
                const __m512d a0 = _mm512_castps_pd(a[4 * i]), a1 = _mm512_castps_pd(a[4 * i + 1]);
                const __m512d a2 = _mm512_castps_pd(a[4 * i + 2]), a3 = _mm512_castps_pd(a[4 * i + 3]);
                x[4 * i]     = _mm512_castpd_ps(_mm512_unpacklo_pd(a0, a2));
                x[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a0, a2));
                x[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(a1, a3));
                x[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(a1, a3));
            }
            for (int k = 0; k < 4; ++k) {  // 4 x 4 transpose of the 128-bit lanes of x[k], x[4+k], ...
                const __m512 c0 = _mm512_shuffle_f32x4(x[k], x[4 + k], 0x88);
                const __m512 c1 = _mm512_shuffle_f32x4(x[k], x[4 + k], 0xdd);
                const __m512 c2 = _mm512_shuffle_f32x4(x[8 + k], x[12 + k], 0x88);
                const __m512 c3 = _mm512_shuffle_f32x4(x[8 + k], x[12 + k], 0xdd);
                a[k]            = _mm512_shuffle_f32x4(c0, c2, 0x88);
                a[8 + k]        = _mm512_shuffle_f32x4(c0, c2, 0xdd);
                a[4 + k]        = _mm512_shuffle_f32x4(c1, c3, 0x88);
                a[12 + k]       = _mm512_shuffle_f32x4(c1, c3, 0xdd);
            }
            for (int c = 0; c < 16 && c0 + c < C; ++c)
                _mm512_mask_storeu_ps(dst + (size_t) (c0 + c) * ldd + r0, rm, a[c]);
        }
    }
}

const ggml_cpu_attn_mm_isa k_isa = {RK, kq, transpose_f16};

}  // namespace

const ggml_cpu_attn_mm_isa * ggml_cpu_attn_mm_avx512() {
    return &k_isa;
}
