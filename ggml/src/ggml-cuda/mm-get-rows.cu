// mm-get-rows.cu — GET_ROWS: dst[:, i, j1, j2] = src0[:, ids[i, j1, j2], j1 % ne02, j2 % ne03], dequantized
// to F32 (I32 rows are copied as they are). One block per destination row.
// An id outside [0, ne01) cannot fail the graph from the device (that would need a host sync): the
// row is written as zeros instead; the CPU backend fails the compute for the same input.
#include "mm-common.cuh"

namespace {

constexpr int      kThreads = 128;
constexpr unsigned kMaxGrid = 65535u;

struct rows_args {
    const char * src;
    const char * ids;
    char *       dst;
    int64_t      ne0, n_src_rows, ne02, ne03;  // src0
    size_t       nb00, nb01, nb02, nb03;
    size_t       nbi0, nbi1, nbi2;  // ids
    int64_t      n_ids, d2, d3;     // dst rows = n_ids * d2 * d3
    size_t       nbd0, nbd1, nbd2, nbd3;
};

template <ggml_type T, typename Out>
__global__ void get_rows_kernel(rows_args a) {
    const int64_t nrows = a.n_ids * a.d2 * a.d3;
    for (int64_t r = blockIdx.x; r < nrows; r += gridDim.x) {
        const int64_t i = r % a.n_ids, j1 = (r / a.n_ids) % a.d2, j2 = r / (a.n_ids * a.d2);
        const int64_t id = *(const int32_t *) (a.ids + i * a.nbi0 + j1 * a.nbi1 + j2 * a.nbi2);
        char *        d  = a.dst + i * a.nbd1 + j1 * a.nbd2 + j2 * a.nbd3;
        if (id < 0 || id >= a.n_src_rows) {
            for (int64_t k = threadIdx.x; k < a.ne0; k += blockDim.x) {
                *(Out *) (d + k * a.nbd0) = (Out) 0;
            }
            continue;
        }
        const char * x = a.src + id * a.nb01 + (j1 % a.ne02) * a.nb02 + (j2 % a.ne03) * a.nb03;
        for (int64_t k = threadIdx.x; k < a.ne0; k += blockDim.x) {
            Out v;
            if constexpr (T == GGML_TYPE_I32) {
                v = *(const int32_t *) (x + k * a.nb00);
            } else if constexpr (ggml_cuda_dq::dq<T>::qk == 1) {
                v = ggml_cuda_dq::dq<T>::get(*(const typename ggml_cuda_dq::dq<T>::block *) (x + k * a.nb00), 0);
            } else {
                v = ggml_cuda_dq::row_get<T>(x, k);
            }
            *(Out *) (d + k * a.nbd0) = v;
        }
    }
}

}  // namespace

bool ggml_cuda_get_rows(ggml_cuda_op_ctx & ctx, ggml_tensor * dst) {
    const ggml_tensor * src = dst->src[0];
    const ggml_tensor * ids = dst->src[1];
    rows_args           a;
    a.src               = (const char *) src->data;
    a.ids               = (const char *) ids->data;
    a.dst               = (char *) dst->data;
    a.ne0               = src->ne[0];
    a.n_src_rows        = src->ne[1];
    a.ne02              = src->ne[2];
    a.ne03              = src->ne[3];
    a.nb00              = src->nb[0];
    a.nb01              = src->nb[1];
    a.nb02              = src->nb[2];
    a.nb03              = src->nb[3];
    a.nbi0              = ids->nb[0];
    a.nbi1              = ids->nb[1];
    a.nbi2              = ids->nb[2];
    a.n_ids             = dst->ne[1];
    a.d2                = dst->ne[2];
    a.d3                = dst->ne[3];
    a.nbd0              = dst->nb[0];
    a.nbd1              = dst->nb[1];
    a.nbd2              = dst->nb[2];
    a.nbd3              = dst->nb[3];
    const int64_t nrows = a.n_ids * a.d2 * a.d3;
    if (nrows == 0 || a.ne0 == 0) {
        return true;
    }
    const unsigned grid = nrows < (int64_t) kMaxGrid ? (unsigned) nrows : kMaxGrid;
    switch (src->type) {
        case GGML_TYPE_I32:
            get_rows_kernel<GGML_TYPE_I32, int32_t><<<grid, kThreads, 0, ctx.stream>>>(a);
            break;
#define GGML_CUDA_GR_CASE(T)                                             \
    case T:                                                              \
        get_rows_kernel<T, float><<<grid, kThreads, 0, ctx.stream>>>(a); \
        break;
            GGML_CUDA_MM_FOR_EACH_TYPE(GGML_CUDA_GR_CASE)
#undef GGML_CUDA_GR_CASE
        default:
            GGML_LOG_ERROR("[get_rows] %s: type %s is not supported\n", dst->name, ggml_type_name(src->type));
            return false;
    }
    return !CUDA_LAUNCH_FAILED();
}
