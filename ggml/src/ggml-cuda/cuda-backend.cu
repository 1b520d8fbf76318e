// cuda-backend.cu — the CUDA backend (a compute stream on one device). graph_compute launches every
// node on the backend's non-blocking stream and returns without waiting (ggml_backend_synchronize
// waits); each node goes to its op family (common.cuh) and each launch is checked, so a failing kernel
// is a logged GGML_STATUS_FAILED, never an abort. Also: the scratch pool behind ggml_cuda_op_ctx,
// async copies ordered on the stream, cross-backend copies and events.
#include "cuda-context.cuh"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace {

constexpr size_t k_cublas_workspace = 32u << 20;  // NVIDIA's recommendation for Hopper
constexpr size_t k_scratch_granule  = 1u << 20;

cuda_backend_ctx * ctx_of(ggml_backend_t b) {
    return (cuda_backend_ctx *) b->context;
}

bool set_dev(const cuda_backend_ctx * c) {
    return ggml_cuda_set_device(c->dev->info.device);
}

bool env_flag(const char * name) {
    const char * e = std::getenv(name);
    return e && *e && std::strcmp(e, "0") != 0;
}

// ---- scratch pool: one grow-only device region per slot ----------------------------------------

void * scratch_get(void * user, int slot, size_t bytes) {
    auto * c = (cuda_backend_ctx *) user;
    if (slot < 0 || slot >= GGML_CUDA_SCRATCH_SLOTS) {
        GGML_LOG_ERROR("ggml-cuda: %s: scratch slot %d out of range\n", c->name.c_str(), slot);
        return nullptr;
    }
    auto & s = c->scratch[slot];
    if (s.ptr && bytes <= s.size) {
        return s.ptr;
    }
    if (c->capturing) {
        // cannot allocate inside a stream capture: the capture is abandoned and the graph runs eagerly
        c->capture_broken = true;
        return nullptr;
    }
    // queued kernels may still use the old region, and cached CUDA graphs hold its address
    if (CUDA_FAILED(cudaStreamSynchronize(c->stream))) {
        return nullptr;
    }
    ggml_cuda_graph_clear(c);
    if (s.ptr) {
        CUDA_FAILED(cudaFree(s.ptr));
        s.ptr  = nullptr;
        s.size = 0;
    }
    const size_t want = (std::max<size_t>(bytes, 1) + k_scratch_granule - 1) / k_scratch_granule * k_scratch_granule;
    const cudaError_t err = cudaMalloc(&s.ptr, want);
    if (err != cudaSuccess) {
        (void) cudaGetLastError();
        s.ptr = nullptr;
        GGML_LOG_ERROR("ggml-cuda: %s: cannot allocate %.2f MiB of scratch memory (slot %d): %s\n", c->name.c_str(),
                       want / 1048576.0, slot, cudaGetErrorString(err));
        return nullptr;
    }
    s.size = want;
    return s.ptr;
}

bool init_cublas(cuda_backend_ctx * c) {
    if (CUBLAS_FAILED(cublasCreate(&c->cublas))) {
        c->cublas = nullptr;
        return false;
    }
    // a fixed workspace: cuBLAS then never allocates during a stream capture
    if (CUBLAS_FAILED(cublasSetStream(c->cublas, c->stream)) ||
        CUDA_FAILED(cudaMalloc(&c->cublas_ws, k_cublas_workspace)) ||
        CUBLAS_FAILED(cublasSetWorkspace(c->cublas, c->cublas_ws, k_cublas_workspace))) {
        cublasDestroy(c->cublas);
        c->cublas = nullptr;
        if (c->cublas_ws) {
            cudaFree(c->cublas_ws);
            c->cublas_ws = nullptr;
        }
        return false;
    }
    return true;
}

// ---- backend vtable ------------------------------------------------------------------------------

const char * backend_get_name(ggml_backend_t b) {
    return ctx_of(b)->name.c_str();
}

void destroy_ctx(cuda_backend_ctx * c) {
    if (set_dev(c)) {
        if (c->stream) {
            CUDA_FAILED(cudaStreamSynchronize(c->stream));
        }
        ggml_cuda_graph_clear(c);
        for (auto & s : c->scratch) {
            if (s.ptr) {
                cudaFree(s.ptr);
            }
        }
        if (c->cublas) {
            cublasDestroy(c->cublas);
        }
        if (c->cublas_ws) {
            cudaFree(c->cublas_ws);
        }
        if (c->copy_event) {
            cudaEventDestroy(c->copy_event);
        }
        if (c->stream) {
            cudaStreamDestroy(c->stream);
        }
        (void) cudaGetLastError();
    }
    delete c;
}

void backend_free(ggml_backend_t b) {
    destroy_ctx(ctx_of(b));
    delete b;
}

