// Quantization into IQ3_XXS and IQ3_S (layouts in ggml-quants.h, docs/quants.md). The approach is
// llama.cpp's: per sub-block of 32, each group of 4 magnitudes is rounded to the nearest level
// combination and, when that combination is not a grid point, replaced by the best of its nearest grid
// points (the neighbour map); a sweep of scales keeps the assignment with the largest weighted
// projection. We then fit the super-block scale by least squares over the 4-bit sub-block scales and
// re-choose each group for the scale as actually stored.
#include "ggml-impl.h"
#include "ggml-quantize-iq-nbr.h"
#include "ggml-quantize-iq13.h"
#include "ggml-quants.h"

#include <math.h>
#include <string.h>

typedef struct {
    enum ggml_iq_nbr_kind kind;
    int                   nsteps;  // scale candidates on each side of max / 15
    bool                  parity;  // 7 stored sign bits per 8, the 8th makes the count of negatives even
    float                 lv[8];   // level values in units of the sub-block scale
} iq3_cfg;

// iq3_xxs: grid values {4, 12, ..., 52, 62} times d (2s+1) / 4, i.e. levels 1, 3, ..., 13, 15.5
static const iq3_cfg k_xxs = {GGML_IQ_NBR_IQ3XXS, 15, true, {1, 3, 5, 7, 9, 11, 13, 15.5f}};
static const iq3_cfg k_s   = {GGML_IQ_NBR_IQ3S, 9, false, {1, 3, 5, 7, 9, 11, 13, 15}};

void ggml_iq_block_weights(const float * x, const float * qw, float * w) {
    float sumx2 = 0;
    for (int j = 0; j < QK_K; j++) {
        sumx2 += x[j] * x[j];
    }
    const float sigma2 = 2 * sumx2 / QK_K;
    for (int j = 0; j < QK_K; j++) {
        w[j] = (qw ? qw[j] : 1.0f) * sqrtf(sigma2 + x[j] * x[j]);
    }
}

// Nearest level index of v = scale * (2l + 1); NaN and negatives go to 0.
static inline int round_level(float v, float id) {
    const float t = 0.5f * (v * id - 1.0f);
    if (!(t > 0.0f)) {
        return 0;
    }
    return t >= 7.0f ? 7 : (int) (t + 0.5f);
}

// The grid point for group x[0..3] at scale d: its rounded code if on the grid, else the neighbour with
// the least weighted error.
static int best_point(const iq3_cfg * c, const ggml_iq_nbr_map * m, const float * x, const float * w, float d) {
    const float id   = d > 0 ? 1.0f / d : 0.0f;
    int         code = 0;
    for (int k = 3; k >= 0; k--) {
        code = code * 8 + round_level(x[k], id);
    }
    uint16_t         one;
    int              n;
    const uint16_t * cand = ggml_iq_nbr_candidates(m, code, &one, &n);
    int              best = cand[0];
    float            err  = INFINITY;
    for (int i = 0; i < n && n > 1; i++) {
        const uint8_t * gl = m->grid_l + 4 * cand[i];
        float           e  = 0;
        for (int k = 0; k < 4; k++) {
            const float diff = d * c->lv[gl[k]] - x[k];
            e += w[k] * diff * diff;
        }
        if (e < err) {
            err  = e;
            best = cand[i];
        }
    }
    return best;
}

// Weighted sums of x * q and q * q over the 8 groups of a sub-block.
static void sums32(const iq3_cfg * c, const ggml_iq_nbr_map * m, const float * x, const float * w, const uint16_t * g,
                   float * sqx, float * sqq) {
    float a = 0, b = 0;
    for (int k = 0; k < 8; k++) {
        const uint8_t * gl = m->grid_l + 4 * g[k];
        for (int i = 0; i < 4; i++) {
            const float q = c->lv[gl[i]];
            a += w[4 * k + i] * x[4 * k + i] * q;
            b += w[4 * k + i] * q * q;
        }
    }
    *sqx = a;
    *sqq = b;
}

