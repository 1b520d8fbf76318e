// Row reductions (ggml-cpu/ops-reduce.cpp): SUM_ROWS and MEAN (double accumulation) and ARGMAX (the
// first index of the maximum), one block per row.
#include "ops-basic.cuh"

namespace {

__global__ void k_sum_rows(cuda_tview d, cuda_tview a, int64_t nrows, bool mean) {
    __shared__ double sh[32];
    const int64_t     n = a.ne[0];
    for (int64_t r = blockIdx.x; r < nrows; r += gridDim.x) {
        int64_t i1, i2, i3;
        cuda_row_index(a, r, i1, i2, i3);
        const char * x   = cuda_ptr(a, 0, i1, i2, i3);
        double       sum = 0.0;
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            sum += cuda_load_f(a.type, x + i * a.nb[0]);
        }
        sum = cuda_block_sum(sum, sh);
        if (threadIdx.x == 0) {
            cuda_store_f(d.type, cuda_ptr(d, 0, i1, i2, i3), (float) (mean ? sum / (double) n : sum));
        }
    }
}

// (value, index) pairs: the larger value wins, the smaller index on ties (the CPU's strict '>' scan).
__device__ __forceinline__ void argmax_merge(float & v, int & i, float ov, int oi) {
    if (ov > v || (ov == v && oi < i)) {
        v = ov;
        i = oi;
    }
}

__global__ void k_argmax(cuda_tview d, cuda_tview a, int64_t nrows) {
    __shared__ float sv[32];
    __shared__ int   si[32];
    const int64_t    n = a.ne[0];
    for (int64_t r = blockIdx.x; r < nrows; r += gridDim.x) {
        const char * x    = a.data + r * a.nb[1];  // 2-D input (the ARGMAX row of cuda-op-table.cu)
        float        best = -INFINITY;
        int          bi   = -1;
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            const float v = *(const float *) (x + i * a.nb[0]);
            if (!isnan(v) && (bi < 0 || v > best)) {  // NaN never compares greater on the CPU
                best = v;
                bi   = (int) i;
            }
        }
        if (bi < 0) {
            bi = INT_MAX;  // this thread saw no element: loses every merge
        }
        for (int o = 16; o > 0; o >>= 1) {
            argmax_merge(best, bi, __shfl_xor_sync(0xffffffffu, best, o), __shfl_xor_sync(0xffffffffu, bi, o));
        }
        const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
        __syncthreads();
        if (lane == 0) {
            sv[warp] = best;
            si[warp] = bi;
        }
        __syncthreads();
        if (warp == 0) {
            best = lane < nw ? sv[lane] : -INFINITY;
            bi   = lane < nw ? si[lane] : INT_MAX;
            for (int o = 16; o > 0; o >>= 1) {
                argmax_merge(best, bi, __shfl_xor_sync(0xffffffffu, best, o), __shfl_xor_sync(0xffffffffu, bi, o));
            }
            if (lane == 0) {
                // the CPU starts from element 0: a NaN there is never beaten, and an all-NaN row gives 0
                const bool nan0                     = isnan(*(const float *) x);
                *(int32_t *) (d.data + r * d.nb[0]) = (bi == INT_MAX || nan0) ? 0 : bi;
            }
        }
    }
}

}  // namespace

bool ggml_cuda_op_reduce(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const ggml_tensor * a     = dst->src[0];
    const int64_t       nrows = cuda_nrows(a);
    const unsigned      grid  = cuda_row_blocks(nrows);
    if (dst->op == GGML_OP_ARGMAX) {
        k_argmax<<<grid, CUDA_ROW_THREADS, 0, ctx.stream>>>(cuda_tview_of(dst), cuda_tview_of(a), nrows);
    } else {
        k_sum_rows<<<grid, CUDA_ROW_THREADS, 0, ctx.stream>>>(cuda_tview_of(dst), cuda_tview_of(a), nrows,
                                                              dst->op == GGML_OP_MEAN);
    }
    return true;
}
