// BF16 GEMM for mul_mat at prefill sizes on CPUs with AVX-512 BF16 (vdpbf16ps): the driver is
// ops-matmul-gemm.cpp, the micro-kernels matmul-gemm.avx512.cpp.
//
// The activations are rounded to BF16 once per matmul (as llama.cpp does for BF16 weights) and
// packed into panels of NP columns, k-pair-major: panel[k/2][j][k%2] is activation row n0 + j at k,
// zero past the last row and past K. A micro-kernel computes an MR x NP block of C = A * panel: each
// pair of weights (a[r][k], a[r][k+1]) is broadcast and dot-multiplied into a whole panel row, so
// every C element is one chain over the k pairs in increasing order, independent of the blocking
// and of the thread count.
//
// Why BF16 only: F16 weights would lose 3 mantissa bits as BF16, and F16/F32 dot-product kernels
// (matmul-kernels.h) already run at the FMA peak; they also give the GEMV and the GEMM one order of
// summation, so a prompt decoded in one batch or token by token gives the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

struct ggml_cpu_gemm_isa {
    int NP;  // activation columns per panel
    int MR;  // most weight rows per micro-kernel call
    // c[r][j] (+)= sum over kp pairs of a[r * lda + 2p .. 2p+1] . panel pair p of column j, for
    // r < mr, j < NP; then, when `half`, one more k (odd K) whose weight is read alone (its row ends
    // there) with partner 0. c rows are NP floats apart; first: start from zero instead of c.
    void (*bf16)(int mr, int64_t kp, bool half, const uint16_t * a, size_t lda, const uint16_t * bp, float * c,
                 bool first);
};

// Compiled with -mavx512f -mavx512bf16...; call only on a CPU with AVX-512 BF16.
const ggml_cpu_gemm_isa * ggml_cpu_gemm_isa_avx512bf16();

// ---- the driver (ops-matmul-gemm.cpp), hooked into MUL_MAT ----------------------------------------
struct ggml_cpu_params;
struct ggml_tensor;

// True when the BF16 GEMM computes this MUL_MAT node: BF16 weights with contiguous rows, at least 16
// activation rows, the AVX-512 level active (not capped by GGML_CPU_ISA or GGML_CPU_SCALAR) and a CPU
// with AVX-512 BF16.
bool   ggml_cpu_mm_gemm_applies(const ggml_tensor * dst);
size_t ggml_cpu_mm_gemm_work_size(const ggml_tensor * dst, int nth);
void   ggml_cpu_mm_gemm(const ggml_cpu_params * p, ggml_tensor * dst);
