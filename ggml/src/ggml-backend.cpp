// ggml-backend.cpp — the public buffer-type / buffer / backend / device functions of ggml-backend.h:
// argument checks, defaults for optional vtable members, and the bounds-checked tensor data access.
// The registry lives in ggml-backend-reg.cpp and the scheduler in ggml-backend-sched.cpp.
#include "ggml-backend-impl.h"
#include "ggml-core.h"
#include "ggml-impl.h"
#include "ggml-op-table.h"

#include <cstdint>
#include <cstring>
#include <new>
#include <unordered_map>
#include <vector>

// A zero-size buffer still needs a stable non-NULL base so that empty tensors can point into it.
alignas(64) static char g_empty_base[64];

extern "C" {

const char * ggml_status_to_string(enum ggml_status status) {
    switch (status) {
        case GGML_STATUS_ALLOC_FAILED:
            return "GGML status: error (failed to allocate memory)";
        case GGML_STATUS_FAILED:
            return "GGML status: error (operation failed)";
        case GGML_STATUS_SUCCESS:
            return "GGML status: success";
        case GGML_STATUS_ABORTED:
            return "GGML status: warning (operation aborted)";
    }
    return "GGML status: unknown";
}

bool ggml_backend_op_is_noop(const struct ggml_tensor * t) {
    return ggml_op_is_noop(t->op);  // ggml-op-table.h
}

// ---- buffer types ------------------------------------------------------------------------------

const char * ggml_backend_buft_name(ggml_backend_buffer_type_t buft) {
    return buft ? buft->iface.get_name(buft) : "(null)";
}

static void   empty_buffer_free(ggml_backend_buffer_t) {}
static void * empty_buffer_get_base(ggml_backend_buffer_t) {
    return g_empty_base;
}
static void empty_buffer_clear(ggml_backend_buffer_t, uint8_t) {}

ggml_backend_buffer_t ggml_backend_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    if (!buft) {
        GGML_LOG_ERROR("%s: NULL buffer type\n", __func__);
        return nullptr;
    }
    if (size == 0) {
        // allocators may ask for nothing (a graph with only views); give a valid buffer that owns nothing
        ggml_backend_buffer_i iface = {};
        iface.free_buffer           = empty_buffer_free;
        iface.get_base              = empty_buffer_get_base;
        iface.clear                 = empty_buffer_clear;
        return ggml_backend_buffer_init(buft, iface, nullptr, 0);
    }
    if (size > ggml_backend_buft_get_max_size(buft)) {
        GGML_LOG_ERROR("%s: %zu bytes exceed the maximum allocation of buffer type %s (%zu)\n", __func__, size,
                       ggml_backend_buft_name(buft), ggml_backend_buft_get_max_size(buft));
        return nullptr;
    }
    ggml_backend_buffer_t buf = buft->iface.alloc_buffer(buft, size);
    if (!buf) {
        GGML_LOG_ERROR("%s: failed to allocate %zu bytes of %s\n", __func__, size, ggml_backend_buft_name(buft));
    }
    return buf;
}

size_t ggml_backend_buft_get_alignment(ggml_backend_buffer_type_t buft) {
    return buft ? buft->iface.get_alignment(buft) : 1;
}

size_t ggml_backend_buft_get_max_size(ggml_backend_buffer_type_t buft) {
    if (buft && buft->iface.get_max_size) {
        return buft->iface.get_max_size(buft);
    }
    return SIZE_MAX;
}

size_t ggml_backend_buft_get_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor * t) {
    if (!t) {
        return 0;
    }
    if (buft && buft->iface.get_alloc_size) {
        return buft->iface.get_alloc_size(buft, t);
    }
    return ggml_nbytes(t);
}

bool ggml_backend_buft_is_host(ggml_backend_buffer_type_t buft) {
    return buft && buft->iface.is_host && buft->iface.is_host(buft);
}

