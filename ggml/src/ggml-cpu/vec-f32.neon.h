// The F32 vector trait of the kernels written once for every instruction set (ops-attn-pv.h,
// matmul-attn-kq.h), for ARMv8.0 NEON: 4 lanes, 32 registers.
#pragma once

#include <arm_neon.h>

struct vf_neon {
    using reg              = float32x4_t;
    static constexpr int W = 4;
    static reg           zero() { return vdupq_n_f32(0.0f); }
    static reg           load(const float * p) { return vld1q_f32(p); }
    static void          store(float * p, reg v) { vst1q_f32(p, v); }
    static reg           fma_n(reg acc, reg x, float w) { return vfmaq_n_f32(acc, x, w); }
};
