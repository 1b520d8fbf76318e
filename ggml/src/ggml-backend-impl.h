// ggml-backend-impl.h — the vtables a backend family implements (CPU here; Vulkan and CUDA in their
// own folders). The public functions of ggml-backend.h dispatch through these; a new backend fills
// them in and registers its ggml_backend_reg without touching the core.
//
// Conventions: every iface function receives its object, whose `context` holds the backend's state.
// Members marked "optional" may be NULL; the core then uses the stated fallback. Functions never
// abort on bad input: they log through GGML_LOG_ERROR and return an error value.
#pragma once

#include "ggml-backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GGML_BACKEND_API_VERSION 1

// ---- buffer type: a kind of memory -------------------------------------------------------------
struct ggml_backend_buffer_type_i {
    const char * (*get_name)(ggml_backend_buffer_type_t buft);
    // NULL on failure (logged). size may be 0.
    ggml_backend_buffer_t (*alloc_buffer)(ggml_backend_buffer_type_t buft, size_t size);
    size_t (*get_alignment)(ggml_backend_buffer_type_t buft);  // power of two
    size_t (*get_max_size)(ggml_backend_buffer_type_t buft);   // optional: SIZE_MAX
    // optional: ggml_nbytes(t). Types that pad (e.g. quantized rows to a tile) say so here.
    size_t (*get_alloc_size)(ggml_backend_buffer_type_t buft, const struct ggml_tensor * t);
    bool (*is_host)(ggml_backend_buffer_type_t buft);  // optional: false. true = data is a CPU pointer
};

struct ggml_backend_buffer_type {
    struct ggml_backend_buffer_type_i iface;
    ggml_backend_dev_t                device;  // may be NULL for a host type shared by devices
    void *                            context;
};

// ---- buffer: one allocation ----------------------------------------------------------------------
struct ggml_backend_buffer_i {
    void (*free_buffer)(ggml_backend_buffer_t buffer);  // optional: releases `context`
    // Base address used for tensor->data (a device address for non-host buffers; never dereferenced
    // by the core unless the buffer is host).
    void * (*get_base)(ggml_backend_buffer_t buffer);
    // optional: per-tensor setup when a tensor is placed in the buffer (e.g. a device extra).
    enum ggml_status (*init_tensor)(ggml_backend_buffer_t buffer, struct ggml_tensor * t);
    // Byte ranges below are relative to t->data and already bounds-checked by the core.
    void (*memset_tensor)(ggml_backend_buffer_t buffer, struct ggml_tensor * t, uint8_t value, size_t offset,
                          size_t size);
    void (*set_tensor)(ggml_backend_buffer_t buffer, struct ggml_tensor * t, const void * data, size_t offset,
                       size_t size);
    void (*get_tensor)(ggml_backend_buffer_t buffer, const struct ggml_tensor * t, void * data, size_t offset,
                       size_t size);
    // optional: copy src (any buffer) into dst (in this buffer) directly; false = not handled, the core
    // then copies through host memory.
    bool (*cpy_tensor)(ggml_backend_buffer_t buffer, const struct ggml_tensor * src, struct ggml_tensor * dst);
    void (*clear)(ggml_backend_buffer_t buffer, uint8_t value);  // whole buffer
    void (*reset)(ggml_backend_buffer_t buffer);                 // optional: forget per-tensor extras
};

struct ggml_backend_buffer {
    struct ggml_backend_buffer_i   iface;
    ggml_backend_buffer_type_t     buft;
    void *                         context;
    size_t                         size;
    enum ggml_backend_buffer_usage usage;
};

// Wraps an allocation made by a buffer type (the buft's alloc_buffer calls this). NULL on failure.
// GGML_API: exported from libggml for backend modules (as are ggml_backend_tensor_buffer,
// ggml_backend_op_is_noop, ggml_log_internal and ggml_iq_grids_get: the module ABI, with the structs of
// this header; GGML_BACKEND_API_VERSION changes when any of it does).
GGML_API ggml_backend_buffer_t ggml_backend_buffer_init(ggml_backend_buffer_type_t   buft,
                                                        struct ggml_backend_buffer_i iface, void * context,
                                                        size_t size);

