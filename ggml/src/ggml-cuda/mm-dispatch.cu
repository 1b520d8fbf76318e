// mm-dispatch.cu — for the ops that read weights / quantized blocks: which nodes the device takes
// (the *_supported predicates of the CUDA op table, cuda-op-table.cu) and which MUL_MAT implementation
// runs a node. A node refused here falls back to the CPU through the scheduler.
#include <climits>

#include "mm-common.cuh"

bool ggml_cuda_mm_type_supported(ggml_type t) {
    switch (t) {
#define GGML_CUDA_TYPE_CASE(T) case T:
        GGML_CUDA_MM_FOR_EACH_TYPE(GGML_CUDA_TYPE_CASE)
#undef GGML_CUDA_TYPE_CASE
        return true;
        default:
            return false;
    }
}

namespace {

bool fits_int(int64_t x) {
    return x >= 0 && x <= INT_MAX;
}

}  // namespace

bool ggml_cuda_mul_mat_supported(const ggml_cuda_device_info &, const ggml_tensor * op) {
    const ggml_tensor * w = op->src[0];
    const ggml_tensor * b = op->src[1];
    if (!ggml_cuda_mm_type_supported(w->type) || b->type != GGML_TYPE_F32 || op->type != GGML_TYPE_F32) {
        return false;
    }
    if (w->nb[0] != ggml_type_size(w->type) || w->ne[0] % ggml_blck_size(w->type) != 0) {
        return false;  // rows must be contiguous whole blocks (the op constructor guarantees it)
    }
    if (op->nb[0] != sizeof(float) || op->nb[1] % sizeof(float) != 0) {
        return false;
    }
    if (w->ne[2] == 0 || w->ne[3] == 0 || b->ne[2] % w->ne[2] != 0 || b->ne[3] % w->ne[3] != 0) {
        return false;
    }
    // cuBLAS takes int sizes and leading dimensions
    return fits_int(w->ne[0]) && fits_int(w->ne[1]) && fits_int(b->ne[1]) && fits_int(b->ne[2] * b->ne[3]) &&
           fits_int((int64_t) (op->nb[1] / sizeof(float))) && fits_int((int64_t) (b->nb[1] / sizeof(float))) &&
           fits_int((int64_t) w->nb[1]);
}

bool ggml_cuda_mul_mat_id_supported(const ggml_cuda_device_info &, const ggml_tensor * op) {
    const ggml_tensor * as  = op->src[0];
    const ggml_tensor * b   = op->src[1];
    const ggml_tensor * ids = op->src[2];
    if (!ggml_cuda_mm_type_supported(as->type) || b->type != GGML_TYPE_F32 || !ids || ids->type != GGML_TYPE_I32 ||
        op->type != GGML_TYPE_F32) {
        return false;
    }
    return as->nb[0] == ggml_type_size(as->type) && as->ne[0] % ggml_blck_size(as->type) == 0 && b->ne[1] > 0;
}

bool ggml_cuda_get_rows_supported(const ggml_cuda_device_info &, const ggml_tensor * op) {
    const ggml_tensor * a   = op->src[0];
    const ggml_tensor * ids = op->src[1];
    if (!ids || ids->type != GGML_TYPE_I32) {
        return false;
    }
    if (a->type == GGML_TYPE_I32) {
        return op->type == GGML_TYPE_I32;
    }
    if (!ggml_cuda_mm_type_supported(a->type) || op->type != GGML_TYPE_F32) {
        return false;
    }
    return !ggml_is_quantized(a->type) || a->nb[0] == ggml_type_size(a->type);
}

bool ggml_cuda_mul_mat(ggml_cuda_op_ctx & ctx, ggml_tensor * node) {
    // decode and small batches read the weights directly; larger batches go through cuBLAS
    if (node->src[1]->ne[1] <= GGML_CUDA_MMV_MAX_COLS) {
        return ggml_cuda_mul_mat_vec(ctx, node);
    }
    return ggml_cuda_mul_mat_cublas(ctx, node);
}
