// ARGSORT (ggml-cpu/ops-sort.cpp): per row, the indices that sort it, ascending or descending, stable.
// One block per row, a bitonic sort of (value, index) pairs in shared memory, padded to a power of two;
// ordering ties by index makes every key distinct, so the result is exactly the stable sort's.
#include "ops-basic.cuh"

namespace {

// true if element p must come before q (padding, index >= n, goes last)
template <bool DESC>
__device__ __forceinline__ bool before(const float * v, int p, int q, int n) {
    if (p >= n) {
        return false;
    }
    if (q >= n) {
        return true;
    }
    if (v[p] != v[q]) {
        return DESC ? v[p] > v[q] : v[p] < v[q];
    }
    return p < q;
}

template <bool DESC>
__global__ void k_argsort(cuda_tview d, cuda_tview a, int64_t nrows, int npad) {
    extern __shared__ unsigned char smem[];
    float *                         vals = (float *) smem;
    int *                           idx  = (int *) (vals + npad);
    const int                       n    = (int) a.ne[0];
    for (int64_t r = blockIdx.x; r < nrows; r += gridDim.x) {
        int64_t i1, i2, i3;
        cuda_row_index(a, r, i1, i2, i3);
        const char * x = cuda_ptr(a, 0, i1, i2, i3);
        __syncthreads();  // the previous row's results have been written out
        for (int i = threadIdx.x; i < npad; i += blockDim.x) {
            vals[i] = i < n ? cuda_load_f(a.type, x + i * a.nb[0]) : 0.0f;
            idx[i]  = i;
        }
        __syncthreads();
        for (int k = 2; k <= npad; k <<= 1) {
            for (int j = k >> 1; j > 0; j >>= 1) {
                for (int i = threadIdx.x; i < npad; i += blockDim.x) {
                    const int ixj = i ^ j;
                    if (ixj > i) {
                        const int  p = idx[i], q = idx[ixj];
                        const bool up = (i & k) == 0;
                        if (up ? before<DESC>(vals, q, p, n) : before<DESC>(vals, p, q, n)) {
                            idx[i]   = q;
                            idx[ixj] = p;
                        }
                    }
                }
                __syncthreads();
            }
        }
        int32_t * out = (int32_t *) cuda_ptr(d, 0, i1, i2, i3);
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            out[i] = idx[i];
        }
    }
}

}  // namespace

int64_t ggml_cuda_argsort_max_cols(const ggml_cuda_device_info & info) {
    const size_t smem = info.smem_per_block_optin > 48 * 1024 ? info.smem_per_block_optin : 48 * 1024;
    int64_t      n    = 1;
    while ((size_t) (2 * n) * (sizeof(float) + sizeof(int)) <= smem && n < ((int64_t) 1 << 30)) {
        n *= 2;
    }
    return n;
}

bool ggml_cuda_op_argsort(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const ggml_tensor * a    = dst->src[0];
    const bool          desc = ggml_get_op_params_i32(dst, 0) == GGML_SORT_ORDER_DESC;
    int                 npad = 1;
    while (npad < a->ne[0]) {
        npad *= 2;
    }
    const size_t smem    = (size_t) npad * (sizeof(float) + sizeof(int));
    const int    threads = npad < 1024 ? (npad < 32 ? 32 : npad) : 1024;
    auto         kern    = desc ? k_argsort<true> : k_argsort<false>;
    if (smem > 48 * 1024 &&
        CUDA_FAILED(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem))) {
        return false;
    }
    const int64_t nrows = cuda_nrows(a);
    kern<<<cuda_row_blocks(nrows), threads, smem, ctx.stream>>>(cuda_tview_of(dst), cuda_tview_of(a), nrows, npad);
    return true;
}
