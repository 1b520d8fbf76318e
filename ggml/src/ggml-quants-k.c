// K-quants (256-element super-blocks: q2_K, q3_K, q4_K, q5_K, q6_K, q8_K) and iq4_xs: reference
// quantization, dequantization and scalar dot products against q8_K.
//
// Quantization: every sub-block gets its own least-squares scale (and min) from the ggml_qsearch_* kernels; the
// sub-block scales are then quantized against one fp16 super-scale, each rounded scale is tried at
// +-1 step with the codes re-chosen, and the combination with the smallest squared error is kept.
#include "ggml-quants-search.h"
#include "ggml-quants.h"

#include <math.h>
#include <string.h>

#define FP16_TO_FP32(x) ggml_fp16_to_fp32(x)
#define FP32_TO_FP16(x) ggml_fp32_to_fp16(x)

static inline int clampi(int v, int lo, int hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

// ---------------------------------------------------------------------------------------------
// shared sub-block machinery

// Affine sub-blocks (q2_K, q4_K, q5_K): x ~ (d*sc)*q - (dmin*m), sc/m unsigned with smax levels.
// Writes the integer scales/mins, the codes, and the fp16 super-scales.
// w: importance weights of the super-block's elements, NULL for the plain (SIMD, bit-reproducible) path.
static void quantize_superblock_affine(const ggml_qsearch_kernels * K, const float * x, const float * w, int nsub,
                                       int sublen, int nmax, int smax, uint8_t * sc, uint8_t * mn, int * q,
                                       ggml_fp16_t * d_out, ggml_fp16_t * dmin_out) {
    float a[16], m[16];
    float amax = 0.0f, mmax = 0.0f;
    for (int j = 0; j < nsub; j++) {
        float b;
        if (w) {
            ggml_qsearch_waffine(sublen, x + j * sublen, w + j * sublen, nmax, true, &a[j], &b, q + j * sublen);
        } else {
            K->affine(sublen, x + j * sublen, nmax, true, &a[j], &b, q + j * sublen);
        }
        m[j] = -b;
        amax = fmaxf(amax, a[j]);
        mmax = fmaxf(mmax, m[j]);
    }
    *d_out          = FP32_TO_FP16(amax / (float) smax);
    *dmin_out       = FP32_TO_FP16(mmax / (float) smax);
    const float d   = FP16_TO_FP32(*d_out);
    const float dm  = FP16_TO_FP32(*dmin_out);
    const float id  = d > 0.0f ? 1.0f / d : 0.0f;
    const float idm = dm > 0.0f ? 1.0f / dm : 0.0f;
    for (int j = 0; j < nsub; j++) {
        const float * xs = x + j * sublen;
        const int     s0 = clampi((int) lrintf(a[j] * id), 0, smax);
        const int     m0 = clampi((int) lrintf(m[j] * idm), 0, smax);
        // the rounded scale and min, each tried one step either side
        float ca[9], cb[9], err[9];
        int   cs[9], cm[9], nc = 0;
        for (int ds = -1; ds <= 1; ds++) {
            for (int dmi = -1; dmi <= 1; dmi++) {
                const int s = s0 + ds, mm = m0 + dmi;
                if (s < 0 || s > smax || mm < 0 || mm > smax) {
                    continue;
                }
                cs[nc]   = s;
                cm[nc]   = mm;
                ca[nc]   = d * (float) s;
                cb[nc++] = -dm * (float) mm;
            }
        }
        if (w) {
            int tmp[32];
            for (int c = 0; c < nc; c++) {
                err[c] = ggml_qsearch_werr_affine(sublen, xs, w + j * sublen, ca[c], cb[c], nmax, tmp);
            }
        } else {
            K->err_affine_multi(sublen, xs, nc, ca, cb, nmax, err);
        }
        float best = INFINITY;
        int   bc   = -1;
        sc[j]      = (uint8_t) s0;
        mn[j]      = (uint8_t) m0;
        for (int c = 0; c < nc; c++) {
            if (err[c] < best) {
                best = err[c];
                bc   = c;
            }
        }
        if (bc >= 0) {
            sc[j] = (uint8_t) cs[bc];
            mn[j] = (uint8_t) cm[bc];
            K->assign_affine(sublen, xs, ca[bc], cb[bc], nmax, q + j * sublen);
        }
    }
}

// Symmetric sub-blocks (q3_K, q6_K, iq4_xs): x ~ (d*sc)*level(q), sc signed in [smin, smax]. Integer
// levels (levels == NULL) go through the kernels K; iq4_xs's table through the reference search.
static void quantize_superblock_sym(const ggml_qsearch_kernels * K, const float * x, const float * w, int nsub,
                                    int sublen, int qmin, int qmax, const int8_t * levels, int nlev, int smin, int smax,
                                    int * sc, int * q, ggml_fp16_t * d_out) {
    float s[16];
    int   tmp[QK_K];
    float amax = 0.0f;
    for (int j = 0; j < nsub; j++) {
        if (w) {
            s[j] = ggml_qsearch_wsym(sublen, x + j * sublen, w + j * sublen, qmin, qmax, levels, nlev, q + j * sublen);
        } else {
            s[j] = levels ? ggml_qsearch_sym(sublen, x + j * sublen, qmin, qmax, levels, nlev, q + j * sublen)
                          : K->sym(sublen, x + j * sublen, qmin, qmax, q + j * sublen);
        }
        amax = fmaxf(amax, fabsf(s[j]));
    }
    *d_out         = FP32_TO_FP16(amax / (float) smax);
    const float d  = FP16_TO_FP32(*d_out);
    const float id = d > 0.0f ? 1.0f / d : 0.0f;
    for (int j = 0; j < nsub; j++) {
        const float * xs = x + j * sublen;
        const int     s0 = clampi((int) lrintf(s[j] * id), smin, smax);
        // the rounded sub-block scale, tried one step either side
        float cd[3], err[3];
        int   cc[3], nc = 0;
        for (int ds = -1; ds <= 1; ds++) {
            const int c = s0 + ds;
            if (c < smin || c > smax) {
                continue;
            }
            cc[nc]   = c;
            cd[nc++] = d * (float) c;
        }
        if (w) {
            for (int c = 0; c < nc; c++) {
                err[c] = ggml_qsearch_werr_sym(sublen, xs, w + j * sublen, cd[c], qmin, qmax, levels, nlev, tmp);
            }
        } else if (levels) {
            for (int c = 0; c < nc; c++) {
                err[c] = ggml_qsearch_err_sym(sublen, xs, cd[c], qmin, qmax, levels, nlev, tmp);
            }
        } else {
            K->err_sym_multi(sublen, xs, nc, cd, qmin, qmax, err);
        }
        float best = INFINITY;
        int   bc   = -1;
        sc[j]      = s0;
        for (int c = 0; c < nc; c++) {
            if (err[c] < best) {
                best = err[c];
                bc   = c;
            }
        }
        if (bc >= 0) {
            sc[j] = cc[bc];
            if (levels || w) {
                ggml_qsearch_err_sym(sublen, xs, cd[bc], qmin, qmax, levels, nlev, q + j * sublen);
            } else {
                K->assign_sym(sublen, xs, cd[bc], qmin, qmax, q + j * sublen);
            }
        }
    }
}

// =============================================================================================
// q2_K
static void quantize_row_q2_K_impl(const float * x, block_q2_K * y, int64_t n, const float * w) {
    const ggml_qsearch_kernels * K = ggml_qsearch_best();
    int                          q[QK_K];
    uint8_t                      sc[16], mn[16];
    for (int64_t ib = 0; ib < n / QK_K; ib++, x += QK_K, w = w ? w + QK_K : NULL) {
        block_q2_K * b = &y[ib];
        quantize_superblock_affine(K, x, w, 16, 16, 3, 15, sc, mn, q, &b->d, &b->dmin);
        for (int j = 0; j < 16; j++) {
            b->scales[j] = (uint8_t) (sc[j] | (mn[j] << 4));
        }
        // element 128*h + 32*j + l sits in qs[32*h + l] at bit 2*j
        memset(b->qs, 0, sizeof(b->qs));
        for (int e = 0; e < QK_K; e++) {
            const int h = e / 128, j = (e % 128) / 32, l = e % 32;
            b->qs[32 * h + l] |= (uint8_t) (q[e] << (2 * j));
        }
    }
}

void quantize_row_q2_K_ref(const float * x, block_q2_K * y, int64_t n) {
    quantize_row_q2_K_impl(x, y, n, NULL);
}

void quantize_row_q2_K_imat(const float * x, block_q2_K * y, int64_t n, const float * w) {
    quantize_row_q2_K_impl(x, y, n, w);
}

void dequantize_row_q2_K(const block_q2_K * x, float * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK_K; ib++) {
        const float     d = FP16_TO_FP32(x[ib].d), dmin = FP16_TO_FP32(x[ib].dmin);
        const uint8_t * q  = x[ib].qs;
        int             is = 0;
        for (int h = 0; h < 2; h++, q += 32) {
            for (int j = 0; j < 4; j++) {
                for (int half = 0; half < 2; half++) {
                    const uint8_t sc = x[ib].scales[is++];
                    const float   dl = d * (float) (sc & 0xF), ml = dmin * (float) (sc >> 4);
                    for (int l = 0; l < 16; l++) {
                        *y++ = dl * (float) ((q[16 * half + l] >> (2 * j)) & 3) - ml;
                    }
                }
            }
        }
    }
}

