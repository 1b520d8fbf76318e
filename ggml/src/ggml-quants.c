// Reference quantization for the 32-element block types (q4_0, q4_1, q5_0, q5_1, q8_0, q8_1, iq4_nl)
// over the scale searches of ggml-quants-search.c, and the scalar dot products of these types. K-quants:
// ggml-quants-k.c.
#include "ggml-quants.h"
#include "ggml-quants-search.h"

#include <float.h>
#include <math.h>
#include <string.h>

// Block sizes are fixed by the GGUF format; the traits table in ggml-types.c must agree (checked at
// run time by the unit tests, since ggml_type_size is not a constant expression).
_Static_assert(sizeof(block_q4_0) == 2 + 16, "q4_0 size");
_Static_assert(sizeof(block_q4_1) == 2 + 2 + 16, "q4_1 size");
_Static_assert(sizeof(block_q5_0) == 2 + 4 + 16, "q5_0 size");
_Static_assert(sizeof(block_q5_1) == 2 + 2 + 4 + 16, "q5_1 size");
_Static_assert(sizeof(block_q8_0) == 2 + 32, "q8_0 size");
_Static_assert(sizeof(block_q8_1) == 2 + 2 + 32, "q8_1 size");
_Static_assert(sizeof(block_iq4_nl) == 2 + 16, "iq4_nl size");
_Static_assert(sizeof(block_q2_K) == 16 + 64 + 2 + 2, "q2_K size");
_Static_assert(sizeof(block_q3_K) == 32 + 64 + 12 + 2, "q3_K size");
_Static_assert(sizeof(block_q4_K) == 2 + 2 + 12 + 128, "q4_K size");
_Static_assert(sizeof(block_q5_K) == 2 + 2 + 12 + 32 + 128, "q5_K size");
_Static_assert(sizeof(block_q6_K) == 128 + 64 + 16 + 2, "q6_K size");
_Static_assert(sizeof(block_q8_K) == 4 + 256 + 2 * 16, "q8_K size");
_Static_assert(sizeof(block_iq4_xs) == 2 + 2 + 4 + 128, "iq4_xs size");

const int8_t ggml_kvalues_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

#define FP16_TO_FP32(x) ggml_fp16_to_fp32(x)
#define FP32_TO_FP16(x) ggml_fp32_to_fp16(x)

// =============================================================================================
// q4_0 / q5_0 / iq4_nl: symmetric, one fp16 scale per 32. K: the search kernels (integer levels),
// resolved once per row.
// w: importance weights of the 32 elements, NULL for the plain (bit-reproducible SIMD) search.
static void quantize_block_sym(const ggml_qsearch_kernels * K, const float * x, const float * w, int qmin, int qmax,
                               const int8_t * levels, int nlev, int * q, ggml_fp16_t * d_out) {
    if (w) {
        *d_out = FP32_TO_FP16(ggml_qsearch_wsym(32, x, w, qmin, qmax, levels, nlev, q));
        ggml_qsearch_err_sym(32, x, FP16_TO_FP32(*d_out), qmin, qmax, levels, nlev, q);
        return;
    }
    if (levels) {
        const float d = ggml_qsearch_sym(32, x, qmin, qmax, levels, nlev, q);
        *d_out        = FP32_TO_FP16(d);
        // the codes are re-chosen for the scale actually stored
        ggml_qsearch_err_sym(32, x, FP16_TO_FP32(*d_out), qmin, qmax, levels, nlev, q);
        return;
    }
    *d_out = FP32_TO_FP16(K->sym(32, x, qmin, qmax, NULL));  // codes: chosen below for the stored scale
    K->assign_sym(32, x, FP16_TO_FP32(*d_out), qmin, qmax, q);
}

static void quantize_row_q4_0_impl(const float * x, block_q4_0 * y, int64_t n, const float * w) {
    const ggml_qsearch_kernels * K = ggml_qsearch_best();
    int                          q[32];
    for (int64_t ib = 0; ib < n / QK4_0; ib++, x += QK4_0, w = w ? w + QK4_0 : NULL) {
        quantize_block_sym(K, x, w, -8, 7, NULL, 0, q, &y[ib].d);
        for (int j = 0; j < 16; j++) {
            y[ib].qs[j] = (uint8_t) ((q[j] + 8) | ((q[j + 16] + 8) << 4));
        }
    }
}

