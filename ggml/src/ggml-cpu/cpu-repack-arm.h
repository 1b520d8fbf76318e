// Shared by the arm64 CPU_REPACK kernel files (cpu-repack.neon.cpp, .dotprod.cpp, .i8mm.cpp, each
// compiled for its own level): the group kernels for Q4_0 / Q8_0 / Q4_K / Q6_K over the layout in
// cpu-repack.h. The layout keeps 4 rows x 4 quant bytes in each 16-byte vector, which is exactly the
// operand shape of SDOT by lane: one instruction gives 4 rows' partial sums against 4 activation bytes.
// Only that dot primitive differs between the levels (SDOT where __ARM_FEATURE_DOTPROD, a widening
// multiply + pairwise add on plain NEON, USDOT for Q8_0's unsigned bytes with i8mm); the structure and
// the per-block float accumulation (fma in block order, as the scalar reference) are the same, so every
// level gives the reference's bits. With i8mm, 4-column prefill tiles go to SMMLA kernels (2 rows x 2
// columns per instruction, section "SMMLA" below) with the same per-block fmas. Everything has
// internal linkage, so no TU's copy (compiled with another level's flags) can stand in for another's.
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

// The 6-bit scales and mins of one super-block (as get_scale_min_k4), 4 rows (4rg..4rg+3) per vector.
struct k4_scales {
    const uint32x4_t m6   = vdupq_n_u32(0x3f3f3f3fu);
    const uint32x4_t lo4  = vdupq_n_u32(0x0f0f0f0fu);
    const uint32x4_t top2 = vdupq_n_u32(0x03030303u);
    const uint32x4_t byte = vdupq_n_u32(0xffu);

    // word t of the packed scale bytes for rows 4rg..4rg+3
    static uint32x4_t word(const uint8_t * scl, int t, int rg) {
        return vld1q_u32((const uint32_t *) (scl + (t * ARM_R + rg * 4) * 4));
    }
    // the scale bytes of sub-blocks 0-3 (s03) and 4-7 (s47)
    void words(const uint8_t * scl, int rg, uint32x4_t & s03, uint32x4_t & s47) const {
        const uint32x4_t u0 = word(scl, 0, rg), u2 = word(scl, 2, rg);
        s03 = vandq_u32(u0, m6);
        s47 = vorrq_u32(vandq_u32(u2, lo4), vshlq_n_u32(vandq_u32(vshrq_n_u32(u0, 6), top2), 4));
    }
    // the scales of sub-blocks 2k (lo) and 2k + 1 (hi); the scale bytes are at most 63, so the top one needs
    // no mask
    template <int K>
    void sub(uint32x4_t s03, uint32x4_t s47, int32x4_t & lo, int32x4_t & hi) const {
        const uint32x4_t sw = K < 2 ? s03 : s47;
        if constexpr (K % 2 == 0) {  // bytes 0 and 1 of the word (no shift by 0: clang checks the immediate)
            lo = vreinterpretq_s32_u32(vandq_u32(sw, byte));
            hi = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(sw, 8), byte));
        } else {  // bytes 2 and 3
            lo = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(sw, 16), byte));
            hi = vreinterpretq_s32_u32(vshrq_n_u32(sw, 24));
        }
    }
    // the mins of sub-blocks 0-7
    void mins(const uint8_t * scl, int rg, int32x4_t (&mn)[8]) const {
        const uint32x4_t u1 = word(scl, 1, rg), u2 = word(scl, 2, rg);
        const uint32x4_t m03 = vandq_u32(u1, m6);
        const uint32x4_t m47 =
            vorrq_u32(vandq_u32(vshrq_n_u32(u2, 4), lo4), vshlq_n_u32(vandq_u32(vshrq_n_u32(u1, 6), top2), 4));
        mn[0] = vreinterpretq_s32_u32(vandq_u32(m03, byte));
        mn[1] = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(m03, 8), byte));
        mn[2] = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(m03, 16), byte));
        mn[3] = vreinterpretq_s32_u32(vshrq_n_u32(m03, 24));
        mn[4] = vreinterpretq_s32_u32(vandq_u32(m47, byte));
        mn[5] = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(m47, 8), byte));
        mn[6] = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(m47, 16), byte));
        mn[7] = vreinterpretq_s32_u32(vshrq_n_u32(m47, 24));
    }
};

