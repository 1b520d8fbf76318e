// CPU_REPACK kernels for AVX2 (see cpu-repack.h for the layout). Each 64-byte quant vector is two ymm
// (rows 0-7, rows 8-15); maddubs + madd against 4 broadcast activation bytes give one int32 per row.
// Q4_0 sums its 8 maddubs results in int16 first (|sum| <= 8 * 2 * 15 * 128 < 2^15); Q8_0 undoes the
// +128 offset and uses |w| x sign(y, w) so maddubs cannot saturate. One pass per block / super-block with
// both halves in flight (the activation broadcasts and the K-quant scale unpacking are shared), as in the
// AVX-512 kernels. CPUs with AVX-VNNI run cpu-repack.avxvnni.cpp at this level instead.
#include <immintrin.h>

#include "cpu-repack-x86-ymm.h"

namespace {

constexpr int NC_MAX = 2;

// An empty asm that GCC must assume changes v: it keeps a running int16/int32 sum a chain instead of being
// re-associated into a tree of maddubs results that no longer fit the 16 ymm registers (it spilled them).
inline void keep(__m256i & v) {
    __asm__("" : "+x"(v));
}

struct Avx2 {
    static __m256i dot_i16(__m256i acc, __m256i a, __m256i b) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b)); }
};

template <int NC>
void q4_0_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    const uint16_t * scales = (const uint16_t *) grp;
    const uint8_t *  quants = grp + nb * GGML_REPACK_ROWS * 2;
    const __m256i    m4     = _mm256_set1_epi8(0x0F);
    const __m256i    ones   = _mm256_set1_epi16(1);
    ymm_acc<NC>      acc;
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * q = quants + b * 256;
        prefetch_block<NC>(q, 4, PF_DIST_Q4_0);
        __m256i p[NC][2];
        for (int c = 0; c < NC; ++c)
            p[c][0] = p[c][1] = _mm256_setzero_si256();
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
            __m256i lo[2], hi[2];
            for (int h = 0; h < 2; ++h) {
                const __m256i v = _mm256_loadu_si256((const __m256i *) (q + 64 * j + 32 * h));
                lo[h]           = _mm256_and_si256(v, m4);
                hi[h]           = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
            }
            for (int c = 0; c < NC; ++c) {
                const int32_t * yq = (const int32_t *) (y[c].qs + b * 32);
                const __m256i   yl = _mm256_set1_epi32(yq[j]), yh = _mm256_set1_epi32(yq[4 + j]);
                for (int h = 0; h < 2; ++h)  // low + high first: a shorter dependency chain
                {
                    p[c][h] = _mm256_add_epi16(
                        p[c][h], _mm256_add_epi16(_mm256_maddubs_epi16(lo[h], yl), _mm256_maddubs_epi16(hi[h], yh)));
                    keep(p[c][h]);
                }
            }
        }
        __m256 dw[2];
        load_scales16(scales + b * 16, dw);
        for (int c = 0; c < NC; ++c) {
            const __m256i corr = _mm256_set1_epi32(y[c].corr[b]);
            const __m256  dy   = _mm256_set1_ps(y[c].d[b]);
            for (int h = 0; h < 2; ++h) {
                const __m256i s = _mm256_sub_epi32(_mm256_madd_epi16(p[c][h], ones), corr);
                acc.v[c][h]     = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_mul_ps(dw[h], dy), acc.v[c][h]);
            }
        }
    }
    acc.store(out, row0);
}

template <int NC>
void q8_0_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    const uint16_t * scales = (const uint16_t *) grp;
    const uint8_t *  quants = grp + nb * GGML_REPACK_ROWS * 2;
    const __m256i    x80    = _mm256_set1_epi8((char) 0x80);
    const __m256i    ones   = _mm256_set1_epi16(1);
    ymm_acc<NC>      acc;
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * q = quants + b * 512;
        prefetch_block<NC>(q, 8, PF_DIST_Q8_0);
        __m256i s[NC][2];
        for (int c = 0; c < NC; ++c)
            s[c][0] = s[c][1] = _mm256_setzero_si256();
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) {
            __m256i w[2], aw[2];
            for (int h = 0; h < 2; ++h) {
                w[h]  = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *) (q + 64 * j + 32 * h)), x80);
                aw[h] = _mm256_sign_epi8(w[h], w[h]);
            }
            for (int c = 0; c < NC; ++c) {
                const __m256i yj = _mm256_set1_epi32(((const int32_t *) (y[c].qs + b * 32))[j]);
                for (int h = 0; h < 2; ++h) {
                    const __m256i sy = _mm256_sign_epi8(yj, w[h]);
                    s[c][h] = _mm256_add_epi32(s[c][h], _mm256_madd_epi16(_mm256_maddubs_epi16(aw[h], sy), ones));
                    keep(s[c][h]);
                }
            }
        }
        __m256 dw[2];
        load_scales16(scales + b * 16, dw);
        for (int c = 0; c < NC; ++c) {
            const __m256 dy = _mm256_set1_ps(y[c].d[b]);
            for (int h = 0; h < 2; ++h)  // the offset is already removed: s is the signed sum
                acc.v[c][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s[c][h]), _mm256_mul_ps(dw[h], dy), acc.v[c][h]);
        }
    }
    acc.store(out, row0);
}

