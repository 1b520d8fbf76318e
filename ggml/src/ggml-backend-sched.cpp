// ggml-backend-sched.cpp — runs one graph over several backends.
//
// alloc_graph = assign a backend to every tensor, cut the node list into splits (maximal runs on one
// backend), find each split's inputs that live where its backend cannot read them and give them a
// copy in that backend's compute buffer, then let ggml_gallocr place everything (one buffer per
// backend). graph_compute = per split: copy its inputs, compute its nodes on its backend.
//
// Assignment, in priority order (a backend earlier in the list wins ties; the CPU is last):
//   1. pinned with ggml_backend_sched_set_tensor_backend;
//   2. tensors already in a buffer (weights, KV cache, views of them) go to the first backend that can
//      use that buffer and run the op; INPUT leafs go to the CPU; an op reading a WEIGHTS buffer goes
//      where that buffer is usable if the backend supports the op (or is offloaded, see op_offload);
//   3. unassigned nodes take the backend of a neighbour (expand down then up, GPU backends first,
//      then all) when it supports them;
//   4. the rest: of the backends supporting the op, the one that reads most of its sources in place.
//   View-like ops (no kernel) follow their data.
//
// The user's graph is never left modified: the scheduler builds its own node list (graph_copy) with
// the copies, and swaps the copies into the consumers' src[] only inside alloc_graph and compute.
// Steady state (same graph shape every call, as in token-by-token decode) allocates nothing on the heap.
#include "ggml-alloc.h"
#include "ggml-backend-impl.h"
#include "ggml-core.h"
#include "ggml-impl.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

namespace {

constexpr int SCHED_MAX_BACKENDS = 16;

// Open-addressing map from tensor pointer to its assignment. clear() is O(1) (a generation bump), so
// the per-call reset costs nothing however large the graph.
class tensor_map {
public:
    struct entry {
        const ggml_tensor * key;
        uint32_t            gen;
        int32_t             backend;  // -1 = unassigned
    };

    void clear() {
        if (++gen_ == 0) {  // wrapped: stale generations could alias, wipe once every 2^32 resets
            std::fill(slots_.begin(), slots_.end(), entry{nullptr, 0, -1});
            gen_ = 1;
        }
        count_ = 0;
    }

    entry * find(const ggml_tensor * t) {
        if (slots_.empty()) {
            return nullptr;
        }
        for (size_t i = hash(t) & mask_;; i = (i + 1) & mask_) {
            entry & e = slots_[i];
            if (e.gen != gen_) {
                return nullptr;
            }
            if (e.key == t) {
                return &e;
            }
        }
    }

    entry & get(const ggml_tensor * t) {
        if ((count_ + 1) * 2 > slots_.size()) {
            grow();
        }
        for (size_t i = hash(t) & mask_;; i = (i + 1) & mask_) {
            entry & e = slots_[i];
            if (e.gen != gen_) {
                e = entry{t, gen_, -1};
                count_++;
                return e;
            }
            if (e.key == t) {
                return e;
            }
        }
    }

    int backend(const ggml_tensor * t) {
        entry * e = find(t);
        return e ? e->backend : -1;
    }

private:
    static size_t hash(const ggml_tensor * t) { return (size_t) (((uintptr_t) t >> 4) * 0x9E3779B97F4A7C15ull >> 16); }

    void grow() {
        std::vector<entry> old;
        old.swap(slots_);
        const size_t n = std::max<size_t>(1024, old.size() * 2);
        slots_.assign(n, entry{nullptr, 0, -1});
        mask_            = n - 1;
        const uint32_t g = gen_;
        gen_             = 1;
        count_           = 0;
        for (const entry & e : old) {
            if (e.gen == g) {
                get(e.key).backend = e.backend;
            }
        }
    }

    std::vector<entry> slots_;
    size_t             mask_  = 0;
    size_t             count_ = 0;
    uint32_t           gen_   = 1;
};

struct sched_input {
    ggml_tensor * src;
    ggml_tensor * copy;  // in the destination backend's compute buffer
    int           src_backend;
    int           dst_backend;
    ggml_tensor * dep = nullptr;  // a view of src placed before the copy (keeps src alive)
};

struct sched_split {
    int backend;
    int c_start, c_end;    // node range in cur_graph that is computed (copies excluded)
    int in_begin, in_end;  // range in sched->inputs
};

struct sched_subst {
    ggml_tensor * node;
    int           src_index;
    ggml_tensor * orig;
    ggml_tensor * copy;
    int           input;  // index in sched->inputs
};

}  // namespace

