// The grid i-quants (IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S, IQ1_M): dequantization exactly as the
// GGUF format defines it and the scalar dot products against q8_K. Every type is first decoded into one
// integer form, x = d * es * sc[j / 16] * q[j] (q and sc small integers), which the dequantization and
// the dot product share, so the two cannot disagree. The quantizers live in ggml-quantize-iq*.c.
#include "ggml-iq-grids.h"
#include "ggml-quants.h"

#include <string.h>

_Static_assert(sizeof(block_iq2_xxs) == 2 + 64, "iq2_xxs size");
_Static_assert(sizeof(block_iq2_xs) == 2 + 64 + 8, "iq2_xs size");
_Static_assert(sizeof(block_iq2_s) == 2 + 64 + 8 + 8, "iq2_s size");
_Static_assert(sizeof(block_iq3_xxs) == 2 + 96, "iq3_xxs size");
_Static_assert(sizeof(block_iq3_s) == 2 + 64 + 8 + 32 + 4, "iq3_s size");
_Static_assert(sizeof(block_iq1_s) == 2 + 32 + 16, "iq1_s size");
_Static_assert(sizeof(block_iq1_m) == 32 + 16 + 8, "iq1_m size");

typedef struct {
    int8_t q[QK_K];        // signed grid values (iq1: 8 * (grid +- 1/8))
    int8_t sc[QK_K / 16];  // odd scale per 16 elements
    float  d;              // block scale with the format's constant folded in
    float  es;             // element scale: 1, or 1/8 for the iq1 types
} iq_block;

// a 7-bit sign field and its parity bit: bit j set = element j negative
static inline uint8_t signs7(uint32_t field) {
    const uint32_t f = field & 127;
    uint32_t       p = f ^ (f >> 4);
    p ^= p >> 2;
    p ^= p >> 1;
    return (uint8_t) (f | ((p & 1) << 7));
}

