// cuda-context.cuh — internal state of the CUDA backend's core, shared by its files:
//   cuda-check.cu    ggml_cuda_check / ggml_cuda_check_cublas (logging of failed calls)
//   cuda-device.cu   enumeration, ggml_cuda_device_info, registry and device vtables, supports_op
//   cuda-buffer.cu   device buffer type (cudaMalloc) and pinned host buffer type (cudaHostAlloc)
//   cuda-backend.cu  the backend: stream, cuBLAS handle, scratch pool, async copies, events, graph compute
//   cuda-graph.cu    CUDA-graph capture and replay of single-token graphs
// The op families (ops-*.cu, mm-*.cu, fa-*.cu) see only common.cuh.
#pragma once

#include "common.cuh"
#include "ggml-cuda.h"

#include <string>
#include <vector>

// One usable CUDA device (enumerated once; process lifetime).
struct cuda_device {
    int                   index = 0;    // position in the registry (== CUDA ordinal of usable devices)
    std::string           name;         // "CUDA0"
    std::string           description;  // "NVIDIA H200"
    ggml_cuda_device_info info;

    ggml_backend_buffer_type buft{};
    ggml_backend_device      dev{};
};

// One cached CUDA graph: the node signature it was captured for and its executable instance.
struct cuda_graph_entry {
    std::vector<uint64_t> sig;
    cudaGraphExec_t       exec     = nullptr;
    bool                  failed   = false;  // capture/instantiation failed once: always run this shape eagerly
    uint64_t              last_use = 0;
};

struct cuda_backend_ctx {
    cuda_device *  dev = nullptr;
    std::string    name;
    cudaStream_t   stream     = nullptr;  // non-blocking: never implicitly ordered with the legacy stream
    cublasHandle_t cublas     = nullptr;  // created on the first graph compute, bound to stream
    void *         cublas_ws  = nullptr;  // fixed cuBLAS workspace (so capture never allocates)
    cudaEvent_t    copy_event = nullptr;  // orders cross-backend copies

    struct scratch_slot {
        void * ptr  = nullptr;
        size_t size = 0;
    } scratch[GGML_CUDA_SCRATCH_SLOTS];

    // CUDA graphs (cuda-graph.cu)
    bool                          graphs_enabled = true;
    bool                          capturing      = false;  // a stream capture is in progress
    bool                          capture_broken = false;  // something during capture cannot be captured
    uint64_t                      graph_clock    = 0;
    std::vector<cuda_graph_entry> graphs;
    uint64_t                      n_graph_captures = 0;  // counters for tests and the GPU check
    uint64_t                      n_graph_launches = 0;
};

// ---- cuda-device.cu
std::vector<cuda_device *> & ggml_cuda_devices();               // enumerated once; empty without driver/GPU
bool                         ggml_cuda_set_device(int device);  // false (logged) on failure
bool                         ggml_cuda_dev_supports_op(const cuda_device * dev, const ggml_tensor * op);

// ---- cuda-buffer.cu
extern const ggml_backend_buffer_type_i ggml_cuda_buffer_type_iface;
ggml_backend_buffer_type_t              ggml_cuda_host_buffer_type_get();  // NULL without devices
bool                                    ggml_cuda_is_device_buffer(ggml_backend_buffer_t buf);
int                                     ggml_cuda_buffer_device(ggml_backend_buffer_t buf);  // -1 if not ours

// ---- cuda-backend.cu
ggml_backend_t ggml_cuda_backend_new(cuda_device * dev);
bool           ggml_cuda_backend_is_ours(ggml_backend_t backend);
// Dispatches every node of gf on ctx's stream, checking each launch; logs and fails on the first error.
enum ggml_status     ggml_cuda_run_nodes(cuda_backend_ctx * ctx, ggml_cgraph * gf);
ggml_backend_event_t ggml_cuda_event_new(ggml_backend_dev_t dev);
void                 ggml_cuda_event_free(ggml_backend_dev_t dev, ggml_backend_event_t ev);
void                 ggml_cuda_event_synchronize(ggml_backend_dev_t dev, ggml_backend_event_t ev);
// CUDA graphs captured and launched by a CUDA backend so far (0, 0 for another backend).
void ggml_cuda_graph_counts(ggml_backend_t backend, uint64_t * captures, uint64_t * launches);

// ---- cuda-graph.cu
// Runs gf through a cached CUDA graph when it is a single-token graph seen before; true = handled
// (*status set), false = the caller runs the nodes eagerly (first sighting, capture failed, disabled).
bool ggml_cuda_graph_try(cuda_backend_ctx * ctx, ggml_cgraph * gf, enum ggml_status * status);
// Drops every cached graph (they hold scratch addresses that are about to change). Caller has synchronized.
void ggml_cuda_graph_clear(cuda_backend_ctx * ctx);
