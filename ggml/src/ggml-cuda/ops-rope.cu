// ROPE (ggml-cpu/ops-rope.cpp): NORMAL (adjacent pairs) and NEOX (pairs n_dims/2 apart) modes,
// frequency base/scale, YaRN ramp and magnitude correction, per-pair frequency factors; only the first
// n_dims of each head rotate, the rest pass through. The angle math is ops-math.cuh's rope_cos_sin, in
// double like the CPU, so large positions rotate exactly as there. A block serves one token and
// ROPE_HEADS heads: each thread computes the cos/sin of its pair once and applies it to every head.
#include "ops-basic.cuh"

namespace {

using namespace ggml_cuda_math;

constexpr int ROPE_HEADS = 4;

__global__ void k_rope(cuda_tview d, cuda_tview a, const char * pos, int64_t pos_nb0, const char * ff, int64_t ff_nb0,
                       rope_params p, bool neox) {
    const int64_t i2   = blockIdx.x % d.ne[2];
    const int64_t i3   = blockIdx.x / d.ne[2];
    const int64_t h0   = (int64_t) blockIdx.y * ROPE_HEADS;
    const int64_t h1   = min(h0 + ROPE_HEADS, d.ne[1]);
    const int     half = p.n_dims / 2;
    const double  ppos = (double) *(const int32_t *) (pos + i2 * pos_nb0);
    for (int k = threadIdx.x; k < half; k += blockDim.x) {
        float c, s;
        rope_cos_sin(p, ppos, k, ff ? (double) *(const float *) (ff + k * ff_nb0) : 1.0, &c, &s);
        const int64_t j0 = neox ? k : 2 * k;
        const int64_t j1 = neox ? k + half : 2 * k + 1;
        for (int64_t i1 = h0; i1 < h1; i1++) {
            const char * x  = cuda_ptr(a, 0, i1, i2, i3);
            char *       dr = cuda_ptr(d, 0, i1, i2, i3);
            const float  x0 = cuda_load_f(a.type, x + j0 * a.nb[0]);
            const float  x1 = cuda_load_f(a.type, x + j1 * a.nb[0]);
            cuda_store_f(d.type, dr + j0 * d.nb[0], x0 * c - x1 * s);
            cuda_store_f(d.type, dr + j1 * d.nb[0], x0 * s + x1 * c);
        }
    }
    for (int64_t k = p.n_dims + threadIdx.x; k < d.ne[0]; k += blockDim.x) {
        for (int64_t i1 = h0; i1 < h1; i1++) {
            cuda_store_f(d.type, cuda_ptr(d, k, i1, i2, i3), cuda_load_f(a.type, cuda_ptr(a, k, i1, i2, i3)));
        }
    }
}

}  // namespace

bool ggml_cuda_op_rope(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const ggml_tensor * a    = dst->src[0];
    const ggml_tensor * pos  = dst->src[1];
    const ggml_tensor * ff   = dst->src[2];
    const int           mode = ggml_get_op_params_i32(dst, 2);
    const rope_params   p =
        rope_params_make(ggml_get_op_params_i32(dst, 1), ggml_get_op_params_i32(dst, 4), ggml_get_op_params_f32(dst, 5),
                         ggml_get_op_params_f32(dst, 6), ggml_get_op_params_f32(dst, 7), ggml_get_op_params_f32(dst, 8),
                         ggml_get_op_params_f32(dst, 9), ggml_get_op_params_f32(dst, 10));
    const int64_t head_blocks = (dst->ne[1] + ROPE_HEADS - 1) / ROPE_HEADS;
    const int64_t tokens      = dst->ne[2] * dst->ne[3];
    if (head_blocks > 65535 || tokens > INT32_MAX) {
        GGML_LOG_ERROR("%s: %s: shape too large for the rope grid\n", __func__, dst->name);
        return false;
    }
    int threads = 32;
    while (threads < 256 && threads < p.n_dims / 2) {
        threads *= 2;
    }
    const dim3 grid((unsigned) tokens, (unsigned) head_blocks, 1);
    k_rope<<<grid, threads, 0, ctx.stream>>>(cuda_tview_of(dst), cuda_tview_of(a), (const char *) pos->data,
                                             (int64_t) pos->nb[0], ff ? (const char *) ff->data : nullptr,
                                             ff ? (int64_t) ff->nb[0] : 0, p, (mode & GGML_ROPE_TYPE_NEOX) != 0);
    return true;
}