void ggml_vec_dot_q2_K_q8_K_ref(int n, float * s, const void * vx, const void * vy) {
    const block_q2_K * x   = (const block_q2_K *) vx;
    const block_q8_K * y   = (const block_q8_K *) vy;
    float              sum = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        int sumi = 0, summ = 0;
        for (int e = 0; e < QK_K; e++) {
            const int h = e / 128, j = (e % 128) / 32, l = e % 32;
            sumi += (x[ib].scales[e / 16] & 0xF) * ((x[ib].qs[32 * h + l] >> (2 * j)) & 3) * y[ib].qs[e];
        }
        for (int j = 0; j < 16; j++) {
            summ += (x[ib].scales[j] >> 4) * y[ib].bsums[j];
        }
        sum += y[ib].d * (FP16_TO_FP32(x[ib].d) * (float) sumi - FP16_TO_FP32(x[ib].dmin) * (float) summ);
    }
    *s = sum;
}

// =============================================================================================
// q3_K: 6-bit signed scales packed in 12 bytes (low nibbles in 0..7, high 2 bits in 8..11)
void ggml_q3_K_scales(const uint8_t * p, int8_t * out) {
    for (int i = 0; i < 16; i++) {
        const int lo = i < 8 ? (p[i] & 0xF) : (p[i - 8] >> 4);
        const int hi = (p[8 + i % 4] >> (2 * (i / 4))) & 3;
        out[i]       = (int8_t) ((lo | (hi << 4)) - 32);
    }
}

