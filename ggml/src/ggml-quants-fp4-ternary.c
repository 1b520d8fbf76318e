// MXFP4 (gpt-oss) and the ternary types TQ1_0 / TQ2_0 (BitNet b1.58): reference quantization,
// dequantization exactly as the GGUF format defines it, and the scalar dot products (mxfp4 x q8_0,
// tq1_0 / tq2_0 x q8_K) that the SIMD kernels are tested against.
#include "ggml-quants.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(block_mxfp4) == 1 + 16, "mxfp4 size");
_Static_assert(sizeof(block_tq1_0) == 48 + 4 + 2, "tq1_0 size");
_Static_assert(sizeof(block_tq2_0) == 64 + 2, "tq2_0 size");

// E2M1 magnitudes {0, 0.5, 1, 1.5, 2, 3, 4, 6} doubled; bit 3 of the code is the sign
const int8_t ggml_kvalues_mxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

// =============================================================================================
// mxfp4

// nearest codebook entry to x / d (the first of equals, so +0 wins over -0)
static int mxfp4_nearest(float x, float d) {
    int   best     = 0;
    float best_err = fabsf(x);
    for (int i = 1; i < 16; i++) {
        const float err = fabsf((float) ggml_kvalues_mxfp4[i] * d - x);
        if (err < best_err) {
            best_err = err;
            best     = i;
        }
    }
    return best;
}

// in double: squares of errors of tiny blocks (the scale goes down to 2^-128) would underflow in float
static double mxfp4_block_err(const float * x, float d, uint8_t * codes) {
    double err = 0.0;
    for (int j = 0; j < QK_MXFP4; j++) {
        const int    c = mxfp4_nearest(x[j], d);
        const double e = (double) ggml_kvalues_mxfp4[c] * d - x[j];
        codes[j]       = (uint8_t) c;
        err += e * e;
    }
    return err;
}

// The exponent that puts the largest magnitude in the top binade of E2M1 (the OCP MX choice), or the
// one above or below it when that gives a smaller squared error (clipping the largest value vs. a
// coarser grid for the rest).
void quantize_row_mxfp4_ref(const float * x, block_mxfp4 * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK_MXFP4; ib++, x += QK_MXFP4) {
        float amax = 0.0f;
        for (int j = 0; j < QK_MXFP4; j++) {
            amax = fmaxf(amax, fabsf(x[j]));
        }
        uint8_t best_codes[QK_MXFP4] = {0};
        int     best_e               = 0;
        if (amax > 0.0f && isfinite(amax)) {
            int ex = 0;
            frexpf(amax, &ex);  // amax = m * 2^ex, m in [0.5, 1): floor(log2(amax)) = ex - 1
            const int e0       = ex - 1 - 2 + 127;
            double    best_err = INFINITY;
            for (int c = e0 - 1; c <= e0 + 1; c++) {
                const int    e = c < 0 ? 0 : c > 254 ? 254 : c;  // 255 is NaN
                uint8_t      codes[QK_MXFP4];
                const double err = mxfp4_block_err(x, ggml_e8m0_to_fp32_half((uint8_t) e), codes);
                if (err < best_err) {
                    best_err = err;
                    best_e   = e;
                    memcpy(best_codes, codes, sizeof(codes));
                }
            }
        }
        y[ib].e = (uint8_t) best_e;
        for (int j = 0; j < QK_MXFP4 / 2; j++) {
            y[ib].qs[j] = (uint8_t) (best_codes[j] | (best_codes[j + QK_MXFP4 / 2] << 4));
        }
    }
}

void dequantize_row_mxfp4(const block_mxfp4 * x, float * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK_MXFP4; ib++, y += QK_MXFP4) {
        const float d = ggml_e8m0_to_fp32_half(x[ib].e);
        for (int j = 0; j < QK_MXFP4 / 2; j++) {
            y[j]                = d * (float) ggml_kvalues_mxfp4[x[ib].qs[j] & 0xF];
            y[j + QK_MXFP4 / 2] = d * (float) ggml_kvalues_mxfp4[x[ib].qs[j] >> 4];
        }
    }
}

