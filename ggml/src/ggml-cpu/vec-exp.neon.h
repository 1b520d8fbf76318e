// The NEON exp shared by the soft_max, flash-attention and GLU kernels (include only from arm64
// files, *.neon.cpp): range reduction by ln 2 (split in two constants, so x - t ln2 is exact to
// float precision), a degree-7 Taylor polynomial on |r| <= ln2/2 (relative error < 1e-8 before
// rounding), the same steps as the AVX-512 exp (vec-exp.avx512.h). NEON has no scalef: 2^t is
// applied as two exact power-of-two factors 2^(t/2) and 2^(t - t/2), each a normal float for every
// t of the clamped range, so the result overflows to +inf or underflows through the subnormals with
// one rounding, as scalef does. Inputs below -110 (incl. -inf) give 0; above 89, +inf; NaN stays NaN.
#pragma once

#include <arm_neon.h>

static inline float32x4_t ggml_exp_neon(float32x4_t x) {
    x                   = vminq_f32(vmaxq_f32(x, vdupq_n_f32(-110.0f)), vdupq_n_f32(89.0f));
    const float32x4_t t = vrndnq_f32(vmulq_f32(x, vdupq_n_f32(1.44269504088896341f)));
    float32x4_t       r = vfmsq_f32(x, t, vdupq_n_f32(0.693145751953125f));
    r                   = vfmsq_f32(r, t, vdupq_n_f32(1.428606765330187045e-06f));
    float32x4_t p       = vdupq_n_f32(1.0f / 5040);
    p                   = vfmaq_f32(vdupq_n_f32(1.0f / 720), p, r);
    p                   = vfmaq_f32(vdupq_n_f32(1.0f / 120), p, r);
    p                   = vfmaq_f32(vdupq_n_f32(1.0f / 24), p, r);
    p                   = vfmaq_f32(vdupq_n_f32(1.0f / 6), p, r);
    p                   = vfmaq_f32(vdupq_n_f32(0.5f), p, r);
    p                   = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
    p                   = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
    // t in [-159, 129]: halves in [-80, 65], exponents 47..192 (NaN: t converts to 0, p stays NaN)
    const int32x4_t   n  = vcvtq_s32_f32(t);
    const int32x4_t   n1 = vshrq_n_s32(n, 1);
    const int32x4_t   n2 = vsubq_s32(n, n1);
    const float32x4_t s1 = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(n1, vdupq_n_s32(127)), 23));
    const float32x4_t s2 = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(n2, vdupq_n_s32(127)), 23));
    return vmulq_f32(vmulq_f32(p, s1), s2);
}

// exp of one float through the vector code (tails), so a tail element gets the same bits as a lane.
static inline float ggml_exp_neon1(float x) {
    return vgetq_lane_f32(ggml_exp_neon(vdupq_n_f32(x)), 0);
}
