// ops-basic.cu — which basic ops the CUDA backend runs (ggml_cuda_supports_basic, exact: the CPU
// backend's ggml_cpu_supports_op conditions, narrowed where a kernel needs more) and the dispatch to
// the op family files (ggml_cuda_compute_basic).
#include "ops-basic.cuh"
#include "quantize.cuh"

namespace {

bool is_f(const ggml_tensor * t) {
    return t && (t->type == GGML_TYPE_F32 || t->type == GGML_TYPE_F16 || t->type == GGML_TYPE_BF16);
}
bool is_idx(const ggml_tensor * t) {
    return t && (t->type == GGML_TYPE_I32 || t->type == GGML_TYPE_I64);
}

// Kernels dereference elements directly: strides and the view offset must keep every element at an
// address aligned to its size (quantized blocks: 2 bytes, their fp16 fields). The CPU copies bytes
// with memcpy and does not need this.
bool aligned(const ggml_tensor * t) {
    if (!t) {
        return true;
    }
    const size_t a = ggml_is_quantized(t->type) ? 2 : ggml_type_size(t->type);
    if (a == 0 || t->view_offs % a != 0 || ((uintptr_t) t->data) % a != 0) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (t->nb[i] % a != 0) {
            return false;
        }
    }
    return true;
}

bool all_aligned(const ggml_tensor * op) {
    if (!aligned(op)) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (!aligned(op->src[i])) {
            return false;
        }
    }
    return true;
}

bool quant_rows_ok(const ggml_tensor * t) {
    return t->nb[0] == ggml_type_size(t->type) && t->ne[0] % ggml_blck_size(t->type) == 0;
}

bool supports_copy(const ggml_tensor * op) {
    const ggml_tensor * src = op->src[0];
    if (!src || ggml_nelements(src) != ggml_nelements(op)) {
        return false;
    }
    if (src->type == op->type) {
        // plain types elementwise (1, 2, 4 or 8 bytes); quantized blocks only as one contiguous copy
        if (ggml_is_quantized(op->type)) {
            return ggml_is_contiguous(src) && ggml_is_contiguous(op);
        }
        const size_t es = ggml_type_size(op->type);
        return ggml_blck_size(op->type) == 1 && (es == 1 || es == 2 || es == 4 || es == 8);
    }
    if (!is_f(src)) {
        return false;
    }
    if (is_f(op)) {
        return true;
    }
    return ggml_cuda_math::quantize_block_supported(op->type) && quant_rows_ok(op);
}