// Sub-block of 32 magnitudes: grid points g[8] and the best scale (0 for an all-zero sub-block).
static float search32(const iq3_cfg * c, const ggml_iq_nbr_map * m, const float * x, const float * w, uint16_t * g) {
    float amax = 0;
    for (int i = 0; i < 32; i++) {
        amax = x[i] > amax ? x[i] : amax;
    }
    for (int k = 0; k < 8; k++) {
        g[k] = (uint16_t) best_point(c, m, x + 4 * k, w + 4 * k, 0.0f);  // the lowest point: all level 0
    }
    if (!(amax > 1e-8f) || !isfinite(amax)) {
        return 0.0f;
    }
    float    best = 0, scale = 0;
    uint16_t t[8];
    for (int is = -c->nsteps; is <= c->nsteps; is++) {
        const float d = amax / (15.0f + 0.2f * (float) is);
        for (int k = 0; k < 8; k++) {
            t[k] = (uint16_t) best_point(c, m, x + 4 * k, w + 4 * k, d);
        }
        float sqx, sqq;
        sums32(c, m, x, w, t, &sqx, &sqq);
        if (sqq > 0 && sqx * sqx > best * sqq) {
            scale = sqx / sqq;
            best  = scale * sqx;
            memcpy(g, t, sizeof(t));
        }
    }
    // two re-assign / refit rounds at the winning scale
    for (int it = 0; it < 2 && scale > 0; it++) {
        for (int k = 0; k < 8; k++) {
            t[k] = (uint16_t) best_point(c, m, x + 4 * k, w + 4 * k, scale);
        }
        float sqx, sqq;
        sums32(c, m, x, w, t, &sqx, &sqq);
        if (!(sqq > 0 && sqx * sqx > best * sqq)) {
            break;
        }
        scale = sqx / sqq;
        best  = scale * sqx;
        memcpy(g, t, sizeof(t));
    }
    return scale;
}

static float group_err(const iq3_cfg * c, const ggml_iq_nbr_map * m, const float * x, const float * w, int g, float d) {
    const uint8_t * gl = m->grid_l + 4 * g;
    float           e  = 0;
    for (int k = 0; k < 4; k++) {
        const float diff = d * c->lv[gl[k]] - x[k];
        e += w[k] * diff * diff;
    }
    return e;
}

// One super-block: magnitudes xv (signs already split off), weights w -> grid points g[64], 4-bit
// sub-block scales ls[8] and the fp16 super-block scale.
static ggml_fp16_t quantize_super(const iq3_cfg * c, const ggml_iq_nbr_map * m, const float * xv, const float * w,
                                  uint16_t * g, int * ls) {
    float scales[8], max_scale = 0;
    for (int ib = 0; ib < 8; ib++) {
        scales[ib] = search32(c, m, xv + 32 * ib, w + 32 * ib, g + 8 * ib);
        max_scale  = scales[ib] > max_scale ? scales[ib] : max_scale;
    }
    if (!(max_scale > 0) || !isfinite(max_scale)) {
        memset(ls, 0, 8 * sizeof(int));
        return ggml_fp32_to_fp16(0.0f);
    }
    // 4-bit odd multipliers 2l+1 of d = max/31, then the least-squares d for those multipliers
    const float id0 = 31.0f / max_scale;
    float       num = 0, den = 0;
    for (int ib = 0; ib < 8; ib++) {
        const float t = 0.5f * (id0 * scales[ib] - 1.0f);
        ls[ib]        = t <= 0.0f ? 0 : t >= 15.0f ? 15 : (int) (t + 0.5f);
        float sqx, sqq;
        sums32(c, m, xv + 32 * ib, w + 32 * ib, g + 8 * ib, &sqx, &sqq);
        const float mul = (float) (2 * ls[ib] + 1);
        num += mul * sqx;
        den += mul * mul * sqq;
    }
    const float       d   = den > 0 && num > 0 ? num / den : max_scale / 31.0f;
    const ggml_fp16_t d16 = ggml_fp32_to_fp16(d);
    const float       ds  = ggml_fp16_to_fp32(d16);
    // each group re-chosen for the scale as stored, where that lowers its error
    for (int ib = 0; ib < 8; ib++) {
        const float sd = ds * (float) (2 * ls[ib] + 1);
        for (int k = 0; k < 8; k++) {
            const float * x  = xv + 32 * ib + 4 * k;
            const float * wk = w + 32 * ib + 4 * k;
            const int     nb = best_point(c, m, x, wk, sd);
            if (group_err(c, m, x, wk, nb, sd) < group_err(c, m, x, wk, g[8 * ib + k], sd)) {
                g[8 * ib + k] = (uint16_t) nb;
            }
        }
    }
    return d16;
}

