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

// Row passes: a group kernel GROUP<NC, NRG, RG0> handles the NRG row groups of 4 from RG0 over all
// blocks. With many activation columns the 16 rows run as two passes of 8 (NRG = 2): the accumulators,
// block sums and unpacked scales then fit in the 32 vector registers instead of being spilled to the
// stack every block; the cost is loading each block's activations (and scales) once per pass. The
// float accumulation of every row is unchanged (its blocks in order), so the bits do not depend on NRG.
template <int NC, int NRG, template <int, int, int> class GROUP>
inline void arm_row_passes(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out,
                           int64_t row0) {
    if constexpr (NRG == 4) {
        GROUP<NC, 4, 0>::run(nb, grp, y, out, row0);
    } else {
        GROUP<NC, 2, 0>::run(nb, grp, y, out, row0);
        GROUP<NC, 2, 2>::run(nb, grp, y, out, row0);
    }
}

template <int NC, int NRG>
inline void zero_acc(float32x4_t (&acc)[NC][NRG]) {
    for (auto & a : acc)
        for (auto & v : a)
            v = vdupq_n_f32(0.0f);
}

// acc[c][i] = fma(float(isum[c][i]), d_w(rows 4(RG0 + i)..) * d_y[c], acc) for one block
template <int NC, int NRG, int RG0>
inline void fold_block(float32x4_t (&acc)[NC][NRG], const int32x4_t (&isum)[NC][NRG], const uint8_t * d16,
                       const float (&dy)[NC]) {
    for (int i = 0; i < NRG; ++i) {
        const float32x4_t dw = f16x4(d16 + (RG0 + i) * 8);
        for (int c = 0; c < NC; ++c)
            acc[c][i] = vfmaq_f32(acc[c][i], vcvtq_f32_s32(isum[c][i]), vmulq_n_f32(dw, dy[c]));
    }
}

template <int NC, int NRG, int RG0>
inline void store_rows(const float32x4_t (&acc)[NC][NRG], float * const * out, int64_t row0) {
    for (int c = 0; c < NC; ++c)
        for (int i = 0; i < NRG; ++i)
            vst1q_f32(out[c] + row0 + (RG0 + i) * 4, acc[c][i]);
}

// ---- Q4_0: per block 4 loads of 16 rows x 4 bytes; low nibbles pair with activations 0-15, high with
// 16-31. The nibbles are used unsigned (0..15) and the block's corr (8 * sum y) subtracted once.
template <int NC, int NRG, int RG0>
struct q4_0_rows {
    static void run(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
        const uint8_t * quants = grp + nb * ARM_R * 2;
        float32x4_t     acc[NC][NRG];
        zero_acc(acc);
        const uint8x16_t m4 = vdupq_n_u8(0x0F);
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t * q = quants + b * ARM_R * 16;
            int32x4_t       isum[NC][NRG];
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
                for (int i = 0; i < NRG; ++i) {
                    const uint8x16_t v  = vld1q_u8(q + J * 64 + (RG0 + i) * 16);
                    const int8x16_t  lo = vreinterpretq_s8_u8(vandq_u8(v, m4));
                    const int8x16_t  hi = vreinterpretq_s8_u8(vshrq_n_u8(v, 4));
                    for (int c = 0; c < NC; ++c) {
                        isum[c][i] = dot_lane<J>(isum[c][i], lo, ylo[c]);
                        isum[c][i] = dot_lane<J>(isum[c][i], hi, yhi[c]);
                    }
                }
            });
            fold_block<NC, NRG, RG0>(acc, isum, grp + b * ARM_R * 2, dy);
        }
        store_rows<NC, NRG, RG0>(acc, out, row0);
    }
};

