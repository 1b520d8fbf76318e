// CPU_REPACK: a CPU buffer type whose Q4_0 / Q8_0 / Q4_K / Q6_K matrices are stored row-interleaved
// for the int8 dot-product kernels (AVX-512 VNNI, AVX2, arm64 NEON / SDOT / USDOT, scalar reference).
// set_tensor converts GGUF blocks into the layout, get_tensor converts back, so only mul_mat (which
// knows the layout) sees it. On arm64 each 16-byte vector of the layout is 4 rows x 4 bytes, the
// operand of SDOT by lane (cpu-repack-arm.h).
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
//
// Q4_K (same byte count, 16 x 144 bytes per super-block of 256): a group is nb = K/256 super-blocks
// of 2304 bytes, each [16 fp16 d][16 fp16 dmin][3 x 16 uint32: word t of the 12 packed scale bytes,
// row r at t * 16 + r][32 x 64 quant bytes, 4-byte interleaved as above: byte j * 64 + r * 4 + t is
// qs[4j + t] of row r]. Load j's low nibbles belong to sub-block 2(j/8), its high nibbles to
// 2(j/8) + 1. The 6-bit scales and mins are unpacked 16 rows at a time by vector shifts. Per row and
// super-block the kernels form the exact integers isum = sum_s sc_s * dot_s and msum = sum_s m_s *
// ysum_s, then acc = fma(isum, d * d_y, acc) and acc = fma(-msum, dmin * d_y, acc).
//
// Q6_K (16 x 210 bytes per super-block): [16 fp16 d][8 x 32 bytes: the int8 scale pair (sc_2p,
// sc_2p+1) of row r at p * 32 + r * 2][ql: 32 x 64 bytes][qh: 16 x 64 bytes], ql and qh 4-byte
// interleaved as above. ql load 16n + 8h + m and qh load 8n + m give the 6-bit values (0..63) of
// values 128n + 32h + 4m.. (low nibbles, qh bits 2h) and 128n + 32(h + 2) + 4m.. (high nibbles, qh
// bits 2h + 4). Per row and super-block: isum = sum_s sc_s * dot_s, csum = sum_s sc_s * bsum_s
// (the activation's 16-value sums), acc = fma(isum - 32 * csum, d * d_y, acc).
#pragma once

#include "ggml.h"

#include <cstddef>
#include <cstdint>

struct ggml_cpu_params;

constexpr int64_t GGML_REPACK_ROWS = 16;  // rows per interleaved group

// Activations prepared for the repacked kernels: per row nb blocks of 32 int8 (the Q8_0 quantizer's
// values), the block scale as float, and the block correction off * sum(q) where off is the
// weights' unsigned offset (8 for Q4_0, 128 for Q8_0). Q4_K: nb super-blocks of 256 int8 (the Q8_K
// quantizer's values), the super-block scale, and in corr 4 words per super-block holding the int16
// pairs (ysum_0, ysum_2), (ysum_1, ysum_3), (ysum_4, ysum_6), (ysum_5, ysum_7) (low half first) of the
// 32-value sub-block sums, the operands of vpdpwssd / pmaddwd against the unpacked mins. Q6_K: as
// Q4_K, corr holding the Q8_K bsums (8 words = 16 int16 per super-block).
struct ggml_repack_act {
    const int8_t *  qs;    // nb * 32 (Q4_K: nb * 256)
    const float *   d;     // nb
    const int32_t * corr;  // nb (Q4_K: nb * 4, Q6_K: nb * 8)
};

// out[c][r] for r < 16 * ngroups, c < ncols: groups are group_bytes apart starting at w.
typedef void (*ggml_repack_kernel_t)(int64_t nb, int64_t ngroups, const uint8_t * w, size_t group_bytes, int ncols,
                                     const ggml_repack_act * y, float * const * out);

struct ggml_repack_kernels {
    ggml_repack_kernel_t q4_0;
    ggml_repack_kernel_t q8_0;
    ggml_repack_kernel_t q4_K;  // nb = super-blocks per row
    ggml_repack_kernel_t q6_K;  // nb = super-blocks per row
};

// Per instruction set (the .avx2/.avx512 files are compiled for their ISA; call after checking).
const ggml_repack_kernels * ggml_repack_kernels_scalar();
const ggml_repack_kernels * ggml_repack_kernels_avx2();
const ggml_repack_kernels * ggml_repack_kernels_avx512();
// AVX2 + AVX-VNNI (vpdpbusd ymm): nullptr where the CPU lacks AVX-VNNI or GGML_CPU_REPACK_AVXVNNI=0 /
// ggml_cpu_repack_set_avxvnni(0) switched it off (then the AVX2 level uses the plain AVX2 kernels).
const ggml_repack_kernels * ggml_repack_kernels_avxvnni();
// arm64 (the .neon/.dotprod/.i8mm files, cpu-repack-arm.h): plain NEON, SDOT, and SDOT + USDOT for Q8_0.
const ggml_repack_kernels * ggml_repack_kernels_neon();
const ggml_repack_kernels * ggml_repack_kernels_dotprod();
const ggml_repack_kernels * ggml_repack_kernels_i8mm();
// The set mul_mat uses: follows ggml_cpu_mm_isa_level (GGML_CPU_ISA, ggml_cpu_set_mm_isa), AVX-512
// only with VNNI; at the AVX2 level the AVX-VNNI set where the CPU has it.
const ggml_repack_kernels * ggml_repack_kernels_active();

// Whether the CPU device offers CPU_REPACK as its extra buffer type (model loaders put weights there
// only then). Not at the arm64 NEON level (ARMv8.0, no SDOT): there the layout's dot, SDOT by lane,
// costs a lane broadcast and a pair reduction more per 16 multiply-adds than the plain vec_dot's
// widening multiplies, so the plain layout is the faster one (docs/benchmarks.md, ARM64 under
// emulation). GGML_CPU_REPACK_NEON=1 offers it there as well (benchmarks and tests of the NEON group
// kernels, which stay: a weight packed at another level still runs on them).
bool ggml_repack_offered();

// Weight types and shapes the layout takes: Q4_0 / Q8_0 / Q4_K / Q6_K, 2-D, rows a multiple of 16,
// contiguous.
bool ggml_repack_supports_tensor(const ggml_tensor * t);
// True if t lives in a CPU_REPACK buffer (and is therefore stored interleaved).
bool ggml_repack_is_packed(const ggml_tensor * t);

// GGUF rows -> layout and back, for whole tensors (nrows % 16 == 0).
void ggml_repack_pack(ggml_type type, int64_t K, int64_t nrows, const void * src, void * dst);
void ggml_repack_unpack(ggml_type type, int64_t K, int64_t nrows, const void * src, void * dst);

// mul_mat with a packed weight (src0): scratch size and the kernel (all threads).
size_t ggml_repack_mul_mat_work_size(const ggml_tensor * dst, int nth);
void   ggml_repack_mul_mat(const ggml_cpu_params * p, ggml_tensor * dst);