ggml_backend_dev_t ggml_backend_buft_get_device(ggml_backend_buffer_type_t buft) {
    return buft ? buft->device : nullptr;
}

// ---- buffers -----------------------------------------------------------------------------------

ggml_backend_buffer_t ggml_backend_buffer_init(ggml_backend_buffer_type_t buft, struct ggml_backend_buffer_i iface,
                                               void * context, size_t size) {
    auto * buf = new (std::nothrow) ggml_backend_buffer;
    if (!buf) {
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        return nullptr;
    }
    buf->iface   = iface;
    buf->buft    = buft;
    buf->context = context;
    buf->size    = size;
    buf->usage   = GGML_BACKEND_BUFFER_USAGE_ANY;
    return buf;
}

const char * ggml_backend_buffer_name(ggml_backend_buffer_t buffer) {
    return buffer ? ggml_backend_buft_name(buffer->buft) : "(null)";
}

void ggml_backend_buffer_free(ggml_backend_buffer_t buffer) {
    if (!buffer) {
        return;
    }
    if (buffer->iface.free_buffer) {
        buffer->iface.free_buffer(buffer);
    }
    delete buffer;
}

void * ggml_backend_buffer_get_base(ggml_backend_buffer_t buffer) {
    if (!buffer) {
        return nullptr;
    }
    if (buffer->size == 0) {
        return g_empty_base;
    }
    return buffer->iface.get_base(buffer);
}

size_t ggml_backend_buffer_get_size(ggml_backend_buffer_t buffer) {
    return buffer ? buffer->size : 0;
}

enum ggml_status ggml_backend_buffer_init_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor * t) {
    if (!buffer || !t) {
        return GGML_STATUS_FAILED;
    }
    if (buffer->iface.init_tensor) {
        return buffer->iface.init_tensor(buffer, t);
    }
    return GGML_STATUS_SUCCESS;
}

size_t ggml_backend_buffer_get_alignment(ggml_backend_buffer_t buffer) {
    return buffer ? ggml_backend_buft_get_alignment(buffer->buft) : 1;
}

size_t ggml_backend_buffer_get_max_size(ggml_backend_buffer_t buffer) {
    return buffer ? ggml_backend_buft_get_max_size(buffer->buft) : SIZE_MAX;
}

size_t ggml_backend_buffer_get_alloc_size(ggml_backend_buffer_t buffer, const struct ggml_tensor * t) {
    return ggml_backend_buft_get_alloc_size(buffer ? buffer->buft : nullptr, t);
}

void ggml_backend_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    if (!buffer || buffer->size == 0) {
        return;
    }
    buffer->iface.clear(buffer, value);
}

bool ggml_backend_buffer_is_host(ggml_backend_buffer_t buffer) {
    return buffer && ggml_backend_buft_is_host(buffer->buft);
}

void ggml_backend_buffer_set_usage(ggml_backend_buffer_t buffer, enum ggml_backend_buffer_usage usage) {
    if (buffer) {
        buffer->usage = usage;
    }
}

enum ggml_backend_buffer_usage ggml_backend_buffer_get_usage(ggml_backend_buffer_t buffer) {
    return buffer ? buffer->usage : GGML_BACKEND_BUFFER_USAGE_ANY;
}

ggml_backend_buffer_type_t ggml_backend_buffer_get_type(ggml_backend_buffer_t buffer) {
    return buffer ? buffer->buft : nullptr;
}

