// Quantization into IQ2_XXS, IQ2_XS and IQ2_S. A group of 8 magnitudes is one entry of a fixed codebook
// (256, 512 or 1024 points of {8, 25, 43}^8 taken from the E8 lattice), every element carries a sign, and
// a sub-block of 32 (xxs) or 16 (xs, s) elements shares an odd 4-bit scale under the block's fp16 d:
//     x = d * (2s + 1) * (grid / 8) * sign.
// The search per sub-block: for a sweep of trial scales each magnitude is rounded to the nearest level
// (1, 3.125 or 5.375 in grid / 8 units); when those 8 levels form a codebook entry it is the best entry,
// otherwise the best is looked for among the precomputed nearest entries of that level pattern (the
// weighted error at the trial scale decides); the least-squares scale of the chosen entries scores the
// trial. The winner is refined, the sub-block scales are rounded to 4 bits under d, and the entries are
// chosen once more for each scale as stored (trying s - 1, s and s + 1), so the error is measured on what
// the block will dequantize to. Weights: imatrix[j] * sqrt(sigma2 + x^2) with an importance matrix (as
// llama.cpp), sigma2 / 4 + x^2 without one.
// Speed: the entries are kept as floats (value / 8, exact), the trial search skips the error of an
// on-grid pattern it does not use, and with SSE2 (every x86-64) the level pattern and the per-element
// products run four lanes at a time while every sum keeps the scalar order: the bytes are those of
// the plain loops (the #else branches), checked by tests/unit/test-quantize-iq-golden.cpp.
#include "ggml-quantize-iq2.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

#include "ggml-iq-grids.h"
#include "ggml-os.h"
#include "ggml-quants.h"

#define NCODE 6561  // 3^8 level patterns of a group of 8

enum { CB_XXS, CB_XS, CB_S, CB_COUNT };

// Per type: sub-block size, whether the 8th sign of a group is implied by parity, the factor of the block's
// mean square in the weights, and how many distance shells of neighbours an off-grid pattern keeps (the
// 1024-point IQ2_S grid is dense enough for one).
static const struct {
    int   sub;
    bool  parity;
    float sigma_mul;
    int   n_shells;
} k_kind[CB_COUNT] = {
    {32, true, 1.0f, 2},
    {16, true, 1.0f, 2},
    {16, false, 2.0f, 1},
};

typedef struct {
    const int8_t (*grid)[8];  // codebook entries, values 8 / 25 / 43
    float (*q)[8];            // the same entries in grid units (value / 8, exact): the searches' operands
    int        n_grid;
    int32_t    map[NCODE];  // level pattern -> entry index (>= 0), or -(1 + offset of its neighbour list in nb)
    uint16_t * nb;          // neighbour lists: count, then entry indices
    bool       ok;          // false if the tables could not be allocated
} codebook;

static codebook     g_cb[CB_COUNT];
static ggml_os_once g_once[CB_COUNT] = {GGML_OS_ONCE_INIT, GGML_OS_ONCE_INIT, GGML_OS_ONCE_INIT};

static const int k_level_val[3] = {8, 25, 43};

static int level_of(int8_t v) {
    return v == 8 ? 0 : v == 25 ? 1 : 2;
}

// element 0 is the least significant base-3 digit
static int code_of_entry(const int8_t * g) {
    int c = 0;
    for (int k = 7; k >= 0; k--) {
        c = 3 * c + level_of(g[k]);
    }
    return c;
}