// The activation's sub-block sums of super-block b as int32: the corr words as int16 are (ysum_0, ysum_2,
// ysum_1, ysum_3, ysum_4, ysum_6, ysum_5, ysum_7)
inline void k4_ysums(const ggml_repack_act & y, int64_t b, int32x4_t & lo, int32x4_t & hi) {
    const int16x8_t v = vld1q_s16((const int16_t *) (y.corr + b * 4));
    lo                = vmovl_s16(vget_low_s16(v));
    hi                = vmovl_high_s16(v);
}

// sum_s m_s * ysum_s for 4 rows and one column (ysum widened by k4_ysums)
inline int32x4_t k4_msum(const int32x4_t (&mn)[8], int32x4_t ys_lo, int32x4_t ys_hi) {
    int32x4_t m = vmulq_laneq_s32(mn[0], ys_lo, 0);
    m           = vmlaq_laneq_s32(m, mn[2], ys_lo, 1);
    m           = vmlaq_laneq_s32(m, mn[1], ys_lo, 2);
    m           = vmlaq_laneq_s32(m, mn[3], ys_lo, 3);
    m           = vmlaq_laneq_s32(m, mn[4], ys_hi, 0);
    m           = vmlaq_laneq_s32(m, mn[6], ys_hi, 1);
    m           = vmlaq_laneq_s32(m, mn[5], ys_hi, 2);
    return vmlaq_laneq_s32(m, mn[7], ys_hi, 3);
}

template <int NC, int NRG, int RG0>
struct q4_K_rows {
    static void run(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
        float32x4_t acc[NC][NRG];
        zero_acc(acc);
        const uint8x16_t m4 = vdupq_n_u8(0x0F);
        const k4_scales  ks;
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t * sb  = grp + b * ARM_K4_SB;
            const uint8_t * scl = sb + ARM_K4_SCL;
            uint32x4_t      s03[NRG], s47[NRG];
            int32x4_t       isum[NC][NRG];
            for (int i = 0; i < NRG; ++i) {
                ks.words(scl, RG0 + i, s03[i], s47[i]);
                for (int c = 0; c < NC; ++c)
                    isum[c][i] = vdupq_n_s32(0);
            }
            // sub-blocks 2k (low nibbles of loads 8k..8k+7) and 2k + 1 (high nibbles)
            static_for<0, 4>([&](auto K) {
                int8x16_t yl[NC][2], yh[NC][2];
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
                    int32x4_t sl, sh1;
                    ks.sub<K>(s03[i], s47[i], sl, sh1);
                    for (int c = 0; c < NC; ++c)
                        isum[c][i] = vmlaq_s32(vmlaq_s32(isum[c][i], dl[c], sl), dh[c], sh1);
                }
            });
            int32x4_t ys_lo[NC], ys_hi[NC];
            float     dy[NC];
            for (int c = 0; c < NC; ++c) {
                k4_ysums(y[c], b, ys_lo[c], ys_hi[c]);
                dy[c] = y[c].d[b];
            }
            for (int i = 0; i < NRG; ++i) {
                const int rg = RG0 + i;
                int32x4_t mn[8];
                ks.mins(scl, rg, mn);
                const float32x4_t d  = f16x4(sb + rg * 8);
                const float32x4_t dm = f16x4(sb + 32 + rg * 8);
                for (int c = 0; c < NC; ++c) {
                    const int32x4_t m = k4_msum(mn, ys_lo[c], ys_hi[c]);
                    acc[c][i]         = vfmaq_f32(acc[c][i], vcvtq_f32_s32(isum[c][i]), vmulq_n_f32(d, dy[c]));
                    acc[c][i]         = vfmsq_f32(acc[c][i], vcvtq_f32_s32(m), vmulq_n_f32(dm, dy[c]));
                }
            }
        }
        store_rows<NC, NRG, RG0>(acc, out, row0);
    }
};

#if defined(__ARM_FEATURE_MATMUL_INT8)
constexpr bool ARM_SMMLA = true;
#else
constexpr bool ARM_SMMLA = false;
#endif
template <int NP>
struct q4_K_mm;
template <int NP, bool Q8>
struct b32_mm;
template <int NP>
struct q6_K_mm;