enum ggml_status ggml_backend_tensor_alloc(ggml_backend_buffer_t buffer, struct ggml_tensor * t, void * addr) {
    if (!buffer || !t || !addr) {
        GGML_LOG_ERROR("%s: NULL argument\n", __func__);
        return GGML_STATUS_FAILED;
    }
    if (t->buffer || t->data) {
        GGML_LOG_ERROR("%s: tensor '%s' is already allocated\n", __func__, t->name);
        return GGML_STATUS_FAILED;
    }
    const auto   base = (uintptr_t) ggml_backend_buffer_get_base(buffer);
    const auto   a    = (uintptr_t) addr;
    const size_t need = ggml_backend_buffer_get_alloc_size(buffer, t);
    if (a < base || a - base > buffer->size || need > buffer->size - (a - base)) {
        GGML_LOG_ERROR("%s: tensor '%s' (%zu bytes at offset %zu) does not fit in buffer %s of %zu bytes\n", __func__,
                       t->name, need, (size_t) (a - base), ggml_backend_buffer_name(buffer), buffer->size);
        return GGML_STATUS_FAILED;
    }
    t->buffer = buffer;
    t->data   = addr;
    return ggml_backend_buffer_init_tensor(buffer, t);
}

enum ggml_status ggml_backend_view_init(struct ggml_tensor * t) {
    if (!t || !t->view_src || !t->view_src->buffer || !t->view_src->data) {
        GGML_LOG_ERROR("%s: view '%s' has no allocated source\n", __func__, t ? t->name : "(null)");
        return GGML_STATUS_FAILED;
    }
    t->buffer = t->view_src->buffer;
    t->data   = (char *) t->view_src->data + t->view_offs;
    return ggml_backend_buffer_init_tensor(t->buffer, t);
}

ggml_backend_buffer_t ggml_backend_tensor_buffer(const struct ggml_tensor * t) {
    if (!t) {
        return nullptr;
    }
    if (t->buffer) {
        return t->buffer;
    }
    return t->view_src ? t->view_src->buffer : nullptr;
}

// ---- tensor data -------------------------------------------------------------------------------

// Common checks of tensor_set/get/memset: the tensor is allocated and [offset, offset+size) lies in it.
static ggml_backend_buffer_t checked_tensor_buffer(const char * fn, const struct ggml_tensor * t, size_t offset,
                                                   size_t size) {
    if (!t) {
        GGML_LOG_ERROR("%s: NULL tensor\n", fn);
        return nullptr;
    }
    ggml_backend_buffer_t buf = ggml_backend_tensor_buffer(t);
    if (!buf || !t->data) {
        GGML_LOG_ERROR("%s: tensor '%s' is not allocated\n", fn, t->name);
        return nullptr;
    }
    const size_t nbytes = ggml_nbytes(t);
    if (offset > nbytes || size > nbytes - offset) {
        GGML_LOG_ERROR("%s: range [%zu, +%zu) is outside tensor '%s' (%zu bytes)\n", fn, offset, size, t->name, nbytes);
        return nullptr;
    }
    return buf;
}

void ggml_backend_tensor_set(struct ggml_tensor * t, const void * data, size_t offset, size_t size) {
    ggml_backend_buffer_t buf = checked_tensor_buffer(__func__, t, offset, size);
    if (!buf || size == 0) {
        return;
    }
    if (!data) {
        GGML_LOG_ERROR("%s: NULL data for tensor '%s'\n", __func__, t->name);
        return;
    }
    buf->iface.set_tensor(buf, t, data, offset, size);
}

void ggml_backend_tensor_get(const struct ggml_tensor * t, void * data, size_t offset, size_t size) {
    ggml_backend_buffer_t buf = checked_tensor_buffer(__func__, t, offset, size);
    if (!buf || size == 0) {
        return;
    }
    if (!data) {
        GGML_LOG_ERROR("%s: NULL data for tensor '%s'\n", __func__, t->name);
        return;
    }
    buf->iface.get_tensor(buf, t, data, offset, size);
}

void ggml_backend_tensor_memset(struct ggml_tensor * t, uint8_t value, size_t offset, size_t size) {
    ggml_backend_buffer_t buf = checked_tensor_buffer(__func__, t, offset, size);
    if (!buf || size == 0) {
        return;
    }
    if (!buf->iface.memset_tensor) {
        GGML_LOG_ERROR("%s: buffer %s cannot memset\n", __func__, ggml_backend_buffer_name(buf));
        return;
    }
    buf->iface.memset_tensor(buf, t, value, offset, size);
}