static void quantize_row_q3_K_impl(const float * x, block_q3_K * y, int64_t n, const float * w) {
    const ggml_qsearch_kernels * K = ggml_qsearch_best();
    int                          q[QK_K], sc[16];
    for (int64_t ib = 0; ib < n / QK_K; ib++, x += QK_K, w = w ? w + QK_K : NULL) {
        block_q3_K * b = &y[ib];
        quantize_superblock_sym(K, x, w, 16, 16, -4, 3, NULL, 0, -32, 31, sc, q, &b->d);
        memset(b->scales, 0, sizeof(b->scales));
        for (int i = 0; i < 16; i++) {
            const int u = sc[i] + 32;
            b->scales[i % 8] |= (uint8_t) ((u & 0xF) << (i < 8 ? 0 : 4));
            b->scales[8 + i % 4] |= (uint8_t) ((u >> 4) << (2 * (i / 4)));
        }
        // element 128*h + 32*j + l: low 2 bits in qs[32*h + l] at 2*j, bit 2 in hmask[l] at bit 4*h + j
        memset(b->qs, 0, sizeof(b->qs));
        memset(b->hmask, 0, sizeof(b->hmask));
        for (int e = 0; e < QK_K; e++) {
            const int h = e / 128, j = (e % 128) / 32, l = e % 32;
            const int u = q[e] + 4;
            b->qs[32 * h + l] |= (uint8_t) ((u & 3) << (2 * j));
            b->hmask[l] |= (uint8_t) ((u >> 2) << (4 * h + j));
        }
    }
}

void quantize_row_q3_K_ref(const float * x, block_q3_K * y, int64_t n) {
    quantize_row_q3_K_impl(x, y, n, NULL);
}

void quantize_row_q3_K_imat(const float * x, block_q3_K * y, int64_t n, const float * w) {
    quantize_row_q3_K_impl(x, y, n, w);
}