// ---- Q8_0: per block 8 loads; the stored bytes are q + 128. With SDOT (and the NEON emulation)
// XOR 0x80 gives back the signed q, whose dot is the exact block sum with no correction; USDOT (i8mm)
// takes the unsigned bytes as stored and subtracts the block's corr (128 * sum y), the same integer.
template <int NC, int NRG, int RG0>
struct q8_0_rows {
    static void run(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
        const uint8_t * quants = grp + nb * ARM_R * 2;
        float32x4_t     acc[NC][NRG];
        zero_acc(acc);
#if !defined(__ARM_FEATURE_MATMUL_INT8)
        const uint8x16_t sign = vdupq_n_u8(0x80);
#endif
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t * q = quants + b * ARM_R * 32;
            int32x4_t       isum[NC][NRG];
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
                for (int i = 0; i < NRG; ++i) {
                    const uint8x16_t v = vld1q_u8(q + J * 64 + (RG0 + i) * 16);
                    for (int c = 0; c < NC; ++c) {
                        const int8x16_t yv = J < 4 ? y0[c] : y1[c];
#if defined(__ARM_FEATURE_MATMUL_INT8)
                        isum[c][i] = vusdotq_laneq_s32(isum[c][i], v, yv, L);
#else
                        isum[c][i] = dot_lane<L>(isum[c][i], vreinterpretq_s8_u8(veorq_u8(v, sign)), yv);
#endif
                    }
                }
            });
            fold_block<NC, NRG, RG0>(acc, isum, grp + b * ARM_R * 2, dy);
        }
        store_rows<NC, NRG, RG0>(acc, out, row0);
    }
};

// ---- Q4_K (super-block layout in cpu-repack.h): sub-block dots by lane, isum = sum_s sc_s * dot_s and
// msum = sum_s m_s * ysum_s exact in int32, then acc = fma(isum, d * d_y, acc) and acc = fma(-msum,
// dmin * d_y, acc) (FMLS is that fma with the product negated). Register budget: only the scale words
// (one uint32 of 4 six-bit scales per row) and isum stay live across the sub-block loop; the mins are
// unpacked after it, when the dot temporaries are dead, and multiplied by the activation's sub-block
// sums by lane (ysum widened once per super-block), not by scalars.
constexpr size_t ARM_K4_SB = 2304, ARM_K4_SCL = 64, ARM_K4_QS = 256;

