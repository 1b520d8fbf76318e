// arm64 NEON dot products and activation quantizers, written once and compiled twice: included by
// quants-arm.neon.cpp (ARMv8.0) and quants-arm.dotprod.cpp (+ SDOT/UDOT), which differ only in the
// integer dot primitive below. Everything here has internal linkage (anonymous namespace, no STL), so
// the two compilations can never be merged by the linker into a function the CPU cannot run.
//
// Integer sums are exact (the same as the scalar reference in ggml-quants*.c); only the order in which
// the per-block float products are added differs. The activation quantizers perform the reference's
// float operations in the same order, so they produce the same bytes.
#pragma once

#include "cpu-type-traits.h"

extern "C" {
#include "ggml-quants.h"
}

#include <arm_neon.h>
#include <string.h>

namespace {

inline float fp16_to_f32(ggml_fp16_t h) {
    __fp16 v;
    memcpy(&v, &h, sizeof(v));
    return (float) v;
}

// acc + the dot product of a and b (16 signed bytes), spread over 4 int32 lanes; which bytes land in
// which lane differs between the two variants, so callers only ever reduce across all lanes.
inline int32x4_t dot_s8(int32x4_t acc, int8x16_t a, int8x16_t b) {
#if defined(__ARM_FEATURE_DOTPROD)
    return vdotq_s32(acc, a, b);
#else
    // |a*b| <= 128*128 fits int16; pairwise widening adds go straight into the int32 lanes
    acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(a), vget_low_s8(b)));
    return vpadalq_s16(acc, vmull_high_s8(a, b));
#endif
}

// 32-byte dot product: a0.b0 + a1.b1 with a fresh accumulator
inline int32x4_t dot_s8x2(int8x16_t a0, int8x16_t b0, int8x16_t a1, int8x16_t b1) {
    return dot_s8(dot_s8(vdupq_n_s32(0), a0, b0), a1, b1);
}

inline int8x16_t load_s8(const int8_t * p) {
    return vld1q_s8(p);
}

inline int8x16_t low_nibbles(uint8x16_t q) {
    return vreinterpretq_s8_u8(vandq_u8(q, vdupq_n_u8(0x0F)));
}

inline int8x16_t high_nibbles(uint8x16_t q) {
    return vreinterpretq_s8_u8(vshrq_n_u8(q, 4));
}

// ---- activation quantizers (bit-exact with quantize_row_q8_0_ref / q8_K_ref) --------------------
inline float amax_f32(const float * x, int n) {
    float32x4_t m0 = vdupq_n_f32(0.0f), m1 = m0;
    for (int i = 0; i < n; i += 8) {
        m0 = vmaxq_f32(m0, vabsq_f32(vld1q_f32(x + i)));
        m1 = vmaxq_f32(m1, vabsq_f32(vld1q_f32(x + i + 4)));
    }
    return vmaxvq_f32(vmaxq_f32(m0, m1));
}

// 16 floats -> 16 int8 of round(x * id): the reference's float multiply, then round to nearest even
// (FCVTNS) as lrintf does in the default rounding mode; |x * id| <= 127 so the saturating narrows
// never clip
inline int8x16_t quantize_16(const float * x, float id) {
    const int32x4_t i0 = vcvtnq_s32_f32(vmulq_n_f32(vld1q_f32(x + 0), id));
    const int32x4_t i1 = vcvtnq_s32_f32(vmulq_n_f32(vld1q_f32(x + 4), id));
    const int32x4_t i2 = vcvtnq_s32_f32(vmulq_n_f32(vld1q_f32(x + 8), id));
    const int32x4_t i3 = vcvtnq_s32_f32(vmulq_n_f32(vld1q_f32(x + 12), id));
    const int16x8_t lo = vcombine_s16(vqmovn_s32(i0), vqmovn_s32(i1));
    const int16x8_t hi = vcombine_s16(vqmovn_s32(i2), vqmovn_s32(i3));
    return vcombine_s8(vqmovn_s16(lo), vqmovn_s16(hi));
}

void quantize_row_q8_0_neon(const float * x, void * vy, int64_t n) {
    block_q8_0 * y = (block_q8_0 *) vy;
    for (int64_t ib = 0; ib < n / QK8_0; ib++, x += QK8_0) {
        const float d  = amax_f32(x, QK8_0) / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[ib].d        = ggml_fp32_to_fp16(d);
        vst1q_s8(y[ib].qs, quantize_16(x, id));
        vst1q_s8(y[ib].qs + 16, quantize_16(x + 16, id));
    }
}

// q8_1 also stores s = d * sum(qs) for the offset term of the q4_1 / q5_1 dot products, rounded as the
// reference does (the int sum times d in float, then to fp16)
void quantize_row_q8_1_neon(const float * x, void * vy, int64_t n) {
    block_q8_1 * y = (block_q8_1 *) vy;
    for (int64_t ib = 0; ib < n / QK8_1; ib++, x += QK8_1) {
        const float     d  = amax_f32(x, QK8_1) / 127.0f;
        const float     id = d != 0.0f ? 1.0f / d : 0.0f;
        const int8x16_t q0 = quantize_16(x, id);
        const int8x16_t q1 = quantize_16(x + 16, id);
        vst1q_s8(y[ib].qs, q0);
        vst1q_s8(y[ib].qs + 16, q1);
        const int sum = vaddlvq_s8(q0) + vaddlvq_s8(q1);
        y[ib].d       = ggml_fp32_to_fp16(d);
        y[ib].s       = ggml_fp32_to_fp16((float) sum * d);
    }
}

