// arm64 dot products of the grid i-quants (IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M)
// against q8_K. Included after quants-arm-kernels.h by quants-arm.neon.cpp and quants-arm.dotprod.cpp,
// under the same compile-twice rules (internal linkage only, no STL); the integer dot is dot_s8 of
// that header (SDOT, or SMULL + SADALP).
//
// Per 32 elements: the grid entries (8 or 4 bytes per index) are loaded into two int8x16 halves, the
// element signs applied to the grid values (|grid| <= 62, so negating them never wraps), and the
// halves dotted with the activations and multiplied by their odd scale(s). The integers are those of
// the scalar reference (ggml-quants-iq.c); only the order of the per-block float sums can differ.
#pragma once

#include "ggml-iq-grids.h"
#include "quants-arm-kernels.h"

namespace {

// the sign byte of a 7-bit field: the field with its parity as bit 7 (the sign count is always even)
struct iq_signs_table {
    uint8_t v[128];

    constexpr iq_signs_table() : v() {
        for (int f = 0; f < 128; f++) {
            int p = 0;
            for (int b = 0; b < 7; b++) {
                p ^= (f >> b) & 1;
            }
            v[f] = (uint8_t) (f | (p << 7));
        }
    }
};

constexpr iq_signs_table k_iq_signs{};

// four sign bytes from four 7-bit fields at bits 0, 7, 14, 21 of aux
inline uint32_t iq_signs4x7(uint32_t aux) {
    return (uint32_t) k_iq_signs.v[aux & 127] | (uint32_t) k_iq_signs.v[(aux >> 7) & 127] << 8 |
           (uint32_t) k_iq_signs.v[(aux >> 14) & 127] << 16 | (uint32_t) k_iq_signs.v[(aux >> 21) & 127] << 24;
}

// four 8-value grid entries as 32 elements
inline dec32 iq_grid8x4(const int8_t * e0, const int8_t * e1, const int8_t * e2, const int8_t * e3) {
    return {vcombine_s8(vld1_s8(e0), vld1_s8(e1)), vcombine_s8(vld1_s8(e2), vld1_s8(e3))};
}

inline uint32_t iq_rd32(const int8_t * p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

// four 4-value grid entries as 16 elements
inline int8x16_t iq_grid4x4(const int8_t * e0, const int8_t * e1, const int8_t * e2, const int8_t * e3) {
    uint32x4_t v = vdupq_n_u32(iq_rd32(e0));
    v            = vsetq_lane_u32(iq_rd32(e1), v, 1);
    v            = vsetq_lane_u32(iq_rd32(e2), v, 2);
    v            = vsetq_lane_u32(iq_rd32(e3), v, 3);
    return vreinterpretq_s8_u32(v);
}

// 32 sign bits (bit j of byte l: element 8l + j negative) applied to 32 elements: byte l is spread
// over its 8 lanes, each lane tests its own bit, and g becomes (g ^ m) - m with m = 0 or -1
inline dec32 iq_apply_signs(dec32 g, uint32_t signs) {
    static const uint8_t spread[16] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
    static const uint8_t bit[16]    = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t     sp         = vld1q_u8(spread);
    const uint8x16_t     bits       = vld1q_u8(bit);
    const uint8x16_t     b          = vreinterpretq_u8_u32(vdupq_n_u32(signs));
    const int8x16_t      m_lo       = vreinterpretq_s8_u8(vtstq_u8(vqtbl1q_u8(b, sp), bits));
    const int8x16_t      m_hi       = vreinterpretq_s8_u8(vtstq_u8(vqtbl1q_u8(b, vaddq_u8(sp, vdupq_n_u8(2))), bits));
    return {vsubq_s8(veorq_s8(g.lo, m_lo), m_lo), vsubq_s8(veorq_s8(g.hi, m_hi), m_hi)};
}

// acc + sc * (32-element dot product)
inline int32x4_t iq_dot32_sc(int32x4_t acc, dec32 g, const int8_t * q8, int sc) {
    return vmlaq_n_s32(acc, dot_s8x2(g.lo, load_s8(q8), g.hi, load_s8(q8 + 16)), sc);
}

// acc + sc_lo * (dot of elements 0..15) + sc_hi * (dot of elements 16..31)
inline int32x4_t iq_dot32_sc2(int32x4_t acc, dec32 g, const int8_t * q8, int sc_lo, int sc_hi) {
    acc = vmlaq_n_s32(acc, dot_s8(vdupq_n_s32(0), g.lo, load_s8(q8)), sc_lo);
    return vmlaq_n_s32(acc, dot_s8(vdupq_n_s32(0), g.hi, load_s8(q8 + 16)), sc_hi);
}

// One group of 32 weights of a grid i-quant super-block: returns acc plus group j's products with q8.
template <typename Block>
using iq_group_fn = int32x4_t (*)(const Block & b, int j, const ggml_iq_grids * G, int32x4_t acc, const int8_t * q8);

// The loop the grid i-quant dots share: per super-block eight groups into one int32x4 accumulator, then
// d(block) * scale * d(q8) * the sum. The group is a template argument, so each type gets its own loop.
template <typename Block, iq_group_fn<Block> group>
inline void iq_dot_superblocks(int n, float * s, const void * vx, const void * vy, float scale) {
    const Block *                x   = (const Block *) vx;
    const block_q8_K *           y   = (const block_q8_K *) vy;
    const struct ggml_iq_grids * G   = ggml_iq_grids_get();
    float                        sum = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        int32x4_t sumv = vdupq_n_s32(0);
        for (int j = 0; j < 8; j++)
            sumv = group(x[ib], j, G, sumv, y[ib].qs + 32 * j);
        sum += fp16_to_f32(x[ib].d) * scale * y[ib].d * (float) vaddvq_s32(sumv);
    }
    *s = sum;
}

// per 32: 4 grid indices, then 4 seven-bit sign fields and the 4-bit scale in one word
inline int32x4_t iq2_xxs_group(const block_iq2_xxs & b, int j, const ggml_iq_grids * G, int32x4_t acc,
                               const int8_t * q8) {
    const uint8_t * qs = (const uint8_t *) b.qs + 8 * j;
    uint32_t        aux;
    memcpy(&aux, qs + 4, 4);
    const dec32 g = iq_grid8x4(G->iq2xxs[qs[0]], G->iq2xxs[qs[1]], G->iq2xxs[qs[2]], G->iq2xxs[qs[3]]);
    return iq_dot32_sc(acc, iq_apply_signs(g, iq_signs4x7(aux)), q8, 2 * (int) (aux >> 28) + 1);
}

// per group of 8: a 16-bit word of 9-bit grid index and 7-bit sign field
inline int32x4_t iq2_xs_group(const block_iq2_xs & b, int j, const ggml_iq_grids * G, int32x4_t acc,
                              const int8_t * q8) {
    uint16_t v[4];
    memcpy(v, &b.qs[4 * j], 8);
    const uint32_t sb = (uint32_t) k_iq_signs.v[v[0] >> 9] | (uint32_t) k_iq_signs.v[v[1] >> 9] << 8 |
                        (uint32_t) k_iq_signs.v[v[2] >> 9] << 16 | (uint32_t) k_iq_signs.v[v[3] >> 9] << 24;
    const dec32 g  = iq_grid8x4(G->iq2xs[v[0] & 511], G->iq2xs[v[1] & 511], G->iq2xs[v[2] & 511], G->iq2xs[v[3] & 511]);
    const int   sc = b.scales[j];
    return iq_dot32_sc2(acc, iq_apply_signs(g, sb), q8, 2 * (sc & 0xF) + 1, 2 * (sc >> 4) + 1);
}

// per 32: 4 low index bytes, 2 high bits each from qh[j], and 4 plain sign bytes at qs[32..]
inline int32x4_t iq2_s_group(const block_iq2_s & b, int j, const ggml_iq_grids * G, int32x4_t acc, const int8_t * q8) {
    const uint8_t * qs = b.qs + 4 * j;
    const int       qh = b.qh[j];
    uint32_t        sb;
    memcpy(&sb, b.qs + 32 + 4 * j, 4);
    const dec32 g  = iq_grid8x4(G->iq2s[qs[0] | ((qh << 8) & 0x300)], G->iq2s[qs[1] | ((qh << 6) & 0x300)],
                                G->iq2s[qs[2] | ((qh << 4) & 0x300)], G->iq2s[qs[3] | ((qh << 2) & 0x300)]);
    const int   sc = b.scales[j];
    return iq_dot32_sc2(acc, iq_apply_signs(g, sb), q8, 2 * (sc & 0xF) + 1, 2 * (sc >> 4) + 1);
}

// per 32: 8 indices of 4-value entries; sign fields and scale as iq2_xxs, in qs[64..]
inline int32x4_t iq3_xxs_group(const block_iq3_xxs & b, int j, const ggml_iq_grids * G, int32x4_t acc,
                               const int8_t * q8) {
    const uint8_t * idx = b.qs + 8 * j;
    uint32_t        aux;
    memcpy(&aux, b.qs + 64 + 4 * j, 4);
    const dec32 g = {iq_grid4x4(G->iq3xxs[idx[0]], G->iq3xxs[idx[1]], G->iq3xxs[idx[2]], G->iq3xxs[idx[3]]),
                     iq_grid4x4(G->iq3xxs[idx[4]], G->iq3xxs[idx[5]], G->iq3xxs[idx[6]], G->iq3xxs[idx[7]])};
    return iq_dot32_sc(acc, iq_apply_signs(g, iq_signs4x7(aux)), q8, 2 * (int) (aux >> 28) + 1);
}

// per 32: 8 low index bytes, bit k of qh[j] as bit 8 of index k, 4 plain sign bytes
inline int32x4_t iq3_s_group(const block_iq3_s & b, int j, const ggml_iq_grids * G, int32x4_t acc, const int8_t * q8) {
    const uint8_t * qs = b.qs + 8 * j;
    const int       qh = b.qh[j];
    uint32_t        sb;
    memcpy(&sb, b.signs + 4 * j, 4);
    const dec32 g  = {iq_grid4x4(G->iq3s[qs[0] | ((qh << 8) & 256)], G->iq3s[qs[1] | ((qh << 7) & 256)],
                                 G->iq3s[qs[2] | ((qh << 6) & 256)], G->iq3s[qs[3] | ((qh << 5) & 256)]),
                      iq_grid4x4(G->iq3s[qs[4] | ((qh << 4) & 256)], G->iq3s[qs[5] | ((qh << 3) & 256)],
                                 G->iq3s[qs[6] | ((qh << 2) & 256)], G->iq3s[qs[7] | ((qh << 1) & 256)])};
    const int   sc = 2 * ((b.scales[j / 2] >> (4 * (j % 2))) & 0xF) + 1;
    return iq_dot32_sc(acc, iq_apply_signs(g, sb), q8, sc);
}

// iq1: element = 8 * grid + delta (grid in {-1, 0, 1}, delta +-1 per group of 8), |element| <= 9
inline dec32 iq1_values(dec32 g, int8x16_t delta_lo, int8x16_t delta_hi) {
    return {vaddq_s8(vshlq_n_s8(g.lo, 3), delta_lo), vaddq_s8(vshlq_n_s8(g.hi, 3), delta_hi)};
}

inline int8x8_t iq1_delta(bool neg) {
    return vdup_n_s8(neg ? -1 : 1);
}

// per 32: 4 low index bytes; qh[j] holds 3 high bits per index, the scale and the delta sign
inline int32x4_t iq1_s_group(const block_iq1_s & b, int j, const ggml_iq_grids * G, int32x4_t acc, const int8_t * q8) {
    const uint8_t * qs = b.qs + 4 * j;
    uint16_t        qh;
    memcpy(&qh, &b.qh[j], 2);
    const dec32     g  = iq_grid8x4(G->iq1s[qs[0] | ((qh << 8) & 0x700)], G->iq1s[qs[1] | ((qh << 5) & 0x700)],
                                    G->iq1s[qs[2] | ((qh << 2) & 0x700)], G->iq1s[qs[3] | ((qh >> 1) & 0x700)]);
    const int8x16_t dl = vdupq_n_s8((qh & 0x8000) ? -1 : 1);
    return iq_dot32_sc(acc, iq1_values(g, dl, dl), q8, 2 * ((qh >> 12) & 7) + 1);
}

void vec_dot_iq2_xxs_q8_K_neon(int n, float * s, const void * vx, const void * vy) {
    iq_dot_superblocks<block_iq2_xxs, iq2_xxs_group>(n, s, vx, vy, 0.125f);
}

void vec_dot_iq2_xs_q8_K_neon(int n, float * s, const void * vx, const void * vy) {
    iq_dot_superblocks<block_iq2_xs, iq2_xs_group>(n, s, vx, vy, 0.125f);
}

void vec_dot_iq2_s_q8_K_neon(int n, float * s, const void * vx, const void * vy) {
    iq_dot_superblocks<block_iq2_s, iq2_s_group>(n, s, vx, vy, 0.125f);
}

void vec_dot_iq3_xxs_q8_K_neon(int n, float * s, const void * vx, const void * vy) {
    iq_dot_superblocks<block_iq3_xxs, iq3_xxs_group>(n, s, vx, vy, 0.25f);
}

void vec_dot_iq3_s_q8_K_neon(int n, float * s, const void * vx, const void * vy) {
    iq_dot_superblocks<block_iq3_s, iq3_s_group>(n, s, vx, vy, 1.0f);
}

void vec_dot_iq1_s_q8_K_neon(int n, float * s, const void * vx, const void * vy) {
    iq_dot_superblocks<block_iq1_s, iq1_s_group>(n, s, vx, vy, 0.125f);
}

void vec_dot_iq1_m_q8_K_neon(int n, float * s, const void * vx, const void * vy) {
    const block_iq1_m *          x   = (const block_iq1_m *) vx;
    const block_q8_K *           y   = (const block_q8_K *) vy;
    const struct ggml_iq_grids * G   = ggml_iq_grids_get();
    float                        sum = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        uint16_t sc[4];
        memcpy(sc, x[ib].scales, 8);
        // the block's fp16 scale: nibble i is the top nibble of sc[i]
        const ggml_fp16_t d16 =
            (ggml_fp16_t) ((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) | ((sc[2] >> 4) & 0x0F00) | (sc[3] & 0xF000));
        int32x4_t sumv = vdupq_n_s32(0);
        // per 32: 4 low index bytes; each nibble of qh[2j], qh[2j + 1] is 3 high index bits and the
        // delta sign of one group of 8; two 3-bit scales per 32 in sc[j / 2]
        for (int j = 0; j < 8; j++) {
            const uint8_t * qs = x[ib].qs + 4 * j;
            const uint8_t * qh = x[ib].qh + 2 * j;
            const dec32     g =
                iq_grid8x4(G->iq1s[qs[0] | ((qh[0] << 8) & 0x700)], G->iq1s[qs[1] | ((qh[0] << 4) & 0x700)],
                           G->iq1s[qs[2] | ((qh[1] << 8) & 0x700)], G->iq1s[qs[3] | ((qh[1] << 4) & 0x700)]);
            const int8x16_t dl = vcombine_s8(iq1_delta(qh[0] & 0x08), iq1_delta(qh[0] & 0x80));
            const int8x16_t dh = vcombine_s8(iq1_delta(qh[1] & 0x08), iq1_delta(qh[1] & 0x80));
            const int       sh = 6 * (j % 2);
            sumv = iq_dot32_sc2(sumv, iq1_values(g, dl, dh), y[ib].qs + 32 * j, 2 * ((sc[j / 2] >> sh) & 7) + 1,
                                2 * ((sc[j / 2] >> (sh + 3)) & 7) + 1);
        }
        sum += fp16_to_f32(d16) * 0.125f * y[ib].d * (float) vaddvq_s32(sumv);
    }
    *s = sum;
}

