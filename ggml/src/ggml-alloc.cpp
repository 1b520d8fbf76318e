// ggml-alloc.cpp — the linear tensor allocator (tallocr) and the graph allocator (gallocr).
//
// gallocr plans a graph in one pass over its nodes (liveness by remaining-consumer counts):
//   1. every leaf without data (the caller fills them before compute) and every INPUT tensor is
//      placed first, so no node that runs earlier can share its memory; INPUT/OUTPUT tensors are
//      never freed;
//   2. per node in order: place it (in place over a dying source when the op is elementwise and the
//      layouts match, else best-fit from the free list), then drop one consumer from each source and
//      free a source's block when nothing reads it any more (a view keeps its view_src alive);
//   3. the high-water mark of each buffer is the size to reserve.
// In-place ops are those the core op table marks GGML_OPF_INPLACE (and split GLU); every backend's
// kernels for them must tolerate dst == src with identical layout.
// Each alloc_graph re-plans (O(nodes), no heap allocation in steady state) and only grows buffers.
#include "ggml-alloc.h"
#include "ggml-op-table.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

#include "ggml-backend.h"
#include "ggml-core.h"

namespace {

size_t align_up(size_t x, size_t a) {
    return a ? (x + a - 1) / a * a : x;
}

// Best-fit allocator over offsets of one (virtual) buffer. The last block is the unbounded tail;
// max_size is the high-water mark.
struct dyn_alloc {
    struct block {
        size_t offset;
        size_t size;
    };

    size_t             alignment = 1;
    size_t             max_size  = 0;
    std::vector<block> blocks;

    void reset(size_t align) {
        alignment = align ? align : 1;
        max_size  = 0;
        blocks.clear();
        blocks.push_back({0, SIZE_MAX / 2});
    }

    // the rounded size a request really takes (zero-byte tensors still get a distinct address)
    size_t rounded(size_t size) const { return std::max(align_up(size, alignment), alignment); }

    size_t alloc(size_t size) {
        size              = rounded(size);
        size_t best       = blocks.size() - 1;
        size_t best_slack = SIZE_MAX;
        for (size_t i = 0; i + 1 < blocks.size(); i++) {
            if (blocks[i].size >= size && blocks[i].size - size < best_slack) {
                best       = i;
                best_slack = blocks[i].size - size;
            }
        }
        const size_t offset = blocks[best].offset;
        blocks[best].offset += size;
        blocks[best].size -= size;
        if (blocks[best].size == 0 && best + 1 < blocks.size()) {
            blocks.erase(blocks.begin() + (ptrdiff_t) best);
        }
        max_size = std::max(max_size, offset + size);
        return offset;
    }

    void release(size_t offset, size_t size) {
        size = rounded(size);
        // blocks are sorted by offset; insert and merge with the neighbours it touches
        size_t i = 0;
        while (i < blocks.size() && blocks[i].offset < offset) {
            i++;
        }
        const bool merge_prev = i > 0 && blocks[i - 1].offset + blocks[i - 1].size == offset;
        const bool merge_next = i < blocks.size() && offset + size == blocks[i].offset;
        if (merge_prev && merge_next) {
            blocks[i - 1].size += size + blocks[i].size;
            blocks.erase(blocks.begin() + (ptrdiff_t) i);
        } else if (merge_prev) {
            blocks[i - 1].size += size;
        } else if (merge_next) {
            blocks[i].offset = offset;
            blocks[i].size += size;
        } else {
            blocks.insert(blocks.begin() + (ptrdiff_t) i, block{offset, size});
        }
    }
};

// What the planner knows about one tensor.
struct tinfo {
    int    n_children = 0;  // consumers (src[] slots of graph nodes) still to run
    int    n_views    = 0;  // views of it still alive
    int    buffer_id  = 0;
    size_t offset     = 0;
    size_t size       = 0;      // bytes requested (the block holds dyn_alloc::rounded(size))
    bool   planned    = false;  // has an address in this plan (own block, inherited block or view)
    bool   owns       = false;  // holds a block to give back when it dies
};

// Open-addressing map tensor* -> tinfo; cleared per plan without freeing its storage.
class tensor_infos {
public:
    void reset(size_t expected) {
        size_t cap = 64;
        while (cap < expected * 2) {
            cap <<= 1;
        }
        if (keys_.size() < cap) {
            keys_.assign(cap, nullptr);
            vals_.assign(cap, tinfo{});
        } else {
            std::fill(keys_.begin(), keys_.end(), nullptr);
        }
        count_ = 0;
    }