template <int NC, int NRG, int RG0>
struct q4_K_rows {
    static void run(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
        float32x4_t acc[NC][NRG];
        zero_acc(acc);
        const uint8x16_t m4   = vdupq_n_u8(0x0F);
        const uint32x4_t m6   = vdupq_n_u32(0x3f3f3f3fu);
        const uint32x4_t lo4  = vdupq_n_u32(0x0f0f0f0fu);
        const uint32x4_t top2 = vdupq_n_u32(0x03030303u);
        const uint32x4_t byte = vdupq_n_u32(0xffu);
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t * sb  = grp + b * ARM_K4_SB;
            const uint8_t * scl = sb + ARM_K4_SCL;
            // word t of the packed scale bytes for rows 4rg..4rg+3
            auto sword = [&](int t, int rg) { return vld1q_u32((const uint32_t *) (scl + (t * ARM_R + rg * 4) * 4)); };
            // scale bytes of sub-blocks 0-3 and 4-7 per 4 rows (as get_scale_min_k4)
            uint32x4_t s03[NRG], s47[NRG];
            int32x4_t  isum[NC][NRG];
            for (int i = 0; i < NRG; ++i) {
                const uint32x4_t u0 = sword(0, RG0 + i), u2 = sword(2, RG0 + i);
                s03[i] = vandq_u32(u0, m6);
                s47[i] = vorrq_u32(vandq_u32(u2, lo4), vshlq_n_u32(vandq_u32(vshrq_n_u32(u0, 6), top2), 4));
                for (int c = 0; c < NC; ++c)
                    isum[c][i] = vdupq_n_s32(0);
            }
            // sub-blocks 2k (low nibbles of loads 8k..8k+7) and 2k + 1 (high nibbles)
            static_for<0, 4>([&](auto K) {
                constexpr int sh = 16 * (K % 2);  // byte of sub-block 2k in its word
                int8x16_t     yl[NC][2], yh[NC][2];
                for (int c = 0; c < NC; ++c) {
                    const int8_t * yq = y[c].qs + b * 256 + 64 * K;
                    yl[c][0]          = vld1q_s8(yq);
                    yl[c][1]          = vld1q_s8(yq + 16);
                    yh[c][0]          = vld1q_s8(yq + 32);
                    yh[c][1]          = vld1q_s8(yq + 48);
                }
                for (int i = 0; i < NRG; ++i) {
                    int32x4_t dl[NC], dh[NC];
                    for (int c = 0; c < NC; ++c)
                        dl[c] = dh[c] = vdupq_n_s32(0);
                    static_for<0, 8>([&](auto JJ) {
                        const uint8x16_t v  = vld1q_u8(sb + ARM_K4_QS + (8 * K + JJ) * 64 + (RG0 + i) * 16);
                        const int8x16_t  lo = vreinterpretq_s8_u8(vandq_u8(v, m4));
                        const int8x16_t  hi = vreinterpretq_s8_u8(vshrq_n_u8(v, 4));
                        for (int c = 0; c < NC; ++c) {
                            dl[c] = dot_lane<JJ % 4>(dl[c], lo, yl[c][JJ / 4]);
                            dh[c] = dot_lane<JJ % 4>(dh[c], hi, yh[c][JJ / 4]);
                        }
                    });
                    const uint32x4_t sw = K < 2 ? s03[i] : s47[i];
                    // the scale bytes are at most 63, so the top one needs no mask
                    const int32x4_t sl =
                        vreinterpretq_s32_u32(sh == 0 ? vandq_u32(sw, byte) : vandq_u32(vshrq_n_u32(sw, sh), byte));
                    const int32x4_t sh1 =
                        vreinterpretq_s32_u32(sh == 0 ? vandq_u32(vshrq_n_u32(sw, 8), byte) : vshrq_n_u32(sw, 24));
                    for (int c = 0; c < NC; ++c)
                        isum[c][i] = vmlaq_s32(vmlaq_s32(isum[c][i], dl[c], sl), dh[c], sh1);
                }
            });
            // ysum lanes: the corr words as int16 are (ysum_0, ysum_2, ysum_1, ysum_3, ysum_4, ysum_6,
            // ysum_5, ysum_7)
            int32x4_t ys_lo[NC], ys_hi[NC];
            float     dy[NC];
            for (int c = 0; c < NC; ++c) {
                const int16x8_t v = vld1q_s16((const int16_t *) (y[c].corr + b * 4));
                ys_lo[c]          = vmovl_s16(vget_low_s16(v));
                ys_hi[c]          = vmovl_high_s16(v);
                dy[c]             = y[c].d[b];
            }
            for (int i = 0; i < NRG; ++i) {
                const int        rg = RG0 + i;
                const uint32x4_t u1 = sword(1, rg), u2 = sword(2, rg);
                const uint32x4_t m03 = vandq_u32(u1, m6);
                const uint32x4_t m47 =
                    vorrq_u32(vandq_u32(vshrq_n_u32(u2, 4), lo4), vshlq_n_u32(vandq_u32(vshrq_n_u32(u1, 6), top2), 4));
                const int32x4_t   mn0 = vreinterpretq_s32_u32(vandq_u32(m03, byte));
                const int32x4_t   mn1 = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(m03, 8), byte));
                const int32x4_t   mn2 = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(m03, 16), byte));
                const int32x4_t   mn3 = vreinterpretq_s32_u32(vshrq_n_u32(m03, 24));
                const int32x4_t   mn4 = vreinterpretq_s32_u32(vandq_u32(m47, byte));
                const int32x4_t   mn5 = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(m47, 8), byte));
                const int32x4_t   mn6 = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(m47, 16), byte));
                const int32x4_t   mn7 = vreinterpretq_s32_u32(vshrq_n_u32(m47, 24));
                const float32x4_t d   = f16x4(sb + rg * 8);
                const float32x4_t dm  = f16x4(sb + 32 + rg * 8);
                for (int c = 0; c < NC; ++c) {
                    int32x4_t m = vmulq_laneq_s32(mn0, ys_lo[c], 0);
                    m           = vmlaq_laneq_s32(m, mn2, ys_lo[c], 1);
                    m           = vmlaq_laneq_s32(m, mn1, ys_lo[c], 2);
                    m           = vmlaq_laneq_s32(m, mn3, ys_lo[c], 3);
                    m           = vmlaq_laneq_s32(m, mn4, ys_hi[c], 0);
                    m           = vmlaq_laneq_s32(m, mn6, ys_hi[c], 1);
                    m           = vmlaq_laneq_s32(m, mn5, ys_hi[c], 2);
                    m           = vmlaq_laneq_s32(m, mn7, ys_hi[c], 3);
                    acc[c][i]   = vfmaq_f32(acc[c][i], vcvtq_f32_s32(isum[c][i]), vmulq_n_f32(d, dy[c]));
                    acc[c][i]   = vfmsq_f32(acc[c][i], vcvtq_f32_s32(m), vmulq_n_f32(dm, dy[c]));
                }
            }
        }
        store_rows<NC, NRG, RG0>(acc, out, row0);
    }
};