// Q4_K: per sub-block the 8 maddubs results are summed in int16 (|sum| <= 8 * 2 * 15 * 128 < 2^15)
// and pmaddwd against (sc, sc) per row gives sc * dot in int32; the mins term is 4 pmaddwd of the
// unpacked min pairs against the activation's sub-block sum pairs. Scales and mins are unpacked once
// per super-block for both halves.
template <int NC>
void q4_K_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i mb = _mm256_set1_epi32(0xff);
    ymm_acc<NC>   acc;
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * sb = grp + b * 2304;
        const uint8_t * q  = sb + 256;
        // per half: (sc, sc) as int16 for the 8 sub-blocks, the mins as int16 pairs (m0, m2), (m1, m3), (m4, m6),
        // (m5, m7)
        __m256i SC[2][8], MP[2][4];
        for (int h = 0; h < 2; ++h) {
            __m256i s03, s47;
            q4k_scales_mins(sb, h, s03, s47, MP[h]);
            for (int s = 0; s < 8; ++s) {
                const __m256i t = _mm256_and_si256(_mm256_srli_epi32(s < 4 ? s03 : s47, 8 * (s % 4)), mb);
                SC[h][s]        = _mm256_or_si256(t, _mm256_slli_epi32(t, 16));
            }
        }
        __m256i isum[NC][2];
        for (int c = 0; c < NC; ++c)
            isum[c][0] = isum[c][1] = _mm256_setzero_si256();
        for (int k = 0; k < 4; ++k) {
            __m256i pl[NC][2], ph[NC][2];
            for (int c = 0; c < NC; ++c)
                pl[c][0] = pl[c][1] = ph[c][0] = ph[c][1] = _mm256_setzero_si256();
#pragma GCC unroll 8
            for (int jj = 0; jj < 8; ++jj) {
                q4k_prefetch<NC>(sb, k, jj);
                __m256i lo[2], hi[2];
                for (int h = 0; h < 2; ++h) {
                    const __m256i v = _mm256_loadu_si256((const __m256i *) (q + (8 * k + jj) * 64 + 32 * h));
                    lo[h]           = _mm256_and_si256(v, m4);
                    hi[h]           = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
                }
                for (int c = 0; c < NC; ++c) {
                    const int32_t * yq = (const int32_t *) (y[c].qs + b * 256 + 64 * k);
                    const __m256i   yl = _mm256_set1_epi32(yq[jj]), yh = _mm256_set1_epi32(yq[8 + jj]);
                    for (int h = 0; h < 2; ++h) {
                        pl[c][h] = _mm256_add_epi16(pl[c][h], _mm256_maddubs_epi16(lo[h], yl));
                        ph[c][h] = _mm256_add_epi16(ph[c][h], _mm256_maddubs_epi16(hi[h], yh));
                        keep(pl[c][h]);
                        keep(ph[c][h]);
                    }
                }
            }
            for (int c = 0; c < NC; ++c)
                for (int h = 0; h < 2; ++h)
                    isum[c][h] =
                        _mm256_add_epi32(isum[c][h], _mm256_add_epi32(_mm256_madd_epi16(pl[c][h], SC[h][2 * k]),
                                                                      _mm256_madd_epi16(ph[c][h], SC[h][2 * k + 1])));
        }
        q4k_finish<Avx2, NC>(sb, b, MP, isum, y, acc);
    }
    acc.store(out, row0);
}

