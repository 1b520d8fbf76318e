// vecdotq.cuh — integer dot products of weight blocks with Q8_1 activations, host and device.
//
// The fast mat-vec path (mm-vecq.cu) quantizes each activation column once per matmul into block_q8_1
// (32 int8 codes, fp16 scale d, fp16 s = d * sum(codes)): exactly quantize_row_q8_1_ref of ggml-quants.c,
// bit for bit (q8_1_block_scale / q8_1_code / q8_1_block_sum below, each rounding on its own). The weight
// kernels then load whole 32-bit / 128-bit words of a weight block, unpack nibbles / high bits to int8
// lanes with bit operations and multiply them with the int8 activations by __dp4a; the integer sums are
// exact, the float scaling follows the CPU's vec_dot order (sumi * (d_w * d_y)).
//
// vdq<T>::dot(block, y, i) is thread i's share (0 <= i < vdq<T>::tpb) of the dot product of one weight
// block with the q8_1 blocks y covering the same elements; the shares of all tpb threads sum to the block's
// dot product. Everything here is GGML_CUDA_HD and has no CUDA dependency outside __CUDACC__:
// tests/unit/test-cuda-vecdotq.cpp includes it from plain C++ (with an emulated __dp4a) and compares it
// with the CPU reference quantizer and dot products on random blocks.
#pragma once

#include "dequant.cuh"
#include "ggml-quants.h"
#include "ops-math.cuh"

#include <stdint.h>
#include <string.h>

