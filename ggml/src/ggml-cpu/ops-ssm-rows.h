// The inner row loops of the recurrent ops (ops-ssm.cpp), written once and compiled per instruction
// set: ops-ssm.cpp builds them for the baseline (the scalar oracle: SSE2 on x86-64, NEON on arm64),
// ops-ssm.avx2.cpp with AVX2 + FMA, ops-ssm.avx512.cpp with AVX-512. The sums run over 16 float lanes,
// which the compiler maps onto vector registers without -ffast-math; the SIMD builds contract products
// and sums into FMAs, so their results agree with the oracle to rounding, not bit for bit
// (test-backend-ops runs every level).
#pragma once

#include <cstdint>
#include <cstring>

struct ggml_cpu_ssm_rows {
    // sum_i a[i] * b[i]
    float (*dot)(const float * a, const float * b, int64_t n);
    // r[i] = src[i] * e, then sum_i r[i] * k[i] (gated delta net: scalar decay and M[j] . k; src is r, or
    // the state before the first token, which saves copying it first)
    float (*scale_dot)(float * r, const float * src, float e, const float * k, int64_t n);
    // r[i] = src[i] * e[i], then sum_i r[i] * k[i] (per-channel decay)
    float (*decay_dot)(float * r, const float * src, const float * e, const float * k, int64_t n);
    // r[i] += a * k[i], then sum_i r[i] * q[i] (the delta update and the output)
    float (*axpy_dot)(float * r, float a, const float * k, const float * q, int64_t n);
    // st[i] = st[i] * dA + b[i] * xdt, then sum_i st[i] * c[i] (Mamba-2 scan of one state row, in place)
    float (*scan)(float * st, float dA, const float * b, float xdt, const float * c, int64_t n);
    // out[m] = r_m . x and out[4 + m] = r_m . y for the four rows r_m = r + m * rs (the chunked gated delta
    // net's small matmuls: four rows share each load of x and y)
    void (*dot4x2)(const float * r, int64_t rs, const float * x, const float * y, int64_t n, float * out);
    // acc[i] += sum_{s < m} c[s] * x[s * xs + i] (a row plus a combination of m rows, kept in registers)
    void (*axpys)(float * acc, const float * c, const float * x, int64_t xs, int64_t m, int64_t n);
    // the same for two rows and two coefficient sets over the same m rows (each load of x feeds both)
    void (*axpys2)(float * acc, float * acc2, const float * c, const float * c2, const float * x, int64_t xs, int64_t m,
                   int64_t n);
};

const ggml_cpu_ssm_rows * ggml_cpu_ssm_rows_base();    // ops-ssm.cpp
const ggml_cpu_ssm_rows * ggml_cpu_ssm_rows_avx2();    // ops-ssm.avx2.cpp (x86-64 builds)
const ggml_cpu_ssm_rows * ggml_cpu_ssm_rows_avx512();  // ops-ssm.avx512.cpp (x86-64 builds)

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
// r and src are the same row or do not overlap
float row_scale_dot(float * r, const float * src, float e, const float * __restrict k, int64_t n) {
    SSM_ROW_LOOP((r[j] = src[j] * e) * k[j]);
}
float row_decay_dot(float * r, const float * src, const float * __restrict e, const float * __restrict k, int64_t n) {
    SSM_ROW_LOOP((r[j] = src[j] * e[j]) * k[j]);
}
float row_axpy_dot(float * __restrict r, float a, const float * __restrict k, const float * __restrict q, int64_t n) {
    SSM_ROW_LOOP((r[j] += a * k[j]) * q[j]);
}
float row_scan(float * __restrict st, float dA, const float * __restrict b, float xdt, const float * __restrict c,
               int64_t n) {
    SSM_ROW_LOOP((st[j] = st[j] * dA + b[j] * xdt) * c[j]);
}

#    undef SSM_ROW_LOOP

// The chunked gated delta net's kernels keep their sums in registers across many rows, which the
// compilers do not find from plain loops (they spill the lane arrays): with GCC and Clang they are written
// over vectors of SSM_VEC floats, one register of the build's instruction set (4 unless the including
// file says otherwise: SSE2 / NEON; 8 in the AVX2 build, 16 in the AVX-512 one); other compilers take the
// plain loops.
#    ifndef SSM_VEC
#        define SSM_VEC 4
#    endif
#    if defined(__GNUC__) || defined(__clang__)
typedef float ssm_v8 __attribute__((vector_size(SSM_VEC * 4)));

inline ssm_v8 v8_load(const float * p) {
    ssm_v8 v;
    std::memcpy(&v, p, sizeof(v));  // an unaligned load
    return v;
}
inline void v8_store(float * p, ssm_v8 v) {
    std::memcpy(p, &v, sizeof(v));
}
inline float v8_sum(ssm_v8 v) {
    float s = 0.0f;
    for (int l = 0; l < SSM_VEC; ++l)
        s += v[l];
    return s;
}
#        define SSM_V8 1
#    endif

