// Register-tiled GEMM for Q4_K / Q5_K / Q6_K weights against Q8_K activations (prompt processing),
// written once and compiled twice: included by quants-kq-gemm.avx2.cpp and quants-kq-gemm.avx512.cpp.
//
// Each result is bit-identical to the type's SIMD vec_dot (quants-x86-kernels.h): the same int32 lane
// sums per block (u8 x s8 pairs by maddubs, times the sub-block scale by madd / vpdpwssd, which gives
// the same integers as the vec_dot's dpbusd x scale), the same per-lane float FMA per block and the
// same final 8-lane reduction. What changes is the sharing: a tile of weight rows x activation rows
// decodes each weight chunk (nibbles, 6-bit scales) once for all its columns and loads each
// activation chunk once for all its rows. On AVX-512 one vector carries two weight rows (each in the
// 256-bit half the vec_dot would use), so every 512-bit instruction does the work of two 256-bit ones.
// Internal linkage only, so that the two compilations never merge.
#pragma once

#include "quants-x86-kernels.h"  // fp16_to_f32, hsum_f32_8: the vec_dot's own helpers

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace {
namespace kq {

// the vec_dot's final reduction, the same function
inline float hsum8(__m256 v) {
    return hsum_f32_8(v);
}

// ---- row vectors: R weight rows per vector, 256 bits per row ------------------------------------
#if defined(__AVX512F__) && defined(__AVX512VNNI__)
constexpr int R = 2;
#    ifndef KQ_RP  // tile shape override, for tuning
#        define KQ_RP 2
#        define KQ_RN 4
#    endif
constexpr int   RP = KQ_RP;  // row vectors per tile (4 rows; 4 x 4 beat 2 x 8, 4 x 6, 6 x 3 on Zen 5)
constexpr int   RN = KQ_RN;  // activation rows per tile (at most 8)
typedef __m512i vi;
typedef __m512  vf;

inline vi join(const __m256i * a) {
    return _mm512_inserti64x4(_mm512_castsi256_si512(a[0]), a[1], 1);
}
inline vf joinf(const __m256 * a) {
    return _mm512_insertf32x8(_mm512_castps256_ps512(a[0]), a[1], 1);
}
inline vi bcast(__m256i a) {
    return _mm512_broadcast_i64x4(a);
}
inline __m256 half(vf v, int i) {
    return i == 0 ? _mm512_castps512_ps256(v) : _mm512_extractf32x8_ps(v, 1);
}
inline vi zero() {
    return _mm512_setzero_si512();
}
inline vf zerof() {
    return _mm512_setzero_ps();
}
inline vi set8(char c) {
    return _mm512_set1_epi8(c);
}
inline vi and_(vi a, vi b) {
    return _mm512_and_si512(a, b);
}
inline vi or_(vi a, vi b) {
    return _mm512_or_si512(a, b);
}
inline vi srl16(vi a, int n) {
    return _mm512_srli_epi16(a, (unsigned) n);
}
inline vi sll16(vi a, int n) {
    return _mm512_slli_epi16(a, (unsigned) n);
}
inline vi sub32(vi a, vi b) {
    return _mm512_sub_epi32(a, b);
}
inline vi sll32(vi a, int n) {
    return _mm512_slli_epi32(a, (unsigned) n);
}
inline vi shuf8(vi a, vi c) {
    return _mm512_shuffle_epi8(a, c);
}
inline vi madd16(vi a, vi b) {
    return _mm512_madd_epi16(a, b);
}
// acc + sc * (u . y) per int32 lane (u unsigned, y signed bytes; no int16 saturation for u <= 63)
inline vi dot_acc(vi acc, vi u, vi y, vi sc) {
    return _mm512_dpwssd_epi32(acc, _mm512_maddubs_epi16(u, y), sc);
}
inline vf cvt(vi a) {
    return _mm512_cvtepi32_ps(a);
}
inline vf mul(vf a, vf b) {
    return _mm512_mul_ps(a, b);
}
inline vf fma(vf a, vf b, vf c) {
    return _mm512_fmadd_ps(a, b, c);
}
inline vf setf(float x) {
    return _mm512_set1_ps(x);
}
#else
constexpr int   R  = 1;
#    ifndef KQ_RP
#        define KQ_RP 1
#        define KQ_RN 4
#    endif
constexpr int   RP = KQ_RP;  // rows per tile (1 x 4 beat 2 x 2 and 2 x 3 with 16 ymm registers)
constexpr int   RN = KQ_RN;  // activation rows per tile
typedef __m256i vi;
typedef __m256  vf;

inline vi join(const __m256i * a) {
    return a[0];
}
inline vf joinf(const __m256 * a) {
    return a[0];
}
inline vi bcast(__m256i a) {
    return a;
}
inline __m256 half(vf v, int) {
    return v;
}
inline vi zero() {
    return _mm256_setzero_si256();
}
inline vf zerof() {
    return _mm256_setzero_ps();
}
inline vi set8(char c) {
    return _mm256_set1_epi8(c);
}
inline vi and_(vi a, vi b) {
    return _mm256_and_si256(a, b);
}
inline vi or_(vi a, vi b) {
    return _mm256_or_si256(a, b);
}
inline vi srl16(vi a, int n) {
    return _mm256_srli_epi16(a, n);
}
inline vi sll16(vi a, int n) {
    return _mm256_slli_epi16(a, n);
}
inline vi sub32(vi a, vi b) {
    return _mm256_sub_epi32(a, b);
}
inline vi sll32(vi a, int n) {
    return _mm256_slli_epi32(a, n);
}
inline vi shuf8(vi a, vi c) {
    return _mm256_shuffle_epi8(a, c);
}
inline vi madd16(vi a, vi b) {
    return _mm256_madd_epi16(a, b);
}
inline vi dot_acc(vi acc, vi u, vi y, vi sc) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, y), sc));
}
inline vf cvt(vi a) {
    return _mm256_cvtepi32_ps(a);
}
inline vf mul(vf a, vf b) {
    return _mm256_mul_ps(a, b);
}
inline vf fma(vf a, vf b, vf c) {
    return _mm256_fmadd_ps(a, b, c);
}
inline vf setf(float x) {
    return _mm256_set1_ps(x);
}
#endif