// Q6_K: two maddubs (values 0..63, |pair| <= 2 * 63 * 128) summed in int16 stay below 2^15, then
// pmaddwd against (sc, sc) per row; the -32 offset is one pmaddwd per scale pair against the
// activation's 16-value sums.
template <int NC>
void q6_K_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    ymm_acc<NC> acc;
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * sb = grp + b * 3360;
        const uint8_t * ql = sb + 288;
        const uint8_t * qh = sb + 2336;
        __m256i         isum[NC][2];
        for (int c = 0; c < NC; ++c)
            isum[c][0] = isum[c][1] = _mm256_setzero_si256();
        for (int n = 0; n < 2; ++n) {
            for (int h = 0; h < 2; ++h) {
#pragma GCC unroll 2
                for (int sub = 0; sub < 2; ++sub) {
                    __m256i sl[2], sh[2];  // (sc, sc) as int16 for sub-block 2p + sub, per half
                    for (int hf = 0; hf < 2; ++hf) {
                        const __m256i pl2 = q6k_scale_pair(sb, 4 * n + h, hf);
                        const __m256i ph2 = q6k_scale_pair(sb, 4 * n + h + 2, hf);
                        const __m256i tl  = sub == 0 ? _mm256_slli_epi32(pl2, 16) : _mm256_srli_epi32(pl2, 16);
                        const __m256i th  = sub == 0 ? _mm256_slli_epi32(ph2, 16) : _mm256_srli_epi32(ph2, 16);
                        sl[hf]            = sub == 0 ? _mm256_or_si256(tl, _mm256_srli_epi32(tl, 16))
                                                     : _mm256_or_si256(tl, _mm256_slli_epi32(tl, 16));
                        sh[hf]            = sub == 0 ? _mm256_or_si256(th, _mm256_srli_epi32(th, 16))
                                                     : _mm256_or_si256(th, _mm256_slli_epi32(th, 16));
                    }
#pragma GCC unroll 2
                    for (int m2 = 0; m2 < 4; m2 += 2) {
                        __m256i pl[NC][2], ph[NC][2];
                        for (int c = 0; c < NC; ++c)
                            pl[c][0] = pl[c][1] = ph[c][0] = ph[c][1] = _mm256_setzero_si256();
#pragma GCC unroll 2
                        for (int mm = 0; mm < 2; ++mm) {
                            const int m = 4 * sub + m2 + mm;
                            // super-block b + 2 (53 lines), 2 lines per step: one stream in address order
                            const int line = 2 * (16 * n + 8 * h + m);
                            prefetch_q6k_lines(sb, line, NC == 1);
                            __m256i vl[2], vh[2];
                            q6k_values(ql, qh, n, h, m, vl, vh);
                            for (int c = 0; c < NC; ++c) {
                                const int32_t * yq = (const int32_t *) (y[c].qs + b * 256 + 128 * n + 32 * h) + m;
                                const __m256i   yl = _mm256_set1_epi32(yq[0]), yh = _mm256_set1_epi32(yq[16]);
                                for (int hf = 0; hf < 2; ++hf) {
                                    pl[c][hf] = _mm256_add_epi16(pl[c][hf], _mm256_maddubs_epi16(vl[hf], yl));
                                    ph[c][hf] = _mm256_add_epi16(ph[c][hf], _mm256_maddubs_epi16(vh[hf], yh));
                                    keep(pl[c][hf]);
                                    keep(ph[c][hf]);
                                }
                            }
                        }
                        for (int c = 0; c < NC; ++c)
                            for (int hf = 0; hf < 2; ++hf)
                                isum[c][hf] = _mm256_add_epi32(isum[c][hf],
                                                               _mm256_add_epi32(_mm256_madd_epi16(pl[c][hf], sl[hf]),
                                                                                _mm256_madd_epi16(ph[c][hf], sh[hf])));
                    }
                }
            }
        }
        q6k_finish<Avx2, NC>(sb, b, isum, y, acc);
    }
    acc.store(out, row0);
}

GGML_REPACK_X86_KERNEL(k_q4_0, q4_0_group, 0)
GGML_REPACK_X86_KERNEL(k_q8_0, q8_0_group, 0)
GGML_REPACK_X86_KERNEL(k_q4_K, q4_K_group, PF_Q4K)
GGML_REPACK_X86_KERNEL(k_q6_K, q6_K_group, PF_Q6K)

}  // namespace

const ggml_repack_kernels * ggml_repack_kernels_avx2() {
    static const ggml_repack_kernels k = {k_q4_0, k_q8_0, k_q4_K, k_q6_K};
    return &k;
}
