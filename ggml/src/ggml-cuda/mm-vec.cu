// mm-vec.cu — matrix x few-vectors straight from the stored weights (decode and small batches), and
// MUL_MAT_ID (one (slot, token) at a time, or grouped by expert for batches: mm-id.cu). The entry points
// pick one of three kernels (mm-vec.cuh): the dp4a kernel for the quantized types it covers (mm-vecq.cu),
// the vector-load float kernel for aligned F32/F16/BF16 (mm-vecf.cu), else the general kernel here: one
// warp per weight row, each lane dequantizing 8 consecutive elements per step in registers (dequant.cuh)
// and multiplying them with up to GGML_CUDA_MMV_MAX_COLS F32 activation columns; a warp sum gives the
// result.
#include "mm-vec.cuh"

namespace {

constexpr int kWarps   = 4;  // weight rows per block
constexpr int kPerLane = 8;  // consecutive elements per lane per step

template <ggml_type T>
__global__ void __launch_bounds__(kWarps * 32) mmv_kernel(const mmv_args a) {
    using namespace ggml_cuda_dq;
    constexpr int qk   = dq<T>::qk;
    const int     lane = threadIdx.x % 32;
    const int64_t row  = (int64_t) blockIdx.x * kWarps + threadIdx.x / 32;
    if (row >= a.M) {
        return;  // the whole warp leaves together; the kernel has no block-wide barrier
    }
    for (int64_t p = blockIdx.y; p < a.n_problems; p += gridDim.y) {
        const mmv_problem pr = mmv_problem_at(a, p);
        if (pr.bad) {
            if (lane == 0) {
                *(float *) (pr.d + row * a.nbd0) = 0.0f;  // bad expert id: zeros (the device cannot fail the graph)
            }
            continue;
        }
        const char * w     = pr.w + row * a.nbw1;
        const char * y     = pr.y;
        char *       d     = pr.d + row * a.nbd0;
        const int    ncols = pr.ncols;
        float        acc[GGML_CUDA_MMV_MAX_COLS];
#pragma unroll
        for (int c = 0; c < GGML_CUDA_MMV_MAX_COLS; ++c) {
            acc[c] = 0.0f;
        }
        // quantized rows are a whole number of blocks of 32 or 256, so an 8-aligned chunk is either
        // fully inside the row or fully outside; plain float rows may end inside a chunk
        for (int64_t k0 = (int64_t) lane * kPerLane; k0 < a.K; k0 += 32 * kPerLane) {
            float wv[kPerLane];
#pragma unroll
            for (int t = 0; t < kPerLane; ++t) {
                wv[t] = (qk > 1 || k0 + t < a.K) ? row_get<T>(w, k0 + t) : 0.0f;
            }
#pragma unroll
            for (int c = 0; c < GGML_CUDA_MMV_MAX_COLS; ++c) {
                if (c < ncols) {
                    const float * yc = (const float *) (y + c * a.nby1) + k0;
#pragma unroll
                    for (int t = 0; t < kPerLane; ++t) {
                        if (qk > 1 || k0 + t < a.K) {
                            acc[c] += wv[t] * yc[t];
                        }
                    }
                }
            }
        }
#pragma unroll
        for (int c = 0; c < GGML_CUDA_MMV_MAX_COLS; ++c) {
            if (c < ncols) {
                const float s = ggml_cuda_warp_sum(acc[c]);
                if (lane == 0) {
                    *(float *) (d + c * a.nbd1) = s;
                }
            }
        }
    }
}

bool launch(ggml_cuda_op_ctx & ctx, ggml_type type, const mmv_args & a, const char * who) {
    if (a.M == 0 || a.n_problems == 0) {
        return true;
    }
    const dim3 grid(ggml_cuda_blocks(a.M, kWarps),
                    a.n_problems < (int64_t) kMmvMaxGridY ? (unsigned) a.n_problems : kMmvMaxGridY);
    switch (type) {
#define GGML_CUDA_MMV_CASE(T)                                   \
    case T:                                                     \
        mmv_kernel<T><<<grid, kWarps * 32, 0, ctx.stream>>>(a); \
        break;
        GGML_CUDA_MM_FOR_EACH_TYPE(GGML_CUDA_MMV_CASE)
#undef GGML_CUDA_MMV_CASE
        default:
            GGML_LOG_ERROR("[%s] weight type %s is not supported\n", who, ggml_type_name(type));
            return false;
    }
    return !CUDA_LAUNCH_FAILED();
}

// Points the activation fields of `a` at src1, or at a contiguous copy in scratch slot `slot` when its
// rows are strided. False (logged) when the scratch cannot be had.
bool bind_activations(ggml_cuda_op_ctx & ctx, const ggml_tensor * b, int slot, mmv_args & a) {
    if (b->nb[0] == sizeof(float)) {
        a.y    = (const char *) b->data;
        a.nby1 = b->nb[1];
        a.nby2 = b->nb[2];
        a.nby3 = b->nb[3];
        return true;
    }
    const size_t bytes = (size_t) ggml_nelements(b) * sizeof(float);
    void *       tmp   = ctx.scratch(slot, bytes);
    if (!tmp) {
        GGML_LOG_ERROR("%s: no scratch for %zu bytes of activations\n", __func__, bytes);
        return false;
    }
    if (!ggml_cuda_convert_f32(ctx, b, tmp, false)) {
        return false;
    }
    a.y    = (const char *) tmp;
    a.nby1 = (size_t) b->ne[0] * sizeof(float);
    a.nby2 = a.nby1 * (size_t) b->ne[1];
    a.nby3 = a.nby2 * (size_t) b->ne[2];
    return true;
}

// Runs the fastest kernel that takes the weights and the layout of `a` (activations bound, F32).
bool run(ggml_cuda_op_ctx & ctx, ggml_type type, mmv_args & a, const char * who) {
    if (ggml_cuda_mmvq_supported(type, a)) {
        return ggml_cuda_mmvq(ctx, type, a, who);
    }
    if (ggml_cuda_mmvf_supported(type, a)) {
        return ggml_cuda_mmvf(ctx, type, a, who);
    }
    return launch(ctx, type, a, who);
}

}  // namespace