void quantize_row_q8_K_neon(const float * x, void * vy, int64_t n) {
    block_q8_K * y = (block_q8_K *) vy;
    for (int64_t ib = 0; ib < n / QK_K; ib++, x += QK_K) {
        const float d  = amax_f32(x, QK_K) / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        y[ib].d        = d;
        for (int j = 0; j < QK_K / 16; j++) {
            const int8x16_t q = quantize_16(x + 16 * j, id);
            vst1q_s8(y[ib].qs + 16 * j, q);
            y[ib].bsums[j] = (int16_t) vaddlvq_s8(q);  // |sum| <= 16 * 127
        }
    }
}

// ---- 32-element block types against q8_0 / q8_1 ---------------------------------------------------
// Each kernel decodes one block to two int8x16 halves (elements 0..15, 16..31) and takes the exact
// integer dot with the activation block; the block's float scale product is applied per block.
struct dec32 {
    int8x16_t lo, hi;
};

inline dec32 dec_q4_0(const block_q4_0 * x) {
    const uint8x16_t q = vld1q_u8(x->qs);
    const int8x16_t  e = vdupq_n_s8(8);
    return {vsubq_s8(low_nibbles(q), e), vsubq_s8(high_nibbles(q), e)};
}

inline dec32 dec_q8_0(const block_q8_0 * x) {
    return {load_s8(x->qs), load_s8(x->qs + 16)};
}

inline dec32 dec_iq4_nl(const block_iq4_nl * x) {
    const int8x16_t  tbl = vld1q_s8(ggml_kvalues_iq4nl);
    const uint8x16_t q   = vld1q_u8(x->qs);
    return {vqtbl1q_s8(tbl, vandq_u8(q, vdupq_n_u8(0x0F))), vqtbl1q_s8(tbl, vshrq_n_u8(q, 4))};
}