#if defined(__ARM_FEATURE_MATMUL_INT8)
// ---- SMMLA (i8mm, prefill tiles of 4 activation columns). vmmlaq_s32(acc, a, b) adds the 2 x 2 matrix of dot
// products of a's two 8-byte rows with b's, [a0.b0, a0.b1, a1.b0, a1.b1]: 32 multiply-adds, twice SDOT's. The
// layout needs no change: loads j = 2m and 2m + 1 of 4 rows hold quant bytes 8m..8m+3 and 8m+4..8m+7, so
// zipping them as 32-bit lanes gives rows (r0, r1) x 8 consecutive bytes (zip1) and rows (r2, r3) (zip2).
// Activation columns go in pairs (c0, c1), chunk q = (c0 values 8q..8q+7, c1 values 8q..8q+7), staged once
// per super-block (Q4_K, Q6_K) or run of blocks (Q4_0, Q8_0) and read by all 16 rows. The int32 sums stay 2 x 2 (rows
// r0 r1 or r2 r3 x columns c0 c1) through the fold, whose scale vectors are zipped to match, so each (row, column) gets
// the reference's fma with the reference's operands; the accumulators are un-interleaved only when stored.

inline void zip_rows(uint8x16_t j0, uint8x16_t j1, uint8x16_t & r01, uint8x16_t & r23) {
    const uint32x4_t a = vreinterpretq_u32_u8(j0), b = vreinterpretq_u32_u8(j1);
    r01 = vreinterpretq_u8_u32(vzip1q_u32(a, b));
    r23 = vreinterpretq_u8_u32(vzip2q_u32(a, b));
}

// 32 values of columns c0 (at a) and c1 (at b) -> their 4 operand chunks, stored 16 bytes apart at dst: LD4R
// puts a's 8-byte chunks in both halves of 4 registers, an LD4 to lane 1 then b's.
inline void stage_pair32(const int8_t * a, const int8_t * b, int8_t * dst) {
    int64x2x4_t v = vld4q_dup_s64((const int64_t *) a);
    v             = vld4q_lane_s64((const int64_t *) b, v, 1);
    vst1q_s8(dst, vreinterpretq_s8_s64(v.val[0]));
    vst1q_s8(dst + 16, vreinterpretq_s8_s64(v.val[1]));
    vst1q_s8(dst + 32, vreinterpretq_s8_s64(v.val[2]));
    vst1q_s8(dst + 48, vreinterpretq_s8_s64(v.val[3]));
}

// (d0, d1) and (-corr0, -corr1) of blocks b..b+n-1 of columns y0, y1 as 64-bit words, which LD1R turns into the
// fold's (d_y0, d_y1, d_y0, d_y1) and the sums' starting (-corr0, -corr1, -corr0, -corr1); 4 blocks per zip
inline void stage_pair_scales(const ggml_repack_act & y0, const ggml_repack_act & y1, int64_t b, int n, uint64_t * dy,
                              uint64_t * corr) {
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        const float32x4_t d0 = vld1q_f32(y0.d + b + i), d1 = vld1q_f32(y1.d + b + i);
        const int32x4_t   c0 = vnegq_s32(vld1q_s32(y0.corr + b + i)), c1 = vnegq_s32(vld1q_s32(y1.corr + b + i));
        vst1q_u64(dy + i, vreinterpretq_u64_f32(vzip1q_f32(d0, d1)));
        vst1q_u64(dy + i + 2, vreinterpretq_u64_f32(vzip2q_f32(d0, d1)));
        vst1q_u64(corr + i, vreinterpretq_u64_s32(vzip1q_s32(c0, c1)));
        vst1q_u64(corr + i + 2, vreinterpretq_u64_s32(vzip2q_s32(c0, c1)));
    }
    for (; i < n; ++i) {
        const float32x2_t d = vld1_lane_f32(y1.d + b + i, vld1_dup_f32(y0.d + b + i), 1);
        const int32x2_t   c = vld1_lane_s32(y1.corr + b + i, vld1_dup_s32(y0.corr + b + i), 1);
        vst1_u64(dy + i, vreinterpret_u64_f32(d));
        vst1_u64(corr + i, vreinterpret_u64_s32(vneg_s32(c)));
    }
}

inline float32x4_t pair_cols(float c0, float c1) {  // (c0, c1, c0, c1)
    const float32x2_t v = vset_lane_f32(c1, vdup_n_f32(c0), 1);
    return vcombine_f32(v, v);
}

// acc (rows r0 r1 and r2 r3 of 4 rows x columns c0 c1) -> the 4 rows of column c0 and of c1
inline void store_pair(float32x4_t a01, float32x4_t a23, float * c0, float * c1) {
    vst1q_f32(c0, vuzp1q_f32(a01, a23));
    vst1q_f32(c1, vuzp2q_f32(a01, a23));
}

