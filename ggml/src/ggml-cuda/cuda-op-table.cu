// cuda-op-table.cu — the CUDA backend's op table: one row per ggml_op (checked against the core table
// at compile time) with which nodes the device runs (exact: the CPU backend's conditions, narrowed
// where a kernel needs more) and the kernel entry point of the op family files (ops-*.cu, mm-*.cu,
// fa-ext.cu) that runs them.
#include "ggml-op-rows.h"
#include "ggml-ssm-nodes.h"
#include "mm-common.cuh"
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

// ---- supports, one predicate per op or family ----------------------------------------------------

using info_t = ggml_cuda_device_info;

bool sup_copy(const info_t &, const ggml_tensor * op) {
    return supports_copy(op);
}
bool sup_concat(const info_t &, const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1];
    const int          dim = ggml_get_op_params_i32(op, 0);
    const size_t       es  = ggml_type_size(op->type);
    return a && b && a->type == op->type && b->type == op->type && !ggml_is_quantized(op->type) &&
           ggml_blck_size(op->type) == 1 && (es == 1 || es == 2 || es == 4 || es == 8) && dim >= 0 && dim < 4;
}
bool sup_binary(const info_t &, const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1];
    return is_f(a) && is_f(b) && is_f(op) && ggml_can_repeat(b, a);
}
bool sup_map(const info_t &, const ggml_tensor * op) {  // SQR SQRT SCALE CLAMP
    return is_f(op->src[0]) && is_f(op);
}
bool sup_unary(const info_t & info, const ggml_tensor * op) {
    return sup_map(info, op) && ggml_get_unary_op(op) >= 0 && ggml_get_unary_op(op) < GGML_UNARY_OP_COUNT;
}
bool sup_glu(const info_t & info, const ggml_tensor * op) {
    const ggml_tensor * b = op->src[1];
    return sup_map(info, op) && (!b || is_f(b)) && ggml_get_glu_op(op) >= 0 && ggml_get_glu_op(op) < GGML_GLU_OP_COUNT;
}
bool sup_rows(const info_t & info, const ggml_tensor * op) {  // SUM_ROWS MEAN and the norms
    return sup_map(info, op) && op->src[0]->ne[0] > 0;
}
bool sup_argmax(const info_t &, const ggml_tensor * op) {
    const ggml_tensor * a = op->src[0];
    return a && a->type == GGML_TYPE_F32 && op->type == GGML_TYPE_I32 && a->ne[2] == 1 && a->ne[3] == 1 && a->ne[0] > 0;
}
bool sup_set_rows(const info_t &, const ggml_tensor * op) {
    if (!is_f(op->src[0]) || !is_idx(op->src[1])) {
        return false;
    }
    if (ggml_is_quantized(op->type)) {
        return ggml_cuda_math::quantize_block_supported(op->type) && quant_rows_ok(op);
    }
    return is_f(op);
}
bool sup_rope(const info_t &, const ggml_tensor * op) {
    return ggml_rope_node_plain(op);  // ggml-impl.h: the same rule as the other backend
}
bool sup_soft_max(const info_t &, const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1];
    return is_f(a) && op->type == GGML_TYPE_F32 && op->nb[0] == 4 &&
           (!b || b->type == GGML_TYPE_F32 || b->type == GGML_TYPE_F16);
}
bool sup_argsort(const info_t & info, const ggml_tensor * op) {
    const ggml_tensor * a = op->src[0];
    return is_f(a) && op->type == GGML_TYPE_I32 && op->nb[0] == 4 && a->ne[0] > 0 &&
           a->ne[0] <= ggml_cuda_argsort_max_cols(info);
}
// The recurrent ops: exactly the nodes the CPU takes (ggml-ssm-nodes.h, one rule for both); their kernels
// index with element strides, which the table's alignment check (elementwise rows) keeps exact.
bool sup_ssm_conv(const info_t &, const ggml_tensor * op) {
    return ggml_ssm_conv_node_ok(op);
}
bool sup_ssm_scan(const info_t &, const ggml_tensor * op) {
    return ggml_ssm_scan_node_ok(op);
}
bool sup_gated_delta_net(const info_t &, const ggml_tensor * op) {
    return ggml_gated_delta_net_node_ok(op);
}

// ---- the table --------------------------------------------------------------------------------------

struct cuda_op_row {
    ggml_op op;
    bool (*supports)(const info_t & info, const ggml_tensor * node);  // nullptr: views and leaves (skipped)
    bool (*run)(ggml_cuda_op_ctx & ctx, ggml_tensor * node);
    // elementwise kernels dereference elements directly: every input and the result must be aligned to
    // their element size (all_aligned); the mm family checks its own layouts
    bool elementwise;
};

