// Shared by the arm64 CPU_REPACK kernel files (cpu-repack.neon.cpp, .dotprod.cpp, .i8mm.cpp, each
// compiled for its own level): the group kernels for Q4_0 / Q8_0 / Q4_K / Q6_K over the layout in
// cpu-repack.h. The layout keeps 4 rows x 4 quant bytes in each 16-byte vector, which is exactly the
// operand shape of SDOT by lane: one instruction gives 4 rows' partial sums against 4 activation bytes.
// Only that dot primitive differs between the levels (SDOT where __ARM_FEATURE_DOTPROD, a widening
// multiply + pairwise add on plain NEON, USDOT for Q8_0's unsigned bytes with i8mm); the structure and
// the per-block float accumulation (fma in block order, as the scalar reference) are the same, so every
// level gives the reference's bits. Everything has internal linkage, so no TU's copy (compiled with
// another level's flags) can stand in for another's.
#pragma once

#include <arm_neon.h>

#include <type_traits>

#include "cpu-repack.h"

namespace {

constexpr int ARM_R = (int) GGML_REPACK_ROWS;

// f(std::integral_constant<int, i>) for i = 0..N-1: lane indices must be compile-time constants.
template <int I, int N, typename F>
inline void static_for(F && f) {
    if constexpr (I < N) {
        f(std::integral_constant<int, I>{});
        static_for<I + 1, N>(f);
    }
}

// acc[i] += sum_t w[4i + t] * y[4L + t] for the 4 rows i of w (4 bytes each).
template <int L>
inline int32x4_t dot_lane(int32x4_t acc, int8x16_t w, int8x16_t y) {
#if defined(__ARM_FEATURE_DOTPROD)
    return vdotq_laneq_s32(acc, w, y, L);
#else
    // broadcast the 4 activation bytes, 16-bit products, then pairs: the int16 pair sums cannot
    // overflow because one factor of every product is at most 127 in magnitude (the 4- and 6-bit
    // weights are 0..63; Q8_0 activations come from the Q8_0 quantizer, |q| <= 127)
    const int8x16_t yb = vreinterpretq_s8_s32(vdupq_laneq_s32(vreinterpretq_s32_s8(y), L));
    const int16x8_t lo = vmull_s8(vget_low_s8(w), vget_low_s8(yb));
    const int16x8_t hi = vmull_high_s8(w, yb);
    return vpadalq_s16(acc, vpaddq_s16(lo, hi));
#endif
}

inline float32x4_t f16x4(const uint8_t * p) {  // 4 fp16 values (exact conversion)
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *) p)));
}

// Runs of up to NC_MAX activation rows per group, each count its own instantiation of GROUP.
template <int N, int NC_MAX, typename F>
inline void arm_call_nc(int n, F & f, int64_t g, int c0) {
    if constexpr (N < NC_MAX) {
        if (n != N) {
            arm_call_nc<N + 1, NC_MAX>(n, f, g, c0);
            return;
        }
    }
    f(std::integral_constant<int, N>{}, g, c0);
}

template <int NC_MAX, typename F>
inline void arm_run_groups(int64_t ng, int ncols, F && f) {
    for (int64_t g = 0; g < ng; ++g)
        for (int c0 = 0; c0 < ncols; c0 += NC_MAX)
            arm_call_nc<1, NC_MAX>(ncols - c0 < NC_MAX ? ncols - c0 : NC_MAX, f, g, c0);
}

// acc[c][rg] = fma(float(isum[c][rg]), d_w(rows 4rg..) * d_y[c], acc) for one block
template <int NC>
inline void fold_block(float32x4_t (&acc)[NC][4], const int32x4_t (&isum)[NC][4], const uint8_t * d16,
                       const float (&dy)[NC]) {
    for (int rg = 0; rg < 4; ++rg) {
        const float32x4_t dw = f16x4(d16 + rg * 8);
        for (int c = 0; c < NC; ++c)
            acc[c][rg] = vfmaq_f32(acc[c][rg], vcvtq_f32_s32(isum[c][rg]), vmulq_n_f32(dw, dy[c]));
    }
}

template <int NC>
inline void store_rows(const float32x4_t (&acc)[NC][4], float * const * out, int64_t row0) {
    for (int c = 0; c < NC; ++c)
        for (int rg = 0; rg < 4; ++rg)
            vst1q_f32(out[c] + row0 + rg * 4, acc[c][rg]);
}