// Q4_K over NP column pairs. Per super-block: stage the activations, then for each 4 rows (a runtime loop,
// so the 2 x 2 float accumulators live in memory, loaded and stored once per super-block, and the staged
// activations are loads) the sub-block dots by SMMLA and, as q4_K_rows, isum and msum exact in int32 and
// two fmas. Weight pair m of sub-block pair k: zipped loads 8k + 2m, 8k + 2m + 1, whose low nibbles are
// values 64k + 8m.. (chunk 8k + m) and high nibbles 64k + 32 + 8m.. (chunk 8k + 4 + m).
template <int NP>
struct q4_K_mm {
    static void run(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
        float32x4_t acc[4][NP][2];  // [row group][column pair][rows r0 r1, r2 r3]
        for (auto & a : acc)
            for (auto & p : a)
                p[0] = p[1] = vdupq_n_f32(0.0f);
        const uint8x16_t   m4 = vdupq_n_u8(0x0F);
        const k4_scales    ks;
        alignas(16) int8_t ych[NP][32 * 16];
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t * sb  = grp + b * ARM_K4_SB;
            const uint8_t * scl = sb + ARM_K4_SCL;
            float32x4_t     dy[NP];
            int32x4_t       ys_lo[2 * NP], ys_hi[2 * NP];
            for (int p = 0; p < NP; ++p) {
                for (int g = 0; g < 8; ++g)
                    stage_pair32(y[2 * p].qs + b * 256 + 32 * g, y[2 * p + 1].qs + b * 256 + 32 * g, ych[p] + 64 * g);
                dy[p] = pair_cols(y[2 * p].d[b], y[2 * p + 1].d[b]);
            }
            for (int c = 0; c < 2 * NP; ++c)
                k4_ysums(y[c], b, ys_lo[c], ys_hi[c]);
            for (int rg = 0; rg < 4; ++rg) {
                uint32x4_t s03, s47;
                ks.words(scl, rg, s03, s47);
                int32x4_t isum[NP][2];
                for (auto & v : isum)
                    v[0] = v[1] = vdupq_n_s32(0);
                // a loop, not unrolled: with all 32 weight loads in one block the compiler hoists them and spills
                uint32x4_t sw = s03;  // the scale byte of sub-block 2k lowest
                for (int K = 0; K < 4; ++K) {
                    const int32x4_t sl = vreinterpretq_s32_u32(vandq_u32(sw, ks.byte));
                    const int32x4_t sh = vreinterpretq_s32_u32(vandq_u32(vshrq_n_u32(sw, 8), ks.byte));
                    sw                 = K == 1 ? s47 : vshrq_n_u32(sw, 16);
                    // per row pair: (s_r0, s_r0, s_r1, s_r1)
                    const int32x4_t sl2[2] = {vzip1q_s32(sl, sl), vzip2q_s32(sl, sl)};
                    const int32x4_t sh2[2] = {vzip1q_s32(sh, sh), vzip2q_s32(sh, sh)};
                    int32x4_t       dl[NP][2], dh[NP][2];
                    for (int p = 0; p < NP; ++p)
                        dl[p][0] = dl[p][1] = dh[p][0] = dh[p][1] = vdupq_n_s32(0);
                    static_for<0, 4>([&](auto M) {
                        const uint8_t * q = sb + ARM_K4_QS + (8 * K + 2 * M) * 64 + rg * 16;
                        uint8x16_t      z[2];
                        zip_rows(vld1q_u8(q), vld1q_u8(q + 64), z[0], z[1]);
                        for (int h = 0; h < 2; ++h) {
                            const int8x16_t lo = vreinterpretq_s8_u8(vandq_u8(z[h], m4));
                            const int8x16_t hi = vreinterpretq_s8_u8(vshrq_n_u8(z[h], 4));
                            for (int p = 0; p < NP; ++p) {
                                dl[p][h] = vmmlaq_s32(dl[p][h], lo, vld1q_s8(ych[p] + (8 * K + M) * 16));
                                dh[p][h] = vmmlaq_s32(dh[p][h], hi, vld1q_s8(ych[p] + (8 * K + 4 + M) * 16));
                            }
                        }
                    });
                    for (int p = 0; p < NP; ++p)
                        for (int h = 0; h < 2; ++h)
                            isum[p][h] = vmlaq_s32(vmlaq_s32(isum[p][h], dl[p][h], sl2[h]), dh[p][h], sh2[h]);
                }
                int32x4_t mn[8];
                ks.mins(scl, rg, mn);
                const float32x4_t d = f16x4(sb + rg * 8), dm = f16x4(sb + 32 + rg * 8);
                const float32x4_t d2[2]  = {vzip1q_f32(d, d), vzip2q_f32(d, d)};
                const float32x4_t dm2[2] = {vzip1q_f32(dm, dm), vzip2q_f32(dm, dm)};
                for (int p = 0; p < NP; ++p) {
                    const int32x4_t m0    = k4_msum(mn, ys_lo[2 * p], ys_hi[2 * p]);
                    const int32x4_t m1    = k4_msum(mn, ys_lo[2 * p + 1], ys_hi[2 * p + 1]);
                    const int32x4_t m2[2] = {vzip1q_s32(m0, m1), vzip2q_s32(m0, m1)};
                    for (int h = 0; h < 2; ++h) {
                        float32x4_t & a = acc[rg][p][h];
                        a               = vfmaq_f32(a, vcvtq_f32_s32(isum[p][h]), vmulq_f32(d2[h], dy[p]));
                        a               = vfmsq_f32(a, vcvtq_f32_s32(m2[h]), vmulq_f32(dm2[h], dy[p]));
                    }
                }
            }
        }
        for (int rg = 0; rg < 4; ++rg)
            for (int p = 0; p < NP; ++p)
                store_pair(acc[rg][p][0], acc[rg][p][1], out[2 * p] + row0 + rg * 4, out[2 * p + 1] + row0 + rg * 4);
    }
};

