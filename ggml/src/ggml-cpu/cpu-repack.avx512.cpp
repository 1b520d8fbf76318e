// CPU_REPACK kernels for AVX-512 VNNI (see cpu-repack.h for the layout). One zmm holds 4 quant bytes
// of 16 rows; vpdpbusd against 4 broadcast activation bytes adds 16 per-row partial sums, so a block
// needs no horizontal reduction. Up to 4 activation rows share each decoded weight vector.
// GCC 12's AVX-512 headers build results from _mm512_undefined_*() and warn about it (false positive).
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wuninitialized"
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "cpu-repack-x86.h"

namespace {

constexpr int NC_MAX = 4;
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
            _mm_prefetch((const char *) q + (NC == 1 ? PF_DIST_Q4_0 : PF_DIST) + 64 * j,
                         NC == 1 ? _MM_HINT_NTA : _MM_HINT_T0);
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
            _mm_prefetch((const char *) q + (NC == 1 ? PF_DIST_Q8_0 : PF_DIST) + 64 * j,
                         NC == 1 ? _MM_HINT_NTA : _MM_HINT_T0);
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

// Q4_K: per super-block the 16 rows' scales and mins are unpacked with vector shifts (shared by the NC
// activation rows), each sub-block's dot comes from 8 vpdpbusd and is scaled by vpmulld, the mins
// term from 4 vpdpwssd of the unpacked mins against the activation's sub-block sum pairs.
template <int NC>
inline void q4_K_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    constexpr int P   = NC <= 2 ? 2 : 1;  // independent vpdpbusd chains per sub-block (latency at NC 1-2)
    const __m512i m4  = _mm512_set1_epi8(0x0F);
    const __m512i m6  = _mm512_set1_epi32(0x3f3f3f3f);
    const __m512i m2  = _mm512_set1_epi32(0x03030303);
    const __m512i mlo = _mm512_set1_epi32(0x0f0f0f0f);
    const __m512i mb  = _mm512_set1_epi32(0xff);
    const __m512i mw  = _mm512_set1_epi32(0x00ff00ff);
    __m512        acc[NC];
    for (int c = 0; c < NC; ++c)
        acc[c] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * sb  = grp + b * 2304;
        const uint8_t * q   = sb + 256;
        const __m512i   u0  = _mm512_loadu_si512((const void *) (sb + 64));
        const __m512i   u1  = _mm512_loadu_si512((const void *) (sb + 128));
        const __m512i   u2  = _mm512_loadu_si512((const void *) (sb + 192));
        const __m512i   s03 = _mm512_and_si512(u0, m6);
        const __m512i   s47 = _mm512_or_si512(_mm512_and_si512(u2, mlo),
                                              _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(u0, 6), m2), 4));
        const __m512i   m03 = _mm512_and_si512(u1, m6);
        const __m512i   m47 = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32(u2, 4), mlo),
                                              _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(u1, 6), m2), 4));
        __m512i         isum[NC];
        for (int c = 0; c < NC; ++c)
            isum[c] = _mm512_setzero_si512();
        for (int k = 0; k < 4; ++k) {
            const __m512i S  = k < 2 ? s03 : s47;
            const __m512i sl = _mm512_and_si512(_mm512_srli_epi32(S, 16 * (k % 2)), mb);
            const __m512i sh = _mm512_and_si512(_mm512_srli_epi32(S, 16 * (k % 2) + 8), mb);
            __m512i       dl[NC][P], dh[NC][P];
            for (int c = 0; c < NC; ++c)
                for (int i = 0; i < P; ++i)
                    dl[c][i] = dh[c][i] = _mm512_setzero_si512();
            for (int jj = 0; jj < 8; ++jj) {
                const uint8_t * qj = q + (8 * k + jj) * 64;
                // 36 lines per super-block, 9 per k
                _mm_prefetch((const char *) sb + PF_Q4K + 64 * (9 * k + jj), NC == 1 ? _MM_HINT_NTA : _MM_HINT_T0);
                if (jj == 7)
                    _mm_prefetch((const char *) sb + PF_Q4K + 64 * (9 * k + 8), NC == 1 ? _MM_HINT_NTA : _MM_HINT_T0);
                const __m512i v  = _mm512_loadu_si512((const void *) qj);
                const __m512i lo = _mm512_and_si512(v, m4);
                const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), m4);
                for (int c = 0; c < NC; ++c) {
                    const int32_t * yq = (const int32_t *) (y[c].qs + b * 256 + 64 * k);
                    dl[c][jj % P]      = _mm512_dpbusd_epi32(dl[c][jj % P], lo, _mm512_set1_epi32(yq[jj]));
                    dh[c][jj % P]      = _mm512_dpbusd_epi32(dh[c][jj % P], hi, _mm512_set1_epi32(yq[8 + jj]));
                }
            }
            for (int c = 0; c < NC; ++c) {
                __m512i l = dl[c][0], h = dh[c][0];
                if (P == 2) {
                    l = _mm512_add_epi32(l, dl[c][P - 1]);
                    h = _mm512_add_epi32(h, dh[c][P - 1]);
                }
                isum[c] =
                    _mm512_add_epi32(isum[c], _mm512_add_epi32(_mm512_mullo_epi32(l, sl), _mm512_mullo_epi32(h, sh)));
            }
        }
        // mins as int16 pairs per row: (m0, m2), (m1, m3), (m4, m6), (m5, m7)
        const __m512i p0 = _mm512_and_si512(m03, mw), p1 = _mm512_and_si512(_mm512_srli_epi32(m03, 8), mw);
        const __m512i p2 = _mm512_and_si512(m47, mw), p3 = _mm512_and_si512(_mm512_srli_epi32(m47, 8), mw);
        const __m512  dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) sb));
        const __m512  dm = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) (sb + 32)));
        for (int c = 0; c < NC; ++c) {
            const int32_t * ys = y[c].corr + b * 4;
            __m512i         ms = _mm512_dpwssd_epi32(_mm512_setzero_si512(), p0, _mm512_set1_epi32(ys[0]));
            ms                 = _mm512_dpwssd_epi32(ms, p1, _mm512_set1_epi32(ys[1]));
            ms                 = _mm512_dpwssd_epi32(ms, p2, _mm512_set1_epi32(ys[2]));
            ms                 = _mm512_dpwssd_epi32(ms, p3, _mm512_set1_epi32(ys[3]));
            const __m512 dy    = _mm512_set1_ps(y[c].d[b]);
            acc[c]             = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[c]), _mm512_mul_ps(dw, dy), acc[c]);
            acc[c]             = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(ms), _mm512_mul_ps(dm, dy), acc[c]);
        }
    }
    for (int c = 0; c < NC; ++c)
        _mm512_storeu_ps(out[c] + row0, acc[c]);
}

