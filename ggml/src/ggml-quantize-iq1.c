// Quantization into IQ1_S and IQ1_M (layouts in ggml-quants.h, docs/quants.md): values d (2s+1) (t + delta)
// with t in {-1, 0, 1} from the 2048-point ternary grid and delta = +-1/8. The approach is llama.cpp's:
// with three levels the weighted least-squares assignment of a sub-block is found exactly by sorting
// its values and trying every pair of split points (prefix sums make each try O(1)) for every choice
// of delta signs; groups of 8 whose ternary pattern is not a grid point are replaced by the best of
// their nearest grid points. The super-block scale is then fitted by least squares over the 3-bit
// sub-block scales, and each group re-chosen for the scale as actually stored.
// Speed: with SSE2 the split search tests four second split points at once against the running best and
// only replays, in order, a quadruple in which one passes (rare: a pass is an improvement); the sort
// is a merge sort with glibc's qsort order. Same bytes as the plain loops (test-quantize-iq-golden).
#include "ggml-impl.h"
#include "ggml-quantize-iq-nbr.h"
#include "ggml-quantize-iq13.h"
#include "ggml-quants.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

#define IQ1_DELTA 0.125f

// A sub-block: n values (32 for iq1_s, 16 for iq1_m) in groups of 8; ndg delta signs, one per n/ndg
// values (iq1_s: 1, iq1_m: 2).
typedef struct {
    int n, ndg;
} iq1_cfg;

static const iq1_cfg k_iq1s = {32, 1};
static const iq1_cfg k_iq1m = {16, 2};

static inline float level_value(int l, int neg) {
    return (float) (l - 1) + (neg ? -IQ1_DELTA : IQ1_DELTA);
}

static float group_err(const ggml_iq_nbr_map * m, const float * x, const float * w, int g, int neg, float d) {
    const uint8_t * gl = m->grid_l + 8 * g;
    float           e  = 0;
    for (int k = 0; k < 8; k++) {
        const float diff = d * level_value(gl[k], neg) - x[k];
        e += w[k] * diff * diff;
    }
    return e;
}

// The grid point for levels L[0..7] (0..2): itself if on the grid, else the neighbour with the least
// weighted error at scale d.
static int best_point(const ggml_iq_nbr_map * m, const uint8_t * L, const float * x, const float * w, int neg,
                      float d) {
    int code = 0;
    for (int k = 7; k >= 0; k--) {
        code = code * 3 + L[k];
    }
    uint16_t         one;
    int              n;
    const uint16_t * cand = ggml_iq_nbr_candidates(m, code, &one, &n);
    int              best = cand[0];
    float            err  = INFINITY;
    for (int i = 0; i < n && n > 1; i++) {
        const float e = group_err(m, x, w, cand[i], neg, d);
        if (e < err) {
            err  = e;
            best = cand[i];
        }
    }
    return best;
}

// Levels of x at scale d for delta sign neg (nearest of the three).
static void round_levels(const float * x, float d, int neg, uint8_t * L) {
    for (int k = 0; k < 8; k++) {
        const float t = x[k] / d - (neg ? -IQ1_DELTA : IQ1_DELTA);
        L[k]          = (uint8_t) (t < -0.5f ? 0 : t > 0.5f ? 2 : 1);
    }
}

