// mm-vecq.cu — the decode mat-vec for quantized weights: activations quantized once per matmul to q8_1
// (quantize_row_q8_1_ref, bit for bit), then integer dot products of whole weight words with the int8
// activations (vecdotq.cuh, __dp4a).
//
// Kernel shape: a block of 4 warps computes R weight rows (R = 1 for one activation column, 2 for up to 8);
// vdq<T>::tpb consecutive threads share one weight block, so the block walks 128 / tpb weight blocks per
// step (64 of q4_0 = 2048 elements, 16 of q4_K = 4096) and a row of 4096 is read in one or two steps with
// every load a whole 16/32/128-bit word. Partials are reduced by warp shuffles, then across the 4 warps in
// shared memory. The grid is one block per R rows (x) and the problems (y), so a Llama-3-8B projection
// puts thousands of blocks in flight.
#include "mm-vec.cuh"
#include "vecdotq.cuh"

namespace {

constexpr int kThreads = 128;

// ---- activations -> q8_1 ---------------------------------------------------------------------------------
// One warp per 32-value block (K % 32 == 0, so a warp is wholly inside or outside the row); grid x covers a
// row, grid y the rows (i1, i2, i3).
__global__ void __launch_bounds__(kThreads)
    quantize_q8_1_kernel(const char * x, size_t nb1, size_t nb2, size_t nb3, int64_t K, int64_t ne1, int64_t ne2,
                         int64_t nrows, block_q8_1 * y) {
    using namespace ggml_cuda_vdq;
    const int64_t k = (int64_t) blockIdx.x * kThreads + threadIdx.x;
    if (k >= K) {
        return;
    }
    const int lane = threadIdx.x % 32;
    for (int64_t r = blockIdx.y; r < nrows; r += gridDim.y) {
        const int64_t i1 = r % ne1, i2 = (r / ne1) % ne2, i3 = r / (ne1 * ne2);
        const float   v   = *(const float *) (x + i1 * nb1 + i2 * nb2 + i3 * nb3 + k * sizeof(float));
        const float   d   = q8_1_block_scale(ggml_cuda_warp_max(fabsf(v)));
        const int8_t  q   = q8_1_code(v, q8_1_inv_scale(d));
        int           sum = q;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            sum += __shfl_xor_sync(0xffffffffu, sum, o);
        }
        block_q8_1 & b = y[r * (K / QK8_1) + k / QK8_1];
        b.qs[lane]     = q;
        if (lane == 0) {
            b.d = ggml_cuda_math::f32_to_fp16(d);
            b.s = q8_1_block_sum(sum, d);
        }
    }
}

