// CPU_REPACK kernels for AVX-512 VNNI (see cpu-repack.h for the layout). One zmm holds 4 quant bytes
// of 16 rows; vpdpbusd against 4 broadcast activation bytes adds 16 per-row partial sums, so a block
// needs no horizontal reduction. Up to 4 activation rows share each decoded weight vector.
// GCC 12's AVX-512 headers build results from _mm512_undefined_*() and warn about it (false positive).
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wuninitialized"
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "cpu-repack.h"

namespace {

constexpr int NC_MAX = 4;
// Quant bytes prefetched ahead of the block being read (one stream per thread), non-temporal: the
// weights are read once per token and would only evict the activations and the KV cache from L2
// (decode, NC == 1; prefill re-reads a group for every 4 activation rows and keeps it cached).
// Distance and hint from bench-quants RepackGemv (2048-8192 within noise on the shared VM).
constexpr int PF_DIST = 2048;

template <int NC>
inline void q4_0_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    const uint16_t * scales = (const uint16_t *) grp;
    const uint8_t *  quants = grp + nb * GGML_REPACK_ROWS * 2;
    const __m512i    m4     = _mm512_set1_epi8(0x0F);
    const __m512i    mh     = _mm512_set1_epi8((char) 0xF0);
    __m512           acc[NC];
    for (int c = 0; c < NC; ++c)
        acc[c] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * q = quants + b * 256;
        for (int j = 0; j < 4; ++j)
            _mm_prefetch((const char *) q + PF_DIST + 64 * j, NC == 1 ? _MM_HINT_NTA : _MM_HINT_T0);
        const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) (scales + b * 16)));
        __m512i      lo[4], hi[4];
        for (int j = 0; j < 4; ++j) {
            const __m512i v = _mm512_loadu_si512((const void *) (q + 64 * j));
            lo[j]           = _mm512_and_si512(v, m4);
            hi[j]           = _mm512_and_si512(v, mh);  // 16 x the high nibble: no shift per vector
        }
        for (int c = 0; c < NC; ++c) {
            const int32_t * yq = (const int32_t *) (y[c].qs + b * 32);
            __m512i         s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
            for (int j = 0; j < 4; ++j) {
                s0 = _mm512_dpbusd_epi32(s0, lo[j], _mm512_set1_epi32(yq[j]));
                s1 = _mm512_dpbusd_epi32(s1, hi[j], _mm512_set1_epi32(yq[4 + j]));
            }
            // s1 is a multiple of 16: the shift is exact
            const __m512i s =
                _mm512_sub_epi32(_mm512_add_epi32(s0, _mm512_srai_epi32(s1, 4)), _mm512_set1_epi32(y[c].corr[b]));
            acc[c] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s), _mm512_mul_ps(dw, _mm512_set1_ps(y[c].d[b])), acc[c]);
        }
    }
    for (int c = 0; c < NC; ++c)
        _mm512_storeu_ps(out[c] + row0, acc[c]);
}

template <int NC>
inline void q8_0_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    const uint16_t * scales = (const uint16_t *) grp;
    const uint8_t *  quants = grp + nb * GGML_REPACK_ROWS * 2;
    __m512           acc[NC];
    for (int c = 0; c < NC; ++c)
        acc[c] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * q = quants + b * 512;
        for (int j = 0; j < 8; ++j)
            _mm_prefetch((const char *) q + PF_DIST + 64 * j, NC == 1 ? _MM_HINT_NTA : _MM_HINT_T0);
        const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) (scales + b * 16)));
        __m512i      v[8];
        for (int j = 0; j < 8; ++j)
            v[j] = _mm512_loadu_si512((const void *) (q + 64 * j));
        for (int c = 0; c < NC; ++c) {
            const int32_t * yq = (const int32_t *) (y[c].qs + b * 32);
            __m512i         s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
            for (int j = 0; j < 8; j += 2) {
                s0 = _mm512_dpbusd_epi32(s0, v[j], _mm512_set1_epi32(yq[j]));
                s1 = _mm512_dpbusd_epi32(s1, v[j + 1], _mm512_set1_epi32(yq[j + 1]));
            }
            const __m512i s = _mm512_sub_epi32(_mm512_add_epi32(s0, s1), _mm512_set1_epi32(y[c].corr[b]));
            acc[c] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s), _mm512_mul_ps(dw, _mm512_set1_ps(y[c].d[b])), acc[c]);
        }
    }
    for (int c = 0; c < NC; ++c)
        _mm512_storeu_ps(out[c] + row0, acc[c]);
}

template <template <int> class G>
void run(int64_t nb, int64_t ng, const uint8_t * w, size_t gb, int ncols, const ggml_repack_act * y,
         float * const * out) {
    for (int64_t g = 0; g < ng; ++g) {
        const uint8_t * grp = w + g * gb;
        for (int c0 = 0; c0 < ncols; c0 += NC_MAX) {
            switch (ncols - c0 < NC_MAX ? ncols - c0 : NC_MAX) {
                case 1:
                    G<1>::f(nb, grp, y + c0, out + c0, g * GGML_REPACK_ROWS);
                    break;
                case 2:
                    G<2>::f(nb, grp, y + c0, out + c0, g * GGML_REPACK_ROWS);
                    break;
                case 3:
                    G<3>::f(nb, grp, y + c0, out + c0, g * GGML_REPACK_ROWS);
                    break;
                default:
                    G<4>::f(nb, grp, y + c0, out + c0, g * GGML_REPACK_ROWS);
                    break;
            }
        }
    }
}

template <int NC>
struct q4_0_g {
    static void f(int64_t nb, const uint8_t * g, const ggml_repack_act * y, float * const * o, int64_t r) {
        q4_0_group<NC>(nb, g, y, o, r);
    }
};
template <int NC>
struct q8_0_g {
    static void f(int64_t nb, const uint8_t * g, const ggml_repack_act * y, float * const * o, int64_t r) {
        q8_0_group<NC>(nb, g, y, o, r);
    }
};

void k_q4_0(int64_t nb, int64_t ng, const uint8_t * w, size_t gb, int nc, const ggml_repack_act * y,
            float * const * out) {
    run<q4_0_g>(nb, ng, w, gb, nc, y, out);
}
void k_q8_0(int64_t nb, int64_t ng, const uint8_t * w, size_t gb, int nc, const ggml_repack_act * y,
            float * const * out) {
    run<q8_0_g>(nb, ng, w, gb, nc, y, out);
}

}  // namespace

const ggml_repack_kernels * ggml_repack_kernels_avx512() {
    static const ggml_repack_kernels k = {k_q4_0, k_q8_0};
    return &k;
}
