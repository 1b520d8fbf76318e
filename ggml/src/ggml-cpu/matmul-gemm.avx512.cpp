// AVX-512 BF16 GEMM micro-kernels (see matmul-gemm.h): panels of 32 columns (2 registers) in k
// pairs (KG = 2), up to 12 weight rows per call, so 24 accumulators stay in registers while a panel
// pair-row is loaded once for 12 broadcasts; vdpbf16ps does two k per lane and instruction (twice
// the F32 FMA rate).
#include <immintrin.h>

#include <cstring>

#include "matmul-gemm.h"

// GCC 12's maskz intrinsics read an undefined placeholder vector (false positives)
#if defined(__GNUC__) && !defined(__clang__)
#    pragma GCC diagnostic ignored "-Wuninitialized"
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace {

constexpr int NP = 32, MR = 12;

inline __m512bh as_bh(__m512i v) {
    return (__m512bh) v;
}

template <int R>
void k_bf16(int64_t kp, int tail, const uint16_t * a, size_t lda, const uint16_t * bp, float * c, bool first) {
    __m512 acc[R][2];
    for (int r = 0; r < R; ++r)
        for (int h = 0; h < 2; ++h)
            acc[r][h] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(c + r * NP + 16 * h);
    for (int64_t k = 0; k < kp; ++k) {
        const __m512bh b0 = as_bh(_mm512_loadu_si512(bp + k * 2 * NP));
        const __m512bh b1 = as_bh(_mm512_loadu_si512(bp + k * 2 * NP + 32));
        for (int r = 0; r < R; ++r) {
            uint32_t w;
            std::memcpy(&w, a + r * lda + 2 * k, 4);
            const __m512bh va = as_bh(_mm512_set1_epi32((int) w));
            acc[r][0]         = _mm512_dpbf16_ps(acc[r][0], va, b0);
            acc[r][1]         = _mm512_dpbf16_ps(acc[r][1], va, b1);
        }
    }
    if (tail) {  // one k left: (a, 0)
        const __m512bh b0 = as_bh(_mm512_loadu_si512(bp + kp * 2 * NP));
        const __m512bh b1 = as_bh(_mm512_loadu_si512(bp + kp * 2 * NP + 32));
        for (int r = 0; r < R; ++r) {
            const __m512bh va = as_bh(_mm512_set1_epi32((int) a[r * lda + 2 * kp]));  // (a, 0)
            acc[r][0]         = _mm512_dpbf16_ps(acc[r][0], va, b0);
            acc[r][1]         = _mm512_dpbf16_ps(acc[r][1], va, b1);
        }
    }
    for (int r = 0; r < R; ++r)
        for (int h = 0; h < 2; ++h)
            _mm512_storeu_ps(c + r * NP + 16 * h, acc[r][h]);
}

using bf16_fn = void (*)(int64_t, int, const uint16_t *, size_t, const uint16_t *, float *, bool);

constexpr bf16_fn k_bf16_tab[MR] = {k_bf16<1>, k_bf16<2>, k_bf16<3>, k_bf16<4>,  k_bf16<5>,  k_bf16<6>,
                                    k_bf16<7>, k_bf16<8>, k_bf16<9>, k_bf16<10>, k_bf16<11>, k_bf16<12>};

void bf16(int mr, int64_t kp, int tail, const uint16_t * a, size_t lda, const uint16_t * bp, float * c, bool first) {
    k_bf16_tab[mr - 1](kp, tail, a, lda, bp, c, first);
}

const ggml_cpu_gemm_isa k_isa = {NP, MR, 2, bf16};

}  // namespace

const ggml_cpu_gemm_isa * ggml_cpu_gemm_isa_avx512bf16() {
    return &k_isa;
}