// The entries within the n_shells smallest distances of level pattern `code`, in index order: written to
// out (when not NULL); returns how many. d2: scratch of n_grid ints.
static int neighbours(const codebook * cb, int code, int n_shells, int * d2, uint16_t * out) {
    int pos[8];
    for (int k = 0, c = code; k < 8; k++, c /= 3) {
        pos[k] = k_level_val[c % 3];
    }
    for (int j = 0; j < cb->n_grid; j++) {
        int s = 0;
        for (int k = 0; k < 8; k++) {
            const int e = cb->grid[j][k] - pos[k];
            s += e * e;
        }
        d2[j] = s;
    }
    int limit = -1;
    for (int shell = 0; shell < n_shells; shell++) {
        int next = INT_MAX;
        for (int j = 0; j < cb->n_grid; j++) {
            if (d2[j] > limit && d2[j] < next) {
                next = d2[j];
            }
        }
        if (next == INT_MAX) {
            break;
        }
        limit = next;
    }
    int n = 0;
    for (int j = 0; j < cb->n_grid; j++) {
        if (d2[j] <= limit) {
            if (out) {
                out[n] = (uint16_t) j;
            }
            n++;
        }
    }
    return n;
}

// Runs once per type (ggml_os_call_once): the pattern map and the neighbour lists of every off-grid pattern.
static void build(codebook * cb, const int8_t (*grid)[8], int n_grid, int n_shells) {
    cb->grid   = grid;
    cb->n_grid = n_grid;
    cb->q      = (float(*)[8]) malloc((size_t) n_grid * sizeof(*cb->q));
    if (!cb->q) {
        return;
    }
    for (int j = 0; j < n_grid; j++) {
        for (int k = 0; k < 8; k++) {
            cb->q[j][k] = (float) grid[j][k] * 0.125f;
        }
    }
    for (int c = 0; c < NCODE; c++) {
        cb->map[c] = INT32_MIN;
    }
    for (int j = 0; j < n_grid; j++) {
        cb->map[code_of_entry(grid[j])] = j;
    }
    int * d2 = (int *) malloc((size_t) n_grid * sizeof(int));
    if (!d2) {
        return;
    }
    size_t total = 0;  // counted first: the lists go into one allocation
    for (int c = 0; c < NCODE; c++) {
        if (cb->map[c] < 0) {
            total += 1 + (size_t) neighbours(cb, c, n_shells, d2, NULL);
        }
    }
    uint16_t * nb = (uint16_t *) malloc(total * sizeof(uint16_t));
    if (!nb) {
        free(d2);
        return;
    }
    size_t off = 0;
    for (int c = 0; c < NCODE; c++) {
        if (cb->map[c] < 0) {
            const int n = neighbours(cb, c, n_shells, d2, nb + off + 1);
            nb[off]     = (uint16_t) n;
            cb->map[c]  = -(int32_t) (off + 1);
            off += 1 + (size_t) n;
        }
    }
    free(d2);
    cb->nb = nb;
    cb->ok = true;
}

static void init_xxs(void) {
    build(&g_cb[CB_XXS], ggml_iq_grids_get()->iq2xxs, 256, k_kind[CB_XXS].n_shells);
}
static void init_xs(void) {
    build(&g_cb[CB_XS], ggml_iq_grids_get()->iq2xs, 512, k_kind[CB_XS].n_shells);
}
static void init_s(void) {
    build(&g_cb[CB_S], ggml_iq_grids_get()->iq2s, 1024, k_kind[CB_S].n_shells);
}

static const codebook * codebook_get(int kind) {
    static void (*const init[CB_COUNT])(void) = {init_xxs, init_xs, init_s};
    ggml_os_call_once(&g_once[kind], init[kind]);
    return g_cb[kind].ok ? &g_cb[kind] : NULL;
}

// ---- search -------------------------------------------------------------------------------------

#if !defined(__SSE2__)  // pattern_of's scalar form (its SSE2 form compares four lanes at once)
static inline int nearest_level(float v) {
    return v < 2.0625f ? 0 : v < 4.25f ? 1 : 2;  // midpoints of 1, 3.125, 5.375 (NaN -> 2)
}
#endif