void ggml_backend_tensor_copy(struct ggml_tensor * src, struct ggml_tensor * dst) {
    if (!src || !dst) {
        GGML_LOG_ERROR("%s: NULL tensor\n", __func__);
        return;
    }
    if (src == dst) {
        return;
    }
    const size_t nbytes = ggml_nbytes(src);
    if (nbytes != ggml_nbytes(dst) || src->type != dst->type) {
        GGML_LOG_ERROR("%s: '%s' and '%s' differ in type or size\n", __func__, src->name, dst->name);
        return;
    }
    ggml_backend_buffer_t sbuf = ggml_backend_tensor_buffer(src);
    ggml_backend_buffer_t dbuf = ggml_backend_tensor_buffer(dst);
    if (!sbuf || !dbuf || !src->data || !dst->data) {
        GGML_LOG_ERROR("%s: '%s' or '%s' is not allocated\n", __func__, src->name, dst->name);
        return;
    }
    if (ggml_backend_buffer_is_host(sbuf)) {
        ggml_backend_tensor_set(dst, src->data, 0, nbytes);
    } else if (ggml_backend_buffer_is_host(dbuf)) {
        ggml_backend_tensor_get(src, dst->data, 0, nbytes);
    } else if (!(dbuf->iface.cpy_tensor && dbuf->iface.cpy_tensor(dbuf, src, dst))) {
        // device to device without a direct path: bounce through host memory
        std::vector<uint8_t> tmp;
        try {
            tmp.resize(nbytes);
        } catch (const std::bad_alloc &) {
            GGML_LOG_ERROR("%s: out of memory for a %zu-byte bounce buffer\n", __func__, nbytes);
            return;
        }
        ggml_backend_tensor_get(src, tmp.data(), 0, nbytes);
        ggml_backend_tensor_set(dst, tmp.data(), 0, nbytes);
    }
}

void ggml_backend_tensor_copy_async(ggml_backend_t backend_src, ggml_backend_t backend_dst, struct ggml_tensor * src,
                                    struct ggml_tensor * dst) {
    if (src == dst) {
        return;
    }
    if (backend_dst && backend_dst->iface.cpy_tensor_async &&
        backend_dst->iface.cpy_tensor_async(backend_src, backend_dst, src, dst)) {
        return;
    }
    // no async path: make the source's queued work visible, then copy synchronously
    ggml_backend_synchronize(backend_src);
    ggml_backend_synchronize(backend_dst);
    ggml_backend_tensor_copy(src, dst);
}

// ---- backends ----------------------------------------------------------------------------------

const char * ggml_backend_name(ggml_backend_t backend) {
    return backend ? backend->iface.get_name(backend) : "(null)";
}

void ggml_backend_free(ggml_backend_t backend) {
    if (backend) {
        backend->iface.free(backend);
    }
}

ggml_backend_dev_t ggml_backend_get_device(ggml_backend_t backend) {
    return backend ? backend->device : nullptr;
}

ggml_backend_buffer_type_t ggml_backend_get_default_buffer_type(ggml_backend_t backend) {
    return backend ? ggml_backend_dev_buffer_type(backend->device) : nullptr;
}

ggml_backend_buffer_t ggml_backend_alloc_buffer(ggml_backend_t backend, size_t size) {
    return ggml_backend_buft_alloc_buffer(ggml_backend_get_default_buffer_type(backend), size);
}

size_t ggml_backend_get_alignment(ggml_backend_t backend) {
    return ggml_backend_buft_get_alignment(ggml_backend_get_default_buffer_type(backend));
}

size_t ggml_backend_get_max_size(ggml_backend_t backend) {
    return ggml_backend_buft_get_max_size(ggml_backend_get_default_buffer_type(backend));
}

