/*
 * ggml-backend.h — where tensors live and who computes graphs.
 *
 *  buffer type  (ggml_backend_buffer_type_t): a kind of memory (CPU RAM, Vulkan device memory, ...)
 *               with an alignment and a maximum allocation size; it allocates buffers.
 *  buffer       (ggml_backend_buffer_t): one allocation; tensors are placed in it (ggml_tallocr,
 *               ggml_gallocr) and read/written with ggml_backend_tensor_set/get.
 *  backend      (ggml_backend_t): a compute stream on a device; computes graphs whose tensors are in
 *               buffers it can use, answers supports_op exactly.
 *  device       (ggml_backend_dev_t): a physical or logical device with a name, memory figures and
 *               a type; it creates backends and exposes its buffer types.
 *  registry     (ggml_backend_reg_t): a backend family (cpu, vulkan, cuda) enumerating devices. The
 *               global registry lists every family compiled in; devices are enumerated from it.
 *  scheduler    (ggml_backend_sched_t): runs one graph over several backends: assigns each node to
 *               a backend, splits the graph where the backend changes, copies inputs between them.
 *
 * Error policy: functions that can fail return NULL/false/an error status and log the reason.
 * Ownership: *_free releases what *_init, *_new, *_alloc returned; devices, registries and buffer
 * types are owned by the library and live until process exit.
 */
#pragma once

#include "ggml-alloc.h"
#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ggml_backend_event * ggml_backend_event_t;
typedef struct ggml_backend_reg *   ggml_backend_reg_t;
typedef struct ggml_backend_device * ggml_backend_dev_t;

enum ggml_status {
    GGML_STATUS_ALLOC_FAILED = -2,
    GGML_STATUS_FAILED       = -1, /* compute failed (e.g. an index out of range in get_rows) */
    GGML_STATUS_SUCCESS      = 0,
    GGML_STATUS_ABORTED      = 1,  /* the abort callback asked to stop */
};
GGML_API const char * ggml_status_to_string(enum ggml_status status);

/* ---- buffer types ---- */
GGML_API const char *          ggml_backend_buft_name(ggml_backend_buffer_type_t buft);
/* NULL (logged) on failure. size 0 gives a valid empty buffer. */
GGML_API ggml_backend_buffer_t ggml_backend_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size);
GGML_API size_t                ggml_backend_buft_get_alignment(ggml_backend_buffer_type_t buft);
GGML_API size_t                ggml_backend_buft_get_max_size(ggml_backend_buffer_type_t buft);
/* Bytes t needs in a buffer of this type (>= ggml_nbytes; some types pad). */
GGML_API size_t                ggml_backend_buft_get_alloc_size(ggml_backend_buffer_type_t buft,
                                                                const struct ggml_tensor * t);
GGML_API bool                  ggml_backend_buft_is_host(ggml_backend_buffer_type_t buft);
GGML_API ggml_backend_dev_t    ggml_backend_buft_get_device(ggml_backend_buffer_type_t buft);

/* ---- buffers ---- */
enum ggml_backend_buffer_usage {
    GGML_BACKEND_BUFFER_USAGE_ANY     = 0,
    GGML_BACKEND_BUFFER_USAGE_WEIGHTS = 1, /* lets the scheduler place ops next to their weights */
    GGML_BACKEND_BUFFER_USAGE_COMPUTE = 2,
};

GGML_API const char *               ggml_backend_buffer_name(ggml_backend_buffer_t buffer);
GGML_API void                       ggml_backend_buffer_free(ggml_backend_buffer_t buffer); /* NULL ok */
GGML_API void *                     ggml_backend_buffer_get_base(ggml_backend_buffer_t buffer);
GGML_API size_t                     ggml_backend_buffer_get_size(ggml_backend_buffer_t buffer);
/* Called when a tensor is placed in the buffer (views inherit); returns a status. */
GGML_API enum ggml_status           ggml_backend_buffer_init_tensor(ggml_backend_buffer_t buffer,
                                                                    struct ggml_tensor * t);