inline __m256i load256(const void * p) {
    return _mm256_loadu_si256((const __m256i *) p);
}

// 32 bytes at the same offset of each row of a row vector
inline vi rows32(const uint8_t * const * p, size_t off) {
    __m256i a[R];
    for (int i = 0; i < R; i++) {
        a[i] = load256(p[i] + off);
    }
    return join(a);
}

// pshufb control that spreads int16 word j (0..7) of each 128-bit lane over the lane;
// lo / hi: the word for the low / high 128-bit lane of each row
inline vi word_ctrl(int lo, int hi) {
    const short wl = (short) (((2 * lo + 1) << 8) | (2 * lo));
    const short wh = (short) (((2 * hi + 1) << 8) | (2 * hi));
    return bcast(_mm256_set_m128i(_mm_set1_epi16(wh), _mm_set1_epi16(wl)));
}

// ---- Q4_K / Q5_K ---------------------------------------------------------------------------------
// the 8 6-bit scales and mins of a q4_K / q5_K block as bytes (as the vec_dot's unpack)
inline void k4_scales(const uint8_t * p, uint64_t * sc, uint64_t * mn) {
    uint32_t u0, u1, u2;
    memcpy(&u0, p, 4);
    memcpy(&u1, p + 4, 4);
    memcpy(&u2, p + 8, 4);
    const uint32_t s03 = u0 & 0x3f3f3f3fu;
    const uint32_t m03 = u1 & 0x3f3f3f3fu;
    const uint32_t s47 = (u2 & 0x0f0f0f0fu) | (((u0 >> 6) & 0x03030303u) << 4);
    const uint32_t m47 = ((u2 >> 4) & 0x0f0f0f0fu) | (((u1 >> 6) & 0x03030303u) << 4);
    *sc                = ((uint64_t) s47 << 32) | s03;
    *mn                = ((uint64_t) m47 << 32) | m03;
}

