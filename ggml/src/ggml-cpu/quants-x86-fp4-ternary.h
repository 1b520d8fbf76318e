// x86 dot products of MXFP4 (x q8_0) and the ternary types TQ1_0 / TQ2_0 (x q8_K). Included after
// quants-x86-kernels.h by quants-x86.avx2.cpp and quants-x86.avx512.cpp (same compile-twice rules:
// internal linkage only); the scalar oracles are in ggml-quants-fp4-ternary.c.
#pragma once

#include "quants-x86-kernels.h"

namespace {

void vec_dot_mxfp4_q8_0_simd(int n, float * s, const void * vx, const void * vy) {
    const block_mxfp4 * x   = (const block_mxfp4 *) vx;
    const block_q8_0 *  y   = (const block_q8_0 *) vy;
    const __m128i       t   = _mm_loadu_si128((const __m128i *) ggml_kvalues_mxfp4);
    const __m256i       tt  = _mm256_set_m128i(t, t);
    __m256              acc = _mm256_setzero_ps();
    for (int ib = 0; ib < n / QK_MXFP4; ib++) {
        const __m256i v = _mm256_shuffle_epi8(tt, unpack_nibbles16(x[ib].qs));
        const __m256i p = dot_s8s8(v, _mm256_loadu_si256((const __m256i *) y[ib].qs));
        const float   d = ggml_e8m0_to_fp32_half(x[ib].e) * fp16_to_f32(y[ib].d);
        acc             = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), _mm256_set1_ps(d), acc);
    }
    *s = hsum_f32_8(acc);
}

// sum of the 256 activations of a q8_K block, from its 16 int16 block sums
inline int q8_K_bsum(const block_q8_K * y) {
    const __m256i b = _mm256_loadu_si256((const __m256i *) y->bsums);
    return hsum_i32_8(_mm256_madd_epi16(b, _mm256_set1_epi16(1)));
}

void vec_dot_tq2_0_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    const block_tq2_0 * x    = (const block_tq2_0 *) vx;
    const block_q8_K *  y    = (const block_q8_K *) vy;
    const __m256i       m3   = _mm256_set1_epi8(3);
    float               sumf = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        __m256i acc = _mm256_setzero_si256();
        for (int j = 0; j < 2; j++) {
            const __m256i q = _mm256_loadu_si256((const __m256i *) (x[ib].qs + 32 * j));
            for (int l = 0; l < 4; l++) {
                const __m256i u = _mm256_and_si256(_mm256_srli_epi16(q, 2 * l), m3);
                acc = dot_u8s8_acc(acc, u, _mm256_loadu_si256((const __m256i *) (y[ib].qs + 128 * j + 32 * l)));
            }
        }
        sumf += fp16_to_f32(x[ib].d) * y[ib].d * (float) (hsum_i32_8(acc) - q8_K_bsum(&y[ib]));
    }
    *s = sumf;
}

// trit k of each byte, ((uint8_t) (byte * 3^k) * 3) >> 8, with the power given per 16-bit lane: bytes
// are taken as even and odd halves of the 16-bit lanes so that the products cannot carry into each other
inline __m256i tq1_trits(__m256i q, __m256i pow3) {
    const __m256i lo  = _mm256_set1_epi16(0xFF);
    const __m256i th  = _mm256_set1_epi16(3);
    const __m256i ev  = _mm256_and_si256(_mm256_mullo_epi16(_mm256_and_si256(q, lo), pow3), lo);
    const __m256i od  = _mm256_and_si256(_mm256_mullo_epi16(_mm256_srli_epi16(q, 8), pow3), lo);
    const __m256i tev = _mm256_srli_epi16(_mm256_mullo_epi16(ev, th), 8);
    const __m256i tod = _mm256_srli_epi16(_mm256_mullo_epi16(od, th), 8);
    return _mm256_or_si256(tev, _mm256_slli_epi16(tod, 8));
}

void vec_dot_tq1_0_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    static const int16_t pow3[5] = {1, 3, 9, 27, 81};
    const block_tq1_0 *  x       = (const block_tq1_0 *) vx;
    const block_q8_K *   y       = (const block_q8_K *) vy;
    float                sumf    = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        const int8_t * q8  = y[ib].qs;
        __m256i        acc = _mm256_setzero_si256();
        // qs[0..31]: trit k -> elements 32k .. 32k + 31
        const __m256i q32 = _mm256_loadu_si256((const __m256i *) x[ib].qs);
        for (int k = 0; k < 5; k++) {
            const __m256i t = tq1_trits(q32, _mm256_set1_epi16(pow3[k]));
            acc             = dot_u8s8_acc(acc, t, _mm256_loadu_si256((const __m256i *) (q8 + 32 * k)));
        }
        // qs[32..47] in both halves: trits k and k + 1 -> elements 160 + 16k .. 160 + 16k + 31
        const __m256i q16 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *) (x[ib].qs + 32)));
        for (int k = 0; k < 4; k += 2) {
            const __m256i p = _mm256_set_m128i(_mm_set1_epi16(pow3[k + 1]), _mm_set1_epi16(pow3[k]));
            acc = dot_u8s8_acc(acc, tq1_trits(q16, p), _mm256_loadu_si256((const __m256i *) (q8 + 160 + 16 * k)));
        }
        // the last 32: trit 4 of qs[32..47] (elements 224..239) and the 16 trits of qh (240..255)
        alignas(32) uint8_t tail[32];
        for (int m = 0; m < 16; m++) {
            tail[m] = (uint8_t) ((((uint8_t) (x[ib].qs[32 + m] * 81)) * 3) >> 8);
        }
        for (int k = 0; k < 4; k++) {
            for (int m = 0; m < 4; m++) {
                tail[16 + 4 * k + m] = (uint8_t) ((((uint8_t) (x[ib].qh[m] * pow3[k])) * 3) >> 8);
            }
        }
        acc = dot_u8s8_acc(acc, _mm256_load_si256((const __m256i *) tail),
                           _mm256_loadu_si256((const __m256i *) (q8 + 224)));
        sumf += fp16_to_f32(x[ib].d) * y[ib].d * (float) (hsum_i32_8(acc) - q8_K_bsum(&y[ib]));
    }
    *s = sumf;
}

// Installs the kernels of this file (and the activation quantizers their vec_dot types need).
inline void fill_x86_table_fp4_ternary(ggml_cpu_type_traits * t) {
    t[GGML_TYPE_MXFP4].from_float = quantize_row_q8_0_simd;
    t[GGML_TYPE_TQ1_0].from_float = quantize_row_q8_K_simd;
    t[GGML_TYPE_TQ2_0].from_float = quantize_row_q8_K_simd;
    t[GGML_TYPE_MXFP4].vec_dot    = vec_dot_mxfp4_q8_0_simd;
    t[GGML_TYPE_TQ1_0].vec_dot    = vec_dot_tq1_0_q8_K_simd;
    t[GGML_TYPE_TQ2_0].vec_dot    = vec_dot_tq2_0_q8_K_simd;
}

}  // namespace
