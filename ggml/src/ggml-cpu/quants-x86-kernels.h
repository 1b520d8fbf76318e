// x86 SIMD dot products and activation quantizers, written once and compiled twice: included by
// quants-x86.avx2.cpp (AVX2+FMA+F16C) and quants-x86.avx512.cpp (+ AVX-512 F/BW/VL/VNNI), which pick
// the integer dot primitive below. Everything here has internal linkage (anonymous namespace, no STL),
// so the two compilations can never be merged by the linker into a function the CPU cannot run.
#pragma once

#include "cpu-type-traits.h"

extern "C" {
#include "ggml-quants.h"
}

#include <immintrin.h>
#include <math.h>
#include <string.h>

namespace {

#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
#    define QK_HAVE_VNNI 1
#else
#    define QK_HAVE_VNNI 0
#endif

inline float fp16_to_f32(ggml_fp16_t h) {
    return _cvtsh_ss(h);
}

inline float hsum_f32_8(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s        = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s        = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

inline int hsum_i32_8(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s         = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s         = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}

// 8 int32 partial sums of u (unsigned bytes, <= 127 so that the AVX2 int16 pair sums cannot saturate)
// times s (signed bytes); lane i covers bytes 4i..4i+3 in both variants.
inline __m256i dot_u8s8(__m256i u, __m256i s) {
#if QK_HAVE_VNNI
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, s);
#else
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
#endif
}

// acc + dot_u8s8(u, s)
inline __m256i dot_u8s8_acc(__m256i acc, __m256i u, __m256i s) {
#if QK_HAVE_VNNI
    return _mm256_dpbusd_epi32(acc, u, s);
#else
    return _mm256_add_epi32(acc, dot_u8s8(u, s));
#endif
}

// dot_u8s8 with each half (16 bytes) multiplied by its own small scale (sc_lo for bytes 0..15)
inline __m256i dot_u8s8_scaled(__m256i u, __m256i s, int sc_lo, int sc_hi) {
#if QK_HAVE_VNNI
    const __m256i sc = _mm256_set_m128i(_mm_set1_epi32(sc_hi), _mm_set1_epi32(sc_lo));
    return _mm256_mullo_epi32(_mm256_dpbusd_epi32(_mm256_setzero_si256(), u, s), sc);
#else
    const __m256i sc = _mm256_set_m128i(_mm_set1_epi16((short) sc_hi), _mm_set1_epi16((short) sc_lo));
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), sc);
#endif
}

// signed x signed bytes (x in -127..127 or -8..7): |x| . (y with x's sign)
inline __m256i dot_s8s8(__m256i x, __m256i y) {
    return dot_u8s8(_mm256_sign_epi8(x, x), _mm256_sign_epi8(y, x));
}

// 32 nibbles of 16 bytes: low nibbles in bytes 0..15, high nibbles in 16..31
inline __m256i unpack_nibbles16(const uint8_t * p) {
    const __m128i q = _mm_loadu_si128((const __m128i *) p);
    return _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(q, 4), q), _mm256_set1_epi8(0x0F));
}

// ---- F32 / F16 / BF16 weights against F32 activations ------------------------------------------
#if defined(__AVX512F__)
inline __m512 load_f16x16(const ggml_fp16_t * p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *) p));
}
inline __m512 load_bf16x16(const ggml_bf16_t * p) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *) p)), 16));
}
inline __m512 load_f16x16_mask(const ggml_fp16_t * p, __mmask16 m) {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p));
}
inline __m512 load_bf16x16_mask(const ggml_bf16_t * p, __mmask16 m) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p)), 16));
}
inline __m512 load_f32x16(const float * p) {
    return _mm512_loadu_ps(p);
}
inline __m512 load_f32x16_mask(const float * p, __mmask16 m) {
    return _mm512_maskz_loadu_ps(m, p);
}

// 64 elements per step in 4 independent accumulators; the tail (< 16 each) uses masked loads
#    define QK_DOT_WIDE(NAME, T, LOAD, LOADM)                                                              \
        void NAME(int n, float * s, const void * vx, const void * vy) {                                    \
            const T *     x  = (const T *) vx;                                                             \
            const float * y  = (const float *) vy;                                                         \
            __m512        a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;                             \
            int           i = 0;                                                                           \
            for (; i + 64 <= n; i += 64) {                                                                 \
                a0 = _mm512_fmadd_ps(LOAD(x + i), _mm512_loadu_ps(y + i), a0);                             \
                a1 = _mm512_fmadd_ps(LOAD(x + i + 16), _mm512_loadu_ps(y + i + 16), a1);                   \
                a2 = _mm512_fmadd_ps(LOAD(x + i + 32), _mm512_loadu_ps(y + i + 32), a2);                   \
                a3 = _mm512_fmadd_ps(LOAD(x + i + 48), _mm512_loadu_ps(y + i + 48), a3);                   \
            }                                                                                              \
            for (; i + 16 <= n; i += 16) {                                                                 \
                a0 = _mm512_fmadd_ps(LOAD(x + i), _mm512_loadu_ps(y + i), a0);                             \
            }                                                                                              \
            if (i < n) {                                                                                   \
                const __mmask16 m = (__mmask16) ((1u << (n - i)) - 1);                                     \
                a1                = _mm512_fmadd_ps(LOADM(x + i, m), _mm512_maskz_loadu_ps(m, y + i), a1); \
            }                                                                                              \
            *s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));        \
        }
QK_DOT_WIDE(vec_dot_f32_simd, float, load_f32x16, load_f32x16_mask)
QK_DOT_WIDE(vec_dot_f16_simd, ggml_fp16_t, load_f16x16, load_f16x16_mask)
QK_DOT_WIDE(vec_dot_bf16_simd, ggml_bf16_t, load_bf16x16, load_bf16x16_mask)
#    undef QK_DOT_WIDE
#else
inline __m256 load_f16x8(const ggml_fp16_t * p) {
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) p));
}
inline __m256 load_bf16x8(const ggml_bf16_t * p) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *) p)), 16));
}
inline __m256 load_f32x8(const float * p) {
    return _mm256_loadu_ps(p);
}
inline float f16_scalar(ggml_fp16_t v) {
    return _cvtsh_ss(v);
}
inline float bf16_scalar(ggml_bf16_t v) {
    return ggml_bf16_to_fp32(v);
}
inline float f32_scalar(float v) {
    return v;
}

