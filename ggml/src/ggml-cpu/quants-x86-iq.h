// x86 dot products of the grid i-quants against q8_K. Included after
// quants-x86-kernels.h by quants-x86.avx2.cpp and quants-x86.avx512.cpp (same compile-twice rules: internal linkage
// only). Per 32 elements: four grid entries gathered into one vector (unsigned, <= 62), the element signs moved onto
// the activations, and one scaled u8 x s8 dot with the two 16-element scales. The integers are those of
// the scalar reference (ggml-quants-iq.c), so only the float block sum order can differ.
#pragma once

#include "ggml-iq-grids.h"
#include "quants-x86-kernels.h"

namespace {

inline uint64_t iq_grid8(const int8_t * e) {
    uint64_t v;
    memcpy(&v, e, 8);
    return v;
}

// two 4-value entries as one group of 8
inline uint64_t iq_grid4x2(const int8_t * lo, const int8_t * hi) {
    uint32_t a, b;
    memcpy(&a, lo, 4);
    memcpy(&b, hi, 4);
    return (uint64_t) a | ((uint64_t) b << 32);
}

// 32 sign bits (bit j of byte l: element 8l + j negative) as +1 / -1 bytes
inline __m256i iq_signs_pm1(uint32_t bits) {
    const __m256i shuf = _mm256_set_epi64x(0x0303030303030303ll, 0x0202020202020202ll, 0x0101010101010101ll, 0);
    const __m256i bit  = _mm256_set1_epi64x((long long) 0x8040201008040201ull);
    const __m256i b    = _mm256_shuffle_epi8(_mm256_set1_epi32((int) bits), shuf);
    const __m256i neg  = _mm256_cmpeq_epi8(_mm256_and_si256(b, bit), bit);
    return _mm256_or_si256(neg, _mm256_set1_epi8(1));
}

// a 7-bit sign field with its parity bit
inline uint32_t iq_signs7(uint32_t f) {
    f &= 127;
    uint32_t p = f ^ (f >> 4);
    p ^= p >> 2;
    p ^= p >> 1;
    return f | ((p & 1) << 7);
}

// 32 elements: unsigned grid values g, signs, activations y, scales of the two halves
inline __m256i iq_dot32(__m256i g, uint32_t sign_bits, const int8_t * y, int sc_lo, int sc_hi) {
    const __m256i ys = _mm256_sign_epi8(_mm256_loadu_si256((const __m256i *) y), iq_signs_pm1(sign_bits));
    return dot_u8s8_scaled(g, ys, sc_lo, sc_hi);
}

inline __m256i iq_set_groups(uint64_t g0, uint64_t g1, uint64_t g2, uint64_t g3) {
    return _mm256_set_epi64x((long long) g3, (long long) g2, (long long) g1, (long long) g0);
}

void vec_dot_iq2_xxs_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    const block_iq2_xxs *        x    = (const block_iq2_xxs *) vx;
    const block_q8_K *           y    = (const block_q8_K *) vy;
    const struct ggml_iq_grids * G    = ggml_iq_grids_get();
    float                        sumf = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        const uint8_t * qs  = (const uint8_t *) x[ib].qs;
        __m256i         acc = _mm256_setzero_si256();
        for (int j = 0; j < 8; j++) {
            const uint8_t * idx = qs + 8 * j;
            uint32_t        aux;
            memcpy(&aux, qs + 8 * j + 4, 4);
            const uint32_t sb =
                iq_signs7(aux) | iq_signs7(aux >> 7) << 8 | iq_signs7(aux >> 14) << 16 | iq_signs7(aux >> 21) << 24;
            const int     sc = 2 * (int) (aux >> 28) + 1;
            const __m256i g  = iq_set_groups(iq_grid8(G->iq2xxs[idx[0]]), iq_grid8(G->iq2xxs[idx[1]]),
                                             iq_grid8(G->iq2xxs[idx[2]]), iq_grid8(G->iq2xxs[idx[3]]));
            acc              = _mm256_add_epi32(acc, iq_dot32(g, sb, y[ib].qs + 32 * j, sc, sc));
        }
        sumf += ggml_fp16_to_fp32(x[ib].d) * 0.125f * y[ib].d * (float) hsum_i32_8(acc);
    }
    *s = sumf;
}