bool ggml_cuda_mul_mat_vec(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const ggml_tensor * w = dst->src[0];
    const ggml_tensor * b = dst->src[1];
    mmv_args            a{};
    a.w    = (const char *) w->data;
    a.K    = w->ne[0];
    a.M    = w->ne[1];
    a.nbw1 = w->nb[1];
    a.nbw2 = w->nb[2];
    a.nbw3 = w->nb[3];
    if (!bind_activations(ctx, b, 0, a)) {
        return false;
    }
    a.ny1        = b->ne[1];
    a.ny2        = b->ne[2];
    a.ny3        = b->ne[3];
    a.d          = (char *) dst->data;
    a.nbd0       = dst->nb[0];
    a.nbd1       = dst->nb[1];
    a.nbd2       = dst->nb[2];
    a.nbd3       = dst->nb[3];
    a.ncols      = (int) b->ne[1];
    a.b2         = b->ne[2];
    a.r2         = b->ne[2] / w->ne[2];
    a.r3         = b->ne[3] / w->ne[3];
    a.n_problems = b->ne[2] * b->ne[3];
    a.ids        = nullptr;
    return run(ctx, w->type, a, "mul_mat");
}

bool ggml_cuda_mul_mat_id(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const ggml_tensor * as  = dst->src[0];
    const ggml_tensor * b   = dst->src[1];
    const ggml_tensor * ids = dst->src[2];
    mmv_args            a{};
    a.w    = (const char *) as->data;
    a.K    = as->ne[0];
    a.M    = as->ne[1];
    a.nbw1 = as->nb[1];
    a.nbw2 = as->nb[2];
    a.nbw3 = as->nb[3];
    if (!bind_activations(ctx, b, 0, a)) {
        return false;
    }
    a.ny1        = b->ne[1];
    a.ny2        = b->ne[2];
    a.ny3        = b->ne[3];
    a.d          = (char *) dst->data;
    a.nbd0       = dst->nb[0];
    a.nbd1       = dst->nb[1];
    a.nbd2       = dst->nb[2];
    a.nbd3       = dst->nb[3];
    a.ncols      = 1;
    a.b2         = 1;
    a.r2         = 1;
    a.r3         = 1;
    a.ids        = (const char *) ids->data;
    a.nbi0       = ids->nb[0];
    a.nbi1       = ids->nb[1];
    a.n_used     = ids->ne[0];
    a.n_expert   = as->ne[2];
    a.n_problems = ids->ne[0] * ids->ne[1];
    // a batch reads each expert once for all its tokens; one token gains nothing from grouping
    if (ids->ne[1] > 1 && ggml_cuda_mmvq_supported(as->type, a)) {
        return ggml_cuda_mmvq_id_grouped(ctx, as->type, a, "mul_mat_id");
    }
    return run(ctx, as->type, a, "mul_mat_id");
}