#define VIEW_ROW(OP) \
    { GGML_OP_##OP, nullptr, nullptr, false }

constexpr cuda_op_row k_rows[] = {
    VIEW_ROW(NONE),
    {GGML_OP_DUP, sup_copy, ggml_cuda_op_dup, true},
    {GGML_OP_ADD, sup_binary, ggml_cuda_op_binary<GGML_OP_ADD>, true},
    {GGML_OP_SUB, sup_binary, ggml_cuda_op_binary<GGML_OP_SUB>, true},
    {GGML_OP_MUL, sup_binary, ggml_cuda_op_binary<GGML_OP_MUL>, true},
    {GGML_OP_DIV, sup_binary, ggml_cuda_op_binary<GGML_OP_DIV>, true},
    {GGML_OP_SQR, sup_map, ggml_cuda_op_unary, true},
    {GGML_OP_SQRT, sup_map, ggml_cuda_op_unary, true},
    {GGML_OP_SUM_ROWS, sup_rows, ggml_cuda_op_reduce, true},
    {GGML_OP_MEAN, sup_rows, ggml_cuda_op_reduce, true},
    {GGML_OP_ARGMAX, sup_argmax, ggml_cuda_op_reduce, true},
    {GGML_OP_SCALE, sup_map, ggml_cuda_op_unary, true},
    {GGML_OP_CLAMP, sup_map, ggml_cuda_op_unary, true},
    {GGML_OP_NORM, sup_rows, ggml_cuda_op_norm, true},
    {GGML_OP_RMS_NORM, sup_rows, ggml_cuda_op_norm, true},
    {GGML_OP_MUL_MAT, ggml_cuda_mul_mat_supported, ggml_cuda_mul_mat, false},
    {GGML_OP_MUL_MAT_ID, ggml_cuda_mul_mat_id_supported, ggml_cuda_mul_mat_id, false},
    {GGML_OP_GET_ROWS, ggml_cuda_get_rows_supported, ggml_cuda_get_rows, false},
    {GGML_OP_SET_ROWS, sup_set_rows, ggml_cuda_op_set_rows, true},
    {GGML_OP_CPY, sup_copy, ggml_cuda_op_dup, true},
    {GGML_OP_CONT, sup_copy, ggml_cuda_op_dup, true},
    VIEW_ROW(RESHAPE),
    VIEW_ROW(VIEW),
    VIEW_ROW(PERMUTE),
    VIEW_ROW(TRANSPOSE),
    {GGML_OP_CONCAT, sup_concat, ggml_cuda_op_concat, true},
    {GGML_OP_ROPE, sup_rope, ggml_cuda_op_rope, true},
    {GGML_OP_SOFT_MAX, sup_soft_max, ggml_cuda_op_soft_max, true},
    {GGML_OP_FLASH_ATTN_EXT, ggml_cuda_flash_attn_supported, ggml_cuda_flash_attn, false},
    {GGML_OP_ARGSORT, sup_argsort, ggml_cuda_op_argsort, true},
    {GGML_OP_UNARY, sup_unary, ggml_cuda_op_unary, true},
    {GGML_OP_GLU, sup_glu, ggml_cuda_op_glu, true},
    {GGML_OP_L2_NORM, sup_rows, ggml_cuda_op_norm, true},
    {GGML_OP_SSM_CONV, sup_ssm_conv, ggml_cuda_op_ssm_conv, true},
    {GGML_OP_SSM_SCAN, sup_ssm_scan, ggml_cuda_op_ssm_scan, true},
    {GGML_OP_GATED_DELTA_NET, sup_gated_delta_net, ggml_cuda_op_gated_delta_net, true},
};
#undef VIEW_ROW
static_assert(ggml_op_rows_complete(k_rows), "the CUDA op table needs one row per ggml_op, in enum order");

}  // namespace

bool ggml_cuda_op_supported(const ggml_cuda_device_info & info, const ggml_tensor * op) {
    if (!op || (int) op->op < 0 || op->op >= GGML_OP_COUNT) {
        return false;
    }
    const cuda_op_row & row = k_rows[op->op];
    return row.supports && row.supports(info, op) && (!row.elementwise || all_aligned(op));
}

bool ggml_cuda_op_run(ggml_cuda_op_ctx & ctx, ggml_tensor * node) {
    const cuda_op_row * row = (int) node->op >= 0 && node->op < GGML_OP_COUNT ? &k_rows[node->op] : nullptr;
    if (!row || !row->run) {
        GGML_LOG_ERROR("%s: %s: op %s has no CUDA kernel\n", __func__, node->name, ggml_op_name(node->op));
        return false;
    }
    if (row->elementwise && ggml_nelements(node) == 0) {
        return true;  // nothing to write (a zero-sized grid would be a launch error)
    }
    return row->run(ctx, node);
}
