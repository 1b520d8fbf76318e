// Quantized block formats (bit-exact to the GGUF layouts) and their scalar reference code:
// quantize (float -> blocks, our own error-minimizing search), dequantize (blocks -> float, exactly
// as the format defines it) and dot products against quantized activations. The scalar code here
// is the oracle for every SIMD kernel in ggml-cpu/quants-*.cpp. Internal: not installed.
#pragma once

#include "ggml.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QK4_0        32
#define QK4_1        32
#define QK5_0        32
#define QK5_1        32
#define QK8_0        32
#define QK8_1        32
#define QK4_NL       32
#define QK_K         256
#define K_SCALE_SIZE 12

// ---- 32-element blocks --------------------------------------------------------------------------
// x[j] = d * (nibble_j - 8); element j (j < 16) is the low nibble of qs[j], element j + 16 its high nibble
typedef struct {
    ggml_fp16_t d;
    uint8_t     qs[QK4_0 / 2];
} block_q4_0;

// x[j] = d * nibble_j + m (nibble layout as q4_0)
typedef struct {
    ggml_fp16_t d;
    ggml_fp16_t m;
    uint8_t     qs[QK4_1 / 2];
} block_q4_1;

// x[j] = d * (q5_j - 16); low 4 bits as q4_0, bit 4 of element j is bit j of the little-endian qh
typedef struct {
    ggml_fp16_t d;
    uint8_t     qh[4];
    uint8_t     qs[QK5_0 / 2];
} block_q5_0;

// x[j] = d * q5_j + m (bits as q5_0)
typedef struct {
    ggml_fp16_t d;
    ggml_fp16_t m;
    uint8_t     qh[4];
    uint8_t     qs[QK5_1 / 2];
} block_q5_1;

// x[j] = d * qs[j]
typedef struct {
    ggml_fp16_t d;
    int8_t      qs[QK8_0];
} block_q8_0;

// x[j] = d * qs[j]; s = d * sum(qs) (used by the q4_1 / q5_1 dot products for the offset term)
typedef struct {
    ggml_fp16_t d;
    ggml_fp16_t s;
    int8_t      qs[QK8_1];
} block_q8_1;

// x[j] = d * kvalues_iq4nl[nibble_j] (non-linear codebook; nibble layout as q4_0)
typedef struct {
    ggml_fp16_t d;
    uint8_t     qs[QK4_NL / 2];
} block_iq4_nl;

// ---- 256-element super-blocks (K-quants) --------------------------------------------------------
// 16 sub-blocks of 16: x = d * (scales[i] & 15) * q2 - dmin * (scales[i] >> 4)
typedef struct {
    uint8_t     scales[QK_K / 16];
    uint8_t     qs[QK_K / 4];
    ggml_fp16_t d;
    ggml_fp16_t dmin;
} block_q2_K;

// 16 sub-blocks of 16: x = d * (scale6_i - 32) * (q2 - (hmask bit set ? 0 : 4))
typedef struct {
    uint8_t     hmask[QK_K / 8];
    uint8_t     qs[QK_K / 4];
    uint8_t     scales[12];
    ggml_fp16_t d;
} block_q3_K;

// 8 sub-blocks of 32: x = d * sc6_i * q4 - dmin * m6_i (6-bit scales/mins packed in 12 bytes)
typedef struct {
    ggml_fp16_t d;
    ggml_fp16_t dmin;
    uint8_t     scales[K_SCALE_SIZE];
    uint8_t     qs[QK_K / 2];
} block_q4_K;

// as q4_K with a fifth bit per element in qh
typedef struct {
    ggml_fp16_t d;
    ggml_fp16_t dmin;
    uint8_t     scales[K_SCALE_SIZE];
    uint8_t     qh[QK_K / 8];
    uint8_t     qs[QK_K / 2];
} block_q5_K;

// 16 sub-blocks of 16: x = d * scales[i] * (q6 - 32), 4 low bits in ql, 2 high bits in qh
typedef struct {
    uint8_t     ql[QK_K / 2];
    uint8_t     qh[QK_K / 4];
    int8_t      scales[QK_K / 16];
    ggml_fp16_t d;
} block_q6_K;

// activation format of the K dot products: x = d * qs, bsums[i] = sum of qs[16i .. 16i+15]
typedef struct {
    float   d;
    int8_t  qs[QK_K];
    int16_t bsums[QK_K / 16];
} block_q8_K;