static inline float entry_err(const float * q, const float * xv, const float * w, float S) {
    float err = 0.0f;
#if defined(__SSE2__)
    float        t[8];
    const __m128 sv = _mm_set1_ps(S);
    for (int h = 0; h < 8; h += 4) {
        const __m128 e = _mm_sub_ps(_mm_mul_ps(sv, _mm_loadu_ps(q + h)), _mm_loadu_ps(xv + h));
        _mm_storeu_ps(t + h, _mm_mul_ps(_mm_mul_ps(_mm_loadu_ps(w + h), e), e));
    }
    for (int k = 0; k < 8; k++) {
        err += t[k];
    }
#else
    for (int k = 0; k < 8; k++) {
        const float e = S * q[k] - xv[k];
        err += w[k] * e * e;
    }
#endif
    return err;
}

// The level pattern of the 8 targets xv at scale S (each magnitude to its nearest level).
static inline int pattern_of(const float * xv, float S) {
    const float inv = S > 0.0f ? 1.0f / S : 0.0f;
#if defined(__SSE2__)
    // the same products and comparisons, four lanes at a time; level = 2 - (v < 2.0625) - (v < 4.25)
    // (NaN compares false: level 2, as nearest_level), and the digits weighted by 3^k exactly in float
    const __m128 vi = _mm_set1_ps(inv), t1 = _mm_set1_ps(2.0625f), t2 = _mm_set1_ps(4.25f);
    const __m128 two = _mm_set1_ps(2.0f), one = _mm_set1_ps(1.0f);
    const __m128 v0 = _mm_mul_ps(_mm_loadu_ps(xv), vi), v1 = _mm_mul_ps(_mm_loadu_ps(xv + 4), vi);
    __m128       l0 =
        _mm_sub_ps(two, _mm_add_ps(_mm_and_ps(_mm_cmplt_ps(v0, t1), one), _mm_and_ps(_mm_cmplt_ps(v0, t2), one)));
    __m128 l1 =
        _mm_sub_ps(two, _mm_add_ps(_mm_and_ps(_mm_cmplt_ps(v1, t1), one), _mm_and_ps(_mm_cmplt_ps(v1, t2), one)));
    const __m128 c =
        _mm_add_ps(_mm_mul_ps(l0, _mm_setr_ps(1, 3, 9, 27)), _mm_mul_ps(l1, _mm_setr_ps(81, 243, 729, 2187)));
    const __m128i ci = _mm_cvtps_epi32(c);
    const __m128i s2 = _mm_add_epi32(ci, _mm_shuffle_epi32(ci, _MM_SHUFFLE(1, 0, 3, 2)));
    const __m128i s1 = _mm_add_epi32(s2, _mm_shuffle_epi32(s2, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(s1);
#else
    int code = 0;
    for (int k = 7; k >= 0; k--) {
        code = 3 * code + nearest_level(xv[k] * inv);
    }
    return code;
#endif
}

// The best neighbour of off-grid pattern map value m (< 0) at scale S; its weighted error in *err.
static inline int best_neighbour(const codebook * cb, int32_t m, const float * xv, const float * w, float S,
                                 float * err) {
    const uint16_t * list = cb->nb + (-(int64_t) m - 1);
    int              best = list[1];
    float            be   = INFINITY;
    for (int i = 1; i <= list[0]; i++) {
        const float e = entry_err(cb->q[list[i]], xv, w, S);
        if (e < be) {
            be   = e;
            best = list[i];
        }
    }
    *err = be;
    return best;
}

// The best entry for the 8 targets xv (weights w) at scale S; its weighted error in *err.
static int best_entry(const codebook * cb, const float * xv, const float * w, float S, float * err) {
    const int32_t m = cb->map[pattern_of(xv, S)];
    if (m >= 0) {
        // the per-element nearest levels minimize the error over all patterns, so over the codebook too
        *err = entry_err(cb->q[m], xv, w, S);
        return m;
    }
    return best_neighbour(cb, m, xv, w, S, err);
}

// best_entry without the error of an on-grid pattern (the trial search only needs the entry)
static inline int best_entry_idx(const codebook * cb, const float * xv, const float * w, float S) {
    const int32_t m = cb->map[pattern_of(xv, S)];
    float         e;
    return m >= 0 ? m : best_neighbour(cb, m, xv, w, S, &e);
}

// Chooses the entries of ng groups at trial scale S; returns their least-squares scale and, in *score,
// sum(wxq)^2 / sum(wq^2) (the error reduction it achieves; 0 if none).
static float fit(const codebook * cb, const float * xv, const float * w, int ng, float S, uint16_t * idx,
                 float * score) {
    float sumqx = 0.0f, sumq2 = 0.0f;
    for (int g = 0; g < ng; g++) {
        idx[g]           = (uint16_t) best_entry_idx(cb, xv + 8 * g, w + 8 * g, S);
        const float * q8 = cb->q[idx[g]];
#if defined(__SSE2__)
        // the products in lanes, the sums in the reference's order
        float        px[8], pq[8];
        const float *wg = w + 8 * g, *xg = xv + 8 * g;
        for (int h = 0; h < 8; h += 4) {
            const __m128 wv = _mm_loadu_ps(wg + h), qv = _mm_loadu_ps(q8 + h);
            _mm_storeu_ps(px + h, _mm_mul_ps(_mm_mul_ps(wv, _mm_loadu_ps(xg + h)), qv));
            _mm_storeu_ps(pq + h, _mm_mul_ps(_mm_mul_ps(wv, qv), qv));
        }
        for (int k = 0; k < 8; k++) {
            sumqx += px[k];
            sumq2 += pq[k];
        }
#else
        for (int k = 0; k < 8; k++) {
            const float q = q8[k];
            sumqx += w[8 * g + k] * xv[8 * g + k] * q;
            sumq2 += w[8 * g + k] * q * q;
        }
#endif
    }
    if (!(sumq2 > 0.0f) || !(sumqx > 0.0f)) {
        *score = 0.0f;
        return 0.0f;
    }
    *score = sumqx * sumqx / sumq2;
    return sumqx / sumq2;
}

#define N_TRIALS 29  // the largest magnitude at 3.0 .. 6.5 grid units (level 2 is 5.375)

// Entries (idx, ng = n / 8 of them) and the unquantized scale of one sub-block; 0 if it is negligible.
static float search_subblock(const codebook * cb, const float * xv, const float * w, int n, uint16_t * idx) {
    const int ng   = n / 8;
    float     amax = 0.0f;
    for (int i = 0; i < n; i++) {
        amax = fmaxf(amax, xv[i]);
    }
    memset(idx, 0, (size_t) ng * sizeof(uint16_t));
    if (!(amax > 1e-20f) || !isfinite(amax)) {
        return 0.0f;
    }
    float    best_score = 0.0f, best_S = 0.0f;
    uint16_t tmp[4];
    for (int it = 0; it < N_TRIALS; it++) {
        float       score;
        const float S = fit(cb, xv, w, ng, amax / (3.0f + 0.125f * (float) it), tmp, &score);
        if (score > best_score) {
            best_score = score;
            best_S     = S;
            memcpy(idx, tmp, (size_t) ng * sizeof(uint16_t));
        }
    }
    // the entries were chosen for the trial scale, not the fitted one: choose again while that gains
    for (int r = 0; r < 2 && best_S > 0.0f; r++) {
        float       score;
        const float S = fit(cb, xv, w, ng, best_S, tmp, &score);
        if (!(score > best_score)) {
            break;
        }
        best_score = score;
        best_S     = S;
        memcpy(idx, tmp, (size_t) ng * sizeof(uint16_t));
    }
    return best_S;
}

// One 256-element block: fp16 d, the 4-bit scale of each sub-block (sc), the entry (idx) and the 8 sign
// bits (sg, bit k set = element k negative; parity-consistent for xxs and xs) of each of the 32 groups.
static void quantize_block(int kind, const codebook * cb, const float * x, const float * qw, ggml_fp16_t * d_out,
                           uint8_t * sc, uint16_t * idx, uint8_t * sg) {
    const int sub  = k_kind[kind].sub;
    const int nsub = QK_K / sub;
    const int ngs  = sub / 8;

    float w[QK_K], xv[QK_K];
    float sumx2 = 0.0f;
    for (int i = 0; i < QK_K; i++) {
        sumx2 += x[i] * x[i];
    }
    const float sigma2 = k_kind[kind].sigma_mul * sumx2 / QK_K;
    for (int i = 0; i < QK_K; i++) {
        w[i] = qw ? qw[i] * sqrtf(sigma2 + x[i] * x[i]) : 0.25f * sigma2 + x[i] * x[i];
    }
    for (int g = 0; g < QK_K / 8; g++) {
        uint8_t s    = 0;
        int     nneg = 0;
        for (int k = 0; k < 8; k++) {
            const float v = x[8 * g + k];
            xv[8 * g + k] = fabsf(v);
            if (v < 0.0f) {
                s |= (uint8_t) (1u << k);
                nneg++;
            }
        }
        if (k_kind[kind].parity && (nneg & 1)) {
            // an odd count of minus signs cannot be stored: the element that costs least gets the wrong one
            int   kmin = 0;
            float cmin = INFINITY;
            for (int k = 0; k < 8; k++) {
                const float c = w[8 * g + k] * xv[8 * g + k] * xv[8 * g + k];
                if (c < cmin) {
                    cmin = c;
                    kmin = k;
                }
            }
            xv[8 * g + kmin] = -xv[8 * g + kmin];
            s ^= (uint8_t) (1u << kmin);
        }
        sg[g] = s;
    }

    float S[QK_K / 16];
    float smax = 0.0f;
    for (int ib = 0; ib < nsub; ib++) {
        S[ib] = search_subblock(cb, xv + sub * ib, w + sub * ib, sub, idx + ngs * ib);
        smax  = fmaxf(smax, S[ib]);
    }
    memset(sc, 0, (size_t) nsub);
    const ggml_fp16_t dh = ggml_fp32_to_fp16(smax / 31.0f);  // the largest scale gets s = 15
    const float       d  = ggml_fp16_to_fp32(dh);
    if (!(d > 0.0f) || !isfinite(d)) {
        *d_out = ggml_fp32_to_fp16(0.0f);
        return;
    }
    *d_out = dh;
    for (int ib = 0; ib < nsub; ib++) {
        const float * xb = xv + sub * ib;
        const float * wb = w + sub * ib;
        uint16_t *    ix = idx + ngs * ib;
        float         v  = 0.5f * (S[ib] / d - 1.0f);
        v                = !(v >= 0.0f) ? 0.0f : v > 15.0f ? 15.0f : v;
        const int s0     = (int) lrintf(v);
        float     best   = INFINITY;
        uint16_t  chosen[4];
        memcpy(chosen, ix, sizeof(chosen[0]) * (size_t) ngs);
        for (int s = s0 > 0 ? s0 - 1 : 0; s <= (s0 < 15 ? s0 + 1 : 15); s++) {
            const float St  = d * (float) (2 * s + 1);
            float       err = 0.0f;
            uint16_t    cand[4];
            for (int g = 0; g < ngs; g++) {
                // the search's entry may lie outside the neighbour list of the new pattern: keep the better
                float       e;
                const int   j  = best_entry(cb, xb + 8 * g, wb + 8 * g, St, &e);
                const float e0 = entry_err(cb->q[ix[g]], xb + 8 * g, wb + 8 * g, St);
                cand[g]        = (uint16_t) (e0 <= e ? ix[g] : j);
                err += e0 <= e ? e0 : e;
            }
            if (err < best) {
                best   = err;
                sc[ib] = (uint8_t) s;
                memcpy(chosen, cand, sizeof(chosen[0]) * (size_t) ngs);
            }
        }
        memcpy(ix, chosen, sizeof(chosen[0]) * (size_t) ngs);
    }
}

// ---- block packing ------------------------------------------------------------------------------

static void pack_iq2_xxs(block_iq2_xxs * b, ggml_fp16_t d, const uint8_t * sc, const uint16_t * idx,
                         const uint8_t * sg) {
    uint8_t * qs = (uint8_t *) b->qs;
    b->d         = d;
    for (int ib = 0; ib < QK_K / 32; ib++) {
        uint32_t aux = (uint32_t) sc[ib] << 28;
        for (int l = 0; l < 4; l++) {
            qs[8 * ib + l] = (uint8_t) idx[4 * ib + l];
            aux |= (uint32_t) (sg[4 * ib + l] & 127) << (7 * l);
        }
        for (int k = 0; k < 4; k++) {
            qs[8 * ib + 4 + k] = (uint8_t) (aux >> (8 * k));  // little-endian u32
        }
    }
}

static void pack_iq2_xs(block_iq2_xs * b, ggml_fp16_t d, const uint8_t * sc, const uint16_t * idx, const uint8_t * sg) {
    b->d = d;
    for (int g = 0; g < QK_K / 8; g++) {
        const uint16_t v = (uint16_t) (idx[g] | (uint16_t) ((sg[g] & 127) << 9));
        memcpy(&b->qs[g], &v, sizeof(v));
    }
    for (int ib = 0; ib < QK_K / 32; ib++) {
        b->scales[ib] = (uint8_t) (sc[2 * ib] | (sc[2 * ib + 1] << 4));
    }
}

static void pack_iq2_s(block_iq2_s * b, ggml_fp16_t d, const uint8_t * sc, const uint16_t * idx, const uint8_t * sg) {
    memset(b, 0, sizeof(*b));
    b->d = d;
    for (int g = 0; g < QK_K / 8; g++) {
        b->qs[g] = (uint8_t) (idx[g] & 255);
        b->qh[g / 4] |= (uint8_t) ((idx[g] >> 8) << (2 * (g % 4)));
        b->qs[QK_K / 8 + g] = sg[g];
    }
    for (int ib = 0; ib < QK_K / 32; ib++) {
        b->scales[ib] = (uint8_t) (sc[2 * ib] | (sc[2 * ib + 1] << 4));
    }
}

static bool quantize_row(int kind, const float * x, void * y, int64_t n, const float * imatrix) {
    const codebook * cb = codebook_get(kind);
    if (!cb) {
        return false;
    }
    for (int64_t ibl = 0; ibl < n / QK_K; ibl++) {
        ggml_fp16_t d;
        uint8_t     sc[QK_K / 16];
        uint16_t    idx[QK_K / 8];
        uint8_t     sg[QK_K / 8];
        quantize_block(kind, cb, x + ibl * QK_K, imatrix ? imatrix + ibl * QK_K : NULL, &d, sc, idx, sg);
        switch (kind) {
            case CB_XXS:
                pack_iq2_xxs((block_iq2_xxs *) y + ibl, d, sc, idx, sg);
                break;
            case CB_XS:
                pack_iq2_xs((block_iq2_xs *) y + ibl, d, sc, idx, sg);
                break;
            default:
                pack_iq2_s((block_iq2_s *) y + ibl, d, sc, idx, sg);
                break;
        }
    }
    return true;
}

bool ggml_quantize_row_iq2_xxs(const float * x, void * y, int64_t n, const float * imatrix) {
    return quantize_row(CB_XXS, x, y, n, imatrix);
}

bool ggml_quantize_row_iq2_xs(const float * x, void * y, int64_t n, const float * imatrix) {
    return quantize_row(CB_XS, x, y, n, imatrix);
}

bool ggml_quantize_row_iq2_s(const float * x, void * y, int64_t n, const float * imatrix) {
    return quantize_row(CB_S, x, y, n, imatrix);
}
