// Op constructors: validate the arguments, then record the op on a new tensor (or a view).
// The src[] layout and op params of every op are tabulated at the top of ggml.c; keep them in sync.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "ggml-core.h"

struct ggml_tensor * ggml_op_fail(const char * op, const char * fmt, ...) {
    char    msg[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(msg, sizeof(msg), fmt, args);
    va_end(args);
    GGML_LOG_ERROR("[%s] %s", op, msg);
    return NULL;
}
#define op_fail ggml_op_fail

static bool is_float_type(enum ggml_type t) {
    return t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16;
}

struct ggml_tensor * ggml_new_op_result(struct ggml_context * ctx, enum ggml_type type, const int64_t ne[4],
                                        enum ggml_op op, const char * who) {
    struct ggml_tensor * r = ggml_new_tensor_impl(ctx, type, GGML_MAX_DIMS, ne, NULL, 0, who);
    if (r) {
        r->op = op;
    }
    return r;
}

// Bytes spanned by a tensor of this type/shape/strides (ggml_nbytes on raw values), overflow-checked.
static bool span_bytes(enum ggml_type type, const int64_t ne[4], const size_t nb[4], uint64_t * out) {
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (ne[i] <= 0) {
            *out = 0;
            return true;
        }
    }
    const int64_t blck = ggml_blck_size(type);
    uint64_t      n    = 0;
    if (blck == 1) {
        n = ggml_type_size(type);
    } else if (!ggml_mul_overflow_u64((uint64_t) (ne[0] / blck), nb[0], &n)) {
        return false;
    }
    for (int i = blck == 1 ? 0 : 1; i < GGML_MAX_DIMS; i++) {
        uint64_t step;
        if (!ggml_mul_overflow_u64((uint64_t) (ne[i] - 1), nb[i], &step) || !ggml_add_overflow_u64(n, step, &n)) {
            return false;
        }
    }
    *out = n;
    return true;
}

// A view of a with the given shape and strides, `offs` bytes into a. The window must lie inside
// a's ultimate view_src (the memory that really exists).
struct ggml_tensor * ggml_make_view(struct ggml_context * ctx, struct ggml_tensor * a, const int64_t ne[4],
                                    const size_t nb[4], size_t offs, enum ggml_op op, const char * who) {
    struct ggml_tensor * src = a->view_src ? a->view_src : a;
    uint64_t             total;
    uint64_t             span;
    if (!ggml_add_overflow_u64(a->view_offs, offs, &total) || !span_bytes(a->type, ne, nb, &span) ||
        !ggml_add_overflow_u64(total, span, &span) || span > ggml_nbytes(src) || total > ggml_nbytes(src)) {
        return op_fail(who,
                       "window " GGML_SHAPE_FMT
                       " at offset %zu (strides %zu, %zu, %zu, %zu) exceeds the %zu bytes of "
                       "the viewed tensor",
                       (long long) ne[0], (long long) ne[1], (long long) ne[2], (long long) ne[3], offs, nb[0], nb[1],
                       nb[2], nb[3], ggml_nbytes(src));
    }
    struct ggml_tensor * r = ggml_new_tensor_impl(ctx, a->type, GGML_MAX_DIMS, ne, src, (size_t) total, who);
    if (!r) {
        return NULL;
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        r->nb[i] = nb[i];
    }
    r->op     = op;
    r->src[0] = a;
    return r;
}

// ---------------------------------------------------------------------------------------------
// views, reshapes, copies

struct ggml_tensor * ggml_view_tensor(struct ggml_context * ctx, struct ggml_tensor * src) {
    if (!src) {
        return NULL;
    }
    struct ggml_tensor * r = ggml_make_view(ctx, src, src->ne, src->nb, 0, GGML_OP_VIEW, "view_tensor");
    if (r) {
        const size_t zero = 0;
        memcpy(r->op_params, &zero, sizeof(zero));
    }
    return r;
}