// ---- the dp4a mat-vec -----------------------------------------------------------------------------------
template <ggml_type T, int NC>
__global__ void __launch_bounds__(kThreads) mmvq_kernel(const mmv_args a) {
    using V                     = ggml_cuda_vdq::vdq<T>;
    using B                     = typename V::block;
    constexpr int    R          = NC == 1 ? 1 : 2;
    constexpr int    kStep      = kThreads / V::tpb;  // weight blocks per step
    constexpr int    kYPerBlock = V::qk / QK8_1;      // q8_1 blocks per weight block
    __shared__ float red[4][R][NC];

    const int     iqs  = threadIdx.x % V::tpb;
    const int64_t row0 = (int64_t) blockIdx.x * R;
    const int64_t nb   = a.K / V::qk;
    for (int64_t p = blockIdx.y; p < a.n_problems; p += gridDim.y) {
        const mmv_problem pr = mmv_problem_at(a, p);
        if (pr.bad) {  // the same for the whole block: no barrier is skipped by part of it
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
        for (int64_t kb = threadIdx.x / V::tpb; kb < nb; kb += kStep) {
#pragma unroll
            for (int r = 0; r < R; r++) {
                if (R == 1 || row0 + r < a.M) {
                    const B & wb = ((const B *) (pr.w + (row0 + r) * a.nbw1))[kb];
#pragma unroll
                    for (int c = 0; c < NC; c++) {
                        if (NC == 1 || c < pr.ncols) {
                            const block_q8_1 * yb = (const block_q8_1 *) (pr.y + c * a.nby1) + kb * kYPerBlock;
                            acc[r][c] += V::dot(wb, yb, iqs);
                        }
                    }
                }
            }
        }
        mmv_block_store<R, NC>(acc, red, row0, pr, a);
    }
}

template <ggml_type T>
bool launch_vecq(ggml_cuda_op_ctx & ctx, const mmv_args & a) {
    const unsigned gy  = a.n_problems < (int64_t) kMmvMaxGridY ? (unsigned) a.n_problems : kMmvMaxGridY;
    const bool     one = a.ids || a.ncols == 1;
    if (one) {
        mmvq_kernel<T, 1><<<dim3(ggml_cuda_blocks(a.M, 1), gy), kThreads, 0, ctx.stream>>>(a);
    } else {
        mmvq_kernel<T, GGML_CUDA_MMV_MAX_COLS><<<dim3(ggml_cuda_blocks(a.M, 2), gy), kThreads, 0, ctx.stream>>>(a);
    }
    return !CUDA_LAUNCH_FAILED();
}

size_t weight_align(ggml_type type) {
    switch (type) {
#define GGML_CUDA_VECQ_ALIGN(T) \
    case T:                     \
        return ggml_cuda_vdq::vdq<T>::align;
        GGML_CUDA_VECQ_FOR_EACH_TYPE(GGML_CUDA_VECQ_ALIGN)
#undef GGML_CUDA_VECQ_ALIGN
        default:
            return 0;
    }
}

}  // namespace

bool ggml_cuda_mmvq_supported(ggml_type type, const mmv_args & a) {
    const size_t align = weight_align(type);
    // the quantizer reads the activations as floats: 4-byte aligned rows
    return align != 0 && a.K % QK8_1 == 0 && a.ncols <= GGML_CUDA_MMV_MAX_COLS && mmv_aligned(a, align, sizeof(float));
}

bool ggml_cuda_mmvq_quantize(ggml_cuda_op_ctx & ctx, mmv_args & a, const char * who) {
    const int64_t nrows    = a.ny1 * a.ny2 * a.ny3;
    const size_t  row_size = (size_t) (a.K / QK8_1) * sizeof(block_q8_1);
    const size_t  bytes    = row_size * (size_t) nrows;
    void *        q        = ctx.scratch(1, bytes);
    if (!q) {
        GGML_LOG_ERROR("[%s] no scratch for %zu bytes of q8_1 activations\n", who, bytes);
        return false;
    }
    if (nrows > 0) {
        const unsigned gy = nrows < (int64_t) kMmvMaxGridY ? (unsigned) nrows : kMmvMaxGridY;
        quantize_q8_1_kernel<<<dim3(ggml_cuda_blocks(a.K, kThreads), gy), kThreads, 0, ctx.stream>>>(
            a.y, a.nby1, a.nby2, a.nby3, a.K, a.ny1, a.ny2, nrows, (block_q8_1 *) q);
        if (CUDA_LAUNCH_FAILED()) {
            return false;
        }
    }
    a.y    = (const char *) q;
    a.nby1 = row_size;
    a.nby2 = row_size * (size_t) a.ny1;
    a.nby3 = a.nby2 * (size_t) a.ny2;
    return true;
}

bool ggml_cuda_mmvq(ggml_cuda_op_ctx & ctx, ggml_type type, mmv_args & a, const char * who) {
    if (a.M == 0 || a.n_problems == 0) {
        return true;
    }
    if (!ggml_cuda_mmvq_quantize(ctx, a, who)) {
        return false;
    }
    switch (type) {
#define GGML_CUDA_VECQ_CASE(T) \
    case T:                    \
        return launch_vecq<T>(ctx, a);
        GGML_CUDA_VECQ_FOR_EACH_TYPE(GGML_CUDA_VECQ_CASE)
#undef GGML_CUDA_VECQ_CASE
        default:
            GGML_LOG_ERROR("[%s] weight type %s has no dp4a kernel\n", who, ggml_type_name(type));
            return false;
    }
}
