// Quantized block formats (bit-exact to the GGUF layouts) and their scalar reference code:
// quantize (float -> blocks, our own error-minimizing search), dequantize (blocks -> float, exactly
// as the format defines it) and dot products against quantized activations. The scalar code here
// is the oracle for every SIMD kernel in ggml-cpu/quants-*.cpp. Internal: not installed.
#pragma once

#include "ggml.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
#define QK_MXFP4     32
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

// x[j] = 2^(e - 128) * kvalues_mxfp4[nibble_j] (OCP MX FP4: E8M0 shared exponent, E2M1 elements held
// doubled as integers so the codebook is int8); nibble layout as q4_0
typedef struct {
    uint8_t e;
    uint8_t qs[QK_MXFP4 / 2];
} block_mxfp4;

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

// ---- ternary super-blocks: x = d * (t - 1), t in {0, 1, 2} --------------------------------------
// Trits packed in base 3, five per byte (qs) and four per byte (qh). A byte holds ceil(v * 256 / 243)
// where v is the base-3 number whose most significant digit is the first trit; trit k (0-based) is then
// ((uint8_t) (byte * 3^k) * 3) >> 8. Element order: qs[0..31] trit k -> element 32k + m (byte m),
// qs[32..47] trit k -> 160 + 16k + m, qh[0..3] trit k -> 240 + 4k + m (qh trit 4 is unused, zero).
typedef struct {
    uint8_t     qs[(QK_K - 4 * QK_K / 64) / 5];
    uint8_t     qh[QK_K / 64];
    ggml_fp16_t d;
} block_tq1_0;

// 2 bits per element: byte 32j + m holds elements 128j + 32l + m in bits 2l..2l+1
typedef struct {
    uint8_t     qs[QK_K / 4];
    ggml_fp16_t d;
} block_tq2_0;

// ---- i-quants: 256-element super-blocks over codebook grids (ggml-iq-grids.h) -------------------
// A group of 8 (or 4) elements is one grid entry chosen by an index, with a sign per element. Sign fields of
// 7 bits get their 8th sign from the parity (an even count of minus signs). Scales are odd: s -> 2s + 1.
// Sub-block of 32 elements ib: x = d * (2s + 1) / 8 * grid[aux8[l]][j] * sign, with 8 bytes per ib read as
// two u32: bytes 0..3 the four grid indices, word 1 bits 7l.. the sign fields and bits 28..31 s.
typedef struct {
    ggml_fp16_t d;
    uint16_t    qs[QK_K / 8];
} block_iq2_xxs;

// qs[4ib + l]: 9-bit grid index + 7-bit sign field; scales[ib]: s of elements 0..15 (low nibble) and
// 16..31 (high nibble); x = d * (2s + 1) / 8 * grid * sign
typedef struct {
    ggml_fp16_t d;
    uint16_t    qs[QK_K / 8];
    uint8_t     scales[QK_K / 32];
} block_iq2_xs;

// qs[0..31]: low 8 bits of the 10-bit grid indices (bits 8..9: qh[ib] bits 2l..2l+1); qs[32..63]: 8-bit
// sign masks; scales as iq2_xs
typedef struct {
    ggml_fp16_t d;
    uint8_t     qs[QK_K / 4];
    uint8_t     qh[QK_K / 32];
    uint8_t     scales[QK_K / 32];
} block_iq2_s;

// qs[0..63]: 8-bit indices of 4-element grid entries (two per group of 8); qs[64..95]: one u32 per ib with
// four 7-bit sign fields and s in bits 28..31; x = d * (2s + 1) / 4 * grid * sign
typedef struct {
    ggml_fp16_t d;
    uint8_t     qs[3 * QK_K / 8];
} block_iq3_xxs;

// 9-bit indices of 4-element entries (bit 8 from qh[ib] bit 2l / 2l+1), 8-bit sign masks, one 4-bit s per
// ib (nibble ib % 2 of scales[ib / 2]); x = d * (2s + 1) * grid * sign
typedef struct {
    ggml_fp16_t d;
    uint8_t     qs[QK_K / 4];
    uint8_t     qh[QK_K / 32];
    uint8_t     signs[QK_K / 8];
    uint8_t     scales[QK_K / 64];
} block_iq3_s;

// 11-bit indices of 8-element ternary entries (low 8 bits in qs, high 3 in qh[ib] bits 3l..3l+2); qh[ib]
// bits 12..14: s, bit 15: sign of delta; x = d * (2s + 1) * (grid +- 1/8)
typedef struct {
    ggml_fp16_t d;
    uint8_t     qs[QK_K / 8];
    uint16_t    qh[QK_K / 32];
} block_iq1_s;

