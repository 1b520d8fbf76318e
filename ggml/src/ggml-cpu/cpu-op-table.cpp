// The CPU backend's op table: one row per ggml_op (what it supports, the kernel that runs it, its
// scratch size and cost, whether threads may run on into the next node without a barrier) —
// checked against the core table at compile time. `supports` is the exact set of (op, types, layouts)
// the kernels handle: the scheduler relies on it to fall back or fail cleanly, so it must never say
// yes to something a kernel rejects.
#include "cpu-op-table.h"

#include "ggml-op-rows.h"
#include "ggml-ssm-nodes.h"

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
    if (ggml_is_quantized(src->type)) {
        // dequantized by whole rows (a strided view of block-aligned rows included)
        return op->type == GGML_TYPE_F32 && ggml_cpu_can_to_float(src->type) && quant_rows_ok(src);
    }
    if (!is_f(src))
        return false;
    if (is_f(op))
        return true;
    return ggml_is_quantized(op->type) && ggml_cpu_can_from_float(op->type) && quant_rows_ok(op);
}

// ---- supports, one predicate per op or family -----------------------------------------------------

bool yes(const ggml_tensor *) {
    return true;
}
bool supports_concat(const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1];
    return a && b && a->type == op->type && b->type == op->type && !ggml_is_quantized(op->type) &&
           ggml_get_op_params_i32(op, 0) >= 0 && ggml_get_op_params_i32(op, 0) < 4;
}
bool supports_binary(const ggml_tensor * op) {
    return is_f(op->src[0]) && is_f(op->src[1]) && is_f(op);
}
bool supports_map(const ggml_tensor * op) {  // SQR, SQRT, SCALE, CLAMP, SUM_ROWS, MEAN, the norms
    return is_f(op->src[0]) && is_f(op);
}
bool supports_unary(const ggml_tensor * op) {
    return supports_map(op) && ggml_get_unary_op(op) >= 0 && ggml_get_unary_op(op) < GGML_UNARY_OP_COUNT;
}
bool supports_glu(const ggml_tensor * op) {
    const ggml_tensor * b = op->src[1];
    return supports_map(op) && (!b || is_f(b)) && ggml_get_glu_op(op) >= 0 && ggml_get_glu_op(op) < GGML_GLU_OP_COUNT;
}
bool supports_argmax(const ggml_tensor * op) {
    const ggml_tensor * a = op->src[0];
    return a && a->type == GGML_TYPE_F32 && op->type == GGML_TYPE_I32 && a->ne[2] == 1 && a->ne[3] == 1 && a->ne[0] > 0;
}
bool supports_mul_mat(const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1];
    return a && b && ggml_cpu_mul_mat_supported(a) && unit_stride(a) && is_f(b) && op->type == GGML_TYPE_F32 &&
           op->nb[0] == 4;
}
bool supports_mul_mat_id(const ggml_tensor * op) {
    return supports_mul_mat(op) && op->src[2] && op->src[2]->type == GGML_TYPE_I32;
}
bool supports_get_rows(const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1];
    if (!a || !b || b->type != GGML_TYPE_I32)
        return false;
    if (ggml_is_quantized(a->type))
        return ggml_cpu_can_to_float(a->type) && quant_rows_ok(a) && is_f(op);
    return a->type == op->type ? !ggml_is_quantized(a->type) : (is_f(a) && is_f(op));
}
bool supports_set_rows(const ggml_tensor * op) {
    if (!is_f(op->src[0]) || !is_idx(op->src[1]))
        return false;
    if (ggml_is_quantized(op->type))
        return ggml_cpu_can_from_float(op->type) && quant_rows_ok(op);
    return is_f(op);
}
bool supports_rope(const ggml_tensor * op) {
    return ggml_rope_node_plain(op);  // ggml-impl.h: the same rule as the other backend
}
bool supports_soft_max(const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *b = op->src[1];
    return a && is_f(a) && op->type == GGML_TYPE_F32 && op->nb[0] == 4 &&
           (!b || b->type == GGML_TYPE_F32 || b->type == GGML_TYPE_F16);
}
bool supports_flash_attn(const ggml_tensor * op) {
    const ggml_tensor *a = op->src[0], *k = op->src[1], *v = op->src[2], *mask = op->src[3];
    auto               kv_ok = [](const ggml_tensor * t) {
        return is_f(t) || (t && ggml_is_quantized(t->type) && ggml_cpu_can_to_float(t->type) && quant_rows_ok(t));
    };
    return a && a->type == GGML_TYPE_F32 && kv_ok(k) && kv_ok(v) && op->type == GGML_TYPE_F32 && op->nb[0] == 4 &&
           (!mask || mask->type == GGML_TYPE_F32 || mask->type == GGML_TYPE_F16) && k->ne[2] > 0 &&
           a->ne[2] % k->ne[2] == 0 && k->ne[2] == v->ne[2];
}
bool supports_argsort(const ggml_tensor * op) {
    return is_f(op->src[0]) && op->type == GGML_TYPE_I32 && op->nb[0] == 4;
}