namespace ggml_cuda_vdq {

using ggml_cuda_dq::f16;
using ggml_cuda_dq::scale_min_k4;

// ---- loads of whole words (little-endian) ---------------------------------------------------------
// p must be 2-byte aligned (blocks of 18, 22, 34 or 210 bytes give no better)
GGML_CUDA_HD uint32_t ld_a2(const uint8_t * p) {
#if defined(__CUDA_ARCH__)
    const uint16_t * q = (const uint16_t *) p;
    return (uint32_t) q[0] | ((uint32_t) q[1] << 16);
#else
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
#endif
}

// p must be 4-byte aligned
GGML_CUDA_HD uint32_t ld_a4(const void * p) {
#if defined(__CUDA_ARCH__)
    return *(const uint32_t *) p;
#else
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
#endif
}

// four words from a 16-byte aligned p, one 128-bit load on the device
GGML_CUDA_HD void ld_a16(const uint8_t * p, uint32_t v[4]) {
#if defined(__CUDA_ARCH__)
    const uint4 u = *(const uint4 *) p;
    v[0]          = u.x;
    v[1]          = u.y;
    v[2]          = u.z;
    v[3]          = u.w;
#else
    memcpy(v, p, 16);
#endif
}

// c + sum of the four signed byte products of a and b
GGML_CUDA_HD int dp4a(uint32_t a, uint32_t b, int c) {
#if defined(__CUDA_ARCH__)
    return __dp4a((int) a, (int) b, c);
#else
    for (int i = 0; i < 4; i++) {
        c += (int) (int8_t) (uint8_t) (a >> (8 * i)) * (int) (int8_t) (uint8_t) (b >> (8 * i));
    }
    return c;
#endif
}

constexpr uint32_t kOnes = 0x01010101u;  // dp4a(kOnes, y, 0) = exact sum of the four codes of y
constexpr uint32_t kLo4  = 0x0F0F0F0Fu;

// bit b (0..3) of bits4 moved to bit 4 of byte b: the fifth bit of four consecutive q5 elements
GGML_CUDA_HD uint32_t spread_bit4(uint32_t bits4) {
    return ((bits4 & 1u) << 4) | ((bits4 & 2u) << 11) | ((bits4 & 4u) << 18) | ((bits4 & 8u) << 25);
}

// ---- the activation quantizer (quantize_row_q8_1_ref, split so a warp can run it one lane per value) ----
// d of a block whose largest magnitude is amax
GGML_CUDA_HD float q8_1_block_scale(float amax) {
    return ggml_cuda_math::fdiv(amax, 127.0f);
}
GGML_CUDA_HD float q8_1_inv_scale(float d) {
    return d != 0.0f ? ggml_cuda_math::fdiv(1.0f, d) : 0.0f;
}
GGML_CUDA_HD int8_t q8_1_code(float x, float id) {
    return (int8_t) ggml_cuda_math::rint_i(ggml_cuda_math::fmul(x, id));
}
// the fp16 s field from the integer sum of the codes
GGML_CUDA_HD uint16_t q8_1_block_sum(int sum, float d) {
    return ggml_cuda_math::f32_to_fp16(ggml_cuda_math::fmul((float) sum, d));
}

// One block, scalar (the host reference of the warp version in mm-vecq.cu, built from the same steps).
GGML_CUDA_HD void q8_1_quantize_block(const float * x, block_q8_1 * y) {
    float amax = 0.0f;
    for (int j = 0; j < QK8_1; j++) {
        amax = fmaxf(amax, fabsf(x[j]));
    }
    const float d   = q8_1_block_scale(amax);
    const float id  = q8_1_inv_scale(d);
    int         sum = 0;
    for (int j = 0; j < QK8_1; j++) {
        y->qs[j] = q8_1_code(x[j], id);
        sum += y->qs[j];
    }
    y->d = ggml_cuda_math::f32_to_fp16(d);
    y->s = q8_1_block_sum(sum, d);
}

// ---- per-type block dot products --------------------------------------------------------------------
// tpb: threads per weight block; align: the alignment (bytes) the loads need of every block start;
// dot(b, y, i): thread i's share. For 32-element types y is one q8_1 block, for K-quants eight.
template <ggml_type T>
struct vdq;

// q4_0: thread i takes qs[8i .. 8i+8): elements 8i.. (low nibbles) and 16+8i.. (high nibbles)
template <>
struct vdq<GGML_TYPE_Q4_0> {
    typedef block_q4_0        block;
    static constexpr int      qk = QK4_0, tpb = 2, align = 2;
    static GGML_CUDA_HD float dot(const block & b, const block_q8_1 * y, int i) {
        int sumi = 0, sumy = 0;
        for (int j = 0; j < 2; j++) {
            const uint32_t q  = ld_a2(b.qs + 8 * i + 4 * j);
            const uint32_t lo = ld_a4(y->qs + 8 * i + 4 * j), hi = ld_a4(y->qs + 16 + 8 * i + 4 * j);
            sumi = dp4a(q & kLo4, lo, sumi);
            sumi = dp4a((q >> 4) & kLo4, hi, sumi);
            sumy = dp4a(kOnes, lo, sumy);
            sumy = dp4a(kOnes, hi, sumy);
        }
        // (q - 8) * y summed = sum(q * y) - 8 * sum(y): exact in int
        return (float) (sumi - 8 * sumy) * (f16(b.d) * f16(y->d));
    }
};

// q4_1: as q4_0 without the offset; the min term m * s is added once, by thread 0 (as the CPU's q4_1 x q8_1)
template <>
struct vdq<GGML_TYPE_Q4_1> {
    typedef block_q4_1        block;
    static constexpr int      qk = QK4_1, tpb = 2, align = 4;
    static GGML_CUDA_HD float dot(const block & b, const block_q8_1 * y, int i) {
        int sumi = 0;
        for (int j = 0; j < 2; j++) {
            const uint32_t q = ld_a4(b.qs + 8 * i + 4 * j);
            sumi             = dp4a(q & kLo4, ld_a4(y->qs + 8 * i + 4 * j), sumi);
            sumi             = dp4a((q >> 4) & kLo4, ld_a4(y->qs + 16 + 8 * i + 4 * j), sumi);
        }
        const float r = (float) sumi * (f16(b.d) * f16(y->d));
        return i == 0 ? r + f16(b.m) * f16(y->s) : r;
    }
};

// q5_0 / q5_1: the q4 nibbles with bit 4 of element j taken from bit j of qh
template <typename B>
GGML_CUDA_HD void q5_sums(const B & b, uint32_t qh, const block_q8_1 * y, int i, int & sumi, int & sumy) {
    for (int j = 0; j < 2; j++) {
        const int      e0 = 8 * i + 4 * j;  // first of the four low-nibble elements
        const uint32_t q  = ld_a2(b.qs + e0);
        const uint32_t vl = (q & kLo4) | spread_bit4((qh >> e0) & 0xF);
        const uint32_t vh = ((q >> 4) & kLo4) | spread_bit4((qh >> (e0 + 16)) & 0xF);
        const uint32_t lo = ld_a4(y->qs + e0), hi = ld_a4(y->qs + 16 + e0);
        sumi = dp4a(vl, lo, sumi);
        sumi = dp4a(vh, hi, sumi);
        sumy = dp4a(kOnes, lo, sumy);
        sumy = dp4a(kOnes, hi, sumy);
    }
}

template <>
struct vdq<GGML_TYPE_Q5_0> {
    typedef block_q5_0        block;
    static constexpr int      qk = QK5_0, tpb = 2, align = 2;
    static GGML_CUDA_HD float dot(const block & b, const block_q8_1 * y, int i) {
        int sumi = 0, sumy = 0;
        q5_sums(b, ld_a2(b.qh), y, i, sumi, sumy);
        return (float) (sumi - 16 * sumy) * (f16(b.d) * f16(y->d));
    }
};

template <>
struct vdq<GGML_TYPE_Q5_1> {
    typedef block_q5_1        block;
    static constexpr int      qk = QK5_1, tpb = 2, align = 4;
    static GGML_CUDA_HD float dot(const block & b, const block_q8_1 * y, int i) {
        int sumi = 0, sumy = 0;
        q5_sums(b, ld_a4(b.qh), y, i, sumi, sumy);
        const float r = (float) sumi * (f16(b.d) * f16(y->d));
        return i == 0 ? r + f16(b.m) * f16(y->s) : r;
    }
};

// q8_0: thread i takes codes 16i .. 16i+16
template <>
struct vdq<GGML_TYPE_Q8_0> {
    typedef block_q8_0        block;
    static constexpr int      qk = QK8_0, tpb = 2, align = 2;
    static GGML_CUDA_HD float dot(const block & b, const block_q8_1 * y, int i) {
        int sumi = 0;
        for (int j = 0; j < 4; j++) {
            const int e = 16 * i + 4 * j;
            sumi        = dp4a(ld_a2((const uint8_t *) b.qs + e), ld_a4(y->qs + e), sumi);
        }
        return (float) sumi * (f16(b.d) * f16(y->d));
    }
};

// q4_K / q5_K: thread t takes qs[16t .. 16t+16) (one 128-bit load): in chunk c = t/2 of 64 elements, the low
// nibbles are elements l0.. of sub-block 2c and the high nibbles the same of sub-block 2c+1 (l0 = 16 (t%2)).
// The mins need the exact code sums of those 16 activations (dp4a with ones), as the CPU's bsums.
GGML_CUDA_HD float k4_combine(const uint8_t * scales, float d, float dmin, const block_q8_1 * y, int c, int sumi0,
                              int sumi1, int sumy0, int sumy1) {
    const float d80 = f16(y[2 * c].d), d81 = f16(y[2 * c + 1].d);
    const int   sc0 = scale_min_k4(scales, 2 * c, 0), m0 = scale_min_k4(scales, 2 * c, 1);
    const int   sc1 = scale_min_k4(scales, 2 * c + 1, 0), m1 = scale_min_k4(scales, 2 * c + 1, 1);
    const float s = d80 * (float) (sc0 * sumi0) + d81 * (float) (sc1 * sumi1);
    const float m = d80 * (float) (m0 * sumy0) + d81 * (float) (m1 * sumy1);
    return d * s - dmin * m;
}

template <>
struct vdq<GGML_TYPE_Q4_K> {
    typedef block_q4_K        block;
    static constexpr int      qk = QK_K, tpb = 8, align = 16;
    static GGML_CUDA_HD float dot(const block & b, const block_q8_1 * y, int t) {
        const int c = t / 2, l0 = 16 * (t % 2);
        uint32_t  q[4];
        ld_a16(b.qs + 16 * t, q);
        int sumi0 = 0, sumi1 = 0, sumy0 = 0, sumy1 = 0;
        for (int j = 0; j < 4; j++) {
            const uint32_t y0 = ld_a4(y[2 * c].qs + l0 + 4 * j), y1 = ld_a4(y[2 * c + 1].qs + l0 + 4 * j);
            sumi0 = dp4a(q[j] & kLo4, y0, sumi0);
            sumi1 = dp4a((q[j] >> 4) & kLo4, y1, sumi1);
            sumy0 = dp4a(kOnes, y0, sumy0);
            sumy1 = dp4a(kOnes, y1, sumy1);
        }
        return k4_combine(b.scales, f16(b.d), f16(b.dmin), y, c, sumi0, sumi1, sumy0, sumy1);
    }
};

// q5_K: as q4_K; bit 4 of element l of sub-block 2c (2c+1) is bit 2c (2c+1) of qh[l]
template <>
struct vdq<GGML_TYPE_Q5_K> {
    typedef block_q5_K        block;
    static constexpr int      qk = QK_K, tpb = 8, align = 16;
    static GGML_CUDA_HD float dot(const block & b, const block_q8_1 * y, int t) {
        const int c = t / 2, l0 = 16 * (t % 2);
        uint32_t  q[4], h[4];
        ld_a16(b.qs + 16 * t, q);
        ld_a16(b.qh + l0, h);
        int sumi0 = 0, sumi1 = 0, sumy0 = 0, sumy1 = 0;
        for (int j = 0; j < 4; j++) {
            const uint32_t v0 = (q[j] & kLo4) | (((h[j] >> (2 * c)) & kOnes) << 4);
            const uint32_t v1 = ((q[j] >> 4) & kLo4) | (((h[j] >> (2 * c + 1)) & kOnes) << 4);
            const uint32_t y0 = ld_a4(y[2 * c].qs + l0 + 4 * j), y1 = ld_a4(y[2 * c + 1].qs + l0 + 4 * j);
            sumi0 = dp4a(v0, y0, sumi0);
            sumi1 = dp4a(v1, y1, sumi1);
            sumy0 = dp4a(kOnes, y0, sumy0);
            sumy1 = dp4a(kOnes, y1, sumy1);
        }
        return k4_combine(b.scales, f16(b.d), f16(b.dmin), y, c, sumi0, sumi1, sumy0, sumy1);
    }
};

// q6_K: thread t takes half h = t/4, the ql bytes 64h + 32kk + l0 .. +16 (kk = (t/2)%2, l0 = 16 (t%2)) and
// the qh bytes 32h + l0 .. +16: their low nibbles are the elements of k = kk, the high nibbles those of
// k = kk + 2 (element 128h + 32k + l, 6-bit code (lo | hi << 4) - 32, scale of sub-block 8h + 2k + t%2).
template <>
struct vdq<GGML_TYPE_Q6_K> {
    typedef block_q6_K        block;
    static constexpr int      qk = QK_K, tpb = 8, align = 2;
    static GGML_CUDA_HD float dot(const block & b, const block_q8_1 * y, int t) {
        const int h = t / 4, kk = (t / 2) % 2, l0 = 16 * (t % 2);
        const int ka = kk, kb = kk + 2;
        int       sumi_a = 0, sumi_b = 0, sumy_a = 0, sumy_b = 0;
        for (int j = 0; j < 4; j++) {
            const uint32_t ql = ld_a2(b.ql + 64 * h + 32 * kk + l0 + 4 * j);
            const uint32_t qh = ld_a2(b.qh + 32 * h + l0 + 4 * j);
            const uint32_t va = (ql & kLo4) | (((qh >> (2 * ka)) & 0x03030303u) << 4);
            const uint32_t vb = ((ql >> 4) & kLo4) | (((qh >> (2 * kb)) & 0x03030303u) << 4);
            const uint32_t ya = ld_a4(y[4 * h + ka].qs + l0 + 4 * j), yb = ld_a4(y[4 * h + kb].qs + l0 + 4 * j);
            sumi_a = dp4a(va, ya, sumi_a);
            sumi_b = dp4a(vb, yb, sumi_b);
            sumy_a = dp4a(kOnes, ya, sumy_a);
            sumy_b = dp4a(kOnes, yb, sumy_b);
        }
        const int   sc_a = b.scales[8 * h + 2 * ka + t % 2], sc_b = b.scales[8 * h + 2 * kb + t % 2];
        const float s = f16(y[4 * h + ka].d) * (float) (sc_a * (sumi_a - 32 * sumy_a)) +
                        f16(y[4 * h + kb].d) * (float) (sc_b * (sumi_b - 32 * sumy_b));
        return f16(b.d) * s;
    }
};

}  // namespace ggml_cuda_vdq

// Calls MACRO(TYPE) for every weight type of the dp4a mat-vec path (mm-vecq.cu); others take mm-vec.cu's kernel.
#define GGML_CUDA_VECQ_FOR_EACH_TYPE(MACRO) \
    MACRO(GGML_TYPE_Q4_0)                   \
    MACRO(GGML_TYPE_Q4_1)                   \
    MACRO(GGML_TYPE_Q5_0)                   \
    MACRO(GGML_TYPE_Q5_1)                   \
    MACRO(GGML_TYPE_Q8_0)                   \
    MACRO(GGML_TYPE_Q4_K)                   \
    MACRO(GGML_TYPE_Q5_K)                   \
    MACRO(GGML_TYPE_Q6_K)
