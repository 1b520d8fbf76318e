// SET_ROWS (ggml-cpu/ops-rows.cpp; the KV-cache write): dst row ids[i] := convert(src row i), src
// F32/F16/BF16 with any strides, ids I32/I64 broadcast over dims 1/2, dst F32/F16/BF16 (any strides) or
// Q8_0/Q4_0/Q4_1/Q5_0/Q5_1/IQ4_NL (quantize.cuh, bit-exact with the CPU). An id out of range leaves that
// row unwritten: the CPU fails the compute there, which a kernel cannot report without a host sync.
#include "ops-basic.cuh"
#include "quantize.cuh"

namespace {

// the destination row of source row (i, s2, s3), or nullptr for an out-of-range id
__device__ __forceinline__ char * dst_row(const cuda_tview & d, const cuda_tview & ids, int64_t i, int64_t s2,
                                          int64_t s3) {
    const char *  ip = cuda_ptr(ids, i, s2 % ids.ne[1], s3 % ids.ne[2], 0);
    const int64_t id = ids.type == GGML_TYPE_I64 ? *(const int64_t *) ip : (int64_t) * (const int32_t *) ip;
    if (id < 0 || id >= d.ne[1]) {
        return nullptr;
    }
    return cuda_ptr(d, 0, id, s2 % d.ne[2], s3 % d.ne[3]);
}

__global__ void k_set_rows(cuda_tview d, cuda_tview s, cuda_tview ids, int64_t nrows) {
    const int64_t n = s.ne[0];
    for (int64_t r = (int64_t) blockIdx.x * blockDim.y + threadIdx.y; r < nrows;
         r += (int64_t) gridDim.x * blockDim.y) {
        int64_t i, s2, s3;
        cuda_row_index(s, r, i, s2, s3);
        char * dr = dst_row(d, ids, i, s2, s3);
        if (!dr) {
            continue;
        }
        const char * x = cuda_ptr(s, 0, i, s2, s3);
        for (int64_t k = threadIdx.x; k < n; k += blockDim.x) {
            cuda_store_f(d.type, dr + k * d.nb[0], cuda_load_f(s.type, x + k * s.nb[0]));
        }
    }
}

// one thread per destination block
__global__ void k_set_rows_quant(cuda_tview d, cuda_tview s, cuda_tview ids, int64_t nblocks, int64_t blk_per_row,
                                 int64_t blk_bytes) {
    for (int64_t t = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; t < nblocks;
         t += (int64_t) gridDim.x * blockDim.x) {
        const int64_t r   = t / blk_per_row;
        const int64_t blk = t - r * blk_per_row;
        int64_t       i, s2, s3;
        cuda_row_index(s, r, i, s2, s3);
        char * dr = dst_row(d, ids, i, s2, s3);
        if (!dr) {
            continue;
        }
        const char * xp = cuda_ptr(s, blk * 32, i, s2, s3);
        float        x[32];
        for (int k = 0; k < 32; k++) {
            x[k] = cuda_load_f(s.type, xp + k * s.nb[0]);
        }
        ggml_cuda_math::quantize_block(d.type, x, dr + blk * blk_bytes);
    }
}

}  // namespace

bool ggml_cuda_op_set_rows(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const ggml_tensor * src   = dst->src[0];
    const ggml_tensor * ids   = dst->src[1];
    const int64_t       nrows = cuda_nrows(src);
    if (ggml_is_quantized(dst->type)) {
        const int64_t blk_per_row = src->ne[0] / ggml_blck_size(dst->type);
        const int64_t nblocks     = blk_per_row * nrows;
        const int64_t grid        = (nblocks + 127) / 128;
        if (nblocks == 0) {
            return true;
        }
        k_set_rows_quant<<<(unsigned) (grid > 1048576 ? 1048576 : grid), 128, 0, ctx.stream>>>(
            cuda_tview_of(dst), cuda_tview_of(src), cuda_tview_of(ids), nblocks, blk_per_row,
            (int64_t) ggml_type_size(dst->type));
        return true;
    }
    if (nrows == 0) {
        return true;
    }
    const cuda_row_launch l = cuda_rows_launch(src->ne[0], nrows);
    k_set_rows<<<l.grid, l.block, 0, ctx.stream>>>(cuda_tview_of(dst), cuda_tview_of(src), cuda_tview_of(ids), nrows);
    return true;
}
