// ARMv8.0 NEON micro-kernels of the KQ MUL_MAT (matmul-attn.h): 6 rows x 16 keys in 24 of the 32
// vector registers (4 per row), each output one FMA chain over d, and the F16 -> F32 transposition
// that packs kt.
#include <arm_neon.h>

#include "matmul-attn.h"

namespace {

constexpr int RK = 6;  // divides the driver's rows per call (48)

// stores the first n (< 4 allowed) lanes of v
inline void store_n(float * d, float32x4_t v, int n) {
    if (n >= 4) {
        vst1q_f32(d, v);
        return;
    }
    float t[4];
    vst1q_f32(t, v);
    for (int i = 0; i < n; ++i)
        d[i] = t[i];
}

template <int R>
void kq_rows(int nk, int D, const float * const * q, const float * kt, int ldk, float * const * s) {
    for (int j = 0; j < nk; j += 16) {
        float32x4_t acc[R][4];
        for (int r = 0; r < R; ++r)
            for (int i = 0; i < 4; ++i)
                acc[r][i] = vdupq_n_f32(0.0f);
        const float * kp = kt + j;
        for (int d = 0; d < D; ++d) {
            const float * kd = kp + (size_t) d * ldk;
            float32x4_t   b[4];
            for (int i = 0; i < 4; ++i)
                b[i] = vld1q_f32(kd + 4 * i);  // kt is readable up to ldk, a multiple of 32
            for (int r = 0; r < R; ++r) {
                const float a = q[r][d];
                for (int i = 0; i < 4; ++i)
                    acc[r][i] = vfmaq_n_f32(acc[r][i], b[i], a);
            }
        }
        for (int r = 0; r < R; ++r)
            for (int i = 0; i < 4 && j + 4 * i < nk; ++i)
                store_n(s[r] + j + 4 * i, acc[r][i], nk - j - 4 * i);
    }
}

using kq_fn                = void (*)(int, int, const float * const *, const float *, int, float * const *);
constexpr kq_fn kq_tab[RK] = {kq_rows<1>, kq_rows<2>, kq_rows<3>, kq_rows<4>, kq_rows<5>, kq_rows<6>};

void kq(int nr, int nk, int D, const float * const * q, const float * kt, int ldk, float * const * s) {
    for (int c = 0; c < nr; c += RK) {
        const int r = nr - c < RK ? nr - c : RK;
        kq_tab[r - 1](nk, D, q + c, kt, ldk, s + c);
    }
}

// rows widened 4 at a time by FCVTL, scattered as columns
void transpose_f16(int R, int C, const uint16_t * src, size_t lds, float * dst, int ldd) {
    for (int r = 0; r < R; ++r) {
        const uint16_t * s = src + (size_t) r * lds;
        for (int c0 = 0; c0 < C; c0 += 4) {
            uint16_t h[4] = {0, 0, 0, 0};
            for (int i = 0; i < 4 && c0 + i < C; ++i)
                h[i] = s[c0 + i];
            float t[4];
            vst1q_f32(t, vcvt_f32_f16(vreinterpret_f16_u16(C - c0 >= 4 ? vld1_u16(s + c0) : vld1_u16(h))));
            for (int i = 0; i < 4 && c0 + i < C; ++i)
                dst[(size_t) (c0 + i) * ldd + r] = t[i];
        }
    }
}

const ggml_cpu_attn_mm_isa k_isa = {RK, kq, transpose_f16};

}  // namespace

const ggml_cpu_attn_mm_isa * ggml_cpu_attn_mm_neon() {
    return &k_isa;
}