#    define QK_DOT_WIDE(NAME, T, LOAD, SCALAR)                                                   \
        void NAME(int n, float * s, const void * vx, const void * vy) {                          \
            const T *     x  = (const T *) vx;                                                   \
            const float * y  = (const float *) vy;                                               \
            __m256        a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;                   \
            int           i = 0;                                                                 \
            for (; i + 32 <= n; i += 32) {                                                       \
                a0 = _mm256_fmadd_ps(LOAD(x + i), _mm256_loadu_ps(y + i), a0);                   \
                a1 = _mm256_fmadd_ps(LOAD(x + i + 8), _mm256_loadu_ps(y + i + 8), a1);           \
                a2 = _mm256_fmadd_ps(LOAD(x + i + 16), _mm256_loadu_ps(y + i + 16), a2);         \
                a3 = _mm256_fmadd_ps(LOAD(x + i + 24), _mm256_loadu_ps(y + i + 24), a3);         \
            }                                                                                    \
            for (; i + 8 <= n; i += 8) {                                                         \
                a0 = _mm256_fmadd_ps(LOAD(x + i), _mm256_loadu_ps(y + i), a0);                   \
            }                                                                                    \
            float sum = hsum_f32_8(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3))); \
            for (; i < n; i++) {                                                                 \
                sum += SCALAR(x[i]) * y[i];                                                      \
            }                                                                                    \
            *s = sum;                                                                            \
        }
QK_DOT_WIDE(vec_dot_f32_simd, float, load_f32x8, f32_scalar)
QK_DOT_WIDE(vec_dot_f16_simd, ggml_fp16_t, load_f16x8, f16_scalar)
QK_DOT_WIDE(vec_dot_bf16_simd, ggml_bf16_t, load_bf16x8, bf16_scalar)
#    undef QK_DOT_WIDE
#endif

// ---- activation quantizers (bit-exact with quantize_row_q8_0_ref / q8_K_ref) --------------------
// 32 floats -> 32 int8 of round(x * id); the same float multiply and round-to-nearest-even as lrintf
inline __m256i quantize_32(const float * x, __m256 id) {
    const __m256i i0 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + 0), id));
    const __m256i i1 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + 8), id));
    const __m256i i2 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + 16), id));
    const __m256i i3 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + 24), id));
    // packs work per 128-bit lane; the final permute restores element order
    const __m256i p01 = _mm256_packs_epi32(i0, i1);
    const __m256i p23 = _mm256_packs_epi32(i2, i3);
    const __m256i p   = _mm256_packs_epi16(p01, p23);
    return _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

inline __m256 abs_ps(__m256 v) {
    return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v);
}

inline float amax_f32(const float * x, int n) {
    __m256 m = _mm256_setzero_ps();
    for (int i = 0; i < n; i += 8) {
        m = _mm256_max_ps(m, abs_ps(_mm256_loadu_ps(x + i)));
    }
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    s        = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s        = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

void quantize_row_q8_0_simd(const float * x, void * vy, int64_t n) {
    block_q8_0 * y = (block_q8_0 *) vy;
    for (int64_t ib = 0; ib < n / QK8_0; ib++, x += QK8_0) {
        const float amax = amax_f32(x, QK8_0);
        const float d    = amax / 127.0f;
        const float id   = d != 0.0f ? 1.0f / d : 0.0f;
        y[ib].d          = ggml_fp32_to_fp16(d);
        _mm256_storeu_si256((__m256i *) y[ib].qs, quantize_32(x, _mm256_set1_ps(id)));
    }
}

void quantize_row_q8_K_simd(const float * x, void * vy, int64_t n) {
    block_q8_K * y = (block_q8_K *) vy;
    for (int64_t ib = 0; ib < n / QK_K; ib++, x += QK_K) {
        const float  amax = amax_f32(x, QK_K);
        const float  d    = amax / 127.0f;
        const __m256 id   = _mm256_set1_ps(d != 0.0f ? 1.0f / d : 0.0f);
        y[ib].d           = d;
        for (int j = 0; j < QK_K / 32; j++) {
            const __m256i q = quantize_32(x + 32 * j, id);
            _mm256_storeu_si256((__m256i *) (y[ib].qs + 32 * j), q);
            // sums of each 16 bytes: widen to int16 and add pairs down to one value per half
            const __m256i w    = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), q), _mm256_set1_epi16(1));
            const __m256i h    = _mm256_hadd_epi32(w, w);
            const __m256i g    = _mm256_hadd_epi32(h, h);
            y[ib].bsums[2 * j] = (int16_t) _mm256_extract_epi32(g, 0);
            y[ib].bsums[2 * j + 1] = (int16_t) _mm256_extract_epi32(g, 4);
        }
    }
}

// ---- 32-element block types against q8_0 ----------------------------------------------------------
void vec_dot_q8_0_q8_0_simd(int n, float * s, const void * vx, const void * vy) {
    const block_q8_0 * x    = (const block_q8_0 *) vx;
    const block_q8_0 * y    = (const block_q8_0 *) vy;
    const int          nb   = n / QK8_0;
    __m256             acc0 = _mm256_setzero_ps(), acc1 = acc0;
    int                ib = 0;
    for (; ib + 1 < nb; ib += 2) {
        const __m256i p0 =
            dot_s8s8(_mm256_loadu_si256((const __m256i *) x[ib].qs), _mm256_loadu_si256((const __m256i *) y[ib].qs));
        const __m256i p1 = dot_s8s8(_mm256_loadu_si256((const __m256i *) x[ib + 1].qs),
                                    _mm256_loadu_si256((const __m256i *) y[ib + 1].qs));
        acc0 =
            _mm256_fmadd_ps(_mm256_cvtepi32_ps(p0), _mm256_set1_ps(fp16_to_f32(x[ib].d) * fp16_to_f32(y[ib].d)), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p1),
                               _mm256_set1_ps(fp16_to_f32(x[ib + 1].d) * fp16_to_f32(y[ib + 1].d)), acc1);
    }
    for (; ib < nb; ib++) {
        const __m256i p0 =
            dot_s8s8(_mm256_loadu_si256((const __m256i *) x[ib].qs), _mm256_loadu_si256((const __m256i *) y[ib].qs));
        acc0 =
            _mm256_fmadd_ps(_mm256_cvtepi32_ps(p0), _mm256_set1_ps(fp16_to_f32(x[ib].d) * fp16_to_f32(y[ib].d)), acc0);
    }
    *s = hsum_f32_8(_mm256_add_ps(acc0, acc1));
}