static void quantize_row_q5_0_impl(const float * x, block_q5_0 * y, int64_t n, const float * w) {
    const ggml_qsearch_kernels * K = ggml_qsearch_best();
    int                          q[32];
    for (int64_t ib = 0; ib < n / QK5_0; ib++, x += QK5_0, w = w ? w + QK5_0 : NULL) {
        quantize_block_sym(K, x, w, -16, 15, NULL, 0, q, &y[ib].d);
        uint32_t qh = 0;
        for (int j = 0; j < 16; j++) {
            const int u0 = q[j] + 16, u1 = q[j + 16] + 16;
            y[ib].qs[j] = (uint8_t) ((u0 & 0xF) | ((u1 & 0xF) << 4));
            qh |= (uint32_t) (u0 >> 4) << j;
            qh |= (uint32_t) (u1 >> 4) << (j + 16);
        }
        memcpy(y[ib].qh, &qh, 4);
    }
}

static void quantize_row_iq4_nl_impl(const float * x, block_iq4_nl * y, int64_t n, const float * w) {
    int q[32];
    for (int64_t ib = 0; ib < n / QK4_NL; ib++, x += QK4_NL, w = w ? w + QK4_NL : NULL) {
        quantize_block_sym(NULL, x, w, 0, 15, ggml_kvalues_iq4nl, 16, q, &y[ib].d);
        for (int j = 0; j < 16; j++) {
            y[ib].qs[j] = (uint8_t) (q[j] | (q[j + 16] << 4));
        }
    }
}

// q4_1 / q5_1: affine, fp16 scale and offset per 32
static void quantize_block_affine(const ggml_qsearch_kernels * K, const float * x, const float * w, int nmax, int * q,
                                  ggml_fp16_t * d_out, ggml_fp16_t * m_out) {
    float a, b;
    if (w) {
        ggml_qsearch_waffine(32, x, w, nmax, false, &a, &b, q);
    } else {
        K->affine(32, x, nmax, false, &a, &b, q);
    }
    *d_out = FP32_TO_FP16(a);
    *m_out = FP32_TO_FP16(b);
    K->assign_affine(32, x, FP16_TO_FP32(*d_out), FP16_TO_FP32(*m_out), nmax, q);
}

static void quantize_row_q4_1_impl(const float * x, block_q4_1 * y, int64_t n, const float * w) {
    const ggml_qsearch_kernels * K = ggml_qsearch_best();
    int                          q[32];
    for (int64_t ib = 0; ib < n / QK4_1; ib++, x += QK4_1, w = w ? w + QK4_1 : NULL) {
        quantize_block_affine(K, x, w, 15, q, &y[ib].d, &y[ib].m);
        for (int j = 0; j < 16; j++) {
            y[ib].qs[j] = (uint8_t) (q[j] | (q[j + 16] << 4));
        }
    }
}

static void quantize_row_q5_1_impl(const float * x, block_q5_1 * y, int64_t n, const float * w) {
    const ggml_qsearch_kernels * K = ggml_qsearch_best();
    int                          q[32];
    for (int64_t ib = 0; ib < n / QK5_1; ib++, x += QK5_1, w = w ? w + QK5_1 : NULL) {
        quantize_block_affine(K, x, w, 31, q, &y[ib].d, &y[ib].m);
        uint32_t qh = 0;
        for (int j = 0; j < 16; j++) {
            y[ib].qs[j] = (uint8_t) ((q[j] & 0xF) | ((q[j + 16] & 0xF) << 4));
            qh |= (uint32_t) (q[j] >> 4) << j;
            qh |= (uint32_t) (q[j + 16] >> 4) << (j + 16);
        }
        memcpy(y[ib].qh, &qh, 4);
    }
}

