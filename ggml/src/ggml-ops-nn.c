// Op constructors of the network ops: matrix products, row gathers, concat, rope, softmax, attention,
// sorting. Same rules as ggml-ops.c; the src[] layout is tabulated at the top of ggml.c.
#include <math.h>

#include "ggml-core.h"

#define op_fail ggml_op_fail

static bool is_weight_type(enum ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16 || ggml_is_quantized(t);
}

static bool is_mask_type(enum ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16;
}

struct ggml_tensor * ggml_mul_mat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    if (!a || !b) {
        return NULL;
    }
    if (!is_weight_type(a->type)) {
        return op_fail("mul_mat", "a has unsupported type %s", ggml_type_name(a->type));
    }
    if (b->type != GGML_TYPE_F32) {
        return op_fail("mul_mat", "b must be F32, got %s", ggml_type_name(b->type));
    }
    if (a->ne[0] != b->ne[0]) {
        return op_fail("mul_mat", "inner dimensions differ: a " GGML_SHAPE_FMT ", b " GGML_SHAPE_FMT, GGML_SHAPE_ARG(a),
                       GGML_SHAPE_ARG(b));
    }
    if (a->ne[2] == 0 || a->ne[3] == 0 || b->ne[2] % a->ne[2] != 0 || b->ne[3] % a->ne[3] != 0) {
        return op_fail("mul_mat", "a " GGML_SHAPE_FMT " cannot be broadcast over dims 2, 3 of b " GGML_SHAPE_FMT,
                       GGML_SHAPE_ARG(a), GGML_SHAPE_ARG(b));
    }
    if (!ggml_is_contiguous_rows(a)) {
        return op_fail("mul_mat", "rows of a must be contiguous (nb[0] = %zu, type size %zu)", a->nb[0],
                       ggml_type_size(a->type));
    }
    const int64_t        ne[4] = {a->ne[1], b->ne[1], b->ne[2], b->ne[3]};
    struct ggml_tensor * r     = ggml_new_op_result(ctx, GGML_TYPE_F32, ne, GGML_OP_MUL_MAT, "mul_mat");
    if (r) {
        r->src[0] = a;
        r->src[1] = b;
    }
    return r;
}

struct ggml_tensor * ggml_mul_mat_id(struct ggml_context * ctx, struct ggml_tensor * as, struct ggml_tensor * b,
                                     struct ggml_tensor * ids) {
    if (!as || !b || !ids) {
        return NULL;
    }
    if (!is_weight_type(as->type)) {
        return op_fail("mul_mat_id", "as has unsupported type %s", ggml_type_name(as->type));
    }
    if (b->type != GGML_TYPE_F32) {
        return op_fail("mul_mat_id", "b must be F32, got %s", ggml_type_name(b->type));
    }
    if (ids->type != GGML_TYPE_I32) {
        return op_fail("mul_mat_id", "ids must be I32, got %s", ggml_type_name(ids->type));
    }
    if (as->ne[3] != 1 || b->ne[3] != 1 || ids->ne[2] != 1 || ids->ne[3] != 1) {
        return op_fail("mul_mat_id",
                       "as " GGML_SHAPE_FMT " and b " GGML_SHAPE_FMT " must be 3-D, ids " GGML_SHAPE_FMT " 2-D",
                       GGML_SHAPE_ARG(as), GGML_SHAPE_ARG(b), GGML_SHAPE_ARG(ids));
    }
    if (as->ne[0] != b->ne[0]) {
        return op_fail("mul_mat_id", "inner dimensions differ: as " GGML_SHAPE_FMT ", b " GGML_SHAPE_FMT,
                       GGML_SHAPE_ARG(as), GGML_SHAPE_ARG(b));
    }
    if (ids->ne[1] != b->ne[2]) {
        return op_fail("mul_mat_id", "ids " GGML_SHAPE_FMT " must have one column per token of b " GGML_SHAPE_FMT,
                       GGML_SHAPE_ARG(ids), GGML_SHAPE_ARG(b));
    }
    if (b->ne[1] != 1 && b->ne[1] != ids->ne[0]) {
        return op_fail("mul_mat_id", "b " GGML_SHAPE_FMT " must have 1 or n_used = %lld rows per token",
                       GGML_SHAPE_ARG(b), (long long) ids->ne[0]);
    }
    if (!ggml_is_contiguous_rows(as)) {
        return op_fail("mul_mat_id", "rows of as must be contiguous");
    }
    const int64_t        ne[4] = {as->ne[1], ids->ne[0], b->ne[2], 1};
    struct ggml_tensor * r     = ggml_new_op_result(ctx, GGML_TYPE_F32, ne, GGML_OP_MUL_MAT_ID, "mul_mat_id");
    if (r) {
        r->src[0] = as;
        r->src[1] = b;
        r->src[2] = ids;
    }
    return r;
}