bool supports(const ggml_cuda_device_info & info, const ggml_tensor * op) {
    const ggml_tensor * a = op->src[0];
    const ggml_tensor * b = op->src[1];
    switch (op->op) {
        case GGML_OP_DUP:
        case GGML_OP_CONT:
        case GGML_OP_CPY:
            return supports_copy(op);

        case GGML_OP_CONCAT: {
            const int    dim = ggml_get_op_params_i32(op, 0);
            const size_t es  = ggml_type_size(op->type);
            return a && b && a->type == op->type && b->type == op->type && !ggml_is_quantized(op->type) &&
                   ggml_blck_size(op->type) == 1 && (es == 1 || es == 2 || es == 4 || es == 8) && dim >= 0 && dim < 4;
        }

        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
            return is_f(a) && is_f(b) && is_f(op) && ggml_can_repeat(b, a);

        case GGML_OP_SQR:
        case GGML_OP_SQRT:
        case GGML_OP_SCALE:
        case GGML_OP_CLAMP:
            return is_f(a) && is_f(op);
        case GGML_OP_UNARY:
            return is_f(a) && is_f(op) && ggml_get_unary_op(op) >= 0 && ggml_get_unary_op(op) < GGML_UNARY_OP_COUNT;
        case GGML_OP_GLU:
            return is_f(a) && is_f(op) && (!b || is_f(b)) && ggml_get_glu_op(op) >= 0 &&
                   ggml_get_glu_op(op) < GGML_GLU_OP_COUNT;

        case GGML_OP_SUM_ROWS:
        case GGML_OP_MEAN:
            return is_f(a) && is_f(op) && a->ne[0] > 0;
        case GGML_OP_ARGMAX:
            return a && a->type == GGML_TYPE_F32 && op->type == GGML_TYPE_I32 && a->ne[2] == 1 && a->ne[3] == 1 &&
                   a->ne[0] > 0;

        case GGML_OP_NORM:
        case GGML_OP_RMS_NORM:
            return is_f(a) && is_f(op) && a->ne[0] > 0;

        case GGML_OP_SET_ROWS:
            if (!is_f(a) || !is_idx(b)) {
                return false;
            }
            if (ggml_is_quantized(op->type)) {
                return ggml_cuda_math::quantize_block_supported(op->type) && quant_rows_ok(op);
            }
            return is_f(op);

        case GGML_OP_ROPE: {
            const int mode   = ggml_get_op_params_i32(op, 2);
            const int n_dims = ggml_get_op_params_i32(op, 1);
            return a && (a->type == GGML_TYPE_F32 || a->type == GGML_TYPE_F16) && op->type == a->type && b &&
                   b->type == GGML_TYPE_I32 && (mode == GGML_ROPE_TYPE_NORMAL || mode == GGML_ROPE_TYPE_NEOX) &&
                   n_dims > 0 && n_dims % 2 == 0 && n_dims <= a->ne[0] &&
                   (!op->src[2] || op->src[2]->type == GGML_TYPE_F32);
        }
        case GGML_OP_SOFT_MAX:
            return is_f(a) && op->type == GGML_TYPE_F32 && op->nb[0] == 4 &&
                   (!b || b->type == GGML_TYPE_F32 || b->type == GGML_TYPE_F16);

        case GGML_OP_ARGSORT:
            return is_f(a) && op->type == GGML_TYPE_I32 && op->nb[0] == 4 && a->ne[0] > 0 &&
                   a->ne[0] <= ggml_cuda_argsort_max_cols(info);

        default:
            return false;
    }
}

}  // namespace

bool ggml_cuda_supports_basic(const ggml_cuda_device_info & info, const ggml_tensor * op) {
    return op && supports(info, op) && all_aligned(op);
}

bool ggml_cuda_compute_basic(ggml_cuda_op_ctx & ctx, ggml_tensor * node) {
    if (ggml_nelements(node) == 0) {
        return true;  // nothing to write (a zero-sized grid would be a launch error)
    }
    switch (node->op) {
        case GGML_OP_DUP:
        case GGML_OP_CONT:
        case GGML_OP_CPY:
            return ggml_cuda_op_dup(ctx, node);
        case GGML_OP_CONCAT:
            return ggml_cuda_op_concat(ctx, node);
        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
            return ggml_cuda_op_binary(ctx, node);
        case GGML_OP_SQR:
        case GGML_OP_SQRT:
        case GGML_OP_SCALE:
        case GGML_OP_CLAMP:
        case GGML_OP_UNARY:
            return ggml_cuda_op_unary(ctx, node);
        case GGML_OP_GLU:
            return ggml_cuda_op_glu(ctx, node);
        case GGML_OP_SUM_ROWS:
        case GGML_OP_MEAN:
        case GGML_OP_ARGMAX:
            return ggml_cuda_op_reduce(ctx, node);
        case GGML_OP_NORM:
        case GGML_OP_RMS_NORM:
            return ggml_cuda_op_norm(ctx, node);
        case GGML_OP_SET_ROWS:
            return ggml_cuda_op_set_rows(ctx, node);
        case GGML_OP_ROPE:
            return ggml_cuda_op_rope(ctx, node);
        case GGML_OP_SOFT_MAX:
            return ggml_cuda_op_soft_max(ctx, node);
        case GGML_OP_ARGSORT:
            return ggml_cuda_op_argsort(ctx, node);
        default:
            GGML_LOG_ERROR("%s: %s: op %s is not a basic CUDA op\n", __func__, node->name, ggml_op_name(node->op));
            return false;
    }
}