struct ggml_backend_sched {
    int                        n_backends = 0;
    ggml_backend_t             backends[SCHED_MAX_BACKENDS];
    ggml_backend_buffer_type_t bufts[SCHED_MAX_BACKENDS];
    ggml_gallocr_t             galloc     = nullptr;
    size_t                     graph_size = 0;
    bool                       op_offload = false;

    tensor_map                                 ids;   // tensor -> backend of the current graph
    std::vector<std::pair<ggml_tensor *, int>> pins;  // from set_tensor_backend, until reset

    // per call state, vectors reused across calls
    std::vector<sched_split> splits;
    std::vector<sched_input> inputs;
    std::vector<sched_subst> substs;
    std::vector<int>         node_ids, leaf_ids;  // per node/leaf of cur_graph
    std::vector<int>         prev_node_ids, prev_leaf_ids;

    ggml_context * ctx            = nullptr;  // copies and their dependency views (reset per split_graph)
    size_t         ctx_tensors    = 0;        // capacity of ctx in tensors
    ggml_context * ctx_graph      = nullptr;  // holds graph_copy
    ggml_cgraph *  graph_copy     = nullptr;
    int            graph_copy_cap = 0;
    ggml_cgraph *  cur_graph      = nullptr;  // graph_copy, or the user's graph when there are no copies

    bool is_alloc = false;

    ggml_backend_sched_eval_callback eval_cb      = nullptr;
    void *                           eval_cb_data = nullptr;
    ggml_abort_callback              abort_cb     = nullptr;
    void *                           abort_data   = nullptr;

    ~ggml_backend_sched() {
        ggml_gallocr_free(galloc);
        ggml_free(ctx);
        ggml_free(ctx_graph);
    }

    int cpu() const { return n_backends - 1; }

    bool supports(int b, const ggml_tensor * t) const {
        return ggml_backend_op_is_noop(t) || ggml_backend_supports_op(backends[b], t);
    }

    // The first backend (priority order) that can use buf and run t; -1 if none.
    int backend_for_buffer(ggml_backend_buffer_t buf, const ggml_tensor * t) const {
        for (int b = 0; b < n_backends; b++) {
            if (ggml_backend_supports_buft(backends[b], buf->buft) && supports(b, t)) {
                return b;
            }
        }
        return -1;
    }

    bool split_graph(ggml_cgraph * graph);
    bool assign_backends(ggml_cgraph * graph);
    bool find_inputs_and_build(ggml_cgraph * graph);
    bool ensure_ctx(size_t n_tensors);
    bool ensure_graph_copy(int cap);
    bool alloc_splits();
    void apply_substs(bool on) {
        for (const sched_subst & s : substs) {
            s.node->src[s.src_index] = on ? s.copy : s.orig;
        }
    }
    enum ggml_status compute_splits();
    enum ggml_status compute_range(int split_backend, int c0, int c1);
};

// Pass 1 rule for one tensor: -1 = no opinion, -2 = impossible placement (logged).
static int backend_from_cur(ggml_backend_sched * s, const ggml_tensor * t) {
    if (ggml_backend_buffer_t buf = ggml_backend_tensor_buffer(t)) {
        const int b = s->backend_for_buffer(buf, t);
        if (b < 0) {
            GGML_LOG_ERROR(
                "ggml_backend_sched: '%s' (%s) lives in buffer %s but no backend that can use it "
                "supports the op\n",
                t->name, ggml_op_name(t->op), ggml_backend_buffer_name(buf));
            return -2;
        }
        return b;
    }
    if (t->flags & GGML_TENSOR_FLAG_INPUT) {
        return s->cpu();
    }
    for (int j = 0; j < GGML_MAX_SRC; j++) {
        const ggml_tensor * src = t->src[j];
        if (!src) {
            continue;
        }
        ggml_backend_buffer_t buf = ggml_backend_tensor_buffer(src);
        if (!buf || buf->usage != GGML_BACKEND_BUFFER_USAGE_WEIGHTS) {
            continue;
        }
        int b = s->backend_for_buffer(buf, t);
        if (b == s->cpu() && s->op_offload && ggml_backend_buffer_is_host(buf)) {
            for (int o = 0; o < s->cpu(); o++) {
                if (s->supports(o, t) && ggml_backend_offload_op(s->backends[o], t)) {
                    return o;
                }
            }
        }
        if (b >= 0) {
            return b;
        }
    }
    return -1;
}

