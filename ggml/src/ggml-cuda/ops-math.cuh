// ops-math.cuh — scalar math shared by the basic CUDA ops and testable on the host.
//
// Everything here is a GGML_CUDA_HD function: __host__ __device__ under nvcc, plain inline under a
// host C++ compiler, so tests/unit/test-cuda-host-math.cpp checks the very code the kernels run
// against the CPU backend's formulas (the CPU backend is the oracle). No CUDA header is needed.
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#    define GGML_CUDA_HD __host__ __device__ __forceinline__
#else
#    define GGML_CUDA_HD inline
#endif

namespace ggml_cuda_math {

// ---- float operations that are never contracted into an FMA -------------------------------------
// The reference quantizers are built with -ffp-contract=off; their device twins must round every
// multiply and add on its own, and must not depend on -use_fast_math for division either.
GGML_CUDA_HD float fmul(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
GGML_CUDA_HD float fadd(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
GGML_CUDA_HD float fsub(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}
GGML_CUDA_HD float fdiv(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fdiv_rn(a, b);
#else
    return a / b;
#endif
}
// lrintf (round half to even) for values well inside the int range
GGML_CUDA_HD int rint_i(float v) {
#if defined(__CUDA_ARCH__)
    return __float2int_rn(v);
#else
    return (int) lrintf(v);
#endif
}
GGML_CUDA_HD int clampi(int v, int lo, int hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

// ---- half / bfloat16 (the same bit manipulation as ggml-types.c: exact, round to nearest even) ---
GGML_CUDA_HD uint32_t f32_bits(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
#endif
}
GGML_CUDA_HD float bits_f32(uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, 4);
    return f;
#endif
}

GGML_CUDA_HD float fp16_to_f32(uint16_t h) {
    const uint32_t sign = (uint32_t) (h & 0x8000) << 16;
    const uint32_t exp  = (h >> 10) & 0x1f;
    const uint32_t mant = h & 0x3ff;
    if (exp == 0) {
        const float v = fmul((float) mant, 5.9604644775390625e-08f);  // mant * 2^-24, exact
        return bits_f32(f32_bits(v) | sign);
    }
    if (exp == 31) {
        return bits_f32(sign | 0x7f800000u | (mant << 13));
    }
    return bits_f32(sign | ((exp + 112) << 23) | (mant << 13));
}

GGML_CUDA_HD uint16_t f32_to_fp16(float f) {
    const uint32_t x    = f32_bits(f);
    const uint32_t sign = (x >> 16) & 0x8000;
    const uint32_t ax   = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) {
        return (uint16_t) (sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0));
    }
    if (ax >= 0x477ff000u) {
        return (uint16_t) (sign | 0x7c00);
    }
    if (ax < 0x38800000u) {
        const float v = fmul(bits_f32(ax), 16777216.0f);  // * 2^24, exact
        return (uint16_t) (sign | (uint32_t) rint_i(v));
    }
    const uint32_t exp  = (ax >> 23) - 112;
    const uint32_t mant = ax & 0x7fffff;
    uint32_t       h    = (exp << 10) | (mant >> 13);
    const uint32_t rem  = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) {
        h++;
    }
    return (uint16_t) (sign | h);
}

GGML_CUDA_HD float bf16_to_f32(uint16_t h) {
    return bits_f32((uint32_t) h << 16);
}

GGML_CUDA_HD uint16_t f32_to_bf16(float f) {
    const uint32_t u = f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        return (uint16_t) ((u >> 16) | 64);
    }
    return (uint16_t) ((u + (0x7fff + ((u >> 16) & 1))) >> 16);
}

// ---- activations (ggml-cpu/ops-unary.cpp) -----------------------------------------------------
GGML_CUDA_HD float gelu_tanh(float x) {
    return 0.5f * x * (1.0f + tanhf(0.79788456080286535588f * x * (1.0f + 0.044715f * x * x)));
}
GGML_CUDA_HD float gelu_erf(float x) {
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752440f));
}
GGML_CUDA_HD float silu(float x) {
    return x / (1.0f + expf(-x));
}
GGML_CUDA_HD float sigmoid(float x) {
    return 1.0f / (1.0f + expf(-x));
}

// ---- ALiBi (ggml_cpu_alibi_slope) --------------------------------------------------------------
GGML_CUDA_HD float alibi_slope(float max_bias, int64_t n_head, int64_t h) {
    if (max_bias <= 0.0f) {
        return 1.0f;
    }
    const int64_t n_head_log2 = (int64_t) 1 << (int) floor(log2((double) n_head));
    const double  m0          = pow(2.0, -(double) max_bias / (double) n_head_log2);
    const double  m1          = pow(2.0, -(double) max_bias / 2.0 / (double) n_head_log2);
    return (float) (h < n_head_log2 ? pow(m0, (double) (h + 1)) : pow(m1, (double) (2 * (h - n_head_log2) + 1)));
}

// ---- ROPE (ggml-cpu/ops-rope.cpp): angles in double like the CPU, so long positions stay exact ----
struct rope_params {
    int    n_dims;
    double freq_base;
    double freq_scale;
    float  ext_factor;
    double attn_factor;
    double corr0, corr1;  // YaRN ramp ends (dimension-pair indices); unused when ext_factor == 0
    double mscale_yarn;   // 1 + 0.1 ln(1 / freq_scale) when ext_factor != 0, else 1
};

// Fills the YaRN fields from the op params exactly as the CPU does once per node.
inline rope_params rope_params_make(int n_dims, int n_ctx_orig, float freq_base, float freq_scale, float ext_factor,
                                    float attn_factor, float beta_fast, float beta_slow) {
    auto corr_dim = [&](double n_rot) {
        return n_dims * log(n_ctx_orig / (n_rot * 2.0 * M_PI)) / (2.0 * log((double) freq_base));
    };
    rope_params p;
    p.n_dims      = n_dims;
    p.freq_base   = freq_base;
    p.freq_scale  = freq_scale;
    p.ext_factor  = ext_factor;
    p.attn_factor = attn_factor;
    p.corr0 = p.corr1 = 0.0;
    if (ext_factor != 0.0f) {
        p.corr0 = fmax(0.0, floor(corr_dim(beta_fast)));
        p.corr1 = fmin((double) n_dims - 1, ceil(corr_dim(beta_slow)));
    }
    p.mscale_yarn = ext_factor != 0.0f ? 1.0 + 0.1 * log(1.0 / freq_scale) : 1.0;
    return p;
}

// cos and sin (times the magnitude correction) of pair k at position pos; ff = frequency factor (1 if none).
GGML_CUDA_HD void rope_cos_sin(const rope_params & p, double pos, int k, double ff, float * c, float * s) {
    double theta_extrap = pos * pow(p.freq_base, -2.0 * (double) k / p.n_dims);
    theta_extrap /= ff;
    const double theta_interp = p.freq_scale * theta_extrap;
    double       theta        = theta_interp;
    double       mscale       = p.attn_factor;
    if (p.ext_factor != 0.0f) {
        const double y    = (k - p.corr0) / fmax(0.001, p.corr1 - p.corr0);
        const double ramp = 1.0 - fmin(1.0, fmax(0.0, y));
        const double mix  = ramp * p.ext_factor;
        theta             = theta_interp * (1.0 - mix) + theta_extrap * mix;
        mscale *= p.mscale_yarn;
    }
    *c = (float) (cos(theta) * mscale);
    *s = (float) (sin(theta) * mscale);
}

}  // namespace ggml_cuda_math
