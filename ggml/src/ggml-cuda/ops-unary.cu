// Elementwise UNARY activations, SQR, SQRT, SCALE (x * s + b), CLAMP, and the gated GLU family
// (fused [x | g] rows, swapped [g | x], or split x and g tensors), any strides, F32/F16/BF16
// (ggml-cpu/ops-unary.cpp). The activation formulas are ops-math.cuh's, shared with the host test.
#include "ops-basic.cuh"

namespace {

using namespace ggml_cuda_math;

struct unary_fn {
    int   op;      // ggml_op
    int   uop;     // ggml_unary_op when op == UNARY
    float p0, p1;  // scale/bias or lo/hi

    __device__ __forceinline__ float operator()(float x) const {
        switch (op) {
            case GGML_OP_SQR:
                return x * x;
            case GGML_OP_SQRT:
                return sqrtf(x);
            case GGML_OP_SCALE:
                return x * p0 + p1;
            case GGML_OP_CLAMP:
                return x < p0 ? p0 : (x > p1 ? p1 : x);
            default:
                break;
        }
        switch (uop) {
            case GGML_UNARY_OP_RELU:
                return x > 0.0f ? x : 0.0f;
            case GGML_UNARY_OP_TANH:
                return tanhf(x);
            case GGML_UNARY_OP_SIGMOID:
                return sigmoid(x);
            case GGML_UNARY_OP_SILU:
                return silu(x);
            case GGML_UNARY_OP_GELU:
                return gelu_tanh(x);
            case GGML_UNARY_OP_GELU_ERF:
                return gelu_erf(x);
            case GGML_UNARY_OP_NEG:
                return -x;
            case GGML_UNARY_OP_EXP:
                return expf(x);
            case GGML_UNARY_OP_SOFTPLUS:
                return x > 20.0f ? x : logf(1.0f + expf(x));
            default:
                return x;
        }
    }
};

__global__ void k_unary(cuda_tview d, cuda_tview a, int64_t nrows, unary_fn f) {
    const int64_t n = d.ne[0];
    for (int64_t r = (int64_t) blockIdx.x * blockDim.y + threadIdx.y; r < nrows;
         r += (int64_t) gridDim.x * blockDim.y) {
        int64_t i1, i2, i3;
        cuda_row_index(d, r, i1, i2, i3);
        char *       dr = cuda_ptr(d, 0, i1, i2, i3);
        const char * xr = cuda_ptr(a, 0, i1, i2, i3);
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            cuda_store_f(d.type, dr + i * d.nb[0], f(cuda_load_f(a.type, xr + i * a.nb[0])));
        }
    }
}

__device__ __forceinline__ float glu_act(int gop, float x) {
    switch (gop) {
        case GGML_GLU_OP_SWIGLU:
            return silu(x);
        case GGML_GLU_OP_GEGLU:
            return gelu_tanh(x);
        default:
            return gelu_erf(x);
    }
}

// g is the gate tensor (split form) or a again (fused form; then x_off / g_off select the halves).
__global__ void k_glu(cuda_tview d, cuda_tview a, cuda_tview g, int64_t x_off, int64_t g_off, int64_t nrows, int gop) {
    const int64_t n = d.ne[0];
    for (int64_t r = (int64_t) blockIdx.x * blockDim.y + threadIdx.y; r < nrows;
         r += (int64_t) gridDim.x * blockDim.y) {
        int64_t i1, i2, i3;
        cuda_row_index(d, r, i1, i2, i3);
        char *       dr = cuda_ptr(d, 0, i1, i2, i3);
        const char * xr = cuda_ptr(a, 0, i1, i2, i3) + x_off;
        const char * gr = cuda_ptr(g, 0, i1, i2, i3) + g_off;
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            const float xv = cuda_load_f(a.type, xr + i * a.nb[0]);
            const float gv = cuda_load_f(g.type, gr + i * g.nb[0]);
            cuda_store_f(d.type, dr + i * d.nb[0], glu_act(gop, xv) * gv);
        }
    }
}

}  // namespace

bool ggml_cuda_op_unary(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    unary_fn f{(int) dst->op, 0, 0.0f, 0.0f};
    if (dst->op == GGML_OP_UNARY) {
        f.uop = (int) ggml_get_unary_op(dst);
    } else if (dst->op == GGML_OP_SCALE || dst->op == GGML_OP_CLAMP) {
        f.p0 = ggml_get_op_params_f32(dst, 0);
        f.p1 = ggml_get_op_params_f32(dst, 1);
    }
    const int64_t         nrows = cuda_nrows(dst);
    const cuda_row_launch l     = cuda_rows_launch(dst->ne[0], nrows);
    k_unary<<<l.grid, l.block, 0, ctx.stream>>>(cuda_tview_of(dst), cuda_tview_of(dst->src[0]), nrows, f);
    return true;
}

bool ggml_cuda_op_glu(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const ggml_tensor * a       = dst->src[0];
    const ggml_tensor * b       = dst->src[1];
    const int           gop     = ggml_get_op_params_i32(dst, 0);
    const bool          swapped = ggml_get_op_params_i32(dst, 1) != 0;
    const int64_t       half    = dst->ne[0] * (int64_t) a->nb[0];  // byte offset of the second half
    int64_t             x_off = 0, g_off = 0;
    if (!b) {
        // fused: [x | g] in one row, or [g | x] when swapped
        x_off = swapped ? half : 0;
        g_off = swapped ? 0 : half;
    }
    const int64_t         nrows = cuda_nrows(dst);
    const cuda_row_launch l     = cuda_rows_launch(dst->ne[0], nrows);
    k_glu<<<l.grid, l.block, 0, ctx.stream>>>(cuda_tview_of(dst), cuda_tview_of(a), cuda_tview_of(b ? b : a), x_off,
                                              g_off, nrows, gop);
    return true;
}