bool ggml_backend_sched::assign_backends(ggml_cgraph * graph) {
    const int n_nodes = graph->n_nodes;
    const int n_leafs = graph->n_leafs;

    // pass 1: pins, pre-allocated tensors, inputs, weights
    for (int pass = 0; pass < 2; pass++) {
        const int            n    = pass == 0 ? n_leafs : n_nodes;
        ggml_tensor ** const list = pass == 0 ? graph->leafs : graph->nodes;
        for (int i = 0; i < n; i++) {
            tensor_map::entry & e = ids.get(list[i]);
            if (e.backend >= 0) {
                continue;  // pinned
            }
            const int b = backend_from_cur(this, list[i]);
            if (b == -2) {
                return false;
            }
            e.backend = b;
        }
    }

    // pass 2: expand assignments to neighbouring kernel nodes; non-CPU backends first so that a run of
    // GPU-supported ops is not broken by the CPU's default
    for (int round = 0; round < 2; round++) {
        const bool gpu_only = round == 0;
        for (int dir = 0; dir < 2; dir++) {
            int cur = -1;
            for (int k = 0; k < n_nodes; k++) {
                ggml_tensor * node = graph->nodes[dir == 0 ? k : n_nodes - 1 - k];
                if (ggml_backend_op_is_noop(node)) {
                    continue;
                }
                tensor_map::entry & e = ids.get(node);
                if (e.backend >= 0) {
                    cur = (gpu_only && e.backend == cpu()) ? -1 : e.backend;
                } else if (cur >= 0 && supports(cur, node)) {
                    e.backend = cur;
                }
            }
        }
    }

    // pass 3: what is left (no neighbour can run it) goes to the backend, among those supporting it,
    // that can read the most of its already placed sources in place (priority order breaks ties)
    for (int i = 0; i < n_nodes; i++) {
        ggml_tensor * node = graph->nodes[i];
        if (ggml_backend_op_is_noop(node) || ids.backend(node) >= 0) {
            continue;
        }
        int best = -1, best_n = -1;
        for (int b = 0; b < n_backends; b++) {
            if (!supports(b, node)) {
                continue;
            }
            int n = 0;
            for (int j = 0; j < GGML_MAX_SRC; j++) {
                const ggml_tensor * src = node->src[j];
                const int           sb  = src ? ids.backend(src) : -1;
                if (sb < 0) {
                    continue;
                }
                ggml_backend_buffer_t buf = ggml_backend_tensor_buffer(src);
                n += ggml_backend_supports_buft(backends[b], buf ? buf->buft : bufts[sb]) ? 1 : 0;
            }
            if (n > best_n) {
                best   = b;
                best_n = n;
            }
        }
        if (best < 0) {
            GGML_LOG_ERROR("ggml_backend_sched: no backend supports op %s of '%s'\n", ggml_op_name(node->op),
                           node->name);
            return false;
        }
        ids.get(node).backend = best;
    }

    // pass 4: view-like nodes live where their data is; leafs without a placement go to their consumer
    for (int i = 0; i < n_nodes; i++) {
        ggml_tensor * node = graph->nodes[i];
        const bool    noop = ggml_backend_op_is_noop(node);
        if (noop && ids.backend(node) < 0) {
            ggml_tensor * data_src = node->view_src ? node->view_src : node->src[0];
            int           b        = data_src ? ids.backend(data_src) : -1;
            if (b < 0) {
                b = cpu();
                if (data_src) {
                    ids.get(data_src).backend = b;
                }
            }
            ids.get(node).backend = b;
        }
        const int nb = ids.backend(node);
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            ggml_tensor * src = node->src[j];
            if (src && ids.backend(src) < 0) {
                const int vb         = src->view_src ? ids.backend(src->view_src) : -1;
                ids.get(src).backend = vb >= 0 ? vb : nb;
            }
        }
    }
    for (int i = 0; i < n_leafs; i++) {
        tensor_map::entry & e = ids.get(graph->leafs[i]);
        if (e.backend < 0) {
            e.backend = cpu();  // an unused leaf
        }
    }
    return true;
}