    // References stay valid until the next insertion of a new key (which may grow the table).
    tinfo & get(const ggml_tensor * t) {
        size_t i = find(t);
        if (keys_[i] == t) {
            return vals_[i];
        }
        if ((count_ + 1) * 4 > keys_.size() * 3) {
            grow();
            i = find(t);
        }
        keys_[i] = t;
        vals_[i] = tinfo{};
        count_++;
        return vals_[i];
    }

private:
    // the slot holding t, or the empty slot where it would go
    size_t find(const ggml_tensor * t) const {
        const size_t mask = keys_.size() - 1;
        size_t       i    = hash(t) & mask;
        while (keys_[i] && keys_[i] != t) {
            i = (i + 1) & mask;
        }
        return i;
    }

    static size_t hash(const ggml_tensor * t) {
        return (size_t) (((uint64_t) (uintptr_t) t >> 4) * 0x9E3779B97F4A7C15ull >> 17);
    }

    void grow() {
        std::vector<const ggml_tensor *> keys(keys_.size() * 2, nullptr);
        std::vector<tinfo>               vals(keys_.size() * 2);
        const size_t                     mask = keys.size() - 1;
        for (size_t j = 0; j < keys_.size(); j++) {
            if (keys_[j]) {
                size_t i = hash(keys_[j]) & mask;
                while (keys[i]) {
                    i = (i + 1) & mask;
                }
                keys[i] = keys_[j];
                vals[i] = vals_[j];
            }
        }
        keys_.swap(keys);
        vals_.swap(vals);
    }

    std::vector<const ggml_tensor *> keys_;
    std::vector<tinfo>               vals_;
    size_t                           count_ = 0;
};

bool op_can_inplace(const ggml_tensor * t) {
    return ggml_op_node_can_inplace(t);  // ggml-op-table.h
}

constexpr int32_t KEEP_FLAGS = GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT;

}  // namespace

struct ggml_gallocr {
    std::vector<ggml_backend_buffer_type_t> bufts;
    std::vector<ggml_backend_buffer_t>      buffers;
    std::vector<dyn_alloc>                  allocs;
    tensor_infos                            infos;
    std::vector<int>                        node_ids;  // from the last reserve_n (multi-buffer plans)
    std::vector<int>                        leaf_ids;
    bool                                    failed = false;  // set by the planner on an error

    bool plan(ggml_cgraph * gf, const int * nids, const int * lids);
    void place(ggml_tensor * t);
    void release(ggml_tensor * t);
    bool ensure_buffers(bool may_grow);
    bool apply(ggml_tensor * t);
};

void ggml_gallocr::place(ggml_tensor * t) {
    tinfo & ti = infos.get(t);
    if (ti.planned || t->data) {
        return;  // already placed in this plan, or data that is not ours (weights, KV cache)
    }
    if (t->view_src) {
        place(t->view_src);
        tinfo & vi    = infos.get(t->view_src);
        tinfo & ti2   = infos.get(t);  // the map may have grown
        ti2.planned   = true;
        ti2.buffer_id = vi.buffer_id;
        ti2.offset    = vi.offset + t->view_offs;
        return;
    }
    const int bid = ti.buffer_id;
    if (op_can_inplace(t)) {
        for (int i = 0; i < GGML_MAX_SRC; i++) {
            ggml_tensor * s = t->src[i];
            if (!s || s->view_src || (s->flags & KEEP_FLAGS) || !ggml_are_same_layout(t, s)) {
                continue;
            }
            tinfo & si = infos.get(s);
            if (!si.owns || si.buffer_id != bid || si.n_children != 1 || si.n_views != 0) {
                continue;
            }
            // t takes over s's block: s dies as t is computed, and elementwise kernels read each
            // element before writing it
            tinfo & ti2 = infos.get(t);
            ti2.planned = true;
            ti2.owns    = true;
            ti2.offset  = si.offset;
            ti2.size    = si.size;
            si.owns     = false;
            return;
        }
    }
    const size_t size = ggml_backend_buft_get_alloc_size(bufts[bid], t);
    const size_t offs = allocs[bid].alloc(size);
    tinfo &      ti2  = infos.get(t);
    ti2.planned       = true;
    ti2.owns          = true;
    ti2.offset        = offs;
    ti2.size          = size;
}