// Q4_0 (Q8 false) and Q8_0 (Q8 true) over NP column pairs, as q4_K_mm with runs of ARM_MM_RUN blocks in place
// of the super-block: per run the activation chunks, (d_y0, d_y1, d_y0, d_y1) and (-corr0, -corr1, -corr0,
// -corr1) of every block are staged, then each 4 rows take the run block by block. Q4_0: weight pair m (loads
// 2m, 2m + 1) holds values 8m.. in its low nibbles and 16 + 8m.. in its high ones, signed SMMLA on the 0..15
// nibbles (the corr removes the offset 8). Q8_0: weight pair m holds values 8m.., USMMLA takes the stored
// unsigned q + 128 as they are (the corr removes the 128).
constexpr int ARM_MM_RUN = 8;

template <int NP, bool Q8>
struct b32_mm {
    static void run(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out, int64_t row0) {
        constexpr int   QB     = Q8 ? 512 : 256;  // quant bytes per block (16 rows)
        const uint8_t * quants = grp + nb * ARM_R * 2;
        float32x4_t     acc[4][NP][2];  // [row group][column pair][rows r0 r1, r2 r3]
        for (auto & a : acc)
            for (auto & p : a)
                p[0] = p[1] = vdupq_n_f32(0.0f);
        const uint8x16_t     m4 = vdupq_n_u8(0x0F);
        alignas(16) int8_t   ych[NP][ARM_MM_RUN * 64];
        alignas(16) uint64_t dy[NP][ARM_MM_RUN], corr[NP][ARM_MM_RUN];
        for (int64_t b0 = 0; b0 < nb; b0 += ARM_MM_RUN) {
            const int nr = (int) (nb - b0 < ARM_MM_RUN ? nb - b0 : ARM_MM_RUN);
            for (int p = 0; p < NP; ++p) {
                const ggml_repack_act &y0 = y[2 * p], &y1 = y[2 * p + 1];
                const int8_t *         q0 = y0.qs + b0 * 32, *q1 = y1.qs + b0 * 32;
                for (int i = 0; i < nr; ++i)
                    stage_pair32(q0 + i * 32, q1 + i * 32, ych[p] + i * 64);
                stage_pair_scales(y0, y1, b0, nr, dy[p], corr[p]);
            }
            for (int rg = 0; rg < 4; ++rg) {
                float32x4_t a[NP][2];
                for (int p = 0; p < NP; ++p)
                    a[p][0] = acc[rg][p][0], a[p][1] = acc[rg][p][1];
                for (int i = 0; i < nr; ++i) {
                    const uint8_t * q = quants + (b0 + i) * QB + rg * 16;
                    int32x4_t       isum[NP][2];
                    for (int p = 0; p < NP; ++p)
                        isum[p][0] = isum[p][1] = vreinterpretq_s32_u64(vld1q_dup_u64(corr[p] + i));
                    static_for<0, (Q8 ? 4 : 2)>([&](auto M) {
                        uint8x16_t z[2];
                        zip_rows(vld1q_u8(q + 2 * M * 64), vld1q_u8(q + (2 * M + 1) * 64), z[0], z[1]);
                        for (int p = 0; p < NP; ++p) {
                            const int8_t * yc = ych[p] + i * 64;
                            for (int h = 0; h < 2; ++h) {
                                if constexpr (Q8) {
                                    isum[p][h] = vusmmlaq_s32(isum[p][h], z[h], vld1q_s8(yc + M * 16));
                                } else {
                                    const int8x16_t lo = vreinterpretq_s8_u8(vandq_u8(z[h], m4));
                                    const int8x16_t hi = vreinterpretq_s8_u8(vshrq_n_u8(z[h], 4));
                                    isum[p][h]         = vmmlaq_s32(isum[p][h], lo, vld1q_s8(yc + M * 16));
                                    isum[p][h]         = vmmlaq_s32(isum[p][h], hi, vld1q_s8(yc + (2 + M) * 16));
                                }
                            }
                        }
                    });
                    const float32x4_t dw     = f16x4(grp + (b0 + i) * ARM_R * 2 + rg * 8);
                    const float32x4_t dw2[2] = {vzip1q_f32(dw, dw), vzip2q_f32(dw, dw)};
                    for (int p = 0; p < NP; ++p) {
                        const float32x4_t dyp = vreinterpretq_f32_u64(vld1q_dup_u64(dy[p] + i));
                        for (int h = 0; h < 2; ++h)
                            a[p][h] = vfmaq_f32(a[p][h], vcvtq_f32_s32(isum[p][h]), vmulq_f32(dw2[h], dyp));
                    }
                }
                for (int p = 0; p < NP; ++p)
                    acc[rg][p][0] = a[p][0], acc[rg][p][1] = a[p][1];
            }
        }
        for (int rg = 0; rg < 4; ++rg)
            for (int p = 0; p < NP; ++p)
                store_pair(acc[rg][p][0], acc[rg][p][1], out[2 * p] + row0 + rg * 4, out[2 * p + 1] + row0 + rg * 4);
    }
};
#endif

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