// RP row vectors (w: RP*R row pointers, already at the first block) x NC activation rows over nb
// blocks; res[c][i] for row i of the tile. B: block_q4_K or block_q5_K (Q5: the fifth bit in qh).
template <typename B, bool Q5, int NP, int NC>
void k45_tile(int nb, const uint8_t * const * w, const block_q8_K * const * y, float (*res)[RP * R]) {
    vf acc[NP][NC], accm[NP][NC];
    for (int p = 0; p < NP; p++) {
        for (int c = 0; c < NC; c++) {
            acc[p][c]  = zerof();
            accm[p][c] = zerof();
        }
    }
    const vi m4 = set8(0x0F);
    const vi b4 = set8(0x10);
    for (int ib = 0; ib < nb; ib++) {
        const uint8_t * bp[NP * R];  // this block of each row
        for (int i = 0; i < NP * R; i++) {
            bp[i] = w[i] + (size_t) ib * sizeof(B);
        }
        vi       T[NP], hb[NP];
        uint64_t mins[NP * R];  // turned into vectors after the chunk loop (fewer live registers)
        for (int p = 0; p < NP; p++) {
            __m256i t[R];
            for (int i = 0; i < R; i++) {
                uint64_t sc;
                k4_scales(((const B *) bp[p * R + i])->scales, &sc, &mins[p * R + i]);
                t[i] = _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(_mm_cvtsi64_si128((long long) sc)));
            }
            T[p] = join(t);
            if (Q5) {
                hb[p] = rows32(bp + p * R, offsetof(block_q5_K, qh));
            }
        }
        vi si[NP][NC];
        for (int p = 0; p < NP; p++) {
            for (int c = 0; c < NC; c++) {
                si[p][c] = zero();
            }
        }
        for (int k = 0; k < 4; k++) {
            vi lo[NP], hi[NP], sl[NP], sh[NP];
            for (int p = 0; p < NP; p++) {
                const vi q = rows32(bp + p * R, offsetof(B, qs) + 32 * k);
                lo[p]      = and_(q, m4);
                hi[p]      = and_(srl16(q, 4), m4);
                if (Q5) {
                    lo[p] = or_(lo[p], and_(sll16(hb[p], 4), b4));
                    hi[p] = or_(hi[p], and_(sll16(hb[p], 3), b4));
                    hb[p] = srl16(hb[p], 2);
                }
                sl[p] = shuf8(T[p], word_ctrl(2 * k, 2 * k));
                sh[p] = shuf8(T[p], word_ctrl(2 * k + 1, 2 * k + 1));
            }
            for (int c = 0; c < NC; c++) {
                const vi y0 = bcast(load256(y[c][ib].qs + 64 * k));
                const vi y1 = bcast(load256(y[c][ib].qs + 64 * k + 32));
                for (int p = 0; p < NP; p++) {
                    si[p][c] = dot_acc(si[p][c], lo[p], y0, sl[p]);
                    si[p][c] = dot_acc(si[p][c], hi[p], y1, sh[p]);
                }
            }
        }
        vi M[NP];
        vf D[NP], DM[NP];
        for (int p = 0; p < NP; p++) {
            __m256i m[R];
            __m256  d[R], dm[R];
            for (int i = 0; i < R; i++) {
                const B *     x   = (const B *) bp[p * R + i];
                const __m128i mn8 = _mm_cvtsi64_si128((long long) mins[p * R + i]);
                m[i]              = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(mn8, mn8));
                d[i]              = _mm256_set1_ps(fp16_to_f32(x->d));
                dm[i]             = _mm256_set1_ps(fp16_to_f32(x->dmin));
            }
            M[p]  = join(m);
            D[p]  = joinf(d);
            DM[p] = joinf(dm);
        }
        for (int c = 0; c < NC; c++) {
            const vi bs = bcast(load256(y[c][ib].bsums));
            const vf dy = setf(y[c][ib].d);
            for (int p = 0; p < NP; p++) {
                acc[p][c]  = fma(cvt(si[p][c]), mul(D[p], dy), acc[p][c]);
                accm[p][c] = fma(cvt(madd16(M[p], bs)), mul(DM[p], dy), accm[p][c]);
            }
        }
    }
    for (int c = 0; c < NC; c++) {
        for (int p = 0; p < NP; p++) {
            for (int i = 0; i < R; i++) {
                res[c][p * R + i] = hsum8(_mm256_sub_ps(half(acc[p][c], i), half(accm[p][c], i)));
            }
        }
    }
}