GGML_API size_t                     ggml_backend_buffer_get_alignment(ggml_backend_buffer_t buffer);
GGML_API size_t                     ggml_backend_buffer_get_max_size(ggml_backend_buffer_t buffer);
GGML_API size_t                     ggml_backend_buffer_get_alloc_size(ggml_backend_buffer_t buffer,
                                                                       const struct ggml_tensor * t);
GGML_API void                       ggml_backend_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value);
GGML_API bool                       ggml_backend_buffer_is_host(ggml_backend_buffer_t buffer);
GGML_API void                       ggml_backend_buffer_set_usage(ggml_backend_buffer_t buffer,
                                                                  enum ggml_backend_buffer_usage usage);
GGML_API enum ggml_backend_buffer_usage ggml_backend_buffer_get_usage(ggml_backend_buffer_t buffer);
GGML_API ggml_backend_buffer_type_t ggml_backend_buffer_get_type(ggml_backend_buffer_t buffer);

/* A CPU buffer wrapping caller-owned memory (e.g. an mmap'd model file); not freed by the buffer. */
GGML_API ggml_backend_buffer_t ggml_backend_cpu_buffer_from_ptr(void * ptr, size_t size);
GGML_API ggml_backend_buffer_type_t ggml_backend_cpu_buffer_type(void);

/* ---- tensor data (t must be allocated in a buffer; offset + size must lie inside t) ----
 * These copy synchronously. Out-of-bounds requests are refused with a logged error. */
GGML_API void ggml_backend_tensor_set(struct ggml_tensor * t, const void * data, size_t offset, size_t size);
GGML_API void ggml_backend_tensor_get(const struct ggml_tensor * t, void * data, size_t offset, size_t size);
GGML_API void ggml_backend_tensor_memset(struct ggml_tensor * t, uint8_t value, size_t offset, size_t size);
/* Copies src into dst (same layout and size), across backends if needed. */
GGML_API void ggml_backend_tensor_copy(struct ggml_tensor * src, struct ggml_tensor * dst);

/* ---- backends ---- */
GGML_API const char *               ggml_backend_name(ggml_backend_t backend);
GGML_API void                       ggml_backend_free(ggml_backend_t backend); /* NULL ok */
GGML_API ggml_backend_dev_t         ggml_backend_get_device(ggml_backend_t backend);
GGML_API ggml_backend_buffer_type_t ggml_backend_get_default_buffer_type(ggml_backend_t backend);
GGML_API ggml_backend_buffer_t      ggml_backend_alloc_buffer(ggml_backend_t backend, size_t size);
GGML_API size_t                     ggml_backend_get_alignment(ggml_backend_t backend);
GGML_API size_t                     ggml_backend_get_max_size(ggml_backend_t backend);

GGML_API void ggml_backend_tensor_set_async(ggml_backend_t backend, struct ggml_tensor * t, const void * data,
                                            size_t offset, size_t size);
GGML_API void ggml_backend_tensor_get_async(ggml_backend_t backend, const struct ggml_tensor * t, void * data,
                                            size_t offset, size_t size);
GGML_API void ggml_backend_synchronize(ggml_backend_t backend);

/* Computes every node of the graph (all tensors must be allocated). */
GGML_API enum ggml_status ggml_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph * graph);
GGML_API enum ggml_status ggml_backend_graph_compute_async(ggml_backend_t backend, struct ggml_cgraph * graph);

/* True iff the backend can compute this node with these source types/shapes/strides. */
GGML_API bool ggml_backend_supports_op(ggml_backend_t backend, const struct ggml_tensor * op);
GGML_API bool ggml_backend_supports_buft(ggml_backend_t backend, ggml_backend_buffer_type_t buft);
/* True if the backend wants this op even though its weights are in host memory (large batches). */
GGML_API bool ggml_backend_offload_op(ggml_backend_t backend, const struct ggml_tensor * op);