bool ggml_backend_sched::ensure_ctx(size_t n_tensors) {
    if (ctx && n_tensors <= ctx_tensors) {
        ggml_reset(ctx);
        return true;
    }
    ggml_free(ctx);
    ctx_tensors        = std::max<size_t>(n_tensors, 2 * ctx_tensors + 64);
    ggml_init_params p = {ctx_tensors * ggml_tensor_overhead(), nullptr, true};
    ctx                = ggml_init(p);
    if (!ctx) {
        ctx_tensors = 0;
        return false;
    }
    return true;
}

bool ggml_backend_sched::ensure_graph_copy(int cap) {
    if (graph_copy && cap <= graph_copy_cap) {
        ggml_graph_clear(graph_copy);
        return true;
    }
    ggml_free(ctx_graph);
    graph_copy         = nullptr;
    graph_copy_cap     = std::max(cap, graph_copy_cap * 2);
    ggml_init_params p = {ggml_graph_overhead_custom((size_t) graph_copy_cap, false), nullptr, true};
    ctx_graph          = ggml_init(p);
    if (!ctx_graph) {
        return false;
    }
    graph_copy = ggml_new_graph_custom(ctx_graph, (size_t) graph_copy_cap, false);
    return graph_copy != nullptr;
}

// Cuts the node list into splits, finds the inputs each split must copy, and builds cur_graph with
// node_ids/leaf_ids for the allocator.
bool ggml_backend_sched::find_inputs_and_build(ggml_cgraph * graph) {
    const int n_nodes = graph->n_nodes;
    const int n_leafs = graph->n_leafs;
    splits.clear();
    inputs.clear();
    substs.clear();

    // splits over the user's node list (c_start/c_end are user indices until graph_copy is built)
    for (int i = 0; i < n_nodes; i++) {
        ggml_tensor * node = graph->nodes[i];
        const int     b    = ids.backend(node);
        if (splits.empty()) {
            splits.push_back({b, i, i + 1, 0, 0});
            continue;
        }
        sched_split & cur = splits.back();
        if (ggml_backend_op_is_noop(node) || b == cur.backend) {
            cur.c_end = i + 1;
            continue;
        }
        // a split made only of view-like nodes takes the backend of the kernel that follows
        bool only_noops = true;
        for (int k = cur.c_start; k < cur.c_end && only_noops; k++) {
            only_noops = ggml_backend_op_is_noop(graph->nodes[k]);
        }
        if (only_noops) {
            cur.backend = b;
            cur.c_end   = i + 1;
        } else {
            splits.push_back({b, i, i + 1, 0, 0});
        }
    }

    // inputs: sources a split's kernels read from a buffer its backend cannot use. One copy per
    // (tensor, backend), shared by later splits on the same backend.
    for (sched_split & sp : splits) {
        sp.in_begin = (int) inputs.size();
        for (int i = sp.c_start; i < sp.c_end; i++) {
            ggml_tensor * node = graph->nodes[i];
            if (ggml_backend_op_is_noop(node)) {
                continue;
            }
            for (int j = 0; j < GGML_MAX_SRC; j++) {
                ggml_tensor * src = node->src[j];
                if (!src) {
                    continue;
                }
                const int sb = ids.backend(src);
                if (sb == sp.backend || sb < 0) {
                    continue;
                }
                ggml_backend_buffer_t      buf  = ggml_backend_tensor_buffer(src);
                ggml_backend_buffer_type_t buft = buf ? buf->buft : bufts[sb];
                if (ggml_backend_supports_buft(backends[sp.backend], buft)) {
                    continue;  // readable in place (e.g. the CPU reading another backend's host buffer)
                }
                int k = 0;
                while (k < (int) inputs.size() && !(inputs[k].src == src && inputs[k].dst_backend == sp.backend)) {
                    k++;
                }
                if (k == (int) inputs.size()) {
                    inputs.push_back({src, nullptr, sb, sp.backend});
                }
                substs.push_back({node, j, src, nullptr, k});
            }
        }
        sp.in_end = (int) inputs.size();
    }

    if (inputs.empty()) {
        // nothing to copy: the allocator and the backends work on the user's graph directly
        cur_graph = graph;
        node_ids.resize(n_nodes);
        leaf_ids.resize(n_leafs);
        for (int i = 0; i < n_nodes; i++) {
            node_ids[i] = ids.backend(graph->nodes[i]);
        }
        for (int i = 0; i < n_leafs; i++) {
            leaf_ids[i] = ids.backend(graph->leafs[i]);
        }
        return true;
    }

    // copies (same layout as their source) and dependency views, in the scheduler's own context
    if (!ensure_ctx(2 * inputs.size())) {
        GGML_LOG_ERROR("ggml_backend_sched: cannot allocate the context for %zu input copies\n", inputs.size());
        return false;
    }
    for (sched_input & in : inputs) {
        ggml_tensor * c =
            ggml_new_tensor_4d(ctx, in.src->type, in.src->ne[0], in.src->ne[1], in.src->ne[2], in.src->ne[3]);
        ggml_tensor * d = ggml_view_tensor(ctx, in.src);
        if (!c || !d) {
            return false;
        }
        std::memcpy(c->nb, in.src->nb, sizeof(c->nb));
        ggml_format_name(c, "%s#%s", ggml_backend_name(backends[in.dst_backend]), in.src->name);
        ggml_format_name(d, "%s#dep", in.src->name);
        // the allocator must neither place it late nor reuse it: it is written before its split runs
        ggml_set_input(c);
        ggml_set_output(c);
        in.copy = c;
        in.dep  = d;
    }
    for (sched_subst & su : substs) {
        su.copy = inputs[su.input].copy;
    }

    // graph_copy: per split, [dependency views of its inputs, the copies, its nodes]; the views keep
    // each source alive (in the allocator's eyes) until the copy that reads it
    const int cap = n_nodes + 2 * (int) inputs.size();
    if (!ensure_graph_copy(std::max(cap, n_leafs))) {
        GGML_LOG_ERROR("ggml_backend_sched: cannot allocate the split graph (%d nodes)\n", cap);
        return false;
    }
    node_ids.resize(cap);
    leaf_ids.resize(n_leafs);
    ggml_cgraph * g = graph_copy;
    for (sched_split & sp : splits) {
        for (int k = sp.in_begin; k < sp.in_end; k++) {
            node_ids[g->n_nodes] = inputs[k].src_backend;
            ggml_graph_add_node(g, inputs[k].dep);
            node_ids[g->n_nodes] = inputs[k].dst_backend;
            ggml_graph_add_node(g, inputs[k].copy);
        }
        const int c0 = g->n_nodes;
        for (int i = sp.c_start; i < sp.c_end; i++) {
            node_ids[g->n_nodes] = ids.backend(graph->nodes[i]);
            ggml_graph_add_node(g, graph->nodes[i]);
        }
        sp.c_start = c0;
        sp.c_end   = g->n_nodes;
    }
    for (int i = 0; i < n_leafs; i++) {
        leaf_ids[i] = ids.backend(graph->leafs[i]);
        ggml_graph_add_leaf(g, graph->leafs[i]);
    }
    node_ids.resize(g->n_nodes);
    cur_graph = g;
    return true;
}