// public entry points: the plain reference and the importance-weighted variant (ggml-quants.h)
void quantize_row_q4_0_ref(const float * x, block_q4_0 * y, int64_t n) {
    quantize_row_q4_0_impl(x, y, n, NULL);
}
void quantize_row_q4_0_imat(const float * x, block_q4_0 * y, int64_t n, const float * w) {
    quantize_row_q4_0_impl(x, y, n, w);
}
void quantize_row_q4_1_ref(const float * x, block_q4_1 * y, int64_t n) {
    quantize_row_q4_1_impl(x, y, n, NULL);
}
void quantize_row_q4_1_imat(const float * x, block_q4_1 * y, int64_t n, const float * w) {
    quantize_row_q4_1_impl(x, y, n, w);
}
void quantize_row_q5_0_ref(const float * x, block_q5_0 * y, int64_t n) {
    quantize_row_q5_0_impl(x, y, n, NULL);
}
void quantize_row_q5_0_imat(const float * x, block_q5_0 * y, int64_t n, const float * w) {
    quantize_row_q5_0_impl(x, y, n, w);
}
void quantize_row_q5_1_ref(const float * x, block_q5_1 * y, int64_t n) {
    quantize_row_q5_1_impl(x, y, n, NULL);
}
void quantize_row_q5_1_imat(const float * x, block_q5_1 * y, int64_t n, const float * w) {
    quantize_row_q5_1_impl(x, y, n, w);
}
void quantize_row_iq4_nl_ref(const float * x, block_iq4_nl * y, int64_t n) {
    quantize_row_iq4_nl_impl(x, y, n, NULL);
}
void quantize_row_iq4_nl_imat(const float * x, block_iq4_nl * y, int64_t n, const float * w) {
    quantize_row_iq4_nl_impl(x, y, n, w);
}

// q8_0 / q8_1: max-abs scaling (256 levels leave little to search). The SIMD activation quantizers
// perform exactly these float operations, so they match this reference bit for bit.
void quantize_row_q8_0_ref(const float * x, block_q8_0 * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK8_0; ib++, x += QK8_0) {
        float amax = 0.0f;
        for (int j = 0; j < QK8_0; j++) {
            amax = fmaxf(amax, fabsf(x[j]));
        }
        const float d  = amax / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[ib].d        = FP32_TO_FP16(d);
        for (int j = 0; j < QK8_0; j++) {
            y[ib].qs[j] = (int8_t) lrintf(x[j] * id);
        }
    }
}

void quantize_row_q8_1_ref(const float * x, block_q8_1 * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK8_1; ib++, x += QK8_1) {
        float amax = 0.0f;
        for (int j = 0; j < QK8_1; j++) {
            amax = fmaxf(amax, fabsf(x[j]));
        }
        const float d   = amax / 127.0f;
        const float id  = d != 0.0f ? 1.0f / d : 0.0f;
        int         sum = 0;
        for (int j = 0; j < QK8_1; j++) {
            y[ib].qs[j] = (int8_t) lrintf(x[j] * id);
            sum += y[ib].qs[j];
        }
        y[ib].d = FP32_TO_FP16(d);
        y[ib].s = FP32_TO_FP16((float) sum * d);
    }
}

// =============================================================================================
// dequantization
void dequantize_row_q4_0(const block_q4_0 * x, float * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK4_0; ib++, y += QK4_0) {
        const float d = FP16_TO_FP32(x[ib].d);
        for (int j = 0; j < 16; j++) {
            y[j]      = d * (float) ((x[ib].qs[j] & 0xF) - 8);
            y[j + 16] = d * (float) ((x[ib].qs[j] >> 4) - 8);
        }
    }
}

void dequantize_row_q4_1(const block_q4_1 * x, float * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK4_1; ib++, y += QK4_1) {
        const float d = FP16_TO_FP32(x[ib].d), m = FP16_TO_FP32(x[ib].m);
        for (int j = 0; j < 16; j++) {
            y[j]      = d * (float) (x[ib].qs[j] & 0xF) + m;
            y[j + 16] = d * (float) (x[ib].qs[j] >> 4) + m;
        }
    }
}

void dequantize_row_q5_0(const block_q5_0 * x, float * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK5_0; ib++, y += QK5_0) {
        const float d = FP16_TO_FP32(x[ib].d);
        uint32_t    qh;
        memcpy(&qh, x[ib].qh, 4);
        for (int j = 0; j < 16; j++) {
            const int h0 = (qh >> j) & 1, h1 = (qh >> (j + 16)) & 1;
            y[j]      = d * (float) (((x[ib].qs[j] & 0xF) | (h0 << 4)) - 16);
            y[j + 16] = d * (float) (((x[ib].qs[j] >> 4) | (h1 << 4)) - 16);
        }
    }
}

void dequantize_row_q5_1(const block_q5_1 * x, float * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK5_1; ib++, y += QK5_1) {
        const float d = FP16_TO_FP32(x[ib].d), m = FP16_TO_FP32(x[ib].m);
        uint32_t    qh;
        memcpy(&qh, x[ib].qh, 4);
        for (int j = 0; j < 16; j++) {
            const int h0 = (qh >> j) & 1, h1 = (qh >> (j + 16)) & 1;
            y[j]      = d * (float) ((x[ib].qs[j] & 0xF) | (h0 << 4)) + m;
            y[j + 16] = d * (float) ((x[ib].qs[j] >> 4) | (h1 << 4)) + m;
        }
    }
}

