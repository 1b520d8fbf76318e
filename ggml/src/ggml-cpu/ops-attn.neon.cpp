// ARMv8.0 NEON kernels of the tiled flash attention (see ops-attn.h). P.V keeps a block of up to 2
// query rows x 32 output columns in 16 of the 32 vector registers while it streams the V rows.
#include <arm_neon.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops-attn.h"
#include "vec-exp.neon.h"
#include "vec-f32.neon.h"

namespace {

constexpr int PV_NB = 8;  // 4 lanes: blocks of 32 columns, 16 of the 32 registers accumulate

#include "ops-attn-pv.h"  // pv<V, NB>: P.V, written once for every instruction set

// The scalar expression's bits: the build keeps a * b + c unfused on arm64 (-ffp-contract=off), so
// slope * mask is rounded on its own in both the vector and the scalar code. The running max is
// std::max(mx, x) lane-wise (x > mx ? x : mx): a NaN score is never taken, where FMAX would take it.
float scale_mask_max(float * s, int n, float scale, const float * mask, float slope) {
    const float32x4_t vs = vdupq_n_f32(scale), vsl = vdupq_n_f32(slope), ninf = vdupq_n_f32(-INFINITY);
    float32x4_t       mx = ninf;
    int               i  = 0;
    for (; i + 4 <= n; i += 4) {
        float32x4_t x = vmulq_f32(vld1q_f32(s + i), vs);
        if (mask) {
            const float32x4_t mv = vld1q_f32(mask + i);
            x                    = vbslq_f32(vceqq_f32(mv, ninf), ninf, vaddq_f32(x, vmulq_f32(vsl, mv)));
        }
        vst1q_f32(s + i, x);
        mx = vbslq_f32(vcgtq_f32(x, mx), x, mx);
    }
    float buf[4];
    vst1q_f32(buf, mx);
    float m = buf[0];
    for (int k = 1; k < 4; ++k)
        m = std::max(m, buf[k]);
    for (; i < n; ++i) {
        float x = s[i] * scale;
        if (mask) {
            const float mv = mask[i];
            x              = mv == -INFINITY ? -INFINITY : x + slope * mv;
        }
        s[i] = x;
        m    = std::max(m, x);
    }
    return m;
}

float exp_sum(float * s, int n, float m) {
    const float32x4_t vm  = vdupq_n_f32(m);
    float32x4_t       sum = vdupq_n_f32(0.0f);
    int               i   = 0;
    for (; i + 4 <= n; i += 4) {
        const float32x4_t e = ggml_exp_neon(vsubq_f32(vld1q_f32(s + i), vm));
        vst1q_f32(s + i, e);
        sum = vaddq_f32(sum, e);
    }
    float total = vaddvq_f32(sum);
    for (; i < n; ++i) {
        s[i] = ggml_exp_neon1(s[i] - m);
        total += s[i];
    }
    return total;
}

void f16_to_f32(const uint16_t * x, float * y, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        vst1q_f32(y + i, vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(x + i))));
    for (; i < n; ++i)
        y[i] = cpu_f16_to_f32(x[i]);
}

void q8_0_to_f32(const void * vx, float * y, int64_t n) {
    const uint8_t * x = (const uint8_t *) vx;  // blocks of {F16 d; int8 q[32]}, 34 bytes
    for (int64_t ib = 0; ib < n / 32; ++ib, x += 34, y += 32) {
        uint16_t dh;
        std::memcpy(&dh, x, 2);
        const float d = cpu_f16_to_f32(dh);
        for (int i = 0; i < 2; ++i) {
            const int8x16_t q  = vld1q_s8((const int8_t *) (x + 2 + 16 * i));
            const int16x8_t lo = vmovl_s8(vget_low_s8(q)), hi = vmovl_s8(vget_high_s8(q));
            float *         o = y + 16 * i;
            vst1q_f32(o + 0, vmulq_n_f32(vcvtq_f32_s32(vmovl_s16(vget_low_s16(lo))), d));
            vst1q_f32(o + 4, vmulq_n_f32(vcvtq_f32_s32(vmovl_s16(vget_high_s16(lo))), d));
            vst1q_f32(o + 8, vmulq_n_f32(vcvtq_f32_s32(vmovl_s16(vget_low_s16(hi))), d));
            vst1q_f32(o + 12, vmulq_n_f32(vcvtq_f32_s32(vmovl_s16(vget_high_s16(hi))), d));
        }
    }
}

const ggml_cpu_fa_kernels k_kernels = {pv<vf_neon, PV_NB>, scale_mask_max, exp_sum, f16_to_f32, q8_0_to_f32};

}  // namespace

const ggml_cpu_fa_kernels * ggml_cpu_fa_kernels_neon() {
    return &k_kernels;
}
