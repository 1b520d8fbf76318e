// dequant.cuh — per-element dequantizers of every weight / KV block format the CUDA kernels read.
//
// dq<T>::get(block, j) returns element j (0 <= j < dq<T>::qk) of one block, computed with exactly the
// operations, in exactly the order, of the CPU reference (dequantize_row_* in ggml-quants.c /
// ggml-quants-k.c, compiled there with -ffp-contract=off). On the device the products and sums go
// through __fmul_rn / __fadd_rn / __fsub_rn, which nvcc never fuses into an FMA, so a GPU result is
// bit-identical to the CPU's. The header has no CUDA dependency outside __CUDACC__: the unit test
// tests/unit/test-cuda-dequant.cpp includes it from plain C++ and compares every type bit for bit.
//
// The plain float types use the same interface with a "block" of one element.
#pragma once

#include "ggml-quants.h"
#include "ggml.h"

#include <stdint.h>

#ifdef __CUDACC__
#    include <cuda_bf16.h>
#    include <cuda_fp16.h>
#else
#    include <string.h>
#    ifndef __host__
#        define __host__
#    endif
#    ifndef __device__
#        define __device__
#    endif
#endif

#define GGML_CUDA_DQ_FN __host__ __device__ static inline

namespace ggml_cuda_dq {

// ---- exact scalar helpers -----------------------------------------------------------------------
GGML_CUDA_DQ_FN float mul(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
GGML_CUDA_DQ_FN float add(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
GGML_CUDA_DQ_FN float sub(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}

// IEEE half -> float (exact; no rounding is involved, so any correct conversion matches the CPU's)
GGML_CUDA_DQ_FN float f16(uint16_t h) {
#ifdef __CUDA_ARCH__
    return __half2float(__ushort_as_half(h));
#else
    const uint32_t sign = (uint32_t) (h & 0x8000) << 16;
    uint32_t       exp  = (h >> 10) & 0x1F;
    uint32_t       man  = h & 0x3FF;
    uint32_t       bits;
    if (exp == 0x1F) {
        bits = sign | 0x7F800000u | (man << 13);  // inf / nan
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man == 0) {
        bits = sign;
    } else {  // subnormal: normalise
        exp = 113;
        while ((man & 0x400) == 0) {
            man <<= 1;
            exp--;
        }
        bits = sign | (exp << 23) | ((man & 0x3FF) << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
#endif
}

GGML_CUDA_DQ_FN float bf16(uint16_t h) {
#ifdef __CUDA_ARCH__
    return __uint_as_float((uint32_t) h << 16);
#else
    const uint32_t bits = (uint32_t) h << 16;
    float          f;
    memcpy(&f, &bits, 4);
    return f;
#endif
}

GGML_CUDA_DQ_FN int kvalue_iq4nl(int i) {
    // the codebook of ggml_kvalues_iq4nl packed into two 64-bit constants (one int8 per byte), so the
    // device decodes it in registers instead of indexing a local-memory array; the unit test compares
    // all 16 entries with the CPU table
    const uint64_t packed = i < 8 ? 0xf6eaddcfbfad9881ull : 0x7159453526190d01ull;
    return (int) (int8_t) (uint8_t) (packed >> (8 * (i & 7)));
}

// 6-bit scale (which = 0) or min (which = 1) of sub-block j of a q4_K / q5_K block (ggml_get_scale_min_k4)
GGML_CUDA_DQ_FN int scale_min_k4(const uint8_t * q, int j, int which) {
    if (j < 4) {
        return q[j + 4 * which] & 63;
    }
    return which == 0 ? (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4) : (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
}

// ---- per-type element getters -------------------------------------------------------------------
template <ggml_type T>
struct dq;

template <>
struct dq<GGML_TYPE_F32> {
    typedef float         block;
    static constexpr int  qk = 1;
    GGML_CUDA_DQ_FN float get(const block & b, int) { return b; }
};

template <>
struct dq<GGML_TYPE_F16> {
    typedef uint16_t      block;
    static constexpr int  qk = 1;
    GGML_CUDA_DQ_FN float get(const block & b, int) { return f16(b); }
};

template <>
struct dq<GGML_TYPE_BF16> {
    typedef uint16_t      block;
    static constexpr int  qk = 1;
    GGML_CUDA_DQ_FN float get(const block & b, int) { return bf16(b); }
};

template <>
struct dq<GGML_TYPE_Q4_0> {
    typedef block_q4_0    block;
    static constexpr int  qk = QK4_0;
    GGML_CUDA_DQ_FN float get(const block & b, int j) {
        const int q = j < 16 ? (b.qs[j] & 0xF) : (b.qs[j - 16] >> 4);
        return mul(f16(b.d), (float) (q - 8));
    }
};

template <>
struct dq<GGML_TYPE_Q4_1> {
    typedef block_q4_1    block;
    static constexpr int  qk = QK4_1;
    GGML_CUDA_DQ_FN float get(const block & b, int j) {
        const int q = j < 16 ? (b.qs[j] & 0xF) : (b.qs[j - 16] >> 4);
        return add(mul(f16(b.d), (float) q), f16(b.m));
    }
};

// 5-bit value of a q5_0 / q5_1 block: low nibble as q4_0, bit 4 is bit j of the little-endian qh
template <typename B>
GGML_CUDA_DQ_FN int q5_value(const B & b, int j) {
    const uint32_t qh =
        (uint32_t) b.qh[0] | ((uint32_t) b.qh[1] << 8) | ((uint32_t) b.qh[2] << 16) | ((uint32_t) b.qh[3] << 24);
    const int lo = j < 16 ? (b.qs[j] & 0xF) : (b.qs[j - 16] >> 4);
    return lo | (int) (((qh >> j) & 1) << 4);
}

template <>
struct dq<GGML_TYPE_Q5_0> {
    typedef block_q5_0    block;
    static constexpr int  qk = QK5_0;
    GGML_CUDA_DQ_FN float get(const block & b, int j) { return mul(f16(b.d), (float) (q5_value(b, j) - 16)); }
};

template <>
struct dq<GGML_TYPE_Q5_1> {
    typedef block_q5_1    block;
    static constexpr int  qk = QK5_1;
    GGML_CUDA_DQ_FN float get(const block & b, int j) { return add(mul(f16(b.d), (float) q5_value(b, j)), f16(b.m)); }
};

template <>
struct dq<GGML_TYPE_Q8_0> {
    typedef block_q8_0    block;
    static constexpr int  qk = QK8_0;
    GGML_CUDA_DQ_FN float get(const block & b, int j) { return mul(f16(b.d), (float) b.qs[j]); }
};

template <>
struct dq<GGML_TYPE_IQ4_NL> {
    typedef block_iq4_nl  block;
    static constexpr int  qk = QK4_NL;
    GGML_CUDA_DQ_FN float get(const block & b, int j) {
        const int q = j < 16 ? (b.qs[j] & 0xF) : (b.qs[j - 16] >> 4);
        return mul(f16(b.d), (float) kvalue_iq4nl(q));
    }
};

// q2_K: element 128*h + 32*j + 16*half + l is bits 2j..2j+1 of qs[32*h + 16*half + l], sub-block 8*h + 2*j + half
template <>
struct dq<GGML_TYPE_Q2_K> {
    typedef block_q2_K    block;
    static constexpr int  qk = QK_K;
    GGML_CUDA_DQ_FN float get(const block & b, int e) {
        const int     h = e / 128, j = (e % 128) / 32, half = (e % 32) / 16, l = e % 16;
        const uint8_t sc = b.scales[8 * h + 2 * j + half];
        const float   dl = mul(f16(b.d), (float) (sc & 0xF)), ml = mul(f16(b.dmin), (float) (sc >> 4));
        const int     q = (b.qs[32 * h + 16 * half + l] >> (2 * j)) & 3;
        return sub(mul(dl, (float) q), ml);
    }
};

// q3_K: (d * scale) * q with the signed 6-bit scale of sub-block e/16 (ggml_q3_K_scales)
template <>
struct dq<GGML_TYPE_Q3_K> {
    typedef block_q3_K    block;
    static constexpr int  qk = QK_K;
    GGML_CUDA_DQ_FN float get(const block & b, int e) {
        const int i  = e / 16;
        const int lo = i < 8 ? (b.scales[i] & 0xF) : (b.scales[i - 8] >> 4);
        const int hi = (b.scales[8 + i % 4] >> (2 * (i / 4))) & 3;
        const int sc = (lo | (hi << 4)) - 32;
        const int h = e / 128, j = (e % 128) / 32, l = e % 32;
        const int q = ((b.qs[32 * h + l] >> (2 * j)) & 3) - ((b.hmask[l] >> (4 * h + j)) & 1 ? 0 : 4);
        return mul(mul(f16(b.d), (float) sc), (float) q);
    }
};

// q4_K: chunk c = e/64 of 32 bytes; low nibbles are sub-block 2c, high nibbles sub-block 2c + 1
template <>
struct dq<GGML_TYPE_Q4_K> {
    typedef block_q4_K    block;
    static constexpr int  qk = QK_K;
    GGML_CUDA_DQ_FN float get(const block & b, int e) {
        const int   c = e / 64, hi = (e % 64) / 32, l = e % 32, sb = 2 * c + hi;
        const float dl = mul(f16(b.d), (float) scale_min_k4(b.scales, sb, 0));
        const float ml = mul(f16(b.dmin), (float) scale_min_k4(b.scales, sb, 1));
        const int   q  = (b.qs[32 * c + l] >> (4 * hi)) & 0xF;
        return sub(mul(dl, (float) q), ml);
    }
};

template <>
struct dq<GGML_TYPE_Q5_K> {
    typedef block_q5_K    block;
    static constexpr int  qk = QK_K;
    GGML_CUDA_DQ_FN float get(const block & b, int e) {
        const int   c = e / 64, hi = (e % 64) / 32, l = e % 32, sb = 2 * c + hi;
        const float dl = mul(f16(b.d), (float) scale_min_k4(b.scales, sb, 0));
        const float ml = mul(f16(b.dmin), (float) scale_min_k4(b.scales, sb, 1));
        const int   q  = ((b.qs[32 * c + l] >> (4 * hi)) & 0xF) | (((b.qh[l] >> (2 * c + hi)) & 1) << 4);
        return sub(mul(dl, (float) q), ml);
    }
};

template <>
struct dq<GGML_TYPE_Q6_K> {
    typedef block_q6_K    block;
    static constexpr int  qk = QK_K;
    GGML_CUDA_DQ_FN float get(const block & b, int e) {
        const int h = e / 128, k = (e % 128) / 32, l = e % 32;
        const int lo = (b.ql[64 * h + 32 * (k & 1) + l] >> (4 * (k >> 1))) & 0xF;
        const int hi = (b.qh[32 * h + l] >> (2 * k)) & 3;
        return mul(mul(f16(b.d), (float) b.scales[e / 16]), (float) ((lo | (hi << 4)) - 32));
    }
};

template <>
struct dq<GGML_TYPE_IQ4_XS> {
    typedef block_iq4_xs  block;
    static constexpr int  qk = QK_K;
    GGML_CUDA_DQ_FN float get(const block & b, int e) {
        const int j = e / 32, l = e % 32;
        const int ls = (((b.scales_l[j / 2] >> (4 * (j % 2))) & 0xF) | (((b.scales_h >> (2 * j)) & 3) << 4)) - 32;
        const int q  = l < 16 ? (b.qs[16 * j + l] & 0xF) : (b.qs[16 * j + l - 16] >> 4);
        return mul(mul(f16(b.d), (float) ls), (float) kvalue_iq4nl(q));
    }
};

// Element k of a row of type T that starts at `row` (rows of every supported type are contiguous).
template <ggml_type T>
GGML_CUDA_DQ_FN float row_get(const void * row, int64_t k) {
    const typename dq<T>::block * b = (const typename dq<T>::block *) row;
    return dq<T>::get(b[k / dq<T>::qk], (int) (k % dq<T>::qk));
}

}  // namespace ggml_cuda_dq

// Calls MACRO(TYPE) for every weight type the mm kernels read; one kernel instantiation per row.
#define GGML_CUDA_MM_FOR_EACH_TYPE(MACRO) \
    MACRO(GGML_TYPE_F32)                  \
    MACRO(GGML_TYPE_F16)                  \
    MACRO(GGML_TYPE_BF16)                 \
    MACRO(GGML_TYPE_Q4_0)                 \
    MACRO(GGML_TYPE_Q4_1)                 \
    MACRO(GGML_TYPE_Q5_0)                 \
    MACRO(GGML_TYPE_Q5_1)                 \
    MACRO(GGML_TYPE_Q8_0)                 \
    MACRO(GGML_TYPE_Q2_K)                 \
    MACRO(GGML_TYPE_Q3_K)                 \
    MACRO(GGML_TYPE_Q4_K)                 \
    MACRO(GGML_TYPE_Q5_K)                 \
    MACRO(GGML_TYPE_Q6_K)                 \
    MACRO(GGML_TYPE_IQ4_NL)               \
    MACRO(GGML_TYPE_IQ4_XS)
