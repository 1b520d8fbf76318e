// ggml_cpu_supports_op: the exact set of (op, types, layouts) the CPU kernels handle. The scheduler
// relies on it to fall back or fail cleanly, so it must never say yes to something a kernel rejects.
#include "ggml-cpu-impl.h"

namespace {

bool is_f(const ggml_tensor * t) {
    return t && cpu_is_float_type(t->type);
}
bool unit_stride(const ggml_tensor * t) {
    return t->nb[0] == ggml_type_size(t->type);
}
bool is_idx(const ggml_tensor * t) {
    return t && (t->type == GGML_TYPE_I32 || t->type == GGML_TYPE_I64);
}

bool quant_rows_ok(const ggml_tensor * t) {
    return unit_stride(t) && t->ne[0] % ggml_blck_size(t->type) == 0;
}

bool supports_copy(const ggml_tensor * op) {
    const ggml_tensor * src = op->src[0];
    if (!src)
        return false;
    if (src->type == op->type) {
        // any plain type copies elementwise; quantized blocks only as one contiguous memcpy
        return !ggml_is_quantized(op->type) || (ggml_is_contiguous(src) && ggml_is_contiguous(op));
    }
    if (!is_f(src))
        return false;
    if (is_f(op))
        return true;
    return ggml_is_quantized(op->type) && ggml_cpu_can_from_float(op->type) && quant_rows_ok(op);
}

}  // namespace

extern "C" bool ggml_cpu_supports_op(const ggml_tensor * op) {
    if (!op)
        return false;
    const ggml_tensor * a = op->src[0];
    const ggml_tensor * b = op->src[1];
    switch (op->op) {
        case GGML_OP_NONE:
        case GGML_OP_VIEW:
        case GGML_OP_RESHAPE:
        case GGML_OP_PERMUTE:
        case GGML_OP_TRANSPOSE:
            return true;

        case GGML_OP_DUP:
        case GGML_OP_CONT:
        case GGML_OP_CPY:
            return supports_copy(op);

        case GGML_OP_CONCAT:
            return a && b && a->type == op->type && b->type == op->type && !ggml_is_quantized(op->type) &&
                   ggml_get_op_params_i32(op, 0) >= 0 && ggml_get_op_params_i32(op, 0) < 4;

        case GGML_OP_ADD:
        case GGML_OP_SUB:
        case GGML_OP_MUL:
        case GGML_OP_DIV:
            return is_f(a) && is_f(b) && is_f(op);

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
            return is_f(a) && is_f(op);
        case GGML_OP_ARGMAX:
            return a && a->type == GGML_TYPE_F32 && op->type == GGML_TYPE_I32 && a->ne[2] == 1 && a->ne[3] == 1 &&
                   a->ne[0] > 0;

        case GGML_OP_NORM:
        case GGML_OP_RMS_NORM:
            return is_f(a) && is_f(op);

        case GGML_OP_MUL_MAT:
            return a && b && ggml_cpu_mul_mat_supported(a) && unit_stride(a) && is_f(b) && op->type == GGML_TYPE_F32 &&
                   op->nb[0] == 4;
        case GGML_OP_MUL_MAT_ID:
            return a && b && op->src[2] && ggml_cpu_mul_mat_supported(a) && unit_stride(a) && is_f(b) &&
                   op->src[2]->type == GGML_TYPE_I32 && op->type == GGML_TYPE_F32 && op->nb[0] == 4;

        case GGML_OP_GET_ROWS:
            if (!a || !b || b->type != GGML_TYPE_I32)
                return false;
            if (ggml_is_quantized(a->type))
                return ggml_cpu_can_to_float(a->type) && quant_rows_ok(a) && is_f(op);
            return a->type == op->type ? !ggml_is_quantized(a->type) : (is_f(a) && is_f(op));
        case GGML_OP_SET_ROWS:
            if (!is_f(a) || !is_idx(b))
                return false;
            if (ggml_is_quantized(op->type))
                return ggml_cpu_can_from_float(op->type) && quant_rows_ok(op);
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
            return a && is_f(a) && op->type == GGML_TYPE_F32 && op->nb[0] == 4 &&
                   (!b || b->type == GGML_TYPE_F32 || b->type == GGML_TYPE_F16);
        case GGML_OP_FLASH_ATTN_EXT: {
            const ggml_tensor * v     = op->src[2];
            const ggml_tensor * mask  = op->src[3];
            auto                kv_ok = [](const ggml_tensor * t) {
                return is_f(t) ||
                       (t && ggml_is_quantized(t->type) && ggml_cpu_can_to_float(t->type) && quant_rows_ok(t));
            };
            return a && a->type == GGML_TYPE_F32 && kv_ok(b) && kv_ok(v) && op->type == GGML_TYPE_F32 &&
                   op->nb[0] == 4 && (!mask || mask->type == GGML_TYPE_F32 || mask->type == GGML_TYPE_F16) &&
                   b->ne[2] > 0 && a->ne[2] % b->ne[2] == 0 && b->ne[2] == v->ne[2];
        }
        case GGML_OP_ARGSORT:
            return is_f(a) && op->type == GGML_TYPE_I32 && op->nb[0] == 4;

        default:
            return false;
    }
}