/* ---- devices ---- */
enum ggml_backend_dev_type {
    GGML_BACKEND_DEVICE_TYPE_CPU,
    GGML_BACKEND_DEVICE_TYPE_GPU,
    GGML_BACKEND_DEVICE_TYPE_IGPU,
    GGML_BACKEND_DEVICE_TYPE_ACCEL,
};

struct ggml_backend_dev_caps {
    bool async;                /* asynchronous compute and copies */
    bool host_buffer;          /* offers a pinned host buffer type */
    bool buffer_from_host_ptr; /* can wrap host memory (mmap) in a buffer */
    bool events;
};

struct ggml_backend_dev_props {
    const char *                 name;
    const char *                 description;
    size_t                       memory_free;
    size_t                       memory_total;
    enum ggml_backend_dev_type   type;
    struct ggml_backend_dev_caps caps;
};

GGML_API const char *               ggml_backend_dev_name(ggml_backend_dev_t device);
GGML_API const char *               ggml_backend_dev_description(ggml_backend_dev_t device);
GGML_API void                       ggml_backend_dev_memory(ggml_backend_dev_t device, size_t * free, size_t * total);
GGML_API enum ggml_backend_dev_type ggml_backend_dev_type(ggml_backend_dev_t device);
GGML_API void                       ggml_backend_dev_get_props(ggml_backend_dev_t device,
                                                               struct ggml_backend_dev_props * props);
GGML_API ggml_backend_reg_t         ggml_backend_dev_backend_reg(ggml_backend_dev_t device);
/* params: backend-specific string, may be NULL. NULL (logged) on failure. */
GGML_API ggml_backend_t             ggml_backend_dev_init(ggml_backend_dev_t device, const char * params);
GGML_API ggml_backend_buffer_type_t ggml_backend_dev_buffer_type(ggml_backend_dev_t device);
/* A host buffer type for fast transfers to this device, or NULL. */
GGML_API ggml_backend_buffer_type_t ggml_backend_dev_host_buffer_type(ggml_backend_dev_t device);
/* Wraps host memory as a buffer of this device (if caps.buffer_from_host_ptr), else NULL. */
GGML_API ggml_backend_buffer_t      ggml_backend_dev_buffer_from_host_ptr(ggml_backend_dev_t device, void * ptr,
                                                                          size_t size, size_t max_tensor_size);
GGML_API bool ggml_backend_dev_supports_op(ggml_backend_dev_t device, const struct ggml_tensor * op);
GGML_API bool ggml_backend_dev_supports_buft(ggml_backend_dev_t device, ggml_backend_buffer_type_t buft);
GGML_API bool ggml_backend_dev_offload_op(ggml_backend_dev_t device, const struct ggml_tensor * op);

/* ---- registries ---- */
GGML_API const char *       ggml_backend_reg_name(ggml_backend_reg_t reg);
GGML_API size_t             ggml_backend_reg_dev_count(ggml_backend_reg_t reg);
GGML_API ggml_backend_dev_t ggml_backend_reg_dev_get(ggml_backend_reg_t reg, size_t index);
/* A named extension function of the family (e.g. "ggml_backend_set_n_threads"), or NULL. */
GGML_API void *             ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char * name);

/* Signature of the "ggml_backend_set_n_threads" proc address offered by CPU-like registries. */
typedef void (*ggml_backend_set_n_threads_t)(ggml_backend_t backend, int n_threads);
/* Signature of the "ggml_backend_dev_get_extra_bufts" proc address: the device's extra buffer types
 * (e.g. the CPU's CPU_REPACK, which stores quantized matrices in the layout its kernels stream best),
 * NULL-terminated, owned by the backend. A weight may be placed in one when
 * ggml_backend_dev_supports_op accepts the op that uses it with the weight in a buffer of that type. */
typedef ggml_backend_buffer_type_t * (*ggml_backend_dev_get_extra_bufts_t)(ggml_backend_dev_t device);