// A graph allocated by an earlier alloc_graph (reused by the caller) still points into compute buffers;
// forget those placements so that the new assignment and plan are made from scratch. Tensors in other
// buffers (weights, KV cache) keep their data.
static void forget_compute_placement(ggml_tensor * t) {
    if (t->buffer && t->buffer->usage == GGML_BACKEND_BUFFER_USAGE_COMPUTE) {
        t->buffer = nullptr;
        t->data   = nullptr;
    }
}

bool ggml_backend_sched::split_graph(ggml_cgraph * graph) {
    for (int i = 0; i < graph->n_leafs; i++) {
        forget_compute_placement(graph->leafs[i]);
    }
    for (int i = 0; i < graph->n_nodes; i++) {
        forget_compute_placement(graph->nodes[i]);
    }
    ids.clear();
    for (const auto & p : pins) {
        ids.get(p.first).backend = p.second;
    }
    if (n_backends == 1) {
        // one backend: everything is on it, nothing to decide
        for (int i = 0; i < graph->n_leafs; i++) {
            ids.get(graph->leafs[i]).backend = 0;
        }
        for (int i = 0; i < graph->n_nodes; i++) {
            ggml_tensor * node    = graph->nodes[i];
            ids.get(node).backend = 0;
            for (int j = 0; j < GGML_MAX_SRC; j++) {
                if (node->src[j]) {
                    ids.get(node->src[j]).backend = 0;
                }
            }
        }
    } else if (!assign_backends(graph)) {
        return false;
    }
    return find_inputs_and_build(graph);
}