// Installs the kernels of this file (q8_K activations; the quantizer is quants-arm-kernels.h's).
inline void fill_arm_table_iq(ggml_cpu_type_traits * t) {
    const ggml_type users[] = {GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S, GGML_TYPE_IQ3_XXS,
                               GGML_TYPE_IQ3_S,   GGML_TYPE_IQ1_S,  GGML_TYPE_IQ1_M};
    for (ggml_type ty : users) {
        t[ty].from_float = quantize_row_q8_K_neon;
    }
    t[GGML_TYPE_IQ2_XXS].vec_dot = vec_dot_iq2_xxs_q8_K_neon;
    t[GGML_TYPE_IQ2_XS].vec_dot  = vec_dot_iq2_xs_q8_K_neon;
    t[GGML_TYPE_IQ2_S].vec_dot   = vec_dot_iq2_s_q8_K_neon;
    t[GGML_TYPE_IQ3_XXS].vec_dot = vec_dot_iq3_xxs_q8_K_neon;
    t[GGML_TYPE_IQ3_S].vec_dot   = vec_dot_iq3_s_q8_K_neon;
    t[GGML_TYPE_IQ1_S].vec_dot   = vec_dot_iq1_s_q8_K_neon;
    t[GGML_TYPE_IQ1_M].vec_dot   = vec_dot_iq1_m_q8_K_neon;
}

}  // namespace