// Where t lives relative to this backend: 1 our device's memory, 0 host memory, -1 elsewhere.
int placement(const cuda_backend_ctx * c, const ggml_tensor * t) {
    ggml_backend_buffer_t buf = ggml_backend_tensor_buffer(t);
    if (ggml_cuda_buffer_device(buf) == c->dev->info.device) {
        return 1;
    }
    return ggml_backend_buffer_is_host(buf) ? 0 : -1;
}

// The caller keeps `data` valid and unchanged until ggml_backend_synchronize.
void backend_set_tensor_async(ggml_backend_t b, ggml_tensor * t, const void * data, size_t offset, size_t size) {
    cuda_backend_ctx * c = ctx_of(b);
    const int          p = placement(c, t);
    if (!set_dev(c)) {
        return;
    }
    if (p != 1) {
        // not in our memory: order after our queued work, then the buffer's own synchronous path
        CUDA_FAILED(cudaStreamSynchronize(c->stream));
        ggml_backend_tensor_set(t, data, offset, size);
        return;
    }
    CUDA_FAILED(cudaMemcpyAsync((uint8_t *) t->data + offset, data, size, cudaMemcpyHostToDevice, c->stream));
}

void backend_get_tensor_async(ggml_backend_t b, const ggml_tensor * t, void * data, size_t offset, size_t size) {
    cuda_backend_ctx * c = ctx_of(b);
    const int          p = placement(c, t);
    if (!set_dev(c)) {
        return;
    }
    if (p != 1) {
        CUDA_FAILED(cudaStreamSynchronize(c->stream));
        ggml_backend_tensor_get(t, data, offset, size);
        return;
    }
    CUDA_FAILED(cudaMemcpyAsync(data, (const uint8_t *) t->data + offset, size, cudaMemcpyDeviceToHost, c->stream));
}

// Device to device between two CUDA backends (same GPU or peers) without the host. The copy runs on the
// source's stream, after the work that produced src and after the destination's queued work (which may
// still read what dst overwrites); the destination's stream then waits for the copy.
bool backend_cpy_tensor_async(ggml_backend_t bsrc, ggml_backend_t bdst, const ggml_tensor * src, ggml_tensor * dst) {
    if (!ggml_cuda_backend_is_ours(bsrc) || !ggml_cuda_backend_is_ours(bdst)) {
        return false;
    }
    cuda_backend_ctx * cs = ctx_of(bsrc);
    cuda_backend_ctx * cd = ctx_of(bdst);
    if (placement(cs, src) != 1 || placement(cd, dst) != 1) {
        return false;
    }
    const size_t n = ggml_nbytes(dst);
    if (cs == cd) {
        return set_dev(cd) &&
               !CUDA_FAILED(cudaMemcpyAsync(dst->data, src->data, n, cudaMemcpyDeviceToDevice, cd->stream));
    }
    const int sdev = cs->dev->info.device, ddev = cd->dev->info.device;
    if (!set_dev(cd) || CUDA_FAILED(cudaEventRecord(cd->copy_event, cd->stream)) || !set_dev(cs) ||
        CUDA_FAILED(cudaStreamWaitEvent(cs->stream, cd->copy_event, 0))) {
        return false;
    }
    const cudaError_t err = sdev == ddev
                                ? cudaMemcpyAsync(dst->data, src->data, n, cudaMemcpyDeviceToDevice, cs->stream)
                                : cudaMemcpyPeerAsync(dst->data, ddev, src->data, sdev, n, cs->stream);
    return !CUDA_FAILED(err) && !CUDA_FAILED(cudaEventRecord(cs->copy_event, cs->stream)) && set_dev(cd) &&
           !CUDA_FAILED(cudaStreamWaitEvent(cd->stream, cs->copy_event, 0));
}

void backend_synchronize(ggml_backend_t b) {
    cuda_backend_ctx * c = ctx_of(b);
    if (set_dev(c)) {
        // a kernel fault surfaces here at the latest; it is logged (synchronize has no return value)
        CUDA_FAILED(cudaStreamSynchronize(c->stream));
    }
}

enum ggml_status backend_graph_compute(ggml_backend_t b, ggml_cgraph * gf) {
    cuda_backend_ctx * c = ctx_of(b);
    if (!set_dev(c) || (!c->cublas && !init_cublas(c))) {
        GGML_LOG_ERROR("ggml-cuda: %s: cannot prepare the device for a graph\n", c->name.c_str());
        return GGML_STATUS_FAILED;
    }
    enum ggml_status st = GGML_STATUS_SUCCESS;
    if (ggml_cuda_graph_try(c, gf, &st)) {
        return st;
    }
    return ggml_cuda_run_nodes(c, gf);
}

