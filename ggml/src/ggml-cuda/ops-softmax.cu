// SOFT_MAX (ggml-cpu/ops-softmax.cpp) over rows of (a * scale + slope * mask): mask F16/F32 broadcast
// over dims 2/3, ALiBi slope per head (dim 2) from max_bias (ops-math.cuh alibi_slope, the CPU's
// formula), a row that is entirely -inf comes out as zeros. One block per row: the scaled, masked row is
// written to dst first (F32, unit stride), then max, exp and sum, then the normalisation.
#include "ops-basic.cuh"

namespace {

__global__ void k_soft_max(cuda_tview d, cuda_tview a, cuda_tview m, bool has_mask, int64_t nrows, float scale,
                           float max_bias) {
    __shared__ float sh[32];
    const int64_t    n = d.ne[0];
    for (int64_t r = blockIdx.x; r < nrows; r += gridDim.x) {
        int64_t i1, i2, i3;
        cuda_row_index(d, r, i1, i2, i3);
        const char * x     = cuda_ptr(a, 0, i1, i2, i3);
        float *      dr    = (float *) cuda_ptr(d, 0, i1, i2, i3);
        const float  slope = ggml_cuda_math::alibi_slope(max_bias, d.ne[2], i2);
        const char * mr    = has_mask ? cuda_ptr(m, 0, i1, i2 % m.ne[2], i3 % m.ne[3]) : nullptr;
        float        vmax  = -INFINITY;
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            float v = cuda_load_f(a.type, x + i * a.nb[0]) * scale;
            if (mr) {
                v += slope * cuda_load_f(m.type, mr + i * m.nb[0]);
            }
            dr[i] = v;
            vmax  = fmaxf(vmax, v);
        }
        vmax = cuda_block_max(vmax, sh, -INFINITY);
        if (vmax == -INFINITY) {
            for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
                dr[i] = 0.0f;
            }
            continue;
        }
        float sum = 0.0f;
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            const float e = expf(dr[i] - vmax);
            dr[i]         = e;
            sum += e;
        }
        sum             = cuda_block_sum(sum, sh);
        const float inv = 1.0f / sum;
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            dr[i] *= inv;
        }
    }
}

}  // namespace

bool ggml_cuda_op_soft_max(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const ggml_tensor * mask  = dst->src[1];
    const int64_t       nrows = cuda_nrows(dst);
    const cuda_tview    mv    = mask ? cuda_tview_of(mask) : cuda_tview_of(dst);
    k_soft_max<<<cuda_row_blocks(nrows), CUDA_ROW_THREADS, 0, ctx.stream>>>(
        cuda_tview_of(dst), cuda_tview_of(dst->src[0]), mv, mask != nullptr, nrows, ggml_get_op_params_f32(dst, 0),
        ggml_get_op_params_f32(dst, 1));
    return true;
}
