// mm-id.cu — MUL_MAT_ID for a batch of tokens, grouped by expert, without a host sync.
//
// 1. route: one block per expert scans ids[n_used, n_tok] in order and writes the entries j = slot +
//    n_used * token routed to it into its list (capacity n_used * n_tok, so any ids fit) and the count;
//    the order inside a list is the scan order, so results do not depend on timing. Block 0 also zeroes
//    the destination of every entry whose id is out of range (the device cannot fail the graph).
// 2. grouped dp4a mat-vec: grid (row pairs, experts); a block takes its expert's list 8 entries at a time
//    and computes 2 weight rows against those 8 activation columns (q8_1, quantized once), so the rows are
//    read from memory once and then from L1/L2 for the following chunks. Blocks of experts nobody chose
//    leave at once.
#include "mm-vec.cuh"
#include "vecdotq.cuh"

namespace {

constexpr int kThreads      = 128;
constexpr int kRouteThreads = 256;
constexpr int kRows         = 2;  // weight rows per block
constexpr int kCols         = 8;  // activation columns per chunk

__global__ void __launch_bounds__(kRouteThreads)
    route_kernel(const mmv_args a, int64_t n_tok, int32_t * lists, int32_t * counts) {
    __shared__ int warp_n[kRouteThreads / 32];
    __shared__ int base;
    const int      e    = blockIdx.x;
    const int      lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int64_t  n = a.n_used * n_tok;
    if (threadIdx.x == 0) {
        base = 0;
    }
    __syncthreads();
    for (int64_t j0 = 0; j0 < n; j0 += kRouteThreads) {
        const int64_t  j = j0 + threadIdx.x;
        const int32_t  x = j < n ? *(const int32_t *) (a.ids + (j % a.n_used) * a.nbi0 + (j / a.n_used) * a.nbi1) : 0;
        const bool     mine = j < n && x == e;
        const unsigned ball = __ballot_sync(0xffffffffu, mine);
        if (lane == 0) {
            warp_n[warp] = __popc(ball);
        }
        __syncthreads();
        int off = base;
        for (int w = 0; w < warp; w++) {
            off += warp_n[w];
        }
        if (mine) {
            lists[e * n + off + __popc(ball & ((1u << lane) - 1u))] = (int32_t) j;
        }
        if (e == 0 && j < n && (x < 0 || x >= a.n_expert)) {
            char * d = a.d + (j % a.n_used) * a.nbd1 + (j / a.n_used) * a.nbd2;
            for (int64_t m = 0; m < a.M; m++) {
                *(float *) (d + m * a.nbd0) = 0.0f;
            }
        }
        __syncthreads();  // every thread has read base and warp_n
        if (threadIdx.x == 0) {
            for (int w = 0; w < kRouteThreads / 32; w++) {
                base += warp_n[w];
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        counts[e] = base;
    }
}

template <ggml_type T>
__global__ void __launch_bounds__(kThreads)
    mmvq_id_kernel(const mmv_args a, int64_t n_tok, const int32_t * lists, const int32_t * counts) {
    using V                     = ggml_cuda_vdq::vdq<T>;
    using B                     = typename V::block;
    constexpr int    kStep      = kThreads / V::tpb;
    constexpr int    kYPerBlock = V::qk / QK8_1;
    __shared__ float red[4][kRows][kCols];

    const int       e    = blockIdx.y;
    const int64_t   row0 = (int64_t) blockIdx.x * kRows;
    const int       lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int       iqs  = threadIdx.x % V::tpb;
    const int64_t   nb   = a.K / V::qk;
    const int32_t * list = lists + e * a.n_used * n_tok;
    const int       n    = counts[e];
    const char *    w    = a.w + e * a.nbw2;
    for (int j0 = 0; j0 < n; j0 += kCols) {
        const int          ncols = n - j0 < kCols ? n - j0 : kCols;  // the same for the whole block
        const block_q8_1 * ycol[kCols];
#pragma unroll
        for (int c = 0; c < kCols; c++) {
            const int64_t j = c < ncols ? list[j0 + c] : 0;
            ycol[c]         = (const block_q8_1 *) (a.y + ((j % a.n_used) % a.ny1) * a.nby1 + (j / a.n_used) * a.nby2);
        }
        float acc[kRows][kCols];
#pragma unroll
        for (int r = 0; r < kRows; r++) {
#pragma unroll
            for (int c = 0; c < kCols; c++) {
                acc[r][c] = 0.0f;
            }
        }
        for (int64_t kb = threadIdx.x / V::tpb; kb < nb; kb += kStep) {
#pragma unroll
            for (int r = 0; r < kRows; r++) {
                if (row0 + r < a.M) {
                    const B & wb = ((const B *) (w + (row0 + r) * a.nbw1))[kb];
#pragma unroll
                    for (int c = 0; c < kCols; c++) {
                        if (c < ncols) {
                            acc[r][c] += V::dot(wb, ycol[c] + kb * kYPerBlock, iqs);
                        }
                    }
                }
            }
        }
#pragma unroll
        for (int r = 0; r < kRows; r++) {
#pragma unroll
            for (int c = 0; c < kCols; c++) {
                const float s = ggml_cuda_warp_sum(acc[r][c]);
                if (lane == 0) {
                    red[warp][r][c] = s;
                }
            }
        }
        __syncthreads();
        if (threadIdx.x < kRows * kCols) {
            const int r = threadIdx.x / kCols, c = threadIdx.x % kCols;
            if (row0 + r < a.M && c < ncols) {
                const int64_t j = list[j0 + c];
                char *        d = a.d + (row0 + r) * a.nbd0 + (j % a.n_used) * a.nbd1 + (j / a.n_used) * a.nbd2;
                *(float *) d    = red[0][r][c] + red[1][r][c] + red[2][r][c] + red[3][r][c];
            }
        }
        __syncthreads();
    }
}

}  // namespace

bool ggml_cuda_mmvq_id_grouped(ggml_cuda_op_ctx & ctx, ggml_type type, mmv_args & a, const char * who) {
    const int64_t n_tok = a.n_problems / a.n_used;
    if (a.M == 0 || a.n_problems == 0) {
        return true;
    }
    if (a.n_expert > (int64_t) kMmvMaxGridY) {
        GGML_LOG_ERROR("[%s] %lld experts exceed the grid\n", who, (long long) a.n_expert);
        return false;
    }
    const size_t bytes = ((size_t) a.n_expert * (size_t) a.n_problems + (size_t) a.n_expert) * sizeof(int32_t);
    int32_t *    lists = (int32_t *) ctx.scratch(2, bytes);
    if (!lists) {
        GGML_LOG_ERROR("[%s] no scratch for %zu bytes of expert lists\n", who, bytes);
        return false;
    }
    int32_t * counts = lists + a.n_expert * a.n_problems;
    if (!ggml_cuda_mmvq_quantize(ctx, a, who)) {
        return false;
    }
    route_kernel<<<(unsigned) a.n_expert, kRouteThreads, 0, ctx.stream>>>(a, n_tok, lists, counts);
    if (CUDA_LAUNCH_FAILED()) {
        return false;
    }
    const dim3 grid(ggml_cuda_blocks(a.M, kRows), (unsigned) a.n_expert);
    switch (type) {
#define GGML_CUDA_VECQ_ID_CASE(T)                                                      \
    case T:                                                                            \
        mmvq_id_kernel<T><<<grid, kThreads, 0, ctx.stream>>>(a, n_tok, lists, counts); \
        break;
        GGML_CUDA_VECQ_FOR_EACH_TYPE(GGML_CUDA_VECQ_ID_CASE)
#undef GGML_CUDA_VECQ_ID_CASE
        default:
            GGML_LOG_ERROR("[%s] weight type %s has no dp4a kernel\n", who, ggml_type_name(type));
            return false;
    }
    return !CUDA_LAUNCH_FAILED();
}