// as iq1_s with a 3-bit s per 16 elements and a delta sign per 8; the fp16 d is spread over the top
// nibbles of the four u16 scales
typedef struct {
    uint8_t qs[QK_K / 8];
    uint8_t qh[QK_K / 16];
    uint8_t scales[QK_K / 32];
} block_iq1_m;

// the MXFP4 codebook (E2M1 values times two)
extern const int8_t ggml_kvalues_mxfp4[16];

// 2^(e - 128): the MXFP4 block scale halved, matching the doubled codebook (e = 0 and 1 are subnormal)
static inline float ggml_e8m0_to_fp32_half(uint8_t e) {
    const uint32_t bits = e < 2 ? 0x00200000u << e : (uint32_t) (e - 1) << 23;
    float          f;
    memcpy(&f, &bits, 4);
    return f;
}

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
void quantize_row_mxfp4_ref(const float * x, block_mxfp4 * y, int64_t n);
void quantize_row_tq1_0_ref(const float * x, block_tq1_0 * y, int64_t n);
void quantize_row_tq2_0_ref(const float * x, block_tq2_0 * y, int64_t n);

// ---- importance-weighted quantization (same block format): w holds one positive weight per element
// of x (ggml_qsearch_row_weights of the imatrix row); the scale searches minimize sum w*(x - q)^2.
void quantize_row_q4_0_imat(const float * x, block_q4_0 * y, int64_t n, const float * w);
void quantize_row_q4_1_imat(const float * x, block_q4_1 * y, int64_t n, const float * w);
void quantize_row_q5_0_imat(const float * x, block_q5_0 * y, int64_t n, const float * w);
void quantize_row_q5_1_imat(const float * x, block_q5_1 * y, int64_t n, const float * w);
void quantize_row_iq4_nl_imat(const float * x, block_iq4_nl * y, int64_t n, const float * w);
void quantize_row_q2_K_imat(const float * x, block_q2_K * y, int64_t n, const float * w);
void quantize_row_q3_K_imat(const float * x, block_q3_K * y, int64_t n, const float * w);
void quantize_row_q4_K_imat(const float * x, block_q4_K * y, int64_t n, const float * w);
void quantize_row_q5_K_imat(const float * x, block_q5_K * y, int64_t n, const float * w);
void quantize_row_q6_K_imat(const float * x, block_q6_K * y, int64_t n, const float * w);
void quantize_row_iq4_xs_imat(const float * x, block_iq4_xs * y, int64_t n, const float * w);

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
void dequantize_row_mxfp4(const block_mxfp4 * x, float * y, int64_t n);
void dequantize_row_tq1_0(const block_tq1_0 * x, float * y, int64_t n);
void dequantize_row_tq2_0(const block_tq2_0 * x, float * y, int64_t n);
void dequantize_row_iq2_xxs(const block_iq2_xxs * x, float * y, int64_t n);
void dequantize_row_iq2_xs(const block_iq2_xs * x, float * y, int64_t n);
void dequantize_row_iq2_s(const block_iq2_s * x, float * y, int64_t n);
void dequantize_row_iq3_xxs(const block_iq3_xxs * x, float * y, int64_t n);
void dequantize_row_iq3_s(const block_iq3_s * x, float * y, int64_t n);
void dequantize_row_iq1_s(const block_iq1_s * x, float * y, int64_t n);
void dequantize_row_iq1_m(const block_iq1_m * x, float * y, int64_t n);

// ---- scalar reference dot products: *s = dot(weights vx, activations vy), n elements -----------
// Pairing as ggml: q4_0/q5_0/q8_0/iq4_nl/mxfp4 with q8_0; q4_1/q5_1/q8_1 with q8_1; K types, iq4_xs, tq1_0 and tq2_0
// with q8_K.
// Float weights against F32 activations, summed in double: the oracle should be more accurate than the
// kernels it checks.
void ggml_vec_dot_f32_f32_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_f16_f32_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_bf16_f32_ref(int n, float * s, const void * vx, const void * vy);
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
void ggml_vec_dot_mxfp4_q8_0_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_tq1_0_q8_K_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_tq2_0_q8_K_ref(int n, float * s, const void * vx, const void * vy);

// i-quants (all against q8_K)
void ggml_vec_dot_iq2_xxs_q8_K_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_iq2_xs_q8_K_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_iq2_s_q8_K_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_iq3_xxs_q8_K_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_iq3_s_q8_K_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_iq1_s_q8_K_ref(int n, float * s, const void * vx, const void * vy);
void ggml_vec_dot_iq1_m_q8_K_ref(int n, float * s, const void * vx, const void * vy);

// Decodes the 256 trits (0..2) of a tq1_0 block in element order.
void ggml_tq1_0_trits(const block_tq1_0 * b, uint8_t * t256);

#ifdef __cplusplus
}
#endif