void backend_event_record(ggml_backend_t b, ggml_backend_event_t ev) {
    cuda_backend_ctx * c = ctx_of(b);
    if (!ev || ev->device != b->device) {
        GGML_LOG_ERROR("ggml-cuda: %s: the event belongs to another device\n", c->name.c_str());
        return;
    }
    if (set_dev(c)) {
        CUDA_FAILED(cudaEventRecord((cudaEvent_t) ev->context, c->stream));
    }
}

void backend_event_wait(ggml_backend_t b, ggml_backend_event_t ev) {
    cuda_backend_ctx * c = ctx_of(b);
    if (!ev || !ev->device || ev->device->reg != ggml_backend_cuda_reg()) {
        GGML_LOG_ERROR("ggml-cuda: %s: cannot wait for an event of another backend family\n", c->name.c_str());
        return;
    }
    if (set_dev(c)) {
        CUDA_FAILED(cudaStreamWaitEvent(c->stream, (cudaEvent_t) ev->context, 0));  // works across devices
    }
}

const ggml_backend_i k_backend_iface = {
    backend_get_name,         backend_free,        backend_set_tensor_async, backend_get_tensor_async,
    backend_cpy_tensor_async, backend_synchronize, backend_graph_compute,    backend_event_record,
    backend_event_wait,
};

}  // namespace

enum ggml_status ggml_cuda_run_nodes(cuda_backend_ctx * c, ggml_cgraph * gf) {
    ggml_cuda_op_ctx op;
    op.info         = &c->dev->info;
    op.stream       = c->stream;
    op.cublas       = c->cublas;
    op.scratch_fn   = scratch_get;
    op.scratch_user = c;
    for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
        ggml_tensor * node = ggml_graph_node(gf, i);
        if (ggml_backend_op_is_noop(node) || ggml_nelements(node) == 0) {
            continue;
        }
        const bool        ok  = ggml_cuda_op_run(op, node);  // cuda-op-table.cu
        const cudaError_t err = cudaGetLastError();          // launch errors (and earlier asynchronous faults)
        if (!ok || err != cudaSuccess) {
            if (!c->capturing) {  // a failed capture is retried eagerly, which reports for real
                GGML_LOG_ERROR("ggml-cuda: %s: node %d (%s, op %s) failed%s%s\n", c->name.c_str(), i, node->name,
                               ggml_op_name(node->op), err != cudaSuccess ? ": " : "",
                               err != cudaSuccess ? cudaGetErrorString(err) : "");
            }
            return GGML_STATUS_FAILED;
        }
    }
    return GGML_STATUS_SUCCESS;
}

ggml_backend_t ggml_cuda_backend_new(cuda_device * dev) {
    auto * c          = new cuda_backend_ctx();
    c->dev            = dev;
    c->name           = dev->name;
    c->graphs_enabled = !env_flag("GGML_CUDA_DISABLE_GRAPHS");
    if (!set_dev(c) || CUDA_FAILED(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking)) ||
        CUDA_FAILED(cudaEventCreateWithFlags(&c->copy_event, cudaEventDisableTiming))) {
        destroy_ctx(c);
        return nullptr;
    }
    return new ggml_backend{k_backend_iface, &dev->dev, c};
}

bool ggml_cuda_backend_is_ours(ggml_backend_t backend) {
    return backend && backend->iface.graph_compute == backend_graph_compute;
}

void ggml_cuda_graph_counts(ggml_backend_t backend, uint64_t * captures, uint64_t * launches) {
    const bool ours = ggml_cuda_backend_is_ours(backend);
    if (captures) {
        *captures = ours ? ctx_of(backend)->n_graph_captures : 0;
    }
    if (launches) {
        *launches = ours ? ctx_of(backend)->n_graph_launches : 0;
    }
}

// ---- events (device vtable) ------------------------------------------------------------------------

ggml_backend_event_t ggml_cuda_event_new(ggml_backend_dev_t dev) {
    const cuda_device * d  = (const cuda_device *) dev->context;
    cudaEvent_t         ev = nullptr;
    if (!ggml_cuda_set_device(d->info.device) || CUDA_FAILED(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming))) {
        return nullptr;
    }
    return new ggml_backend_event{dev, ev};
}

void ggml_cuda_event_free(ggml_backend_dev_t, ggml_backend_event_t ev) {
    if (!ev) {
        return;
    }
    const cuda_device * d = (const cuda_device *) ev->device->context;
    if (ggml_cuda_set_device(d->info.device)) {
        CUDA_FAILED(cudaEventDestroy((cudaEvent_t) ev->context));
    }
    delete ev;
}

void ggml_cuda_event_synchronize(ggml_backend_dev_t, ggml_backend_event_t ev) {
    if (ev) {
        CUDA_FAILED(cudaEventSynchronize((cudaEvent_t) ev->context));
    }
}
