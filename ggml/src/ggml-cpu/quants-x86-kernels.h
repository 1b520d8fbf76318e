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
#    define QK_DOT_WIDE(NAME, T, LOAD, LOADM)                                                                \
        void NAME(int n, float * s, const void * vx, const void * vy) {                                     \
            const T *     x  = (const T *) vx;                                                              \
            const float * y  = (const float *) vy;                                                          \
            __m512        a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;                              \
            int           i  = 0;                                                                           \
            for (; i + 64 <= n; i += 64) {                                                                  \
                a0 = _mm512_fmadd_ps(LOAD(x + i), _mm512_loadu_ps(y + i), a0);                              \
                a1 = _mm512_fmadd_ps(LOAD(x + i + 16), _mm512_loadu_ps(y + i + 16), a1);                    \
                a2 = _mm512_fmadd_ps(LOAD(x + i + 32), _mm512_loadu_ps(y + i + 32), a2);                    \
                a3 = _mm512_fmadd_ps(LOAD(x + i + 48), _mm512_loadu_ps(y + i + 48), a3);                    \
            }                                                                                               \
            for (; i + 16 <= n; i += 16) {                                                                  \
                a0 = _mm512_fmadd_ps(LOAD(x + i), _mm512_loadu_ps(y + i), a0);                              \
            }                                                                                               \
            if (i < n) {                                                                                    \
                const __mmask16 m = (__mmask16) ((1u << (n - i)) - 1);                                      \
                a1 = _mm512_fmadd_ps(LOADM(x + i, m), _mm512_maskz_loadu_ps(m, y + i), a1);                 \
            }                                                                                               \
            *s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));         \
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

#    define QK_DOT_WIDE(NAME, T, LOAD, SCALAR)                                                               \
        void NAME(int n, float * s, const void * vx, const void * vy) {                                     \
            const T *     x  = (const T *) vx;                                                              \
            const float * y  = (const float *) vy;                                                          \
            __m256        a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;                              \
            int           i  = 0;                                                                           \
            for (; i + 32 <= n; i += 32) {                                                                  \
                a0 = _mm256_fmadd_ps(LOAD(x + i), _mm256_loadu_ps(y + i), a0);                              \
                a1 = _mm256_fmadd_ps(LOAD(x + i + 8), _mm256_loadu_ps(y + i + 8), a1);                      \
                a2 = _mm256_fmadd_ps(LOAD(x + i + 16), _mm256_loadu_ps(y + i + 16), a2);                    \
                a3 = _mm256_fmadd_ps(LOAD(x + i + 24), _mm256_loadu_ps(y + i + 24), a3);                    \
            }                                                                                               \
            for (; i + 8 <= n; i += 8) {                                                                    \
                a0 = _mm256_fmadd_ps(LOAD(x + i), _mm256_loadu_ps(y + i), a0);                              \
            }                                                                                               \
            float sum = hsum_f32_8(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));            \
            for (; i < n; i++) {                                                                            \
                sum += SCALAR(x[i]) * y[i];                                                                 \
            }                                                                                               \
            *s = sum;                                                                                       \
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
            const __m256i w = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), q), _mm256_set1_epi16(1));
            const __m256i h = _mm256_hadd_epi32(w, w);
            const __m256i g = _mm256_hadd_epi32(h, h);
            y[ib].bsums[2 * j]     = (int16_t) _mm256_extract_epi32(g, 0);
            y[ib].bsums[2 * j + 1] = (int16_t) _mm256_extract_epi32(g, 4);
        }
    }
}

