// DUP / CONT / CPY (ggml-cpu/ops-copy.cpp): elements in logical (row-major over ne) order between any
// two layouts of the same element count; same-type copies keep the bits (any plain type), F32/F16/BF16
// convert in any combination, and F32/F16/BF16 -> Q8_0/Q4_0/Q4_1/Q5_0/Q5_1/IQ4_NL quantize through
// quantize.cuh, bit-exact with the CPU reference quantizers. Also CONCAT.
#include "ops-basic.cuh"
#include "quantize.cuh"

namespace {

__device__ __forceinline__ void copy_elem(int esize, char * d, const char * s) {
    switch (esize) {
        case 1:
            *(uint8_t *) d = *(const uint8_t *) s;
            break;
        case 2:
            *(uint16_t *) d = *(const uint16_t *) s;
            break;
        case 4:
            *(uint32_t *) d = *(const uint32_t *) s;
            break;
        default:
            *(uint64_t *) d = *(const uint64_t *) s;
            break;
    }
}

// Logical element `flat` of t -> its address (four divisions: the path for reshaping copies only).
__device__ __forceinline__ const char * flat_ptr(const cuda_tview & t, int64_t flat) {
    const int64_t i0 = flat % t.ne[0];
    flat /= t.ne[0];
    const int64_t i1 = flat % t.ne[1];
    flat /= t.ne[1];
    const int64_t i2 = flat % t.ne[2];
    return cuda_ptr(t, i0, i1, i2, flat / t.ne[2]);
}

// SAME_SHAPE: src element (i0, i1, i2, i3) goes to dst (i0, i1, i2, i3) (cont of a permuted view, ...);
// otherwise the logical index is recomputed in src's shape per element.
template <bool SAME_SHAPE>
__global__ void k_copy(cuda_tview d, cuda_tview s, int64_t nrows, bool raw, int esize) {
    const int64_t n = d.ne[0];
    for (int64_t r = (int64_t) blockIdx.x * blockDim.y + threadIdx.y; r < nrows;
         r += (int64_t) gridDim.x * blockDim.y) {
        int64_t i1, i2, i3;
        cuda_row_index(d, r, i1, i2, i3);
        char *       dr = cuda_ptr(d, 0, i1, i2, i3);
        const char * sr = SAME_SHAPE ? cuda_ptr(s, 0, i1, i2, i3) : nullptr;
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            const char * sp = SAME_SHAPE ? sr + i * s.nb[0] : flat_ptr(s, r * n + i);
            if (raw) {
                copy_elem(esize, dr + i * d.nb[0], sp);
            } else {
                cuda_store_f(d.type, dr + i * d.nb[0], cuda_load_f(s.type, sp));
            }
        }
    }
}

// One thread per destination block: gathers its 32 source elements in logical order, quantizes.
__global__ void k_copy_quant(cuda_tview d, cuda_tview s, int64_t nblocks, int64_t blk_per_row, int64_t blk_bytes) {
    for (int64_t t = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; t < nblocks;
         t += (int64_t) gridDim.x * blockDim.x) {
        const int64_t r   = t / blk_per_row;
        const int64_t blk = t - r * blk_per_row;
        int64_t       i1, i2, i3;
        cuda_row_index(d, r, i1, i2, i3);
        // src position of the block's first element, then a walker (no division per element)
        int64_t flat = r * d.ne[0] + blk * 32;
        int64_t j0   = flat % s.ne[0];
        flat /= s.ne[0];
        int64_t j1 = flat % s.ne[1];
        flat /= s.ne[1];
        int64_t j2 = flat % s.ne[2];
        int64_t j3 = flat / s.ne[2];
        float   x[32];
        for (int k = 0; k < 32; k++) {
            x[k] = cuda_load_f(s.type, cuda_ptr(s, j0, j1, j2, j3));
            if (++j0 == s.ne[0]) {
                j0 = 0;
                if (++j1 == s.ne[1]) {
                    j1 = 0;
                    if (++j2 == s.ne[2]) {
                        j2 = 0;
                        ++j3;
                    }
                }
            }
        }
        ggml_cuda_math::quantize_block(d.type, x, cuda_ptr(d, 0, i1, i2, i3) + blk * blk_bytes);
    }
}