void vec_dot_iq2_xs_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    const block_iq2_xs *         x    = (const block_iq2_xs *) vx;
    const block_q8_K *           y    = (const block_q8_K *) vy;
    const struct ggml_iq_grids * G    = ggml_iq_grids_get();
    float                        sumf = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        __m256i acc = _mm256_setzero_si256();
        for (int j = 0; j < 8; j++) {
            uint16_t v[4];
            memcpy(v, &x[ib].qs[4 * j], 8);
            const uint32_t sb = iq_signs7(v[0] >> 9) | iq_signs7(v[1] >> 9) << 8 | iq_signs7(v[2] >> 9) << 16 |
                                iq_signs7(v[3] >> 9) << 24;
            const __m256i g  = iq_set_groups(iq_grid8(G->iq2xs[v[0] & 511]), iq_grid8(G->iq2xs[v[1] & 511]),
                                             iq_grid8(G->iq2xs[v[2] & 511]), iq_grid8(G->iq2xs[v[3] & 511]));
            const int     sc = x[ib].scales[j];
            acc = _mm256_add_epi32(acc, iq_dot32(g, sb, y[ib].qs + 32 * j, 2 * (sc & 0xF) + 1, 2 * (sc >> 4) + 1));
        }
        sumf += ggml_fp16_to_fp32(x[ib].d) * 0.125f * y[ib].d * (float) hsum_i32_8(acc);
    }
    *s = sumf;
}

void vec_dot_iq2_s_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    const block_iq2_s *          x    = (const block_iq2_s *) vx;
    const block_q8_K *           y    = (const block_q8_K *) vy;
    const struct ggml_iq_grids * G    = ggml_iq_grids_get();
    float                        sumf = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        __m256i acc = _mm256_setzero_si256();
        for (int j = 0; j < 8; j++) {
            const uint8_t * qs = x[ib].qs + 4 * j;
            const int       qh = x[ib].qh[j];
            uint32_t        sb;
            memcpy(&sb, x[ib].qs + 32 + 4 * j, 4);
            const __m256i g = iq_set_groups(
                iq_grid8(G->iq2s[qs[0] | ((qh << 8) & 0x300)]), iq_grid8(G->iq2s[qs[1] | ((qh << 6) & 0x300)]),
                iq_grid8(G->iq2s[qs[2] | ((qh << 4) & 0x300)]), iq_grid8(G->iq2s[qs[3] | ((qh << 2) & 0x300)]));
            const int sc = x[ib].scales[j];
            acc = _mm256_add_epi32(acc, iq_dot32(g, sb, y[ib].qs + 32 * j, 2 * (sc & 0xF) + 1, 2 * (sc >> 4) + 1));
        }
        sumf += ggml_fp16_to_fp32(x[ib].d) * 0.125f * y[ib].d * (float) hsum_i32_8(acc);
    }
    *s = sumf;
}

void vec_dot_iq3_xxs_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    const block_iq3_xxs *        x    = (const block_iq3_xxs *) vx;
    const block_q8_K *           y    = (const block_q8_K *) vy;
    const struct ggml_iq_grids * G    = ggml_iq_grids_get();
    float                        sumf = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        __m256i acc = _mm256_setzero_si256();
        for (int j = 0; j < 8; j++) {
            const uint8_t * idx = x[ib].qs + 8 * j;
            uint32_t        aux;
            memcpy(&aux, x[ib].qs + 64 + 4 * j, 4);
            const uint32_t sb =
                iq_signs7(aux) | iq_signs7(aux >> 7) << 8 | iq_signs7(aux >> 14) << 16 | iq_signs7(aux >> 21) << 24;
            const int     sc = 2 * (int) (aux >> 28) + 1;
            const __m256i g  = iq_set_groups(
                 iq_grid4x2(G->iq3xxs[idx[0]], G->iq3xxs[idx[1]]), iq_grid4x2(G->iq3xxs[idx[2]], G->iq3xxs[idx[3]]),
                 iq_grid4x2(G->iq3xxs[idx[4]], G->iq3xxs[idx[5]]), iq_grid4x2(G->iq3xxs[idx[6]], G->iq3xxs[idx[7]]));
            acc = _mm256_add_epi32(acc, iq_dot32(g, sb, y[ib].qs + 32 * j, sc, sc));
        }
        sumf += ggml_fp16_to_fp32(x[ib].d) * 0.25f * y[ib].d * (float) hsum_i32_8(acc);
    }
    *s = sumf;
}