// bit 4 of element j is bit j of the little-endian 32-bit qh: broadcast the byte j/8 to 8 lanes and
// test bit j%8 in each
inline dec32 q5_high_bits(const uint8_t * qh) {
    static const uint8_t bit_of_lane[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t     bits            = vld1q_u8(bit_of_lane);
    const uint8x16_t     b01             = vcombine_u8(vdup_n_u8(qh[0]), vdup_n_u8(qh[1]));
    const uint8x16_t     b23             = vcombine_u8(vdup_n_u8(qh[2]), vdup_n_u8(qh[3]));
    const uint8x16_t     h16             = vdupq_n_u8(0x10);
    return {vreinterpretq_s8_u8(vandq_u8(vtstq_u8(b01, bits), h16)),
            vreinterpretq_s8_u8(vandq_u8(vtstq_u8(b23, bits), h16))};
}

inline dec32 dec_q5_0(const block_q5_0 * x) {
    const uint8x16_t q = vld1q_u8(x->qs);
    const dec32      h = q5_high_bits(x->qh);
    const int8x16_t  e = vdupq_n_s8(16);
    return {vsubq_s8(vorrq_s8(low_nibbles(q), h.lo), e), vsubq_s8(vorrq_s8(high_nibbles(q), h.hi), e)};
}

inline dec32 dec_q4_1(const block_q4_1 * x) {
    const uint8x16_t q = vld1q_u8(x->qs);
    return {low_nibbles(q), high_nibbles(q)};
}

inline dec32 dec_q5_1(const block_q5_1 * x) {
    const uint8x16_t q = vld1q_u8(x->qs);
    const dec32      h = q5_high_bits(x->qh);
    return {vorrq_s8(low_nibbles(q), h.lo), vorrq_s8(high_nibbles(q), h.hi)};
}

inline int32x4_t dot_dec32(dec32 d, const int8_t * y) {
    return dot_s8x2(d.lo, load_s8(y), d.hi, load_s8(y + 16));
}

// sum over blocks of d_x * d_y * dot(x, y) for the symmetric types (activation q8_0); two float
// accumulators so consecutive blocks do not wait on each other's multiply-add
template <typename B, dec32 (*DEC)(const B *)>
void vec_dot_sym_q8_0(int n, float * s, const void * vx, const void * vy) {
    const B *          x    = (const B *) vx;
    const block_q8_0 * y    = (const block_q8_0 *) vy;
    const int          nb   = n / QK8_0;
    float32x4_t        acc0 = vdupq_n_f32(0.0f), acc1 = acc0;
    int                ib = 0;
    for (; ib + 1 < nb; ib += 2) {
        const int32x4_t p0 = dot_dec32(DEC(&x[ib]), y[ib].qs);
        const int32x4_t p1 = dot_dec32(DEC(&x[ib + 1]), y[ib + 1].qs);
        acc0               = vmlaq_n_f32(acc0, vcvtq_f32_s32(p0), fp16_to_f32(x[ib].d) * fp16_to_f32(y[ib].d));
        acc1               = vmlaq_n_f32(acc1, vcvtq_f32_s32(p1), fp16_to_f32(x[ib + 1].d) * fp16_to_f32(y[ib + 1].d));
    }
    for (; ib < nb; ib++) {
        const int32x4_t p0 = dot_dec32(DEC(&x[ib]), y[ib].qs);
        acc0               = vmlaq_n_f32(acc0, vcvtq_f32_s32(p0), fp16_to_f32(x[ib].d) * fp16_to_f32(y[ib].d));
    }
    *s = vaddvq_f32(vaddq_f32(acc0, acc1));
}

// the affine types (x = d * q + m) against q8_1, whose s = d_y * sum(y) carries the offset term
template <typename B, dec32 (*DEC)(const B *)>
void vec_dot_aff_q8_1(int n, float * s, const void * vx, const void * vy) {
    const B *          x    = (const B *) vx;
    const block_q8_1 * y    = (const block_q8_1 *) vy;
    const int          nb   = n / QK8_1;
    float32x4_t        acc  = vdupq_n_f32(0.0f);
    float              offs = 0.0f;
    for (int ib = 0; ib < nb; ib++) {
        const int32x4_t p = dot_dec32(DEC(&x[ib]), y[ib].qs);
        acc               = vmlaq_n_f32(acc, vcvtq_f32_s32(p), fp16_to_f32(x[ib].d) * fp16_to_f32(y[ib].d));
        offs += fp16_to_f32(x[ib].m) * fp16_to_f32(y[ib].s);
    }
    *s = vaddvq_f32(acc) + offs;
}

// ---- K-quants against q8_K ----------------------------------------------------------------------
// Each kernel is written for NC activation rows at once (a struct template with a static run): the
// weight super-block is decoded once and dotted with every column, and per column the integer lanes,
// their reduction and the float update are exactly those of NC = 1. The vec_dot is the NC = 1 case,
// the GEMM (prefill) runs NC = 1..KQ_NC over column groups, so the two give the same bits and the
// decoding (nibbles, high bits, scales) is shared by up to KQ_NC activation rows.
constexpr int KQ_NC = 4;

// sum over the 8 sub-blocks of 32 of mins[j] * (sum of their activations): the q8_K bsums hold one
// sum per 16, so adjacent pairs are added first
inline int32_t mins_dot_bsums(const uint8_t * mins, const int16_t * bsums) {
    const int16x8_t bs = vpaddq_s16(vld1q_s16(bsums), vld1q_s16(bsums + 8));
    const int16x8_t mn = vreinterpretq_s16_u16(vmovl_u8(vld1_u8(mins)));
    return vaddvq_s32(vmlal_high_s16(vmull_s16(vget_low_s16(bs), vget_low_s16(mn)), bs, mn));
}

// the 8 six-bit scales and mins of a q4_K / q5_K block (ggml_get_scale_min_k4 for all j at once),
// four bytes per 32-bit word: bytes 0..3 keep their low 6 bits, bytes 4..7 take 4 bits of bytes 8..11
// and the top 2 bits of bytes 0..3 (scales) or 4..7 (mins); the shifts never carry masked bits over
inline void unpack_scales_mins_k4(const uint8_t * packed, uint8_t * sc, uint8_t * mn) {
    uint32_t a, b, c;
    memcpy(&a, packed, 4);
    memcpy(&b, packed + 4, 4);
    memcpy(&c, packed + 8, 4);
    const uint32_t sc_lo = a & 0x3f3f3f3fu;
    const uint32_t mn_lo = b & 0x3f3f3f3fu;
    const uint32_t sc_hi = (c & 0x0f0f0f0fu) | ((a >> 2) & 0x30303030u);
    const uint32_t mn_hi = ((c >> 4) & 0x0f0f0f0fu) | ((b >> 2) & 0x30303030u);
    memcpy(sc, &sc_lo, 4);
    memcpy(sc + 4, &sc_hi, 4);
    memcpy(mn, &mn_lo, 4);
    memcpy(mn + 4, &mn_hi, 4);
}

// q4_K / q5_K: per column sumv += dot(sub-block 2c) * sc[2c] + dot(sub-block 2c + 1) * sc[2c + 1],
// given the four decoded 16-byte vectors of the pair (low half, its second 16, high half, its second 16)
template <int NC>
inline void k4_pair(int32x4_t (&sumv)[NC], const block_q8_K * const * y, int ib, int c, int8x16_t l0, int8x16_t l1,
                    int8x16_t h0, int8x16_t h1, const uint8_t * sc) {
    for (int j = 0; j < NC; j++) {
        const int8_t *  q8  = y[j][ib].qs + 64 * c;
        const int32x4_t dlo = dot_s8x2(l0, load_s8(q8), l1, load_s8(q8 + 16));
        const int32x4_t dhi = dot_s8x2(h0, load_s8(q8 + 32), h1, load_s8(q8 + 48));
        sumv[j]             = vmlaq_n_s32(sumv[j], dlo, sc[2 * c]);
        sumv[j]             = vmlaq_n_s32(sumv[j], dhi, sc[2 * c + 1]);
    }
}

// the end of a q4_K / q5_K super-block for every column
template <int NC, typename B>
inline void k4_fold(float (&sum)[NC], const int32x4_t (&sumv)[NC], const B & x, const uint8_t * mn,
                    const block_q8_K * const * y, int ib) {
    const float d = fp16_to_f32(x.d), dmin = fp16_to_f32(x.dmin);
    for (int j = 0; j < NC; j++) {
        const int sumi = vaddvq_s32(sumv[j]);
        const int summ = mins_dot_bsums(mn, y[j][ib].bsums);
        sum[j] += y[j][ib].d * (d * (float) sumi - dmin * (float) summ);
    }
}

// The 64 decoded weights of sub-blocks 2c (l0: elements 0-15, l1: 16-31) and 2c + 1 (h0, h1) of a
// q4_K / q5_K super-block; the decoders are called for c = 0..3 in order after start().
struct k4_pair_w {
    int8x16_t l0, l1, h0, h1;
};

struct q4_K_dec {
    typedef block_q4_K block;
    void               start(const block_q4_K &) {}
    // 32 bytes of qs hold sub-block 2c in the low nibbles and 2c+1 in the high ones
    k4_pair_w next(const block_q4_K & x, int c) {
        const uint8x16_t q0 = vld1q_u8(x.qs + 32 * c);
        const uint8x16_t q1 = vld1q_u8(x.qs + 32 * c + 16);
        return {low_nibbles(q0), low_nibbles(q1), high_nibbles(q0), high_nibbles(q1)};
    }
};

struct q5_K_dec {
    typedef block_q5_K block;
    uint8x16_t         qh0, qh1;
    // bit 2c of qh[l] is bit 4 of sub-block 2c's element l, bit 2c+1 that of sub-block 2c+1; the two
    // bits in use are moved to the bottom after each pair
    void start(const block_q5_K & x) {
        qh0 = vld1q_u8(x.qh);
        qh1 = vld1q_u8(x.qh + 16);
    }
    k4_pair_w next(const block_q5_K & x, int c) {
        const uint8x16_t b0 = vdupq_n_u8(1), b1 = vdupq_n_u8(2), m4 = vdupq_n_u8(0x0F);
        const uint8x16_t q0 = vld1q_u8(x.qs + 32 * c);
        const uint8x16_t q1 = vld1q_u8(x.qs + 32 * c + 16);
        const k4_pair_w  w  = {vreinterpretq_s8_u8(vorrq_u8(vandq_u8(q0, m4), vshlq_n_u8(vandq_u8(qh0, b0), 4))),
                               vreinterpretq_s8_u8(vorrq_u8(vandq_u8(q1, m4), vshlq_n_u8(vandq_u8(qh1, b0), 4))),
                               vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(q0, 4), vshlq_n_u8(vandq_u8(qh0, b1), 3))),
                               vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(q1, 4), vshlq_n_u8(vandq_u8(qh1, b1), 3)))};
        qh0                 = vshrq_n_u8(qh0, 2);
        qh1                 = vshrq_n_u8(qh1, 2);
        return w;
    }
};