static inline int q3_K_value(const block_q3_K * b, int e) {
    const int h = e / 128, j = (e % 128) / 32, l = e % 32;
    const int lo = (b->qs[32 * h + l] >> (2 * j)) & 3;
    return lo - ((b->hmask[l] >> (4 * h + j)) & 1 ? 0 : 4);
}

void dequantize_row_q3_K(const block_q3_K * x, float * y, int64_t n) {
    int8_t sc[16];
    for (int64_t ib = 0; ib < n / QK_K; ib++, y += QK_K) {
        const float d = FP16_TO_FP32(x[ib].d);
        ggml_q3_K_scales(x[ib].scales, sc);
        for (int e = 0; e < QK_K; e++) {
            y[e] = d * (float) sc[e / 16] * (float) q3_K_value(&x[ib], e);
        }
    }
}

void ggml_vec_dot_q3_K_q8_K_ref(int n, float * s, const void * vx, const void * vy) {
    const block_q3_K * x   = (const block_q3_K *) vx;
    const block_q8_K * y   = (const block_q8_K *) vy;
    float              sum = 0.0f;
    int8_t             sc[16];
    for (int ib = 0; ib < n / QK_K; ib++) {
        ggml_q3_K_scales(x[ib].scales, sc);
        int sumi = 0;
        for (int j = 0; j < 16; j++) {
            int sub = 0;
            for (int l = 0; l < 16; l++) {
                sub += q3_K_value(&x[ib], 16 * j + l) * y[ib].qs[16 * j + l];
            }
            sumi += sc[j] * sub;
        }
        sum += FP16_TO_FP32(x[ib].d) * y[ib].d * (float) sumi;
    }
    *s = sum;
}

// =============================================================================================
// q4_K / q5_K: 8 sub-blocks of 32; 6-bit scales and mins packed in 12 bytes
static void pack_scale_min_k4(const uint8_t * sc, const uint8_t * mn, uint8_t * p) {
    memset(p, 0, K_SCALE_SIZE);
    for (int j = 0; j < 4; j++) {
        p[j]     = sc[j];
        p[j + 4] = mn[j];
    }
    for (int j = 4; j < 8; j++) {
        p[j + 4] = (uint8_t) ((sc[j] & 0xF) | ((mn[j] & 0xF) << 4));
        p[j - 4] |= (uint8_t) ((sc[j] >> 4) << 6);
        p[j] |= (uint8_t) ((mn[j] >> 4) << 6);
    }
}

static void quantize_row_q4_K_impl(const float * x, block_q4_K * y, int64_t n, const float * w) {
    const ggml_qsearch_kernels * K = ggml_qsearch_best();
    int                          q[QK_K];
    uint8_t                      sc[8], mn[8];
    for (int64_t ib = 0; ib < n / QK_K; ib++, x += QK_K, w = w ? w + QK_K : NULL) {
        block_q4_K * b = &y[ib];
        quantize_superblock_affine(K, x, w, 8, 32, 15, 63, sc, mn, q, &b->d, &b->dmin);
        pack_scale_min_k4(sc, mn, b->scales);
        // chunk c of 64: elements 64c+l in the low nibble of qs[32c+l], 64c+32+l in the high nibble
        for (int c = 0; c < 4; c++) {
            for (int l = 0; l < 32; l++) {
                b->qs[32 * c + l] = (uint8_t) (q[64 * c + l] | (q[64 * c + 32 + l] << 4));
            }
        }
    }
}

void quantize_row_q4_K_ref(const float * x, block_q4_K * y, int64_t n) {
    quantize_row_q4_K_impl(x, y, n, NULL);
}

void quantize_row_q4_K_imat(const float * x, block_q4_K * y, int64_t n, const float * w) {
    quantize_row_q4_K_impl(x, y, n, w);
}

void dequantize_row_q4_K(const block_q4_K * x, float * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK_K; ib++) {
        const float     d = FP16_TO_FP32(x[ib].d), dmin = FP16_TO_FP32(x[ib].dmin);
        const uint8_t * q = x[ib].qs;
        for (int c = 0; c < 4; c++, q += 32) {
            uint8_t s0, m0, s1, m1;
            ggml_get_scale_min_k4(2 * c, x[ib].scales, &s0, &m0);
            ggml_get_scale_min_k4(2 * c + 1, x[ib].scales, &s1, &m1);
            const float d0 = d * s0, mm0 = dmin * m0, d1 = d * s1, mm1 = dmin * m1;
            for (int l = 0; l < 32; l++) {
                *y++ = d0 * (float) (q[l] & 0xF) - mm0;
            }
            for (int l = 0; l < 32; l++) {
                *y++ = d1 * (float) (q[l] >> 4) - mm1;
            }
        }
    }
}