void ggml_gallocr::release(ggml_tensor * t) {
    tinfo & ti = infos.get(t);
    if (t->view_src) {
        tinfo & vi = infos.get(t->view_src);
        if (--vi.n_views == 0 && vi.n_children == 0) {
            release(t->view_src);
        }
        return;
    }
    if (ti.owns && !(t->flags & KEEP_FLAGS)) {
        allocs[ti.buffer_id].release(ti.offset, ti.size);
        ti.owns = false;
    }
}

bool ggml_gallocr::plan(ggml_cgraph * gf, const int * nids, const int * lids) {
    const int n_bufs = (int) bufts.size();
    for (int b = 0; b < n_bufs; b++) {
        allocs[b].reset(ggml_backend_buft_get_alignment(bufts[b]));
    }
    infos.reset((size_t) (gf->n_nodes + gf->n_leafs) + 16);

    // buffer ids first, so that every later lookup sees them
    for (int i = 0; i < gf->n_leafs; i++) {
        const int b = lids ? lids[i] : 0;
        if (b < 0 || b >= n_bufs) {
            GGML_LOG_ERROR("[gallocr] leaf %d has buffer id %d, expected [0, %d)", i, b, n_bufs);
            return false;
        }
        infos.get(gf->leafs[i]).buffer_id = b;
    }
    for (int i = 0; i < gf->n_nodes; i++) {
        const int b = nids ? nids[i] : 0;
        if (b < 0 || b >= n_bufs) {
            GGML_LOG_ERROR("[gallocr] node %d has buffer id %d, expected [0, %d)", i, b, n_bufs);
            return false;
        }
        infos.get(gf->nodes[i]).buffer_id = b;
    }
    // liveness: consumers per tensor, and views per viewed tensor
    for (int i = 0; i < gf->n_nodes; i++) {
        ggml_tensor * node = gf->nodes[i];
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            if (node->src[j]) {
                infos.get(node->src[j]).n_children++;
            }
        }
        if (node->view_src) {
            infos.get(node->view_src).n_views++;
        }
    }
    // inputs first: leafs the caller fills, and anything flagged INPUT
    for (int i = 0; i < gf->n_leafs; i++) {
        place(gf->leafs[i]);
    }
    for (int i = 0; i < gf->n_nodes; i++) {
        ggml_tensor * node = gf->nodes[i];
        if (node->flags & GGML_TENSOR_FLAG_INPUT) {
            place(node);
        }
        // graphs assembled without their leafs (ggml_graph_add_node) still get inputs placed first
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            ggml_tensor * s = node->src[j];
            if (s && s->op == GGML_OP_NONE && !s->view_src) {
                place(s);
            }
        }
    }
    for (int i = 0; i < gf->n_nodes; i++) {
        ggml_tensor * node = gf->nodes[i];
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            if (node->src[j]) {
                place(node->src[j]);  // no-op for graphs built by ggml_build_forward_expand
            }
        }
        place(node);
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            ggml_tensor * s = node->src[j];
            if (!s) {
                continue;
            }
            tinfo & si = infos.get(s);
            if (--si.n_children == 0 && si.n_views == 0) {
                release(s);
            }
        }
    }
    return true;
}

