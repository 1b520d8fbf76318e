// Register-blocked dot-product micro-kernels for mul_mat with F32/F16/BF16 weights and F32
// activations, one set per instruction set (matmul-kernels.avx2.cpp, matmul-kernels.avx512.cpp,
// matmul-kernels.neon.cpp).
// A kernel computes out[c][r] = dot(weight row r, activation row c) for r < RM, c < RN.
// Every (RM, RN) variant accumulates each dot product in exactly the same order, so results do
// not depend on how the rows were blocked (nor on the thread count).
#pragma once

#include "ggml.h"

#include <array>  // matmul-kernels-table.h
#include <cstddef>
#include <cstdint>
#include <utility>

typedef void (*ggml_cpu_mm_kernel)(int64_t K, const char * a, size_t lda, const float * const * b, float * const * out);

// Block sizes the kernels provide: any rm <= RM with rn in [2, RN], and rm <= RM1 with rn == 1.
struct ggml_cpu_mm_isa {
    int RM, RN, RM1;
    // NULL when the weight type has no kernel here
    ggml_cpu_mm_kernel (*get)(ggml_type t, int rm, int rn);
    // Decode: out[r] = dot(weight row r, b) for r < M (F32/F16/BF16 weights), summed exactly as the
    // kernels above sum (so as the tiled path), streaming the rows with software prefetch.
    void (*gemv)(ggml_type t, int64_t K, const char * a, size_t lda, int64_t M, const float * b, float * out);
};

// Compiled with -mavx512f...; call only after checking the CPU (see ggml_cpu_mm_select_isa).
const ggml_cpu_mm_isa * ggml_cpu_mm_isa_avx512();
// Compiled with -mavx2 -mfma -mf16c.
const ggml_cpu_mm_isa * ggml_cpu_mm_isa_avx2();
// ARMv8.0 NEON (every arm64 CPU); also used at the dotprod and i8mm levels.
const ggml_cpu_mm_isa * ggml_cpu_mm_isa_neon();