template <class DEC, int NC>
struct kq_k4 {
    static void run(int n, const void * vx, const block_q8_K * const * y, float * s) {
        const typename DEC::block * x       = (const typename DEC::block *) vx;
        float                       sum[NC] = {};
        DEC                         dec;
        for (int ib = 0; ib < n / QK_K; ib++) {
            uint8_t sc[8], mn[8];
            unpack_scales_mins_k4(x[ib].scales, sc, mn);
            int32x4_t sumv[NC];
            for (auto & v : sumv)
                v = vdupq_n_s32(0);
            dec.start(x[ib]);
            for (int c = 0; c < 4; c++) {
                const k4_pair_w w = dec.next(x[ib], c);
                k4_pair<NC>(sumv, y, ib, c, w.l0, w.l1, w.h0, w.h1, sc);
            }
            k4_fold<NC>(sum, sumv, x[ib], mn, y, ib);
        }
        for (int j = 0; j < NC; j++)
            s[j] = sum[j];
    }
};

template <int NC>
using kq_q4_K = kq_k4<q4_K_dec, NC>;
template <int NC>
using kq_q5_K = kq_k4<q5_K_dec, NC>;

template <int NC>
struct kq_q6_K {
    static void run(int n, const void * vx, const block_q8_K * const * y, float * s) {
        const block_q6_K * x       = (const block_q6_K *) vx;
        float              sum[NC] = {};
        const uint8x16_t   m4      = vdupq_n_u8(0x0F);
        const uint8x16_t   m2      = vdupq_n_u8(0x30);
        const int8x16_t    e32     = vdupq_n_s8(32);
        for (int ib = 0; ib < n / QK_K; ib++) {
            const int8_t * sc = x[ib].scales;
            int32x4_t      sumv[NC];
            for (auto & v : sumv)
                v = vdupq_n_s32(0);
            // element 128h + 32k + l: low 4 bits from ql[64h + 32(k&1) + l] (low nibble for k < 2), high 2
            // bits at bit 2k of qh[32h + l]; each group of 16 has its own scale
            for (int h = 0; h < 2; h++, sc += 8) {
                const uint8_t *  ql  = x[ib].ql + 64 * h;
                const uint8x16_t ql0 = vld1q_u8(ql), ql1 = vld1q_u8(ql + 16);
                const uint8x16_t ql2 = vld1q_u8(ql + 32), ql3 = vld1q_u8(ql + 48);
                const uint8x16_t qh0 = vld1q_u8(x[ib].qh + 32 * h), qh1 = vld1q_u8(x[ib].qh + 32 * h + 16);
                int8x16_t        v[8];
                v[0] = vreinterpretq_s8_u8(vorrq_u8(vandq_u8(ql0, m4), vandq_u8(vshlq_n_u8(qh0, 4), m2)));
                v[1] = vreinterpretq_s8_u8(vorrq_u8(vandq_u8(ql1, m4), vandq_u8(vshlq_n_u8(qh1, 4), m2)));
                v[2] = vreinterpretq_s8_u8(vorrq_u8(vandq_u8(ql2, m4), vandq_u8(vshlq_n_u8(qh0, 2), m2)));
                v[3] = vreinterpretq_s8_u8(vorrq_u8(vandq_u8(ql3, m4), vandq_u8(vshlq_n_u8(qh1, 2), m2)));
                v[4] = vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(ql0, 4), vandq_u8(qh0, m2)));
                v[5] = vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(ql1, 4), vandq_u8(qh1, m2)));
                v[6] = vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(ql2, 4), vandq_u8(vshrq_n_u8(qh0, 2), m2)));
                v[7] = vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(ql3, 4), vandq_u8(vshrq_n_u8(qh1, 2), m2)));
                for (int g = 0; g < 8; g++) {
                    const int8x16_t w = vsubq_s8(v[g], e32);
                    for (int j = 0; j < NC; j++) {
                        const int32x4_t d = dot_s8(vdupq_n_s32(0), w, load_s8(y[j][ib].qs + 128 * h + 16 * g));
                        sumv[j]           = vmlaq_n_s32(sumv[j], d, sc[g]);
                    }
                }
            }
            const float d = fp16_to_f32(x[ib].d);
            for (int j = 0; j < NC; j++)
                sum[j] += d * y[j][ib].d * (float) vaddvq_s32(sumv[j]);
        }
        for (int j = 0; j < NC; j++)
            s[j] = sum[j];
    }
};