// q4_0 codes are nibble - 8: dot(nibble, y) - 8 * sum(y); with VNNI the second term is one more vpdpbusd
inline __m256i dot_q4_0_block(const block_q4_0 * x, const block_q8_0 * y) {
    const __m256i q  = unpack_nibbles16(x->qs);
    const __m256i yy = _mm256_loadu_si256((const __m256i *) y->qs);
#if QK_HAVE_VNNI
    return _mm256_sub_epi32(dot_u8s8(q, yy), dot_u8s8(_mm256_set1_epi8(8), yy));
#else
    return dot_s8s8(_mm256_sub_epi8(q, _mm256_set1_epi8(8)), yy);
#endif
}

void vec_dot_q4_0_q8_0_simd(int n, float * s, const void * vx, const void * vy) {
    const block_q4_0 * x    = (const block_q4_0 *) vx;
    const block_q8_0 * y    = (const block_q8_0 *) vy;
    const int          nb   = n / QK8_0;
    __m256             acc0 = _mm256_setzero_ps(), acc1 = acc0;
    int                ib = 0;
    for (; ib + 1 < nb; ib += 2) {
        const __m256i p0 = dot_q4_0_block(&x[ib], &y[ib]);
        const __m256i p1 = dot_q4_0_block(&x[ib + 1], &y[ib + 1]);
        acc0 =
            _mm256_fmadd_ps(_mm256_cvtepi32_ps(p0), _mm256_set1_ps(fp16_to_f32(x[ib].d) * fp16_to_f32(y[ib].d)), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p1),
                               _mm256_set1_ps(fp16_to_f32(x[ib + 1].d) * fp16_to_f32(y[ib + 1].d)), acc1);
    }
    for (; ib < nb; ib++) {
        const __m256i p0 = dot_q4_0_block(&x[ib], &y[ib]);
        acc0 =
            _mm256_fmadd_ps(_mm256_cvtepi32_ps(p0), _mm256_set1_ps(fp16_to_f32(x[ib].d) * fp16_to_f32(y[ib].d)), acc0);
    }
    *s = hsum_f32_8(_mm256_add_ps(acc0, acc1));
}

// bit 4 of each byte from the 32-bit mask qh (bit j -> byte j): spread with a shuffle, test with a mask
inline __m256i q5_high_bits(const uint8_t * qh_bytes) {
    uint32_t qh;
    memcpy(&qh, qh_bytes, 4);
    const __m256i shuf = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3,
                                          3, 3, 3, 3, 3, 3);
    const __m256i bits = _mm256_set1_epi64x((long long) 0x8040201008040201ULL);
    const __m256i v    = _mm256_shuffle_epi8(_mm256_set1_epi32((int) qh), shuf);
    const __m256i t    = _mm256_cmpeq_epi8(_mm256_and_si256(v, bits), bits);
    return _mm256_and_si256(t, _mm256_set1_epi8(0x10));
}

void vec_dot_q5_0_q8_0_simd(int n, float * s, const void * vx, const void * vy) {
    const block_q5_0 * x   = (const block_q5_0 *) vx;
    const block_q8_0 * y   = (const block_q8_0 *) vy;
    __m256             acc = _mm256_setzero_ps();
    for (int ib = 0; ib < n / QK8_0; ib++) {
        const __m256i q  = _mm256_or_si256(unpack_nibbles16(x[ib].qs), q5_high_bits(x[ib].qh));
        const __m256i yy = _mm256_loadu_si256((const __m256i *) y[ib].qs);
        const __m256i p  = dot_s8s8(_mm256_sub_epi8(q, _mm256_set1_epi8(16)), yy);
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), _mm256_set1_ps(fp16_to_f32(x[ib].d) * fp16_to_f32(y[ib].d)), acc);
    }
    *s = hsum_f32_8(acc);
}

void vec_dot_q4_1_q8_1_simd(int n, float * s, const void * vx, const void * vy) {
    const block_q4_1 * x   = (const block_q4_1 *) vx;
    const block_q8_1 * y   = (const block_q8_1 *) vy;
    __m256             acc = _mm256_setzero_ps();
    float              off = 0.0f;
    for (int ib = 0; ib < n / QK8_1; ib++) {
        const __m256i p = dot_u8s8(unpack_nibbles16(x[ib].qs), _mm256_loadu_si256((const __m256i *) y[ib].qs));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), _mm256_set1_ps(fp16_to_f32(x[ib].d) * fp16_to_f32(y[ib].d)), acc);
        off += fp16_to_f32(x[ib].m) * fp16_to_f32(y[ib].s);
    }
    *s = hsum_f32_8(acc) + off;
}

void vec_dot_q5_1_q8_1_simd(int n, float * s, const void * vx, const void * vy) {
    const block_q5_1 * x   = (const block_q5_1 *) vx;
    const block_q8_1 * y   = (const block_q8_1 *) vy;
    __m256             acc = _mm256_setzero_ps();
    float              off = 0.0f;
    for (int ib = 0; ib < n / QK8_1; ib++) {
        const __m256i q = _mm256_or_si256(unpack_nibbles16(x[ib].qs), q5_high_bits(x[ib].qh));
        const __m256i p = dot_u8s8(q, _mm256_loadu_si256((const __m256i *) y[ib].qs));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), _mm256_set1_ps(fp16_to_f32(x[ib].d) * fp16_to_f32(y[ib].d)), acc);
        off += fp16_to_f32(x[ib].m) * fp16_to_f32(y[ib].s);
    }
    *s = hsum_f32_8(acc) + off;
}

// iq4_nl: the codebook lookup is one byte shuffle per 16 codes
inline __m256i iq4nl_lookup(__m256i nibbles) {
    const __m128i t = _mm_loadu_si128((const __m128i *) ggml_kvalues_iq4nl);
    return _mm256_shuffle_epi8(_mm256_set_m128i(t, t), nibbles);
}

void vec_dot_iq4_nl_q8_0_simd(int n, float * s, const void * vx, const void * vy) {
    const block_iq4_nl * x   = (const block_iq4_nl *) vx;
    const block_q8_0 *   y   = (const block_q8_0 *) vy;
    __m256               acc = _mm256_setzero_ps();
    for (int ib = 0; ib < n / QK8_0; ib++) {
        const __m256i v = iq4nl_lookup(unpack_nibbles16(x[ib].qs));
        const __m256i p = dot_s8s8(v, _mm256_loadu_si256((const __m256i *) y[ib].qs));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), _mm256_set1_ps(fp16_to_f32(x[ib].d) * fp16_to_f32(y[ib].d)), acc);
    }
    *s = hsum_f32_8(acc);
}

