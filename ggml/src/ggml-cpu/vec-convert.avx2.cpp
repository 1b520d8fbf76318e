// F32 -> F16 rows with F16C (writes into an F16 KV cache, F16 copies): round to nearest even, the
// same bits as ggml_fp32_to_fp16 for every non-NaN input (subnormals and overflow to inf included);
// a NaN stays a NaN (its payload may differ).
#include <immintrin.h>

#include <cstdint>

void ggml_cpu_fp32_to_fp16_f16c(const float * x, uint16_t * y, int64_t n);

void ggml_cpu_fp32_to_fp16_f16c(const float * x, uint16_t * y, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *) (y + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; ++i)
        y[i] = _cvtss_sh(x[i], _MM_FROUND_TO_NEAREST_INT);
}