// sum over the 16 sub-blocks of 16 of (scales[j] >> 4) * bsums[j]: the q2_K min term
inline int32_t q2_K_mins_dot_bsums(const uint8_t * scales, const int16_t * bsums) {
    const uint8x16_t m   = vshrq_n_u8(vld1q_u8(scales), 4);
    const int16x8_t  m0  = vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(m)));
    const int16x8_t  m1  = vreinterpretq_s16_u16(vmovl_high_u8(m));
    const int16x8_t  bs0 = vld1q_s16(bsums), bs1 = vld1q_s16(bsums + 8);
    int32x4_t        acc = vmull_s16(vget_low_s16(m0), vget_low_s16(bs0));
    acc                  = vmlal_high_s16(acc, m0, bs0);
    acc                  = vmlal_s16(acc, vget_low_s16(m1), vget_low_s16(bs1));
    return vaddvq_s32(vmlal_high_s16(acc, m1, bs1));
}

// q2_K / q3_K: per column sumv += dot(first 16) * s0 + dot(second 16) * s1 for the decoded 32 values
// of group (h, j), whose activations start at 128h + 32j
template <int NC>
inline void k2_group(int32x4_t (&sumv)[NC], const block_q8_K * const * y, int ib, int off, int8x16_t w0, int8x16_t w1,
                     int s0, int s1) {
    for (int j = 0; j < NC; j++) {
        const int8_t *  q8 = y[j][ib].qs + off;
        const int32x4_t d0 = dot_s8(vdupq_n_s32(0), w0, load_s8(q8));
        const int32x4_t d1 = dot_s8(vdupq_n_s32(0), w1, load_s8(q8 + 16));
        sumv[j]            = vmlaq_n_s32(sumv[j], d0, s0);
        sumv[j]            = vmlaq_n_s32(sumv[j], d1, s1);
    }
}

// The 32 decoded weights of group g = 4h + j of a q2_K / q3_K super-block (values 32g..32g+31) and
// the scales of its two sub-blocks of 16; the decoders are called for g = 0..7 in order after start().
// fold1 adds one (row, column) super-block result to its float sum, as the scalar reference does.
struct k2_group_w {
    int8x16_t w0, w1;
    int       s0, s1;
};

struct q2_K_dec {
    typedef block_q2_K block;
    uint8x16_t         q0, q1;
    uint8_t            sc[16];
    // element 128h + 32j + l: bits 2j..2j+1 of qs[32h + l]; sub-block of 16 (8h + 2j + l/16) has the
    // scale in the low nibble of its byte
    void       start(const block_q2_K & x) { vst1q_u8(sc, vandq_u8(vld1q_u8(x.scales), vdupq_n_u8(0x0F))); }
    k2_group_w next(const block_q2_K & x, int g) {
        const uint8x16_t m3 = vdupq_n_u8(3);
        if (g % 4 == 0) {
            q0 = vld1q_u8(x.qs + 8 * g);
            q1 = vld1q_u8(x.qs + 8 * g + 16);
        }
        const k2_group_w w = {vreinterpretq_s8_u8(vandq_u8(q0, m3)), vreinterpretq_s8_u8(vandq_u8(q1, m3)), sc[2 * g],
                              sc[2 * g + 1]};
        q0                 = vshrq_n_u8(q0, 2);
        q1                 = vshrq_n_u8(q1, 2);
        return w;
    }
    static void fold1(float & sum, const block_q2_K & x, const block_q8_K & y, int sumi) {
        const int summ = q2_K_mins_dot_bsums(x.scales, y.bsums);
        sum += y.d * (fp16_to_f32(x.d) * (float) sumi - fp16_to_f32(x.dmin) * (float) summ);
    }
};