// ---- K-quants against q8_K -----------------------------------------------------------------------
// the 8 6-bit scales and mins of q4_K / q5_K, unpacked four at a time with 32-bit masks:
// scales as 8 int32 lanes, mins as 16 int16 lanes (each min twice, matching the pairs of bsums)
inline void unpack_scales_k4(const uint8_t * p, __m256i * sc32, __m256i * mn16) {
    uint32_t u0, u1, u2;
    memcpy(&u0, p, 4);
    memcpy(&u1, p + 4, 4);
    memcpy(&u2, p + 8, 4);
    const uint32_t s03 = u0 & 0x3f3f3f3fu;
    const uint32_t m03 = u1 & 0x3f3f3f3fu;
    const uint32_t s47 = (u2 & 0x0f0f0f0fu) | (((u0 >> 6) & 0x03030303u) << 4);
    const uint32_t m47 = ((u2 >> 4) & 0x0f0f0f0fu) | (((u1 >> 6) & 0x03030303u) << 4);
    const __m128i  sc8 = _mm_cvtsi64_si128((long long) (((uint64_t) s47 << 32) | s03));
    const __m128i  mn8 = _mm_cvtsi64_si128((long long) (((uint64_t) m47 << 32) | m03));
    *sc32              = _mm256_cvtepu8_epi32(sc8);
    *mn16              = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(mn8, mn8));
}

// dot of 32 codes with one sub-block scale taken from lane j of sc32
inline __m256i dot_u8s8_lane_scaled(__m256i u, __m256i s, __m256i sc32, int j) {
    const __m256i sc = _mm256_permutevar8x32_epi32(sc32, _mm256_set1_epi32(j));
#if QK_HAVE_VNNI
    return _mm256_mullo_epi32(_mm256_dpbusd_epi32(_mm256_setzero_si256(), u, s), sc);
#else
    // int32 lane j holds a value < 64: as int16 pairs it reads (sc, 0), so madd gives sc * first of each pair;
    // duplicate into both halves instead
    const __m256i sc16 = _mm256_or_si256(sc, _mm256_slli_epi32(sc, 16));
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), sc16);
#endif
}

void vec_dot_q4_K_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    const block_q4_K * x    = (const block_q4_K *) vx;
    const block_q8_K * y    = (const block_q8_K *) vy;
    const __m256i      m4   = _mm256_set1_epi8(0x0F);
    __m256             acc  = _mm256_setzero_ps();
    __m256             accm = _mm256_setzero_ps();
    for (int ib = 0; ib < n / QK_K; ib++) {
        __m256i sc32, mn16;
        unpack_scales_k4(x[ib].scales, &sc32, &mn16);
        const uint8_t * q  = x[ib].qs;
        const int8_t *  q8 = y[ib].qs;
        __m256i         si = _mm256_setzero_si256();
        for (int c = 0; c < 4; c++) {
            const __m256i qq = _mm256_loadu_si256((const __m256i *) (q + 32 * c));
            const __m256i lo = _mm256_and_si256(qq, m4);
            const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(qq, 4), m4);
            const __m256i y0 = _mm256_loadu_si256((const __m256i *) (q8 + 64 * c));
            const __m256i y1 = _mm256_loadu_si256((const __m256i *) (q8 + 64 * c + 32));
            si               = _mm256_add_epi32(si, dot_u8s8_lane_scaled(lo, y0, sc32, 2 * c));
            si               = _mm256_add_epi32(si, dot_u8s8_lane_scaled(hi, y1, sc32, 2 * c + 1));
        }
        const float   dy = y[ib].d;
        const __m256i mm = _mm256_madd_epi16(mn16, _mm256_loadu_si256((const __m256i *) y[ib].bsums));
        acc              = _mm256_fmadd_ps(_mm256_cvtepi32_ps(si), _mm256_set1_ps(fp16_to_f32(x[ib].d) * dy), acc);
        accm             = _mm256_fmadd_ps(_mm256_cvtepi32_ps(mm), _mm256_set1_ps(fp16_to_f32(x[ib].dmin) * dy), accm);
    }
    *s = hsum_f32_8(_mm256_sub_ps(acc, accm));
}

void vec_dot_q5_K_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    const block_q5_K * x    = (const block_q5_K *) vx;
    const block_q8_K * y    = (const block_q8_K *) vy;
    const __m256i      m4   = _mm256_set1_epi8(0x0F);
    const __m256i      b4   = _mm256_set1_epi8(0x10);
    __m256             acc  = _mm256_setzero_ps();
    __m256             accm = _mm256_setzero_ps();
    for (int ib = 0; ib < n / QK_K; ib++) {
        __m256i sc32, mn16;
        unpack_scales_k4(x[ib].scales, &sc32, &mn16);
        const uint8_t * q  = x[ib].qs;
        const int8_t *  q8 = y[ib].qs;
        __m256i         hb = _mm256_loadu_si256((const __m256i *) x[ib].qh);  // bit 2c / 2c+1 -> chunk c
        __m256i         si = _mm256_setzero_si256();
        for (int c = 0; c < 4; c++) {
            const __m256i qq = _mm256_loadu_si256((const __m256i *) (q + 32 * c));
            // bring bit 0 (lo half) and bit 1 (hi half) of the current pair to bit 4
            const __m256i lo =
                _mm256_or_si256(_mm256_and_si256(qq, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 4), b4));
            const __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(qq, 4), m4),
                                               _mm256_and_si256(_mm256_slli_epi16(hb, 3), b4));
            hb               = _mm256_srli_epi16(hb, 2);
            const __m256i y0 = _mm256_loadu_si256((const __m256i *) (q8 + 64 * c));
            const __m256i y1 = _mm256_loadu_si256((const __m256i *) (q8 + 64 * c + 32));
            si               = _mm256_add_epi32(si, dot_u8s8_lane_scaled(lo, y0, sc32, 2 * c));
            si               = _mm256_add_epi32(si, dot_u8s8_lane_scaled(hi, y1, sc32, 2 * c + 1));
        }
        const float   dy = y[ib].d;
        const __m256i mm = _mm256_madd_epi16(mn16, _mm256_loadu_si256((const __m256i *) y[ib].bsums));
        acc              = _mm256_fmadd_ps(_mm256_cvtepi32_ps(si), _mm256_set1_ps(fp16_to_f32(x[ib].d) * dy), acc);
        accm             = _mm256_fmadd_ps(_mm256_cvtepi32_ps(mm), _mm256_set1_ps(fp16_to_f32(x[ib].dmin) * dy), accm);
    }
    *s = hsum_f32_8(_mm256_sub_ps(acc, accm));
}