// ---- Q6_K: ql load 16n + 8h + m and qh load 8n + m hold values 128n + 32h + 4m.. (low nibbles, qh
// bits 2h) and 128n + 32(h + 2) + 4m.. (high nibbles, qh bits 2h + 4), the 6-bit values unsigned
// (0..63); isum = sum_s sc_s * dot_s, csum = sum_s sc_s * bsum_s, acc = fma(isum - 32 csum, d d_y, acc).
// Each sub-block dot starts at -32 * bsum_s, so sum_s sc_s * dot_s is isum - 32 * csum (the same exact
// integer) with no separate pass over the scales; those starting values are lanes of the bsums widened
// once per half super-block and shared by the row groups. The scale pairs are loaded per sub-block pair
// (not all 16 per super-block, which would hold 16 registers through the loop).
constexpr size_t ARM_Q6_SB = 3360, ARM_Q6_SCL = 32, ARM_Q6_QL = 288, ARM_Q6_QH = 2336;

inline int32x4_t widen_rows(int8x16_t v, int rg) {  // int8 of 16 rows -> int32 of rows 4rg..4rg+3
    const int16x8_t h = rg < 2 ? vmovl_s8(vget_low_s8(v)) : vmovl_high_s8(v);
    return rg % 2 == 0 ? vmovl_s16(vget_low_s16(h)) : vmovl_high_s16(h);
}