static inline uint32_t rd32(const uint8_t * p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint16_t rd16(const uint8_t * p) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

// branch-free: the signs are random, a branch per element would mispredict half the time
static inline void put_signed(int8_t * q, const int8_t * g, int n, uint8_t signs) {
    for (int j = 0; j < n; j++) {
        const int m = -(int) ((signs >> j) & 1);
        q[j]        = (int8_t) ((g[j] ^ m) - m);
    }
}

static inline void set_scale32(iq_block * o, int ib, int s_lo, int s_hi) {
    o->sc[2 * ib]     = (int8_t) (2 * s_lo + 1);
    o->sc[2 * ib + 1] = (int8_t) (2 * s_hi + 1);
}

static void decode_iq2_xxs(const block_iq2_xxs * b, iq_block * o) {
    const struct ggml_iq_grids * G  = ggml_iq_grids_get();
    const uint8_t *              qs = (const uint8_t *) b->qs;
    o->d                            = ggml_fp16_to_fp32(b->d) * 0.125f;
    o->es                           = 1.0f;
    for (int ib = 0; ib < 8; ib++) {
        const uint8_t * idx = qs + 8 * ib;
        const uint32_t  aux = rd32(qs + 8 * ib + 4);
        for (int l = 0; l < 4; l++) {
            put_signed(o->q + 32 * ib + 8 * l, G->iq2xxs[idx[l]], 8, signs7(aux >> (7 * l)));
        }
        set_scale32(o, ib, (int) (aux >> 28), (int) (aux >> 28));
    }
}

static void decode_iq2_xs(const block_iq2_xs * b, iq_block * o) {
    const struct ggml_iq_grids * G = ggml_iq_grids_get();
    o->d                           = ggml_fp16_to_fp32(b->d) * 0.125f;
    o->es                          = 1.0f;
    for (int ib = 0; ib < 8; ib++) {
        for (int l = 0; l < 4; l++) {
            const uint16_t v = rd16((const uint8_t *) &b->qs[4 * ib + l]);
            put_signed(o->q + 32 * ib + 8 * l, G->iq2xs[v & 511], 8, signs7(v >> 9));
        }
        set_scale32(o, ib, b->scales[ib] & 0xF, b->scales[ib] >> 4);
    }
}

static void decode_iq2_s(const block_iq2_s * b, iq_block * o) {
    const struct ggml_iq_grids * G = ggml_iq_grids_get();
    o->d                           = ggml_fp16_to_fp32(b->d) * 0.125f;
    o->es                          = 1.0f;
    for (int ib = 0; ib < 8; ib++) {
        for (int l = 0; l < 4; l++) {
            const int idx = b->qs[4 * ib + l] | (((b->qh[ib] >> (2 * l)) & 3) << 8);
            put_signed(o->q + 32 * ib + 8 * l, G->iq2s[idx], 8, b->qs[32 + 4 * ib + l]);
        }
        set_scale32(o, ib, b->scales[ib] & 0xF, b->scales[ib] >> 4);
    }
}

static void decode_iq3_xxs(const block_iq3_xxs * b, iq_block * o) {
    const struct ggml_iq_grids * G = ggml_iq_grids_get();
    o->d                           = ggml_fp16_to_fp32(b->d) * 0.25f;
    o->es                          = 1.0f;
    for (int ib = 0; ib < 8; ib++) {
        const uint8_t * idx = b->qs + 8 * ib;
        const uint32_t  aux = rd32(b->qs + 64 + 4 * ib);
        for (int l = 0; l < 4; l++) {
            const uint8_t s = signs7(aux >> (7 * l));
            put_signed(o->q + 32 * ib + 8 * l, G->iq3xxs[idx[2 * l]], 4, s);
            put_signed(o->q + 32 * ib + 8 * l + 4, G->iq3xxs[idx[2 * l + 1]], 4, (uint8_t) (s >> 4));
        }
        set_scale32(o, ib, (int) (aux >> 28), (int) (aux >> 28));
    }
}

static void decode_iq3_s(const block_iq3_s * b, iq_block * o) {
    const struct ggml_iq_grids * G = ggml_iq_grids_get();
    o->d                           = ggml_fp16_to_fp32(b->d);
    o->es                          = 1.0f;
    for (int ib = 0; ib < 8; ib++) {
        const uint8_t * qs = b->qs + 8 * ib;
        for (int l = 0; l < 4; l++) {
            const int     i1 = qs[2 * l] | (((b->qh[ib] >> (2 * l)) & 1) << 8);
            const int     i2 = qs[2 * l + 1] | (((b->qh[ib] >> (2 * l + 1)) & 1) << 8);
            const uint8_t s  = b->signs[4 * ib + l];
            put_signed(o->q + 32 * ib + 8 * l, G->iq3s[i1], 4, s);
            put_signed(o->q + 32 * ib + 8 * l + 4, G->iq3s[i2], 4, (uint8_t) (s >> 4));
        }
        const int s = (b->scales[ib / 2] >> (4 * (ib % 2))) & 0xF;
        set_scale32(o, ib, s, s);
    }
}

// one iq1 group of 8: 8 * (grid +- 1/8)
static inline void put_iq1(int8_t * q, const int8_t * g, int neg_delta) {
    for (int j = 0; j < 8; j++) {
        q[j] = (int8_t) (8 * g[j] + (neg_delta ? -1 : 1));
    }
}

static void decode_iq1_s(const block_iq1_s * b, iq_block * o) {
    const struct ggml_iq_grids * G = ggml_iq_grids_get();
    o->d                           = ggml_fp16_to_fp32(b->d);
    o->es                          = 0.125f;
    for (int ib = 0; ib < 8; ib++) {
        const uint16_t qh = rd16((const uint8_t *) &b->qh[ib]);
        for (int l = 0; l < 4; l++) {
            const int idx = b->qs[4 * ib + l] | (((qh >> (3 * l)) & 7) << 8);
            put_iq1(o->q + 32 * ib + 8 * l, G->iq1s[idx], qh & 0x8000);
        }
        const int s = (qh >> 12) & 7;
        set_scale32(o, ib, s, s);
    }
}

static void decode_iq1_m(const block_iq1_m * b, iq_block * o) {
    const struct ggml_iq_grids * G = ggml_iq_grids_get();
    uint16_t                     sc[4];
    for (int i = 0; i < 4; i++) {
        sc[i] = rd16(b->scales + 2 * i);
    }
    // the block's fp16 scale: nibble i is the top nibble of sc[i]
    const ggml_fp16_t d16 =
        (ggml_fp16_t) ((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) | ((sc[2] >> 4) & 0x0F00) | (sc[3] & 0xF000));
    o->d  = ggml_fp16_to_fp32(d16);
    o->es = 0.125f;
    for (int ib = 0; ib < 8; ib++) {
        const uint8_t * qs = b->qs + 4 * ib;
        const uint8_t * qh = b->qh + 2 * ib;
        for (int l = 0; l < 4; l++) {
            const uint8_t h   = qh[l / 2] >> (4 * (l % 2));  // low nibble for even l, high for odd
            const int     idx = qs[l] | ((h & 7) << 8);
            put_iq1(o->q + 32 * ib + 8 * l, G->iq1s[idx], h & 8);
        }
        const int sh = 6 * (ib % 2);
        set_scale32(o, ib, (sc[ib / 2] >> sh) & 7, (sc[ib / 2] >> (sh + 3)) & 7);
    }
}

// ---------------------------------------------------------------------------------------------
static void dequant_block(const iq_block * o, float * y) {
    for (int k = 0; k < QK_K / 16; k++) {
        const float dl = o->d * (float) o->sc[k];
        for (int j = 16 * k; j < 16 * k + 16; j++) {
            y[j] = dl * ((float) o->q[j] * o->es);
        }
    }
}

static float dot_block(const iq_block * o, const block_q8_K * y) {
    int sumi = 0;
    for (int k = 0; k < QK_K / 16; k++) {
        int s = 0;
        for (int j = 16 * k; j < 16 * k + 16; j++) {
            s += o->q[j] * y->qs[j];
        }
        sumi += o->sc[k] * s;
    }
    return o->d * o->es * y->d * (float) sumi;
}

// Both entry points per type, over its decoder.
#define IQ_ROW_FUNCS(t)                                                                    \
    void dequantize_row_##t(const block_##t * x, float * y, int64_t n) {                   \
        iq_block o;                                                                        \
        for (int64_t ib = 0; ib < n / QK_K; ib++) {                                        \
            decode_##t(&x[ib], &o);                                                        \
            dequant_block(&o, y + ib * QK_K);                                              \
        }                                                                                  \
    }                                                                                      \
    void ggml_vec_dot_##t##_q8_K_ref(int n, float * s, const void * vx, const void * vy) { \
        const block_##t *  x   = (const block_##t *) vx;                                   \
        const block_q8_K * y   = (const block_q8_K *) vy;                                  \
        float              sum = 0.0f;                                                     \
        iq_block           o;                                                              \
        for (int ib = 0; ib < n / QK_K; ib++) {                                            \
            decode_##t(&x[ib], &o);                                                        \
            sum += dot_block(&o, &y[ib]);                                                  \
        }                                                                                  \
        *s = sum;                                                                          \
    }

IQ_ROW_FUNCS(iq2_xxs)
IQ_ROW_FUNCS(iq2_xs)
IQ_ROW_FUNCS(iq2_s)
IQ_ROW_FUNCS(iq3_xxs)
IQ_ROW_FUNCS(iq3_s)
IQ_ROW_FUNCS(iq1_s)
IQ_ROW_FUNCS(iq1_m)