// q6_K codes are u - 32 with u in 0..63: dot(u, y) - 32 * sum_j sc_j * bsums_j
void vec_dot_q6_K_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    const block_q6_K * x   = (const block_q6_K *) vx;
    const block_q8_K * y   = (const block_q8_K *) vy;
    const __m256i      m4  = _mm256_set1_epi8(0x0F);
    const __m256i      m30 = _mm256_set1_epi8(0x30);
    __m256             acc = _mm256_setzero_ps();
    for (int ib = 0; ib < n / QK_K; ib++) {
        const int8_t * sc = x[ib].scales;
        const int8_t * q8 = y[ib].qs;
        __m256i        si = _mm256_setzero_si256();
        for (int h = 0; h < 2; h++) {
            const __m256i l0 = _mm256_loadu_si256((const __m256i *) (x[ib].ql + 64 * h));
            const __m256i l1 = _mm256_loadu_si256((const __m256i *) (x[ib].ql + 64 * h + 32));
            const __m256i qh = _mm256_loadu_si256((const __m256i *) (x[ib].qh + 32 * h));
            const __m256i u0 =
                _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_and_si256(_mm256_slli_epi16(qh, 4), m30));
            const __m256i u1 =
                _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_and_si256(_mm256_slli_epi16(qh, 2), m30));
            const __m256i u2 =
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4), _mm256_and_si256(qh, m30));
            const __m256i  u3 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                                                _mm256_and_si256(_mm256_srli_epi16(qh, 2), m30));
            const int8_t * s8 = sc + 8 * h;
            const int8_t * y8 = q8 + 128 * h;
            si =
                _mm256_add_epi32(si, dot_u8s8_scaled(u0, _mm256_loadu_si256((const __m256i *) (y8 + 0)), s8[0], s8[1]));
            si = _mm256_add_epi32(si,
                                  dot_u8s8_scaled(u1, _mm256_loadu_si256((const __m256i *) (y8 + 32)), s8[2], s8[3]));
            si = _mm256_add_epi32(si,
                                  dot_u8s8_scaled(u2, _mm256_loadu_si256((const __m256i *) (y8 + 64)), s8[4], s8[5]));
            si = _mm256_add_epi32(si,
                                  dot_u8s8_scaled(u3, _mm256_loadu_si256((const __m256i *) (y8 + 96)), s8[6], s8[7]));
        }
        // offset term: 32 * sum_j sc_j * bsums_j, as 8 int32 lanes folded into si
        const __m256i sc16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *) sc));
        const __m256i off  = _mm256_madd_epi16(sc16, _mm256_loadu_si256((const __m256i *) y[ib].bsums));
        si                 = _mm256_sub_epi32(si, _mm256_slli_epi32(off, 5));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(si), _mm256_set1_ps(fp16_to_f32(x[ib].d) * y[ib].d), acc);
    }
    *s = hsum_f32_8(acc);
}

// q3_K codes are u - 4 with u in 0..7 (low 2 bits in qs, bit 2 in hmask): dot(u, y) - 4 * sum sc_j bsums_j
void vec_dot_q3_K_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    const block_q3_K * x   = (const block_q3_K *) vx;
    const block_q8_K * y   = (const block_q8_K *) vy;
    const __m256i      m3  = _mm256_set1_epi8(3);
    const __m256i      b2  = _mm256_set1_epi8(4);
    __m256             acc = _mm256_setzero_ps();
    for (int ib = 0; ib < n / QK_K; ib++) {
        int8_t sc[16];
        ggml_q3_K_scales(x[ib].scales, sc);
        const int8_t * q8 = y[ib].qs;
        __m256i        hm = _mm256_loadu_si256((const __m256i *) x[ib].hmask);
        __m256i        si = _mm256_setzero_si256();
        for (int h = 0; h < 2; h++) {
            const __m256i qq = _mm256_loadu_si256((const __m256i *) (x[ib].qs + 32 * h));
            for (int j = 0; j < 4; j++) {
                const __m256i lo = _mm256_and_si256(_mm256_srli_epi16(qq, 2 * j), m3);
                const __m256i hi = _mm256_and_si256(_mm256_slli_epi16(hm, 2), b2);  // hmask bit 0 -> bit 2
                hm               = _mm256_srli_epi16(hm, 1);
                const int     k  = 4 * h + j;
                const __m256i yy = _mm256_loadu_si256((const __m256i *) (q8 + 32 * k));
                si = _mm256_add_epi32(si, dot_u8s8_scaled(_mm256_or_si256(lo, hi), yy, sc[2 * k], sc[2 * k + 1]));
            }
        }
        const __m256i sc16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *) sc));
        const __m256i off  = _mm256_madd_epi16(sc16, _mm256_loadu_si256((const __m256i *) y[ib].bsums));
        si                 = _mm256_sub_epi32(si, _mm256_slli_epi32(off, 2));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(si), _mm256_set1_ps(fp16_to_f32(x[ib].d) * y[ib].d), acc);
    }
    *s = hsum_f32_8(acc);
}

