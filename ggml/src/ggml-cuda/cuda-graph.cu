// cuda-graph.cu — CUDA graphs for single-token decode. Launching a decode graph node by node costs a
// few microseconds of CPU per kernel, which for small batches is as long as the kernels themselves.
// A graph is identified by a signature of everything a launch depends on (per node: op, type, shape,
// strides, op params, data addresses of the node and its sources). The first time a signature is seen
// it runs eagerly (which also sizes the scratch pool); the second time it is captured into a CUDA
// graph and instantiated; from then on the whole graph is one cudaGraphLaunch. A capture that fails
// (an op that cannot be captured, a scratch pool that would have to grow) marks the signature so it
// always runs eagerly, and this call runs eagerly too: graphs are an optimisation, never a failure.
// GGML_CUDA_DISABLE_GRAPHS=1 turns them off.
#include "cuda-context.cuh"

#include <algorithm>
#include <cstring>

namespace {

constexpr size_t k_max_graphs = 8;  // signatures remembered per backend (n_kv steps, partial-offload splits)

// Only single-token graphs: prompt batches are dominated by kernel time, and their shapes rarely repeat.
bool eligible(ggml_cgraph * gf) {
    bool has_mm = false;
    for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
        const ggml_tensor * n = ggml_graph_node(gf, i);
        if (n->op == GGML_OP_MUL_MAT) {
            if (n->ne[1] > 1) {
                return false;
            }
            has_mm = true;
        } else if (n->op == GGML_OP_MUL_MAT_ID) {
            if (n->src[1] && n->src[1]->ne[2] > 1) {
                return false;
            }
            has_mm = true;
        }
    }
    return has_mm;
}

void push_tensor(std::vector<uint64_t> & s, const ggml_tensor * t) {
    s.push_back((uint64_t) (uintptr_t) t->data);
    s.push_back((uint64_t) t->type | ((uint64_t) t->op << 32));
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        s.push_back((uint64_t) t->ne[d]);
        s.push_back((uint64_t) t->nb[d]);
    }
}

std::vector<uint64_t> signature(ggml_cgraph * gf) {
    std::vector<uint64_t> s;
    s.reserve((size_t) ggml_graph_n_nodes(gf) * 48);
    for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
        const ggml_tensor * n = ggml_graph_node(gf, i);
        if (ggml_backend_op_is_noop(n) || ggml_nelements(n) == 0) {
            continue;
        }
        push_tensor(s, n);
        uint64_t p[GGML_MAX_OP_PARAMS / sizeof(uint64_t)];
        std::memcpy(p, n->op_params, sizeof(p));
        s.insert(s.end(), p, p + GGML_MAX_OP_PARAMS / sizeof(uint64_t));
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            if (n->src[j]) {
                s.push_back(0x5352430000000000ull | (uint64_t) j);  // "SRC" + index: keeps positions unambiguous
                push_tensor(s, n->src[j]);
            }
        }
        s.push_back(~0ull);
    }
    return s;
}

void destroy_entry(cuda_graph_entry & e) {
    if (e.exec) {
        CUDA_FAILED(cudaGraphExecDestroy(e.exec));
        e.exec = nullptr;
    }
}

// Captures gf on ctx's stream and instantiates it into e; false (debug-logged) if it cannot be captured.
bool capture(cuda_backend_ctx * ctx, ggml_cgraph * gf, cuda_graph_entry & e) {
    if (CUDA_FAILED(cudaStreamBeginCapture(ctx->stream, cudaStreamCaptureModeThreadLocal))) {
        return false;
    }
    ctx->capturing               = true;
    ctx->capture_broken          = false;
    const enum ggml_status st    = ggml_cuda_run_nodes(ctx, gf);
    cudaGraph_t            graph = nullptr;
    const cudaError_t      end   = cudaStreamEndCapture(ctx->stream, &graph);  // always ends the capture
    ctx->capturing               = false;
    bool ok = st == GGML_STATUS_SUCCESS && end == cudaSuccess && !ctx->capture_broken && graph != nullptr;
    if (ok) {
        ok = cudaGraphInstantiate(&e.exec, graph, 0) == cudaSuccess;
    }
    if (graph) {
        cudaGraphDestroy(graph);
    }
    (void) cudaGetLastError();  // the capture's errors are not the next launch's
    if (!ok) {
        e.exec = nullptr;
        GGML_LOG_DEBUG("ggml-cuda: %s: graph of %d nodes cannot be captured (%s); it runs without CUDA graphs\n",
                       ctx->name.c_str(), ggml_graph_n_nodes(gf),
                       end != cudaSuccess ? cudaGetErrorString(end) : "an op refused or needed new memory");
        return false;
    }
    ctx->n_graph_captures++;
    return true;
}

}  // namespace

bool ggml_cuda_graph_try(cuda_backend_ctx * ctx, ggml_cgraph * gf, enum ggml_status * status) {
    if (!ctx->graphs_enabled || !eligible(gf)) {
        return false;
    }
    std::vector<uint64_t> sig = signature(gf);
    ctx->graph_clock++;
    auto it =
        std::find_if(ctx->graphs.begin(), ctx->graphs.end(), [&](const cuda_graph_entry & e) { return e.sig == sig; });
    if (it == ctx->graphs.end()) {
        // first sighting: run eagerly; captured if it comes again
        if (ctx->graphs.size() >= k_max_graphs) {
            auto lru = std::min_element(
                ctx->graphs.begin(), ctx->graphs.end(),
                [](const cuda_graph_entry & a, const cuda_graph_entry & b) { return a.last_use < b.last_use; });
            // the stream may still run the evicted graph: destroying an exec is safe while it is in flight
            destroy_entry(*lru);
            ctx->graphs.erase(lru);
        }
        cuda_graph_entry e;
        e.sig      = std::move(sig);
        e.last_use = ctx->graph_clock;
        ctx->graphs.push_back(std::move(e));
        return false;
    }
    cuda_graph_entry & e = *it;
    e.last_use           = ctx->graph_clock;
    if (e.failed) {
        return false;
    }
    if (!e.exec && !capture(ctx, gf, e)) {
        e.failed = true;
        return false;
    }
    if (CUDA_FAILED(cudaGraphLaunch(e.exec, ctx->stream))) {
        destroy_entry(e);
        e.failed = true;
        return false;
    }
    ctx->n_graph_launches++;
    *status = GGML_STATUS_SUCCESS;
    return true;
}

void ggml_cuda_graph_clear(cuda_backend_ctx * ctx) {
    for (cuda_graph_entry & e : ctx->graphs) {
        destroy_entry(e);
    }
    ctx->graphs.clear();
}
