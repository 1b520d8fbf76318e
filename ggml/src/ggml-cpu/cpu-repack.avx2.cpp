// CPU_REPACK kernels for AVX2 (see cpu-repack.h for the layout). Each 64-byte quant vector is two ymm
// (rows 0-7, rows 8-15); maddubs + madd against 4 broadcast activation bytes give one int32 per row.
// Q4_0 sums its 8 maddubs results in int16 first (|sum| <= 8 * 2 * 15 * 128 < 2^15); Q8_0 undoes the
// +128 offset and uses |w| x sign(y, w) so maddubs cannot saturate.
#include <immintrin.h>

#include "cpu-repack.h"

namespace {

constexpr int NC_MAX = 2;

template <int NC>
void q4_0_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    const uint16_t * scales = (const uint16_t *) grp;
    const uint8_t *  quants = grp + nb * GGML_REPACK_ROWS * 2;
    const __m256i    m4     = _mm256_set1_epi8(0x0F);
    const __m256i    ones   = _mm256_set1_epi16(1);
    for (int h = 0; h < 2; ++h) {
        __m256 acc[NC];
        for (int c = 0; c < NC; ++c)
            acc[c] = _mm256_setzero_ps();
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t * q  = quants + b * 256 + 32 * h;
            const __m256    dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (scales + b * 16 + 8 * h)));
            __m256i         lo[4], hi[4];
            for (int j = 0; j < 4; ++j) {
                const __m256i v = _mm256_loadu_si256((const __m256i *) (q + 64 * j));
                lo[j]           = _mm256_and_si256(v, m4);
                hi[j]           = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
            }
            for (int c = 0; c < NC; ++c) {
                const int32_t * yq = (const int32_t *) (y[c].qs + b * 32);
                __m256i         p  = _mm256_setzero_si256();
                for (int j = 0; j < 4; ++j) {
                    p = _mm256_add_epi16(p, _mm256_maddubs_epi16(lo[j], _mm256_set1_epi32(yq[j])));
                    p = _mm256_add_epi16(p, _mm256_maddubs_epi16(hi[j], _mm256_set1_epi32(yq[4 + j])));
                }
                const __m256i s = _mm256_sub_epi32(_mm256_madd_epi16(p, ones), _mm256_set1_epi32(y[c].corr[b]));
                acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_mul_ps(dw, _mm256_set1_ps(y[c].d[b])), acc[c]);
            }
        }
        for (int c = 0; c < NC; ++c)
            _mm256_storeu_ps(out[c] + row0 + 8 * h, acc[c]);
    }
}

template <int NC>
void q8_0_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    const uint16_t * scales = (const uint16_t *) grp;
    const uint8_t *  quants = grp + nb * GGML_REPACK_ROWS * 2;
    const __m256i    x80    = _mm256_set1_epi8((char) 0x80);
    const __m256i    ones   = _mm256_set1_epi16(1);
    for (int h = 0; h < 2; ++h) {
        __m256 acc[NC];
        for (int c = 0; c < NC; ++c)
            acc[c] = _mm256_setzero_ps();
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t * q  = quants + b * 512 + 32 * h;
            const __m256    dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (scales + b * 16 + 8 * h)));
            __m256i         w[8], aw[8];
            for (int j = 0; j < 8; ++j) {
                w[j]  = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *) (q + 64 * j)), x80);
                aw[j] = _mm256_sign_epi8(w[j], w[j]);
            }
            for (int c = 0; c < NC; ++c) {
                const int32_t * yq = (const int32_t *) (y[c].qs + b * 32);
                __m256i         s  = _mm256_setzero_si256();
                for (int j = 0; j < 8; ++j) {
                    const __m256i sy = _mm256_sign_epi8(_mm256_set1_epi32(yq[j]), w[j]);
                    s                = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_maddubs_epi16(aw[j], sy), ones));
                }
                // the offset is already removed: s is the signed sum
                acc[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_mul_ps(dw, _mm256_set1_ps(y[c].d[b])), acc[c]);
            }
        }
        for (int c = 0; c < NC; ++c)
            _mm256_storeu_ps(out[c] + row0 + 8 * h, acc[c]);
    }
}

template <bool Q4>
void run(int64_t nb, int64_t ng, const uint8_t * w, size_t gb, int ncols, const ggml_repack_act * y,
         float * const * out) {
    for (int64_t g = 0; g < ng; ++g) {
        const uint8_t * grp = w + g * gb;
        const int64_t   r0  = g * GGML_REPACK_ROWS;
        for (int c0 = 0; c0 < ncols; c0 += NC_MAX) {
            if (ncols - c0 >= 2) {
                Q4 ? q4_0_group<2>(nb, grp, y + c0, out + c0, r0) : q8_0_group<2>(nb, grp, y + c0, out + c0, r0);
            } else {
                Q4 ? q4_0_group<1>(nb, grp, y + c0, out + c0, r0) : q8_0_group<1>(nb, grp, y + c0, out + c0, r0);
            }
        }
    }
}

void k_q4_0(int64_t nb, int64_t ng, const uint8_t * w, size_t gb, int nc, const ggml_repack_act * y,
            float * const * out) {
    run<true>(nb, ng, w, gb, nc, y, out);
}
void k_q8_0(int64_t nb, int64_t ng, const uint8_t * w, size_t gb, int nc, const ggml_repack_act * y,
            float * const * out) {
    run<false>(nb, ng, w, gb, nc, y, out);
}

}  // namespace

const ggml_repack_kernels * ggml_repack_kernels_avx2() {
    static const ggml_repack_kernels k = {k_q4_0, k_q8_0};
    return &k;
}