/* The global registry: the CPU, the backend families linked in (static builds) and the backend modules
 * loaded at run time (shared builds: see "backend modules" below). It is filled on first use: the
 * modules found by ggml_backend_load_all() are loaded then, once; the devices of a family are
 * enumerated (and its GPU runtime initialised) only when a device function is first called. */
GGML_API size_t             ggml_backend_reg_count(void);
GGML_API ggml_backend_reg_t ggml_backend_reg_get(size_t index);
GGML_API ggml_backend_reg_t ggml_backend_reg_by_name(const char * name); /* case-insensitive; NULL if absent */
/* Adds a registry at run time (tests use this for fake backends). */
GGML_API void               ggml_backend_register(ggml_backend_reg_t reg);

GGML_API size_t             ggml_backend_dev_count(void);
GGML_API ggml_backend_dev_t ggml_backend_dev_get(size_t index);
GGML_API ggml_backend_dev_t ggml_backend_dev_by_name(const char * name);
GGML_API ggml_backend_dev_t ggml_backend_dev_by_type(enum ggml_backend_dev_type type); /* first of the type */

GGML_API ggml_backend_t ggml_backend_init_by_name(const char * name, const char * params);
GGML_API ggml_backend_t ggml_backend_init_by_type(enum ggml_backend_dev_type type, const char * params);
/* The best available: a GPU if present, else the CPU. */
GGML_API ggml_backend_t ggml_backend_init_best(void);

/* ---- backend modules ----
 * In shared builds each GPU backend (CUDA, Vulkan) is a module, a shared library loaded at run time
 * (libggml-cuda.so, libggml-vulkan.so; ggml-cuda.dll ...), so libggml itself links no GPU runtime and
 * one build runs on every machine. A module exports `ggml_backend_init` (returning its registry) and
 * may export `ggml_backend_score` (0: unusable on this machine). Modules are looked for, in this order,
 * in the folder named by the environment variable GGML_BACKEND_DIR, in the folder of libggml itself,
 * and in its subfolder "ggml-backends" (where `cmake --install` puts them: <libdir>/ggml-backends).
 * A module that cannot be loaded (its runtime missing, a corrupt or foreign file) is skipped with one
 * log line; one whose kind of device this machine does not show (the CUDA module where no NVIDIA
 * device node exists on Linux) is not loaded at all, so its runtime costs nothing
 * (GGML_BACKEND_LOAD_ALL=1 loads it anyway). The registry loads what it finds on first use:
 * programs need not call these functions. */

/* Loads one module (a path to the file) and registers its family. Returns the registry, or NULL on
 * failure (logged: the file, and why). Loading a module that is already loaded returns its registry
 * again and registers nothing twice. */
GGML_API ggml_backend_reg_t ggml_backend_load(const char * path);
/* Unregisters a family loaded by ggml_backend_load and unloads its module. Every backend, buffer and
 * device of it must have been freed first. A registry that was not loaded from a module is left alone. */
GGML_API void               ggml_backend_unload(ggml_backend_reg_t reg);
/* Loads every module in the search folders above (those not loaded yet). */
GGML_API void               ggml_backend_load_all(void);
/* Loads every module (files named [lib]ggml-<name><.so|.dll|.dylib>) in dir_path, or in the search
 * folders when dir_path is NULL. Files that are not modules are skipped with a log line. */
GGML_API void               ggml_backend_load_all_from_path(const char * dir_path);

/* ---- scheduler ---- */
typedef struct ggml_backend_sched * ggml_backend_sched_t;

/* Called for every node when set: first with ask == true ("do you want to observe this node?"),
 * then, if it answered true, with ask == false after the node was computed (its data is
 * readable with ggml_backend_tensor_get). Returning false from the second call stops compute. */
typedef bool (*ggml_backend_sched_eval_callback)(struct ggml_tensor * t, bool ask, void * user_data);

