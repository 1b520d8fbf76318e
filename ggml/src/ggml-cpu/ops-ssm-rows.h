// The inner row loops of the recurrent ops (ops-ssm.cpp), written once and compiled per instruction
// set: ops-ssm.cpp builds them for the baseline (the scalar oracle: SSE2 on x86-64, NEON on arm64),
// ops-ssm.avx2.cpp with AVX2 + FMA. The sums run over 16 float lanes, which the compiler maps onto
// vector registers without -ffast-math; the AVX2 build contracts products and sums into FMAs, so its
// results agree with the oracle to rounding, not bit for bit (test-backend-ops runs both levels).
#pragma once

#include <cstdint>

struct ggml_cpu_ssm_rows {
    // sum_i a[i] * b[i]
    float (*dot)(const float * a, const float * b, int64_t n);
    // r[i] *= e, then sum_i r[i] * k[i] (gated delta net: scalar decay and M[j] . k)
    float (*scale_dot)(float * r, float e, const float * k, int64_t n);
    // r[i] *= e[i], then sum_i r[i] * k[i] (per-channel decay)
    float (*decay_dot)(float * r, const float * e, const float * k, int64_t n);
    // r[i] += a * k[i], then sum_i r[i] * q[i] (the delta update and the output)
    float (*axpy_dot)(float * r, float a, const float * k, const float * q, int64_t n);
    // st[i] = st[i] * dA + b[i] * xdt, then sum_i st[i] * c[i] (Mamba-2 scan of one state row, in place)
    float (*scan)(float * st, float dA, const float * b, float xdt, const float * c, int64_t n);
};

const ggml_cpu_ssm_rows * ggml_cpu_ssm_rows_base();  // ops-ssm.cpp
const ggml_cpu_ssm_rows * ggml_cpu_ssm_rows_avx2();  // ops-ssm.avx2.cpp (x86-64 builds)

// The definitions, for the two files above only.
#ifdef GGML_CPU_SSM_ROWS_DEFINE
namespace {

constexpr int k_lanes = 16;

// Each loop keeps 16 partial sums (SSE2: four registers, AVX2: two) and adds them up in order at the
// end. The rows never overlap (the state in the result, q/k/B/C in the sources): __restrict lets the
// compiler vectorize the update and the sum as one loop.
#    define SSM_ROW_LOOP(UPDATE_AND_TERM)       \
        float   part[k_lanes] = {0};            \
        int64_t i             = 0;              \
        for (; i + k_lanes <= n; i += k_lanes)  \
            for (int l = 0; l < k_lanes; ++l) { \
                const int64_t j = i + l;        \
                part[l] += UPDATE_AND_TERM;     \
            }                                   \
        float s = 0.0f;                         \
        for (; i < n; ++i) {                    \
            const int64_t j = i;                \
            s += UPDATE_AND_TERM;               \
        }                                       \
        for (int l = 0; l < k_lanes; ++l)       \
            s += part[l];                       \
        return s

float row_dot(const float * __restrict a, const float * __restrict b, int64_t n) {
    SSM_ROW_LOOP(a[j] * b[j]);
}
float row_scale_dot(float * __restrict r, float e, const float * __restrict k, int64_t n) {
    SSM_ROW_LOOP((r[j] *= e) * k[j]);
}
float row_decay_dot(float * __restrict r, const float * __restrict e, const float * __restrict k, int64_t n) {
    SSM_ROW_LOOP((r[j] *= e[j]) * k[j]);
}
float row_axpy_dot(float * __restrict r, float a, const float * __restrict k, const float * __restrict q, int64_t n) {
    SSM_ROW_LOOP((r[j] += a * k[j]) * q[j]);
}
float row_scan(float * __restrict st, float dA, const float * __restrict b, float xdt, const float * __restrict c,
               int64_t n) {
    SSM_ROW_LOOP((st[j] = st[j] * dA + b[j] * xdt) * c[j]);
}

#    undef SSM_ROW_LOOP

constexpr ggml_cpu_ssm_rows k_ssm_rows = {row_dot, row_scale_dot, row_decay_dot, row_axpy_dot, row_scan};

}  // namespace
#endif