// Places t at addr inside buffer (addr in [base, base + size - alloc_size]) and runs init_tensor.
// Used by the allocators. Returns an error status (logged) if t does not fit.
enum ggml_status ggml_backend_tensor_alloc(ggml_backend_buffer_t buffer, struct ggml_tensor * t, void * addr);
// Gives a view its data pointer and buffer from its view_src (which must be allocated).
enum ggml_status ggml_backend_view_init(struct ggml_tensor * t);

// The buffer holding t's data (t->buffer, or its view source's), or NULL if t is not allocated.
GGML_API ggml_backend_buffer_t ggml_backend_tensor_buffer(const struct ggml_tensor * t);

// Copies src into dst using the fastest path: a backend's cpy_tensor_async, else a synchronous copy.
void ggml_backend_tensor_copy_async(ggml_backend_t backend_src, ggml_backend_t backend_dst, struct ggml_tensor * src,
                                    struct ggml_tensor * dst);

// ---- events (optional; for async multi-device pipelines) ---------------------------------------
struct ggml_backend_event {
    ggml_backend_dev_t device;
    void *             context;
};

// ---- backend: a compute stream -------------------------------------------------------------------
struct ggml_backend_i {
    const char * (*get_name)(ggml_backend_t backend);
    void (*free)(ggml_backend_t backend);  // releases context and the ggml_backend itself

    // optional async copies, ordered with respect to graph_compute on this stream; the core falls
    // back to the synchronous buffer functions when NULL.
    void (*set_tensor_async)(ggml_backend_t backend, struct ggml_tensor * t, const void * data, size_t offset,
                             size_t size);
    void (*get_tensor_async)(ggml_backend_t backend, const struct ggml_tensor * t, void * data, size_t offset,
                             size_t size);
    // optional: copy src (on backend_src) into dst (on backend_dst) without going through the host;
    // false = not handled. Called on the destination's backend.
    bool (*cpy_tensor_async)(ggml_backend_t backend_src, ggml_backend_t backend_dst, const struct ggml_tensor * src,
                             struct ggml_tensor * dst);
    void (*synchronize)(ggml_backend_t backend);  // optional: waits for queued work (no-op if NULL)

    // Computes every node of graph. May return before completion if the backend is async
    // (synchronize waits). Nodes with op NONE/VIEW/RESHAPE/PERMUTE/TRANSPOSE are no-ops.
    enum ggml_status (*graph_compute)(ggml_backend_t backend, struct ggml_cgraph * graph);

    // optional events
    void (*event_record)(ggml_backend_t backend, ggml_backend_event_t event);
    void (*event_wait)(ggml_backend_t backend, ggml_backend_event_t event);
};

struct ggml_backend {
    struct ggml_backend_i iface;
    ggml_backend_dev_t    device;
    void *                context;
};

