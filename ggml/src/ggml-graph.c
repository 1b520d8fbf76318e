// Graphs: nodes in topological order (sources before users), leafs (op NONE tensors) apart.
// Everything lives in the context arena; expansion is an iterative DFS with an arena stack and an
// open-addressing visited set, so rebuilding a graph per token allocates nothing else.
#include <string.h>

#include "ggml-core.h"

#define PAD16(x) (((x) + 15) / 16 * 16)

// The visited set holds nodes and leafs (up to 2 * size); a power of two >= 4 * size keeps
// linear probing short.
static size_t graph_hash_size(size_t size) {
    size_t h = 64;
    while (h < 4 * size) {
        h <<= 1;
    }
    return h;
}

static size_t graph_bytes(size_t size) {
    const size_t h = graph_hash_size(size);
    return PAD16(sizeof(struct ggml_cgraph)) + PAD16(size * sizeof(struct ggml_tensor *)) * 2 +
           PAD16(h * sizeof(struct ggml_tensor *)) + PAD16(h / 32 * sizeof(uint32_t)) +
           PAD16(size * sizeof(struct ggml_graph_frame));
}

size_t ggml_graph_overhead_custom(size_t size, bool grads) {
    (void) grads;  // no backward pass: gradients take no room
    return PAD16(sizeof(struct ggml_object)) + PAD16(graph_bytes(size));
}

size_t ggml_graph_overhead(void) {
    return ggml_graph_overhead_custom(GGML_DEFAULT_GRAPH_SIZE, false);
}

struct ggml_cgraph * ggml_new_graph_custom(struct ggml_context * ctx, size_t size, bool grads) {
    (void) grads;
    if (!ctx) {
        GGML_LOG_ERROR("[new_graph] context is NULL");
        return NULL;
    }
    if (size == 0 || size > (1u << 26)) {
        GGML_LOG_ERROR("[new_graph] size %zu out of range", size);
        return NULL;
    }
    struct ggml_object * obj = ggml_new_object(ctx, GGML_OBJECT_TYPE_GRAPH, graph_bytes(size), "new_graph");
    if (!obj) {
        return NULL;
    }
    char *               p  = (char *) ctx->mem_buffer + obj->offs;
    struct ggml_cgraph * gf = (struct ggml_cgraph *) p;
    p += PAD16(sizeof(struct ggml_cgraph));
    memset(gf, 0, sizeof(*gf));
    gf->size      = (int) size;
    gf->hash_size = graph_hash_size(size);
    gf->nodes     = (struct ggml_tensor **) p;
    p += PAD16(size * sizeof(struct ggml_tensor *));
    gf->leafs = (struct ggml_tensor **) p;
    p += PAD16(size * sizeof(struct ggml_tensor *));
    gf->hash_keys = (struct ggml_tensor **) p;
    p += PAD16(gf->hash_size * sizeof(struct ggml_tensor *));
    gf->hash_used = (uint32_t *) p;
    p += PAD16(gf->hash_size / 32 * sizeof(uint32_t));
    gf->stack = (struct ggml_graph_frame *) p;
    memset(gf->hash_used, 0, gf->hash_size / 32 * sizeof(uint32_t));
    return gf;
}

struct ggml_cgraph * ggml_new_graph(struct ggml_context * ctx) {
    return ggml_new_graph_custom(ctx, GGML_DEFAULT_GRAPH_SIZE, false);
}

static inline size_t hash_ptr(const void * p) {
    // tensors are 16-byte aligned; mix the address bits (Fibonacci hashing)
    return (size_t) (((uint64_t) (uintptr_t) p >> 4) * 0x9E3779B97F4A7C15ull >> 17);
}

// Inserts t into the visited set; false if it was already there.
static bool visit_insert(struct ggml_cgraph * gf, struct ggml_tensor * t) {
    const size_t mask = gf->hash_size - 1;
    for (size_t i = hash_ptr(t) & mask;; i = (i + 1) & mask) {
        const uint32_t bit = 1u << (i & 31);
        if (!(gf->hash_used[i >> 5] & bit)) {
            gf->hash_used[i >> 5] |= bit;
            gf->hash_keys[i] = t;
            return true;
        }
        if (gf->hash_keys[i] == t) {
            return false;
        }
    }
}

static void graph_fail(struct ggml_cgraph * gf, const char * why) {
    if (!gf->failed) {
        GGML_LOG_ERROR("[build_forward_expand] %s", why);
    }
    gf->failed = true;
}

static bool add_leaf(struct ggml_cgraph * gf, struct ggml_tensor * t) {
    if (gf->n_leafs >= gf->size) {
        graph_fail(gf, "graph is full: too many leafs (make a bigger graph with ggml_new_graph_custom)");
        return false;
    }
    gf->leafs[gf->n_leafs++] = t;
    return true;
}