// Splits the signs off x into xv; for the parity formats one element per 8 (the least important) keeps
// an even count of negatives by being approximated with the wrong sign. Returns one bit per element.
static uint32_t split_signs(const iq3_cfg * c, const float * x, const float * w, float * xv) {
    uint32_t bits = 0;
    for (int k = 0; k < 4; k++) {
        int nneg = 0;
        for (int i = 8 * k; i < 8 * k + 8; i++) {
            const bool neg = x[i] < 0;
            xv[i]          = neg ? -x[i] : x[i];
            bits |= (uint32_t) neg << i;
            nneg += neg;
        }
        if (c->parity && nneg % 2) {
            int   imin = 8 * k;
            float vmin = w[imin] * x[imin] * x[imin];
            for (int i = 8 * k + 1; i < 8 * k + 8; i++) {
                const float v = w[i] * x[i] * x[i];
                if (v < vmin) {
                    vmin = v;
                    imin = i;
                }
            }
            xv[imin] = -xv[imin];
            bits ^= 1u << imin;
        }
    }
    return bits;
}

bool ggml_quantize_row_iq3_xxs(const float * x, void * vy, int64_t n, const float * qw) {
    const ggml_iq_nbr_map * m = ggml_iq_nbr_get(k_xxs.kind);
    if (!m) {
        return false;
    }
    block_iq3_xxs * y = (block_iq3_xxs *) vy;
    float           w[QK_K], xv[QK_K];
    uint32_t        signs[8];
    uint16_t        g[64];
    int             ls[8];
    for (int64_t ibl = 0; ibl < n / QK_K; ibl++) {
        const float * xb = x + ibl * QK_K;
        ggml_iq_block_weights(xb, qw ? qw + ibl * QK_K : NULL, w);
        for (int ib = 0; ib < 8; ib++) {
            signs[ib] = split_signs(&k_xxs, xb + 32 * ib, w + 32 * ib, xv + 32 * ib);
        }
        y[ibl].d = quantize_super(&k_xxs, m, xv, w, g, ls);
        for (int ib = 0; ib < 8; ib++) {
            for (int k = 0; k < 8; k++) {
                y[ibl].qs[8 * ib + k] = (uint8_t) g[8 * ib + k];
            }
            uint32_t aux = (uint32_t) ls[ib] << 28;
            for (int l = 0; l < 4; l++) {
                aux |= ((signs[ib] >> (8 * l)) & 127) << (7 * l);
            }
            memcpy(y[ibl].qs + 64 + 4 * ib, &aux, 4);
        }
    }
    return true;
}

bool ggml_quantize_row_iq3_s(const float * x, void * vy, int64_t n, const float * qw) {
    const ggml_iq_nbr_map * m = ggml_iq_nbr_get(k_s.kind);
    if (!m) {
        return false;
    }
    block_iq3_s * y = (block_iq3_s *) vy;
    float         w[QK_K], xv[QK_K];
    uint32_t      signs[8];
    uint16_t      g[64];
    int           ls[8];
    for (int64_t ibl = 0; ibl < n / QK_K; ibl++) {
        const float * xb = x + ibl * QK_K;
        ggml_iq_block_weights(xb, qw ? qw + ibl * QK_K : NULL, w);
        for (int ib = 0; ib < 8; ib++) {
            signs[ib] = split_signs(&k_s, xb + 32 * ib, w + 32 * ib, xv + 32 * ib);
        }
        memset(&y[ibl], 0, sizeof(block_iq3_s));
        y[ibl].d = quantize_super(&k_s, m, xv, w, g, ls);
        for (int ib = 0; ib < 8; ib++) {
            for (int k = 0; k < 8; k++) {
                y[ibl].qs[8 * ib + k] = (uint8_t) (g[8 * ib + k] & 255);
                y[ibl].qh[ib] |= (uint8_t) ((g[8 * ib + k] >> 8) << k);
            }
            for (int l = 0; l < 4; l++) {
                y[ibl].signs[4 * ib + l] = (uint8_t) (signs[ib] >> (8 * l));
            }
            y[ibl].scales[ib / 2] |= (uint8_t) (ls[ib] << (4 * (ib % 2)));
        }
    }
    return true;
}