// ---- Q4_0: per block 4 loads of 16 rows x 4 bytes; low nibbles pair with activations 0-15, high with
// 16-31. The nibbles are used unsigned (0..15) and the block's corr (8 * sum y) subtracted once.
template <int NC>
void q4_0_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    const uint8_t * quants = grp + nb * ARM_R * 2;
    float32x4_t     acc[NC][4];
    for (auto & a : acc)
        for (auto & v : a)
            v = vdupq_n_f32(0.0f);
    const uint8x16_t m4 = vdupq_n_u8(0x0F);
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * q = quants + b * ARM_R * 16;
        int32x4_t       isum[NC][4];
        int8x16_t       ylo[NC], yhi[NC];
        float           dy[NC];
        for (int c = 0; c < NC; ++c) {
            ylo[c] = vld1q_s8(y[c].qs + b * 32);
            yhi[c] = vld1q_s8(y[c].qs + b * 32 + 16);
            dy[c]  = y[c].d[b];
            for (auto & v : isum[c])
                v = vdupq_n_s32(-y[c].corr[b]);
        }
        static_for<0, 4>([&](auto J) {
            for (int rg = 0; rg < 4; ++rg) {
                const uint8x16_t v  = vld1q_u8(q + J * 64 + rg * 16);
                const int8x16_t  lo = vreinterpretq_s8_u8(vandq_u8(v, m4));
                const int8x16_t  hi = vreinterpretq_s8_u8(vshrq_n_u8(v, 4));
                for (int c = 0; c < NC; ++c) {
                    isum[c][rg] = dot_lane<J>(isum[c][rg], lo, ylo[c]);
                    isum[c][rg] = dot_lane<J>(isum[c][rg], hi, yhi[c]);
                }
            }
        });
        fold_block<NC>(acc, isum, grp + b * ARM_R * 2, dy);
    }
    store_rows<NC>(acc, out, row0);
}

// ---- Q8_0: per block 8 loads; the stored bytes are q + 128. With SDOT (and the NEON emulation)
// XOR 0x80 gives back the signed q, whose dot is the exact block sum with no correction; USDOT (i8mm)
// takes the unsigned bytes as stored and subtracts the block's corr (128 * sum y), the same integer.
template <int NC>
void q8_0_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    const uint8_t * quants = grp + nb * ARM_R * 2;
    float32x4_t     acc[NC][4];
    for (auto & a : acc)
        for (auto & v : a)
            v = vdupq_n_f32(0.0f);
#if !defined(__ARM_FEATURE_MATMUL_INT8)
    const uint8x16_t sign = vdupq_n_u8(0x80);
#endif
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * q = quants + b * ARM_R * 32;
        int32x4_t       isum[NC][4];
        int8x16_t       y0[NC], y1[NC];
        float           dy[NC];
        for (int c = 0; c < NC; ++c) {
            y0[c] = vld1q_s8(y[c].qs + b * 32);
            y1[c] = vld1q_s8(y[c].qs + b * 32 + 16);
            dy[c] = y[c].d[b];
#if defined(__ARM_FEATURE_MATMUL_INT8)
            const int32_t init = -y[c].corr[b];
#else
            const int32_t init = 0;
#endif
            for (auto & v : isum[c])
                v = vdupq_n_s32(init);
        }
        static_for<0, 8>([&](auto J) {
            constexpr int L = J % 4;
            for (int rg = 0; rg < 4; ++rg) {
                const uint8x16_t v = vld1q_u8(q + J * 64 + rg * 16);
                for (int c = 0; c < NC; ++c) {
                    const int8x16_t yv = J < 4 ? y0[c] : y1[c];
#if defined(__ARM_FEATURE_MATMUL_INT8)
                    isum[c][rg] = vusdotq_laneq_s32(isum[c][rg], v, yv, L);
#else
                    isum[c][rg] = dot_lane<L>(isum[c][rg], vreinterpretq_s8_u8(veorq_u8(v, sign)), yv);
#endif
                }
            }
        });
        fold_block<NC>(acc, isum, grp + b * ARM_R * 2, dy);
    }
    store_rows<NC>(acc, out, row0);
}

// ---- Q4_K (super-block layout in cpu-repack.h): per super-block, the 8 scales and mins of 16 rows
// unpacked with vector shifts, sub-block dots by lane, isum = sum_s sc_s * dot_s and msum = sum_s m_s *
// ysum_s exact in int32, then acc = fma(isum, d * d_y, acc) and acc = fma(-msum, dmin * d_y, acc) (FMLS
// is that fma with the product negated).
constexpr size_t ARM_K4_SB = 2304, ARM_K4_SCL = 64, ARM_K4_QS = 256;

