// Vector loops over the NEON exp (vec-exp.neon.h): d[i] = exp(d[i] - m) for soft_max and flash
// attention, SwiGLU d[i] = silu(x[i]) * g[i], and the soft_max row. 4 lanes per step; the last
// n % 4 elements go one at a time through the same exp.
#include <cmath>
#include <cstdint>

#include "ggml-cpu-impl.h"
#include "vec-exp.neon.h"

namespace {

void exp_sub(float * d, int64_t n, float m) {
    const float32x4_t vm = vdupq_n_f32(m);
    int64_t           i  = 0;
    for (; i + 4 <= n; i += 4)
        vst1q_f32(d + i, ggml_exp_neon(vsubq_f32(vld1q_f32(d + i), vm)));
    for (; i < n; ++i)
        d[i] = ggml_exp_neon1(d[i] - m);
}

// silu(x) * g = x / (1 + exp(-x)) * g, the scalar expression with the polynomial exp
inline float32x4_t swiglu4(float32x4_t x, float32x4_t g) {
    const float32x4_t one = vdupq_n_f32(1.0f);
    return vmulq_f32(vdivq_f32(x, vaddq_f32(one, ggml_exp_neon(vnegq_f32(x)))), g);
}

void swiglu(const float * x, const float * g, float * d, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        vst1q_f32(d + i, swiglu4(vld1q_f32(x + i), vld1q_f32(g + i)));
    for (; i < n; ++i)
        d[i] = vgetq_lane_f32(swiglu4(vdupq_n_f32(x[i]), vdupq_n_f32(g[i])), 0);
}

// Three passes: scale + mask + max, exp + sum, normalize. The scale and mask step rounds as the
// AVX-512 row does (slope * mask fused into the add).
void soft_max_row(const float * x, const float * m, float * d, int64_t n, float scale, float slope) {
    const float32x4_t vs = vdupq_n_f32(scale), vsl = vdupq_n_f32(slope);
    float32x4_t       vmax = vdupq_n_f32(-INFINITY);
    int64_t           i    = 0;
    for (; i + 4 <= n; i += 4) {
        float32x4_t v = vmulq_f32(vld1q_f32(x + i), vs);
        if (m)
            v = vfmaq_f32(v, vsl, vld1q_f32(m + i));
        vst1q_f32(d + i, v);
        vmax = vmaxq_f32(vmax, v);
    }
    float mx = vmaxvq_f32(vmax);
    for (; i < n; ++i) {
        const float v = m ? std::fma(slope, m[i], x[i] * scale) : x[i] * scale;
        d[i]          = v;
        mx            = std::fmax(mx, v);
    }
    if (mx == -INFINITY) {
        for (i = 0; i < n; ++i)
            d[i] = 0.0f;
        return;
    }
    const float32x4_t vm  = vdupq_n_f32(mx);
    float32x4_t       sum = vdupq_n_f32(0.0f);
    for (i = 0; i + 4 <= n; i += 4) {
        const float32x4_t e = ggml_exp_neon(vsubq_f32(vld1q_f32(d + i), vm));
        vst1q_f32(d + i, e);
        sum = vaddq_f32(sum, e);
    }
    float total = vaddvq_f32(sum);
    for (; i < n; ++i) {
        d[i] = ggml_exp_neon1(d[i] - mx);
        total += d[i];
    }
    const float32x4_t inv = vdupq_n_f32((float) (1.0 / (double) total));
    for (i = 0; i + 4 <= n; i += 4)
        vst1q_f32(d + i, vmulq_f32(vld1q_f32(d + i), inv));
    for (; i < n; ++i)
        d[i] *= vgetq_lane_f32(inv, 0);
}

const ggml_cpu_vec_exp k_set = {exp_sub, swiglu, soft_max_row};

}  // namespace

const ggml_cpu_vec_exp * ggml_cpu_vec_exp_neon() {
    return &k_set;
}