void ggml_backend_tensor_set_async(ggml_backend_t backend, struct ggml_tensor * t, const void * data, size_t offset,
                                   size_t size) {
    if (!backend || !backend->iface.set_tensor_async) {
        ggml_backend_tensor_set(t, data, offset, size);
        return;
    }
    if (!checked_tensor_buffer(__func__, t, offset, size) || size == 0) {
        return;
    }
    backend->iface.set_tensor_async(backend, t, data, offset, size);
}

void ggml_backend_tensor_get_async(ggml_backend_t backend, const struct ggml_tensor * t, void * data, size_t offset,
                                   size_t size) {
    if (!backend || !backend->iface.get_tensor_async) {
        ggml_backend_tensor_get(t, data, offset, size);
        return;
    }
    if (!checked_tensor_buffer(__func__, t, offset, size) || size == 0) {
        return;
    }
    backend->iface.get_tensor_async(backend, t, data, offset, size);
}

void ggml_backend_synchronize(ggml_backend_t backend) {
    if (backend && backend->iface.synchronize) {
        backend->iface.synchronize(backend);
    }
}

enum ggml_status ggml_backend_graph_compute_async(ggml_backend_t backend, struct ggml_cgraph * graph) {
    if (!backend || !graph) {
        GGML_LOG_ERROR("%s: NULL backend or graph\n", __func__);
        return GGML_STATUS_FAILED;
    }
    return backend->iface.graph_compute(backend, graph);
}

enum ggml_status ggml_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph * graph) {
    enum ggml_status st = ggml_backend_graph_compute_async(backend, graph);
    ggml_backend_synchronize(backend);
    return st;
}

bool ggml_backend_supports_op(ggml_backend_t backend, const struct ggml_tensor * op) {
    return backend && ggml_backend_dev_supports_op(backend->device, op);
}

bool ggml_backend_supports_buft(ggml_backend_t backend, ggml_backend_buffer_type_t buft) {
    return backend && ggml_backend_dev_supports_buft(backend->device, buft);
}

bool ggml_backend_offload_op(ggml_backend_t backend, const struct ggml_tensor * op) {
    return backend && ggml_backend_dev_offload_op(backend->device, op);
}

// ---- devices -----------------------------------------------------------------------------------

const char * ggml_backend_dev_name(ggml_backend_dev_t device) {
    return device ? device->iface.get_name(device) : "(null)";
}

const char * ggml_backend_dev_description(ggml_backend_dev_t device) {
    return device ? device->iface.get_description(device) : "(null)";
}

void ggml_backend_dev_memory(ggml_backend_dev_t device, size_t * free, size_t * total) {
    size_t f = 0, t = 0;
    if (device) {
        device->iface.get_memory(device, &f, &t);
    }
    if (free) {
        *free = f;
    }
    if (total) {
        *total = t;
    }
}

enum ggml_backend_dev_type ggml_backend_dev_type(ggml_backend_dev_t device) {
    return device ? device->iface.get_type(device) : GGML_BACKEND_DEVICE_TYPE_CPU;
}

void ggml_backend_dev_get_props(ggml_backend_dev_t device, struct ggml_backend_dev_props * props) {
    if (!props) {
        return;
    }
    std::memset(props, 0, sizeof(*props));
    if (!device) {
        return;
    }
    if (device->iface.get_props) {
        device->iface.get_props(device, props);
        return;
    }
    props->name        = ggml_backend_dev_name(device);
    props->description = ggml_backend_dev_description(device);
    props->type        = ggml_backend_dev_type(device);
    ggml_backend_dev_memory(device, &props->memory_free, &props->memory_total);
    props->caps.buffer_from_host_ptr = device->iface.buffer_from_host_ptr != nullptr;
    props->caps.host_buffer          = device->iface.get_host_buffer_type != nullptr;
    props->caps.events               = device->iface.event_new != nullptr;
}

ggml_backend_reg_t ggml_backend_dev_backend_reg(ggml_backend_dev_t device) {
    return device ? device->reg : nullptr;
}