#if defined(__ARM_FEATURE_MATMUL_INT8)
// Q6_K over NP column pairs, as q4_K_mm: per super-block the activation chunks and the pairs (-32 bsum_s of c0,
// -32 bsum_s of c1) of its 16 sub-blocks are staged, then each 4 rows take the 4 halves (n, h) of
// q6_K_rows. Weight pair j = 2k + m of a half: zipped ql loads 16n + 8h + 2j, + 1 and qh loads 8n + 2j, + 1
// give values 128n + 32h + 8j.. (chunk 16n + 4h + j, sub-block 8n + 2h + k) and, + 64, sub-block + 4. Each
// sub-block dot starts at -32 bsum_s (read by LD1R), so sum_s sc_s dot_s is q6_K_rows' isum - 32 csum.
// The int8 scale pair (sc_2p, sc_2p+1) of 4 rows is 8 bytes, whose transposes give (sc_r0, sc_r0, sc_r1,
// sc_r1)-arranged vectors for both sub-blocks.
// GCC's first scheduling pass hoists the loads of a whole sub-block pair ahead and spills the sums: 267
// instructions per half and 4 rows with it, 225 and no stack traffic without it
#    if defined(__GNUC__) && !defined(__clang__)
#        define ARM_NO_PRESCHED __attribute__((optimize("no-schedule-insns")))
#    else
#        define ARM_NO_PRESCHED
#    endif