// ---- device ----------------------------------------------------------------------------------------
struct ggml_backend_device_i {
    const char * (*get_name)(ggml_backend_dev_t dev);         // short, unique: "CPU", "Vulkan0", "CUDA0"
    const char * (*get_description)(ggml_backend_dev_t dev);  // human: the model name
    void (*get_memory)(ggml_backend_dev_t dev, size_t * free, size_t * total);
    enum ggml_backend_dev_type (*get_type)(ggml_backend_dev_t dev);
    void (*get_props)(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props);  // optional: built
                                                                                       // from the above
    // NULL on failure (logged). params: backend-specific, may be NULL.
    ggml_backend_t (*init_backend)(ggml_backend_dev_t dev, const char * params);
    ggml_backend_buffer_type_t (*get_buffer_type)(ggml_backend_dev_t dev);
    ggml_backend_buffer_type_t (*get_host_buffer_type)(ggml_backend_dev_t dev);  // optional: pinned memory
    // optional: wraps host memory (mmap'd weights) without copying.
    ggml_backend_buffer_t (*buffer_from_host_ptr)(ggml_backend_dev_t dev, void * ptr, size_t size,
                                                  size_t max_tensor_size);
    // Exact: true iff graph_compute handles this node (types, shapes, strides, op params).
    bool (*supports_op)(ggml_backend_dev_t dev, const struct ggml_tensor * op);
    // True if this device's backends can read/write tensors of this buffer type directly.
    bool (*supports_buft)(ggml_backend_dev_t dev, ggml_backend_buffer_type_t buft);
    // optional (false): wants the op even though its weights are in host memory (worth the upload).
    bool (*offload_op)(ggml_backend_dev_t dev, const struct ggml_tensor * op);
    // optional events
    ggml_backend_event_t (*event_new)(ggml_backend_dev_t dev);
    void (*event_free)(ggml_backend_dev_t dev, ggml_backend_event_t event);
    void (*event_synchronize)(ggml_backend_dev_t dev, ggml_backend_event_t event);
};

struct ggml_backend_device {
    struct ggml_backend_device_i iface;
    ggml_backend_reg_t           reg;
    void *                       context;
};

// ---- registry: a backend family ----------------------------------------------------------------
struct ggml_backend_reg_i {
    const char * (*get_name)(ggml_backend_reg_t reg);
    size_t (*get_device_count)(ggml_backend_reg_t reg);
    ggml_backend_dev_t (*get_device)(ggml_backend_reg_t reg, size_t index);
    void * (*get_proc_address)(ggml_backend_reg_t reg, const char * name);  // optional: NULL
};

struct ggml_backend_reg {
    int                       api_version;  // GGML_BACKEND_API_VERSION
    struct ggml_backend_reg_i iface;
    void *                    context;
};

// ---- backend modules (shared builds; ggml-backend.h "backend modules") ------------------------------
// A module exports three C functions (src/module/backend-module-entry.cpp): ggml_backend_module_abi()
// returns GGML_BACKEND_MODULE_ABI (the loader refuses a library without it or with another value: a
// foreign or stale file), ggml_backend_init() its registry (a process-lifetime object; it must not start
// the GPU runtime: devices are enumerated later, on demand), and optionally ggml_backend_score() (0:
// cannot run here).
#define GGML_BACKEND_MODULE_ABI "libllama-ggml-module-" GGML_BACKEND_STR(GGML_BACKEND_API_VERSION)
#define GGML_BACKEND_STR(x)     GGML_BACKEND_STR_(x)
#define GGML_BACKEND_STR_(x)    #x
typedef const char * (*ggml_backend_module_abi_t)(void);
typedef ggml_backend_reg_t (*ggml_backend_init_t)(void);
typedef int (*ggml_backend_score_t)(void);

// The GPU families' registries; each returns a process-lifetime object.
// (Linked into libggml in static builds, GGML_USE_*; the entry of each module otherwise.)
ggml_backend_reg_t ggml_backend_vk_reg(void);
ggml_backend_reg_t ggml_backend_cuda_reg(void);

// Gives `backend` the abort callback checked between the nodes of a graph, when its family can stop
// mid-graph: the family's "ggml_backend_set_abort_callback" proc address (the CPU's registry exports
// it). Other backends are left as they are. The scheduler reaches every backend this way, through the
// registry, instead of calling a backend by name.
void ggml_backend_reg_set_abort_callback(ggml_backend_t backend, ggml_abort_callback callback, void * user_data);

// True for ops whose result aliases their source (no kernel work): NONE, VIEW, RESHAPE, PERMUTE,
// TRANSPOSE. Backends skip them; the scheduler never splits on them.
GGML_API bool ggml_backend_op_is_noop(const struct ggml_tensor * t);

#ifdef __cplusplus
}
#endif