// Q6_K: one ql and one qh load give the 6-bit values (0..63) of two 4-value groups; vpdpbusd per
// 4 values, vpmulld by the sign-extended sub-block scale, and the -32 offset as one vpdpwssd per
// scale pair against the activation's 16-value sums. The sub-block loops are unrolled (their
// address arithmetic was most of the instructions: L2-resident GEMV 64 -> 94 GB/s); the n / h loops
// are not, since unrolled GCC hoists all 53 prefetches of a super-block into one burst, which read
// 20% slower from DRAM.
template <int NC>
inline void q6_K_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    const __m512i m4  = _mm512_set1_epi8(0x0F);
    const __m512i m30 = _mm512_set1_epi8(0x30);
    __m512        acc[NC];
    for (int c = 0; c < NC; ++c)
        acc[c] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * sb = grp + b * 3360;
        const uint8_t * ql = sb + 288;
        const uint8_t * qh = sb + 2336;
        __m512i         isum[NC];
        for (int c = 0; c < NC; ++c)
            isum[c] = _mm512_setzero_si512();
        // one sub-block pair at a time keeps 2 accumulators per activation row live (no spills at NC 4)
        for (int n = 0; n < 2; ++n) {
            for (int h = 0; h < 2; ++h) {
                // scale pairs p = 4n + h (low values) and 4n + h + 2 (high values), int16 per row
                const __m512i pl2 =
                    _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *) (sb + 32 + 32 * (4 * n + h))));
                const __m512i ph2 =
                    _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *) (sb + 32 + 32 * (4 * n + h + 2))));