template <int NC, int NRG, int RG0>
struct q6_K_rows {
    static void run(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
        float32x4_t acc[NC][NRG];
        zero_acc(acc);
        const uint8x16_t m3  = vdupq_n_u8(0x03);
        const uint8x16_t m30 = vdupq_n_u8(0x30);
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t * sb = grp + b * ARM_Q6_SB;
            int32x4_t       isum[NC][NRG];
            float           dy[NC];
            for (int c = 0; c < NC; ++c) {
                dy[c] = y[c].d[b];
                for (auto & v : isum[c])
                    v = vdupq_n_s32(0);
            }
            static_for<0, 4>([&](auto NH) {
                constexpr int n = NH / 2, h = NH % 2;
                // scale of sub-block 8n + 2h + i: pair p = 4n + h, .val[i]; + 4 sub-blocks is p + 2
                const int8x16x2_t scl = vld2q_s8((const int8_t *) (sb + ARM_Q6_SCL + (4 * n + h) * 32));
                const int8x16x2_t sch = vld2q_s8((const int8_t *) (sb + ARM_Q6_SCL + (4 * n + h + 2) * 32));
                int8x16_t         yl[NC][2], yh[NC][2];
                int32x4_t         b_lo[NC], b_hi[NC];  // -32 * bsum of sub-blocks 8n..8n+3, 8n+4..8n+7
                for (int c = 0; c < NC; ++c) {
                    const int8_t * yq  = y[c].qs + b * 256 + 128 * n + 32 * h;
                    yl[c][0]           = vld1q_s8(yq);
                    yl[c][1]           = vld1q_s8(yq + 16);
                    yh[c][0]           = vld1q_s8(yq + 64);
                    yh[c][1]           = vld1q_s8(yq + 80);
                    const int16x8_t bs = vld1q_s16((const int16_t *) (y[c].corr + b * 8) + 8 * n);
                    b_lo[c]            = vmull_n_s16(vget_low_s16(bs), -32);
                    b_hi[c]            = vmull_high_n_s16(bs, -32);
                }
                for (int i = 0; i < NRG; ++i) {
                    const int rg = RG0 + i;
                    int32x4_t dl[NC][2], dh[NC][2];
                    for (int c = 0; c < NC; ++c) {
                        dl[c][0] = vdupq_laneq_s32(b_lo[c], 2 * h);
                        dl[c][1] = vdupq_laneq_s32(b_lo[c], 2 * h + 1);
                        dh[c][0] = vdupq_laneq_s32(b_hi[c], 2 * h);
                        dh[c][1] = vdupq_laneq_s32(b_hi[c], 2 * h + 1);
                    }
                    static_for<0, 8>([&](auto M) {
                        const uint8x16_t ql = vld1q_u8(sb + ARM_Q6_QL + (16 * n + 8 * h + M) * 64 + rg * 16);
                        const uint8x16_t qh = vld1q_u8(sb + ARM_Q6_QH + (8 * n + M) * 64 + rg * 16);
                        // qh bits 2h, 2h + 1 (low values) and 2h + 4, 2h + 5 (high values); shift-and-insert
                        // puts them above the nibbles: lo = (ql & 15) | (bits << 4) by SLI, hi = bits at
                        // 4-5 | (ql >> 4) by SRI
                        const uint8x16_t qs = h == 0 ? qh : vshrq_n_u8(qh, 2);
                        const int8x16_t  lo = vreinterpretq_s8_u8(vsliq_n_u8(ql, vandq_u8(qs, m3), 4));
                        const int8x16_t  hi = vreinterpretq_s8_u8(vsriq_n_u8(vandq_u8(qs, m30), ql, 4));
                        for (int c = 0; c < NC; ++c) {
                            dl[c][M / 4] = dot_lane<M % 4>(dl[c][M / 4], lo, yl[c][M / 4]);
                            dh[c][M / 4] = dot_lane<M % 4>(dh[c][M / 4], hi, yh[c][M / 4]);
                        }
                    });
                    for (int k = 0; k < 2; ++k) {
                        const int32x4_t sl = widen_rows(scl.val[k], rg);
                        const int32x4_t s2 = widen_rows(sch.val[k], rg);
                        for (int c = 0; c < NC; ++c)
                            isum[c][i] = vmlaq_s32(vmlaq_s32(isum[c][i], dl[c][k], sl), dh[c][k], s2);
                    }
                }
            });
            fold_block<NC, NRG, RG0>(acc, isum, sb, dy);
        }
        store_rows<NC, NRG, RG0>(acc, out, row0);
    }
};

// Activation rows per group call, and row groups per pass (4: all 16 rows, 2: two passes of 8, see
// arm_row_passes): chosen from the static instruction counts of the block loops (no stack traffic).
constexpr int ARM_NC_SMALL = 4;
constexpr int ARM_NC_K     = 2;

template <int NC>
void q4_0_group(int64_t nb, const uint8_t * g, const ggml_repack_act * y, float * const * o, int64_t r) {
    arm_row_passes<NC, (NC <= 2 ? 4 : 2), q4_0_rows>(nb, g, y, o, r);
}
template <int NC>
void q8_0_group(int64_t nb, const uint8_t * g, const ggml_repack_act * y, float * const * o, int64_t r) {
    arm_row_passes<NC, 4, q8_0_rows>(nb, g, y, o, r);
}
template <int NC>
void q4_K_group(int64_t nb, const uint8_t * g, const ggml_repack_act * y, float * const * o, int64_t r) {
    arm_row_passes<NC, (NC <= 1 ? 4 : 2), q4_K_rows>(nb, g, y, o, r);
}
template <int NC>
void q6_K_group(int64_t nb, const uint8_t * g, const ggml_repack_act * y, float * const * o, int64_t r) {
    arm_row_passes<NC, (NC <= 1 ? 4 : 2), q6_K_rows>(nb, g, y, o, r);
}

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