ggml_backend_t ggml_backend_dev_init(ggml_backend_dev_t device, const char * params) {
    if (!device) {
        GGML_LOG_ERROR("%s: NULL device\n", __func__);
        return nullptr;
    }
    ggml_backend_t b = device->iface.init_backend(device, params);
    if (!b) {
        GGML_LOG_ERROR("%s: device %s failed to create a backend\n", __func__, ggml_backend_dev_name(device));
    }
    return b;
}

ggml_backend_buffer_type_t ggml_backend_dev_buffer_type(ggml_backend_dev_t device) {
    return device ? device->iface.get_buffer_type(device) : nullptr;
}

ggml_backend_buffer_type_t ggml_backend_dev_host_buffer_type(ggml_backend_dev_t device) {
    if (!device || !device->iface.get_host_buffer_type) {
        return nullptr;
    }
    return device->iface.get_host_buffer_type(device);
}

ggml_backend_buffer_t ggml_backend_dev_buffer_from_host_ptr(ggml_backend_dev_t device, void * ptr, size_t size,
                                                            size_t max_tensor_size) {
    if (!device || !device->iface.buffer_from_host_ptr) {
        return nullptr;
    }
    if (!ptr && size > 0) {
        GGML_LOG_ERROR("%s: NULL pointer\n", __func__);
        return nullptr;
    }
    return device->iface.buffer_from_host_ptr(device, ptr, size, max_tensor_size);
}

bool ggml_backend_dev_supports_op(ggml_backend_dev_t device, const struct ggml_tensor * op) {
    // a node without the inputs its op needs, or with a shape its op cannot produce, reaches no kernel
    return device && op && ggml_op_node_valid(op) && device->iface.supports_op(device, op);
}

bool ggml_backend_dev_supports_buft(ggml_backend_dev_t device, ggml_backend_buffer_type_t buft) {
    return device && buft && device->iface.supports_buft(device, buft);
}

bool ggml_backend_dev_offload_op(ggml_backend_dev_t device, const struct ggml_tensor * op) {
    return device && op && device->iface.offload_op && device->iface.offload_op(device, op);
}

// ---- registries (per family; the global list is in ggml-backend-reg.cpp) -------------------------

const char * ggml_backend_reg_name(ggml_backend_reg_t reg) {
    return reg ? reg->iface.get_name(reg) : "(null)";
}

size_t ggml_backend_reg_dev_count(ggml_backend_reg_t reg) {
    return reg ? reg->iface.get_device_count(reg) : 0;
}

ggml_backend_dev_t ggml_backend_reg_dev_get(ggml_backend_reg_t reg, size_t index) {
    if (!reg || index >= ggml_backend_reg_dev_count(reg)) {
        return nullptr;
    }
    return reg->iface.get_device(reg, index);
}

void * ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char * name) {
    if (!reg || !name || !reg->iface.get_proc_address) {
        return nullptr;
    }
    return reg->iface.get_proc_address(reg, name);
}

// ---- compare two backends node by node ------------------------------------------------------------

namespace {
// A duplicate of a graph's tensors (same layout, ops, sources) in another backend's buffer.
struct graph_dup {
    ggml_context *                                   ctx = nullptr;
    ggml_backend_buffer_t                            buf = nullptr;
    std::unordered_map<ggml_tensor *, ggml_tensor *> map;

    ~graph_dup() {
        ggml_backend_buffer_free(buf);
        ggml_free(ctx);
    }

    ggml_tensor * dup(ggml_tensor * t) {
        if (!t) {
            return nullptr;
        }
        auto it = map.find(t);
        if (it != map.end()) {
            return it->second;
        }
        ggml_tensor * d = ggml_new_tensor_4d(ctx, t->type, t->ne[0], t->ne[1], t->ne[2], t->ne[3]);
        if (!d) {
            return nullptr;
        }
        map[t] = d;
        std::memcpy(d->nb, t->nb, sizeof(d->nb));
        std::memcpy(d->op_params, t->op_params, sizeof(d->op_params));
        std::memcpy(d->name, t->name, sizeof(d->name));
        d->op        = t->op;
        d->flags     = t->flags;
        d->view_offs = t->view_offs;
        d->view_src  = dup(t->view_src);
        for (int j = 0; j < GGML_MAX_SRC; j++) {
            d->src[j] = dup(t->src[j]);
        }
        return d;
    }
};
}  // namespace