void ggml_vec_dot_q4_K_q8_K_ref(int n, float * s, const void * vx, const void * vy) {
    const block_q4_K * x   = (const block_q4_K *) vx;
    const block_q8_K * y   = (const block_q8_K *) vy;
    float              sum = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        int sumi = 0, summ = 0;
        for (int j = 0; j < 8; j++) {
            uint8_t sc, m;
            ggml_get_scale_min_k4(j, x[ib].scales, &sc, &m);
            const uint8_t * q     = x[ib].qs + 32 * (j / 2);
            const int       shift = 4 * (j % 2);
            int             sub   = 0;
            for (int l = 0; l < 32; l++) {
                sub += ((q[l] >> shift) & 0xF) * y[ib].qs[32 * j + l];
            }
            sumi += sc * sub;
            summ += m * (y[ib].bsums[2 * j] + y[ib].bsums[2 * j + 1]);
        }
        sum += y[ib].d * (FP16_TO_FP32(x[ib].d) * (float) sumi - FP16_TO_FP32(x[ib].dmin) * (float) summ);
    }
    *s = sum;
}

static void quantize_row_q5_K_impl(const float * x, block_q5_K * y, int64_t n, const float * w) {
    const ggml_qsearch_kernels * K = ggml_qsearch_best();
    int                          q[QK_K];
    uint8_t                      sc[8], mn[8];
    for (int64_t ib = 0; ib < n / QK_K; ib++, x += QK_K, w = w ? w + QK_K : NULL) {
        block_q5_K * b = &y[ib];
        quantize_superblock_affine(K, x, w, 8, 32, 31, 63, sc, mn, q, &b->d, &b->dmin);
        pack_scale_min_k4(sc, mn, b->scales);
        memset(b->qh, 0, sizeof(b->qh));
        for (int c = 0; c < 4; c++) {
            for (int l = 0; l < 32; l++) {
                const int lo = q[64 * c + l], hi = q[64 * c + 32 + l];
                b->qs[32 * c + l] = (uint8_t) ((lo & 0xF) | ((hi & 0xF) << 4));
                b->qh[l] |= (uint8_t) (((lo >> 4) << (2 * c)) | ((hi >> 4) << (2 * c + 1)));
            }
        }
    }
}

void quantize_row_q5_K_ref(const float * x, block_q5_K * y, int64_t n) {
    quantize_row_q5_K_impl(x, y, n, NULL);
}

void quantize_row_q5_K_imat(const float * x, block_q5_K * y, int64_t n, const float * w) {
    quantize_row_q5_K_impl(x, y, n, w);
}

static inline int q5_K_value(const block_q5_K * b, int e) {
    const int c = e / 64, l = e % 32, hi = (e % 64) >= 32;
    const int lo4 = (b->qs[32 * c + l] >> (4 * hi)) & 0xF;
    return lo4 | (((b->qh[l] >> (2 * c + hi)) & 1) << 4);
}

void dequantize_row_q5_K(const block_q5_K * x, float * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK_K; ib++, y += QK_K) {
        const float d = FP16_TO_FP32(x[ib].d), dmin = FP16_TO_FP32(x[ib].dmin);
        for (int j = 0; j < 8; j++) {
            uint8_t sc, m;
            ggml_get_scale_min_k4(j, x[ib].scales, &sc, &m);
            const float dl = d * sc, ml = dmin * m;
            for (int l = 0; l < 32; l++) {
                y[32 * j + l] = dl * (float) q5_K_value(&x[ib], 32 * j + l) - ml;
            }
        }
    }
}

void ggml_vec_dot_q5_K_q8_K_ref(int n, float * s, const void * vx, const void * vy) {
    const block_q5_K * x   = (const block_q5_K *) vx;
    const block_q8_K * y   = (const block_q8_K *) vy;
    float              sum = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        int sumi = 0, summ = 0;
        for (int j = 0; j < 8; j++) {
            uint8_t sc, m;
            ggml_get_scale_min_k4(j, x[ib].scales, &sc, &m);
            int sub = 0;
            for (int l = 0; l < 32; l++) {
                sub += q5_K_value(&x[ib], 32 * j + l) * y[ib].qs[32 * j + l];
            }
            sumi += sc * sub;
            summ += m * (y[ib].bsums[2 * j] + y[ib].bsums[2 * j + 1]);
        }
        sum += y[ib].d * (FP16_TO_FP32(x[ib].d) * (float) sumi - FP16_TO_FP32(x[ib].dmin) * (float) summ);
    }
    *s = sum;
}

