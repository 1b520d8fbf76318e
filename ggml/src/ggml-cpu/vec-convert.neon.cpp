// F32 -> F16 rows with FCVTN (writes into an F16 KV cache, F16 copies): rounds by FPCR, which is
// round to nearest even in every process (the ABI default), so the bits equal ggml_fp32_to_fp16's
// for every non-NaN input (subnormals and overflow to inf included); a NaN stays a NaN (its payload
// may differ).
#include <arm_neon.h>

#include <cstdint>

void ggml_cpu_fp32_to_fp16_neon(const float * x, uint16_t * y, int64_t n);

void ggml_cpu_fp32_to_fp16_neon(const float * x, uint16_t * y, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        vst1_u16(y + i, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(x + i))));
    if (i < n) {  // the tail through the same instruction
        float    t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        uint16_t h[4];
        for (int64_t k = i; k < n; ++k)
            t[k - i] = x[k];
        vst1_u16(h, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(t))));
        for (int64_t k = i; k < n; ++k)
            y[k] = h[k - i];
    }
}
