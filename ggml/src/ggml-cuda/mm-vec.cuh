// mm-vec.cuh — what the three mat-vec kernels share (MUL_MAT with <= GGML_CUDA_MMV_MAX_COLS activation
// columns, and MUL_MAT_ID one (slot, token) at a time):
//   mm-vecq.cu  quantized weights of GGML_CUDA_VECQ_FOR_EACH_TYPE: activations quantized to q8_1, __dp4a
//   mm-vecf.cu  F32 / F16 / BF16 weights with 16-byte aligned rows: 128-bit loads, F32 accumulation
//   mm-vec.cu   every other case (any supported type, any alignment): the per-element dequantizing
//               kernel, and the entry points that choose among the three
//
// A "problem" is one (weight slice, activation columns, destination columns) triple:
//   MUL_MAT:    problem p = (i2, i3) of dst, weight slice (i2 / r2, i3 / r3) (broadcast as the CPU does)
//   MUL_MAT_ID: problem p = (slot e, token t), weight slice ids[e, t], activation row (e % ny1, t)
#pragma once

#include "mm-common.cuh"

struct mmv_args {
    const char * w;  // weights: K x M per slice, rows contiguous
    int64_t      K, M;
    size_t       nbw1, nbw2, nbw3;
    const char * y;  // activations (F32, or q8_1 blocks for mm-vecq.cu) with contiguous rows
    size_t       nby1, nby2, nby3;
    int64_t      ny1, ny2, ny3;  // activation dims 1..3
    char *       d;              // destination, F32
    size_t       nbd0, nbd1, nbd2, nbd3;
    int          ncols;                   // activation columns per problem (MUL_MAT)
    int64_t      n_problems, b2, r2, r3;  // MUL_MAT: problems = b2 * b3
    const char * ids;                     // MUL_MAT_ID: I32 [n_used, n_tok], else nullptr
    size_t       nbi0, nbi1;
    int64_t      n_used, n_expert;
};

constexpr unsigned kMmvMaxGridY = 65535u;

// The problem's weight slice, first activation column and destination (row 0 of each); bad = an expert
// id out of range (the destination is to be zeroed: the device cannot fail the graph).
struct mmv_problem {
    const char * w;
    const char * y;
    char *       d;
    int          ncols;
    bool         bad;
};

static __device__ __forceinline__ mmv_problem mmv_problem_at(const mmv_args & a, int64_t p) {
    mmv_problem r;
    if (a.ids) {
        const int64_t e = p % a.n_used, t = p / a.n_used;
        const int32_t x = *(const int32_t *) (a.ids + e * a.nbi0 + t * a.nbi1);
        r.d             = a.d + e * a.nbd1 + t * a.nbd2;
        r.bad           = x < 0 || x >= a.n_expert;
        r.w             = a.w + (r.bad ? 0 : x) * a.nbw2;
        r.y             = a.y + (e % a.ny1) * a.nby1 + t * a.nby2;
        r.ncols         = 1;
    } else {
        const int64_t i2 = p % a.b2, i3 = p / a.b2;
        r.w     = a.w + (i2 / a.r2) * a.nbw2 + (i3 / a.r3) * a.nbw3;
        r.y     = a.y + i2 * a.nby2 + i3 * a.nby3;
        r.d     = a.d + i2 * a.nbd2 + i3 * a.nbd3;
        r.ncols = a.ncols;
        r.bad   = false;
    }
    return r;
}

// Sums the per-thread partials acc[R][NC] of a block of 4 warps (rows row0 .. row0+R-1) and stores them.
// Every thread of the block must call it (two barriers).
template <int R, int NC>
static __device__ __forceinline__ void mmv_block_store(float (&acc)[R][NC], float (&red)[4][R][NC], int64_t row0,
                                                       const mmv_problem & pr, const mmv_args & a) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int r = 0; r < R; r++) {
#pragma unroll
        for (int c = 0; c < NC; c++) {
            const float s = ggml_cuda_warp_sum(acc[r][c]);
            if (lane == 0) {
                red[warp][r][c] = s;
            }
        }
    }
    __syncthreads();
    if (threadIdx.x < R * NC) {
        const int r = threadIdx.x / NC, c = threadIdx.x % NC;
        if (row0 + r < a.M && c < pr.ncols) {
            *(float *) (pr.d + (row0 + r) * a.nbd0 + c * a.nbd1) =
                red[0][r][c] + red[1][r][c] + red[2][r][c] + red[3][r][c];
        }
    }
    __syncthreads();  // red is reused by the next problem
}

// Zeroes the destination rows row0 .. row0+R-1 of a problem with a bad expert id.
template <int R>
static __device__ __forceinline__ void mmv_store_zeros(int64_t row0, const mmv_problem & pr, const mmv_args & a) {
    if (threadIdx.x < R && row0 + threadIdx.x < a.M) {
        *(float *) (pr.d + (row0 + threadIdx.x) * a.nbd0) = 0.0f;
    }
}

// True when every row and slice start of the weights and of the activations is `align`-byte aligned.
static inline bool mmv_aligned(const mmv_args & a, size_t w_align, size_t y_align) {
    return (uintptr_t) a.w % w_align == 0 && a.nbw1 % w_align == 0 && a.nbw2 % w_align == 0 && a.nbw3 % w_align == 0 &&
           (uintptr_t) a.y % y_align == 0 && a.nby1 % y_align == 0 && a.nby2 % y_align == 0 && a.nby3 % y_align == 0;
}

// ---- mm-vecq.cu ----------------------------------------------------------------------------------------
// Whether the dp4a kernel takes weights of type `type` with the layout of `a` (a.y: the F32 activations).
bool ggml_cuda_mmvq_supported(ggml_type type, const mmv_args & a);
// Quantizes the F32 activations of `a` (contiguous rows, dims K x ny1 x ny2 x ny3) into q8_1 blocks in
// scratch slot 1, points `a` at them and runs the dp4a kernel. False (logged) on a failure.
bool ggml_cuda_mmvq(ggml_cuda_op_ctx & ctx, ggml_type type, mmv_args & a, const char * who);
// The first half of ggml_cuda_mmvq: only the quantization into scratch slot 1 and the repointing of `a`.
bool ggml_cuda_mmvq_quantize(ggml_cuda_op_ctx & ctx, mmv_args & a, const char * who);

// ---- mm-id.cu ------------------------------------------------------------------------------------------
// MUL_MAT_ID for several tokens with weights the dp4a kernel takes (ggml_cuda_mmvq_supported): the
// (slot, token) pairs are grouped by expert on the device (lists in scratch slot 2), then each block computes
// 2 rows of one expert for all of its pairs, 8 at a time, so an expert's weights are read from memory
// once per matmul instead of once per routed token. `a` as for the per-token path (ids set).
bool ggml_cuda_mmvq_id_grouped(ggml_cuda_op_ctx & ctx, ggml_type type, mmv_args & a, const char * who);

// ---- mm-vecf.cu ----------------------------------------------------------------------------------------
// Whether the vector-load float kernel takes weights of type `type` with the layout of `a`.
bool ggml_cuda_mmvf_supported(ggml_type type, const mmv_args & a);
bool ggml_cuda_mmvf(ggml_cuda_op_ctx & ctx, ggml_type type, const mmv_args & a, const char * who);