// ---- 32-element block types against q8_0 ----------------------------------------------------------
void vec_dot_q8_0_q8_0_simd(int n, float * s, const void * vx, const void * vy) {
    const block_q8_0 * x   = (const block_q8_0 *) vx;
    const block_q8_0 * y   = (const block_q8_0 *) vy;
    const int          nb  = n / QK8_0;
    __m256             acc0 = _mm256_setzero_ps(), acc1 = acc0;
    int                ib  = 0;
    for (; ib + 1 < nb; ib += 2) {
        const __m256i p0 = dot_s8s8(_mm256_loadu_si256((const __m256i *) x[ib].qs),
                                    _mm256_loadu_si256((const __m256i *) y[ib].qs));
        const __m256i p1 = dot_s8s8(_mm256_loadu_si256((const __m256i *) x[ib + 1].qs),
                                    _mm256_loadu_si256((const __m256i *) y[ib + 1].qs));
        acc0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p0), _mm256_set1_ps(fp16_to_f32(x[ib].d) * fp16_to_f32(y[ib].d)),
                               acc0);
        acc1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p1),
                               _mm256_set1_ps(fp16_to_f32(x[ib + 1].d) * fp16_to_f32(y[ib + 1].d)), acc1);
    }
    for (; ib < nb; ib++) {
        const __m256i p0 = dot_s8s8(_mm256_loadu_si256((const __m256i *) x[ib].qs),
                                    _mm256_loadu_si256((const __m256i *) y[ib].qs));
        acc0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p0), _mm256_set1_ps(fp16_to_f32(x[ib].d) * fp16_to_f32(y[ib].d)),
                               acc0);
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
    const block_q4_0 * x   = (const block_q4_0 *) vx;
    const block_q8_0 * y   = (const block_q8_0 *) vy;
    const int          nb  = n / QK8_0;
    __m256             acc0 = _mm256_setzero_ps(), acc1 = acc0;
    int                ib  = 0;
    for (; ib + 1 < nb; ib += 2) {
        const __m256i p0 = dot_q4_0_block(&x[ib], &y[ib]);
        const __m256i p1 = dot_q4_0_block(&x[ib + 1], &y[ib + 1]);
        acc0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p0), _mm256_set1_ps(fp16_to_f32(x[ib].d) * fp16_to_f32(y[ib].d)),
                               acc0);
        acc1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p1),
                               _mm256_set1_ps(fp16_to_f32(x[ib + 1].d) * fp16_to_f32(y[ib + 1].d)), acc1);
    }
    for (; ib < nb; ib++) {
        const __m256i p0 = dot_q4_0_block(&x[ib], &y[ib]);
        acc0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p0), _mm256_set1_ps(fp16_to_f32(x[ib].d) * fp16_to_f32(y[ib].d)),
                               acc0);
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
    const __m128i t  = _mm_loadu_si128((const __m128i *) ggml_kvalues_iq4nl);
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
            si = _mm256_add_epi32(si, dot_u8s8_lane_scaled(lo, y0, sc32, 2 * c));
            si = _mm256_add_epi32(si, dot_u8s8_lane_scaled(hi, y1, sc32, 2 * c + 1));
        }
        const float   dy = y[ib].d;
        const __m256i mm = _mm256_madd_epi16(mn16, _mm256_loadu_si256((const __m256i *) y[ib].bsums));
        acc  = _mm256_fmadd_ps(_mm256_cvtepi32_ps(si), _mm256_set1_ps(fp16_to_f32(x[ib].d) * dy), acc);
        accm = _mm256_fmadd_ps(_mm256_cvtepi32_ps(mm), _mm256_set1_ps(fp16_to_f32(x[ib].dmin) * dy), accm);
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
            const __m256i lo = _mm256_or_si256(_mm256_and_si256(qq, m4), _mm256_and_si256(_mm256_slli_epi16(hb, 4), b4));
            const __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(qq, 4), m4),
                                               _mm256_and_si256(_mm256_slli_epi16(hb, 3), b4));
            hb               = _mm256_srli_epi16(hb, 2);
            const __m256i y0 = _mm256_loadu_si256((const __m256i *) (q8 + 64 * c));
            const __m256i y1 = _mm256_loadu_si256((const __m256i *) (q8 + 64 * c + 32));
            si = _mm256_add_epi32(si, dot_u8s8_lane_scaled(lo, y0, sc32, 2 * c));
            si = _mm256_add_epi32(si, dot_u8s8_lane_scaled(hi, y1, sc32, 2 * c + 1));
        }
        const float   dy = y[ib].d;
        const __m256i mm = _mm256_madd_epi16(mn16, _mm256_loadu_si256((const __m256i *) y[ib].bsums));
        acc  = _mm256_fmadd_ps(_mm256_cvtepi32_ps(si), _mm256_set1_ps(fp16_to_f32(x[ib].d) * dy), acc);
        accm = _mm256_fmadd_ps(_mm256_cvtepi32_ps(mm), _mm256_set1_ps(fp16_to_f32(x[ib].dmin) * dy), accm);
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
            const __m256i u0 = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_and_si256(_mm256_slli_epi16(qh, 4), m30));
            const __m256i u1 = _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_and_si256(_mm256_slli_epi16(qh, 2), m30));
            const __m256i u2 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4), _mm256_and_si256(qh, m30));
            const __m256i u3 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                                               _mm256_and_si256(_mm256_srli_epi16(qh, 2), m30));
            const int8_t * s8 = sc + 8 * h;
            const int8_t * y8 = q8 + 128 * h;
            si = _mm256_add_epi32(si, dot_u8s8_scaled(u0, _mm256_loadu_si256((const __m256i *) (y8 + 0)), s8[0], s8[1]));
            si = _mm256_add_epi32(si, dot_u8s8_scaled(u1, _mm256_loadu_si256((const __m256i *) (y8 + 32)), s8[2], s8[3]));
            si = _mm256_add_epi32(si, dot_u8s8_scaled(u2, _mm256_loadu_si256((const __m256i *) (y8 + 64)), s8[4], s8[5]));
            si = _mm256_add_epi32(si, dot_u8s8_scaled(u3, _mm256_loadu_si256((const __m256i *) (y8 + 96)), s8[6], s8[7]));
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
                si = _mm256_add_epi32(si, dot_u8s8_scaled(u, yy, sc[2 * k] & 0xF, sc[2 * k + 1] & 0xF));
            }
        }
        // mins: 4-bit m_j times bsums_j
        const __m128i s8  = _mm_loadu_si128((const __m128i *) sc);
        const __m256i m16 = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(s8, 4), _mm_set1_epi8(0x0F)));
        const int     sm  = hsum_i32_8(_mm256_madd_epi16(m16, _mm256_loadu_si256((const __m256i *) y[ib].bsums)));
        const float   dy  = y[ib].d;
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(si), _mm256_set1_ps(fp16_to_f32(x[ib].d) * dy), acc);
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