// ---- Q6_K ----------------------------------------------------------------------------------------
// codes u - 32 (u in 0..63) with 16 signed 8-bit scales: sum_j sc_j (u . y)_j - 32 sum_j sc_j bsums_j
template <int NP, int NC>
void k6_tile(int nb, const uint8_t * const * w, const block_q8_K * const * y, float (*res)[RP * R]) {
    vf acc[NP][NC];
    for (int p = 0; p < NP; p++) {
        for (int c = 0; c < NC; c++) {
            acc[p][c] = zerof();
        }
    }
    const vi m4  = set8(0x0F);
    const vi m30 = set8(0x30);
    for (int ib = 0; ib < nb; ib++) {
        const uint8_t * bp[NP * R];
        for (int i = 0; i < NP * R; i++) {
            bp[i] = w[i] + (size_t) ib * sizeof(block_q6_K);
        }
        vi si[NP][NC];
        for (int p = 0; p < NP; p++) {
            for (int c = 0; c < NC; c++) {
                si[p][c] = zero();
            }
        }
        for (int h = 0; h < 2; h++) {
            vi T[NP], l0[NP], l1[NP], qh[NP];
            for (int p = 0; p < NP; p++) {
                __m256i t[R];
                for (int i = 0; i < R; i++) {
                    const block_q6_K * x = (const block_q6_K *) bp[p * R + i];
                    t[i]                 = _mm256_broadcastsi128_si256(
                                        _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *) (x->scales + 8 * h))));
                }
                T[p]  = join(t);
                l0[p] = rows32(bp + p * R, offsetof(block_q6_K, ql) + 64 * h);
                l1[p] = rows32(bp + p * R, offsetof(block_q6_K, ql) + 64 * h + 32);
                qh[p] = rows32(bp + p * R, offsetof(block_q6_K, qh) + 32 * h);
            }
            for (int k = 0; k < 4; k++) {
                vi u[NP], sc[NP];
                for (int p = 0; p < NP; p++) {
                    switch (k) {
                        case 0:
                            u[p] = or_(and_(l0[p], m4), and_(sll16(qh[p], 4), m30));
                            break;
                        case 1:
                            u[p] = or_(and_(l1[p], m4), and_(sll16(qh[p], 2), m30));
                            break;
                        case 2:
                            u[p] = or_(and_(srl16(l0[p], 4), m4), and_(qh[p], m30));
                            break;
                        default:
                            u[p] = or_(and_(srl16(l1[p], 4), m4), and_(srl16(qh[p], 2), m30));
                            break;
                    }
                    sc[p] = shuf8(T[p], word_ctrl(2 * k, 2 * k + 1));
                }
                for (int c = 0; c < NC; c++) {
                    const vi yy = bcast(load256(y[c][ib].qs + 128 * h + 32 * k));
                    for (int p = 0; p < NP; p++) {
                        si[p][c] = dot_acc(si[p][c], u[p], yy, sc[p]);
                    }
                }
            }
        }
        vi S[NP];
        vf D[NP];
        for (int p = 0; p < NP; p++) {
            __m256i s[R];
            __m256  d[R];
            for (int i = 0; i < R; i++) {
                const block_q6_K * x = (const block_q6_K *) bp[p * R + i];
                s[i]                 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *) x->scales));
                d[i]                 = _mm256_set1_ps(fp16_to_f32(x->d));
            }
            S[p] = join(s);
            D[p] = joinf(d);
        }
        for (int c = 0; c < NC; c++) {
            const vi bs = bcast(load256(y[c][ib].bsums));
            const vf dy = setf(y[c][ib].d);
            for (int p = 0; p < NP; p++) {
                const vi s = sub32(si[p][c], sll32(madd16(S[p], bs), 5));
                acc[p][c]  = fma(cvt(s), mul(D[p], dy), acc[p][c]);
            }
        }
    }
    for (int c = 0; c < NC; c++) {
        for (int p = 0; p < NP; p++) {
            for (int i = 0; i < R; i++) {
                res[c][p * R + i] = hsum8(half(acc[p][c], i));
            }
        }
    }
}