template <int NC>
void q4_K_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    float32x4_t acc[NC][4];
    for (auto & a : acc)
        for (auto & v : a)
            v = vdupq_n_f32(0.0f);
    const uint8x16_t m4   = vdupq_n_u8(0x0F);
    const uint32x4_t m6   = vdupq_n_u32(0x3f3f3f3fu);
    const uint32x4_t lo4  = vdupq_n_u32(0x0f0f0f0fu);
    const uint32x4_t top2 = vdupq_n_u32(0x03030303u);
    const uint32x4_t byte = vdupq_n_u32(0xffu);
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * sb = grp + b * ARM_K4_SB;
        // scale bytes of sub-blocks 0-3 and 4-7 per 4 rows (as get_scale_min_k4)
        uint32x4_t s03[4], s47[4];
        int32x4_t  isum[NC][4], msum[NC][4];
        int32_t    ys[NC][8];
        float      dy[NC];
        for (int c = 0; c < NC; ++c) {
            dy[c] = y[c].d[b];
            for (int s = 0; s < 8; ++s) {
                static const int word[8] = {0, 1, 0, 1, 2, 3, 2, 3};
                const uint32_t   w       = (uint32_t) y[c].corr[b * 4 + word[s]];
                ys[c][s]                 = (int32_t) (int16_t) (((s & 2) ? w >> 16 : w) & 0xffff);
            }
        }
        for (int rg = 0; rg < 4; ++rg) {
            const uint32x4_t u0  = vld1q_u32((const uint32_t *) (sb + ARM_K4_SCL + (0 * ARM_R + rg * 4) * 4));
            const uint32x4_t u1  = vld1q_u32((const uint32_t *) (sb + ARM_K4_SCL + (1 * ARM_R + rg * 4) * 4));
            const uint32x4_t u2  = vld1q_u32((const uint32_t *) (sb + ARM_K4_SCL + (2 * ARM_R + rg * 4) * 4));
            s03[rg]              = vandq_u32(u0, m6);
            s47[rg]              = vorrq_u32(vandq_u32(u2, lo4), vshlq_n_u32(vandq_u32(vshrq_n_u32(u0, 6), top2), 4));
            const uint32x4_t m03 = vandq_u32(u1, m6);
            const uint32x4_t m47 =
                vorrq_u32(vandq_u32(vshrq_n_u32(u2, 4), lo4), vshlq_n_u32(vandq_u32(vshrq_n_u32(u1, 6), top2), 4));
            int32x4_t mn[8];
            mn[0] = vreinterpretq_s32_u32(vandq_u32(m03, byte));
            mn[1] = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(m03, 8), byte));
            mn[2] = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(m03, 16), byte));
            mn[3] = vreinterpretq_s32_u32(vshrq_n_u32(m03, 24));
            mn[4] = vreinterpretq_s32_u32(vandq_u32(m47, byte));
            mn[5] = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(m47, 8), byte));
            mn[6] = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(m47, 16), byte));
            mn[7] = vreinterpretq_s32_u32(vshrq_n_u32(m47, 24));
            for (int c = 0; c < NC; ++c) {
                int32x4_t m = vdupq_n_s32(0);
                for (int s = 0; s < 8; ++s)
                    m = vmlaq_n_s32(m, mn[s], ys[c][s]);
                msum[c][rg] = m;
                isum[c][rg] = vdupq_n_s32(0);
            }
        }
        // sub-blocks 2k (low nibbles of loads 8k..8k+7) and 2k + 1 (high nibbles)
        static_for<0, 4>([&](auto K) {
            const uint32x4_t * sw = K < 2 ? s03 : s47;
            constexpr int      sh = 16 * (K % 2);  // byte of sub-block 2k in its word
            int8x16_t          yl[NC][2], yh[NC][2];
            for (int c = 0; c < NC; ++c) {
                const int8_t * yq = y[c].qs + b * 256 + 64 * K;
                yl[c][0]          = vld1q_s8(yq);
                yl[c][1]          = vld1q_s8(yq + 16);
                yh[c][0]          = vld1q_s8(yq + 32);
                yh[c][1]          = vld1q_s8(yq + 48);
            }
            for (int rg = 0; rg < 4; ++rg) {
                int32x4_t dl[NC], dh[NC];
                for (int c = 0; c < NC; ++c)
                    dl[c] = dh[c] = vdupq_n_s32(0);
                static_for<0, 8>([&](auto JJ) {
                    const uint8x16_t v  = vld1q_u8(sb + ARM_K4_QS + (8 * K + JJ) * 64 + rg * 16);
                    const int8x16_t  lo = vreinterpretq_s8_u8(vandq_u8(v, m4));
                    const int8x16_t  hi = vreinterpretq_s8_u8(vshrq_n_u8(v, 4));
                    for (int c = 0; c < NC; ++c) {
                        dl[c] = dot_lane<JJ % 4>(dl[c], lo, yl[c][JJ / 4]);
                        dh[c] = dot_lane<JJ % 4>(dh[c], hi, yh[c][JJ / 4]);
                    }
                });
                const int32x4_t scl = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(sw[rg], sh), byte));
                const int32x4_t sch = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(sw[rg], sh + 8), byte));
                for (int c = 0; c < NC; ++c)
                    isum[c][rg] = vmlaq_s32(vmlaq_s32(isum[c][rg], dl[c], scl), dh[c], sch);
            }
        });
        for (int rg = 0; rg < 4; ++rg) {
            const float32x4_t d  = f16x4(sb + rg * 8);
            const float32x4_t dm = f16x4(sb + 32 + rg * 8);
            for (int c = 0; c < NC; ++c) {
                acc[c][rg] = vfmaq_f32(acc[c][rg], vcvtq_f32_s32(isum[c][rg]), vmulq_n_f32(d, dy[c]));
                acc[c][rg] = vfmsq_f32(acc[c][rg], vcvtq_f32_s32(msum[c][rg]), vmulq_n_f32(dm, dy[c]));
            }
        }
    }
    store_rows<NC>(acc, out, row0);
}