// q2_K: u in 0..3 with 4-bit scales and mins
void vec_dot_q2_K_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    const block_q2_K * x    = (const block_q2_K *) vx;
    const block_q8_K * y    = (const block_q8_K *) vy;
    const __m256i      m3   = _mm256_set1_epi8(3);
    __m256             acc  = _mm256_setzero_ps();
    float              accm = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        const uint8_t * sc = x[ib].scales;
        const int8_t *  q8 = y[ib].qs;
        __m256i         si = _mm256_setzero_si256();
        for (int h = 0; h < 2; h++) {
            const __m256i qq = _mm256_loadu_si256((const __m256i *) (x[ib].qs + 32 * h));
            for (int j = 0; j < 4; j++) {
                const int     k  = 4 * h + j;
                const __m256i u  = _mm256_and_si256(_mm256_srli_epi16(qq, 2 * j), m3);
                const __m256i yy = _mm256_loadu_si256((const __m256i *) (q8 + 32 * k));
                si               = _mm256_add_epi32(si, dot_u8s8_scaled(u, yy, sc[2 * k] & 0xF, sc[2 * k + 1] & 0xF));
            }
        }
        // mins: 4-bit m_j times bsums_j
        const __m128i s8  = _mm_loadu_si128((const __m128i *) sc);
        const __m256i m16 = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(s8, 4), _mm_set1_epi8(0x0F)));
        const int     sm  = hsum_i32_8(_mm256_madd_epi16(m16, _mm256_loadu_si256((const __m256i *) y[ib].bsums)));
        const float   dy  = y[ib].d;
        acc               = _mm256_fmadd_ps(_mm256_cvtepi32_ps(si), _mm256_set1_ps(fp16_to_f32(x[ib].d) * dy), acc);
        accm += fp16_to_f32(x[ib].dmin) * dy * (float) sm;
    }
    *s = hsum_f32_8(acc) - accm;
}

void vec_dot_iq4_xs_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    const block_iq4_xs * x   = (const block_iq4_xs *) vx;
    const block_q8_K *   y   = (const block_q8_K *) vy;
    __m256               acc = _mm256_setzero_ps();
    for (int ib = 0; ib < n / QK_K; ib++) {
        __m256i si = _mm256_setzero_si256();
        for (int j = 0; j < 8; j++) {
            const int ls = ((x[ib].scales_l[j / 2] >> (4 * (j % 2))) & 0xF) | (((x[ib].scales_h >> (2 * j)) & 3) << 4);
            const __m256i v = iq4nl_lookup(unpack_nibbles16(x[ib].qs + 16 * j));
            const __m256i p = dot_s8s8(v, _mm256_loadu_si256((const __m256i *) (y[ib].qs + 32 * j)));
            si              = _mm256_add_epi32(si, _mm256_mullo_epi32(p, _mm256_set1_epi32(ls - 32)));
        }
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(si), _mm256_set1_ps(fp16_to_f32(x[ib].d) * y[ib].d), acc);
    }
    *s = hsum_f32_8(acc);
}

void vec_dot_q8_K_q8_K_simd(int n, float * s, const void * vx, const void * vy) {
    const block_q8_K * x   = (const block_q8_K *) vx;
    const block_q8_K * y   = (const block_q8_K *) vy;
    __m256             acc = _mm256_setzero_ps();
    for (int ib = 0; ib < n / QK_K; ib++) {
        __m256i si = _mm256_setzero_si256();
        for (int j = 0; j < 8; j++) {
            si = _mm256_add_epi32(si, dot_s8s8(_mm256_loadu_si256((const __m256i *) (x[ib].qs + 32 * j)),
                                               _mm256_loadu_si256((const __m256i *) (y[ib].qs + 32 * j))));
        }
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(si), _mm256_set1_ps(x[ib].d * y[ib].d), acc);
    }
    *s = hsum_f32_8(acc);
}

// ---- multi-row / multi-column products (AVX-512 VNNI) -------------------------------------------
// out[c][r] = dot(weight row r, activation row c) for Q4_0 / Q8_0 weights against Q8_0 activations.
// The activation rows are first repacked per group of blocks into the exact vectors the inner loop
// needs (quants in lane order, the -8 / -128 offset term per int32 lane, dy per lane), so the inner
// loop per weight row and group is: two loads, two word permutes (quants and fp16 scales, no scalar
// fp16 conversions), the nibble split, vpdpbusd, and one FMA per activation row into a 16-lane
// accumulator that is reduced once per row. Up to 4 weight rows x 4 activation rows share each
// decoded weight vector and each packed activation vector (GEMM); the GEMV is the 1-column case.
// A (row, column) result depends only on K and the column-group size, never on the row grouping.
#if QK_HAVE_VNNI && defined(__AVX512F__)
constexpr int k_mm_pack_bytes = 64 * 1024;  // packed activations per chunk, on the stack

// Q4_0: a group is 4 blocks (72 bytes); lane j of the vectors holds block j
struct mm_q4_0 {
    static constexpr int    blocks = 4;
    static constexpr size_t bytes  = 4 * sizeof(block_q4_0);
    struct act {
        __m512i lo, hi, corr;  // quants 0..15 and 16..31 of each block; -8 * (lo + hi sums) per lane
        __m512  dy;
    };
    struct wv {
        __m512i lo, hi;  // unsigned nibbles
        __m512  d;       // fp16 scale of the block, per lane
    };
    static void pack(const block_q8_0 * y, act * a) {
        alignas(64) float dy[16];
        __m512i           lo = _mm512_setzero_si512(), hi = lo;
        for (int j = 0; j < 4; j++) {
            lo            = _mm512_mask_broadcast_i32x4(lo, (__mmask16) (0xF << (4 * j)),
                                                        _mm_loadu_si128((const __m128i *) y[j].qs));
            hi            = _mm512_mask_broadcast_i32x4(hi, (__mmask16) (0xF << (4 * j)),
                                                        _mm_loadu_si128((const __m128i *) (y[j].qs + 16)));
            const float d = fp16_to_f32(y[j].d);
            dy[4 * j] = dy[4 * j + 1] = dy[4 * j + 2] = dy[4 * j + 3] = d;
        }
        const __m512i e8 = _mm512_set1_epi8(8);
        const __m512i s  = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(_mm512_setzero_si512(), e8, lo), e8, hi);
        a->lo            = lo;
        a->hi            = hi;
        a->corr          = _mm512_sub_epi32(_mm512_setzero_si512(), s);
        a->dy            = _mm512_load_ps(dy);
    }
    // p: 4 consecutive blocks. Block j's fp16 d is word 9j, its quants words 9j+1..9j+8; the second
    // load starts 8 bytes in so that nothing past the group is read.
    static wv load(const uint8_t * p) {
        const __m512i a  = _mm512_loadu_si512((const void *) p);
        const __m512i b  = _mm512_loadu_si512((const void *) (p + 8));                         // words 4..35
        const __m512i iq = _mm512_setr_epi32(0x00020001, 0x00040003, 0x00060005, 0x00080007,   // block 0: 1..8
                                             0x000B000A, 0x000D000C, 0x000F000E, 0x00110010,   // block 1: 10..17
                                             0x00140013, 0x00160015, 0x00180017, 0x001A0019,   // block 2: 19..26
                                             0x001D001C, 0x001F001E, 0x003D003C, 0x003F003E);  // 28..31, b 28..31
        const __m512i id = _mm512_setr_epi32(0, 0, 0x00090009, 0x00090009, 0x00120012, 0x00120012, 0x001B001B,
                                             0x001B001B, 0, 0, 0, 0, 0, 0, 0, 0);
        const __m512i q  = _mm512_permutex2var_epi16(a, iq, b);
        const __m512i m4 = _mm512_set1_epi8(0x0F);
        wv            w;
        w.lo = _mm512_and_si512(q, m4);
        w.hi = _mm512_and_si512(_mm512_srli_epi16(q, 4), m4);
        w.d  = _mm512_cvtph_ps(_mm512_castsi512_si256(_mm512_permutexvar_epi16(id, a)));
        return w;
    }
    static __m512i dot(const wv & w, const act & a) {
        return _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(a.corr, w.lo, a.lo), w.hi, a.hi);
    }
    // one block the groups did not cover
    static float tail(const uint8_t * p, const block_q8_0 * y) {
        const block_q4_0 * x = (const block_q4_0 *) p;
        int                s = 0;
        for (int i = 0; i < 16; i++) {
            s += ((x->qs[i] & 0xF) - 8) * y->qs[i] + ((x->qs[i] >> 4) - 8) * y->qs[i + 16];
        }
        return fp16_to_f32(x->d) * fp16_to_f32(y->d) * (float) s;
    }
};