// The grid point with the most zeros (for an all-zero sub-block).
static int zero_point(const ggml_iq_nbr_map * m) {
    static const float   zx[8] = {0};
    static const float   w1[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    static const uint8_t L1[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    return best_point(m, L1, zx, w1, 0, 1.0f);
}

typedef struct {
    float v;
    int   i;
} vi_pair;

// Ascending by value; equal values (and NaN, which compares equal to everything) keep their order.
static inline int cmp_vi(const vi_pair * a, const vi_pair * b) {
    return a->v < b->v ? -1 : a->v > b->v ? 1 : 0;
}

// Top-down merge sort, taking from the left run while it is not greater: the element order glibc's
// qsort gave (its merge sort, which these searches were first written against), on any C library.
static void sort_vi(vi_pair * p, int n, vi_pair * tmp) {
    if (n <= 1) {
        return;
    }
    const int n1 = n / 2;
    sort_vi(p, n1, tmp);
    sort_vi(p + n1, n - n1, tmp);
    int a = 0, b = n1, o = 0;
    while (a < n1 && b < n) {
        tmp[o++] = cmp_vi(&p[a], &p[b]) <= 0 ? p[a++] : p[b++];
    }
    while (a < n1) {
        tmp[o++] = p[a++];
    }
    memcpy(p, tmp, (size_t) o * sizeof(vi_pair));  // the rest of the right run is in place
}

// The running best of the split search (search_sub): sqx^2 / sqq, its scale sqx / sqq, the split.
typedef struct {
    float best, scale;
    int   b1, b2, bmask;
} split_best;

// Levels below i1 (sorted order) at 0, from i2 at 2, the rest at 1, for every choice of delta signs,
// in order; a candidate replaces the best if it reduces the weighted error more.
static inline void try_split(const iq1_cfg * c, const float (*sx)[33], const float (*sw)[33], int i1, int i2,
                             split_best * sb) {
    for (int mask = 0; mask < (1 << c->ndg); mask++) {
        float sqx = 0, sqq = 0;
        for (int dg = 0; dg < c->ndg; dg++) {
            const int   ng_ = (mask >> dg) & 1;
            const float q0 = level_value(0, ng_), q1 = level_value(1, ng_), q2 = level_value(2, ng_);
            const float x0 = sx[dg][i1], x1 = sx[dg][i2] - sx[dg][i1], x2 = sx[dg][c->n] - sx[dg][i2];
            const float w0 = sw[dg][i1], w1 = sw[dg][i2] - sw[dg][i1], w2 = sw[dg][c->n] - sw[dg][i2];
            sqx += q0 * x0 + q1 * x1 + q2 * x2;
            sqq += q0 * q0 * w0 + q1 * q1 * w1 + q2 * q2 * w2;
        }
        if (sqq > 0 && sqx * sqx > sb->best * sqq) {
            sb->scale = sqx / sqq;
            sb->best  = sb->scale * sqx;
            sb->b1    = i1;
            sb->b2    = i2;
            sb->bmask = mask;
        }
    }
}

#if defined(__SSE2__)
// Whether any of the candidates (i1, i2 .. i2 + 3, every mask) passes try_split's test against best:
// the same float operations, one i2 per lane. When none does, try_split would change nothing (best only
// changes on a pass), so the four can be skipped; otherwise they are tried in order.
static inline bool any_better4(const iq1_cfg * c, const float (*sx)[33], const float (*sw)[33], int i1, int i2,
                               float best) {
    const __m128 vb  = _mm_set1_ps(best);
    __m128       hit = _mm_setzero_ps();
    for (int mask = 0; mask < (1 << c->ndg); mask++) {
        __m128 sqx = _mm_setzero_ps(), sqq = _mm_setzero_ps();
        for (int dg = 0; dg < c->ndg; dg++) {
            const int    ng_ = (mask >> dg) & 1;
            const float  q0 = level_value(0, ng_), q1 = level_value(1, ng_), q2 = level_value(2, ng_);
            const __m128 sxi = _mm_loadu_ps(sx[dg] + i2), swi = _mm_loadu_ps(sw[dg] + i2);
            const __m128 x0 = _mm_set1_ps(sx[dg][i1]), w0 = _mm_set1_ps(sw[dg][i1]);
            const __m128 x1 = _mm_sub_ps(sxi, x0), x2 = _mm_sub_ps(_mm_set1_ps(sx[dg][c->n]), sxi);
            const __m128 w1 = _mm_sub_ps(swi, w0), w2 = _mm_sub_ps(_mm_set1_ps(sw[dg][c->n]), swi);
            const __m128 px = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(q0), x0), _mm_mul_ps(_mm_set1_ps(q1), x1)),
                                         _mm_mul_ps(_mm_set1_ps(q2), x2));
            const __m128 pq =
                _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(q0 * q0), w0), _mm_mul_ps(_mm_set1_ps(q1 * q1), w1)),
                           _mm_mul_ps(_mm_set1_ps(q2 * q2), w2));
            sqx = _mm_add_ps(sqx, px);
            sqq = _mm_add_ps(sqq, pq);
        }
        const __m128 ok =
            _mm_and_ps(_mm_cmpgt_ps(sqq, _mm_setzero_ps()), _mm_cmpgt_ps(_mm_mul_ps(sqx, sqx), _mm_mul_ps(vb, sqq)));
        hit = _mm_or_ps(hit, ok);
    }
    return _mm_movemask_ps(hit) != 0;
}
#endif

