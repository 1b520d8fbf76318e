// mm-common.cuh — what the files of the "ops reading weights" family share: the entry points of each
// op (mm-get-rows.cu, mm-vec.cu, mm-cublas.cu, mm-id.cu, fa-ext.cu) and small device helpers.
// The CUDA op table (cuda-op-table.cu) routes a node to one of them.
#pragma once

#include "common.cuh"
#include "dequant.cuh"

// Weight types the mm family reads (GGML_CUDA_MM_FOR_EACH_TYPE in dequant.cuh).
bool ggml_cuda_mm_type_supported(ggml_type t);

// GET_ROWS: src0 any type above or I32, ids I32; dst F32 (I32 for I32 rows).
bool ggml_cuda_get_rows_supported(const ggml_cuda_device_info & info, const ggml_tensor * op);  // mm-dispatch.cu
bool ggml_cuda_get_rows(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);

// MUL_MAT: the vector kernels below for small batches, cuBLAS above (mm-dispatch.cu).
bool ggml_cuda_mul_mat_supported(const ggml_cuda_device_info & info, const ggml_tensor * op);
bool ggml_cuda_mul_mat(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);

// MUL_MAT with src1->ne[1] <= GGML_CUDA_MMV_MAX_COLS: the weights are read directly (no temporaries
// except a contiguous copy of src1 when its rows are strided).
constexpr int GGML_CUDA_MMV_MAX_COLS = 8;
bool          ggml_cuda_mul_mat_vec(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);

// MUL_MAT for larger batches: weights dequantized to F16 (or F32 for F32/BF16), activations converted,
// one cuBLAS call with F32 accumulation.
bool ggml_cuda_mul_mat_cublas(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);

// MUL_MAT_ID (mixture of experts).
bool ggml_cuda_mul_mat_id_supported(const ggml_cuda_device_info & info, const ggml_tensor * op);  // mm-dispatch.cu
bool ggml_cuda_mul_mat_id(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);

// FLASH_ATTN_EXT.
bool ggml_cuda_flash_attn_supported(const ggml_cuda_device_info & info, const ggml_tensor * op);
bool ggml_cuda_flash_attn(ggml_cuda_op_ctx & ctx, ggml_tensor * dst);

// ---- conversions used by several ops (mm-convert.cu) ----------------------------------------------
// Copies the (possibly strided) F32 tensor src into dst as a contiguous [ne0, ne1, ne2, ne3] array of F32
// (out_f16 = false) or F16 (out_f16 = true). False (logged) on a launch failure.
bool ggml_cuda_convert_f32(ggml_cuda_op_ctx & ctx, const ggml_tensor * src, void * dst, bool out_f16);

// Dequantizes the weights w (rows contiguous, slices strided) into dst as contiguous
// [ne0, ne1, ne2, ne3] F16 (out_f16) or F32. False (logged) on a launch failure.
bool ggml_cuda_dequantize(ggml_cuda_op_ctx & ctx, const ggml_tensor * w, void * dst, bool out_f16);

// Logs the launch error of the last kernel, if any; true on failure.
#define CUDA_LAUNCH_FAILED() CUDA_FAILED(cudaGetLastError())

// Warp-wide sum of a float (all 32 lanes get the result).
static __device__ __forceinline__ float ggml_cuda_warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        v += __shfl_xor_sync(0xffffffffu, v, o);
    }
    return v;
}

static __device__ __forceinline__ float ggml_cuda_warp_max(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    }
    return v;
}
