// CPU_REPACK: a CPU buffer type whose Q4_0 / Q8_0 matrices are stored row-interleaved for the
// int8 dot-product kernels (AVX-512 VNNI, AVX2, scalar reference). set_tensor converts GGUF blocks
// into the layout, get_tensor converts back, so only mul_mat (which knows the layout) sees it.
//
// Layout (same byte count as the GGUF tensor): rows are taken in groups of 16. A group of nb blocks
// per row is [nb x 16 fp16 scales][nb x quant block], the quant block of block b holding the 16
// rows' quants 4 bytes at a time: byte (j * 64 + r * 4 + t) is byte 4j + t of row r's qs. One
// 64-byte load then gives 4 quant bytes of 16 rows, which a dpbusd against 4 broadcast activation
// bytes turns into 16 per-row partial sums (no horizontal reduction). Q4_0: qs as in GGUF (16 bytes,
// low nibbles = elements 0-15, high = 16-31), 4 loads per block. Q8_0: qs XOR 0x80 (unsigned q + 128
// for dpbusd), 8 loads per block. Every kernel computes, per row and block, the exact integer sum
// and accumulates acc = fma((float) isum, float(d_w) * d_y, acc) over blocks in order, so the
// scalar, AVX2 and AVX-512 results are bit-identical and independent of threads and tiling.
#pragma once

#include "ggml.h"

#include <cstddef>
#include <cstdint>

struct ggml_cpu_params;

constexpr int64_t GGML_REPACK_ROWS = 16;  // rows per interleaved group

// Activations prepared for the repacked kernels: per row nb blocks of 32 int8 (the Q8_0 quantizer's
// values), the block scale as float, and the block correction off * sum(q) where off is the
// weights' unsigned offset (8 for Q4_0, 128 for Q8_0).
struct ggml_repack_act {
    const int8_t *  qs;    // nb * 32
    const float *   d;     // nb
    const int32_t * corr;  // nb
};

// out[c][r] for r < 16 * ngroups, c < ncols: groups are group_bytes apart starting at w.
typedef void (*ggml_repack_kernel_t)(int64_t nb, int64_t ngroups, const uint8_t * w, size_t group_bytes, int ncols,
                                     const ggml_repack_act * y, float * const * out);

struct ggml_repack_kernels {
    ggml_repack_kernel_t q4_0;
    ggml_repack_kernel_t q8_0;
};

// Per instruction set (the .avx2/.avx512 files are compiled for their ISA; call after checking).
const ggml_repack_kernels * ggml_repack_kernels_scalar();
const ggml_repack_kernels * ggml_repack_kernels_avx2();
const ggml_repack_kernels * ggml_repack_kernels_avx512();
// The set mul_mat uses: follows ggml_cpu_mm_isa_level (GGML_CPU_ISA, ggml_cpu_set_mm_isa), AVX-512
// only with VNNI.
const ggml_repack_kernels * ggml_repack_kernels_active();

// Weight types and shapes the layout takes: Q4_0 / Q8_0, 2-D, rows a multiple of 16, contiguous.
bool ggml_repack_supports_tensor(const ggml_tensor * t);
// True if t lives in a CPU_REPACK buffer (and is therefore stored interleaved).
bool ggml_repack_is_packed(const ggml_tensor * t);

// GGUF rows -> layout and back, for whole tensors (nrows % 16 == 0).
void ggml_repack_pack(ggml_type type, int64_t K, int64_t nrows, const void * src, void * dst);
void ggml_repack_unpack(ggml_type type, int64_t K, int64_t nrows, const void * src, void * dst);

// mul_mat with a packed weight (src0): scratch size and the kernel (all threads).
size_t ggml_repack_mul_mat_work_size(const ggml_tensor * dst, int nth);
void   ggml_repack_mul_mat(const ggml_cpu_params * p, ggml_tensor * dst);