#pragma GCC unroll 16
                for (int sub = 0; sub < 2; ++sub) {
                    __m512i dl[NC], dh[NC];
                    for (int c = 0; c < NC; ++c)
                        dl[c] = dh[c] = _mm512_setzero_si512();
#pragma GCC unroll 16
                    for (int m = 4 * sub; m < 4 * sub + 4; ++m) {
                        const uint8_t * pl = ql + (16 * n + 8 * h + m) * 64;
                        // super-block b + 2 (53 lines), 2 lines per step: one stream in address order
                        const int line = 2 * (16 * n + 8 * h + m);
                        prefetch_q6k_lines(sb, line, NC == 1);
                        const __m512i l  = _mm512_loadu_si512((const void *) pl);
                        const __m512i hb = _mm512_loadu_si512((const void *) (qh + (8 * n + m) * 64));
                        // bits 2h, 2h + 1 (low values) and 2h + 4, 2h + 5 (high values) of qh to bits 4, 5
                        const __m512i hl =
                            _mm512_and_si512(h == 0 ? _mm512_slli_epi16(hb, 4) : _mm512_slli_epi16(hb, 2), m30);
                        const __m512i hh = _mm512_and_si512(h == 0 ? hb : _mm512_srli_epi16(hb, 2), m30);
                        const __m512i vl = _mm512_or_si512(_mm512_and_si512(l, m4), hl);
                        const __m512i vh = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(l, 4), m4), hh);
                        for (int c = 0; c < NC; ++c) {
                            const int32_t * yq = (const int32_t *) (y[c].qs + b * 256 + 128 * n + 32 * h) + m;
                            dl[c]              = _mm512_dpbusd_epi32(dl[c], vl, _mm512_set1_epi32(yq[0]));
                            dh[c]              = _mm512_dpbusd_epi32(dh[c], vh, _mm512_set1_epi32(yq[16]));
                        }
                    }
                    const __m512i sl =
                        sub == 0 ? _mm512_srai_epi32(_mm512_slli_epi32(pl2, 16), 16) : _mm512_srai_epi32(pl2, 16);
                    const __m512i sh =
                        sub == 0 ? _mm512_srai_epi32(_mm512_slli_epi32(ph2, 16), 16) : _mm512_srai_epi32(ph2, 16);
                    for (int c = 0; c < NC; ++c)
                        isum[c] = _mm512_add_epi32(
                            isum[c], _mm512_add_epi32(_mm512_mullo_epi32(dl[c], sl), _mm512_mullo_epi32(dh[c], sh)));
                }
            }
        }
        // the -32 offset: csum = sum over the 8 scale pairs of (sc . bsum), isum - 32 * csum
        __m512i P[8];
#pragma GCC unroll 16
        for (int p = 0; p < 8; ++p)
            P[p] = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *) (sb + 32 + 32 * p)));
        const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) sb));
        for (int c = 0; c < NC; ++c) {
            const int32_t * bs = y[c].corr + b * 8;
            __m512i         cs = _mm512_setzero_si512();
#pragma GCC unroll 16
            for (int p = 0; p < 8; ++p)
                cs = _mm512_dpwssd_epi32(cs, P[p], _mm512_set1_epi32(bs[p]));
            const __m512i tot = _mm512_sub_epi32(isum[c], _mm512_slli_epi32(cs, 5));
            acc[c] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(tot), _mm512_mul_ps(dw, _mm512_set1_ps(y[c].d[b])), acc[c]);
        }
    }
    for (int c = 0; c < NC; ++c)
        _mm512_storeu_ps(out[c] + row0, acc[c]);
}

GGML_REPACK_X86_KERNEL(k_q4_0, q4_0_group, 0)
GGML_REPACK_X86_KERNEL(k_q8_0, q8_0_group, 0)
GGML_REPACK_X86_KERNEL(k_q4_K, q4_K_group, PF_Q4K)
GGML_REPACK_X86_KERNEL(k_q6_K, q6_K_group, PF_Q6K)

}  // namespace

const ggml_repack_kernels * ggml_repack_kernels_avx512() {
    static const ggml_repack_kernels k = {k_q4_0, k_q8_0, k_q4_K, k_q6_K};
    return &k;
}