void vec_dot_iq3_s_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    const block_iq3_s *          x    = (const block_iq3_s *) vx;
    const block_q8_K *           y    = (const block_q8_K *) vy;
    const struct ggml_iq_grids * G    = ggml_iq_grids_get();
    float                        sumf = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        __m256i acc = _mm256_setzero_si256();
        for (int j = 0; j < 8; j++) {
            const uint8_t * qs = x[ib].qs + 8 * j;
            const int       qh = x[ib].qh[j];
            uint32_t        sb;
            memcpy(&sb, x[ib].signs + 4 * j, 4);
            int idx[8];
            for (int k = 0; k < 8; k++) {
                idx[k] = qs[k] | (((qh >> k) & 1) << 8);
            }
            const __m256i g = iq_set_groups(
                iq_grid4x2(G->iq3s[idx[0]], G->iq3s[idx[1]]), iq_grid4x2(G->iq3s[idx[2]], G->iq3s[idx[3]]),
                iq_grid4x2(G->iq3s[idx[4]], G->iq3s[idx[5]]), iq_grid4x2(G->iq3s[idx[6]], G->iq3s[idx[7]]));
            const int sc = 2 * ((x[ib].scales[j / 2] >> (4 * (j % 2))) & 0xF) + 1;
            acc          = _mm256_add_epi32(acc, iq_dot32(g, sb, y[ib].qs + 32 * j, sc, sc));
        }
        sumf += ggml_fp16_to_fp32(x[ib].d) * y[ib].d * (float) hsum_i32_8(acc);
    }
    *s = sumf;
}

// iq1: 32 values q = 8 * grid + delta (grid in {-1, 0, 1}, delta +-1 per group of 8) against y
inline __m256i iq1_dot32(__m256i g, __m256i delta, const int8_t * y, int sc_lo, int sc_hi) {
    const __m256i g2 = _mm256_add_epi8(g, g);
    const __m256i g4 = _mm256_add_epi8(g2, g2);
    const __m256i q  = _mm256_add_epi8(_mm256_add_epi8(g4, g4), delta);  // never 0: |q| in 1..9
    const __m256i ys = _mm256_sign_epi8(_mm256_loadu_si256((const __m256i *) y), q);
    return dot_u8s8_scaled(_mm256_abs_epi8(q), ys, sc_lo, sc_hi);
}

inline uint64_t iq1_delta(bool neg) {
    return neg ? ~0ull : 0x0101010101010101ull;
}

void vec_dot_iq1_s_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    const block_iq1_s *          x    = (const block_iq1_s *) vx;
    const block_q8_K *           y    = (const block_q8_K *) vy;
    const struct ggml_iq_grids * G    = ggml_iq_grids_get();
    float                        sumf = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        __m256i acc = _mm256_setzero_si256();
        for (int j = 0; j < 8; j++) {
            const uint8_t * qs = x[ib].qs + 4 * j;
            uint16_t        qh;
            memcpy(&qh, &x[ib].qh[j], 2);
            const __m256i g = iq_set_groups(
                iq_grid8(G->iq1s[qs[0] | ((qh << 8) & 0x700)]), iq_grid8(G->iq1s[qs[1] | ((qh << 5) & 0x700)]),
                iq_grid8(G->iq1s[qs[2] | ((qh << 2) & 0x700)]), iq_grid8(G->iq1s[qs[3] | ((qh >> 1) & 0x700)]));
            const int sc = 2 * ((qh >> 12) & 7) + 1;
            acc          = _mm256_add_epi32(
                         acc, iq1_dot32(g, _mm256_set1_epi64x((long long) iq1_delta(qh & 0x8000)), y[ib].qs + 32 * j, sc, sc));
        }
        sumf += ggml_fp16_to_fp32(x[ib].d) * 0.125f * y[ib].d * (float) hsum_i32_8(acc);
    }
    *s = sumf;
}

