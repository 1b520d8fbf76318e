// BF16 GEMM for mul_mat at prefill sizes: one driver (ops-matmul-gemm.cpp), per-ISA micro-kernels:
// AVX-512 BF16 (vdpbf16ps, matmul-gemm.avx512.cpp) on x86-64, BFMMLA at the i8mm level on arm64
// (matmul-gemm.i8mm.cpp).
//
// The activations are rounded to BF16 once per matmul (as llama.cpp does for BF16 weights) and
// packed into panels of NP columns in groups of KG k: panel[k/KG][j][k%KG] is activation row n0 + j
// at k, zero past the last row and past K. KG is what one instruction sums per lane: 2 for
// vdpbf16ps (a k pair), 4 for BFMMLA (a 2 x 4 by 4 x 2 block). A micro-kernel computes an MR x NP
// block of C = A * panel, reading the weights in place, so every C element is one chain over the k
// groups in increasing order, independent of the blocking and of the thread count.
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
    int KG;  // k per panel group (a divisor of the driver's k block)
    // c[r][j] (+)= sum over kg groups g of a[r * lda + KG*g .. KG*g + KG-1] . panel group g of column
    // j, for r < mr, j < NP; then, when tail > 0, one more group whose first `tail` (< KG) weights are
    // read alone (the row ends there) with partners 0. c rows are NP floats apart; first: start from
    // zero instead of c.
    void (*bf16)(int mr, int64_t kg, int tail, const uint16_t * a, size_t lda, const uint16_t * bp, float * c,
                 bool first);
};

// Compiled with -mavx512f -mavx512bf16...; call only on a CPU with AVX-512 BF16.
const ggml_cpu_gemm_isa * ggml_cpu_gemm_isa_avx512bf16();
// Compiled with the i8mm level's -march (+bf16); call only at that level (it requires FEAT_BF16).
const ggml_cpu_gemm_isa * ggml_cpu_gemm_isa_i8mm();

// ---- the driver (ops-matmul-gemm.cpp), hooked into MUL_MAT ----------------------------------------
struct ggml_cpu_params;
struct ggml_tensor;

// True when the BF16 GEMM computes this MUL_MAT node: BF16 weights with contiguous rows, at least 16
// activation rows, and the kernels' level active (not capped by GGML_CPU_ISA, ggml_cpu_set_mm_isa or
// GGML_CPU_SCALAR): AVX-512 on a CPU with AVX-512 BF16, or arm64 i8mm (which implies FEAT_BF16).
bool   ggml_cpu_mm_gemm_applies(const ggml_tensor * dst);
size_t ggml_cpu_mm_gemm_work_size(const ggml_tensor * dst, int nth);
void   ggml_cpu_mm_gemm(const ggml_cpu_params * p, ggml_tensor * dst);