void row_dot4x2(const float * __restrict r, int64_t rs, const float * __restrict x, const float * __restrict y,
                int64_t n, float * __restrict out) {
    int64_t i     = 0;
    float   sx[4] = {0}, sy[4] = {0};
#    ifdef SSM_V8
    ssm_v8 px[4] = {}, py[4] = {};
    for (; i + SSM_VEC <= n; i += SSM_VEC) {
        const ssm_v8 xv = v8_load(x + i), yv = v8_load(y + i);
        for (int m = 0; m < 4; ++m) {
            const ssm_v8 a = v8_load(r + m * rs + i);
            px[m] += a * xv;
            py[m] += a * yv;
        }
    }
    for (int m = 0; m < 4; ++m) {
        sx[m] = v8_sum(px[m]);
        sy[m] = v8_sum(py[m]);
    }
#    endif
    for (; i < n; ++i)
        for (int m = 0; m < 4; ++m) {
            sx[m] += r[m * rs + i] * x[i];
            sy[m] += r[m * rs + i] * y[i];
        }
    for (int m = 0; m < 4; ++m) {
        out[m]     = sx[m];
        out[4 + m] = sy[m];
    }
}

void row_axpys(float * __restrict acc, const float * __restrict c, const float * __restrict x, int64_t xs, int64_t m,
               int64_t n) {
    int64_t i = 0;
#    ifdef SSM_V8
    constexpr int W = SSM_VEC;
    for (; i + 4 * W <= n; i += 4 * W) {  // four registers of acc; one broadcast of c[s] feeds four FMAs
        ssm_v8 a0 = v8_load(acc + i), a1 = v8_load(acc + i + W), a2 = v8_load(acc + i + 2 * W),
               a3 = v8_load(acc + i + 3 * W);
        for (int64_t s = 0; s < m; ++s) {
            const float * xr = x + s * xs + i;
            const float   cs = c[s];
            a0 += cs * v8_load(xr);
            a1 += cs * v8_load(xr + W);
            a2 += cs * v8_load(xr + 2 * W);
            a3 += cs * v8_load(xr + 3 * W);
        }
        v8_store(acc + i, a0);
        v8_store(acc + i + W, a1);
        v8_store(acc + i + 2 * W, a2);
        v8_store(acc + i + 3 * W, a3);
    }
    for (; i + W <= n; i += W) {
        ssm_v8 a0 = v8_load(acc + i);
        for (int64_t s = 0; s < m; ++s)
            a0 += c[s] * v8_load(x + s * xs + i);
        v8_store(acc + i, a0);
    }
#    endif
    for (; i < n; ++i) {
        float a = acc[i];
        for (int64_t s = 0; s < m; ++s)
            a += c[s] * x[s * xs + i];
        acc[i] = a;
    }
}

void row_axpys2(float * __restrict acc, float * __restrict acc2, const float * __restrict c,
                const float * __restrict c2, const float * __restrict x, int64_t xs, int64_t m, int64_t n) {
    int64_t i = 0;
#    ifdef SSM_V8
    constexpr int W = SSM_VEC;
    for (; i + 4 * W <= n; i += 4 * W) {  // eight sums in registers; four loads of x feed eight FMAs
        ssm_v8 a0 = v8_load(acc + i), a1 = v8_load(acc + i + W), a2 = v8_load(acc + i + 2 * W),
               a3 = v8_load(acc + i + 3 * W);
        ssm_v8 b0 = v8_load(acc2 + i), b1 = v8_load(acc2 + i + W), b2 = v8_load(acc2 + i + 2 * W),
               b3 = v8_load(acc2 + i + 3 * W);
        for (int64_t s = 0; s < m; ++s) {
            const float * xr = x + s * xs + i;
            const ssm_v8  x0 = v8_load(xr), x1 = v8_load(xr + W), x2 = v8_load(xr + 2 * W), x3 = v8_load(xr + 3 * W);
            const float   cs = c[s], ds = c2[s];
            a0 += cs * x0;
            a1 += cs * x1;
            a2 += cs * x2;
            a3 += cs * x3;
            b0 += ds * x0;
            b1 += ds * x1;
            b2 += ds * x2;
            b3 += ds * x3;
        }
        v8_store(acc + i, a0);
        v8_store(acc + i + W, a1);
        v8_store(acc + i + 2 * W, a2);
        v8_store(acc + i + 3 * W, a3);
        v8_store(acc2 + i, b0);
        v8_store(acc2 + i + W, b1);
        v8_store(acc2 + i + 2 * W, b2);
        v8_store(acc2 + i + 3 * W, b3);
    }
#    endif
    for (; i < n; ++i) {
        float a = acc[i], b = acc2[i];
        for (int64_t s = 0; s < m; ++s) {
            a += c[s] * x[s * xs + i];
            b += c2[s] * x[s * xs + i];
        }
        acc[i]  = a;
        acc2[i] = b;
    }
}

#    undef SSM_V8

constexpr ggml_cpu_ssm_rows k_ssm_rows = {row_dot,  row_scale_dot, row_decay_dot, row_axpy_dot,
                                          row_scan, row_dot4x2,    row_axpys,     row_axpys2};

}  // namespace
#endif