void vec_dot_iq1_m_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    const block_iq1_m *          x    = (const block_iq1_m *) vx;
    const block_q8_K *           y    = (const block_q8_K *) vy;
    const struct ggml_iq_grids * G    = ggml_iq_grids_get();
    float                        sumf = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        uint16_t sc[4];
        memcpy(sc, x[ib].scales, 8);
        const ggml_fp16_t d16 =
            (ggml_fp16_t) ((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) | ((sc[2] >> 4) & 0x0F00) | (sc[3] & 0xF000));
        __m256i acc = _mm256_setzero_si256();
        for (int j = 0; j < 8; j++) {
            const uint8_t * qs = x[ib].qs + 4 * j;
            const uint8_t * qh = x[ib].qh + 2 * j;
            const __m256i   g  = iq_set_groups(
                   iq_grid8(G->iq1s[qs[0] | ((qh[0] << 8) & 0x700)]), iq_grid8(G->iq1s[qs[1] | ((qh[0] << 4) & 0x700)]),
                   iq_grid8(G->iq1s[qs[2] | ((qh[1] << 8) & 0x700)]), iq_grid8(G->iq1s[qs[3] | ((qh[1] << 4) & 0x700)]));
            const __m256i dl =
                _mm256_set_epi64x((long long) iq1_delta(qh[1] & 0x80), (long long) iq1_delta(qh[1] & 0x08),
                                  (long long) iq1_delta(qh[0] & 0x80), (long long) iq1_delta(qh[0] & 0x08));
            const int sh = 6 * (j % 2);
            acc          = _mm256_add_epi32(acc, iq1_dot32(g, dl, y[ib].qs + 32 * j, 2 * ((sc[j / 2] >> sh) & 7) + 1,
                                                           2 * ((sc[j / 2] >> (sh + 3)) & 7) + 1));
        }
        sumf += ggml_fp16_to_fp32(d16) * 0.125f * y[ib].d * (float) hsum_i32_8(acc);
    }
    *s = sumf;
}

// Installs the kernels of this file.
inline void fill_x86_table_iq(ggml_cpu_type_traits * t) {
    const ggml_type users[] = {GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S, GGML_TYPE_IQ3_XXS,
                               GGML_TYPE_IQ3_S,   GGML_TYPE_IQ1_S,  GGML_TYPE_IQ1_M};
    for (ggml_type ty : users) {
        t[ty].from_float = quantize_row_q8_K_simd;
    }
    t[GGML_TYPE_IQ2_XXS].vec_dot = vec_dot_iq2_xxs_q8_K_simd;
    t[GGML_TYPE_IQ2_XS].vec_dot  = vec_dot_iq2_xs_q8_K_simd;
    t[GGML_TYPE_IQ2_S].vec_dot   = vec_dot_iq2_s_q8_K_simd;
    t[GGML_TYPE_IQ3_XXS].vec_dot = vec_dot_iq3_xxs_q8_K_simd;
    t[GGML_TYPE_IQ3_S].vec_dot   = vec_dot_iq3_s_q8_K_simd;
    t[GGML_TYPE_IQ1_S].vec_dot   = vec_dot_iq1_s_q8_K_simd;
    t[GGML_TYPE_IQ1_M].vec_dot   = vec_dot_iq1_m_q8_K_simd;
}

}  // namespace
