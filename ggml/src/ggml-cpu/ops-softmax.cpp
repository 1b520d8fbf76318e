// SOFT_MAX over rows of (a * scale + slope * mask), mask F16/F32 broadcast over dims 2/3, ALiBi
// slopes from max_bias. Rows that are entirely -inf come out as zeros.
#include "ggml-cpu-impl.h"

#include <cmath>

const ggml_cpu_vec_exp * ggml_cpu_vec_exp_active() {
    if (ggml_cpu_use_scalar())
        return nullptr;
#if defined(GGML_CPU_ARCH_X86_64)
    if (ggml_cpu_isa_available(GGML_CPU_ISA_AVX512))
        return ggml_cpu_vec_exp_avx512();
#endif
#if defined(GGML_CPU_ARCH_ARM64)
    if (ggml_cpu_isa_available(GGML_CPU_ISA_NEON))
        return ggml_cpu_vec_exp_neon();
#endif
    return nullptr;
}

// ALiBi slope of head h (shared with flash attention).
float ggml_cpu_alibi_slope(float max_bias, int64_t n_head, int64_t h);

float ggml_cpu_alibi_slope(float max_bias, int64_t n_head, int64_t h) {
    if (max_bias <= 0.0f) {
        return 1.0f;
    }
    const int64_t n_head_log2 = (int64_t) 1 << (int) std::floor(std::log2((double) n_head));
    const double  m0          = std::pow(2.0, -(double) max_bias / (double) n_head_log2);
    const double  m1          = std::pow(2.0, -(double) max_bias / 2.0 / (double) n_head_log2);
    return (float) (h < n_head_log2 ? std::pow(m0, (double) (h + 1))
                                    : std::pow(m1, (double) (2 * (h - n_head_log2) + 1)));
}

void ggml_cpu_op_soft_max(const ggml_cpu_params * p, ggml_tensor * dst) {
    const ggml_tensor * a        = dst->src[0];
    const ggml_tensor * mask     = dst->src[1];
    const float         scale    = ggml_get_op_params_f32(dst, 0);
    const float         max_bias = ggml_get_op_params_f32(dst, 1);
    const int64_t       n        = dst->ne[0];
    int64_t             r0, r1;
    cpu_split(cpu_nrows(dst), p->ith, p->nth, r0, r1);
    const ggml_cpu_vec_exp * vx = ggml_cpu_vec_exp_active();
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i1, i2, i3;
        cpu_row_index(dst, r, i1, i2, i3);
        const char * x     = cpu_ptr(a, 0, i1, i2, i3);
        float *      d     = (float *) cpu_ptr(dst, 0, i1, i2, i3);
        const float  slope = ggml_cpu_alibi_slope(max_bias, dst->ne[2], i2);
        const char * m     = mask ? cpu_ptr(mask, 0, i1, i2 % mask->ne[2], i3 % mask->ne[3]) : nullptr;
        float        vmax  = -INFINITY;
        const bool   f32 =
            a->type == GGML_TYPE_F32 && a->nb[0] == 4 && (!m || (mask->type == GGML_TYPE_F32 && mask->nb[0] == 4));
        if (f32 && vx) {
            vx->soft_max_row((const float *) x, (const float *) m, d, n, scale, slope);
            continue;
        }
        if (f32) {
            // unit-stride F32 fast path (no per-element type dispatch)
            const float * xf = (const float *) x;
            const float * mf = (const float *) m;
            for (int64_t i = 0; i < n; ++i)
                d[i] = xf[i] * scale + (mf ? slope * mf[i] : 0.0f);
            for (int64_t i = 0; i < n; ++i)
                vmax = d[i] > vmax ? d[i] : vmax;
        } else
            for (int64_t i = 0; i < n; ++i) {
                float v = cpu_load_f(a->type, x + i * a->nb[0]) * scale;
                if (m) {
                    v += slope * cpu_load_f(mask->type, m + i * mask->nb[0]);
                }
                d[i] = v;
                vmax = v > vmax ? v : vmax;
            }
        if (vmax == -INFINITY) {
            for (int64_t i = 0; i < n; ++i)
                d[i] = 0.0f;
            continue;
        }
        if (vx) {
            vx->exp_sub(d, n, vmax);
        } else {
            for (int64_t i = 0; i < n; ++i)
                d[i] = std::exp(d[i] - vmax);
        }
        float   part[8] = {0};  // vectorizable partial sums, combined in double
        int64_t i       = 0;
        for (; i + 8 <= n; i += 8)
            for (int l = 0; l < 8; ++l)
                part[l] += d[i + l];
        double sum = 0.0;
        for (int l = 0; l < 8; ++l)
            sum += part[l];
        for (; i < n; ++i)
            sum += d[i];
        const float inv = (float) (1.0 / sum);
        for (int64_t i = 0; i < n; ++i)
            d[i] *= inv;
    }
}