struct ggml_tensor * ggml_get_rows(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * ids) {
    if (!a || !ids) {
        return NULL;
    }
    if (!is_weight_type(a->type) && a->type != GGML_TYPE_I32) {
        return op_fail("get_rows", "a has unsupported type %s", ggml_type_name(a->type));
    }
    if (ids->type != GGML_TYPE_I32) {
        return op_fail("get_rows", "ids must be I32, got %s", ggml_type_name(ids->type));
    }
    if (ids->ne[1] != a->ne[2] || ids->ne[2] != a->ne[3] || ids->ne[3] != 1) {
        return op_fail("get_rows", "ids " GGML_SHAPE_FMT " must be [n, A2, A3] for a " GGML_SHAPE_FMT,
                       GGML_SHAPE_ARG(ids), GGML_SHAPE_ARG(a));
    }
    const enum ggml_type type  = a->type == GGML_TYPE_I32 ? GGML_TYPE_I32 : GGML_TYPE_F32;
    const int64_t        ne[4] = {a->ne[0], ids->ne[0], a->ne[2], a->ne[3]};
    struct ggml_tensor * r     = ggml_new_op_result(ctx, type, ne, GGML_OP_GET_ROWS, "get_rows");
    if (r) {
        r->src[0] = a;
        r->src[1] = ids;
    }
    return r;
}

struct ggml_tensor * ggml_concat(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b, int dim) {
    if (!a || !b) {
        return NULL;
    }
    if (dim < 0 || dim >= GGML_MAX_DIMS) {
        return op_fail("concat", "dim must be in [0, 3], got %d", dim);
    }
    if (a->type != b->type) {
        return op_fail("concat", "a and b must have the same type, got %s and %s", ggml_type_name(a->type),
                       ggml_type_name(b->type));
    }
    if (a->type != GGML_TYPE_F32 && a->type != GGML_TYPE_F16 && a->type != GGML_TYPE_I32) {
        return op_fail("concat", "unsupported type %s", ggml_type_name(a->type));
    }
    int64_t ne[4];
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (i != dim && a->ne[i] != b->ne[i]) {
            return op_fail("concat", "a " GGML_SHAPE_FMT " and b " GGML_SHAPE_FMT " differ outside dim %d",
                           GGML_SHAPE_ARG(a), GGML_SHAPE_ARG(b), dim);
        }
        ne[i] = i == dim ? a->ne[i] + b->ne[i] : a->ne[i];
    }
    struct ggml_tensor * r = ggml_new_op_result(ctx, a->type, ne, GGML_OP_CONCAT, "concat");
    if (r) {
        r->src[0]       = a;
        r->src[1]       = b;
        r->op_params[0] = dim;
    }
    return r;
}

struct ggml_tensor * ggml_rope_ext(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * pos,
                                   struct ggml_tensor * freq_factors, int n_dims, int mode, int n_ctx_orig,
                                   float freq_base, float freq_scale, float ext_factor, float attn_factor,
                                   float beta_fast, float beta_slow) {
    if (!a || !pos) {
        return NULL;
    }
    if (a->type != GGML_TYPE_F32 && a->type != GGML_TYPE_F16) {
        return op_fail("rope", "a must be F32 or F16, got %s", ggml_type_name(a->type));
    }
    if (a->ne[3] != 1) {
        return op_fail("rope", "a " GGML_SHAPE_FMT " must be [head_dim, n_head, n_tokens, 1]", GGML_SHAPE_ARG(a));
    }
    if (pos->type != GGML_TYPE_I32) {
        return op_fail("rope", "pos must be I32, got %s", ggml_type_name(pos->type));
    }
    if (pos->ne[1] != 1 || pos->ne[2] != 1 || pos->ne[3] != 1 || pos->ne[0] != a->ne[2]) {
        return op_fail("rope", "pos " GGML_SHAPE_FMT " must be a vector of n_tokens = %lld positions",
                       GGML_SHAPE_ARG(pos), (long long) a->ne[2]);
    }
    if (n_dims <= 0 || n_dims % 2 != 0 || n_dims > a->ne[0]) {
        return op_fail("rope", "n_dims = %d must be even, positive and <= head_dim = %lld", n_dims,
                       (long long) a->ne[0]);
    }
    if (mode != GGML_ROPE_TYPE_NORMAL && mode != GGML_ROPE_TYPE_NEOX) {
        return op_fail("rope", "unknown mode %d (expected GGML_ROPE_TYPE_NORMAL or GGML_ROPE_TYPE_NEOX)", mode);
    }
    if (freq_factors) {
        if (freq_factors->type != GGML_TYPE_F32) {
            return op_fail("rope", "freq_factors must be F32, got %s", ggml_type_name(freq_factors->type));
        }
        if (freq_factors->ne[0] < n_dims / 2 || ggml_nelements(freq_factors) != freq_factors->ne[0]) {
            return op_fail("rope", "freq_factors " GGML_SHAPE_FMT " must be a vector of >= n_dims/2 = %d values",
                           GGML_SHAPE_ARG(freq_factors), n_dims / 2);
        }
    }
    if (!(freq_base > 0.0f) || !isfinite(freq_base) || !(freq_scale > 0.0f) || !isfinite(freq_scale)) {
        return op_fail("rope", "freq_base (%g) and freq_scale (%g) must be positive and finite", (double) freq_base,
                       (double) freq_scale);
    }
    if (!isfinite(ext_factor) || !isfinite(attn_factor) || !isfinite(beta_fast) || !isfinite(beta_slow)) {
        return op_fail("rope", "ext_factor, attn_factor, beta_fast and beta_slow must be finite");
    }
    struct ggml_tensor * r = ggml_new_op_result(ctx, a->type, a->ne, GGML_OP_ROPE, "rope");
    if (!r) {
        return NULL;
    }
    r->src[0]       = a;
    r->src[1]       = pos;
    r->src[2]       = freq_factors;
    r->op_params[0] = 0;
    r->op_params[1] = n_dims;
    r->op_params[2] = mode;
    r->op_params[3] = 0;
    r->op_params[4] = n_ctx_orig;
    ggml_set_op_params_f32(r, 5, freq_base);
    ggml_set_op_params_f32(r, 6, freq_scale);
    ggml_set_op_params_f32(r, 7, ext_factor);
    ggml_set_op_params_f32(r, 8, attn_factor);
    ggml_set_op_params_f32(r, 9, beta_fast);
    ggml_set_op_params_f32(r, 10, beta_slow);
    return r;
}

