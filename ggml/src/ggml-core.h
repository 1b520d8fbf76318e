// Internals of the ggml core shared by ggml.c (contexts, tensors), ggml-ops.c (op constructors),
// ggml-graph.c (graphs) and ggml-alloc.cpp. Backends may include it for the graph helpers below.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ggml-impl.h"

#ifdef __cplusplus
extern "C" {
#endif

// ---- arena ----
enum ggml_object_type {
    GGML_OBJECT_TYPE_TENSOR,
    GGML_OBJECT_TYPE_GRAPH,
};

// Header placed in the arena before each object; the payload follows at mem_buffer + offs.
struct ggml_object {
    size_t               offs;
    size_t               size;
    struct ggml_object * next;
    int                  type;
    char                 padding[4];
};

struct ggml_context {
    size_t               mem_size;
    void *               mem_buffer;
    bool                 mem_buffer_owned;
    bool                 no_alloc;
    int                  n_objects;
    struct ggml_object * objects_begin;
    struct ggml_object * objects_end;
};

// A new tensor in ctx. view_src (already the ultimate source) + view_offs make it a view sharing
// that memory; otherwise it gets arena data unless the context is no_alloc. `who` names the caller
// in error messages ("[who] ..."). NULL (logged) on bad arguments or an exhausted arena.
struct ggml_tensor * ggml_new_tensor_impl(struct ggml_context * ctx, enum ggml_type type, int n_dims,
                                          const int64_t * ne, struct ggml_tensor * view_src, size_t view_offs,
                                          const char * who);

// Bytes of arena payload for one object, rounded to GGML_MEM_ALIGN; NULL when it does not fit.
struct ggml_object * ggml_new_object(struct ggml_context * ctx, enum ggml_object_type type, size_t size,
                                     const char * who);

// ---- op constructor helpers (ggml-ops.c) ----
// Logs "[op] reason" at error level and returns NULL.
struct ggml_tensor * ggml_op_fail(const char * op, const char * fmt, ...) GGML_ATTRIBUTE_FORMAT(2, 3);
// A new contiguous result tensor of the given type/shape with `op` recorded (sources set by the caller).
struct ggml_tensor * ggml_new_op_result(struct ggml_context * ctx, enum ggml_type type, const int64_t ne[4],
                                        enum ggml_op op, const char * who);
// A view of a (shape ne, strides nb, offs bytes into a) recording `op` with src[0] = a; the window
// must lie inside a's ultimate view_src. NULL (logged) otherwise.
struct ggml_tensor * ggml_make_view(struct ggml_context * ctx, struct ggml_tensor * a, const int64_t ne[4],
                                    const size_t nb[4], size_t offs, enum ggml_op op, const char * who);

#define GGML_SHAPE_FMT    "[%lld, %lld, %lld, %lld]"
#define GGML_SHAPE_ARG(t) (long long) (t)->ne[0], (long long) (t)->ne[1], (long long) (t)->ne[2], (long long) (t)->ne[3]

// ---- graphs ----
struct ggml_cgraph {
    int                   size;  // capacity of nodes[] and of leafs[]
    int                   n_nodes;
    int                   n_leafs;
    bool                  failed;  // a NULL tensor or an overflow was met while expanding
    struct ggml_tensor ** nodes;
    struct ggml_tensor ** leafs;
    // visited set: open addressing over tensor pointers; `used` is a bitset so clearing is cheap
    size_t                hash_size;  // power of two, 0 for a view (no set)
    struct ggml_tensor ** hash_keys;
    uint32_t *            hash_used;
    // explicit DFS stack (one frame per node on the current path; nodes <= size)
    struct ggml_graph_frame * stack;
};

struct ggml_graph_frame {
    struct ggml_tensor * t;
    int                  next;  // next src index to visit; GGML_MAX_SRC means view_src
};

// Appends t as the next node (no dependency walk). False when the graph is full. For schedulers
// that assemble split graphs themselves.
bool ggml_graph_add_node(struct ggml_cgraph * gf, struct ggml_tensor * t);
bool ggml_graph_add_leaf(struct ggml_cgraph * gf, struct ggml_tensor * t);
// A graph sharing nodes[i0, i1) of gf (no leafs, no visited set): returned by value; valid while gf is.
struct ggml_cgraph ggml_graph_view(struct ggml_cgraph * gf, int i0, int i1);

// True when a and b have the same type, ne and nb (so one can overwrite the other elementwise).
bool ggml_are_same_layout(const struct ggml_tensor * a, const struct ggml_tensor * b);

#ifdef __cplusplus
}
#endif