static struct ggml_tensor * view_impl(struct ggml_context * ctx, struct ggml_tensor * a, int n_dims,
                                      const int64_t * ne_in, const size_t * nb_in, size_t offset) {
    if (!a) {
        return NULL;
    }
    int64_t       ne[4] = {1, 1, 1, 1};
    size_t        nb[4];
    const int64_t blck = ggml_blck_size(a->type);
    for (int i = 0; i < n_dims; i++) {
        if (ne_in[i] < 0) {
            return op_fail("view", "ne[%d] = %lld is negative", i, (long long) ne_in[i]);
        }
        ne[i] = ne_in[i];
    }
    if (ne[0] % blck != 0) {
        return op_fail("view", "ne[0] = %lld is not a multiple of the %s block size", (long long) ne[0],
                       ggml_type_name(a->type));
    }
    nb[0]                  = ggml_type_size(a->type);
    nb[1]                  = n_dims > 1 ? nb_in[0] : nb[0] * (size_t) (ne[0] / blck);
    nb[2]                  = n_dims > 2 ? nb_in[1] : nb[1] * (size_t) ne[1];
    nb[3]                  = n_dims > 3 ? nb_in[2] : nb[2] * (size_t) ne[2];
    struct ggml_tensor * r = ggml_make_view(ctx, a, ne, nb, offset, GGML_OP_VIEW, "view");
    if (r) {
        memcpy(r->op_params, &offset, sizeof(offset));
    }
    return r;
}

struct ggml_tensor * ggml_view_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, size_t offset) {
    return view_impl(ctx, a, 1, &ne0, NULL, offset);
}

struct ggml_tensor * ggml_view_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                  size_t nb1, size_t offset) {
    const int64_t ne[2] = {ne0, ne1};
    const size_t  nb[1] = {nb1};
    return view_impl(ctx, a, 2, ne, nb, offset);
}

struct ggml_tensor * ggml_view_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                  int64_t ne2, size_t nb1, size_t nb2, size_t offset) {
    const int64_t ne[3] = {ne0, ne1, ne2};
    const size_t  nb[2] = {nb1, nb2};
    return view_impl(ctx, a, 3, ne, nb, offset);
}

struct ggml_tensor * ggml_view_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                  int64_t ne2, int64_t ne3, size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    const int64_t ne[4] = {ne0, ne1, ne2, ne3};
    const size_t  nb[3] = {nb1, nb2, nb3};
    return view_impl(ctx, a, 4, ne, nb, offset);
}

static struct ggml_tensor * reshape_impl(struct ggml_context * ctx, struct ggml_tensor * a, int n_dims,
                                         const int64_t * ne_in) {
    if (!a) {
        return NULL;
    }
    if (!ggml_is_contiguous(a)) {
        return op_fail("reshape", "a " GGML_SHAPE_FMT " must be contiguous (use ggml_cont first)", GGML_SHAPE_ARG(a));
    }
    int64_t  ne[4] = {1, 1, 1, 1};
    uint64_t n     = 1;
    for (int i = 0; i < n_dims; i++) {
        if (ne_in[i] < 0 || !ggml_mul_overflow_u64(n, (uint64_t) ne_in[i], &n)) {
            return op_fail("reshape", "invalid ne[%d] = %lld", i, (long long) ne_in[i]);
        }
        ne[i] = ne_in[i];
    }
    if (n != (uint64_t) ggml_nelements(a)) {
        return op_fail("reshape", "element counts differ: a " GGML_SHAPE_FMT " has %lld, the new shape %llu",
                       GGML_SHAPE_ARG(a), (long long) ggml_nelements(a), (unsigned long long) n);
    }
    const int64_t blck = ggml_blck_size(a->type);
    if (ne[0] % blck != 0) {
        return op_fail("reshape", "ne[0] = %lld is not a multiple of the %s block size", (long long) ne[0],
                       ggml_type_name(a->type));
    }
    size_t nb[4];
    nb[0] = ggml_type_size(a->type);
    nb[1] = nb[0] * (size_t) (ne[0] / blck);
    nb[2] = nb[1] * (size_t) ne[1];
    nb[3] = nb[2] * (size_t) ne[2];
    return ggml_make_view(ctx, a, ne, nb, 0, GGML_OP_RESHAPE, "reshape");
}