// Sub-block: grid points g[n/8], delta signs neg[ndg]; returns the scale (0: an all-zero sub-block).
static float search_sub(const iq1_cfg * c, const ggml_iq_nbr_map * m, const float * x, const float * w, uint16_t * g,
                        int * neg) {
    const int ng = c->n / 8, per_dg = c->n / c->ndg;
    float     amax = 0;
    for (int i = 0; i < c->n; i++) {
        amax = fabsf(x[i]) > amax ? fabsf(x[i]) : amax;
    }
    for (int k = 0; k < ng; k++) {
        g[k] = (uint16_t) zero_point(m);
    }
    for (int k = 0; k < c->ndg; k++) {
        neg[k] = 0;
    }
    if (!(amax > 1e-8f) || !isfinite(amax)) {
        return 0.0f;
    }
    vi_pair p[32];
    for (int i = 0; i < c->n; i++) {
        p[i].v = x[i];
        p[i].i = i;
    }
    vi_pair tmp[32];
    sort_vi(p, c->n, tmp);
    // prefix sums over the sorted order, per delta group
    float sx[2][33], sw[2][33];
    for (int dg = 0; dg < c->ndg; dg++) {
        sx[dg][0] = sw[dg][0] = 0;
    }
    for (int j = 0; j < c->n; j++) {
        const int i = p[j].i;
        for (int dg = 0; dg < c->ndg; dg++) {
            const int mine = i / per_dg == dg;
            sx[dg][j + 1]  = sx[dg][j] + (mine ? w[i] * x[i] : 0.0f);
            sw[dg][j + 1]  = sw[dg][j] + (mine ? w[i] : 0.0f);
        }
    }
    split_best sb = {0, 0, -1, -1, 0};
    for (int i1 = 0; i1 <= c->n; i1++) {
        int i2 = i1;
#if defined(__SSE2__)
        for (; i2 + 4 <= c->n + 1; i2 += 4) {
            if (any_better4(c, sx, sw, i1, i2, sb.best)) {
                for (int j = i2; j < i2 + 4; j++) {
                    try_split(c, sx, sw, i1, j, &sb);
                }
            }
        }
#endif
        for (; i2 <= c->n; i2++) {
            try_split(c, sx, sw, i1, i2, &sb);
        }
    }
    float scale = sb.scale;
    int   b1 = sb.b1, b2 = sb.b2, bmask = sb.bmask;
    if (b1 < 0) {
        return 0.0f;
    }
    uint8_t L[32];
    for (int j = 0; j < c->n; j++) {
        L[p[j].i] = (uint8_t) (j < b1 ? 0 : j < b2 ? 1 : 2);
    }
    if (scale < 0) {  // -s (t + delta) = s (-t - delta): mirror the levels and the delta signs
        for (int j = 0; j < c->n; j++) {
            L[j] = (uint8_t) (2 - L[j]);
        }
        bmask = ~bmask & ((1 << c->ndg) - 1);
        scale = -scale;
    }
    for (int dg = 0; dg < c->ndg; dg++) {
        neg[dg] = (bmask >> dg) & 1;
    }
    bool  all_on = true;
    float sqx = 0, sqq = 0;
    for (int k = 0; k < ng; k++) {
        const int nk       = neg[8 * k / per_dg];
        g[k]               = (uint16_t) best_point(m, L + 8 * k, x + 8 * k, w + 8 * k, nk, scale);
        const uint8_t * gl = m->grid_l + 8 * g[k];
        for (int j = 0; j < 8; j++) {
            all_on        = all_on && gl[j] == L[8 * k + j];
            const float q = level_value(gl[j], nk);
            sqx += w[8 * k + j] * x[8 * k + j] * q;
            sqq += w[8 * k + j] * q * q;
        }
    }
    if (!all_on && sqx > 0 && sqq > 0) {
        scale = sqx / sqq;
    }
    return scale;
}

// One super-block: c->n values per sub-block, nsub sub-blocks. Writes grid points g[32], delta signs
// neg[16 or 8] (per delta group, in order), 3-bit scales ls[nsub]; returns the super-block scale.
static float quantize_super(const iq1_cfg * c, const ggml_iq_nbr_map * m, const float * x, const float * w,
                            uint16_t * g, int * neg, int * ls, ggml_fp16_t * d16) {
    const int nsub = QK_K / c->n, ng = c->n / 8, per_dg = c->n / c->ndg;
    float     scales[16], max_scale = 0;
    for (int ib = 0; ib < nsub; ib++) {
        scales[ib] = search_sub(c, m, x + c->n * ib, w + c->n * ib, g + ng * ib, neg + c->ndg * ib);
        max_scale  = scales[ib] > max_scale ? scales[ib] : max_scale;
    }
    if (!(max_scale > 0) || !isfinite(max_scale)) {
        memset(ls, 0, (size_t) nsub * sizeof(int));
        *d16 = ggml_fp32_to_fp16(0.0f);
        return 0.0f;
    }
    const float id0 = 15.0f / max_scale;
    float       num = 0, den = 0;
    for (int ib = 0; ib < nsub; ib++) {
        const float t   = 0.5f * (id0 * scales[ib] - 1.0f);
        ls[ib]          = t <= 0.0f ? 0 : t >= 7.0f ? 7 : (int) (t + 0.5f);
        const float mul = (float) (2 * ls[ib] + 1);
        for (int k = 0; k < ng; k++) {
            const int       j0 = c->n * ib + 8 * k;
            const int       nk = neg[c->ndg * ib + 8 * k / per_dg];
            const uint8_t * gl = m->grid_l + 8 * g[ng * ib + k];
            for (int j = 0; j < 8; j++) {
                const float q = mul * level_value(gl[j], nk);
                num += w[j0 + j] * x[j0 + j] * q;
                den += w[j0 + j] * q * q;
            }
        }
    }
    const float d  = den > 0 && num > 0 ? num / den : max_scale / 15.0f;
    *d16           = ggml_fp32_to_fp16(d);
    const float ds = ggml_fp16_to_fp32(*d16);
    for (int ib = 0; ib < nsub; ib++) {
        const float sd = ds * (float) (2 * ls[ib] + 1);
        if (!(sd > 0)) {
            continue;
        }
        for (int k = 0; k < ng; k++) {
            const int     j0 = c->n * ib + 8 * k;
            const int     nk = neg[c->ndg * ib + 8 * k / per_dg];
            uint8_t       L[8];
            const float * xk = x + j0;
            const float * wk = w + j0;
            round_levels(xk, sd, nk, L);
            const int nb = best_point(m, L, xk, wk, nk, sd);
            if (group_err(m, xk, wk, nb, nk, sd) < group_err(m, xk, wk, g[ng * ib + k], nk, sd)) {
                g[ng * ib + k] = (uint16_t) nb;
            }
        }
    }
    return d;
}