bool same_shape(const ggml_tensor * a, const ggml_tensor * b) {
    return a->ne[0] == b->ne[0] && a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3];
}

// dim and a's extent along it arrive as scalars: selects instead of an indexed array keep it in registers
__global__ void k_concat(cuda_tview d, cuda_tview a, cuda_tview b, int dim, int64_t a_ne_dim, int64_t nrows,
                         int esize) {
    const int64_t n = d.ne[0];
    for (int64_t r = (int64_t) blockIdx.x * blockDim.y + threadIdx.y; r < nrows;
         r += (int64_t) gridDim.x * blockDim.y) {
        int64_t i1, i2, i3;
        cuda_row_index(d, r, i1, i2, i3);
        char * dr = cuda_ptr(d, 0, i1, i2, i3);
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            const int64_t c    = dim == 0 ? i : (dim == 1 ? i1 : (dim == 2 ? i2 : i3));
            const bool    in_b = c >= a_ne_dim;
            const int64_t o    = in_b ? a_ne_dim : 0;
            const char *  sp   = in_b ? cuda_ptr(b, i - (dim == 0 ? o : 0), i1 - (dim == 1 ? o : 0),
                                                 i2 - (dim == 2 ? o : 0), i3 - (dim == 3 ? o : 0))
                                      : cuda_ptr(a, i, i1, i2, i3);
            copy_elem(esize, dr + i * d.nb[0], sp);
        }
    }
}

}  // namespace

bool ggml_cuda_op_dup(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    if (src->type == dst->type && ggml_is_contiguous(src) && ggml_is_contiguous(dst)) {
        const size_t bytes = ggml_row_size(dst->type, dst->ne[0]) * (size_t) cuda_nrows(dst);
        if (src->data == dst->data) {
            return true;
        }
        return !CUDA_FAILED(cudaMemcpyAsync(dst->data, src->data, bytes, cudaMemcpyDeviceToDevice, ctx.stream));
    }
    const int64_t nrows = cuda_nrows(dst);
    if (ggml_is_quantized(dst->type)) {
        const int64_t blk_per_row = dst->ne[0] / ggml_blck_size(dst->type);
        const int64_t nblocks     = blk_per_row * nrows;
        const int64_t grid        = (nblocks + 127) / 128;
        k_copy_quant<<<(unsigned) (grid > 1048576 ? 1048576 : grid), 128, 0, ctx.stream>>>(
            cuda_tview_of(dst), cuda_tview_of(src), nblocks, blk_per_row, (int64_t) ggml_type_size(dst->type));
        return true;
    }
    const bool            raw = src->type == dst->type;
    const int             es  = (int) ggml_type_size(dst->type);
    const cuda_row_launch l   = cuda_rows_launch(dst->ne[0], nrows);
    if (same_shape(src, dst)) {
        k_copy<true><<<l.grid, l.block, 0, ctx.stream>>>(cuda_tview_of(dst), cuda_tview_of(src), nrows, raw, es);
    } else {
        k_copy<false><<<l.grid, l.block, 0, ctx.stream>>>(cuda_tview_of(dst), cuda_tview_of(src), nrows, raw, es);
    }
    return true;
}

bool ggml_cuda_op_concat(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const int             dim   = ggml_get_op_params_i32(dst, 0);
    const int64_t         nrows = cuda_nrows(dst);
    const cuda_row_launch l     = cuda_rows_launch(dst->ne[0], nrows);
    k_concat<<<l.grid, l.block, 0, ctx.stream>>>(cuda_tview_of(dst), cuda_tview_of(dst->src[0]),
                                                 cuda_tview_of(dst->src[1]), dim, dst->src[0]->ne[dim], nrows,
                                                 (int) ggml_type_size(dst->type));
    return true;
}
