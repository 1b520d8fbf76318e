// The core op table (ggml-op-table.h) and the checks built on it.
#include "ggml-op-table.h"

#include <stddef.h>

#include "ggml-impl.h"

#define GGML_OP_INFO_ROW(NAME, MIN, MAX, FLAGS, SHAPE) {GGML_OP_##NAME, #NAME, MIN, MAX, FLAGS, SHAPE},
static const struct ggml_op_info k_op_info[] = {GGML_OP_TABLE(GGML_OP_INFO_ROW)};
#undef GGML_OP_INFO_ROW

// The table's rows are the enum's values in order: a row missing, extra or out of place breaks the build.
#define GGML_OP_ROW_INDEX(NAME, MIN, MAX, FLAGS, SHAPE) k_op_row_##NAME,
enum { GGML_OP_TABLE(GGML_OP_ROW_INDEX) k_op_row_count };
#undef GGML_OP_ROW_INDEX
#define GGML_OP_ROW_CHECK(NAME, MIN, MAX, FLAGS, SHAPE)                                                        \
    _Static_assert((int) k_op_row_##NAME == (int) GGML_OP_##NAME, "GGML_OP_TABLE row " #NAME " out of order"); \
    _Static_assert((MIN) <= (MAX) && (MAX) <= GGML_MAX_SRC, "GGML_OP_TABLE row " #NAME ": input counts");
GGML_OP_TABLE(GGML_OP_ROW_CHECK)
#undef GGML_OP_ROW_CHECK
_Static_assert((int) k_op_row_count == (int) GGML_OP_COUNT, "GGML_OP_TABLE needs a row per ggml_op");

const struct ggml_op_info * ggml_op_get_info(enum ggml_op op) {
    return (int) op >= 0 && op < GGML_OP_COUNT ? &k_op_info[op] : NULL;
}

bool ggml_op_is_noop(enum ggml_op op) {
    const struct ggml_op_info * info = ggml_op_get_info(op);
    return info && (info->flags & GGML_OPF_NOOP);
}

bool ggml_op_node_can_inplace(const struct ggml_tensor * t) {
    const struct ggml_op_info * info = ggml_op_get_info(t->op);
    if (!info) {
        return false;
    }
    if (info->flags & GGML_OPF_INPLACE) {
        return true;
    }
    return (info->flags & GGML_OPF_INPLACE_SPLIT) && t->src[1] != NULL;
}

static bool same_shape(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (a->ne[i] != b->ne[i]) {
            return false;
        }
    }
    return true;
}

static bool shape_follows_rule(const struct ggml_tensor * t, enum ggml_op_shape rule) {
    const struct ggml_tensor * a = t->src[0];
    const struct ggml_tensor * b = t->src[1];
    switch (rule) {
        case GGML_SHAPE_ANY:
        case GGML_SHAPE_CUSTOM:
            return true;
        case GGML_SHAPE_SRC0:
            return same_shape(t, a);
        case GGML_SHAPE_SRC1:
            return same_shape(t, b) && ggml_nelements(a) == ggml_nelements(t);
        case GGML_SHAPE_NELEM:
            return ggml_nelements(a) == ggml_nelements(t);
        case GGML_SHAPE_VIEW:
            return t->view_src && t->view_offs <= ggml_nbytes(t->view_src) &&
                   ggml_nbytes(t) <= ggml_nbytes(t->view_src) - t->view_offs;
        case GGML_SHAPE_ROWS1:
            return t->ne[0] == 1 && t->ne[1] == a->ne[1] && t->ne[2] == a->ne[2] && t->ne[3] == a->ne[3];
        case GGML_SHAPE_LIST:
            return t->ne[0] == a->ne[1] && t->ne[1] == 1 && t->ne[2] == 1 && t->ne[3] == 1;
        case GGML_SHAPE_MATMUL:
            return t->ne[0] == a->ne[1] && t->ne[1] == b->ne[1] && t->ne[2] == b->ne[2] && t->ne[3] == b->ne[3];
    }
    return false;
}

bool ggml_op_node_valid(const struct ggml_tensor * t) {
    const struct ggml_op_info * info = t ? ggml_op_get_info(t->op) : NULL;
    if (!info) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        const bool present = t->src[i] != NULL;
        if ((i < info->min_src && !present) || (i >= info->max_src && present && info->max_src > 0)) {
            return false;
        }
    }
    return shape_follows_rule(t, info->shape);
}