// Places cur_graph in the compute buffers. The allocator keeps the buffer ids of its last reserve, so a
// graph with a different shape or placement is reserved again first (buffers grow, never shrink).
bool ggml_backend_sched::alloc_splits() {
    bool ids_changed = node_ids.size() != prev_node_ids.size() || leaf_ids.size() != prev_leaf_ids.size();
    for (size_t i = 0; !ids_changed && i < node_ids.size(); i++) {
        ids_changed = node_ids[i] != prev_node_ids[i];
    }
    for (size_t i = 0; !ids_changed && i < leaf_ids.size(); i++) {
        ids_changed = leaf_ids[i] != prev_leaf_ids[i];
    }
    apply_substs(true);
    bool ok = !ids_changed && ggml_gallocr_alloc_graph(galloc, cur_graph);
    if (!ok) {
        // a new plan may move tensors that queued work still uses
        for (int b = 0; b < n_backends; b++) {
            ggml_backend_synchronize(backends[b]);
        }
        ok = ggml_gallocr_reserve_n(galloc, cur_graph, node_ids.data(), leaf_ids.data()) &&
             ggml_gallocr_alloc_graph(galloc, cur_graph);
    }
    apply_substs(false);
    if (!ok) {
        GGML_LOG_ERROR("ggml_backend_sched: failed to allocate the graph\n");
        return false;
    }
    prev_node_ids.assign(node_ids.begin(), node_ids.end());
    prev_leaf_ids.assign(leaf_ids.begin(), leaf_ids.end());
    return true;
}

enum ggml_status ggml_backend_sched::compute_range(int b, int c0, int c1) {
    ggml_cgraph view = ggml_graph_view(cur_graph, c0, c1);
    return ggml_backend_graph_compute_async(backends[b], &view);
}

enum ggml_status ggml_backend_sched::compute_splits() {
    for (const sched_split & sp : splits) {
        if (abort_cb && abort_cb(abort_data)) {
            return GGML_STATUS_ABORTED;
        }
        for (int k = sp.in_begin; k < sp.in_end; k++) {
            const sched_input & in = inputs[k];
            ggml_backend_tensor_copy_async(backends[in.src_backend], backends[in.dst_backend], in.src, in.copy);
        }
        if (!eval_cb) {
            const enum ggml_status st = compute_range(sp.backend, sp.c_start, sp.c_end);
            if (st != GGML_STATUS_SUCCESS) {
                return st;
            }
            continue;
        }
        // with an eval callback: compute up to the next node the callback wants to see, then show it
        for (int j0 = sp.c_start; j0 < sp.c_end;) {
            int  j1   = j0;
            bool want = false;
            for (; j1 < sp.c_end; j1++) {
                if (eval_cb(cur_graph->nodes[j1], true, eval_cb_data)) {
                    want = true;
                    break;
                }
            }
            if (!want) {
                j1 = sp.c_end - 1;
            }
            const enum ggml_status st = compute_range(sp.backend, j0, j1 + 1);
            if (st != GGML_STATUS_SUCCESS) {
                return st;
            }
            if (want) {
                ggml_backend_synchronize(backends[sp.backend]);
                if (!eval_cb(cur_graph->nodes[j1], false, eval_cb_data)) {
                    return GGML_STATUS_ABORTED;
                }
            }
            j0 = j1 + 1;
        }
    }
    return GGML_STATUS_SUCCESS;
}