struct ggml_tensor * ggml_reshape_1d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0) {
    return reshape_impl(ctx, a, 1, &ne0);
}
struct ggml_tensor * ggml_reshape_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1) {
    const int64_t ne[2] = {ne0, ne1};
    return reshape_impl(ctx, a, 2, ne);
}
struct ggml_tensor * ggml_reshape_3d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                     int64_t ne2) {
    const int64_t ne[3] = {ne0, ne1, ne2};
    return reshape_impl(ctx, a, 3, ne);
}
struct ggml_tensor * ggml_reshape_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                     int64_t ne2, int64_t ne3) {
    const int64_t ne[4] = {ne0, ne1, ne2, ne3};
    return reshape_impl(ctx, a, 4, ne);
}

struct ggml_tensor * ggml_permute(struct ggml_context * ctx, struct ggml_tensor * a, int axis0, int axis1, int axis2,
                                  int axis3) {
    if (!a) {
        return NULL;
    }
    const int axes[4] = {axis0, axis1, axis2, axis3};
    int       seen    = 0;
    for (int i = 0; i < 4; i++) {
        if (axes[i] < 0 || axes[i] > 3 || (seen & (1 << axes[i]))) {
            return op_fail("permute", "axes (%d, %d, %d, %d) are not a permutation of 0..3", axis0, axis1, axis2,
                           axis3);
        }
        seen |= 1 << axes[i];
    }
    int64_t ne[4];
    size_t  nb[4];
    for (int i = 0; i < 4; i++) {
        ne[axes[i]] = a->ne[i];
        nb[axes[i]] = a->nb[i];
    }
    struct ggml_tensor * r = ggml_make_view(ctx, a, ne, nb, 0, GGML_OP_PERMUTE, "permute");
    if (r) {
        for (int i = 0; i < 4; i++) {
            r->op_params[i] = axes[i];
        }
    }
    return r;
}

struct ggml_tensor * ggml_transpose(struct ggml_context * ctx, struct ggml_tensor * a) {
    if (!a) {
        return NULL;
    }
    const int64_t        ne[4] = {a->ne[1], a->ne[0], a->ne[2], a->ne[3]};
    const size_t         nb[4] = {a->nb[1], a->nb[0], a->nb[2], a->nb[3]};
    struct ggml_tensor * r     = ggml_make_view(ctx, a, ne, nb, 0, GGML_OP_TRANSPOSE, "transpose");
    if (r) {
        r->op_params[0] = 1;
        r->op_params[1] = 0;
        r->op_params[2] = 2;
        r->op_params[3] = 3;
    }
    return r;
}

struct ggml_tensor * ggml_dup(struct ggml_context * ctx, struct ggml_tensor * a) {
    if (!a) {
        return NULL;
    }
    struct ggml_tensor * r = ggml_new_op_result(ctx, a->type, a->ne, GGML_OP_DUP, "dup");
    if (r) {
        r->src[0] = a;
    }
    return r;
}

static struct ggml_tensor * cont_impl(struct ggml_context * ctx, struct ggml_tensor * a, const int64_t ne[4]) {
    if (!a) {
        return NULL;
    }
    uint64_t n = 1;
    for (int i = 0; i < 4; i++) {
        if (ne[i] < 0 || !ggml_mul_overflow_u64(n, (uint64_t) ne[i], &n)) {
            return op_fail("cont", "invalid ne[%d] = %lld", i, (long long) ne[i]);
        }
    }
    if (n != (uint64_t) ggml_nelements(a)) {
        return op_fail("cont", "element counts differ: a " GGML_SHAPE_FMT " has %lld, the new shape %llu",
                       GGML_SHAPE_ARG(a), (long long) ggml_nelements(a), (unsigned long long) n);
    }
    struct ggml_tensor * r = ggml_new_op_result(ctx, a->type, ne, GGML_OP_CONT, "cont");
    if (r) {
        r->src[0] = a;
    }
    return r;
}