struct q3_K_dec {
    typedef block_q3_K block;
    uint8x16_t         q0, q1, hm0, hm1;
    int8_t             sc[16];
    // element 128h + 32j + l: 2 low bits as q2_K, bit 2 at bit 4h + j of hmask[l]; the value is
    // (low | bit 2 << 2) - 4, and hmask is shifted down one bit per group of 32
    void start(const block_q3_K & x) {
        // ggml_q3_K_scales for all 16 at once: the low 4 bits are the nibbles of bytes 0-7 (low ones
        // first), the top 2 bits of scale i are bits 2(i/4).. of byte 8 + i%4 (that word repeated and
        // shifted per lane)
        static const int8_t shifts[16] = {0, 0, 0, 0, -2, -2, -2, -2, -4, -4, -4, -4, -6, -6, -6, -6};
        uint32_t            w;
        memcpy(&w, x.scales + 8, 4);
        const uint8x8_t  b  = vld1_u8(x.scales);
        const uint8x16_t lo = vcombine_u8(vand_u8(b, vdup_n_u8(0x0F)), vshr_n_u8(b, 4));
        const uint8x16_t hi = vandq_u8(vshlq_u8(vreinterpretq_u8_u32(vdupq_n_u32(w)), vld1q_s8(shifts)), vdupq_n_u8(3));
        vst1q_s8(sc, vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(lo, vshlq_n_u8(hi, 4))), vdupq_n_s8(32)));
        hm0 = vld1q_u8(x.hmask);
        hm1 = vld1q_u8(x.hmask + 16);
    }
    k2_group_w next(const block_q3_K & x, int g) {
        const uint8x16_t m3 = vdupq_n_u8(3), b1 = vdupq_n_u8(1);
        const int8x16_t  e4 = vdupq_n_s8(4);
        if (g % 4 == 0) {
            q0 = vld1q_u8(x.qs + 8 * g);
            q1 = vld1q_u8(x.qs + 8 * g + 16);
        }
        const uint8x16_t u0 = vorrq_u8(vandq_u8(q0, m3), vshlq_n_u8(vandq_u8(hm0, b1), 2));
        const uint8x16_t u1 = vorrq_u8(vandq_u8(q1, m3), vshlq_n_u8(vandq_u8(hm1, b1), 2));
        q0                  = vshrq_n_u8(q0, 2);
        q1                  = vshrq_n_u8(q1, 2);
        hm0                 = vshrq_n_u8(hm0, 1);
        hm1                 = vshrq_n_u8(hm1, 1);
        return {vsubq_s8(vreinterpretq_s8_u8(u0), e4), vsubq_s8(vreinterpretq_s8_u8(u1), e4), sc[2 * g], sc[2 * g + 1]};
    }
    static void fold1(float & sum, const block_q3_K & x, const block_q8_K & y, int sumi) {
        sum += fp16_to_f32(x.d) * y.d * (float) sumi;
    }
};

template <class DEC, int NC>
struct kq_k2 {
    static void run(int n, const void * vx, const block_q8_K * const * y, float * s) {
        const typename DEC::block * x       = (const typename DEC::block *) vx;
        float                       sum[NC] = {};
        DEC                         dec;
        for (int ib = 0; ib < n / QK_K; ib++) {
            int32x4_t sumv[NC];
            for (auto & v : sumv)
                v = vdupq_n_s32(0);
            dec.start(x[ib]);
            for (int g = 0; g < 8; g++) {
                const k2_group_w w = dec.next(x[ib], g);
                k2_group<NC>(sumv, y, ib, 32 * g, w.w0, w.w1, w.s0, w.s1);
            }
            for (int j = 0; j < NC; j++)
                DEC::fold1(sum[j], x[ib], y[j][ib], vaddvq_s32(sumv[j]));
        }
        for (int j = 0; j < NC; j++)
            s[j] = sum[j];
    }
};

template <int NC>
using kq_q2_K = kq_k2<q2_K_dec, NC>;
template <int NC>
using kq_q3_K = kq_k2<q3_K_dec, NC>;

// the vec_dot of a K-quant: its kernel with one column
template <template <int> class KQ>
void vec_dot_kq(int n, float * s, const void * vx, const void * vy) {
    const block_q8_K * y = (const block_q8_K *) vy;
    KQ<1>::run(n, vx, &y, s);
}

template <template <int> class KQ, int NC>
inline void kq_rows(int n, int nrows, const void * w, size_t w_row_stride, const block_q8_K * const * y,
                    float * const * out) {
    float s[NC];
    for (int r = 0; r < nrows; r++) {
        KQ<NC>::run(n, (const char *) w + (size_t) r * w_row_stride, y, s);
        for (int j = 0; j < NC; j++)
            out[j][r] = s[j];
    }
}

// Prefill: the weight rows against groups of up to KQ_NC activation rows (the group's activations,
// KQ_NC x n bytes, stay in L1 while the rows stream past once per group).
template <template <int> class KQ>
void gemm_kq(int n, int nrows, const void * w, size_t w_row_stride, int ncols, const void * const * y,
             float * const * out) {
    for (int c0 = 0; c0 < ncols; c0 += KQ_NC) {
        const block_q8_K * yc[KQ_NC];
        const int          nc = ncols - c0 < KQ_NC ? ncols - c0 : KQ_NC;
        for (int j = 0; j < nc; j++)
            yc[j] = (const block_q8_K *) y[c0 + j];
        float * const * o = out + c0;
        switch (nc) {
            case 1:
                kq_rows<KQ, 1>(n, nrows, w, w_row_stride, yc, o);
                break;
            case 2:
                kq_rows<KQ, 2>(n, nrows, w, w_row_stride, yc, o);
                break;
            case 3:
                kq_rows<KQ, 3>(n, nrows, w, w_row_stride, yc, o);
                break;
            default:
                kq_rows<KQ, 4>(n, nrows, w, w_row_stride, yc, o);
                break;
        }
    }
}

void vec_dot_iq4_xs_q8_K_neon(int n, float * s, const void * vx, const void * vy) {
    const block_iq4_xs * x   = (const block_iq4_xs *) vx;
    const block_q8_K *   y   = (const block_q8_K *) vy;
    const int8x16_t      tbl = vld1q_s8(ggml_kvalues_iq4nl);
    float                sum = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        int32x4_t sumv = vdupq_n_s32(0);
        for (int j = 0; j < 8; j++) {
            const uint8x16_t q  = vld1q_u8(x[ib].qs + 16 * j);
            const int8x16_t  lo = vqtbl1q_s8(tbl, vandq_u8(q, vdupq_n_u8(0x0F)));
            const int8x16_t  hi = vqtbl1q_s8(tbl, vshrq_n_u8(q, 4));
            const int8_t *   q8 = y[ib].qs + 32 * j;
            // 6-bit scale: 4 bits in scales_l (two per byte), 2 in scales_h
            const int ls = ((x[ib].scales_l[j / 2] >> (4 * (j % 2))) & 0xF) | (((x[ib].scales_h >> (2 * j)) & 3) << 4);
            sumv         = vmlaq_n_s32(sumv, dot_s8x2(lo, load_s8(q8), hi, load_s8(q8 + 16)), ls - 32);
        }
        sum += fp16_to_f32(x[ib].d) * y[ib].d * (float) vaddvq_s32(sumv);
    }
    *s = sum;
}