template <int NP>
struct q6_K_mm {
    ARM_NO_PRESCHED static void run(int64_t nb, const uint8_t * grp, const ggml_repack_act * y, float * const * out,
                                    int64_t row0) {
        float32x4_t acc[4][NP][2];  // [row group][column pair][rows r0 r1, r2 r3]
        for (auto & a : acc)
            for (auto & p : a)
                p[0] = p[1] = vdupq_n_f32(0.0f);
        const uint8x16_t     m3 = vdupq_n_u8(0x03), m30 = vdupq_n_u8(0x30);
        alignas(16) int8_t   ych[NP][32 * 16];
        alignas(16) uint64_t bs[NP][16];
        for (int64_t b = 0; b < nb; ++b) {
            const uint8_t * sb = grp + b * ARM_Q6_SB;
            float32x4_t     dy[NP];
            for (int p = 0; p < NP; ++p) {
                const ggml_repack_act &y0 = y[2 * p], &y1 = y[2 * p + 1];
                for (int g = 0; g < 8; ++g)
                    stage_pair32(y0.qs + b * 256 + 32 * g, y1.qs + b * 256 + 32 * g, ych[p] + 64 * g);
                dy[p]              = pair_cols(y0.d[b], y1.d[b]);
                const int16_t * b0 = (const int16_t *) (y0.corr + b * 8);
                const int16_t * b1 = (const int16_t *) (y1.corr + b * 8);
                for (int s = 0; s < 16; s += 4) {
                    const int32x4_t c0 = vmull_n_s16(vld1_s16(b0 + s), -32), c1 = vmull_n_s16(vld1_s16(b1 + s), -32);
                    vst1q_u64(bs[p] + s, vreinterpretq_u64_s32(vzip1q_s32(c0, c1)));
                    vst1q_u64(bs[p] + s + 2, vreinterpretq_u64_s32(vzip2q_s32(c0, c1)));
                }
            }
            for (int rg = 0; rg < 4; ++rg) {
                int32x4_t isum[NP][2];
                for (auto & v : isum)
                    v[0] = v[1] = vdupq_n_s32(0);
                for (int nh = 0; nh < 4; ++nh) {
                    const int       n = nh >> 1, h = nh & 1;
                    const int8x16_t qhs = vdupq_n_s8((int8_t) (-2 * h));  // qh bits 2h.. to the bottom
                    // the scale pairs 4n + h (sub-blocks 8n + 2h, + 1) and 4n + h + 2 (+ 4, + 5) of rows 4rg..: the
                    // lane of a row holds (sc_2p, sc_2p+1) as int16
                    const int8_t *  sc  = (const int8_t *) sb + ARM_Q6_SCL + (4 * n + h) * 32 + rg * 8;
                    const int32x4_t wlo = vreinterpretq_s32_s16(vmovl_s8(vld1_s8(sc)));
                    const int32x4_t whi = vreinterpretq_s32_s16(vmovl_s8(vld1_s8(sc + 64)));
                    // sub-blocks 8n + 2h + k (low values) and + 4 (high)
                    for (int k = 0; k < 2; ++k) {
                        int32x4_t dl[NP][2], dh[NP][2];
                        for (int p = 0; p < NP; ++p) {
                            dl[p][0] = dl[p][1] = vreinterpretq_s32_u64(vld1q_dup_u64(bs[p] + 8 * n + 2 * h + k));
                            dh[p][0] = dh[p][1] = vreinterpretq_s32_u64(vld1q_dup_u64(bs[p] + 8 * n + 2 * h + 4 + k));
                        }
                        const uint8_t * ql = sb + ARM_Q6_QL + (16 * n + 8 * h + 4 * k) * 64 + rg * 16;
                        const uint8_t * qh = sb + ARM_Q6_QH + (8 * n + 4 * k) * 64 + rg * 16;
                        const int8_t *  yc = (16 * n + 4 * h + 2 * k) * 16 + &ych[0][0];
                        static_for<0, 2>([&](auto M) {  // weight pair 2k + m
                            uint8x16_t zl[2], zh[2];
                            zip_rows(vld1q_u8(ql + 2 * M * 64), vld1q_u8(ql + (2 * M + 1) * 64), zl[0], zl[1]);
                            zip_rows(vld1q_u8(qh + 2 * M * 64), vld1q_u8(qh + (2 * M + 1) * 64), zh[0], zh[1]);
                            for (int r = 0; r < 2; ++r) {
                                const uint8x16_t qs = vshlq_u8(zh[r], qhs);
                                const int8x16_t  lo = vreinterpretq_s8_u8(vsliq_n_u8(zl[r], vandq_u8(qs, m3), 4));
                                const int8x16_t  hi = vreinterpretq_s8_u8(vsriq_n_u8(vandq_u8(qs, m30), zl[r], 4));
                                for (int p = 0; p < NP; ++p) {
                                    const int8_t * yp = yc + p * (32 * 16) + M * 16;
                                    dl[p][r]          = vmmlaq_s32(dl[p][r], lo, vld1q_s8(yp));
                                    dh[p][r]          = vmmlaq_s32(dh[p][r], hi, vld1q_s8(yp + 128));
                                }
                            }
                        });
                        // sc_2p (k = 0) or sc_2p+1 (k = 1) of each row, sign-extended, then per row pair
                        const int32x4_t sh     = vdupq_n_s32(16 - 16 * k);
                        const int32x4_t sl     = vshrq_n_s32(vshlq_s32(wlo, sh), 16),
                                        su     = vshrq_n_s32(vshlq_s32(whi, sh), 16);
                        const int32x4_t sl2[2] = {vzip1q_s32(sl, sl), vzip2q_s32(sl, sl)};
                        const int32x4_t su2[2] = {vzip1q_s32(su, su), vzip2q_s32(su, su)};
                        for (int p = 0; p < NP; ++p)
                            for (int r = 0; r < 2; ++r)
                                isum[p][r] = vmlaq_s32(vmlaq_s32(isum[p][r], dl[p][r], sl2[r]), dh[p][r], su2[r]);
                    }
                }
                const float32x4_t d     = f16x4(sb + rg * 8);
                const float32x4_t d2[2] = {vzip1q_f32(d, d), vzip2q_f32(d, d)};
                for (int p = 0; p < NP; ++p)
                    for (int r = 0; r < 2; ++r)
                        acc[rg][p][r] = vfmaq_f32(acc[rg][p][r], vcvtq_f32_s32(isum[p][r]), vmulq_f32(d2[r], dy[p]));
            }
        }
        for (int rg = 0; rg < 4; ++rg)
            for (int p = 0; p < NP; ++p)
                store_pair(acc[rg][p][0], acc[rg][p][1], out[2 * p] + row0 + rg * 4, out[2 * p + 1] + row0 + rg * 4);
    }
};
#endif