struct ggml_tensor * ggml_cont(struct ggml_context * ctx, struct ggml_tensor * a) {
    return a ? cont_impl(ctx, a, a->ne) : NULL;
}
struct ggml_tensor * ggml_cont_2d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1) {
    const int64_t ne[4] = {ne0, ne1, 1, 1};
    return cont_impl(ctx, a, ne);
}
struct ggml_tensor * ggml_cont_4d(struct ggml_context * ctx, struct ggml_tensor * a, int64_t ne0, int64_t ne1,
                                  int64_t ne2, int64_t ne3) {
    const int64_t ne[4] = {ne0, ne1, ne2, ne3};
    return cont_impl(ctx, a, ne);
}

struct ggml_tensor * ggml_cpy(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    if (!a || !b) {
        return NULL;
    }
    if (ggml_nelements(a) != ggml_nelements(b)) {
        return op_fail("cpy", "element counts differ: a " GGML_SHAPE_FMT ", b " GGML_SHAPE_FMT, GGML_SHAPE_ARG(a),
                       GGML_SHAPE_ARG(b));
    }
    const bool ok = (is_float_type(a->type) && is_float_type(b->type)) ||
                    (a->type == GGML_TYPE_F32 && ggml_is_quantized(b->type)) ||
                    (ggml_is_quantized(a->type) && b->type == GGML_TYPE_F32);
    if (!ok) {
        return op_fail("cpy", "unsupported conversion %s -> %s", ggml_type_name(a->type), ggml_type_name(b->type));
    }
    // a quantized side is read or written by whole blocks of a row (a strided view of such rows is fine:
    // the rope part of a latent K cache row), never across a block
    const struct ggml_tensor * q = ggml_is_quantized(a->type) ? a : ggml_is_quantized(b->type) ? b : NULL;
    if (q && (q->nb[0] != ggml_type_size(q->type) || q->ne[0] % ggml_blck_size(q->type) != 0)) {
        return op_fail("cpy", "the %s side " GGML_SHAPE_FMT " (nb[0] = %zu) is not made of rows of whole blocks",
                       ggml_type_name(q->type), GGML_SHAPE_ARG(q), q->nb[0]);
    }
    struct ggml_tensor * r = ggml_make_view(ctx, b, b->ne, b->nb, 0, GGML_OP_CPY, "cpy");
    if (r) {
        r->src[0] = a;
        r->src[1] = b;
        ggml_format_name(r, "%s (copy of %s)", b->name, a->name);
    }
    return r;
}

struct ggml_tensor * ggml_set_rows(struct ggml_context * ctx, struct ggml_tensor * dst, struct ggml_tensor * src,
                                   struct ggml_tensor * ids) {
    if (!dst || !src || !ids) {
        return NULL;
    }
    if (!is_float_type(dst->type) && !ggml_is_quantized(dst->type)) {
        return op_fail("set_rows", "dst type %s is not F32/F16/BF16/quantized", ggml_type_name(dst->type));
    }
    if (src->type != GGML_TYPE_F32) {
        return op_fail("set_rows", "src must be F32, got %s", ggml_type_name(src->type));
    }
    if (ids->type != GGML_TYPE_I32 && ids->type != GGML_TYPE_I64) {
        return op_fail("set_rows", "ids must be I32 or I64, got %s", ggml_type_name(ids->type));
    }
    if (dst->ne[0] != src->ne[0]) {
        return op_fail("set_rows", "row lengths differ: dst " GGML_SHAPE_FMT ", src " GGML_SHAPE_FMT,
                       GGML_SHAPE_ARG(dst), GGML_SHAPE_ARG(src));
    }
    if (ids->ne[0] != src->ne[1] || ids->ne[1] != src->ne[2] || ids->ne[2] != src->ne[3] || ids->ne[3] != 1) {
        return op_fail("set_rows", "ids " GGML_SHAPE_FMT " must be [n, S2, S3] for src " GGML_SHAPE_FMT,
                       GGML_SHAPE_ARG(ids), GGML_SHAPE_ARG(src));
    }
    const bool same = src->ne[2] == dst->ne[2] && src->ne[3] == dst->ne[3];
    const bool flat = src->ne[2] == 1 && src->ne[3] == 1;
    if (!same && !flat) {
        return op_fail("set_rows", "src " GGML_SHAPE_FMT " dims 2, 3 must equal dst's " GGML_SHAPE_FMT " or be 1",
                       GGML_SHAPE_ARG(src), GGML_SHAPE_ARG(dst));
    }
    struct ggml_tensor * r = ggml_make_view(ctx, dst, dst->ne, dst->nb, 0, GGML_OP_SET_ROWS, "set_rows");
    if (r) {
        r->src[0] = src;
        r->src[1] = ids;
    }
    return r;
}