// The recurrent ops (ops-ssm.cpp): the rule the CUDA table shares (ggml-ssm-nodes.h)
bool supports_ssm_conv(const ggml_tensor * op) {
    return ggml_ssm_conv_node_ok(op);
}
bool supports_ssm_scan(const ggml_tensor * op) {
    return ggml_ssm_scan_node_ok(op);
}
bool supports_gated_delta_net(const ggml_tensor * op) {
    return ggml_gated_delta_net_node_ok(op);
}

// ---- cost: rough multiply-adds of a node, to decide whether extra threads pay for their barriers ----

double cost_elem(const ggml_tensor * t) {  // a few operations per element
    return 2 * (double) cpu_nelements(t);
}
double cost_elem_heavy(const ggml_tensor * t) {  // exp / tanh / trig per element
    return 8 * (double) cpu_nelements(t);
}
double cost_mul_mat(const ggml_tensor * t) {
    return (double) cpu_nelements(t) * (double) t->src[0]->ne[0];
}
double cost_flash_attn(const ggml_tensor * t) {
    return (double) cpu_nrows(t->src[0]) * (double) t->src[1]->ne[1] * (double) (t->src[0]->ne[0] + t->src[2]->ne[0]);
}
// the rows written, not the destination (a KV cache write would count the whole cache, O(n_ctx), and a
// small batch would get extra threads it cannot use)
double cost_ssm_scan(const ggml_tensor * t) {  // per token, head and channel: d_state updates and products
    return 4 * (double) cpu_nelements(t->src[1]) * (double) t->src[0]->ne[0];
}
double cost_gated_delta_net(const ggml_tensor * t) {  // per token and head: four passes over the S x S state
    return 4 * (double) cpu_nelements(t->src[2]) * (double) t->src[2]->ne[0];
}
double cost_ssm_conv(const ggml_tensor * t) {
    return 2 * (double) cpu_nelements(t) * (double) t->src[1]->ne[0];
}
double cost_set_rows(const ggml_tensor * t) {
    return 2 * (double) cpu_nelements(t->src[0]);
}

// ---- the table ------------------------------------------------------------------------------------