bool ggml_quantize_row_iq1_s(const float * x, void * vy, int64_t n, const float * qw) {
    const ggml_iq_nbr_map * m = ggml_iq_nbr_get(GGML_IQ_NBR_IQ1S);
    if (!m) {
        return false;
    }
    block_iq1_s * y = (block_iq1_s *) vy;
    float         w[QK_K];
    uint16_t      g[32];
    int           neg[8], ls[8];
    for (int64_t ibl = 0; ibl < n / QK_K; ibl++) {
        const float * xb = x + ibl * QK_K;
        ggml_iq_block_weights(xb, qw ? qw + ibl * QK_K : NULL, w);
        quantize_super(&k_iq1s, m, xb, w, g, neg, ls, &y[ibl].d);
        for (int ib = 0; ib < 8; ib++) {
            uint16_t h = (uint16_t) ((ls[ib] << 12) | (neg[ib] ? 0x8000 : 0));
            for (int k = 0; k < 4; k++) {
                y[ibl].qs[4 * ib + k] = (uint8_t) (g[4 * ib + k] & 255);
                h |= (uint16_t) ((g[4 * ib + k] >> 8) << (3 * k));
            }
            memcpy(&y[ibl].qh[ib], &h, 2);
        }
    }
    return true;
}

bool ggml_quantize_row_iq1_m(const float * x, void * vy, int64_t n, const float * qw) {
    const ggml_iq_nbr_map * m = ggml_iq_nbr_get(GGML_IQ_NBR_IQ1S);
    if (!m) {
        return false;
    }
    block_iq1_m * y = (block_iq1_m *) vy;
    float         w[QK_K];
    uint16_t      g[32];
    int           neg[32], ls[16];
    for (int64_t ibl = 0; ibl < n / QK_K; ibl++) {
        const float * xb = x + ibl * QK_K;
        ggml_iq_block_weights(xb, qw ? qw + ibl * QK_K : NULL, w);
        ggml_fp16_t d16;
        quantize_super(&k_iq1m, m, xb, w, g, neg, ls, &d16);
        uint16_t sc[4] = {0, 0, 0, 0};
        for (int ib = 0; ib < 16; ib++) {  // sub-blocks of 16: two groups of 8, one qh byte
            y[ibl].qs[2 * ib]     = (uint8_t) (g[2 * ib] & 255);
            y[ibl].qs[2 * ib + 1] = (uint8_t) (g[2 * ib + 1] & 255);
            y[ibl].qh[ib] = (uint8_t) ((g[2 * ib] >> 8) | (neg[2 * ib] ? 0x08 : 0) | ((g[2 * ib + 1] >> 8) << 4) |
                                       (neg[2 * ib + 1] ? 0x80 : 0));
            sc[ib / 4] |= (uint16_t) (ls[ib] << (3 * (ib % 4)));
        }
        // the fp16 super-block scale goes into the top nibbles of the four u16 scales
        const uint16_t h = (uint16_t) d16;
        for (int i = 0; i < 4; i++) {
            sc[i] |= (uint16_t) (((h >> (4 * i)) & 0xF) << 12);
            memcpy(y[ibl].scales + 2 * i, &sc[i], 2);
        }
    }
    return true;
}