bool ggml_backend_compare_graph_backend(ggml_backend_t backend1, ggml_backend_t backend2, struct ggml_cgraph * graph,
                                        ggml_backend_eval_callback callback, void * user_data) {
    if (!backend1 || !backend2 || !graph || !callback) {
        GGML_LOG_ERROR("%s: NULL argument\n", __func__);
        return false;
    }
    try {
        const int        n_nodes = graph->n_nodes;
        const int        n_leafs = graph->n_leafs;
        graph_dup        g;
        const size_t     n_tensors = 2 * (size_t) (n_nodes + n_leafs) + 16;
        ggml_init_params p = {n_tensors * ggml_tensor_overhead() + ggml_graph_overhead_custom(n_nodes + 1, false),
                              nullptr, true};
        g.ctx              = ggml_init(p);
        if (!g.ctx) {
            return false;
        }
        ggml_cgraph * graph2 = ggml_new_graph_custom(g.ctx, (size_t) n_nodes + 1, false);
        if (!graph2) {
            return false;
        }
        for (int i = 0; i < n_leafs; i++) {
            if (!g.dup(graph->leafs[i])) {
                return false;
            }
        }
        for (int i = 0; i < n_nodes; i++) {
            ggml_tensor * d = g.dup(graph->nodes[i]);
            if (!d || !ggml_graph_add_node(graph2, d)) {
                return false;
            }
        }

        // one buffer on backend2 for every tensor that owns memory; views point into it
        ggml_backend_buffer_type_t buft  = ggml_backend_get_default_buffer_type(backend2);
        const size_t               align = ggml_backend_buft_get_alignment(buft);
        size_t                     total = 0;
        for (auto & kv : g.map) {
            if (!kv.second->view_src) {
                total += (ggml_backend_buft_get_alloc_size(buft, kv.second) + align - 1) / align * align;
            }
        }
        g.buf = ggml_backend_buft_alloc_buffer(buft, total);
        if (!g.buf) {
            return false;
        }
        char * base = (char *) ggml_backend_buffer_get_base(g.buf);
        size_t offs = 0;
        for (auto & kv : g.map) {
            if (!kv.second->view_src) {
                if (ggml_backend_tensor_alloc(g.buf, kv.second, base + offs) != GGML_STATUS_SUCCESS) {
                    return false;
                }
                offs += (ggml_backend_buft_get_alloc_size(buft, kv.second) + align - 1) / align * align;
            }
        }
        for (auto & kv : g.map) {
            if (kv.second->view_src && ggml_backend_view_init(kv.second) != GGML_STATUS_SUCCESS) {
                return false;
            }
        }
        // the inputs of the graph: every leaf's data (and any other tensor computed before) is copied
        for (auto & kv : g.map) {
            if (!kv.second->view_src && kv.first->data && kv.first->op == GGML_OP_NONE) {
                ggml_backend_tensor_copy(kv.first, kv.second);
            }
        }

        for (int i = 0; i < n_nodes; i++) {
            ggml_cgraph v1 = ggml_graph_view(graph, i, i + 1);
            ggml_cgraph v2 = ggml_graph_view(graph2, i, i + 1);
            if (ggml_backend_graph_compute(backend1, &v1) != GGML_STATUS_SUCCESS ||
                ggml_backend_graph_compute(backend2, &v2) != GGML_STATUS_SUCCESS) {
                return false;
            }
            if (!callback(i, graph->nodes[i], graph2->nodes[i], user_data)) {
                break;
            }
        }
        return true;
    } catch (const std::bad_alloc &) {
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        return false;
    }
}

}  // extern "C"
