// ARMv8.0 NEON kernels of the tiled flash attention (see ops-attn.h). P.V keeps a block of up to 2
// query rows x 32 output columns in 16 of the 32 vector registers while it streams the V rows.
#include <arm_neon.h>

#include <algorithm>
#include <cmath>

#include "ops-attn.h"
#include "vec-exp.neon.h"

namespace {

template <int NQ, int NV>
void pv_block(int nk, const float * p, int ldp, const float * v, int ldv, float * acc, int ldacc) {
    float32x4_t a[NQ][NV];
    for (int q = 0; q < NQ; ++q)
        for (int i = 0; i < NV; ++i)
            a[q][i] = vld1q_f32(acc + q * ldacc + 4 * i);
    for (int j = 0; j < nk; ++j) {
        const float * vr = v + (size_t) j * ldv;
        float32x4_t   x[NV];
        for (int i = 0; i < NV; ++i)
            x[i] = vld1q_f32(vr + 4 * i);
        for (int q = 0; q < NQ; ++q) {
            const float w = p[q * ldp + j];
            if (w == 0.0f)
                continue;  // a masked key adds nothing, even when its V row holds NaN/Inf
            for (int i = 0; i < NV; ++i)
                a[q][i] = vfmaq_n_f32(a[q][i], x[i], w);
        }
    }
    for (int q = 0; q < NQ; ++q)
        for (int i = 0; i < NV; ++i)
            vst1q_f32(acc + q * ldacc + 4 * i, a[q][i]);
}

template <int NQ>
void pv_rows(int nk, int dv, const float * p, int ldp, const float * v, int ldv, float * acc, int ldacc) {
    int d = 0;
    for (; d + 32 <= dv; d += 32)
        pv_block<NQ, 8>(nk, p, ldp, v + d, ldv, acc + d, ldacc);
    for (; d + 4 <= dv; d += 4)
        pv_block<NQ, 1>(nk, p, ldp, v + d, ldv, acc + d, ldacc);
    for (; d < dv; ++d)  // odd head sizes: same order of summation, one column at a time
        for (int q = 0; q < NQ; ++q) {
            float s = acc[q * ldacc + d];
            for (int j = 0; j < nk; ++j)
                if (p[q * ldp + j] != 0.0f)
                    s = std::fma(p[q * ldp + j], v[(size_t) j * ldv + d], s);
            acc[q * ldacc + d] = s;
        }
}

void pv(int nq, int nk, int dv, const float * p, int ldp, const float * v, int ldv, float * acc, int ldacc) {
    int q = 0;
    for (; q + 2 <= nq; q += 2)
        pv_rows<2>(nk, dv, p + q * ldp, ldp, v, ldv, acc + q * ldacc, ldacc);
    if (q < nq)
        pv_rows<1>(nk, dv, p + q * ldp, ldp, v, ldv, acc + q * ldacc, ldacc);
}

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

const ggml_cpu_fa_kernels k_kernels = {pv, scale_mask_max, exp_sum, f16_to_f32};

}  // namespace

const ggml_cpu_fa_kernels * ggml_cpu_fa_kernels_neon() {
    return &k_kernels;
}
