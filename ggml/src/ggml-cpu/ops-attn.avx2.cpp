// AVX2+FMA+F16C kernels of the tiled flash attention (see ops-attn.h). P.V keeps a block of up to 2
// query rows x 32 output columns in 8 registers while it streams the V rows.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops-attn.h"
#include "vec-f32.avx2.h"

namespace {

constexpr int PV_NB = 4;  // 8 lanes: blocks of 32 columns, 4 x 2 accumulators + 4 V loads

#include "ops-attn-pv.h"  // pv<V, NB>: P.V, written once for every instruction set

// exp(x) for x <= 0 by 2^t * P(r), r = x - t ln2 (ln2 split in two), degree-7 Taylor polynomial;
// x below -87 (incl. -inf) gives 0.
inline __m256 exp_neg(__m256 x) {
    const __m256 lo   = _mm256_set1_ps(-87.0f);
    const __m256 keep = _mm256_cmp_ps(x, lo, _CMP_GE_OQ);
    x                 = _mm256_max_ps(x, lo);
    const __m256 t    = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256       r    = _mm256_fnmadd_ps(t, _mm256_set1_ps(0.693145751953125f), x);
    r                 = _mm256_fnmadd_ps(t, _mm256_set1_ps(1.428606765330187045e-06f), r);
    const float c[8]  = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040};
    __m256      p     = _mm256_set1_ps(c[7]);
    for (int j = 6; j >= 0; --j)
        p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(c[j]));
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(t), _mm256_set1_epi32(127)), 23);
    return _mm256_and_ps(_mm256_mul_ps(p, _mm256_castsi256_ps(e)), keep);
}

float scale_mask_max(float * s, int n, float scale, const float * mask, float slope) {
    const __m256 vs = _mm256_set1_ps(scale), vsl = _mm256_set1_ps(slope), ninf = _mm256_set1_ps(-INFINITY);
    __m256       mx = ninf;
    int          i  = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 x = _mm256_mul_ps(_mm256_loadu_ps(s + i), vs);
        if (mask) {
            const __m256 mv   = _mm256_loadu_ps(mask + i);
            const __m256 open = _mm256_cmp_ps(mv, ninf, _CMP_NEQ_UQ);
            __m256       prod = _mm256_mul_ps(vsl, mv);
            // keep the product rounded on its own (no FMA), as the scalar expression
            __asm__("" : "+x"(prod));
            x = _mm256_blendv_ps(ninf, _mm256_add_ps(x, prod), open);
        }
        _mm256_storeu_ps(s + i, x);
        mx = _mm256_max_ps(x, mx);  // a NaN score is skipped, as std::max(mx, x)
    }
    float buf[8];
    _mm256_storeu_ps(buf, mx);
    float m = buf[0];
    for (int k = 1; k < 8; ++k)
        m = std::max(m, buf[k]);
    for (; i < n; ++i) {
        float x = s[i] * scale;
        if (mask) {
            const float mv = mask[i];
            float       pr = slope * mv;
            __asm__("" : "+x"(pr));
            x = mv == -INFINITY ? -INFINITY : x + pr;
        }
        s[i] = x;
        m    = std::max(m, x);
    }
    return m;
}

float exp_sum(float * s, int n, float m) {
    const __m256 vm  = _mm256_set1_ps(m);
    __m256       sum = _mm256_setzero_ps();
    int          i   = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 e = exp_neg(_mm256_sub_ps(_mm256_loadu_ps(s + i), vm));
        _mm256_storeu_ps(s + i, e);
        sum = _mm256_add_ps(sum, e);
    }
    float buf[8];
    _mm256_storeu_ps(buf, sum);
    float total = ((buf[0] + buf[4]) + (buf[1] + buf[5])) + ((buf[2] + buf[6]) + (buf[3] + buf[7]));
    if (i < n) {
        float tail[8] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
        for (int k = i; k < n; ++k)
            tail[k - i] = s[k];
        _mm256_storeu_ps(tail, exp_neg(_mm256_sub_ps(_mm256_loadu_ps(tail), vm)));
        for (int k = i; k < n; ++k) {
            s[k] = tail[k - i];
            total += tail[k - i];
        }
    }
    return total;
}

void f16_to_f32(const uint16_t * x, float * y, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (x + i))));
    for (; i < n; ++i)
        y[i] = _cvtsh_ss(x[i]);
}

void q8_0_to_f32(const void * vx, float * y, int64_t n) {
    const uint8_t * x = (const uint8_t *) vx;  // blocks of {F16 d; int8 q[32]}, 34 bytes
    for (int64_t ib = 0; ib < n / 32; ++ib, x += 34, y += 32) {
        uint16_t dh;
        std::memcpy(&dh, x, 2);
        const __m256 d = _mm256_set1_ps(cpu_f16_to_f32(dh));
        for (int i = 0; i < 4; ++i) {
            const __m256i q = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *) (x + 2 + 8 * i)));
            _mm256_storeu_ps(y + 8 * i, _mm256_mul_ps(d, _mm256_cvtepi32_ps(q)));
        }
    }
}

const ggml_cpu_fa_kernels k_kernels = {pv<vf_avx2, PV_NB>, scale_mask_max, exp_sum, f16_to_f32, q8_0_to_f32};

}  // namespace

const ggml_cpu_fa_kernels * ggml_cpu_fa_kernels_avx2() {
    return &k_kernels;
}