// ---------------------------------------------------------------------------------------------
// elementwise

static struct ggml_tensor * binary_impl(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                        enum ggml_op op, const char * who) {
    if (!a || !b) {
        return NULL;
    }
    const bool types_ok = (a->type == GGML_TYPE_F32 && b->type == GGML_TYPE_F32) ||
                          (op == GGML_OP_ADD && a->type == GGML_TYPE_F16 && b->type == GGML_TYPE_F32);
    if (!types_ok) {
        return op_fail(who, "unsupported types a %s, b %s", ggml_type_name(a->type), ggml_type_name(b->type));
    }
    if (!ggml_can_repeat(b, a)) {
        return op_fail(who, "b " GGML_SHAPE_FMT " cannot be broadcast to a " GGML_SHAPE_FMT, GGML_SHAPE_ARG(b),
                       GGML_SHAPE_ARG(a));
    }
    struct ggml_tensor * r = ggml_new_op_result(ctx, a->type, a->ne, op, who);
    if (r) {
        r->src[0] = a;
        r->src[1] = b;
    }
    return r;
}

struct ggml_tensor * ggml_add(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return binary_impl(ctx, a, b, GGML_OP_ADD, "add");
}
struct ggml_tensor * ggml_sub(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return binary_impl(ctx, a, b, GGML_OP_SUB, "sub");
}
struct ggml_tensor * ggml_mul(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return binary_impl(ctx, a, b, GGML_OP_MUL, "mul");
}
struct ggml_tensor * ggml_div(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return binary_impl(ctx, a, b, GGML_OP_DIV, "div");
}

// An F32-only op whose result has a's shape; op params are filled by the caller.
static struct ggml_tensor * f32_map_impl(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_op op,
                                         const char * who) {
    if (!a) {
        return NULL;
    }
    if (a->type != GGML_TYPE_F32) {
        return op_fail(who, "a must be F32, got %s", ggml_type_name(a->type));
    }
    struct ggml_tensor * r = ggml_new_op_result(ctx, GGML_TYPE_F32, a->ne, op, who);
    if (r) {
        r->src[0] = a;
    }
    return r;
}

struct ggml_tensor * ggml_sqr(struct ggml_context * ctx, struct ggml_tensor * a) {
    return f32_map_impl(ctx, a, GGML_OP_SQR, "sqr");
}
struct ggml_tensor * ggml_sqrt(struct ggml_context * ctx, struct ggml_tensor * a) {
    return f32_map_impl(ctx, a, GGML_OP_SQRT, "sqrt");
}

static struct ggml_tensor * reduce_rows_impl(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_op op,
                                             const char * who) {
    if (!a) {
        return NULL;
    }
    if (a->type != GGML_TYPE_F32) {
        return op_fail(who, "a must be F32, got %s", ggml_type_name(a->type));
    }
    const int64_t        ne[4] = {1, a->ne[1], a->ne[2], a->ne[3]};
    struct ggml_tensor * r     = ggml_new_op_result(ctx, GGML_TYPE_F32, ne, op, who);
    if (r) {
        r->src[0] = a;
    }
    return r;
}

struct ggml_tensor * ggml_sum_rows(struct ggml_context * ctx, struct ggml_tensor * a) {
    return reduce_rows_impl(ctx, a, GGML_OP_SUM_ROWS, "sum_rows");
}
struct ggml_tensor * ggml_mean(struct ggml_context * ctx, struct ggml_tensor * a) {
    return reduce_rows_impl(ctx, a, GGML_OP_MEAN, "mean");
}