// ---- driver ----------------------------------------------------------------------------------------
struct q4k {
    template <int NP, int NC>
    static void tile(int nb, const uint8_t * const * w, const block_q8_K * const * y, float (*res)[RP * R]) {
        k45_tile<block_q4_K, false, NP, NC>(nb, w, y, res);
    }
};
struct q5k {
    template <int NP, int NC>
    static void tile(int nb, const uint8_t * const * w, const block_q8_K * const * y, float (*res)[RP * R]) {
        k45_tile<block_q5_K, true, NP, NC>(nb, w, y, res);
    }
};
struct q6k {
    template <int NP, int NC>
    static void tile(int nb, const uint8_t * const * w, const block_q8_K * const * y, float (*res)[RP * R]) {
        k6_tile<NP, NC>(nb, w, y, res);
    }
};

template <int A, int B>
constexpr int min_i() {
    return A < B ? A : B;
}

// nc (1..RN) activation rows: one instantiation per count, so no tile computes unused columns
template <typename F, int NP>
void tile_cols(int nb, const uint8_t * const * w, int nc, const block_q8_K * const * y, float (*res)[RP * R]) {
    switch (nc) {
        case 1:
            F::template tile<NP, 1>(nb, w, y, res);
            break;
        case 2:
            F::template tile<NP, min_i<2, RN>()>(nb, w, y, res);
            break;
        case 3:
            F::template tile<NP, min_i<3, RN>()>(nb, w, y, res);
            break;
        case 4:
            F::template tile<NP, min_i<4, RN>()>(nb, w, y, res);
            break;
        case 5:
            F::template tile<NP, min_i<5, RN>()>(nb, w, y, res);
            break;
        case 6:
            F::template tile<NP, min_i<6, RN>()>(nb, w, y, res);
            break;
        case 7:
            F::template tile<NP, min_i<7, RN>()>(nb, w, y, res);
            break;
        default:
            F::template tile<NP, min_i<8, RN>()>(nb, w, y, res);
            break;
    }
}

// out[c][r] for nrows weight rows (rs bytes apart) and ncols Q8_K activation rows
template <typename F>
void gemm(int n, int nrows, const void * vw, size_t rs, int ncols, const void * const * vy, float * const * out) {
    const int       nb = n / QK_K;
    const uint8_t * w  = (const uint8_t *) vw;
    constexpr int   TM = RP * R;  // rows per full tile
    for (int c0 = 0; c0 < ncols; c0 += RN) {
        const int          nc = ncols - c0 < RN ? ncols - c0 : RN;
        const block_q8_K * y[RN];
        for (int c = 0; c < nc; c++) {
            y[c] = (const block_q8_K *) vy[c0 + c];
        }
        for (int r0 = 0; r0 < nrows; r0 += TM) {
            const int       nr = nrows - r0 < TM ? nrows - r0 : TM;
            const uint8_t * wp[TM];
            for (int i = 0; i < TM; i++) {
                // rows past the end repeat the last one (computed, not stored)
                wp[i] = w + (size_t) (r0 + (i < nr ? i : nr - 1)) * rs;
            }
            float res[RN][TM];
            if (nr > (RP - 1) * R) {
                tile_cols<F, RP>(nb, wp, nc, y, res);
            } else {
                for (int p = 0; p * R < nr; p++) {
                    float part[RN][TM];
                    tile_cols<F, 1>(nb, wp + p * R, nc, y, part);
                    for (int c = 0; c < nc; c++) {
                        for (int i = 0; i < R; i++) {
                            res[c][p * R + i] = part[c][i];
                        }
                    }
                }
            }
            for (int c = 0; c < nc; c++) {
                for (int i = 0; i < nr; i++) {
                    out[c0 + c][r0 + i] = res[c][i];
                }
            }
        }
    }
}

// Installs the K-quant GEMMs into a traits table of this instruction set.
inline void fill_table(ggml_cpu_type_traits * t) {
    t[GGML_TYPE_Q4_K].gemm = gemm<q4k>;
    t[GGML_TYPE_Q5_K].gemm = gemm<q5k>;
    t[GGML_TYPE_Q6_K].gemm = gemm<q6k>;
}

}  // namespace kq
}  // namespace