void ggml_vec_dot_mxfp4_q8_0_ref(int n, float * s, const void * vx, const void * vy) {
    const block_mxfp4 * x   = (const block_mxfp4 *) vx;
    const block_q8_0 *  y   = (const block_q8_0 *) vy;
    float               sum = 0.0f;
    for (int ib = 0; ib < n / QK_MXFP4; ib++) {
        int sumi = 0;
        for (int j = 0; j < QK_MXFP4 / 2; j++) {
            sumi += ggml_kvalues_mxfp4[x[ib].qs[j] & 0xF] * y[ib].qs[j] +
                    ggml_kvalues_mxfp4[x[ib].qs[j] >> 4] * y[ib].qs[j + QK_MXFP4 / 2];
        }
        sum += ggml_e8m0_to_fp32_half(x[ib].e) * ggml_fp16_to_fp32(y[ib].d) * (float) sumi;
    }
    *s = sum;
}

// =============================================================================================
// ternary: trits t in {0, 1, 2} stand for t - 1

static int cmp_desc(const void * a, const void * b) {
    const float fa = *(const float *) a, fb = *(const float *) b;
    return (fa < fb) - (fa > fb);
}

// The least-squares ternary fit of one super-block: for the k largest magnitudes set to +-d and the
// rest to 0, the best d is their mean and the error drops by (sum of the k)^2 / k; take the best k, then
// choose each trit as the nearest level to the fp16 scale actually stored.
static void quantize_ternary_block(const float * x, ggml_fp16_t * d_out, uint8_t * t) {
    float a[QK_K];
    for (int j = 0; j < QK_K; j++) {
        a[j] = fabsf(x[j]);
    }
    qsort(a, QK_K, sizeof(float), cmp_desc);
    double sum = 0.0, best_gain = 0.0, best_d = 0.0;
    for (int k = 1; k <= QK_K && a[k - 1] > 0.0f; k++) {
        sum += a[k - 1];
        const double gain = sum * sum / k;
        if (gain > best_gain) {
            best_gain = gain;
            best_d    = sum / k;
        }
    }
    *d_out        = ggml_fp32_to_fp16((float) best_d);
    const float d = ggml_fp16_to_fp32(*d_out);
    for (int j = 0; j < QK_K; j++) {
        int q = 0;
        if (d > 0.0f && isfinite(d)) {
            q = fabsf(x[j]) > 0.5f * d ? (x[j] > 0.0f ? 1 : -1) : 0;
        }
        t[j] = (uint8_t) (q + 1);
    }
}

// five trits, the first most significant, into the byte ceil(v * 256 / 243)
static uint8_t pack_trits5(const uint8_t * t, int stride) {
    int v = 0;
    for (int k = 0; k < 5; k++) {
        v = v * 3 + t[k * stride];
    }
    return (uint8_t) ((v * 256 + 242) / 243);
}

static inline int trit_of(uint8_t byte, int pow3) {
    return ((uint8_t) (byte * pow3) * 3) >> 8;
}

void quantize_row_tq1_0_ref(const float * x, block_tq1_0 * y, int64_t n) {
    uint8_t t[QK_K + 4];
    for (int64_t ib = 0; ib < n / QK_K; ib++, x += QK_K) {
        quantize_ternary_block(x, &y[ib].d, t);
        for (int m = 0; m < 32; m++) {
            y[ib].qs[m] = pack_trits5(t + m, 32);
        }
        for (int m = 0; m < 16; m++) {
            y[ib].qs[32 + m] = pack_trits5(t + 160 + m, 16);
        }
        for (int m = 0; m < 4; m++) {
            t[256 + m] = 0;  // the unused fifth trit: trit 4 of qh[m] reads t[240 + 16 + m]
        }
        for (int m = 0; m < 4; m++) {
            y[ib].qh[m] = pack_trits5(t + 240 + m, 4);
        }
    }
}

