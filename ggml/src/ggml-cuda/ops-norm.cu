// NORM ((x - mean) / sqrt(var + eps)), RMS_NORM (x / sqrt(mean(x^2) + eps)) and L2_NORM
// (x / max(sqrt(sum(x^2)), eps)) per row, one block per row, sums in double like ggml-cpu/ops-norm.cpp (a row is read
// two or three times; it stays in L1/L2).
#include "ops-basic.cuh"

namespace {

template <ggml_op OP>
__global__ void k_norm(cuda_tview d, cuda_tview a, int64_t nrows, float eps) {
    __shared__ double sh[32];
    const int64_t     n = a.ne[0];
    for (int64_t r = blockIdx.x; r < nrows; r += gridDim.x) {
        int64_t i1, i2, i3;
        cuda_row_index(d, r, i1, i2, i3);
        const char * x    = cuda_ptr(a, 0, i1, i2, i3);
        char *       dr   = cuda_ptr(d, 0, i1, i2, i3);
        float        mean = 0.0f;
        double       acc  = 0.0;
        if (OP != GGML_OP_NORM) {  // RMS_NORM, L2_NORM: no centring
            for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
                const float v = cuda_load_f(a.type, x + i * a.nb[0]);
                acc += (double) v * v;
            }
        } else {
            double sum = 0.0;
            for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
                sum += cuda_load_f(a.type, x + i * a.nb[0]);
            }
            mean = (float) (cuda_block_sum(sum, sh) / (double) n);
            for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
                const float v = cuda_load_f(a.type, x + i * a.nb[0]) - mean;
                acc += (double) v * v;
            }
        }
        const double ss = cuda_block_sum(acc, sh);
        const float  s  = OP == GGML_OP_L2_NORM ? (float) (1.0 / fmax(sqrt(ss), (double) eps))
                                                : (float) (1.0 / sqrt(ss / (double) n + eps));
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            cuda_store_f(d.type, dr + i * d.nb[0], (cuda_load_f(a.type, x + i * a.nb[0]) - mean) * s);
        }
    }
}

}  // namespace

bool ggml_cuda_op_norm(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const float      eps   = ggml_get_op_params_f32(dst, 0);
    const int64_t    nrows = cuda_nrows(dst);
    const unsigned   grid  = cuda_row_blocks(nrows);
    const cuda_tview d = cuda_tview_of(dst), a = cuda_tview_of(dst->src[0]);
    switch (dst->op) {  // the kernel's template argument, not a dispatch: the table sent all three here
        case GGML_OP_RMS_NORM:
            k_norm<GGML_OP_RMS_NORM><<<grid, CUDA_ROW_THREADS, 0, ctx.stream>>>(d, a, nrows, eps);
            break;
        case GGML_OP_L2_NORM:
            k_norm<GGML_OP_L2_NORM><<<grid, CUDA_ROW_THREADS, 0, ctx.stream>>>(d, a, nrows, eps);
            break;
        default:
            k_norm<GGML_OP_NORM><<<grid, CUDA_ROW_THREADS, 0, ctx.stream>>>(d, a, nrows, eps);
            break;
    }
    return true;
}
