// mm-cublas.cu — MUL_MAT for batches: one cuBLAS GEMM (or batched GEMM over dims 2, 3) with F32
// accumulation. ggml's dst[m, n] = sum_k w[k, m] * b[k, n]: w is a column-major K x M matrix (leading
// dimension nb01 / size), b a K x N matrix, so dst (column-major M x N) = w^T * b, i.e. op(A) = T.
//   F16 weights:           read in place; activations converted to F16; tensor cores, F32 accumulate
//   quantized weights:     dequantized to F16 in scratch slot 0 first, then as F16
//   F32 weights:           F32 GEMM (no TF32: CUBLAS_COMPUTE_32F), activations read in place
//   BF16 weights:          dequantized to F32 (BF16 can exceed the F16 range), then as F32
// Broadcasting over dims 2, 3 follows the CPU: dst slice (i2, i3) uses weight slice (i2 / r2, i3 / r3).
// Several slices run as one cublasGemmBatchedEx whose pointer arrays a small kernel writes to scratch.
#include "mm-common.cuh"

namespace {

struct operand {
    const char * base;
    size_t       nb2, nb3;  // bytes between slices
    int64_t      ld;        // leading dimension in elements
};

__global__ void fill_pointers_kernel(operand A, operand B, char * C, size_t nbc2, size_t nbc3, int64_t b2, int64_t r2,
                                     int64_t r3, int64_t count, const void ** out) {
    const int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) {
        return;
    }
    const int64_t i2 = i % b2, i3 = i / b2;
    out[i]             = A.base + (i2 / r2) * A.nb2 + (i3 / r3) * A.nb3;
    out[count + i]     = B.base + i2 * B.nb2 + i3 * B.nb3;
    out[2 * count + i] = C + i2 * nbc2 + i3 * nbc3;
}

}  // namespace

bool ggml_cuda_mul_mat_cublas(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const ggml_tensor * w = dst->src[0];
    const ggml_tensor * b = dst->src[1];
    const int64_t       K = w->ne[0], M = w->ne[1], N = b->ne[1], B2 = b->ne[2], B3 = b->ne[3];
    const int64_t       r2 = B2 / w->ne[2], r3 = B3 / w->ne[3];
    if (M == 0 || N == 0 || B2 * B3 == 0) {
        return true;
    }
    if (K == 0) {
        return !CUDA_FAILED(cudaMemsetAsync(dst->data, 0, ggml_nbytes(dst), ctx.stream));
    }
    const bool         f32_path = w->type == GGML_TYPE_F32 || w->type == GGML_TYPE_BF16;
    const size_t       es       = f32_path ? sizeof(float) : sizeof(__half);
    const cudaDataType dt       = f32_path ? CUDA_R_32F : CUDA_R_16F;

    // A: the weights as F32 / F16, in place when already of that type
    operand A;
    if (w->type == GGML_TYPE_F32 || w->type == GGML_TYPE_F16) {
        A = {(const char *) w->data, w->nb[2], w->nb[3], (int64_t) (w->nb[1] / es)};
    } else {
        const size_t bytes = (size_t) ggml_nelements(w) * es;
        void *       tmp   = ctx.scratch(0, bytes);
        if (!tmp) {
            GGML_LOG_ERROR("[mul_mat] %s: no scratch for %zu bytes of dequantized weights\n", dst->name, bytes);
            return false;
        }
        if (!ggml_cuda_dequantize(ctx, w, tmp, !f32_path)) {
            return false;
        }
        A = {(const char *) tmp, (size_t) (K * M) * es, (size_t) (K * M * w->ne[2]) * es, K};
    }

    // B: the activations, converted to F16 (or copied contiguous when F32 rows are strided)
    operand B;
    if (f32_path && b->nb[0] == sizeof(float) && b->nb[1] % sizeof(float) == 0) {
        B = {(const char *) b->data, b->nb[2], b->nb[3], (int64_t) (b->nb[1] / sizeof(float))};
    } else {
        const size_t bytes = (size_t) ggml_nelements(b) * es;
        void *       tmp   = ctx.scratch(1, bytes);
        if (!tmp) {
            GGML_LOG_ERROR("[mul_mat] %s: no scratch for %zu bytes of activations\n", dst->name, bytes);
            return false;
        }
        if (!ggml_cuda_convert_f32(ctx, b, tmp, !f32_path)) {
            return false;
        }
        B = {(const char *) tmp, (size_t) (K * N) * es, (size_t) (K * N * B2) * es, K};
    }

    const int64_t ldc   = (int64_t) (dst->nb[1] / sizeof(float));
    const float   alpha = 1.0f, beta = 0.0f;
    if (CUBLAS_FAILED(cublasSetPointerMode(ctx.cublas, CUBLAS_POINTER_MODE_HOST))) {
        return false;
    }
    const int64_t count = B2 * B3;
    if (count == 1) {
        return !CUBLAS_FAILED(cublasGemmEx(ctx.cublas, CUBLAS_OP_T, CUBLAS_OP_N, (int) M, (int) N, (int) K, &alpha,
                                           A.base, dt, (int) A.ld, B.base, dt, (int) B.ld, &beta, dst->data, CUDA_R_32F,
                                           (int) ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }
    // one pointer triple per dst slice
    const size_t  pbytes = (size_t) (3 * count) * sizeof(void *);
    const void ** ptrs   = (const void **) ctx.scratch(2, pbytes);
    if (!ptrs) {
        GGML_LOG_ERROR("[mul_mat] %s: no scratch for %zu bytes of batch pointers\n", dst->name, pbytes);
        return false;
    }
    fill_pointers_kernel<<<ggml_cuda_blocks(count, 256), 256, 0, ctx.stream>>>(A, B, (char *) dst->data, dst->nb[2],
                                                                               dst->nb[3], B2, r2, r3, count, ptrs);
    if (CUDA_LAUNCH_FAILED()) {
        return false;
    }
    return !CUBLAS_FAILED(cublasGemmBatchedEx(ctx.cublas, CUBLAS_OP_T, CUBLAS_OP_N, (int) M, (int) N, (int) K, &alpha,
                                              ptrs, dt, (int) A.ld, ptrs + count, dt, (int) B.ld, &beta,
                                              (void * const *) (ptrs + 2 * count), CUDA_R_32F, (int) ldc, (int) count,
                                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}
