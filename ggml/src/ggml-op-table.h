// The core op table: what every part of ggml needs to know about an op, once (name, inputs, whether
// a kernel runs at all, whether the result may take its input's memory, the rule its shape follows).
// Backends keep their own table (supports / run / ...) with one row per op, checked against this
// one at compile time by ggml_op_rows_complete (ggml-op-rows.h).
//
// Adding an op: a value before GGML_OP_COUNT in enum ggml_op (ggml.h, at the end: the values are
// ABI), a row here in the same place, its constructor (ggml-ops*.c), and a row in each backend's table
// (docs/design.md, "Adding an op").
#pragma once

#include <stdbool.h>

#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

// GGML_OPF_NOOP: no kernel runs; the node is a leaf or a view of its input's memory.
// GGML_OPF_INPLACE: elementwise on src[0] (same shape and type): the allocator may give the result
//   src[0]'s memory once src[0] has no later reader.
// GGML_OPF_INPLACE_SPLIT: as INPLACE, but only in the two-input form (GLU: the one-input form halves ne0).
enum ggml_op_flag {
    GGML_OPF_NOOP          = 1,
    GGML_OPF_INPLACE       = 2,
    GGML_OPF_INPLACE_SPLIT = 4,
};

// The rule a node's result shape follows, given its inputs (ggml_op_node_valid checks it):
//   ANY      a leaf: no inputs, any shape
//   SRC0     the shape of src[0]
//   SRC1     the shape of src[1] (CPY writes into its second input)
//   NELEM    src[0]'s element count, any shape (RESHAPE, PERMUTE, CONT)
//   VIEW     a window inside src[0]'s memory (VIEW, and SET_ROWS, which writes into a view of its target)
//   ROWS1    src[0] with ne[0] reduced to 1 (SUM_ROWS, MEAN)
//   LIST     one value per row of a 2-D src[0] (ARGMAX)
//   MATMUL   {a.ne1, b.ne1, b.ne2, b.ne3}
//   CUSTOM   checked by the op's constructor only (the rule needs op parameters)
enum ggml_op_shape {
    GGML_SHAPE_ANY,
    GGML_SHAPE_SRC0,
    GGML_SHAPE_SRC1,
    GGML_SHAPE_NELEM,
    GGML_SHAPE_VIEW,
    GGML_SHAPE_ROWS1,
    GGML_SHAPE_LIST,
    GGML_SHAPE_MATMUL,
    GGML_SHAPE_CUSTOM,
};

// X(NAME, MIN_SRC, MAX_SRC, FLAGS, SHAPE): one row per ggml_op, in enum order. src[0..MIN_SRC-1] are
// required; src[MIN_SRC..MAX_SRC-1] are optional (NULL allowed); nothing past MAX_SRC is read.
#define GGML_OP_TABLE(X)                                    \
    X(NONE, 0, 0, GGML_OPF_NOOP, GGML_SHAPE_ANY)            \
    X(DUP, 1, 1, 0, GGML_SHAPE_SRC0)                        \
    X(ADD, 2, 2, GGML_OPF_INPLACE, GGML_SHAPE_SRC0)         \
    X(SUB, 2, 2, GGML_OPF_INPLACE, GGML_SHAPE_SRC0)         \
    X(MUL, 2, 2, GGML_OPF_INPLACE, GGML_SHAPE_SRC0)         \
    X(DIV, 2, 2, GGML_OPF_INPLACE, GGML_SHAPE_SRC0)         \
    X(SQR, 1, 1, GGML_OPF_INPLACE, GGML_SHAPE_SRC0)         \
    X(SQRT, 1, 1, GGML_OPF_INPLACE, GGML_SHAPE_SRC0)        \
    X(SUM_ROWS, 1, 1, 0, GGML_SHAPE_ROWS1)                  \
    X(MEAN, 1, 1, 0, GGML_SHAPE_ROWS1)                      \
    X(ARGMAX, 1, 1, 0, GGML_SHAPE_LIST)                     \
    X(SCALE, 1, 1, GGML_OPF_INPLACE, GGML_SHAPE_SRC0)       \
    X(CLAMP, 1, 1, GGML_OPF_INPLACE, GGML_SHAPE_SRC0)       \
    X(NORM, 1, 1, 0, GGML_SHAPE_SRC0)                       \
    X(RMS_NORM, 1, 1, 0, GGML_SHAPE_SRC0)                   \
    X(MUL_MAT, 2, 2, 0, GGML_SHAPE_MATMUL)                  \
    X(MUL_MAT_ID, 3, 3, 0, GGML_SHAPE_CUSTOM)               \
    X(GET_ROWS, 2, 2, 0, GGML_SHAPE_CUSTOM)                 \
    X(SET_ROWS, 2, 2, 0, GGML_SHAPE_VIEW)                   \
    X(CPY, 2, 2, 0, GGML_SHAPE_SRC1)                        \
    X(CONT, 1, 1, 0, GGML_SHAPE_NELEM)                      \
    X(RESHAPE, 1, 1, GGML_OPF_NOOP, GGML_SHAPE_NELEM)       \
    X(VIEW, 1, 1, GGML_OPF_NOOP, GGML_SHAPE_VIEW)           \
    X(PERMUTE, 1, 1, GGML_OPF_NOOP, GGML_SHAPE_NELEM)       \
    X(TRANSPOSE, 1, 1, GGML_OPF_NOOP, GGML_SHAPE_NELEM)     \
    X(CONCAT, 2, 2, 0, GGML_SHAPE_CUSTOM)                   \
    X(ROPE, 2, 3, 0, GGML_SHAPE_SRC0)                       \
    X(SOFT_MAX, 1, 2, 0, GGML_SHAPE_SRC0)                   \
    X(FLASH_ATTN_EXT, 3, 4, 0, GGML_SHAPE_CUSTOM)           \
    X(ARGSORT, 1, 1, 0, GGML_SHAPE_SRC0)                    \
    X(UNARY, 1, 1, GGML_OPF_INPLACE, GGML_SHAPE_SRC0)       \
    X(GLU, 1, 2, GGML_OPF_INPLACE_SPLIT, GGML_SHAPE_CUSTOM) \
    X(L2_NORM, 1, 1, 0, GGML_SHAPE_SRC0)                    \
    X(SSM_CONV, 2, 2, 0, GGML_SHAPE_CUSTOM)                 \
    X(SSM_SCAN, 7, 7, 0, GGML_SHAPE_CUSTOM)                 \
    X(GATED_DELTA_NET, 6, 6, 0, GGML_SHAPE_CUSTOM)

struct ggml_op_info {
    enum ggml_op       op;
    const char *       name;
    int                min_src, max_src;
    unsigned           flags;  // enum ggml_op_flag bits
    enum ggml_op_shape shape;
};

// The row of op; NULL when op is not a valid ggml_op.
const struct ggml_op_info * ggml_op_get_info(enum ggml_op op);

// True when no kernel runs for op (leaves and views).
bool ggml_op_is_noop(enum ggml_op op);

// True when node t's result may share src[0]'s memory (GGML_OPF_INPLACE, or the split form of an
// INPLACE_SPLIT op); the allocator still checks that src[0] has no later reader.
bool ggml_op_node_can_inplace(const struct ggml_tensor * t);

// True when node t has the inputs its op requires and reads no more, and its shape follows the op's
// rule. A hand-built graph that fails this is refused by every backend (ggml_backend_dev_supports_op)
// rather than handed to a kernel.
bool ggml_op_node_valid(const struct ggml_tensor * t);

#ifdef __cplusplus
}
#endif
