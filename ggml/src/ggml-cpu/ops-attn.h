// Internals of FLASH_ATTN_EXT on the CPU: the scalar reference (the oracle), the tiled kernel, and
// the small SIMD kernels the tiled one uses, one set per instruction set (ops-attn.avx2.cpp,
// ops-attn.avx512.cpp, ops-attn.neon.cpp; entered only after the CPU was checked, see
// ggml_cpu_mm_isa_level).
#pragma once

#include "ggml-cpu-impl.h"

struct ggml_cpu_fa_kernels {
    // acc[q][d] += sum_{j < nk} p[q][j] * v[j][d] for q < nq, d < dv; rows of p, v and acc are ldp,
    // ldv and ldacc floats apart. Each acc element sums j in increasing order (blocking-independent).
    // Terms with p[q][j] == 0 (masked keys) are skipped, so a NaN/Inf in such a V row cannot leak in.
    void (*pv)(int nq, int nk, int dv, const float * p, int ldp, const float * v, int ldv, float * acc, int ldacc);
    // s[i] = s[i] * scale, plus slope * mask[i] when mask is not NULL (-inf where mask[i] is -inf);
    // returns the largest new s[i] (-inf if none). Every s[i] is the scalar expression's value.
    float (*scale_mask_max)(float * s, int n, float scale, const float * mask, float slope);
    // s[i] = exp(s[i] - m) for i < n (-inf gives 0); returns the sum of the new s[i].
    float (*exp_sum)(float * s, int n, float m);
    // y[i] = float(x[i]) for F16 x.
    void (*f16_to_f32)(const uint16_t * x, float * y, int64_t n);
    // y = the n values (a multiple of 32) of a Q8_0 row: d * q per block, the bits of the type's
    // dequantizer (the widening of a Q8_0 K/V tile, the common quantized cache).
    void (*q8_0_to_f32)(const void * x, float * y, int64_t n);
};

const ggml_cpu_fa_kernels * ggml_cpu_fa_kernels_avx2();    // compiled with -mavx2 -mfma -mf16c
const ggml_cpu_fa_kernels * ggml_cpu_fa_kernels_avx512();  // compiled with -mavx512f ...
const ggml_cpu_fa_kernels * ggml_cpu_fa_kernels_neon();    // ARMv8.0, every arm64 CPU

// Scalar reference: one query row at a time, one key at a time (GGML_CPU_SCALAR=1).
void   ggml_cpu_flash_attn_ref(const ggml_cpu_params * p, ggml_tensor * dst);
size_t ggml_cpu_flash_attn_ref_work_size(const ggml_tensor * dst, int nth);

// Tiled kernel: false from _supported when the layout needs the reference (strided K rows, a
// quantized K without a dot-product kernel).
bool   ggml_cpu_flash_attn_tiled_supported(const ggml_tensor * dst);
void   ggml_cpu_flash_attn_tiled(const ggml_cpu_params * p, ggml_tensor * dst);
size_t ggml_cpu_flash_attn_tiled_work_size(const ggml_tensor * dst, int nth);