void vec_dot_q8_K_q8_K_neon(int n, float * s, const void * vx, const void * vy) {
    const block_q8_K * x   = (const block_q8_K *) vx;
    const block_q8_K * y   = (const block_q8_K *) vy;
    float              sum = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        int32x4_t p = vdupq_n_s32(0);
        for (int j = 0; j < QK_K; j += 16) {
            p = dot_s8(p, load_s8(x[ib].qs + j), load_s8(y[ib].qs + j));
        }
        sum += x[ib].d * y[ib].d * (float) vaddvq_s32(p);
    }
    *s = sum;
}

// ---- MXFP4 (against q8_0) and the ternary types (against q8_K) ------------------------------------
void vec_dot_mxfp4_q8_0_neon(int n, float * s, const void * vx, const void * vy) {
    const block_mxfp4 * x   = (const block_mxfp4 *) vx;
    const block_q8_0 *  y   = (const block_q8_0 *) vy;
    const int8x16_t     tbl = vld1q_s8(ggml_kvalues_mxfp4);
    float32x4_t         acc = vdupq_n_f32(0.0f);
    for (int ib = 0; ib < n / QK_MXFP4; ib++) {
        const uint8x16_t q  = vld1q_u8(x[ib].qs);
        const int8x16_t  lo = vqtbl1q_s8(tbl, vandq_u8(q, vdupq_n_u8(0x0F)));
        const int8x16_t  hi = vqtbl1q_s8(tbl, vshrq_n_u8(q, 4));
        const int32x4_t  p  = dot_s8x2(lo, load_s8(y[ib].qs), hi, load_s8(y[ib].qs + 16));
        acc = vmlaq_n_f32(acc, vcvtq_f32_s32(p), ggml_e8m0_to_fp32_half(x[ib].e) * fp16_to_f32(y[ib].d));
    }
    *s = vaddvq_f32(acc);
}

// sum of all 256 activations of a q8_K block (|sum| <= 256 * 127 needs the int32 reduction)
inline int32_t q8_K_sum(const block_q8_K * y) {
    return vaddlvq_s16(vld1q_s16(y->bsums)) + vaddlvq_s16(vld1q_s16(y->bsums + 8));
}

// trits t in {0, 1, 2} stand for t - 1: dot(t, y) - sum(y)
void vec_dot_tq2_0_q8_K_neon(int n, float * s, const void * vx, const void * vy) {
    const block_tq2_0 * x   = (const block_tq2_0 *) vx;
    const block_q8_K *  y   = (const block_q8_K *) vy;
    const uint8x16_t    m3  = vdupq_n_u8(3);
    float               sum = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        const int8_t * q8 = y[ib].qs;
        int32x4_t      p  = vdupq_n_s32(0);
        // byte 32j + m holds element 128j + 32l + m in bits 2l..2l+1
        for (int j = 0; j < 2; j++) {
            uint8x16_t q0 = vld1q_u8(x[ib].qs + 32 * j);
            uint8x16_t q1 = vld1q_u8(x[ib].qs + 32 * j + 16);
            for (int l = 0; l < 4; l++, q8 += 32) {
                p  = dot_s8(p, vreinterpretq_s8_u8(vandq_u8(q0, m3)), load_s8(q8));
                p  = dot_s8(p, vreinterpretq_s8_u8(vandq_u8(q1, m3)), load_s8(q8 + 16));
                q0 = vshrq_n_u8(q0, 2);
                q1 = vshrq_n_u8(q1, 2);
            }
        }
        sum += fp16_to_f32(x[ib].d) * y[ib].d * (float) (vaddvq_s32(p) - q8_K_sum(&y[ib]));
    }
    *s = sum;
}

// the top base-3 digit of each byte (ggml-quants.h): (b * 3) >> 8; the caller has already multiplied
// b by 3^k mod 256 to bring digit k to the top
inline int8x16_t top_trit(uint8x16_t b) {
    const uint8x8_t three = vdup_n_u8(3);
    return vreinterpretq_s8_u8(
        vcombine_u8(vshrn_n_u16(vmull_u8(vget_low_u8(b), three), 8), vshrn_n_u16(vmull_high_u8(b, vdupq_n_u8(3)), 8)));
}