struct ggml_tensor * ggml_argmax(struct ggml_context * ctx, struct ggml_tensor * a) {
    if (!a) {
        return NULL;
    }
    if (a->type != GGML_TYPE_F32) {
        return op_fail("argmax", "a must be F32, got %s", ggml_type_name(a->type));
    }
    if (a->ne[2] != 1 || a->ne[3] != 1) {
        return op_fail("argmax", "a " GGML_SHAPE_FMT " must be 2-D", GGML_SHAPE_ARG(a));
    }
    if (a->ne[0] == 0) {
        return op_fail("argmax", "rows of a are empty");
    }
    const int64_t        ne[4] = {a->ne[1], 1, 1, 1};
    struct ggml_tensor * r     = ggml_new_op_result(ctx, GGML_TYPE_I32, ne, GGML_OP_ARGMAX, "argmax");
    if (r) {
        r->src[0] = a;
    }
    return r;
}

struct ggml_tensor * ggml_scale_bias(struct ggml_context * ctx, struct ggml_tensor * a, float s, float b) {
    struct ggml_tensor * r = f32_map_impl(ctx, a, GGML_OP_SCALE, "scale");
    if (r) {
        ggml_set_op_params_f32(r, 0, s);
        ggml_set_op_params_f32(r, 1, b);
    }
    return r;
}

struct ggml_tensor * ggml_scale(struct ggml_context * ctx, struct ggml_tensor * a, float s) {
    return ggml_scale_bias(ctx, a, s, 0.0f);
}

struct ggml_tensor * ggml_clamp(struct ggml_context * ctx, struct ggml_tensor * a, float lo, float hi) {
    if (a && !(lo <= hi)) {
        return op_fail("clamp", "lo (%g) must not exceed hi (%g)", (double) lo, (double) hi);
    }
    struct ggml_tensor * r = f32_map_impl(ctx, a, GGML_OP_CLAMP, "clamp");
    if (r) {
        ggml_set_op_params_f32(r, 0, lo);
        ggml_set_op_params_f32(r, 1, hi);
    }
    return r;
}

static struct ggml_tensor * norm_impl(struct ggml_context * ctx, struct ggml_tensor * a, float eps, enum ggml_op op,
                                      const char * who) {
    if (a && !(eps >= 0.0f && isfinite(eps))) {
        return op_fail(who, "eps must be finite and >= 0, got %g", (double) eps);
    }
    struct ggml_tensor * r = f32_map_impl(ctx, a, op, who);
    if (r) {
        ggml_set_op_params_f32(r, 0, eps);
    }
    return r;
}

struct ggml_tensor * ggml_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return norm_impl(ctx, a, eps, GGML_OP_NORM, "norm");
}
struct ggml_tensor * ggml_rms_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return norm_impl(ctx, a, eps, GGML_OP_RMS_NORM, "rms_norm");
}
struct ggml_tensor * ggml_l2_norm(struct ggml_context * ctx, struct ggml_tensor * a, float eps) {
    return norm_impl(ctx, a, eps, GGML_OP_L2_NORM, "l2_norm");
}

struct ggml_tensor * ggml_unary(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_unary_op op) {
    if (!a) {
        return NULL;
    }
    if ((int) op < 0 || op >= GGML_UNARY_OP_COUNT) {
        return op_fail("unary", "invalid unary op %d", (int) op);
    }
    if (a->type != GGML_TYPE_F32 && a->type != GGML_TYPE_F16) {
        return op_fail(ggml_unary_op_name(op), "a must be F32 or F16, got %s", ggml_type_name(a->type));
    }
    struct ggml_tensor * r = ggml_new_op_result(ctx, a->type, a->ne, GGML_OP_UNARY, ggml_unary_op_name(op));
    if (r) {
        r->src[0]       = a;
        r->op_params[0] = (int32_t) op;
    }
    return r;
}