extern "C" {

ggml_backend_sched_t ggml_backend_sched_new(ggml_backend_t * backends, ggml_backend_buffer_type_t * bufts,
                                            int n_backends, size_t graph_size, bool parallel, bool op_offload) {
    (void) parallel;  // one copy of each input is kept; pipelining is not implemented
    if (!backends || n_backends < 1 || n_backends > SCHED_MAX_BACKENDS || graph_size == 0) {
        GGML_LOG_ERROR("%s: need 1..%d backends and graph_size > 0\n", __func__, SCHED_MAX_BACKENDS);
        return nullptr;
    }
    for (int i = 0; i < n_backends; i++) {
        if (!backends[i]) {
            GGML_LOG_ERROR("%s: backend %d is NULL\n", __func__, i);
            return nullptr;
        }
    }
    if (ggml_backend_dev_type(ggml_backend_get_device(backends[n_backends - 1])) != GGML_BACKEND_DEVICE_TYPE_CPU) {
        GGML_LOG_ERROR("%s: the last backend must be the CPU (got %s)\n", __func__,
                       ggml_backend_name(backends[n_backends - 1]));
        return nullptr;
    }
    auto * s = new (std::nothrow) ggml_backend_sched;
    if (!s) {
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        return nullptr;
    }
    s->n_backends = n_backends;
    s->graph_size = graph_size;
    s->op_offload = op_offload;
    for (int i = 0; i < n_backends; i++) {
        s->backends[i] = backends[i];
        s->bufts[i]    = (bufts && bufts[i]) ? bufts[i] : ggml_backend_get_default_buffer_type(backends[i]);
        if (!ggml_backend_supports_buft(backends[i], s->bufts[i])) {
            GGML_LOG_ERROR("%s: backend %s cannot use buffer type %s\n", __func__, ggml_backend_name(backends[i]),
                           ggml_backend_buft_name(s->bufts[i]));
            delete s;
            return nullptr;
        }
    }
    s->galloc = ggml_gallocr_new_n(s->bufts, n_backends);
    if (!s->galloc) {
        GGML_LOG_ERROR("%s: failed to create the graph allocator\n", __func__);
        delete s;
        return nullptr;
    }
    try {
        s->node_ids.reserve(graph_size);
        s->leaf_ids.reserve(graph_size);
    } catch (const std::bad_alloc &) {
        delete s;
        return nullptr;
    }
    return s;
}

void ggml_backend_sched_free(ggml_backend_sched_t sched) {
    delete sched;
}

void ggml_backend_sched_reset(ggml_backend_sched_t sched) {
    if (!sched) {
        return;
    }
    sched->ids.clear();
    sched->pins.clear();
    sched->splits.clear();
    sched->inputs.clear();
    sched->substs.clear();
    sched->is_alloc = false;
}

bool ggml_backend_sched_reserve(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph) {
    if (!sched || !measure_graph) {
        GGML_LOG_ERROR("%s: NULL argument\n", __func__);
        return false;
    }
    if (!ggml_graph_is_ok(measure_graph)) {
        GGML_LOG_ERROR("%s: the graph failed to build\n", __func__);
        return false;
    }
    bool ok = false;
    try {
        ok = sched->split_graph(measure_graph);
    } catch (const std::bad_alloc &) {
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
    }
    if (ok) {
        for (int b = 0; b < sched->n_backends; b++) {
            ggml_backend_synchronize(sched->backends[b]);
        }
        sched->apply_substs(true);
        ok = ggml_gallocr_reserve_n(sched->galloc, sched->cur_graph, sched->node_ids.data(), sched->leaf_ids.data());
        sched->apply_substs(false);
        if (!ok) {
            GGML_LOG_ERROR("%s: failed to reserve the compute buffers\n", __func__);
        }
    }
    // the measure graph's tensors are not allocated: the next alloc_graph re-plans against this reserve
    sched->prev_node_ids.clear();
    sched->prev_leaf_ids.clear();
    ggml_backend_sched_reset(sched);
    return ok;
}

bool ggml_backend_sched_alloc_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    if (!sched || !graph) {
        GGML_LOG_ERROR("%s: NULL argument\n", __func__);
        return false;
    }
    if (!ggml_graph_is_ok(graph)) {
        GGML_LOG_ERROR("%s: the graph failed to build\n", __func__);
        return false;
    }
    sched->is_alloc = false;
    try {
        if (!sched->split_graph(graph) || !sched->alloc_splits()) {
            return false;
        }
    } catch (const std::bad_alloc &) {
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        return false;
    }
    sched->is_alloc = true;
    return true;
}