// =============================================================================================
// q6_K
static void quantize_row_q6_K_impl(const float * x, block_q6_K * y, int64_t n, const float * w) {
    const ggml_qsearch_kernels * K = ggml_qsearch_best();
    int                          q[QK_K], sc[16];
    for (int64_t ib = 0; ib < n / QK_K; ib++, x += QK_K, w = w ? w + QK_K : NULL) {
        block_q6_K * b = &y[ib];
        quantize_superblock_sym(K, x, w, 16, 16, -32, 31, NULL, 0, -127, 127, sc, q, &b->d);
        for (int j = 0; j < 16; j++) {
            b->scales[j] = (int8_t) sc[j];
        }
        // element 128*h + 32*k + l: nibble (k&1 ? ql[64h+32+l] : ql[64h+l]) low for k<2, high for k>=2;
        // 2 high bits in qh[32h+l] at bit 2k
        memset(b->ql, 0, sizeof(b->ql));
        memset(b->qh, 0, sizeof(b->qh));
        for (int e = 0; e < QK_K; e++) {
            const int h = e / 128, k = (e % 128) / 32, l = e % 32;
            const int u = q[e] + 32;
            b->ql[64 * h + 32 * (k & 1) + l] |= (uint8_t) ((u & 0xF) << (4 * (k >> 1)));
            b->qh[32 * h + l] |= (uint8_t) ((u >> 4) << (2 * k));
        }
    }
}

void quantize_row_q6_K_ref(const float * x, block_q6_K * y, int64_t n) {
    quantize_row_q6_K_impl(x, y, n, NULL);
}

void quantize_row_q6_K_imat(const float * x, block_q6_K * y, int64_t n, const float * w) {
    quantize_row_q6_K_impl(x, y, n, w);
}

static inline int q6_K_value(const block_q6_K * b, int e) {
    const int h = e / 128, k = (e % 128) / 32, l = e % 32;
    const int lo = (b->ql[64 * h + 32 * (k & 1) + l] >> (4 * (k >> 1))) & 0xF;
    const int hi = (b->qh[32 * h + l] >> (2 * k)) & 3;
    return (lo | (hi << 4)) - 32;
}

void dequantize_row_q6_K(const block_q6_K * x, float * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK_K; ib++, y += QK_K) {
        const float d = FP16_TO_FP32(x[ib].d);
        for (int e = 0; e < QK_K; e++) {
            y[e] = d * (float) x[ib].scales[e / 16] * (float) q6_K_value(&x[ib], e);
        }
    }
}

void ggml_vec_dot_q6_K_q8_K_ref(int n, float * s, const void * vx, const void * vy) {
    const block_q6_K * x   = (const block_q6_K *) vx;
    const block_q8_K * y   = (const block_q8_K *) vy;
    float              sum = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        int sumi = 0;
        for (int j = 0; j < 16; j++) {
            int sub = 0;
            for (int l = 0; l < 16; l++) {
                sub += q6_K_value(&x[ib], 16 * j + l) * y[ib].qs[16 * j + l];
            }
            sumi += x[ib].scales[j] * sub;
        }
        sum += FP16_TO_FP32(x[ib].d) * y[ib].d * (float) sumi;
    }
    *s = sum;
}

// =============================================================================================
// q8_K: max-abs scaling (the SIMD activation quantizers repeat these float operations exactly)
void quantize_row_q8_K_ref(const float * x, block_q8_K * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK_K; ib++, x += QK_K) {
        float amax = 0.0f;
        for (int j = 0; j < QK_K; j++) {
            amax = fmaxf(amax, fabsf(x[j]));
        }
        const float d  = amax / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[ib].d        = d;
        for (int j = 0; j < QK_K; j++) {
            y[ib].qs[j] = (int8_t) lrintf(x[j] * id);
        }
        for (int j = 0; j < QK_K / 16; j++) {
            int sum = 0;
            for (int l = 0; l < 16; l++) {
                sum += y[ib].qs[16 * j + l];
            }
            y[ib].bsums[j] = (int16_t) sum;
        }
    }
}