void vec_dot_tq1_0_q8_K_neon(int n, float * s, const void * vx, const void * vy) {
    const block_tq1_0 *  x       = (const block_tq1_0 *) vx;
    const block_q8_K *   y       = (const block_q8_K *) vy;
    static const uint8_t pow3[5] = {1, 3, 9, 27, 81};
    // lane 4k + m of the qh vector: trit k of qh[m]
    static const uint8_t qh_pow3[16] = {1, 1, 1, 1, 3, 3, 3, 3, 9, 9, 9, 9, 27, 27, 27, 27};
    const uint8x16_t     qh_mul      = vld1q_u8(qh_pow3);
    float                sum         = 0.0f;
    for (int ib = 0; ib < n / QK_K; ib++) {
        const int8_t *   q8 = y[ib].qs;
        const uint8x16_t a0 = vld1q_u8(x[ib].qs), a1 = vld1q_u8(x[ib].qs + 16), a2 = vld1q_u8(x[ib].qs + 32);
        int32x4_t        p = vdupq_n_s32(0);
        // qs[0..31] trit k -> element 32k + m; qs[32..47] trit k -> 160 + 16k + m
        for (int k = 0; k < 5; k++) {
            const uint8x16_t pk = vdupq_n_u8(pow3[k]);
            p                   = dot_s8(p, top_trit(vmulq_u8(a0, pk)), load_s8(q8 + 32 * k));
            p                   = dot_s8(p, top_trit(vmulq_u8(a1, pk)), load_s8(q8 + 32 * k + 16));
            p                   = dot_s8(p, top_trit(vmulq_u8(a2, pk)), load_s8(q8 + 160 + 16 * k));
        }
        // qh[0..3] trit k -> element 240 + 4k + m
        uint32_t qh;
        memcpy(&qh, x[ib].qh, 4);
        const uint8x16_t h = vmulq_u8(vreinterpretq_u8_u32(vdupq_n_u32(qh)), qh_mul);
        p                  = dot_s8(p, top_trit(h), load_s8(q8 + 240));
        sum += fp16_to_f32(x[ib].d) * y[ib].d * (float) (vaddvq_s32(p) - q8_K_sum(&y[ib]));
    }
    *s = sum;
}

// Installs every kernel of this file into a traits table.
inline void fill_arm_table(ggml_cpu_type_traits * t) {
    const ggml_type q8_0_users[] = {GGML_TYPE_Q4_0, GGML_TYPE_Q5_0, GGML_TYPE_Q8_0, GGML_TYPE_IQ4_NL, GGML_TYPE_MXFP4};
    for (ggml_type ty : q8_0_users) {
        t[ty].from_float = quantize_row_q8_0_neon;
    }
    const ggml_type q8_K_users[] = {GGML_TYPE_Q2_K,    GGML_TYPE_Q3_K,    GGML_TYPE_Q4_K,   GGML_TYPE_Q5_K,
                                    GGML_TYPE_Q6_K,    GGML_TYPE_Q8_K,    GGML_TYPE_IQ4_XS, GGML_TYPE_TQ1_0,
                                    GGML_TYPE_TQ2_0,   GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ2_XS, GGML_TYPE_IQ2_S,
                                    GGML_TYPE_IQ3_XXS, GGML_TYPE_IQ3_S,   GGML_TYPE_IQ1_S,  GGML_TYPE_IQ1_M};
    for (ggml_type ty : q8_K_users) {
        t[ty].from_float = quantize_row_q8_K_neon;
    }
    const ggml_type q8_1_users[] = {GGML_TYPE_Q4_1, GGML_TYPE_Q5_1, GGML_TYPE_Q8_1};
    for (ggml_type ty : q8_1_users) {
        t[ty].from_float = quantize_row_q8_1_neon;
    }
    t[GGML_TYPE_Q4_0].vec_dot   = vec_dot_sym_q8_0<block_q4_0, dec_q4_0>;
    t[GGML_TYPE_Q5_0].vec_dot   = vec_dot_sym_q8_0<block_q5_0, dec_q5_0>;
    t[GGML_TYPE_Q8_0].vec_dot   = vec_dot_sym_q8_0<block_q8_0, dec_q8_0>;
    t[GGML_TYPE_IQ4_NL].vec_dot = vec_dot_sym_q8_0<block_iq4_nl, dec_iq4_nl>;
    t[GGML_TYPE_Q4_1].vec_dot   = vec_dot_aff_q8_1<block_q4_1, dec_q4_1>;
    t[GGML_TYPE_Q5_1].vec_dot   = vec_dot_aff_q8_1<block_q5_1, dec_q5_1>;
    t[GGML_TYPE_Q2_K].vec_dot   = vec_dot_kq<kq_q2_K>;
    t[GGML_TYPE_Q3_K].vec_dot   = vec_dot_kq<kq_q3_K>;
    t[GGML_TYPE_Q4_K].vec_dot   = vec_dot_kq<kq_q4_K>;
    t[GGML_TYPE_Q5_K].vec_dot   = vec_dot_kq<kq_q5_K>;
    t[GGML_TYPE_Q6_K].vec_dot   = vec_dot_kq<kq_q6_K>;
    t[GGML_TYPE_Q2_K].gemm      = gemm_kq<kq_q2_K>;
    t[GGML_TYPE_Q3_K].gemm      = gemm_kq<kq_q3_K>;
    t[GGML_TYPE_Q4_K].gemm      = gemm_kq<kq_q4_K>;
    t[GGML_TYPE_Q5_K].gemm      = gemm_kq<kq_q5_K>;
    t[GGML_TYPE_Q6_K].gemm      = gemm_kq<kq_q6_K>;
    t[GGML_TYPE_Q8_K].vec_dot   = vec_dot_q8_K_q8_K_neon;
    t[GGML_TYPE_IQ4_XS].vec_dot = vec_dot_iq4_xs_q8_K_neon;
    t[GGML_TYPE_MXFP4].vec_dot  = vec_dot_mxfp4_q8_0_neon;
    t[GGML_TYPE_TQ1_0].vec_dot  = vec_dot_tq1_0_q8_K_neon;
    t[GGML_TYPE_TQ2_0].vec_dot  = vec_dot_tq2_0_q8_K_neon;
}

}  // namespace