void ggml_build_forward_expand(struct ggml_cgraph * gf, struct ggml_tensor * t) {
    if (!gf) {
        GGML_LOG_ERROR("[build_forward_expand] graph is NULL");
        return;
    }
    if (!t) {
        graph_fail(gf, "tensor is NULL (an op constructor failed earlier)");
        return;
    }
    if (!gf->hash_size) {
        graph_fail(gf, "cannot expand a graph view");
        return;
    }
    if (!visit_insert(gf, t)) {
        return;
    }
    if (t->op == GGML_OP_NONE) {
        add_leaf(gf, t);
        return;
    }
    // post-order DFS: a node is emitted once all its sources (and the tensor it views) are emitted
    int depth          = 0;
    gf->stack[depth++] = (struct ggml_graph_frame){t, 0};
    while (depth > 0) {
        struct ggml_graph_frame * f     = &gf->stack[depth - 1];
        struct ggml_tensor *      child = NULL;
        while (f->next <= GGML_MAX_SRC && !child) {
            struct ggml_tensor * c = f->next < GGML_MAX_SRC ? f->t->src[f->next] : f->t->view_src;
            f->next++;
            if (c && visit_insert(gf, c)) {
                child = c;
            }
        }
        if (child) {
            if (child->op == GGML_OP_NONE) {
                if (!add_leaf(gf, child)) {
                    return;
                }
            } else if (depth >= gf->size) {
                graph_fail(gf, "graph is full: too many nodes (make a bigger graph with ggml_new_graph_custom)");
                return;
            } else {
                gf->stack[depth++] = (struct ggml_graph_frame){child, 0};
            }
            continue;
        }
        if (gf->n_nodes >= gf->size) {
            graph_fail(gf, "graph is full: too many nodes (make a bigger graph with ggml_new_graph_custom)");
            return;
        }
        gf->nodes[gf->n_nodes++] = f->t;
        depth--;
    }
}

bool ggml_graph_is_ok(const struct ggml_cgraph * gf) {
    return gf && !gf->failed;
}

int ggml_graph_size(const struct ggml_cgraph * gf) {
    return gf ? gf->size : 0;
}

int ggml_graph_n_nodes(const struct ggml_cgraph * gf) {
    return gf ? gf->n_nodes : 0;
}

struct ggml_tensor * ggml_graph_node(const struct ggml_cgraph * gf, int i) {
    if (!gf) {
        return NULL;
    }
    if (i < 0) {
        i += gf->n_nodes;
    }
    return i >= 0 && i < gf->n_nodes ? gf->nodes[i] : NULL;
}

int ggml_graph_n_leafs(const struct ggml_cgraph * gf) {
    return gf ? gf->n_leafs : 0;
}

struct ggml_tensor * ggml_graph_leaf(const struct ggml_cgraph * gf, int i) {
    if (!gf) {
        return NULL;
    }
    if (i < 0) {
        i += gf->n_leafs;
    }
    return i >= 0 && i < gf->n_leafs ? gf->leafs[i] : NULL;
}

struct ggml_tensor * ggml_graph_get_tensor(const struct ggml_cgraph * gf, const char * name) {
    if (!gf || !name) {
        return NULL;
    }
    for (int i = 0; i < gf->n_leafs; i++) {
        if (strcmp(gf->leafs[i]->name, name) == 0) {
            return gf->leafs[i];
        }
    }
    for (int i = 0; i < gf->n_nodes; i++) {
        if (strcmp(gf->nodes[i]->name, name) == 0) {
            return gf->nodes[i];
        }
    }
    return NULL;
}

void ggml_graph_clear(struct ggml_cgraph * gf) {
    if (!gf) {
        return;
    }
    gf->n_nodes = 0;
    gf->n_leafs = 0;
    gf->failed  = false;
    if (gf->hash_size) {
        memset(gf->hash_used, 0, gf->hash_size / 32 * sizeof(uint32_t));
    }
}

bool ggml_graph_add_node(struct ggml_cgraph * gf, struct ggml_tensor * t) {
    if (!gf || !t || gf->n_nodes >= gf->size) {
        return false;
    }
    if (gf->hash_size) {
        visit_insert(gf, t);
    }
    gf->nodes[gf->n_nodes++] = t;
    return true;
}

bool ggml_graph_add_leaf(struct ggml_cgraph * gf, struct ggml_tensor * t) {
    if (!gf || !t || gf->n_leafs >= gf->size) {
        return false;
    }
    if (gf->hash_size) {
        visit_insert(gf, t);
    }
    gf->leafs[gf->n_leafs++] = t;
    return true;
}

struct ggml_cgraph ggml_graph_view(struct ggml_cgraph * gf, int i0, int i1) {
    struct ggml_cgraph v;
    memset(&v, 0, sizeof(v));
    if (!gf || i0 < 0 || i1 > gf->n_nodes || i0 > i1) {
        v.failed = true;
        return v;
    }
    v.size    = i1 - i0;
    v.n_nodes = i1 - i0;
    v.nodes   = gf->nodes + i0;
    v.failed  = gf->failed;
    return v;
}