struct ggml_tensor * ggml_rope(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * pos, int n_dims,
                               int mode) {
    return ggml_rope_ext(ctx, a, pos, NULL, n_dims, mode, 0, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
}

struct ggml_tensor * ggml_soft_max_ext(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * mask,
                                       float scale, float max_bias) {
    if (!a) {
        return NULL;
    }
    if (a->type != GGML_TYPE_F32) {
        return op_fail("soft_max", "a must be F32, got %s", ggml_type_name(a->type));
    }
    if (mask) {
        if (!is_mask_type(mask->type)) {
            return op_fail("soft_max", "mask must be F16 or F32, got %s", ggml_type_name(mask->type));
        }
        if (mask->ne[0] != a->ne[0] || mask->ne[1] < a->ne[1] || mask->ne[2] == 0 || mask->ne[3] == 0 ||
            a->ne[2] % mask->ne[2] != 0 || a->ne[3] % mask->ne[3] != 0) {
            return op_fail("soft_max",
                           "mask " GGML_SHAPE_FMT " does not fit a " GGML_SHAPE_FMT
                           " (need [ne0, >= ne1, divisor of ne2, divisor of ne3])",
                           GGML_SHAPE_ARG(mask), GGML_SHAPE_ARG(a));
        }
    }
    if (!isfinite(scale)) {
        return op_fail("soft_max", "scale must be finite, got %g", (double) scale);
    }
    if (!(max_bias >= 0.0f) || !isfinite(max_bias)) {
        return op_fail("soft_max", "max_bias must be finite and >= 0, got %g", (double) max_bias);
    }
    struct ggml_tensor * r = ggml_new_op_result(ctx, GGML_TYPE_F32, a->ne, GGML_OP_SOFT_MAX, "soft_max");
    if (r) {
        r->src[0] = a;
        r->src[1] = mask;
        ggml_set_op_params_f32(r, 0, scale);
        ggml_set_op_params_f32(r, 1, max_bias);
    }
    return r;
}

struct ggml_tensor * ggml_soft_max(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ggml_soft_max_ext(ctx, a, NULL, 1.0f, 0.0f);
}

struct ggml_tensor * ggml_flash_attn_ext(struct ggml_context * ctx, struct ggml_tensor * q, struct ggml_tensor * k,
                                         struct ggml_tensor * v, struct ggml_tensor * mask, float scale, float max_bias,
                                         float softcap) {
    if (!q || !k || !v) {
        return NULL;
    }
    if (q->type != GGML_TYPE_F32) {
        return op_fail("flash_attn_ext", "q must be F32, got %s", ggml_type_name(q->type));
    }
    if (!ggml_type_is_kv_cache(k->type) || !ggml_type_is_kv_cache(v->type)) {
        return op_fail("flash_attn_ext", "k and v must be F32/F16/BF16/Q8_0/Q4_0/Q4_1/Q5_0/Q5_1/IQ4_NL, got %s and %s",
                       ggml_type_name(k->type), ggml_type_name(v->type));
    }
    if (k->ne[0] != q->ne[0]) {
        return op_fail("flash_attn_ext", "head sizes differ: q " GGML_SHAPE_FMT ", k " GGML_SHAPE_FMT,
                       GGML_SHAPE_ARG(q), GGML_SHAPE_ARG(k));
    }
    if (v->ne[1] != k->ne[1] || v->ne[2] != k->ne[2] || v->ne[3] != k->ne[3]) {
        return op_fail("flash_attn_ext",
                       "k " GGML_SHAPE_FMT " and v " GGML_SHAPE_FMT " must agree in n_kv, n_head_kv, ne3",
                       GGML_SHAPE_ARG(k), GGML_SHAPE_ARG(v));
    }
    if (k->ne[2] == 0 || q->ne[2] % k->ne[2] != 0) {
        return op_fail("flash_attn_ext", "n_head = %lld must be a multiple of n_head_kv = %lld", (long long) q->ne[2],
                       (long long) k->ne[2]);
    }
    if (k->ne[3] == 0 || q->ne[3] % k->ne[3] != 0) {
        return op_fail("flash_attn_ext", "q " GGML_SHAPE_FMT " and k " GGML_SHAPE_FMT " disagree in dim 3",
                       GGML_SHAPE_ARG(q), GGML_SHAPE_ARG(k));
    }
    if (mask) {
        if (!is_mask_type(mask->type)) {
            return op_fail("flash_attn_ext", "mask must be F16 or F32, got %s", ggml_type_name(mask->type));
        }
        if (mask->ne[0] != k->ne[1] || mask->ne[1] < q->ne[1] || (mask->ne[2] != 1 && mask->ne[2] != q->ne[2]) ||
            (mask->ne[3] != 1 && mask->ne[3] != q->ne[3])) {
            return op_fail("flash_attn_ext",
                           "mask " GGML_SHAPE_FMT " must be [n_kv = %lld, >= n_q = %lld, 1 or n_head, 1 or ne3]",
                           GGML_SHAPE_ARG(mask), (long long) k->ne[1], (long long) q->ne[1]);
        }
    }
    if (!isfinite(scale) || !(max_bias >= 0.0f) || !isfinite(max_bias) || !(softcap >= 0.0f) || !isfinite(softcap)) {
        return op_fail("flash_attn_ext", "scale must be finite, max_bias and softcap finite and >= 0 (got %g, %g, %g)",
                       (double) scale, (double) max_bias, (double) softcap);
    }
    const int64_t        ne[4] = {v->ne[0], q->ne[2], q->ne[1], q->ne[3]};
    struct ggml_tensor * r     = ggml_new_op_result(ctx, GGML_TYPE_F32, ne, GGML_OP_FLASH_ATTN_EXT, "flash_attn_ext");
    if (r) {
        r->src[0] = q;
        r->src[1] = k;
        r->src[2] = v;
        r->src[3] = mask;
        ggml_set_op_params_f32(r, 0, scale);
        ggml_set_op_params_f32(r, 1, max_bias);
        ggml_set_op_params_f32(r, 2, softcap);
    }
    return r;
}

static struct ggml_tensor * argsort_impl(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_sort_order order,
                                         const char * who) {
    if (!a) {
        return NULL;
    }
    if (a->type != GGML_TYPE_F32) {
        return op_fail(who, "a must be F32, got %s", ggml_type_name(a->type));
    }
    if (order != GGML_SORT_ORDER_ASC && order != GGML_SORT_ORDER_DESC) {
        return op_fail(who, "invalid sort order %d", (int) order);
    }
    struct ggml_tensor * r = ggml_new_op_result(ctx, GGML_TYPE_I32, a->ne, GGML_OP_ARGSORT, who);
    if (r) {
        r->src[0]       = a;
        r->op_params[0] = (int32_t) order;
    }
    return r;
}

struct ggml_tensor * ggml_argsort(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_sort_order order) {
    return argsort_impl(ctx, a, order, "argsort");
}

struct ggml_tensor * ggml_top_k(struct ggml_context * ctx, struct ggml_tensor * a, int k) {
    if (!a) {
        return NULL;
    }
    if (k < 1 || k > a->ne[0]) {
        return op_fail("top_k", "k = %d must be in [1, %lld]", k, (long long) a->ne[0]);
    }
    struct ggml_tensor * s = argsort_impl(ctx, a, GGML_SORT_ORDER_DESC, "top_k");
    if (!s) {
        return NULL;
    }
    const int64_t        ne[4] = {k, s->ne[1], s->ne[2], s->ne[3]};
    struct ggml_tensor * r     = ggml_make_view(ctx, s, ne, s->nb, 0, GGML_OP_VIEW, "top_k");
    if (r) {
        const size_t zero = 0;
        memcpy(r->op_params, &zero, sizeof(zero));
    }
    return r;
}
