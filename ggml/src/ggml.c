/*
 * ggml.c — contexts (arenas), tensor utilities, names. Op constructors live in ggml-ops.c, graphs in
 * ggml-graph.c; shared internals in ggml-core.h.
 *
 * ============================================================================================
 * SOURCE / RESULT LAYOUT OF EVERY OP (kernel authors rely on this table; keep it accurate)
 * ============================================================================================
 * Notation: "res" is the tensor the constructor returns. "new" = a fresh contiguous tensor.
 * "view of X" = res shares X's memory: res->view_src = X's ultimate view_src (X itself when X is not
 * a view), res->view_offs accumulates, res->data = view_src->data + view_offs when the source already
 * has data (res->buffer is set then too). Unused src[] slots are NULL. op params per ggml.h.
 *
 *  op              src[0]     src[1]      src[2]         src[3]  res                         op_params
 *  NONE            -          -           -              -       new (leaf: weight/input)    -
 *  DUP             a          -           -              -       new, a's shape & type        -
 *  ADD/SUB/MUL/DIV a          b (bcast)   -              -       new, a's shape & type        -
 *  SQR, SQRT       a          -           -              -       new, a's shape & type        -
 *  SUM_ROWS, MEAN  a          -           -              -       new [1, ne1, ne2, ne3] F32   -
 *  ARGMAX          a          -           -              -       new I32 [ne1]                -
 *  SCALE           a          -           -              -       new, a's shape               f32[0]=s f32[1]=b
 *  CLAMP           a          -           -              -       new, a's shape               f32[0]=lo f32[1]=hi
 *  NORM, RMS_NORM  a          -           -              -       new, a's shape               f32[0]=eps
 *  MUL_MAT         a (weight) b (F32)     -              -       new F32 [a1, b1, b2, b3]     -
 *  MUL_MAT_ID      as         b           ids (I32)      -       new F32 [M, n_used, n_tok]   -
 *  GET_ROWS        a          ids (I32)   -              -       new F32 (I32 if a is I32)    -
 *                                                                [a0, ids0, ids1, ids2]
 *  SET_ROWS        src (F32)  ids         -              -       view of dst (whole dst,      -
 *                  rows                   (I32/I64)                same shape/strides); the
 *                                                                kernel writes into res->data
 *  CPY             a (from)   b (to)      -              -       view of b (b's shape and     -
 *                                                                strides); writes res->data
 *  CONT            a          -           -              -       new, a's type, given shape   -
 *  RESHAPE         a          -           -              -       view of a, contiguous        -
 *  VIEW            a          -           -              -       view of a                    size_t offset
 *                                                                                             (bytes 0..7,
 *                                                                                             relative to a)
 *  PERMUTE         a          -           -              -       view of a (nb permuted)      i32[0..3]=axes
 *  TRANSPOSE       a          -           -              -       view of a (dims 0,1 swapped) i32[0..3]=1,0,2,3
 *  CONCAT          a          b           -              -       new, a's type                i32[0]=dim
 *  ROPE            a          pos (I32)   freq_factors   -       new, a's shape & type        see ggml.h
 *                                         (F32 or NULL)
 *  SOFT_MAX        a          mask (F16/  -              -       new F32, a's shape           f32[0]=scale
 *                             F32 or NULL)                                                    f32[1]=max_bias
 *  FLASH_ATTN_EXT  q          k           v              mask    new F32                      f32[0]=scale
 *                                                        or NULL [Dv, n_head, n_q, ne3]       f32[1]=max_bias
 *                                                                                             f32[2]=softcap
 *  ARGSORT         a          -           -              -       new I32, a's shape           i32[0]=order
 *  (top_k)         -> a VIEW (op VIEW, src[0] = the ARGSORT DESC node) of its first k columns
 *  UNARY           a          -           -              -       new, a's shape & type        i32[0]=unary op
 *  GLU (fused)     a          NULL        -              -       new [a0/2, a1, a2, a3]       i32[0]=glu op
 *                                                                                             i32[1]=swapped
 *  GLU (split)     a          b           -              -       new, a's shape               i32[0]=glu op
 *                                                                                             i32[1]=0
 *  L2_NORM         a          -           -              -       new, a's shape               f32[0]=eps
 *  SSM_CONV        sx         c           -              -       new F32 [d_inner, n_t, n_s]  -
 *  SSM_SCAN        s, x, dt, A, B, C, ids (src[0..6])            new F32 1-D: y, then K       i32[0]=K
 *                                                                state blocks (ggml.h)
 *  GATED_DELTA_NET q, k, v, g, beta, state (src[0..5])           new F32 [S*H, n_t*n_seqs     i32[0]=K
 *                                                                + K*S*n_seqs] (ggml.h)
 *
 * Views are graph nodes: VIEW/RESHAPE/PERMUTE/TRANSPOSE results are recorded in the graph as nodes
 * (kernels treat them as no-ops: their memory is their source's). ggml_build_forward_expand visits
 * src[0..GGML_MAX_SRC) in order and then view_src, so the tensor a view aliases (e.g. the KV cache
 * that a SET_ROWS result views) is ordered before it and appears in the graph (as a leaf if op NONE).
 *
 * IN-PLACE CONTRACT (ggml-alloc.cpp): the graph allocator may give a node the very memory of one of
 * its sources (same type, ne and nb; the source has no other reader) for ADD, SUB, MUL, DIV, SQR, SQRT,
 * SCALE, CLAMP, UNARY and split GLU. Kernels of these ops must therefore work when dst->data ==
 * src[k]->data (read element i before writing element i; no restrict-qualified aliasing assumptions).
 * No other op is ever computed in place.
 * ============================================================================================
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml-core.h"
#include "ggml-op-table.h"
#include "ggml-os.h"

#define GGML_PAD(x, n) (((x) + (n) -1) / (n) * (n))

// ---------------------------------------------------------------------------------------------
// names (table-driven: adding an enum value without a row breaks the build; op names: ggml-op-table.h)
static const char * const k_unary_names[] = {
    "relu", "tanh", "sigmoid", "silu", "gelu", "gelu_erf", "neg", "exp", "softplus",
};
static_assert(sizeof(k_unary_names) / sizeof(k_unary_names[0]) == GGML_UNARY_OP_COUNT, "unary name table");

static const char * const k_glu_names[] = {
    "swiglu",
    "geglu",
    "geglu_erf",
};
static_assert(sizeof(k_glu_names) / sizeof(k_glu_names[0]) == GGML_GLU_OP_COUNT, "glu name table");

const char * ggml_op_name(enum ggml_op op) {
    const struct ggml_op_info * info = ggml_op_get_info(op);  // ggml-op-table.c
    return info ? info->name : "invalid";
}
const char * ggml_unary_op_name(enum ggml_unary_op op) {
    return (int) op >= 0 && op < GGML_UNARY_OP_COUNT ? k_unary_names[op] : "invalid";
}
const char * ggml_glu_op_name(enum ggml_glu_op op) {
    return (int) op >= 0 && op < GGML_GLU_OP_COUNT ? k_glu_names[op] : "invalid";
}

// ---------------------------------------------------------------------------------------------
// tensor utilities
int64_t ggml_nelements(const struct ggml_tensor * t) {
    return t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3];
}

int64_t ggml_nrows(const struct ggml_tensor * t) {
    return t->ne[1] * t->ne[2] * t->ne[3];
}

size_t ggml_nbytes(const struct ggml_tensor * t) {
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (t->ne[i] <= 0) {
            return 0;
        }
    }
    const int64_t blck = ggml_blck_size(t->type);
    size_t        n;
    if (blck == 1) {
        n = ggml_type_size(t->type);
    } else {
        // a row of a block type spans whole blocks: (ne0 / blck) blocks of nb[0] bytes each
        n = (size_t) (t->ne[0] / (blck ? blck : 1)) * t->nb[0];
    }
    for (int i = blck == 1 ? 0 : 1; i < GGML_MAX_DIMS; i++) {
        n += (size_t) (t->ne[i] - 1) * t->nb[i];
    }
    return n;
}

size_t ggml_element_size(const struct ggml_tensor * t) {
    return ggml_type_size(t->type);
}

int ggml_n_dims(const struct ggml_tensor * t) {
    for (int i = GGML_MAX_DIMS - 1; i >= 1; i--) {
        if (t->ne[i] > 1) {
            return i + 1;
        }
    }
    return 1;
}

bool ggml_is_contiguous(const struct ggml_tensor * t) {
    // dims of extent 1 may carry any stride: they are never stepped over
    size_t        next = ggml_type_size(t->type);
    const int64_t blck = ggml_blck_size(t->type);
    if (t->ne[0] != blck && t->nb[0] != next) {
        return false;
    }
    next *= (size_t) (t->ne[0] / (blck ? blck : 1));
    for (int i = 1; i < GGML_MAX_DIMS; i++) {
        if (t->ne[i] != 1) {
            if (t->nb[i] != next) {
                return false;
            }
            next *= (size_t) t->ne[i];
        }
    }
    return true;
}

bool ggml_is_contiguous_rows(const struct ggml_tensor * t) {
    return t->ne[0] == ggml_blck_size(t->type) || t->nb[0] == ggml_type_size(t->type);
}

bool ggml_is_transposed(const struct ggml_tensor * t) {
    return t->nb[0] > t->nb[1];
}

bool ggml_is_permuted(const struct ggml_tensor * t) {
    return t->nb[0] > t->nb[1] || t->nb[1] > t->nb[2] || t->nb[2] > t->nb[3];
}

bool ggml_is_empty(const struct ggml_tensor * t) {
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (t->ne[i] == 0) {
            return true;
        }
    }
    return false;
}

bool ggml_are_same_shape(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    return a->ne[0] == b->ne[0] && a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3];
}

bool ggml_are_same_layout(const struct ggml_tensor * a, const struct ggml_tensor * b) {
    if (a->type != b->type || !ggml_are_same_shape(a, b)) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (a->nb[i] != b->nb[i]) {
            return false;
        }
    }
    return true;
}

bool ggml_can_repeat(const struct ggml_tensor * b, const struct ggml_tensor * a) {
    if (ggml_is_empty(b)) {
        return ggml_is_empty(a);
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (a->ne[i] % b->ne[i] != 0) {
            return false;
        }
    }
    return true;
}

const char * ggml_get_name(const struct ggml_tensor * t) {
    return t ? t->name : "";
}

struct ggml_tensor * ggml_set_name(struct ggml_tensor * t, const char * name) {
    if (!t) {
        return NULL;
    }
    if (!name) {
        name = "";
    }
    size_t n = strlen(name);
    if (n >= sizeof(t->name)) {
        n = sizeof(t->name) - 1;
    }
    memcpy(t->name, name, n);
    t->name[n] = 0;
    return t;
}

struct ggml_tensor * ggml_format_name(struct ggml_tensor * t, const char * fmt, ...) {
    if (!t || !fmt) {
        return t;
    }
    va_list args;
    va_start(args, fmt);
    vsnprintf(t->name, sizeof(t->name), fmt, args);
    va_end(args);
    return t;
}

void ggml_set_input(struct ggml_tensor * t) {
    if (t) {
        t->flags |= GGML_TENSOR_FLAG_INPUT;
    }
}
void ggml_set_output(struct ggml_tensor * t) {
    if (t) {
        t->flags |= GGML_TENSOR_FLAG_OUTPUT;
    }
}
void ggml_set_param(struct ggml_tensor * t) {
    if (t) {
        t->flags |= GGML_TENSOR_FLAG_PARAM;
    }
}

void * ggml_get_data(const struct ggml_tensor * t) {
    return t ? t->data : NULL;
}

float * ggml_get_data_f32(const struct ggml_tensor * t) {
    if (!t || t->type != GGML_TYPE_F32) {
        return NULL;
    }
    return (float *) t->data;
}

// ---------------------------------------------------------------------------------------------
// contexts
size_t ggml_tensor_overhead(void) {
    return GGML_PAD(sizeof(struct ggml_object), GGML_MEM_ALIGN) + GGML_PAD(sizeof(struct ggml_tensor), GGML_MEM_ALIGN);
}

struct ggml_context * ggml_init(struct ggml_init_params params) {
    struct ggml_context * ctx = (struct ggml_context *) calloc(1, sizeof(struct ggml_context));
    if (!ctx) {
        GGML_LOG_ERROR("[init] out of memory allocating a context");
        return NULL;
    }
    // an arena of 0 bytes is legal (nothing fits); keep a valid pointer anyway
    size_t size = GGML_PAD(params.mem_size, GGML_MEM_ALIGN);
    if (params.mem_buffer) {
        ctx->mem_buffer       = params.mem_buffer;
        ctx->mem_buffer_owned = false;
        // a caller's buffer may be unaligned: objects are placed from the first aligned address
        size = params.mem_size;
    } else {
        ctx->mem_buffer = ggml_os_aligned_alloc(64, GGML_PAD(size ? size : 64, 64));
        if (!ctx->mem_buffer) {
            GGML_LOG_ERROR("[init] out of memory allocating an arena of %zu bytes", params.mem_size);
            free(ctx);
            return NULL;
        }
        ctx->mem_buffer_owned = true;
    }
    ctx->mem_size = size;
    ctx->no_alloc = params.no_alloc;
    return ctx;
}

void ggml_free(struct ggml_context * ctx) {
    if (!ctx) {
        return;
    }
    if (ctx->mem_buffer_owned) {
        ggml_os_aligned_free(ctx->mem_buffer);
    }
    free(ctx);
}

void ggml_reset(struct ggml_context * ctx) {
    if (!ctx) {
        return;
    }
    ctx->n_objects     = 0;
    ctx->objects_begin = NULL;
    ctx->objects_end   = NULL;
}

size_t ggml_used_mem(const struct ggml_context * ctx) {
    if (!ctx || !ctx->objects_end) {
        return 0;
    }
    return ctx->objects_end->offs + ctx->objects_end->size;
}

bool ggml_get_no_alloc(const struct ggml_context * ctx) {
    return ctx ? ctx->no_alloc : false;
}

void ggml_set_no_alloc(struct ggml_context * ctx, bool no_alloc) {
    if (ctx) {
        ctx->no_alloc = no_alloc;
    }
}

struct ggml_object * ggml_new_object(struct ggml_context * ctx, enum ggml_object_type type, size_t size,
                                     const char * who) {
    // objects are laid out [header][payload] back to back, each aligned to GGML_MEM_ALIGN
    const uintptr_t base  = (uintptr_t) ctx->mem_buffer;
    const size_t    start = ctx->objects_end ? ctx->objects_end->offs + ctx->objects_end->size
                                             : (size_t) (GGML_PAD(base, GGML_MEM_ALIGN) - base);
    const size_t    hdr   = GGML_PAD(sizeof(struct ggml_object), GGML_MEM_ALIGN);
    const size_t    avail = ctx->mem_size > start ? ctx->mem_size - start : 0;
    if (size > SIZE_MAX / 2 || hdr + GGML_PAD(size, GGML_MEM_ALIGN) > avail) {
        GGML_LOG_ERROR("[%s] context arena exhausted: need %zu bytes, %zu of %zu used", who,
                       hdr + GGML_PAD(size > SIZE_MAX / 2 ? 0 : size, GGML_MEM_ALIGN), start, ctx->mem_size);
        return NULL;
    }
    struct ggml_object * obj = (struct ggml_object *) ((char *) ctx->mem_buffer + start);
    obj->offs                = start + hdr;
    obj->size                = GGML_PAD(size, GGML_MEM_ALIGN);
    obj->next                = NULL;
    obj->type                = type;
    if (ctx->objects_end) {
        ctx->objects_end->next = obj;
    } else {
        ctx->objects_begin = obj;
    }
    ctx->objects_end = obj;
    ctx->n_objects++;
    return obj;
}

struct ggml_tensor * ggml_new_tensor_impl(struct ggml_context * ctx, enum ggml_type type, int n_dims,
                                          const int64_t * ne, struct ggml_tensor * view_src, size_t view_offs,
                                          const char * who) {
    if (!ctx) {
        GGML_LOG_ERROR("[%s] context is NULL", who);
        return NULL;
    }
    if (!ggml_type_is_valid(type)) {
        GGML_LOG_ERROR("[%s] invalid tensor type %d", who, (int) type);
        return NULL;
    }
    if (n_dims < 1 || n_dims > GGML_MAX_DIMS || !ne) {
        GGML_LOG_ERROR("[%s] n_dims must be in [1, %d], got %d", who, GGML_MAX_DIMS, n_dims);
        return NULL;
    }
    int64_t       shape[GGML_MAX_DIMS] = {1, 1, 1, 1};
    const int64_t blck                 = ggml_blck_size(type);
    const size_t  tsize                = ggml_type_size(type);
    uint64_t      bytes                = tsize;
    for (int i = 0; i < n_dims; i++) {
        if (ne[i] < 0) {
            GGML_LOG_ERROR("[%s] ne[%d] = %lld is negative", who, i, (long long) ne[i]);
            return NULL;
        }
        shape[i] = ne[i];
    }
    if (shape[0] % blck != 0) {
        GGML_LOG_ERROR("[%s] ne[0] = %lld is not a multiple of the %s block size %lld", who, (long long) shape[0],
                       ggml_type_name(type), (long long) blck);
        return NULL;
    }
    // total size of a contiguous tensor; also guards the element count against overflow
    bool ok = ggml_mul_overflow_u64(bytes, (uint64_t) (shape[0] / blck), &bytes);
    for (int i = 1; i < GGML_MAX_DIMS && ok; i++) {
        ok = ggml_mul_overflow_u64(bytes, (uint64_t) shape[i], &bytes);
    }
    uint64_t elems = 1;
    for (int i = 0; i < GGML_MAX_DIMS && ok; i++) {
        ok = ggml_mul_overflow_u64(elems, (uint64_t) shape[i], &elems);
    }
    if (!ok || bytes > SIZE_MAX / 4 || elems > (uint64_t) INT64_MAX) {
        GGML_LOG_ERROR("[%s] tensor size overflows", who);
        return NULL;
    }
    const size_t data_size = (view_src == NULL && !ctx->no_alloc) ? (size_t) bytes : 0;
    const size_t tsz       = GGML_PAD(sizeof(struct ggml_tensor), GGML_MEM_ALIGN);

    struct ggml_object * obj = ggml_new_object(ctx, GGML_OBJECT_TYPE_TENSOR, tsz + data_size, who);
    if (!obj) {
        return NULL;
    }
    struct ggml_tensor * t = (struct ggml_tensor *) ((char *) ctx->mem_buffer + obj->offs);
    memset(t, 0, sizeof(*t));
    t->type = type;
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        t->ne[i] = shape[i];
    }
    t->nb[0] = tsize;
    t->nb[1] = tsize * (size_t) (shape[0] / blck);
    for (int i = 2; i < GGML_MAX_DIMS; i++) {
        t->nb[i] = t->nb[i - 1] * (size_t) shape[i - 1];
    }
    t->op = GGML_OP_NONE;
    if (view_src) {
        t->view_src  = view_src;
        t->view_offs = view_offs;
        if (view_src->data) {
            t->data   = (char *) view_src->data + view_offs;
            t->buffer = view_src->buffer;
        }
    } else if (data_size > 0) {
        t->data = (char *) t + tsz;
    } else if (!ctx->no_alloc) {
        t->data = (char *) t + tsz;  // empty tensor: a valid, never dereferenced address
    }
    return t;
}

struct ggml_tensor * ggml_new_tensor(struct ggml_context * ctx, enum ggml_type type, int n_dims, const int64_t * ne) {
    return ggml_new_tensor_impl(ctx, type, n_dims, ne, NULL, 0, "new_tensor");
}

struct ggml_tensor * ggml_new_tensor_1d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0) {
    return ggml_new_tensor_impl(ctx, type, 1, &ne0, NULL, 0, "new_tensor");
}

struct ggml_tensor * ggml_new_tensor_2d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1) {
    const int64_t ne[2] = {ne0, ne1};
    return ggml_new_tensor_impl(ctx, type, 2, ne, NULL, 0, "new_tensor");
}

struct ggml_tensor * ggml_new_tensor_3d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1,
                                        int64_t ne2) {
    const int64_t ne[3] = {ne0, ne1, ne2};
    return ggml_new_tensor_impl(ctx, type, 3, ne, NULL, 0, "new_tensor");
}

struct ggml_tensor * ggml_new_tensor_4d(struct ggml_context * ctx, enum ggml_type type, int64_t ne0, int64_t ne1,
                                        int64_t ne2, int64_t ne3) {
    const int64_t ne[4] = {ne0, ne1, ne2, ne3};
    return ggml_new_tensor_impl(ctx, type, 4, ne, NULL, 0, "new_tensor");
}

struct ggml_tensor * ggml_dup_tensor(struct ggml_context * ctx, const struct ggml_tensor * src) {
    if (!src) {
        return NULL;
    }
    return ggml_new_tensor_impl(ctx, src->type, GGML_MAX_DIMS, src->ne, NULL, 0, "dup_tensor");
}

struct ggml_tensor * ggml_get_first_tensor(const struct ggml_context * ctx) {
    for (struct ggml_object * o = ctx ? ctx->objects_begin : NULL; o; o = o->next) {
        if (o->type == GGML_OBJECT_TYPE_TENSOR) {
            return (struct ggml_tensor *) ((char *) ctx->mem_buffer + o->offs);
        }
    }
    return NULL;
}

struct ggml_tensor * ggml_get_next_tensor(const struct ggml_context * ctx, struct ggml_tensor * t) {
    if (!ctx || !t) {
        return NULL;
    }
    // the object header sits right before its payload
    struct ggml_object * o = (struct ggml_object *) ((char *) t - GGML_PAD(sizeof(struct ggml_object), GGML_MEM_ALIGN));
    for (o = o->next; o; o = o->next) {
        if (o->type == GGML_OBJECT_TYPE_TENSOR) {
            return (struct ggml_tensor *) ((char *) ctx->mem_buffer + o->offs);
        }
    }
    return NULL;
}

struct ggml_tensor * ggml_get_tensor(struct ggml_context * ctx, const char * name) {
    if (!name) {
        return NULL;
    }
    for (struct ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        if (strcmp(t->name, name) == 0) {
            return t;
        }
    }
    return NULL;
}
