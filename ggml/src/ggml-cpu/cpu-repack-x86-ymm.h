// The parts of the 256-bit CPU_REPACK group kernels that do not depend on how bytes are multiplied:
// cpu-repack.avx2.cpp (maddubs + pmaddwd) and cpu-repack.avxvnni.cpp (vpdpbusd / vpdpwssd) differ only
// in their inner dot products and keep those; the accumulators, the scale and min unpacking, the Q6_K
// value decoding and the -32 / min corrections live here once. Each file passes its instruction set
// as `Isa`, a struct with
//   static __m256i dot_i16(__m256i acc, __m256i a, __m256i b);  // acc + pairwise int16 products (int32)
// Internal linkage and templates only: each kernel file instantiates these with its own ISA flags.
#pragma once

#include "cpu-repack-x86.h"

namespace {

// The float sums of NC activation rows x 16 weight rows (two ymm per row: rows 0-7, 8-15).
template <int NC>
struct ymm_acc {
    __m256 v[NC][2];

    ymm_acc() {
        for (int c = 0; c < NC; ++c)
            v[c][0] = v[c][1] = _mm256_setzero_ps();
    }

    void store(float * const * out, int64_t row0) const {
        for (int c = 0; c < NC; ++c)
            for (int h = 0; h < 2; ++h)
                _mm256_storeu_ps(out[c] + row0 + 8 * h, v[c][h]);
    }
};

// The 16 F16 scales of a Q4_0 / Q8_0 block as floats, rows 0-7 and 8-15.
inline void load_scales16(const uint16_t * s, __m256 dw[2]) {
    dw[0] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) s));
    dw[1] = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (s + 8)));
}

// Q4_0 / Q8_0: the `lines` 64-byte lines of block q, `dist` bytes ahead (decode: non-temporal).
template <int NC>
inline void prefetch_block(const uint8_t * q, int lines, int dist_decode) {
    for (int j = 0; j < lines; ++j)
        _mm_prefetch((const char *) q + (NC == 1 ? dist_decode : PF_DIST) + 64 * j,
                     NC == 1 ? _MM_HINT_NTA : _MM_HINT_T0);
}

// Q4_K super-block sb, half h (rows 8h..8h+7): the 6-bit scales of sub-blocks 0-3 (s03) and 4-7 (s47)
// as one byte each per row, and the mins as int16 pairs (m0, m2), (m1, m3), (m4, m6), (m5, m7) for
// dot_i16 against the activation's sub-block sum pairs.
inline void q4k_scales_mins(const uint8_t * sb, int h, __m256i & s03, __m256i & s47, __m256i mp[4]) {
    const __m256i m6  = _mm256_set1_epi32(0x3f3f3f3f);
    const __m256i m2  = _mm256_set1_epi32(0x03030303);
    const __m256i mlo = _mm256_set1_epi32(0x0f0f0f0f);
    const __m256i mw  = _mm256_set1_epi32(0x00ff00ff);
    const __m256i u0  = _mm256_loadu_si256((const __m256i *) (sb + 64 + 32 * h));
    const __m256i u1  = _mm256_loadu_si256((const __m256i *) (sb + 128 + 32 * h));
    const __m256i u2  = _mm256_loadu_si256((const __m256i *) (sb + 192 + 32 * h));
    s03               = _mm256_and_si256(u0, m6);
    s47               = _mm256_or_si256(_mm256_and_si256(u2, mlo),
                                        _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(u0, 6), m2), 4));
    const __m256i m03 = _mm256_and_si256(u1, m6);
    const __m256i m47 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(u2, 4), mlo),
                                        _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(u1, 6), m2), 4));
    mp[0]             = _mm256_and_si256(m03, mw);
    mp[1]             = _mm256_and_si256(_mm256_srli_epi32(m03, 8), mw);
    mp[2]             = _mm256_and_si256(m47, mw);
    mp[3]             = _mm256_and_si256(_mm256_srli_epi32(m47, 8), mw);
}

// Q4_K: before line jj of sub-block pair k, its line PF_Q4K bytes ahead (36 lines per super-block,
// 9 per k: the 8th step also takes the 9th).
template <int NC>
inline void q4k_prefetch(const uint8_t * sb, int k, int jj) {
    _mm_prefetch((const char *) sb + PF_Q4K + 64 * (9 * k + jj), NC == 1 ? _MM_HINT_NTA : _MM_HINT_T0);
    if (jj == 7)
        _mm_prefetch((const char *) sb + PF_Q4K + 64 * (9 * k + 8), NC == 1 ? _MM_HINT_NTA : _MM_HINT_T0);
}