// Q8_0: a group is 2 blocks (68 bytes); the low 256 bits hold block 0. Codes x + 128 are unsigned,
// the offset term is -128 * sum(y).
struct mm_q8_0 {
    static constexpr int    blocks = 2;
    static constexpr size_t bytes  = 2 * sizeof(block_q8_0);
    struct act {
        __m512i q, corr;
        __m512  dy;
    };
    struct wv {
        __m512i q;
        __m512  d;
    };
    static void pack(const block_q8_0 * y, act * a) {
        const __m512i q = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *) y[0].qs)),
                                             _mm256_loadu_si256((const __m256i *) y[1].qs), 1);
        const __m512i s = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8((char) 0x80), q);
        a->q            = q;
        a->corr         = _mm512_sub_epi32(_mm512_setzero_si512(), s);
        a->dy = _mm512_insertf32x8(_mm512_set1_ps(fp16_to_f32(y[0].d)), _mm256_set1_ps(fp16_to_f32(y[1].d)), 1);
    }
    // block 0: d word 0, quants words 1..16; block 1: d word 17, quants words 18..33 (32, 33 from b)
    static wv load(const uint8_t * p) {
        const __m512i a  = _mm512_loadu_si512((const void *) p);
        const __m512i b  = _mm512_loadu_si512((const void *) (p + 4));  // words 2..33
        const __m512i iq = _mm512_setr_epi32(0x00020001, 0x00040003, 0x00060005, 0x00080007, 0x000A0009, 0x000C000B,
                                             0x000E000D, 0x0010000F, 0x00130012, 0x00150014, 0x00170016, 0x00190018,
                                             0x001B001A, 0x001D001C, 0x001F001E, 0x003F003E);
        const __m512i id =
            _mm512_setr_epi32(0, 0, 0, 0, 0x00110011, 0x00110011, 0x00110011, 0x00110011, 0, 0, 0, 0, 0, 0, 0, 0);
        wv w;
        w.q = _mm512_xor_si512(_mm512_permutex2var_epi16(a, iq, b), _mm512_set1_epi8((char) 0x80));
        w.d = _mm512_cvtph_ps(_mm512_castsi512_si256(_mm512_permutexvar_epi16(id, a)));
        return w;
    }
    static __m512i dot(const wv & w, const act & a) { return _mm512_dpbusd_epi32(a.corr, w.q, a.q); }
    static float   tail(const uint8_t * p, const block_q8_0 * y) {
          const block_q8_0 * x = (const block_q8_0 *) p;
          int                s = 0;
          for (int i = 0; i < 32; i++) {
              s += x->qs[i] * y->qs[i];
        }
          return fp16_to_f32(x->d) * fp16_to_f32(y->d) * (float) s;
    }
};

// RM weight rows x RN activation columns over groups [0, ng) of one chunk; adds to out[c][r].
// PF: prefetch the next RM rows at the same offset (streaming GEMV).
template <typename F, int RM, int RN, bool PF>
inline void mm_block(int ng, const uint8_t * w, size_t rs, const typename F::act * const * a, float * const * out,
                     int r) {
    __m512 acc[RM][RN];
    for (int i = 0; i < RM; i++) {
        for (int c = 0; c < RN; c++) {
            acc[i][c] = _mm512_setzero_ps();
        }
    }
    for (int g = 0; g < ng; g++, w += F::bytes) {
        typename F::wv x[RM];
        for (int i = 0; i < RM; i++) {
            if (PF) {
                // both lines a 68/72-byte group can touch (one address per group would skip
                // every 9th/17th line); NTA: the weights are read once, keep them out of L2/L3
                const char * q = (const char *) (w + (RM + i) * rs);
                _mm_prefetch(q, _MM_HINT_NTA);
                _mm_prefetch(q + 64, _MM_HINT_NTA);
            }
            x[i] = F::load(w + i * rs);
        }
        for (int c = 0; c < RN; c++) {
            const typename F::act & y = a[c][g];
            for (int i = 0; i < RM; i++) {
                acc[i][c] =
                    _mm512_fmadd_ps(_mm512_cvtepi32_ps(F::dot(x[i], y)), _mm512_mul_ps(x[i].d, y.dy), acc[i][c]);
            }
        }
    }
    for (int i = 0; i < RM; i++) {
        for (int c = 0; c < RN; c++) {
            out[c][r + i] += _mm512_reduce_add_ps(acc[i][c]);
        }
    }
}