void dequantize_row_q8_0(const block_q8_0 * x, float * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK8_0; ib++, y += QK8_0) {
        const float d = FP16_TO_FP32(x[ib].d);
        for (int j = 0; j < QK8_0; j++) {
            y[j] = d * (float) x[ib].qs[j];
        }
    }
}

void dequantize_row_q8_1(const block_q8_1 * x, float * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK8_1; ib++, y += QK8_1) {
        const float d = FP16_TO_FP32(x[ib].d);
        for (int j = 0; j < QK8_1; j++) {
            y[j] = d * (float) x[ib].qs[j];
        }
    }
}

void dequantize_row_iq4_nl(const block_iq4_nl * x, float * y, int64_t n) {
    for (int64_t ib = 0; ib < n / QK4_NL; ib++, y += QK4_NL) {
        const float d = FP16_TO_FP32(x[ib].d);
        for (int j = 0; j < 16; j++) {
            y[j]      = d * (float) ggml_kvalues_iq4nl[x[ib].qs[j] & 0xF];
            y[j + 16] = d * (float) ggml_kvalues_iq4nl[x[ib].qs[j] >> 4];
        }
    }
}

// =============================================================================================
// scalar dot products: exact integer sums per block, then one float multiply-add per block
void ggml_vec_dot_q4_0_q8_0_ref(int n, float * s, const void * vx, const void * vy) {
    const block_q4_0 * x   = (const block_q4_0 *) vx;
    const block_q8_0 * y   = (const block_q8_0 *) vy;
    float              sum = 0.0f;
    for (int ib = 0; ib < n / QK8_0; ib++) {
        int sumi = 0;
        for (int j = 0; j < 16; j++) {
            sumi += ((x[ib].qs[j] & 0xF) - 8) * y[ib].qs[j] + ((x[ib].qs[j] >> 4) - 8) * y[ib].qs[j + 16];
        }
        sum += (float) sumi * (FP16_TO_FP32(x[ib].d) * FP16_TO_FP32(y[ib].d));
    }
    *s = sum;
}

void ggml_vec_dot_q4_1_q8_1_ref(int n, float * s, const void * vx, const void * vy) {
    const block_q4_1 * x   = (const block_q4_1 *) vx;
    const block_q8_1 * y   = (const block_q8_1 *) vy;
    float              sum = 0.0f;
    for (int ib = 0; ib < n / QK8_1; ib++) {
        int sumi = 0;
        for (int j = 0; j < 16; j++) {
            sumi += (x[ib].qs[j] & 0xF) * y[ib].qs[j] + (x[ib].qs[j] >> 4) * y[ib].qs[j + 16];
        }
        sum += (float) sumi * (FP16_TO_FP32(x[ib].d) * FP16_TO_FP32(y[ib].d)) +
               FP16_TO_FP32(x[ib].m) * FP16_TO_FP32(y[ib].s);
    }
    *s = sum;
}

void ggml_vec_dot_q5_0_q8_0_ref(int n, float * s, const void * vx, const void * vy) {
    const block_q5_0 * x   = (const block_q5_0 *) vx;
    const block_q8_0 * y   = (const block_q8_0 *) vy;
    float              sum = 0.0f;
    for (int ib = 0; ib < n / QK8_0; ib++) {
        uint32_t qh;
        memcpy(&qh, x[ib].qh, 4);
        int sumi = 0;
        for (int j = 0; j < 16; j++) {
            const int v0 = ((x[ib].qs[j] & 0xF) | (((qh >> j) & 1) << 4)) - 16;
            const int v1 = ((x[ib].qs[j] >> 4) | (((qh >> (j + 16)) & 1) << 4)) - 16;
            sumi += v0 * y[ib].qs[j] + v1 * y[ib].qs[j + 16];
        }
        sum += (float) sumi * (FP16_TO_FP32(x[ib].d) * FP16_TO_FP32(y[ib].d));
    }
    *s = sum;
}