void dequantize_row_q8_K(const block_q8_K * x, float * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK_K; ib++, y += QK_K) {
        for (int j = 0; j < QK_K; j++) {
            y[j] = x[ib].d * (float) x[ib].qs[j];
        }
    }
}

void ggml_vec_dot_q8_K_q8_K_ref(int n, float * s, const void * vx, const void * vy) {
    const block_q8_K * x   = (const block_q8_K *) vx;
    const block_q8_K * y   = (const block_q8_K *) vy;
    float              sum = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        int sumi = 0;
        for (int j = 0; j < QK_K; j++) {
            sumi += x[ib].qs[j] * y[ib].qs[j];
        }
        sum += x[ib].d * y[ib].d * (float) sumi;
    }
    *s = sum;
}

// =============================================================================================
// iq4_xs: iq4_nl codes with 6-bit signed sub-block scales
static void quantize_row_iq4_xs_impl(const float * x, block_iq4_xs * y, int64_t n, const float * w) {
    int q[QK_K], sc[8];
    for (int64_t ib = 0; ib < n / QK_K; ib++, x += QK_K, w = w ? w + QK_K : NULL) {
        block_iq4_xs * b = &y[ib];
        quantize_superblock_sym(NULL, x, w, 8, 32, 0, 15, ggml_kvalues_iq4nl, 16, -32, 31, sc, q, &b->d);
        b->scales_h = 0;
        memset(b->scales_l, 0, sizeof(b->scales_l));
        for (int j = 0; j < 8; j++) {
            const int ls = sc[j] + 32;
            b->scales_l[j / 2] |= (uint8_t) ((ls & 0xF) << (4 * (j % 2)));
            b->scales_h |= (uint16_t) ((ls >> 4) << (2 * j));
            for (int l = 0; l < 16; l++) {
                b->qs[16 * j + l] = (uint8_t) (q[32 * j + l] | (q[32 * j + 16 + l] << 4));
            }
        }
    }
}

void quantize_row_iq4_xs_ref(const float * x, block_iq4_xs * y, int64_t n) {
    quantize_row_iq4_xs_impl(x, y, n, NULL);
}

void quantize_row_iq4_xs_imat(const float * x, block_iq4_xs * y, int64_t n, const float * w) {
    quantize_row_iq4_xs_impl(x, y, n, w);
}

static inline int iq4_xs_scale(const block_iq4_xs * b, int j) {
    const int ls = ((b->scales_l[j / 2] >> (4 * (j % 2))) & 0xF) | (((b->scales_h >> (2 * j)) & 3) << 4);
    return ls - 32;
}

void dequantize_row_iq4_xs(const block_iq4_xs * x, float * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK_K; ib++) {
        const float d = FP16_TO_FP32(x[ib].d);
        for (int j = 0; j < 8; j++, y += 32) {
            const float     dl = d * (float) iq4_xs_scale(&x[ib], j);
            const uint8_t * qs = x[ib].qs + 16 * j;
            for (int l = 0; l < 16; l++) {
                y[l]      = dl * (float) ggml_kvalues_iq4nl[qs[l] & 0xF];
                y[l + 16] = dl * (float) ggml_kvalues_iq4nl[qs[l] >> 4];
            }
        }
    }
}

void ggml_vec_dot_iq4_xs_q8_K_ref(int n, float * s, const void * vx, const void * vy) {
    const block_iq4_xs * x   = (const block_iq4_xs *) vx;
    const block_q8_K *   y   = (const block_q8_K *) vy;
    float                sum = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        int sumi = 0;
        for (int j = 0; j < 8; j++) {
            const uint8_t * qs  = x[ib].qs + 16 * j;
            const int8_t *  q8  = y[ib].qs + 32 * j;
            int             sub = 0;
            for (int l = 0; l < 16; l++) {
                sub += ggml_kvalues_iq4nl[qs[l] & 0xF] * q8[l] + ggml_kvalues_iq4nl[qs[l] >> 4] * q8[l + 16];
            }
            sumi += iq4_xs_scale(&x[ib], j) * sub;
        }
        sum += FP16_TO_FP32(x[ib].d) * y[ib].d * (float) sumi;
    }
    *s = sum;
}