// ---- Q6_K: ql load 16n + 8h + m and qh load 8n + m hold values 128n + 32h + 4m.. (low nibbles, qh
// bits 2h) and 128n + 32(h + 2) + 4m.. (high nibbles, qh bits 2h + 4), the 6-bit values unsigned
// (0..63); isum = sum_s sc_s * dot_s, csum = sum_s sc_s * bsum_s, acc = fma(isum - 32 csum, d d_y, acc).
// widen_rows turns a scale vector of 16 rows into the int32 lanes of 4 of them.
constexpr size_t ARM_Q6_SB = 3360, ARM_Q6_SCL = 32, ARM_Q6_QL = 288, ARM_Q6_QH = 2336;

inline int32x4_t widen_rows(int8x16_t v, int rg) {  // int8 of 16 rows -> int32 of rows 4rg..4rg+3
    const int16x8_t h = rg < 2 ? vmovl_s8(vget_low_s8(v)) : vmovl_high_s8(v);
    return rg % 2 == 0 ? vmovl_s16(vget_low_s16(h)) : vmovl_high_s16(h);
}

template <int NC>
void q6_K_group(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
    float32x4_t acc[NC][4];
    for (auto & a : acc)
        for (auto & v : a)
            v = vdupq_n_f32(0.0f);
    const uint8x16_t m4  = vdupq_n_u8(0x0F);
    const uint8x16_t m30 = vdupq_n_u8(0x30);
    for (int64_t b = 0; b < nb; ++b) {
        const uint8_t * sb = grp + b * ARM_Q6_SB;
        int8x16x2_t     scp[8];  // scp[p].val[i]: scale of sub-block 2p + i for the 16 rows
        for (int p = 0; p < 8; ++p)
            scp[p] = vld2q_s8((const int8_t *) (sb + ARM_Q6_SCL + p * 32));
        int32x4_t       isum[NC][4];
        const int16_t * bsums[NC];
        float           dy[NC];
        for (int c = 0; c < NC; ++c) {
            dy[c]    = y[c].d[b];
            bsums[c] = (const int16_t *) (y[c].corr + b * 8);
            for (auto & v : isum[c])
                v = vdupq_n_s32(0);
        }
        static_for<0, 4>([&](auto NH) {
            constexpr int n = NH / 2, h = NH % 2;
            int8x16_t     yl[NC][2], yh[NC][2];
            for (int c = 0; c < NC; ++c) {
                const int8_t * yq = y[c].qs + b * 256 + 128 * n + 32 * h;
                yl[c][0]          = vld1q_s8(yq);
                yl[c][1]          = vld1q_s8(yq + 16);
                yh[c][0]          = vld1q_s8(yq + 64);
                yh[c][1]          = vld1q_s8(yq + 80);
            }
            for (int rg = 0; rg < 4; ++rg) {
                // sub-blocks 8n + 2h + i and 8n + 2h + 4 + i, each started at -32 * bsum_s: then
                // sum_s sc_s * d_s is isum - 32 * csum of the reference (the same exact integer) with
                // no separate pass over the scales for csum
                int32x4_t dl[NC][2], dh[NC][2];
                for (int c = 0; c < NC; ++c)
                    for (int i = 0; i < 2; ++i) {
                        dl[c][i] = vdupq_n_s32(-32 * bsums[c][8 * n + 2 * h + i]);
                        dh[c][i] = vdupq_n_s32(-32 * bsums[c][8 * n + 2 * h + 4 + i]);
                    }
                static_for<0, 8>([&](auto M) {
                    const uint8x16_t ql = vld1q_u8(sb + ARM_Q6_QL + (16 * n + 8 * h + M) * 64 + rg * 16);
                    const uint8x16_t qh = vld1q_u8(sb + ARM_Q6_QH + (8 * n + M) * 64 + rg * 16);
                    uint8x16_t       hl, hh;  // qh bits 2h and 2h + 4 moved to bits 4-5
                    if constexpr (h == 0) {
                        hl = vandq_u8(vshlq_n_u8(qh, 4), m30);
                        hh = vandq_u8(qh, m30);
                    } else {
                        hl = vandq_u8(vshlq_n_u8(qh, 2), m30);
                        hh = vandq_u8(vshrq_n_u8(qh, 2), m30);
                    }
                    const int8x16_t lo = vreinterpretq_s8_u8(vorrq_u8(vandq_u8(ql, m4), hl));
                    const int8x16_t hi = vreinterpretq_s8_u8(vorrq_u8(vshrq_n_u8(ql, 4), hh));
                    for (int c = 0; c < NC; ++c) {
                        dl[c][M / 4] = dot_lane<M % 4>(dl[c][M / 4], lo, yl[c][M / 4]);
                        dh[c][M / 4] = dot_lane<M % 4>(dh[c][M / 4], hi, yh[c][M / 4]);
                    }
                });
                // sub-block 8n + 2h + i has scale pair p = 4n + h; + 4 sub-blocks is p + 2
                for (int i = 0; i < 2; ++i) {
                    const int32x4_t scl = widen_rows(scp[4 * n + h].val[i], rg);
                    const int32x4_t sch = widen_rows(scp[4 * n + h + 2].val[i], rg);
                    for (int c = 0; c < NC; ++c)
                        isum[c][rg] = vmlaq_s32(vmlaq_s32(isum[c][rg], dl[c][i], scl), dh[c][i], sch);
                }
            }
        });
        for (int rg = 0; rg < 4; ++rg) {
            const float32x4_t d = f16x4(sb + rg * 8);
            for (int c = 0; c < NC; ++c)
                acc[c][rg] = vfmaq_f32(acc[c][rg], vcvtq_f32_s32(isum[c][rg]), vmulq_n_f32(d, dy[c]));
        }
    }
    store_rows<NC>(acc, out, row0);
}