void ggml_vec_dot_q5_1_q8_1_ref(int n, float * s, const void * vx, const void * vy) {
    const block_q5_1 * x   = (const block_q5_1 *) vx;
    const block_q8_1 * y   = (const block_q8_1 *) vy;
    float              sum = 0.0f;
    for (int ib = 0; ib < n / QK8_1; ib++) {
        uint32_t qh;
        memcpy(&qh, x[ib].qh, 4);
        int sumi = 0;
        for (int j = 0; j < 16; j++) {
            const int v0 = (x[ib].qs[j] & 0xF) | (((qh >> j) & 1) << 4);
            const int v1 = (x[ib].qs[j] >> 4) | (((qh >> (j + 16)) & 1) << 4);
            sumi += v0 * y[ib].qs[j] + v1 * y[ib].qs[j + 16];
        }
        sum += (float) sumi * (FP16_TO_FP32(x[ib].d) * FP16_TO_FP32(y[ib].d)) +
               FP16_TO_FP32(x[ib].m) * FP16_TO_FP32(y[ib].s);
    }
    *s = sum;
}

void ggml_vec_dot_q8_0_q8_0_ref(int n, float * s, const void * vx, const void * vy) {
    const block_q8_0 * x   = (const block_q8_0 *) vx;
    const block_q8_0 * y   = (const block_q8_0 *) vy;
    float              sum = 0.0f;
    for (int ib = 0; ib < n / QK8_0; ib++) {
        int sumi = 0;
        for (int j = 0; j < QK8_0; j++) {
            sumi += x[ib].qs[j] * y[ib].qs[j];
        }
        sum += (float) sumi * (FP16_TO_FP32(x[ib].d) * FP16_TO_FP32(y[ib].d));
    }
    *s = sum;
}

void ggml_vec_dot_q8_1_q8_1_ref(int n, float * s, const void * vx, const void * vy) {
    const block_q8_1 * x   = (const block_q8_1 *) vx;
    const block_q8_1 * y   = (const block_q8_1 *) vy;
    float              sum = 0.0f;
    for (int ib = 0; ib < n / QK8_1; ib++) {
        int sumi = 0;
        for (int j = 0; j < QK8_1; j++) {
            sumi += x[ib].qs[j] * y[ib].qs[j];
        }
        sum += (float) sumi * (FP16_TO_FP32(x[ib].d) * FP16_TO_FP32(y[ib].d));
    }
    *s = sum;
}

void ggml_vec_dot_iq4_nl_q8_0_ref(int n, float * s, const void * vx, const void * vy) {
    const block_iq4_nl * x   = (const block_iq4_nl *) vx;
    const block_q8_0 *   y   = (const block_q8_0 *) vy;
    float                sum = 0.0f;
    for (int ib = 0; ib < n / QK8_0; ib++) {
        int sumi = 0;
        for (int j = 0; j < 16; j++) {
            sumi += ggml_kvalues_iq4nl[x[ib].qs[j] & 0xF] * y[ib].qs[j] +
                    ggml_kvalues_iq4nl[x[ib].qs[j] >> 4] * y[ib].qs[j + 16];
        }
        sum += (float) sumi * (FP16_TO_FP32(x[ib].d) * FP16_TO_FP32(y[ib].d));
    }
    *s = sum;
}

// ---- float weights (activations stay F32), sums in double ------------------------------------------
void ggml_vec_dot_f32_f32_ref(int n, float * s, const void * vx, const void * vy) {
    const float * x   = (const float *) vx;
    const float * y   = (const float *) vy;
    double        sum = 0.0;
    for (int i = 0; i < n; i++) {
        sum += (double) x[i] * (double) y[i];
    }
    *s = (float) sum;
}
void ggml_vec_dot_f16_f32_ref(int n, float * s, const void * vx, const void * vy) {
    const ggml_fp16_t * x   = (const ggml_fp16_t *) vx;
    const float *       y   = (const float *) vy;
    double              sum = 0.0;
    for (int i = 0; i < n; i++) {
        sum += (double) ggml_fp16_to_fp32(x[i]) * (double) y[i];
    }
    *s = (float) sum;
}
void ggml_vec_dot_bf16_f32_ref(int n, float * s, const void * vx, const void * vy) {
    const ggml_bf16_t * x   = (const ggml_bf16_t *) vx;
    const float *       y   = (const float *) vy;
    double              sum = 0.0;
    for (int i = 0; i < n; i++) {
        sum += (double) ggml_bf16_to_fp32(x[i]) * (double) y[i];
    }
    *s = (float) sum;
}