// ---- multi-row GEMV (AVX-512 VNNI): 4 weight rows per step share the activation loads and the
// per-block offset terms, which are computed once per call. Rows beyond a multiple of 4 use vec_dot.
#if QK_HAVE_VNNI && defined(__AVX512F__)
constexpr int k_gemv_chunk = 256;  // blocks per chunk: the per-block tables stay on the stack (5 KiB)

// the 4 fp16 scales at p0..p3 (stride rs), times dy, spread to the lanes given by idx
inline __m512 gemv_scales4(const uint8_t * p, size_t rs, float dy, __m512i idx) {
    uint16_t d0, d1, d2, d3;
    memcpy(&d0, p, 2);
    memcpy(&d1, p + rs, 2);
    memcpy(&d2, p + 2 * rs, 2);
    memcpy(&d3, p + 3 * rs, 2);
    const __m128i dd = _mm_setr_epi16((short) d0, (short) d1, (short) d2, (short) d3, 0, 0, 0, 0);
    const __m128  df = _mm_mul_ps(_mm_cvtph_ps(dd), _mm_set1_ps(dy));
    return _mm512_permutexvar_ps(idx, _mm512_castps128_ps512(df));
}

// sums of each 128-bit lane of v -> out[0..3]
inline void store_lane_sums(__m512 v, float * out) {
    alignas(64) float t[16];
    _mm512_store_ps(t, v);
    for (int r = 0; r < 4; r++) {
        out[r] = (t[4 * r] + t[4 * r + 1]) + (t[4 * r + 2] + t[4 * r + 3]);
    }
}

void gemv_q4_0_avx512(int n, int nrows, const void * vw, size_t rs, const void * vy, float * out) {
    const block_q8_0 * y    = (const block_q8_0 *) vy;
    const uint8_t *    w    = (const uint8_t *) vw;
    const int          nb   = n / QK8_0;
    const int          nr4  = nrows & ~3;
    const __m512i      m4   = _mm512_set1_epi8(0x0F);
    const __m512i      lane = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    __m128i            corr[k_gemv_chunk];
    float              dy[k_gemv_chunk];
    for (int r = 0; r < nr4; r++) {
        out[r] = 0.0f;
    }
    for (int b0 = 0; b0 < nb; b0 += k_gemv_chunk) {
        const int nbc = nb - b0 < k_gemv_chunk ? nb - b0 : k_gemv_chunk;
        // codes are nibble - 8: start each block's integer sum at -8 * (its activation sums per lane)
        for (int b = 0; b < nbc; b++) {
            const __m128i lo = _mm_loadu_si128((const __m128i *) y[b0 + b].qs);
            const __m128i hi = _mm_loadu_si128((const __m128i *) (y[b0 + b].qs + 16));
            const __m128i e8 = _mm_set1_epi8(8);
            const __m128i s  = _mm_dpbusd_epi32(_mm_dpbusd_epi32(_mm_setzero_si128(), e8, lo), e8, hi);
            corr[b]          = _mm_sub_epi32(_mm_setzero_si128(), s);
            dy[b]            = fp16_to_f32(y[b0 + b].d);
        }
        for (int r = 0; r < nr4; r += 4) {
            const uint8_t * p   = w + (size_t) r * rs + (size_t) b0 * sizeof(block_q4_0);
            __m512          acc = _mm512_setzero_ps();
            for (int b = 0; b < nbc; b++, p += sizeof(block_q4_0)) {
                __m512i v = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *) (p + 2)));
                v         = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *) (p + rs + 2)), 1);
                v         = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *) (p + 2 * rs + 2)), 2);
                v         = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *) (p + 3 * rs + 2)), 3);
                const __m512i lo = _mm512_and_si512(v, m4);
                const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), m4);
                const __m512i yl = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *) y[b0 + b].qs));
                const __m512i yh = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *) (y[b0 + b].qs + 16)));
                __m512i       s  = _mm512_dpbusd_epi32(_mm512_broadcast_i32x4(corr[b]), lo, yl);
                s                = _mm512_dpbusd_epi32(s, hi, yh);
                acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s), gemv_scales4(p, rs, dy[b], lane), acc);
            }
            float part[4];
            store_lane_sums(acc, part);
            for (int i = 0; i < 4; i++) {
                out[r + i] += part[i];
            }
        }
    }
    for (int r = nr4; r < nrows; r++) {
        vec_dot_q4_0_q8_0_simd(n, &out[r], w + (size_t) r * rs, vy);
    }
}