using P = cpu_prof;
// A no-op row: a view or a leaf, nothing runs.
#define NOOP_ROW(OP) \
    { GGML_OP_##OP, yes, nullptr, nullptr, nullptr, false, P::none }

// op, supports, run, work_size, cost, light, profile
constexpr ggml_cpu_op_row k_rows[] = {
    NOOP_ROW(NONE),
    {GGML_OP_DUP, supports_copy, ggml_cpu_op_dup, ggml_cpu_copy_work_size, cost_elem, true, P::none},
    {GGML_OP_ADD, supports_binary, ggml_cpu_op_binary<GGML_OP_ADD>, nullptr, cost_elem, true, P::fused},
    {GGML_OP_SUB, supports_binary, ggml_cpu_op_binary<GGML_OP_SUB>, nullptr, cost_elem, true, P::none},
    {GGML_OP_MUL, supports_binary, ggml_cpu_op_binary<GGML_OP_MUL>, nullptr, cost_elem, true, P::none},
    {GGML_OP_DIV, supports_binary, ggml_cpu_op_binary<GGML_OP_DIV>, nullptr, cost_elem, true, P::none},
    {GGML_OP_SQR, supports_map, ggml_cpu_op_unary, nullptr, cost_elem, true, P::none},
    {GGML_OP_SQRT, supports_map, ggml_cpu_op_unary, nullptr, cost_elem, true, P::none},
    {GGML_OP_SUM_ROWS, supports_map, ggml_cpu_op_reduce, nullptr, cost_elem, false, P::none},
    {GGML_OP_MEAN, supports_map, ggml_cpu_op_reduce, nullptr, cost_elem, false, P::none},
    {GGML_OP_ARGMAX, supports_argmax, ggml_cpu_op_reduce, nullptr, cost_elem, false, P::none},
    {GGML_OP_SCALE, supports_map, ggml_cpu_op_unary, nullptr, cost_elem, true, P::none},
    {GGML_OP_CLAMP, supports_map, ggml_cpu_op_unary, nullptr, cost_elem, true, P::none},
    {GGML_OP_NORM, supports_map, ggml_cpu_op_norm, nullptr, cost_elem, true, P::none},
    {GGML_OP_RMS_NORM, supports_map, ggml_cpu_op_norm, nullptr, cost_elem, true, P::fused},
    {GGML_OP_MUL_MAT, supports_mul_mat, ggml_cpu_op_mul_mat, ggml_cpu_mul_mat_work_size, cost_mul_mat, false, P::src0},
    {GGML_OP_MUL_MAT_ID, supports_mul_mat_id, ggml_cpu_op_mul_mat_id, ggml_cpu_mul_mat_id_work_size, cost_mul_mat,
     false, P::src0},
    {GGML_OP_GET_ROWS, supports_get_rows, ggml_cpu_op_get_rows, ggml_cpu_get_rows_work_size, cost_elem, true, P::src0},
    {GGML_OP_SET_ROWS, supports_set_rows, ggml_cpu_op_set_rows, ggml_cpu_set_rows_work_size, cost_set_rows, true,
     P::dst},
    {GGML_OP_CPY, supports_copy, ggml_cpu_op_dup, ggml_cpu_copy_work_size, cost_elem, true, P::none},
    {GGML_OP_CONT, supports_copy, ggml_cpu_op_dup, ggml_cpu_copy_work_size, cost_elem, true, P::none},
    NOOP_ROW(RESHAPE),
    NOOP_ROW(VIEW),
    NOOP_ROW(PERMUTE),
    NOOP_ROW(TRANSPOSE),
    {GGML_OP_CONCAT, supports_concat, ggml_cpu_op_concat, nullptr, cost_elem, false, P::none},
    {GGML_OP_ROPE, supports_rope, ggml_cpu_op_rope, nullptr, cost_elem_heavy, true, P::none},
    {GGML_OP_SOFT_MAX, supports_soft_max, ggml_cpu_op_soft_max, nullptr, cost_elem_heavy, true, P::none},
    {GGML_OP_FLASH_ATTN_EXT, supports_flash_attn, ggml_cpu_op_flash_attn, ggml_cpu_flash_attn_work_size,
     cost_flash_attn, false, P::src1},
    {GGML_OP_ARGSORT, supports_argsort, ggml_cpu_op_argsort, nullptr, cost_elem, false, P::none},
    {GGML_OP_UNARY, supports_unary, ggml_cpu_op_unary, nullptr, cost_elem_heavy, true, P::none},
    {GGML_OP_GLU, supports_glu, ggml_cpu_op_glu, nullptr, cost_elem_heavy, true, P::none},
    {GGML_OP_L2_NORM, supports_map, ggml_cpu_op_norm, nullptr, cost_elem, true, P::none},
    {GGML_OP_SSM_CONV, supports_ssm_conv, ggml_cpu_op_ssm_conv, nullptr, cost_ssm_conv, true, P::none},
    {GGML_OP_SSM_SCAN, supports_ssm_scan, ggml_cpu_op_ssm_scan, nullptr, cost_ssm_scan, true, P::none},
    // not light: its per-thread slots have their own stride, which a light neighbour's slots would overlap
    {GGML_OP_GATED_DELTA_NET, supports_gated_delta_net, ggml_cpu_op_gated_delta_net, ggml_cpu_gated_delta_net_work_size,
     cost_gated_delta_net, false, P::none},
};
#undef NOOP_ROW
static_assert(ggml_op_rows_complete(k_rows), "the CPU op table needs one row per ggml_op, in enum order");

}  // namespace

const ggml_cpu_op_row & ggml_cpu_op_row_of(ggml_op op) {
    return k_rows[(int) op >= 0 && op < GGML_OP_COUNT ? op : GGML_OP_NONE];
}

extern "C" bool ggml_cpu_supports_op(const ggml_tensor * op) {
    if (!op || (int) op->op < 0 || op->op >= GGML_OP_COUNT)
        return false;
    const ggml_cpu_op_row & row = k_rows[op->op];
    return row.supports && row.supports(op);
}
