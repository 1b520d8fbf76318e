// AVX-512 kernels of the tiled flash attention (see ops-attn.h). P.V keeps a block of up to 4 query
// rows x 64 output columns in 16 registers while it streams the V rows, so each V load feeds 4 FMAs.
#include <immintrin.h>

#include <cmath>
#include <cstring>

#include "ops-attn.h"

// GCC 12's maskz intrinsics read an undefined placeholder vector (false positives)
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wuninitialized"
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

void ggml_cpu_vec_exp_sub_avx512(float * d, int64_t n, float m);  // vec-exp.avx512.cpp

namespace {

inline __mmask16 tail_mask(int rem) {
    return rem >= 16 ? (__mmask16) 0xffff : rem <= 0 ? (__mmask16) 0 : (__mmask16) ((1u << rem) - 1);
}

template <int NQ>
void pv_block(int nk, int dv, const float * p, int ldp, const float * v, int ldv, float * acc, int ldacc) {
    for (int d = 0; d < dv; d += 64) {
        __mmask16 mk[4];
        for (int i = 0; i < 4; ++i)
            mk[i] = tail_mask(dv - d - 16 * i);
        __m512 a[NQ][4];
        for (int q = 0; q < NQ; ++q)
            for (int i = 0; i < 4; ++i)
                a[q][i] = _mm512_maskz_loadu_ps(mk[i], acc + q * ldacc + d + 16 * i);
        for (int j = 0; j < nk; ++j) {
            const float * vr = v + (size_t) j * ldv + d;
            __m512        x[4];
            for (int i = 0; i < 4; ++i)
                x[i] = _mm512_maskz_loadu_ps(mk[i], vr + 16 * i);
            for (int q = 0; q < NQ; ++q) {
                // a zero weight (masked key) leaves acc untouched, even when its V row holds NaN/Inf
                const __m512    pj = _mm512_set1_ps(p[q * ldp + j]);
                const __mmask16 nz = _mm512_cmp_ps_mask(pj, _mm512_setzero_ps(), _CMP_NEQ_UQ);
                for (int i = 0; i < 4; ++i)
                    a[q][i] = _mm512_mask3_fmadd_ps(pj, x[i], a[q][i], nz);
            }
        }
        for (int q = 0; q < NQ; ++q)
            for (int i = 0; i < 4; ++i)
                _mm512_mask_storeu_ps(acc + q * ldacc + d + 16 * i, mk[i], a[q][i]);
    }
}

void pv(int nq, int nk, int dv, const float * p, int ldp, const float * v, int ldv, float * acc, int ldacc) {
    int q = 0;
    for (; q + 4 <= nq; q += 4)
        pv_block<4>(nk, dv, p + q * ldp, ldp, v, ldv, acc + q * ldacc, ldacc);
    switch (nq - q) {
        case 3:
            pv_block<3>(nk, dv, p + q * ldp, ldp, v, ldv, acc + q * ldacc, ldacc);
            break;
        case 2:
            pv_block<2>(nk, dv, p + q * ldp, ldp, v, ldv, acc + q * ldacc, ldacc);
            break;
        case 1:
            pv_block<1>(nk, dv, p + q * ldp, ldp, v, ldv, acc + q * ldacc, ldacc);
            break;
        default:
            break;
    }
}

float scale_mask_max(float * s, int n, float scale, const float * mask, float slope) {
    const __m512 vs = _mm512_set1_ps(scale), vsl = _mm512_set1_ps(slope), ninf = _mm512_set1_ps(-INFINITY);
    __m512       mx = ninf;
    for (int i = 0; i < n; i += 16) {
        const __mmask16 k = tail_mask(n - i);
        __m512          x = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, s + i), vs);
        if (mask) {
            const __m512    mv   = _mm512_maskz_loadu_ps(k, mask + i);
            const __mmask16 open = _mm512_cmp_ps_mask(mv, ninf, _CMP_NEQ_UQ);
            // masked add (a builtin, never contracted into an FMA): x + slope * mv as the scalar rounds it
            x = _mm512_mask_blend_ps(open, ninf, _mm512_mask_add_ps(x, 0xffff, x, _mm512_mul_ps(vsl, mv)));
        }
        _mm512_mask_storeu_ps(s + i, k, x);
        mx = _mm512_mask_max_ps(mx, k, x, mx);  // a NaN score is skipped, as std::max(mx, x)
    }
    return _mm512_reduce_max_ps(mx);
}

float exp_sum(float * s, int n, float m) {
    ggml_cpu_vec_exp_sub_avx512(s, n, m);
    __m512 sum = _mm512_setzero_ps();
    for (int i = 0; i < n; i += 16)
        sum = _mm512_add_ps(sum, _mm512_maskz_loadu_ps(tail_mask(n - i), s + i));
    return _mm512_reduce_add_ps(sum);
}

void f16_to_f32(const uint16_t * x, float * y, int64_t n) {
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 k = tail_mask((int) (n - i < 16 ? n - i : 16));
        _mm512_mask_storeu_ps(y + i, k, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(k, x + i)));
    }
}

void q8_0_to_f32(const void * vx, float * y, int64_t n) {
    const uint8_t * x = (const uint8_t *) vx;  // blocks of {F16 d; int8 q[32]}, 34 bytes
    for (int64_t ib = 0; ib < n / 32; ++ib, x += 34, y += 32) {
        uint16_t dh;
        std::memcpy(&dh, x, 2);
        const __m512 d = _mm512_set1_ps(cpu_f16_to_f32(dh));
        for (int i = 0; i < 2; ++i) {
            const __m512i q = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *) (x + 2 + 16 * i)));
            _mm512_storeu_ps(y + 16 * i, _mm512_mul_ps(d, _mm512_cvtepi32_ps(q)));
        }
    }
}

const ggml_cpu_fa_kernels k_kernels = {pv, scale_mask_max, exp_sum, f16_to_f32, q8_0_to_f32};

}  // namespace

const ggml_cpu_fa_kernels * ggml_cpu_fa_kernels_avx512() {
    return &k_kernels;
}
