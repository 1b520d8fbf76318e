// mm-vecf.cu — the decode mat-vec for F32 / F16 / BF16 weights: each thread reads 8 consecutive weights
// per step with 128-bit loads (one uint4 of halves / bfloat16, two float4 of floats) and the matching
// activations as two float4, and accumulates in F32. Block shape and reduction as mm-vecq.cu: 4 warps
// per R rows (R = 1 for one column, 2 for up to 8), 1024 elements of a row per step.
// Needs 16-byte aligned rows of weights and activations, K % 8 == 0 and K >= 1024; mm-vec.cu takes the rest.
#include "mm-vec.cuh"

namespace {

constexpr int kThreads = 128;
constexpr int kPer     = 8;  // elements per thread per step

template <ggml_type T>
__device__ __forceinline__ void load8(const char * row, int64_t k0, float (&v)[kPer]);

template <>
__device__ __forceinline__ void load8<GGML_TYPE_F32>(const char * row, int64_t k0, float (&v)[kPer]) {
    const float4 a = *(const float4 *) (row + k0 * 4), b = *(const float4 *) (row + k0 * 4 + 16);
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
}

template <>
__device__ __forceinline__ void load8<GGML_TYPE_F16>(const char * row, int64_t k0, float (&v)[kPer]) {
    const uint4    u    = *(const uint4 *) (row + k0 * 2);
    const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int i = 0; i < 4; i++) {
        __half2 h;
        memcpy(&h, &w[i], 4);
        const float2 f = __half22float2(h);
        v[2 * i]       = f.x;
        v[2 * i + 1]   = f.y;
    }
}

template <>
__device__ __forceinline__ void load8<GGML_TYPE_BF16>(const char * row, int64_t k0, float (&v)[kPer]) {
    const uint4    u    = *(const uint4 *) (row + k0 * 2);
    const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int i = 0; i < 4; i++) {
        v[2 * i]     = __uint_as_float(w[i] << 16);
        v[2 * i + 1] = __uint_as_float(w[i] & 0xFFFF0000u);
    }
}

template <ggml_type T, int NC>
__global__ void __launch_bounds__(kThreads) mmvf_kernel(const mmv_args a) {
    constexpr int    R = NC == 1 ? 1 : 2;
    __shared__ float red[4][R][NC];
    const int64_t    row0 = (int64_t) blockIdx.x * R;
    for (int64_t p = blockIdx.y; p < a.n_problems; p += gridDim.y) {
        const mmv_problem pr = mmv_problem_at(a, p);
        if (pr.bad) {
            mmv_store_zeros<R>(row0, pr, a);
            continue;
        }
        float acc[R][NC];
#pragma unroll
        for (int r = 0; r < R; r++) {
#pragma unroll
            for (int c = 0; c < NC; c++) {
                acc[r][c] = 0.0f;
            }
        }
        for (int64_t k0 = (int64_t) threadIdx.x * kPer; k0 < a.K; k0 += kThreads * kPer) {
#pragma unroll
            for (int r = 0; r < R; r++) {
                if (R == 1 || row0 + r < a.M) {
                    float wv[kPer];
                    load8<T>(pr.w + (row0 + r) * a.nbw1, k0, wv);
#pragma unroll
                    for (int c = 0; c < NC; c++) {
                        if (NC == 1 || c < pr.ncols) {
                            const float * yc = (const float *) (pr.y + c * a.nby1) + k0;
                            const float4  y0 = *(const float4 *) yc, y1 = *(const float4 *) (yc + 4);
                            acc[r][c] += wv[0] * y0.x + wv[1] * y0.y + wv[2] * y0.z + wv[3] * y0.w + wv[4] * y1.x +
                                         wv[5] * y1.y + wv[6] * y1.z + wv[7] * y1.w;
                        }
                    }
                }
            }
        }
        mmv_block_store<R, NC>(acc, red, row0, pr, a);
    }
}

template <ggml_type T>
bool launch_vecf(ggml_cuda_op_ctx & ctx, const mmv_args & a) {
    const unsigned gy = a.n_problems < (int64_t) kMmvMaxGridY ? (unsigned) a.n_problems : kMmvMaxGridY;
    if (a.ids || a.ncols == 1) {
        mmvf_kernel<T, 1><<<dim3(ggml_cuda_blocks(a.M, 1), gy), kThreads, 0, ctx.stream>>>(a);
    } else {
        mmvf_kernel<T, GGML_CUDA_MMV_MAX_COLS><<<dim3(ggml_cuda_blocks(a.M, 2), gy), kThreads, 0, ctx.stream>>>(a);
    }
    return !CUDA_LAUNCH_FAILED();
}

}  // namespace

bool ggml_cuda_mmvf_supported(ggml_type type, const mmv_args & a) {
    if (type != GGML_TYPE_F32 && type != GGML_TYPE_F16 && type != GGML_TYPE_BF16) {
        return false;
    }
    // a row shorter than one step of the block (1024) would leave most threads idle (attention's K x Q at
    // head size 128): the general kernel, a warp per row, uses the lanes better there
    return a.K % kPer == 0 && a.K >= kThreads * kPer && a.ncols <= GGML_CUDA_MMV_MAX_COLS && mmv_aligned(a, 16, 16);
}

bool ggml_cuda_mmvf(ggml_cuda_op_ctx & ctx, ggml_type type, const mmv_args & a, const char * who) {
    if (a.M == 0 || a.n_problems == 0) {
        return true;
    }
    switch (type) {
        case GGML_TYPE_F32:
            return launch_vecf<GGML_TYPE_F32>(ctx, a);
        case GGML_TYPE_F16:
            return launch_vecf<GGML_TYPE_F16>(ctx, a);
        case GGML_TYPE_BF16:
            return launch_vecf<GGML_TYPE_BF16>(ctx, a);
        default:
            GGML_LOG_ERROR("[%s] weight type %s has no vector-load kernel\n", who, ggml_type_name(type));
            return false;
    }
}