bool ggml_gallocr::ensure_buffers(bool may_grow) {
    for (size_t b = 0; b < bufts.size(); b++) {
        const size_t need = allocs[b].max_size;
        const size_t have = buffers[b] ? ggml_backend_buffer_get_size(buffers[b]) : 0;
        if (need <= have && (buffers[b] || need == 0)) {
            continue;
        }
        if (!may_grow) {
            GGML_LOG_ERROR(
                "[gallocr] buffer %zu needs %zu bytes but %zu are reserved; call ggml_gallocr_reserve_n "
                "with the new graph",
                b, need, have);
            return false;
        }
        const size_t max = ggml_backend_buft_get_max_size(bufts[b]);
        if (max && need > max) {
            GGML_LOG_ERROR("[gallocr] buffer %zu needs %zu bytes, more than the %zu the buffer type %s allows", b, need,
                           max, ggml_backend_buft_name(bufts[b]));
            return false;
        }
        if (buffers[b]) {
            GGML_LOG_DEBUG("[gallocr] growing buffer %zu of %s from %zu to %zu bytes", b,
                           ggml_backend_buft_name(bufts[b]), have, need);
        }
        ggml_backend_buffer_free(buffers[b]);
        buffers[b] = ggml_backend_buft_alloc_buffer(bufts[b], need);
        if (!buffers[b]) {
            GGML_LOG_ERROR("[gallocr] failed to allocate a %s buffer of %zu bytes", ggml_backend_buft_name(bufts[b]),
                           need);
            return false;
        }
        ggml_backend_buffer_set_usage(buffers[b], GGML_BACKEND_BUFFER_USAGE_COMPUTE);
    }
    return true;
}