// Activation rows per group call, and row groups per pass (4: all 16 rows, 2: two passes of 8, see
// arm_row_passes): chosen from the static instruction counts of the block loops (no stack traffic).
constexpr int ARM_NC_SMALL = 4;
constexpr int ARM_NC_K     = 2;
constexpr int ARM_NC_K4    = ARM_SMMLA ? 4 : ARM_NC_K;  // Q4_K: 4 columns where SMMLA takes them

template <int NC>
void q4_0_group(int64_t nb, const uint8_t * g, const ggml_repack_act * y, float * const * o, int64_t r) {
    if constexpr (ARM_SMMLA && NC == ARM_NC_SMALL)
        b32_mm<NC / 2, false>::run(nb, g, y, o, r);
    else
        arm_row_passes<NC, (NC <= 2 ? 4 : 2), q4_0_rows>(nb, g, y, o, r);
}
template <int NC>
void q8_0_group(int64_t nb, const uint8_t * g, const ggml_repack_act * y, float * const * o, int64_t r) {
    if constexpr (ARM_SMMLA && NC == ARM_NC_SMALL)
        b32_mm<NC / 2, true>::run(nb, g, y, o, r);
    else
        arm_row_passes<NC, 4, q8_0_rows>(nb, g, y, o, r);
}
template <int NC>
void q4_K_group(int64_t nb, const uint8_t * g, const ggml_repack_act * y, float * const * o, int64_t r) {
    if constexpr (ARM_SMMLA && NC == ARM_NC_K4)
        q4_K_mm<NC / 2>::run(nb, g, y, o, r);
    else
        arm_row_passes<NC, (NC <= 1 ? 4 : 2), q4_K_rows>(nb, g, y, o, r);
}
template <int NC>
void q6_K_group(int64_t nb, const uint8_t * g, const ggml_repack_act * y, float * const * o, int64_t r) {
    if constexpr (ARM_SMMLA && NC == ARM_NC_K4)
        q6_K_mm<NC / 2>::run(nb, g, y, o, r);
    else
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
    GGML_REPACK_ARM_KERNEL(arm_q4_K, q4_K_group, ARM_NC_K4)                            \
    GGML_REPACK_ARM_KERNEL(arm_q6_K, q6_K_group, ARM_NC_K4)                            \
    }                                                                                  \
    const ggml_repack_kernels * FN() {                                                 \
        static const ggml_repack_kernels k = {arm_q4_0, arm_q8_0, arm_q4_K, arm_q6_K}; \
        return &k;                                                                     \
    }
