// MUL_MAT with short rows at prefill sizes: the KQ product of the plain (non-flash) attention, driver
// ops-matmul-attn.cpp, micro-kernels matmul-attn.avx512.cpp / matmul-attn.avx2.cpp /
// matmul-attn.neon.cpp.
//
// KQ = K x Q: short rows (K = head size D <= 256), many weight rows (the cached keys), and each K/V
// head shared by a group of query heads x all tokens. The dot-product kernels pay a horizontal sum
// per output there (4 FMAs per dot at D = 64). Instead a block of keys is widened once to F32 and
// stored transposed (kt[d][j]); a micro-kernel then broadcasts q[c][d] and runs one FMA chain over d
// for 16 keys per register, for every query row of the group. Every output is one chain over d in
// increasing order, so the result does not depend on the blocking or on the thread count.
//
// KQV (V^T x P: long rows, few weight rows) stays on the dot-product kernels: at K = n_kv they run
// near the FMA peak already (measured: a transposed-V panel kernel was 25% slower, docs/benchmarks.md).
#pragma once

#include <cstddef>
#include <cstdint>

struct ggml_cpu_attn_mm_isa {
    int RK;  // most rows per kq call
    // s[c][j] = sum_{d < D} q[c][d] * kt[d * ldk + j] for c < nr, j < nk; kt must be readable (and
    // zero) up to ldk columns, ldk a multiple of 32.
    void (*kq)(int nr, int nk, int D, const float * const * q, const float * kt, int ldk, float * const * s);
    // dst[c * ldd + r] = float(src[r * lds + c]) for r < R, c < C (F16 source); nothing else written.
    void (*transpose_f16)(int R, int C, const uint16_t * src, size_t lds, float * dst, int ldd);
};

const ggml_cpu_attn_mm_isa * ggml_cpu_attn_mm_avx512();  // compiled with -mavx512f ...
const ggml_cpu_attn_mm_isa * ggml_cpu_attn_mm_avx2();    // compiled with -mavx2 -mfma
const ggml_cpu_attn_mm_isa * ggml_cpu_attn_mm_neon();    // ARMv8.0, every arm64 CPU

// The kernels of the active instruction set (AVX-512, AVX2 or NEON), or NULL: no SIMD level,
// GGML_CPU_SCALAR, GGML_CPU_ISA=scalar, or GGML_CPU_ATTN_MM=0 (also used by the tiled flash attention for S = Q K^T).
const ggml_cpu_attn_mm_isa * ggml_cpu_attn_mm_active();

struct ggml_cpu_params;
struct ggml_tensor;

// True when ops-matmul-attn.cpp computes this MUL_MAT: F16/F32 weights with contiguous elements, F32
// activations with contiguous rows, K <= 256, at least 16 activation rows per weight slice, src0 not
// in a weights buffer (GGML_BACKEND_BUFFER_USAGE_WEIGHTS: model weights keep one order of summation
// for GEMV and GEMM), SIMD level AVX2 / NEON or higher (not under GGML_CPU_SCALAR /
// GGML_CPU_ISA=scalar; GGML_CPU_ATTN_MM=0 turns the path off for A/B measurements).
bool   ggml_cpu_mm_attn_applies(const ggml_tensor * dst);
size_t ggml_cpu_mm_attn_work_size(const ggml_tensor * dst, int nth);
void   ggml_cpu_mm_attn(const ggml_cpu_params * p, ggml_tensor * dst);