template <typename F, int RN>
inline void mm_rows(int ng, int nrows, const uint8_t * w, size_t rs, const typename F::act * const * a,
                    float * const * out) {
    int r = 0;
    if (RN == 1) {
        // GEMV from DRAM: 4 rows per pass share each packed activation vector (one row at a time ran
        // out of load and FMA-latency slots: 4 independent accumulator chains hide the FMA latency),
        // and the next 4 rows are prefetched (NTA) at the same offset, so the memory system sees one
        // stream running a few KB ahead of the reads (T0/T1 hints and 8-12 rows ahead measured slower,
        // no software prefetch ~35% slower). The last 4 rows have no successor to prefetch.
        for (; r + 8 <= nrows; r += 4) {
            mm_block<F, 4, RN, true>(ng, w + r * rs, rs, a, out, r);
        }
    }
    for (; r + 4 <= nrows; r += 4) {
        mm_block<F, 4, RN, false>(ng, w + r * rs, rs, a, out, r);
    }
    for (; r < nrows; r++) {
        mm_block<F, 1, RN, false>(ng, w + r * rs, rs, a, out, r);
    }
}

template <typename F>
void gemm_avx512(int n, int nrows, const void * vw, size_t rs, int ncols, const void * const * vy,
                 float * const * out) {
    typedef typename F::act act;
    const uint8_t *         w  = (const uint8_t *) vw;
    const int               nb = n / QK8_0;
    const int               ng = nb / F::blocks;
    alignas(64) act         buf[k_mm_pack_bytes / sizeof(act)];
    for (int c = 0; c < ncols; c++) {
        for (int r = 0; r < nrows; r++) {
            out[c][r] = 0.0f;
        }
    }
    for (int c0 = 0; c0 < ncols; c0 += 4) {
        const int rn    = ncols - c0 < 4 ? ncols - c0 : 4;
        const int chunk = (int) (sizeof(buf) / sizeof(act)) / (ncols == 1 ? 1 : 4);  // groups per chunk
        for (int g0 = 0; g0 < ng; g0 += chunk) {
            const int   gc = ng - g0 < chunk ? ng - g0 : chunk;
            const act * a[4];
            for (int c = 0; c < rn; c++) {
                act *              dst = buf + c * chunk;
                const block_q8_0 * y   = (const block_q8_0 *) vy[c0 + c] + (size_t) g0 * F::blocks;
                for (int g = 0; g < gc; g++) {
                    F::pack(y + g * F::blocks, dst + g);
                }
                a[c] = dst;
            }
            const uint8_t * wg = w + (size_t) g0 * F::bytes;
            float * const * o  = out + c0;
            switch (rn) {
                case 1:
                    mm_rows<F, 1>(gc, nrows, wg, rs, a, o);
                    break;
                case 2:
                    mm_rows<F, 2>(gc, nrows, wg, rs, a, o);
                    break;
                case 3:
                    mm_rows<F, 3>(gc, nrows, wg, rs, a, o);
                    break;
                default:
                    mm_rows<F, 4>(gc, nrows, wg, rs, a, o);
                    break;
            }
        }
        // blocks after the last full group
        for (int b = ng * F::blocks; b < nb; b++) {
            for (int c = 0; c < rn; c++) {
                const block_q8_0 * y = (const block_q8_0 *) vy[c0 + c] + b;
                for (int r = 0; r < nrows; r++) {
                    out[c0 + c][r] += F::tail(w + r * rs + (size_t) b * (F::bytes / F::blocks), y);
                }
            }
        }
    }
}

template <typename F>
void gemv_avx512(int n, int nrows, const void * w, size_t rs, const void * y, float * out) {
    gemm_avx512<F>(n, nrows, w, rs, 1, &y, &out);
}
#endif

// Installs every kernel of this file into a traits table.
inline void fill_x86_table(ggml_cpu_type_traits * t) {
    t[GGML_TYPE_F32].vec_dot  = vec_dot_f32_simd;
    t[GGML_TYPE_F16].vec_dot  = vec_dot_f16_simd;
    t[GGML_TYPE_BF16].vec_dot = vec_dot_bf16_simd;

    const ggml_type q8_0_users[] = {GGML_TYPE_Q4_0, GGML_TYPE_Q5_0, GGML_TYPE_Q8_0, GGML_TYPE_IQ4_NL};
    for (ggml_type ty : q8_0_users) {
        t[ty].from_float = quantize_row_q8_0_simd;
    }
    const ggml_type q8_K_users[] = {GGML_TYPE_Q2_K, GGML_TYPE_Q3_K, GGML_TYPE_Q4_K,  GGML_TYPE_Q5_K,
                                    GGML_TYPE_Q6_K, GGML_TYPE_Q8_K, GGML_TYPE_IQ4_XS};
    for (ggml_type ty : q8_K_users) {
        t[ty].from_float = quantize_row_q8_K_simd;
    }
    t[GGML_TYPE_Q4_0].vec_dot   = vec_dot_q4_0_q8_0_simd;
    t[GGML_TYPE_Q4_1].vec_dot   = vec_dot_q4_1_q8_1_simd;
    t[GGML_TYPE_Q5_0].vec_dot   = vec_dot_q5_0_q8_0_simd;
    t[GGML_TYPE_Q5_1].vec_dot   = vec_dot_q5_1_q8_1_simd;
    t[GGML_TYPE_Q8_0].vec_dot   = vec_dot_q8_0_q8_0_simd;
    t[GGML_TYPE_IQ4_NL].vec_dot = vec_dot_iq4_nl_q8_0_simd;
    t[GGML_TYPE_Q2_K].vec_dot   = vec_dot_q2_K_q8_K_simd;
    t[GGML_TYPE_Q3_K].vec_dot   = vec_dot_q3_K_q8_K_simd;
    t[GGML_TYPE_Q4_K].vec_dot   = vec_dot_q4_K_q8_K_simd;
    t[GGML_TYPE_Q5_K].vec_dot   = vec_dot_q5_K_q8_K_simd;
    t[GGML_TYPE_Q6_K].vec_dot   = vec_dot_q6_K_q8_K_simd;
    t[GGML_TYPE_Q8_K].vec_dot   = vec_dot_q8_K_q8_K_simd;
    t[GGML_TYPE_IQ4_XS].vec_dot = vec_dot_iq4_xs_q8_K_simd;
#if QK_HAVE_VNNI && defined(__AVX512F__)
    t[GGML_TYPE_Q4_0].gemv = gemv_avx512<mm_q4_0>;
    t[GGML_TYPE_Q8_0].gemv = gemv_avx512<mm_q8_0>;
    t[GGML_TYPE_Q4_0].gemm = gemm_avx512<mm_q4_0>;
    t[GGML_TYPE_Q8_0].gemm = gemm_avx512<mm_q8_0>;
#endif
}

}  // namespace