// q8_0: codes x + 128 are unsigned; start each integer sum at -128 * (activation sums per lane)
void gemv_q8_0_avx512(int n, int nrows, const void * vw, size_t rs, const void * vy, float * out) {
    const block_q8_0 * y    = (const block_q8_0 *) vy;
    const uint8_t *    w    = (const uint8_t *) vw;
    const int          nb   = n / QK8_0;
    const int          nr4  = nrows & ~3;
    const __m512i      flip = _mm512_set1_epi8((char) 0x80);
    const __m512i      l01  = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    const __m512i      l23  = _mm512_setr_epi32(2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    __m256i            corr[k_gemv_chunk];
    float              dy[k_gemv_chunk];
    for (int r = 0; r < nr4; r++) {
        out[r] = 0.0f;
    }
    for (int b0 = 0; b0 < nb; b0 += k_gemv_chunk) {
        const int nbc = nb - b0 < k_gemv_chunk ? nb - b0 : k_gemv_chunk;
        for (int b = 0; b < nbc; b++) {
            const __m256i yy = _mm256_loadu_si256((const __m256i *) y[b0 + b].qs);
            const __m256i s  = _mm256_dpbusd_epi32(_mm256_setzero_si256(), _mm256_set1_epi8((char) 0x80), yy);
            corr[b]          = _mm256_sub_epi32(_mm256_setzero_si256(), s);
            dy[b]            = fp16_to_f32(y[b0 + b].d);
        }
        for (int r = 0; r < nr4; r += 4) {
            const uint8_t * p    = w + (size_t) r * rs + (size_t) b0 * sizeof(block_q8_0);
            __m512          acc0 = _mm512_setzero_ps(), acc1 = acc0;
            for (int b = 0; b < nbc; b++, p += sizeof(block_q8_0)) {
                const __m512i yy = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *) y[b0 + b].qs));
                const __m512i c  = _mm512_broadcast_i64x4(corr[b]);
                __m512i       v01 = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *) (p + 2)));
                v01 = _mm512_inserti64x4(v01, _mm256_loadu_si256((const __m256i *) (p + rs + 2)), 1);
                __m512i v23 = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *) (p + 2 * rs + 2)));
                v23 = _mm512_inserti64x4(v23, _mm256_loadu_si256((const __m256i *) (p + 3 * rs + 2)), 1);
                const __m512i s01 = _mm512_dpbusd_epi32(c, _mm512_xor_si512(v01, flip), yy);
                const __m512i s23 = _mm512_dpbusd_epi32(c, _mm512_xor_si512(v23, flip), yy);
                uint16_t      d[4];
                for (int i = 0; i < 4; i++) {
                    memcpy(&d[i], p + i * rs, 2);
                }
                const __m128i dd = _mm_setr_epi16((short) d[0], (short) d[1], (short) d[2], (short) d[3], 0, 0, 0, 0);
                const __m512  df = _mm512_castps128_ps512(_mm_mul_ps(_mm_cvtph_ps(dd), _mm_set1_ps(dy[b])));
                acc0 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s01), _mm512_permutexvar_ps(l01, df), acc0);
                acc1 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s23), _mm512_permutexvar_ps(l23, df), acc1);
            }
            out[r]     += hsum_f32_8(_mm512_castps512_ps256(acc0));
            out[r + 1] += hsum_f32_8(_mm512_extractf32x8_ps(acc0, 1));
            out[r + 2] += hsum_f32_8(_mm512_castps512_ps256(acc1));
            out[r + 3] += hsum_f32_8(_mm512_extractf32x8_ps(acc1, 1));
        }
    }
    for (int r = nr4; r < nrows; r++) {
        vec_dot_q8_0_q8_0_simd(n, &out[r], w + (size_t) r * rs, vy);
    }
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
    t[GGML_TYPE_Q4_0].gemv = gemv_q4_0_avx512;
    t[GGML_TYPE_Q8_0].gemv = gemv_q8_0_avx512;
#endif
}

}  // namespace