enum ggml_status ggml_backend_sched_graph_compute_async(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    if (!sched || !graph) {
        GGML_LOG_ERROR("%s: NULL argument\n", __func__);
        return GGML_STATUS_FAILED;
    }
    if (!sched->is_alloc && !ggml_backend_sched_alloc_graph(sched, graph)) {
        return GGML_STATUS_ALLOC_FAILED;
    }
    sched->apply_substs(true);
    const enum ggml_status st = sched->compute_splits();
    sched->apply_substs(false);
    return st;
}

enum ggml_status ggml_backend_sched_graph_compute(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    const enum ggml_status st = ggml_backend_sched_graph_compute_async(sched, graph);
    ggml_backend_sched_synchronize(sched);
    return st;
}

void ggml_backend_sched_synchronize(ggml_backend_sched_t sched) {
    if (!sched) {
        return;
    }
    for (int b = 0; b < sched->n_backends; b++) {
        ggml_backend_synchronize(sched->backends[b]);
    }
}

int ggml_backend_sched_get_n_backends(ggml_backend_sched_t sched) {
    return sched ? sched->n_backends : 0;
}

ggml_backend_t ggml_backend_sched_get_backend(ggml_backend_sched_t sched, int i) {
    if (!sched || i < 0 || i >= sched->n_backends) {
        return nullptr;
    }
    return sched->backends[i];
}

int ggml_backend_sched_get_n_splits(ggml_backend_sched_t sched) {
    return sched ? (int) sched->splits.size() : 0;
}

int ggml_backend_sched_get_n_copies(ggml_backend_sched_t sched) {
    return sched ? 1 : 0;
}

size_t ggml_backend_sched_get_buffer_size(ggml_backend_sched_t sched, ggml_backend_t backend) {
    if (!sched) {
        return 0;
    }
    for (int b = 0; b < sched->n_backends; b++) {
        if (sched->backends[b] == backend) {
            return ggml_gallocr_get_buffer_size(sched->galloc, b);
        }
    }
    return 0;
}

void ggml_backend_sched_set_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node,
                                           ggml_backend_t backend) {
    if (!sched || !node) {
        return;
    }
    int b = 0;
    while (b < sched->n_backends && sched->backends[b] != backend) {
        b++;
    }
    if (b == sched->n_backends) {
        GGML_LOG_ERROR("%s: backend %s is not in the scheduler\n", __func__, ggml_backend_name(backend));
        return;
    }
    sched->ids.get(node).backend = b;
    for (auto & p : sched->pins) {
        if (p.first == node) {
            p.second = b;
            return;
        }
    }
    sched->pins.emplace_back(node, b);
}

ggml_backend_t ggml_backend_sched_get_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node) {
    if (!sched || !node) {
        return nullptr;
    }
    const int b = sched->ids.backend(node);
    return b >= 0 ? sched->backends[b] : nullptr;
}

void ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched, ggml_backend_sched_eval_callback callback,
                                          void * user_data) {
    if (sched) {
        sched->eval_cb      = callback;
        sched->eval_cb_data = user_data;
    }
}

void ggml_backend_sched_set_abort_callback(ggml_backend_sched_t sched, ggml_abort_callback callback, void * user_data) {
    if (!sched) {
        return;
    }
    sched->abort_cb   = callback;
    sched->abort_data = user_data;
    // backends that can stop mid-graph (the CPU) check it between nodes too; found through the registry
    for (int b = 0; b < sched->n_backends; b++) {
        ggml_backend_reg_set_abort_callback(sched->backends[b], callback, user_data);
    }
}

}  // extern "C"