// Activation rows kept in registers per group: Q4_0 / Q8_0 have 4 int32 sums + 4 float sums per row and
// few temporaries; the K-quants also hold scales and per-sub-block dots.
constexpr int ARM_NC_SMALL = 4;
constexpr int ARM_NC_K     = 2;

}  // namespace

// A ggml_repack_kernel_t named NAME over the group kernel template GROUP<NC>, NC = 1..NC_MAX. No
// software prefetch: the weight stream is sequential, which the arm64 cores' hardware prefetchers
// follow.
#define GGML_REPACK_ARM_KERNEL(NAME, GROUP, NC_MAX)                                                    \
    void NAME(int64_t nb, int64_t ng, const uint8_t * w, size_t gb, int nc, const ggml_repack_act * y, \
              float * const * out) {                                                                   \
        arm_run_groups<NC_MAX>(ng, nc, [&](auto n, int64_t g, int c0) {                                \
            GROUP<decltype(n)::value>(nb, w + g * gb, y + c0, out + c0, g * GGML_REPACK_ROWS);         \
        });                                                                                            \
    }

// The four kernels of one level in namespace-local functions, returned as a set.
#define GGML_REPACK_ARM_KERNEL_SET(FN)                                                 \
    namespace {                                                                        \
    GGML_REPACK_ARM_KERNEL(arm_q4_0, q4_0_group, ARM_NC_SMALL)                         \
    GGML_REPACK_ARM_KERNEL(arm_q8_0, q8_0_group, ARM_NC_SMALL)                         \
    GGML_REPACK_ARM_KERNEL(arm_q4_K, q4_K_group, ARM_NC_K)                             \
    GGML_REPACK_ARM_KERNEL(arm_q6_K, q6_K_group, ARM_NC_K)                             \
    }                                                                                  \
    const ggml_repack_kernels * FN() {                                                 \
        static const ggml_repack_kernels k = {arm_q4_0, arm_q8_0, arm_q4_K, arm_q6_K}; \
        return &k;                                                                     \
    }
