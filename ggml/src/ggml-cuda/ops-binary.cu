// ADD / SUB / MUL / DIV with b broadcast to a's shape (each dim of b divides a's), any strides,
// F32/F16/BF16 in any combination (ggml-cpu/ops-binary.cpp). Rows of the result are spread over
// blockDim.y and the grid; b's row is found once per row, and b's element index needs no modulo
// unless b's row is shorter than a's and longer than one element.
#include "ops-basic.cuh"

namespace {

template <int OP>
__device__ __forceinline__ float apply(float x, float y) {
    if (OP == GGML_OP_ADD) {
        return x + y;
    }
    if (OP == GGML_OP_SUB) {
        return x - y;
    }
    if (OP == GGML_OP_MUL) {
        return x * y;
    }
    return x / y;
}

template <int OP>
__global__ void k_binary(cuda_tview d, cuda_tview a, cuda_tview b, int64_t nrows) {
    const int64_t n   = d.ne[0];
    const int64_t nb0 = b.ne[0];
    for (int64_t r = (int64_t) blockIdx.x * blockDim.y + threadIdx.y; r < nrows;
         r += (int64_t) gridDim.x * blockDim.y) {
        int64_t i1, i2, i3;
        cuda_row_index(d, r, i1, i2, i3);
        char *       dr = cuda_ptr(d, 0, i1, i2, i3);
        const char * xr = cuda_ptr(a, 0, i1, i2, i3);
        const char * yr = cuda_ptr(b, 0, i1 % b.ne[1], i2 % b.ne[2], i3 % b.ne[3]);
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            const int64_t j  = nb0 == n ? i : (nb0 == 1 ? 0 : i % nb0);
            const float   xv = cuda_load_f(a.type, xr + i * a.nb[0]);
            const float   yv = cuda_load_f(b.type, yr + j * b.nb[0]);
            cuda_store_f(d.type, dr + i * d.nb[0], apply<OP>(xv, yv));
        }
    }
}

template <int OP>
void launch(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const int64_t         nrows = cuda_nrows(dst);
    const cuda_row_launch l     = cuda_rows_launch(dst->ne[0], nrows);
    k_binary<OP><<<l.grid, l.block, 0, ctx.stream>>>(cuda_tview_of(dst), cuda_tview_of(dst->src[0]),
                                                     cuda_tview_of(dst->src[1]), nrows);
}

}  // namespace

template <ggml_op OP>
bool ggml_cuda_op_binary(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    launch<OP>(ctx, dst);
    return true;
}
template bool ggml_cuda_op_binary<GGML_OP_ADD>(ggml_cuda_op_ctx &, ggml_tensor *);
template bool ggml_cuda_op_binary<GGML_OP_SUB>(ggml_cuda_op_ctx &, ggml_tensor *);
template bool ggml_cuda_op_binary<GGML_OP_MUL>(ggml_cuda_op_ctx &, ggml_tensor *);
template bool ggml_cuda_op_binary<GGML_OP_DIV>(ggml_cuda_op_ctx &, ggml_tensor *);
