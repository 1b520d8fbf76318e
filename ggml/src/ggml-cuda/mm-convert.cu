// mm-convert.cu — the temporaries of the cuBLAS path: strided F32 activations to a contiguous F32 / F16
// array, and weights of any supported type dequantized to a contiguous F16 / F32 array. One block walks
// whole rows (rows split across the grid), so a row's address is computed once per thread.
#include "mm-common.cuh"

namespace {

constexpr int      kThreads = 256;
constexpr unsigned kMaxGrid = 65535u;

struct shape4 {
    int64_t ne0, ne1, ne2, ne3;
    size_t  nb0, nb1, nb2, nb3;
};

shape4 shape_of(const ggml_tensor * t) {
    return {t->ne[0], t->ne[1], t->ne[2], t->ne[3], t->nb[0], t->nb[1], t->nb[2], t->nb[3]};
}

__device__ __forceinline__ const char * row_ptr(const char * base, const shape4 & s, int64_t r) {
    const int64_t i1 = r % s.ne1, i2 = (r / s.ne1) % s.ne2, i3 = r / (s.ne1 * s.ne2);
    return base + i1 * s.nb1 + i2 * s.nb2 + i3 * s.nb3;
}

template <typename Out>
__device__ __forceinline__ Out to_out(float v);
template <>
__device__ __forceinline__ float to_out<float>(float v) {
    return v;
}
template <>
__device__ __forceinline__ __half to_out<__half>(float v) {
    return __float2half_rn(v);
}

template <typename Out>
__global__ void convert_f32_kernel(const char * src, shape4 s, Out * dst) {
    const int64_t nrows = s.ne1 * s.ne2 * s.ne3;
    for (int64_t r = blockIdx.x; r < nrows; r += gridDim.x) {
        const char * x = row_ptr(src, s, r);
        Out *        y = dst + r * s.ne0;
        for (int64_t k = threadIdx.x; k < s.ne0; k += blockDim.x) {
            y[k] = to_out<Out>(*(const float *) (x + k * s.nb0));
        }
    }
}

template <ggml_type T, typename Out>
__global__ void dequantize_kernel(const char * src, shape4 s, Out * dst) {
    const int64_t nrows = s.ne1 * s.ne2 * s.ne3;
    for (int64_t r = blockIdx.x; r < nrows; r += gridDim.x) {
        const char * x = row_ptr(src, s, r);
        Out *        y = dst + r * s.ne0;
        for (int64_t k = threadIdx.x; k < s.ne0; k += blockDim.x) {
            y[k] = to_out<Out>(ggml_cuda_dq::row_get<T>(x, k));
        }
    }
}

unsigned grid_for(int64_t nrows) {
    return nrows < (int64_t) kMaxGrid ? (unsigned) nrows : kMaxGrid;
}

}  // namespace

bool ggml_cuda_convert_f32(ggml_cuda_op_ctx & ctx, const ggml_tensor * src, void * dst, bool out_f16) {
    const shape4  s     = shape_of(src);
    const int64_t nrows = s.ne1 * s.ne2 * s.ne3;
    if (nrows == 0 || s.ne0 == 0) {
        return true;
    }
    if (out_f16) {
        convert_f32_kernel<__half>
            <<<grid_for(nrows), kThreads, 0, ctx.stream>>>((const char *) src->data, s, (__half *) dst);
    } else {
        convert_f32_kernel<float>
            <<<grid_for(nrows), kThreads, 0, ctx.stream>>>((const char *) src->data, s, (float *) dst);
    }
    return !CUDA_LAUNCH_FAILED();
}

bool ggml_cuda_dequantize(ggml_cuda_op_ctx & ctx, const ggml_tensor * w, void * dst, bool out_f16) {
    const shape4  s     = shape_of(w);
    const int64_t nrows = s.ne1 * s.ne2 * s.ne3;
    if (nrows == 0 || s.ne0 == 0) {
        return true;
    }
    const unsigned grid = grid_for(nrows);
    const char *   src  = (const char *) w->data;
    switch (w->type) {
#define GGML_CUDA_DQ_CASE(T)                                                                         \
    case T:                                                                                          \
        if (out_f16) {                                                                               \
            dequantize_kernel<T, __half><<<grid, kThreads, 0, ctx.stream>>>(src, s, (__half *) dst); \
        } else {                                                                                     \
            dequantize_kernel<T, float><<<grid, kThreads, 0, ctx.stream>>>(src, s, (float *) dst);   \
        }                                                                                            \
        break;
        GGML_CUDA_MM_FOR_EACH_TYPE(GGML_CUDA_DQ_CASE)
#undef GGML_CUDA_DQ_CASE
        default:
            GGML_LOG_ERROR("%s: type %s is not supported\n", __func__, ggml_type_name(w->type));
            return false;
    }
    return !CUDA_LAUNCH_FAILED();
}