// Q4_K, after a super-block's integer sums isum (scales applied): acc += d * dy * isum - dmin * dy * mins,
// the mins term as 4 pair dots of the unpacked mins against the activation's sub-block sums.
template <typename Isa, int NC>
inline void q4k_finish(const uint8_t * sb, int64_t b, const __m256i mp[2][4], const __m256i isum[NC][2],
                       const ggml_repack_act * y, ymm_acc<NC> & acc) {
    for (int h = 0; h < 2; ++h) {
        const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (sb + 16 * h)));
        const __m256 dm = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (sb + 32 + 16 * h)));
        for (int c = 0; c < NC; ++c) {
            const int32_t * ys = y[c].corr + b * 4;
            __m256i         ms = _mm256_setzero_si256();
            for (int p = 0; p < 4; ++p)
                ms = Isa::dot_i16(ms, mp[h][p], _mm256_set1_epi32(ys[p]));
            const __m256 dy = _mm256_set1_ps(y[c].d[b]);
            acc.v[c][h]     = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[c][h]), _mm256_mul_ps(dw, dy), acc.v[c][h]);
            acc.v[c][h]     = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(ms), _mm256_mul_ps(dm, dy), acc.v[c][h]);
        }
    }
}

// Q6_K: the 6-bit values (0..63) of line m of quarter (n, h): vl from the low nibbles of ql and qh bits
// 2h, 2h + 1; vh from the high nibbles and qh bits 2h + 4, 2h + 5. One ymm per half (rows 0-7, 8-15).
inline void q6k_values(const uint8_t * ql, const uint8_t * qh, int n, int h, int m, __m256i vl[2], __m256i vh[2]) {
    const __m256i m4  = _mm256_set1_epi8(0x0F);
    const __m256i m30 = _mm256_set1_epi8(0x30);
    for (int hf = 0; hf < 2; ++hf) {
        const __m256i l  = _mm256_loadu_si256((const __m256i *) (ql + (16 * n + 8 * h + m) * 64 + 32 * hf));
        const __m256i hb = _mm256_loadu_si256((const __m256i *) (qh + (8 * n + m) * 64 + 32 * hf));
        const __m256i hl = _mm256_and_si256(h == 0 ? _mm256_slli_epi16(hb, 4) : _mm256_slli_epi16(hb, 2), m30);
        const __m256i hh = _mm256_and_si256(h == 0 ? hb : _mm256_srli_epi16(hb, 2), m30);
        vl[hf]           = _mm256_or_si256(_mm256_and_si256(l, m4), hl);
        vh[hf]           = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l, 4), m4), hh);
    }
}

// Q6_K: scale pair p (sub-blocks 2p, 2p + 1) of the 8 rows of half hf, sign-extended to int16.
inline __m256i q6k_scale_pair(const uint8_t * sb, int p, int hf) {
    return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *) (sb + 32 + 32 * p + 16 * hf)));
}

// Q6_K, after a super-block's integer sums isum (scales applied, values 0..63): the -32 offset is
// isum - 32 * (sum over the 8 scale pairs of sc . bsum), exact as in the scalar reference, then
// acc += d * dy * total.
template <typename Isa, int NC>
inline void q6k_finish(const uint8_t * sb, int64_t b, const __m256i isum[NC][2], const ggml_repack_act * y,
                       ymm_acc<NC> & acc) {
    for (int hf = 0; hf < 2; ++hf) {
        const __m256 dw = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (sb + 16 * hf)));
        __m256i      cs[NC];
        for (int c = 0; c < NC; ++c)
            cs[c] = _mm256_setzero_si256();
        for (int p = 0; p < 8; ++p) {
            const __m256i P = q6k_scale_pair(sb, p, hf);
            for (int c = 0; c < NC; ++c)
                cs[c] = Isa::dot_i16(cs[c], P, _mm256_set1_epi32(y[c].corr[b * 8 + p]));
        }
        for (int c = 0; c < NC; ++c) {
            const __m256i tot = _mm256_sub_epi32(isum[c][hf], _mm256_slli_epi32(cs[c], 5));
            acc.v[c][hf] =
                _mm256_fmadd_ps(_mm256_cvtepi32_ps(tot), _mm256_mul_ps(dw, _mm256_set1_ps(y[c].d[b])), acc.v[c][hf]);
        }
    }
}

}  // namespace