struct ggml_tensor * ggml_relu(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ggml_unary(ctx, a, GGML_UNARY_OP_RELU);
}
struct ggml_tensor * ggml_tanh(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ggml_unary(ctx, a, GGML_UNARY_OP_TANH);
}
struct ggml_tensor * ggml_sigmoid(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ggml_unary(ctx, a, GGML_UNARY_OP_SIGMOID);
}
struct ggml_tensor * ggml_silu(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ggml_unary(ctx, a, GGML_UNARY_OP_SILU);
}
struct ggml_tensor * ggml_gelu(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ggml_unary(ctx, a, GGML_UNARY_OP_GELU);
}
struct ggml_tensor * ggml_gelu_erf(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ggml_unary(ctx, a, GGML_UNARY_OP_GELU_ERF);
}
struct ggml_tensor * ggml_neg(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ggml_unary(ctx, a, GGML_UNARY_OP_NEG);
}
struct ggml_tensor * ggml_exp(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ggml_unary(ctx, a, GGML_UNARY_OP_EXP);
}
struct ggml_tensor * ggml_softplus(struct ggml_context * ctx, struct ggml_tensor * a) {
    return ggml_unary(ctx, a, GGML_UNARY_OP_SOFTPLUS);
}

struct ggml_tensor * ggml_glu(struct ggml_context * ctx, struct ggml_tensor * a, enum ggml_glu_op op, bool swapped) {
    if (!a) {
        return NULL;
    }
    if ((int) op < 0 || op >= GGML_GLU_OP_COUNT) {
        return op_fail("glu", "invalid glu op %d", (int) op);
    }
    const char * who = ggml_glu_op_name(op);
    if (a->type != GGML_TYPE_F32) {
        return op_fail(who, "a must be F32, got %s", ggml_type_name(a->type));
    }
    if (a->ne[0] % 2 != 0) {
        return op_fail(who, "fused form needs an even ne[0] (the two halves), a is " GGML_SHAPE_FMT, GGML_SHAPE_ARG(a));
    }
    const int64_t        ne[4] = {a->ne[0] / 2, a->ne[1], a->ne[2], a->ne[3]};
    struct ggml_tensor * r     = ggml_new_op_result(ctx, GGML_TYPE_F32, ne, GGML_OP_GLU, who);
    if (r) {
        r->src[0]       = a;
        r->op_params[0] = (int32_t) op;
        r->op_params[1] = swapped ? 1 : 0;
    }
    return r;
}

struct ggml_tensor * ggml_glu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b,
                                    enum ggml_glu_op op) {
    if (!a || !b) {
        return NULL;
    }
    if ((int) op < 0 || op >= GGML_GLU_OP_COUNT) {
        return op_fail("glu", "invalid glu op %d", (int) op);
    }
    const char * who = ggml_glu_op_name(op);
    if (a->type != GGML_TYPE_F32 || b->type != GGML_TYPE_F32) {
        return op_fail(who, "a and b must be F32, got %s and %s", ggml_type_name(a->type), ggml_type_name(b->type));
    }
    if (!ggml_are_same_shape(a, b)) {
        return op_fail(who, "a " GGML_SHAPE_FMT " and b " GGML_SHAPE_FMT " must have the same shape", GGML_SHAPE_ARG(a),
                       GGML_SHAPE_ARG(b));
    }
    struct ggml_tensor * r = ggml_new_op_result(ctx, GGML_TYPE_F32, a->ne, GGML_OP_GLU, who);
    if (r) {
        r->src[0]       = a;
        r->src[1]       = b;
        r->op_params[0] = (int32_t) op;
        r->op_params[1] = 0;
    }
    return r;
}

struct ggml_tensor * ggml_swiglu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ggml_glu_split(ctx, a, b, GGML_GLU_OP_SWIGLU);
}
struct ggml_tensor * ggml_geglu_split(struct ggml_context * ctx, struct ggml_tensor * a, struct ggml_tensor * b) {
    return ggml_glu_split(ctx, a, b, GGML_GLU_OP_GEGLU);
}