bool ggml_gallocr::apply(ggml_tensor * t) {
    if (t->data) {
        return true;
    }
    tinfo & ti = infos.get(t);
    if (!ti.planned) {
        return true;
    }
    if (t->view_src) {
        if (!apply(t->view_src)) {
            return false;
        }
        if (!t->view_src->data) {
            return true;
        }
        t->buffer = t->view_src->buffer;
        t->data   = (char *) t->view_src->data + t->view_offs;
    } else {
        ggml_backend_buffer_t buf = buffers[ti.buffer_id];
        t->buffer                 = buf;
        t->data                   = (char *) ggml_backend_buffer_get_base(buf) + ti.offset;
    }
    if (t->buffer && ggml_backend_buffer_init_tensor(t->buffer, t) != GGML_STATUS_SUCCESS) {
        GGML_LOG_ERROR("[gallocr] the buffer refused tensor '%s'", t->name);
        return false;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// C API

ggml_gallocr_t ggml_gallocr_new_n(ggml_backend_buffer_type_t * bufts, int n_bufs) {
    if (!bufts || n_bufs <= 0) {
        GGML_LOG_ERROR("[gallocr_new] need at least one buffer type");
        return nullptr;
    }
    for (int i = 0; i < n_bufs; i++) {
        if (!bufts[i]) {
            GGML_LOG_ERROR("[gallocr_new] buffer type %d is NULL", i);
            return nullptr;
        }
    }
    ggml_gallocr * g = new (std::nothrow) ggml_gallocr;
    if (!g) {
        GGML_LOG_ERROR("[gallocr_new] out of memory");
        return nullptr;
    }
    try {
        g->bufts.assign(bufts, bufts + n_bufs);
        g->buffers.assign((size_t) n_bufs, nullptr);
        g->allocs.resize((size_t) n_bufs);
    } catch (...) {
        delete g;
        GGML_LOG_ERROR("[gallocr_new] out of memory");
        return nullptr;
    }
    return g;
}

ggml_gallocr_t ggml_gallocr_new(ggml_backend_buffer_type_t buft) {
    return ggml_gallocr_new_n(&buft, 1);
}

void ggml_gallocr_free(ggml_gallocr_t galloc) {
    if (!galloc) {
        return;
    }
    for (ggml_backend_buffer_t b : galloc->buffers) {
        ggml_backend_buffer_free(b);
    }
    delete galloc;
}

static bool gallocr_check_graph(ggml_gallocr_t galloc, ggml_cgraph * graph, const char * who) {
    if (!galloc || !graph) {
        GGML_LOG_ERROR("[%s] allocator or graph is NULL", who);
        return false;
    }
    if (!ggml_graph_is_ok(graph)) {
        GGML_LOG_ERROR("[%s] the graph failed to build (see the earlier error)", who);
        return false;
    }
    return true;
}

bool ggml_gallocr_reserve_n(ggml_gallocr_t galloc, ggml_cgraph * graph, const int * node_buffer_ids,
                            const int * leaf_buffer_ids) {
    if (!gallocr_check_graph(galloc, graph, "gallocr_reserve")) {
        return false;
    }
    try {
        if (!galloc->plan(graph, node_buffer_ids, leaf_buffer_ids)) {
            return false;
        }
        galloc->node_ids.assign((size_t) graph->n_nodes, 0);
        galloc->leaf_ids.assign((size_t) graph->n_leafs, 0);
        if (node_buffer_ids) {
            std::copy(node_buffer_ids, node_buffer_ids + graph->n_nodes, galloc->node_ids.begin());
        }
        if (leaf_buffer_ids) {
            std::copy(leaf_buffer_ids, leaf_buffer_ids + graph->n_leafs, galloc->leaf_ids.begin());
        }
        return galloc->ensure_buffers(true);
    } catch (const std::exception & e) {
        GGML_LOG_ERROR("[gallocr_reserve] %s", e.what());
        return false;
    }
}

bool ggml_gallocr_reserve(ggml_gallocr_t galloc, ggml_cgraph * graph) {
    return ggml_gallocr_reserve_n(galloc, graph, nullptr, nullptr);
}

bool ggml_gallocr_alloc_graph(ggml_gallocr_t galloc, ggml_cgraph * graph) {
    if (!gallocr_check_graph(galloc, graph, "gallocr_alloc_graph")) {
        return false;
    }
    try {
        const bool  multi = galloc->bufts.size() > 1;
        const int * nids  = nullptr;
        const int * lids  = nullptr;
        if (multi) {
            // buffer ids are per node index: only the reserved graph's shape can be placed
            if (galloc->node_ids.size() != (size_t) graph->n_nodes ||
                galloc->leaf_ids.size() != (size_t) graph->n_leafs) {
                GGML_LOG_ERROR(
                    "[gallocr_alloc_graph] the graph (%d nodes, %d leafs) differs from the reserved one "
                    "(%zu, %zu); call ggml_gallocr_reserve_n first",
                    graph->n_nodes, graph->n_leafs, galloc->node_ids.size(), galloc->leaf_ids.size());
                return false;
            }
            nids = galloc->node_ids.data();
            lids = galloc->leaf_ids.data();
        }
        if (!galloc->plan(graph, nids, lids) || !galloc->ensure_buffers(!multi)) {
            return false;
        }
        for (int i = 0; i < graph->n_leafs; i++) {
            if (!galloc->apply(graph->leafs[i])) {
                return false;
            }
        }
        for (int i = 0; i < graph->n_nodes; i++) {
            ggml_tensor * node = graph->nodes[i];
            for (int j = 0; j < GGML_MAX_SRC; j++) {
                if (node->src[j] && !galloc->apply(node->src[j])) {
                    return false;
                }
            }
            if (!galloc->apply(node)) {
                return false;
            }
        }
        return true;
    } catch (const std::exception & e) {
        GGML_LOG_ERROR("[gallocr_alloc_graph] %s", e.what());
        return false;
    }
}

size_t ggml_gallocr_get_buffer_size(ggml_gallocr_t galloc, int buffer_id) {
    if (!galloc || buffer_id < 0 || (size_t) buffer_id >= galloc->buffers.size() || !galloc->buffers[buffer_id]) {
        return 0;
    }
    // a buffer shared by several ids is counted once, under the first
    for (int i = 0; i < buffer_id; i++) {
        if (galloc->buffers[i] == galloc->buffers[buffer_id]) {
            return 0;
        }
    }
    return ggml_backend_buffer_get_size(galloc->buffers[buffer_id]);
}

// ---------------------------------------------------------------------------------------------
// tallocr

struct ggml_tallocr ggml_tallocr_new(ggml_backend_buffer_t buffer) {
    struct ggml_tallocr t = {buffer, nullptr, 1, 0};
    if (!buffer) {
        GGML_LOG_ERROR("[tallocr_new] buffer is NULL");
        return t;
    }
    t.base      = ggml_backend_buffer_get_base(buffer);
    t.alignment = ggml_backend_buffer_get_alignment(buffer);
    if (!t.alignment) {
        t.alignment = 1;
    }
    // start at the first aligned address of the buffer
    t.offset = align_up((uintptr_t) t.base, t.alignment) - (uintptr_t) t.base;
    return t;
}

bool ggml_tallocr_alloc(struct ggml_tallocr * talloc, struct ggml_tensor * t) {
    if (!talloc || !talloc->buffer || !t) {
        GGML_LOG_ERROR("[tallocr_alloc] allocator, buffer or tensor is NULL");
        return false;
    }
    if (t->data) {
        GGML_LOG_ERROR("[tallocr_alloc] tensor '%s' already has data", t->name);
        return false;
    }
    if (t->view_src) {
        if (!t->view_src->data) {
            GGML_LOG_ERROR("[tallocr_alloc] view '%s' of an unallocated tensor", t->name);
            return false;
        }
        t->buffer = t->view_src->buffer;
        t->data   = (char *) t->view_src->data + t->view_offs;
    } else {
        const size_t size = ggml_backend_buffer_get_alloc_size(talloc->buffer, t);
        const size_t cap  = ggml_backend_buffer_get_size(talloc->buffer);
        if (talloc->offset > cap || size > cap - talloc->offset) {
            GGML_LOG_ERROR("[tallocr_alloc] not enough space in buffer %s for tensor '%s' (need %zu bytes, %zu left)",
                           ggml_backend_buffer_name(talloc->buffer), t->name, size,
                           cap > talloc->offset ? cap - talloc->offset : 0);
            return false;
        }
        t->buffer = talloc->buffer;
        t->data   = (char *) talloc->base + talloc->offset;
        talloc->offset += align_up(size, talloc->alignment);
    }
    if (ggml_backend_buffer_init_tensor(t->buffer, t) != GGML_STATUS_SUCCESS) {
        GGML_LOG_ERROR("[tallocr_alloc] the buffer refused tensor '%s'", t->name);
        return false;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// context tensors -> one buffer

ggml_backend_buffer_t ggml_backend_alloc_ctx_tensors_from_buft(struct ggml_context *      ctx,
                                                               ggml_backend_buffer_type_t buft) {
    if (!ctx || !buft) {
        GGML_LOG_ERROR("[alloc_ctx_tensors] context or buffer type is NULL");
        return nullptr;
    }
    if (!ggml_get_no_alloc(ctx)) {
        GGML_LOG_ERROR("[alloc_ctx_tensors] the context must be a no_alloc context");
        return nullptr;
    }
    const size_t align    = std::max<size_t>(1, ggml_backend_buft_get_alignment(buft));
    const size_t max_size = ggml_backend_buft_get_max_size(buft);
    size_t       total    = 0;
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        if (!t->data && !t->view_src) {
            const size_t sz = align_up(ggml_backend_buft_get_alloc_size(buft, t), align);
            if (max_size && sz > max_size) {
                GGML_LOG_ERROR("[alloc_ctx_tensors] tensor '%s' (%zu bytes) exceeds the max allocation of %s (%zu)",
                               t->name, sz, ggml_backend_buft_name(buft), max_size);
                return nullptr;
            }
            total += sz;
        }
    }
    if (total == 0) {
        GGML_LOG_DEBUG("[alloc_ctx_tensors] nothing to allocate");
        return nullptr;
    }
    if (max_size && total > max_size) {
        GGML_LOG_ERROR("[alloc_ctx_tensors] the tensors need %zu bytes, more than one %s buffer allows (%zu)", total,
                       ggml_backend_buft_name(buft), max_size);
        return nullptr;
    }
    ggml_backend_buffer_t buffer = ggml_backend_buft_alloc_buffer(buft, total);
    if (!buffer) {
        GGML_LOG_ERROR("[alloc_ctx_tensors] failed to allocate a %s buffer of %zu bytes", ggml_backend_buft_name(buft),
                       total);
        return nullptr;
    }
    ggml_tallocr talloc = ggml_tallocr_new(buffer);
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        if (!t->data && !t->view_src && !ggml_tallocr_alloc(&talloc, t)) {
            ggml_backend_buffer_free(buffer);
            return nullptr;
        }
    }
    // views of tensors that now have data
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        if (!t->data && t->view_src && t->view_src->data && !ggml_tallocr_alloc(&talloc, t)) {
            ggml_backend_buffer_free(buffer);
            return nullptr;
        }
    }
    return buffer;
}

ggml_backend_buffer_t ggml_backend_alloc_ctx_tensors(struct ggml_context * ctx, ggml_backend_t backend) {
    if (!backend) {
        GGML_LOG_ERROR("[alloc_ctx_tensors] backend is NULL");
        return nullptr;
    }
    return ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_get_default_buffer_type(backend));
}