/* Returns true to abort the current graph compute (checked between nodes/splits). */
typedef bool (*ggml_abort_callback)(void * data);

/* backends: in priority order; the LAST one must be the CPU (the fallback). bufts: the buffer type
 * used for each backend's compute buffer (NULL = each backend's default). graph_size: max nodes.
 * parallel: keep copies of inputs for pipelining (may be ignored). op_offload: let GPU backends take
 * ops whose weights are on the host when ggml_backend_offload_op says so. NULL on failure. */
GGML_API ggml_backend_sched_t ggml_backend_sched_new(ggml_backend_t * backends, ggml_backend_buffer_type_t * bufts,
                                                     int n_backends, size_t graph_size, bool parallel,
                                                     bool op_offload);
GGML_API void                 ggml_backend_sched_free(ggml_backend_sched_t sched); /* NULL ok */

/* Plans and allocates compute buffers for the worst-case graph. False on failure. */
GGML_API bool ggml_backend_sched_reserve(ggml_backend_sched_t sched, struct ggml_cgraph * measure_graph);
GGML_API int  ggml_backend_sched_get_n_backends(ggml_backend_sched_t sched);
GGML_API ggml_backend_t ggml_backend_sched_get_backend(ggml_backend_sched_t sched, int i);
GGML_API int  ggml_backend_sched_get_n_splits(ggml_backend_sched_t sched); /* of the last graph */
GGML_API int  ggml_backend_sched_get_n_copies(ggml_backend_sched_t sched);
GGML_API size_t ggml_backend_sched_get_buffer_size(ggml_backend_sched_t sched, ggml_backend_t backend);

/* Pins a node to a backend before alloc_graph (otherwise the scheduler chooses). */
GGML_API void           ggml_backend_sched_set_tensor_backend(ggml_backend_sched_t sched, struct ggml_tensor * node,
                                                              ggml_backend_t backend);
GGML_API ggml_backend_t ggml_backend_sched_get_tensor_backend(ggml_backend_sched_t sched,
                                                              struct ggml_tensor * node);

/* Splits and allocates the graph (assigning backends, inserting copies). False on failure. */
GGML_API bool             ggml_backend_sched_alloc_graph(ggml_backend_sched_t sched, struct ggml_cgraph * graph);
/* alloc_graph if needed, then compute every split in order, copying inputs between backends. */
GGML_API enum ggml_status ggml_backend_sched_graph_compute(ggml_backend_sched_t sched, struct ggml_cgraph * graph);
GGML_API enum ggml_status ggml_backend_sched_graph_compute_async(ggml_backend_sched_t sched,
                                                                 struct ggml_cgraph * graph);
GGML_API void             ggml_backend_sched_synchronize(ggml_backend_sched_t sched);
/* Forgets the assignments of the last graph (call before building a different graph). */
GGML_API void             ggml_backend_sched_reset(ggml_backend_sched_t sched);

GGML_API void ggml_backend_sched_set_eval_callback(ggml_backend_sched_t sched,
                                                   ggml_backend_sched_eval_callback callback, void * user_data);
/* Checked between splits and passed to backends that support aborting mid-graph (the CPU). */
GGML_API void ggml_backend_sched_set_abort_callback(ggml_backend_sched_t sched, ggml_abort_callback callback,
                                                    void * user_data);

/* ---- utilities ---- */
/* Computes graph on backend1 and backend2 node by node, calling callback(i, t1, t2) after each node
 * to compare results. Used by tests. Returns false if a backend failed. */
typedef bool (*ggml_backend_eval_callback)(int node_index, struct ggml_tensor * t1, struct ggml_tensor * t2,
                                           void * user_data);
GGML_API bool ggml_backend_compare_graph_backend(ggml_backend_t backend1, ggml_backend_t backend2,
                                                 struct ggml_cgraph * graph, ggml_backend_eval_callback callback,
                                                 void * user_data);

#ifdef __cplusplus
}
#endif