void ggml_tq1_0_trits(const block_tq1_0 * b, uint8_t * t) {
    static const int pow3[5] = {1, 3, 9, 27, 81};
    for (int k = 0; k < 5; k++) {
        for (int m = 0; m < 32; m++) {
            t[32 * k + m] = (uint8_t) trit_of(b->qs[m], pow3[k]);
        }
        for (int m = 0; m < 16; m++) {
            t[160 + 16 * k + m] = (uint8_t) trit_of(b->qs[32 + m], pow3[k]);
        }
    }
    for (int k = 0; k < 4; k++) {
        for (int m = 0; m < 4; m++) {
            t[240 + 4 * k + m] = (uint8_t) trit_of(b->qh[m], pow3[k]);
        }
    }
}

void dequantize_row_tq1_0(const block_tq1_0 * x, float * y, int64_t n) {
    uint8_t t[QK_K];
    for (int64_t ib = 0; ib < n / QK_K; ib++, y += QK_K) {
        const float d = ggml_fp16_to_fp32(x[ib].d);
        ggml_tq1_0_trits(&x[ib], t);
        for (int j = 0; j < QK_K; j++) {
            y[j] = (float) (t[j] - 1) * d;
        }
    }
}

void quantize_row_tq2_0_ref(const float * x, block_tq2_0 * y, int64_t n) {
    uint8_t t[QK_K];
    for (int64_t ib = 0; ib < n / QK_K; ib++, x += QK_K) {
        quantize_ternary_block(x, &y[ib].d, t);
        for (int j = 0; j < 2; j++) {
            for (int m = 0; m < 32; m++) {
                const uint8_t * tt   = t + 128 * j + m;
                y[ib].qs[32 * j + m] = (uint8_t) (tt[0] | (tt[32] << 2) | (tt[64] << 4) | (tt[96] << 6));
            }
        }
    }
}

void dequantize_row_tq2_0(const block_tq2_0 * x, float * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK_K; ib++, y += QK_K) {
        const float d = ggml_fp16_to_fp32(x[ib].d);
        for (int j = 0; j < 2; j++) {
            for (int l = 0; l < 4; l++) {
                for (int m = 0; m < 32; m++) {
                    y[128 * j + 32 * l + m] = (float) (((x[ib].qs[32 * j + m] >> (2 * l)) & 3) - 1) * d;
                }
            }
        }
    }
}

// sum of (t - 1) * q8 = sum t * q8 - sum q8, the last from the block sums of q8_K
static int q8_K_sum(const block_q8_K * y) {
    int s = 0;
    for (int i = 0; i < QK_K / 16; i++) {
        s += y->bsums[i];
    }
    return s;
}

void ggml_vec_dot_tq1_0_q8_K_ref(int n, float * s, const void * vx, const void * vy) {
    const block_tq1_0 * x   = (const block_tq1_0 *) vx;
    const block_q8_K *  y   = (const block_q8_K *) vy;
    float               sum = 0.0f;
    uint8_t             t[QK_K];
    for (int ib = 0; ib < n / QK_K; ib++) {
        ggml_tq1_0_trits(&x[ib], t);
        int sumi = 0;
        for (int j = 0; j < QK_K; j++) {
            sumi += t[j] * y[ib].qs[j];
        }
        sum += ggml_fp16_to_fp32(x[ib].d) * y[ib].d * (float) (sumi - q8_K_sum(&y[ib]));
    }
    *s = sum;
}

void ggml_vec_dot_tq2_0_q8_K_ref(int n, float * s, const void * vx, const void * vy) {
    const block_tq2_0 * x   = (const block_tq2_0 *) vx;
    const block_q8_K *  y   = (const block_q8_K *) vy;
    float               sum = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        int sumi = 0;
        for (int j = 0; j < 2; j++) {
            for (int l = 0; l < 4; l++) {
                for (int m = 0; m < 32; m++) {
                    sumi += ((x[ib].qs[32 * j + m] >> (2 * l)) & 3) * y[ib].qs[128 * j + 32 * l + m];
                }
            }
        }
        sum += ggml_fp16_to_fp32(x[ib].d) * y[ib].d * (float) (sumi - q8_K_sum(&y[ib]));
    }
    *s = sum;
}
