// ARMv8.0 NEON micro-kernels of the KQ MUL_MAT (matmul-attn.h): 6 rows x 16 keys in 24 of the 32
// vector registers (4 per row), each output one FMA chain over d, and the F16 -> F32 transposition
// that packs kt.
#include <arm_neon.h>

#include "matmul-attn.h"
#include "vec-f32.neon.h"

namespace {

constexpr int RK = 6;  // divides the driver's rows per call (48)

#include "matmul-attn-kq.h"  // kq<V>: the KQ kernel, written once for every instruction set

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

const ggml_cpu_attn_mm_isa k_isa = {RK, kq<vf_neon>, transpose_f16};

}  // namespace

const ggml_cpu_attn_mm_isa * ggml_cpu_attn_mm_neon() {
    return &k_isa;
}
