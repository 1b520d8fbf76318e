/*
 * ggml-alloc.h — memory planning for tensors and graphs.
 *
 * ggml_tallocr: a linear allocator that places tensors one after another in one backend buffer
 * (used for weights and the KV cache).
 * ggml_gallocr: a graph allocator that places every intermediate tensor of a graph in one buffer
 * per buffer type, reusing memory as soon as a tensor's last consumer has run (liveness), and
 * computing in place where an op allows it. Reserve once with the worst-case graph, then
 * ggml_gallocr_alloc_graph() on each new graph reuses the buffer without reallocating as long as
 * the graph fits.
 *
 * Rules: tensors flagged INPUT are allocated before any other node and never share memory with
 * nodes that run before their last use; tensors flagged OUTPUT are never reused. Views get the
 * address of their view_src. Leafs that already have data (weights) are left alone.
 */
#pragma once

#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ggml_backend_buffer_type * ggml_backend_buffer_type_t;
typedef struct ggml_backend_buffer *      ggml_backend_buffer_t;
typedef struct ggml_backend *             ggml_backend_t;

/* ---- linear allocator ---- */
struct ggml_tallocr {
    ggml_backend_buffer_t buffer;
    void *                base;
    size_t                alignment;
    size_t                offset;
};

GGML_API struct ggml_tallocr ggml_tallocr_new(ggml_backend_buffer_t buffer);
/* Places t at the next aligned offset. Returns false (logged) when the buffer is too small. */
GGML_API bool                ggml_tallocr_alloc(struct ggml_tallocr * talloc, struct ggml_tensor * t);

/* ---- graph allocator ---- */
typedef struct ggml_gallocr * ggml_gallocr_t;

/* NULL on allocation failure. Free with ggml_gallocr_free. */
GGML_API ggml_gallocr_t ggml_gallocr_new(ggml_backend_buffer_type_t buft);
/* One buffer per buffer type; node_buffer_ids[i] (per node) / leaf_buffer_ids (per leaf) pick it. */
GGML_API ggml_gallocr_t ggml_gallocr_new_n(ggml_backend_buffer_type_t * bufts, int n_bufs);
GGML_API void           ggml_gallocr_free(ggml_gallocr_t galloc);

/* Plans the graph and (re)allocates the buffer(s) to its worst-case size. False on failure. */
GGML_API bool ggml_gallocr_reserve(ggml_gallocr_t galloc, struct ggml_cgraph * graph);
GGML_API bool ggml_gallocr_reserve_n(ggml_gallocr_t galloc, struct ggml_cgraph * graph, const int * node_buffer_ids,
                                     const int * leaf_buffer_ids);

/* Assigns memory to every unallocated tensor of the graph. Reallocates the buffer if the graph
 * needs more than reserved (with a single buffer type) — false on failure (logged). */
GGML_API bool ggml_gallocr_alloc_graph(ggml_gallocr_t galloc, struct ggml_cgraph * graph);

/* Bytes of the buffer for buffer index buffer_id (0 for single-buffer allocators). */
GGML_API size_t ggml_gallocr_get_buffer_size(ggml_gallocr_t galloc, int buffer_id);

/* Allocates one buffer of buft holding every tensor of ctx that has no data yet (ctx must be a
 * no_alloc context). NULL (logged) on failure or if ctx has nothing to allocate. */
GGML_API ggml_backend_buffer_t ggml_backend_alloc_ctx_tensors_from_buft(struct ggml_context * ctx,
                                                                        ggml_backend_buffer_type_t buft);
GGML_API ggml_backend_buffer_t ggml_backend_alloc_ctx_tensors(struct ggml_context * ctx, ggml_backend_t backend);

#ifdef __cplusplus
}
#endif