// 8 sub-blocks of 32: x = d * (ls_i - 32) * kvalues_iq4nl[nibble], 6-bit ls_i = 4 bits in scales_l, 2 in scales_h
typedef struct {
    ggml_fp16_t d;
    uint16_t    scales_h;
    uint8_t     scales_l[QK_K / 64];
    uint8_t     qs[QK_K / 2];
} block_iq4_xs;

// the IQ4_NL / IQ4_XS codebook
extern const int8_t ggml_kvalues_iq4nl[16];

// Decodes the 6-bit scale and min of sub-block j (0..7) of a q4_K / q5_K block.
static inline void ggml_get_scale_min_k4(int j, const uint8_t * q, uint8_t * d, uint8_t * m) {
    if (j < 4) {
        *d = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *d = (uint8_t) ((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        *m = (uint8_t) ((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
}

// Decodes the 16 signed scales (-32..31) of a q3_K block.
void ggml_q3_K_scales(const uint8_t * packed, int8_t * out16);

// ---- reference quantization (n is a multiple of the block size) --------------------------------
void quantize_row_q4_0_ref(const float * x, block_q4_0 * y, int64_t n);
void quantize_row_q4_1_ref(const float * x, block_q4_1 * y, int64_t n);
void quantize_row_q5_0_ref(const float * x, block_q5_0 * y, int64_t n);
void quantize_row_q5_1_ref(const float * x, block_q5_1 * y, int64_t n);
void quantize_row_q8_0_ref(const float * x, block_q8_0 * y, int64_t n);
void quantize_row_q8_1_ref(const float * x, block_q8_1 * y, int64_t n);
void quantize_row_iq4_nl_ref(const float * x, block_iq4_nl * y, int64_t n);
void quantize_row_q2_K_ref(const float * x, block_q2_K * y, int64_t n);
void quantize_row_q3_K_ref(const float * x, block_q3_K * y, int64_t n);
void quantize_row_q4_K_ref(const float * x, block_q4_K * y, int64_t n);
void quantize_row_q5_K_ref(const float * x, block_q5_K * y, int64_t n);
void quantize_row_q6_K_ref(const float * x, block_q6_K * y, int64_t n);
void quantize_row_q8_K_ref(const float * x, block_q8_K * y, int64_t n);
void quantize_row_iq4_xs_ref(const float * x, block_iq4_xs * y, int64_t n);

// ---- dequantization ------------------------------------------------------------------------------
void dequantize_row_q4_0(const block_q4_0 * x, float * y, int64_t n);
void dequantize_row_q4_1(const block_q4_1 * x, float * y, int64_t n);
void dequantize_row_q5_0(const block_q5_0 * x, float * y, int64_t n);
void dequantize_row_q5_1(const block_q5_1 * x, float * y, int64_t n);
void dequantize_row_q8_0(const block_q8_0 * x, float * y, int64_t n);
void dequantize_row_q8_1(const block_q8_1 * x, float * y, int64_t n);
void dequantize_row_iq4_nl(const block_iq4_nl * x, float * y, int64_t n);
void dequantize_row_q2_K(const block_q2_K * x, float * y, int64_t n);
void dequantize_row_q3_K(const block_q3_K * x, float * y, int64_t n);
void dequantize_row_q4_K(const block_q4_K * x, float * y, int64_t n);
void dequantize_row_q5_K(const block_q5_K * x, float * y, int64_t n);
void dequantize_row_q6_K(const block_q6_K * x, float * y, int64_t n);
void dequantize_row_q8_K(const block_q8_K * x, float * y, int64_t n);
void dequantize_row_iq4_xs(const block_iq4_xs * x, float * y, int64_t n);

// ---- scalar reference dot products: *s = dot(weights vx, activations vy), n elements -----------
// Pairing as ggml: q4_0/q5_0/q8_0/iq4_nl with q8_0; q4_1/q5_1/q8_1 with q8_1; K types and iq4_xs with q8_K.
void ggml_vec_dot_q4_0_q8_0_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_q4_1_q8_1_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_q5_0_q8_0_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_q5_1_q8_1_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_q8_0_q8_0_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_q8_1_q8_1_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_iq4_nl_q8_0_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_q2_K_q8_K_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_q3_K_q8_K_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_q4_K_q8_K_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_q5_K_q8_K_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_q6_K_q8_K_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_q8_K_q8_K_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_iq4_xs_q8_K_ref(int n, float * s, const void * vx, const void * vy);

#ifdef __cplusplus
}
#endif
