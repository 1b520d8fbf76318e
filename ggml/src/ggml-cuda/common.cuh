// common.cuh — the contract every file of the CUDA backend shares.
//
// The backend is split by concern (like ggml-vulkan/):
//   device / registry / buffers / backend (stream, events, graph compute, CUDA graphs)  cuda-*.cu
//   "basic" ops: elementwise, unary/GLU, norms, rope, soft_max, scale, clamp, reductions, argsort,
//                concat, cpy/set_rows (including writes INTO quantized blocks)          ops-*.cu
//   ops that READ quantized blocks: get_rows, mul_mat, mul_mat_id, flash_attn_ext      mm-*.cu, fa-*.cu
// The graph executor (cuda-backend.cu) dispatches each node to one family below; a family that
// returns false has failed the node (logged), and the graph compute reports GGML_STATUS_FAILED.
//
// Tensor data pointers in our device buffers are real device addresses: kernels use t->data and
// t->nb[] directly. Every op runs on ctx.stream; nothing here synchronises the host.
#pragma once

#include "ggml-backend-impl.h"
#include "ggml-impl.h"
#include "ggml-quants.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

// Static facts about one device, filled once at registry enumeration.
struct ggml_cuda_device_info {
    int    device               = 0;  // CUDA ordinal
    int    cc                   = 0;  // compute capability, major * 10 + minor (e.g. 90 for Hopper)
    int    sm_count             = 0;
    int    warp_size            = 32;
    size_t smem_per_block_optin = 0;  // cudaDevAttrMaxSharedMemoryPerBlockOptin
    size_t total_mem            = 0;
};

// What an op implementation sees while a graph runs on one backend (one stream on one device).
struct ggml_cuda_op_ctx {
    const ggml_cuda_device_info * info   = nullptr;
    cudaStream_t                  stream = nullptr;
    cublasHandle_t                cublas = nullptr;  // already bound to `stream`; created lazily by the backend

    // Scratch device memory for temporaries of the current node (dequantized weights, converted
    // activations, partial results). `slot` 0..GGML_CUDA_SCRATCH_SLOTS-1 selects an independent
    // region, so one node can hold several temporaries at once. The region stays valid until the next
    // scratch() call with the same slot; because every node runs on the same stream, reusing it for
    // the next node is stream-ordered and safe. Returns nullptr (logged) when the device is out of memory.
    void * (*scratch_fn)(void * user, int slot, size_t bytes) = nullptr;
    void * scratch_user                                       = nullptr;

    void * scratch(int slot, size_t bytes) const { return scratch_fn(scratch_user, slot, bytes); }
};

constexpr int GGML_CUDA_SCRATCH_SLOTS = 4;

// Logs a failed CUDA runtime / cuBLAS call with the expression and the function; evaluates to true on failure.
bool ggml_cuda_check(cudaError_t err, const char * what, const char * func);
bool ggml_cuda_check_cublas(cublasStatus_t st, const char * what, const char * func);
#define CUDA_FAILED(expr)   ggml_cuda_check((expr), #expr, __func__)
#define CUBLAS_FAILED(expr) ggml_cuda_check_cublas((expr), #expr, __func__)

// Number of blocks for n items at `per_block` items per block, as the unsigned grid dimension.
static inline unsigned ggml_cuda_blocks(int64_t n, int64_t per_block) {
    return (unsigned) ((n + per_block - 1) / per_block);
}

// ---- the CUDA op table (cuda-op-table.cu): one row per ggml_op ------------------------------------
// Whether the device runs node op (exact; false for views, which the executor skips without asking).
bool ggml_cuda_op_supported(const ggml_cuda_device_info & info, const ggml_tensor * op);
// Runs node on ctx's stream through its row; false (logged) when it cannot.
bool ggml_cuda_op_run(ggml_cuda_op_ctx & ctx, ggml_tensor * node);
