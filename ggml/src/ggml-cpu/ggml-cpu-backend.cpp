// ggml-cpu-backend.cpp — wraps the CPU compute engine (ggml-cpu-compute.h) into the backend vtables:
// the host buffer type, the CPU backend (a thread pool + abort callback), the "CPU" device and
// registry, and the run-time CPU feature queries.
#include "cpu-features.h"
#include "cpu-repack.h"
#include "ggml-backend-impl.h"
#include "ggml-cpu-compute.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "ggml-os.h"
#include "threadpool-api.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>

// 64 bytes: a cache line, and the widest SIMD load (AVX-512) stays aligned.
static constexpr size_t CPU_BUFFER_ALIGNMENT = 64;

// ---- host buffers --------------------------------------------------------------------------------

static void * cpu_buffer_get_base(ggml_backend_buffer_t buffer) {
    return buffer->context;
}

static void cpu_buffer_free(ggml_backend_buffer_t buffer) {
    ggml_os_aligned_free(buffer->context);
}

static void cpu_buffer_memset_tensor(ggml_backend_buffer_t, struct ggml_tensor * t, uint8_t value, size_t offset,
                                     size_t size) {
    std::memset((char *) t->data + offset, value, size);
}

static void cpu_buffer_set_tensor(ggml_backend_buffer_t, struct ggml_tensor * t, const void * data, size_t offset,
                                  size_t size) {
    std::memcpy((char *) t->data + offset, data, size);
}

static void cpu_buffer_get_tensor(ggml_backend_buffer_t, const struct ggml_tensor * t, void * data, size_t offset,
                                  size_t size) {
    std::memcpy(data, (const char *) t->data + offset, size);
}

static bool cpu_buffer_cpy_tensor(ggml_backend_buffer_t, const struct ggml_tensor * src, struct ggml_tensor * dst) {
    if (!ggml_backend_buffer_is_host(ggml_backend_tensor_buffer(src))) {
        return false;
    }
    std::memcpy(dst->data, src->data, ggml_nbytes(src));
    return true;
}

static void cpu_buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    std::memset(buffer->context, value, buffer->size);
}

static ggml_backend_buffer_i cpu_buffer_iface(bool owned) {
    ggml_backend_buffer_i i = {};
    i.free_buffer           = owned ? cpu_buffer_free : nullptr;  // from_ptr memory belongs to the caller
    i.get_base              = cpu_buffer_get_base;
    i.init_tensor           = nullptr;
    i.memset_tensor         = cpu_buffer_memset_tensor;
    i.set_tensor            = cpu_buffer_set_tensor;
    i.get_tensor            = cpu_buffer_get_tensor;
    i.cpy_tensor            = cpu_buffer_cpy_tensor;
    i.clear                 = cpu_buffer_clear;
    i.reset                 = nullptr;
    return i;
}

static const char * cpu_buft_get_name(ggml_backend_buffer_type_t) {
    return "CPU";
}

static ggml_backend_buffer_t cpu_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    // round up so the allocation size is a multiple of the alignment (aligned_alloc's rule)
    if (size > SIZE_MAX - CPU_BUFFER_ALIGNMENT) {
        return nullptr;
    }
    const size_t padded = (size + CPU_BUFFER_ALIGNMENT - 1) / CPU_BUFFER_ALIGNMENT * CPU_BUFFER_ALIGNMENT;
    void *       mem    = ggml_os_aligned_alloc(CPU_BUFFER_ALIGNMENT, padded);
    if (!mem) {
        GGML_LOG_ERROR("%s: failed to allocate %zu bytes\n", __func__, size);
        return nullptr;
    }
    ggml_backend_buffer_t buf = ggml_backend_buffer_init(buft, cpu_buffer_iface(true), mem, size);
    if (!buf) {
        ggml_os_aligned_free(mem);
    }
    return buf;
}

static size_t cpu_buft_get_alignment(ggml_backend_buffer_type_t) {
    return CPU_BUFFER_ALIGNMENT;
}

static bool cpu_buft_is_host(ggml_backend_buffer_type_t) {
    return true;
}

// ---- backend ----------------------------------------------------------------------------------------

namespace {
struct cpu_backend_context {
    ggml_cpu_threadpool * tp         = nullptr;
    int                   n_threads  = 1;
    ggml_threadpool *     ext        = nullptr;  // the caller's pool (ggml_backend_cpu_set_threadpool)
    ggml_abort_callback   abort_cb   = nullptr;
    void *                abort_data = nullptr;
};

}  // namespace

extern "C" int ggml_cpu_default_n_threads(void) {
    return std::clamp(ggml_cpu_performance_cores(), 1, 4);
}

static const char * cpu_backend_get_name(ggml_backend_t) {
    return "CPU";
}

static void cpu_backend_free(ggml_backend_t backend) {
    auto * ctx = (cpu_backend_context *) backend->context;
    ggml_cpu_threadpool_free(ctx->tp);
    delete ctx;
    delete backend;
}

static enum ggml_status cpu_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph * graph) {
    auto * ctx = (cpu_backend_context *) backend->context;
    if (ctx->ext) {
        return ggml_cpu_graph_compute(ctx->ext->tp, graph, ctx->ext->n_threads, ctx->abort_cb, ctx->abort_data);
    }
    return ggml_cpu_graph_compute(ctx->tp, graph, ctx->n_threads, ctx->abort_cb, ctx->abort_data);
}

static ggml_backend_i cpu_backend_iface() {
    ggml_backend_i i = {};
    i.get_name       = cpu_backend_get_name;
    i.free           = cpu_backend_free;
    i.graph_compute  = cpu_backend_graph_compute;
    return i;  // synchronous: no async copies, no events
}

// ---- device and registry --------------------------------------------------------------------------

static ggml_backend_device g_cpu_device;
static ggml_backend_reg    g_cpu_reg;

static const char * cpu_dev_get_name(ggml_backend_dev_t) {
    return "CPU";
}

static const char * cpu_dev_get_description(ggml_backend_dev_t) {
    static const std::string desc = [] {
        char name[256];
        return ggml_os_cpu_name(name, sizeof(name)) ? std::string(name) : std::string("CPU");
    }();
    return desc.c_str();
}

static void cpu_dev_get_memory(ggml_backend_dev_t, size_t * free, size_t * total) {
    *total          = (size_t) ggml_os_memory_total();
    const size_t av = (size_t) ggml_os_memory_available();
    *free           = av > 0 ? av : *total;
}

static enum ggml_backend_dev_type cpu_dev_get_type(ggml_backend_dev_t) {
    return GGML_BACKEND_DEVICE_TYPE_CPU;
}

static void cpu_dev_get_props(ggml_backend_dev_t dev, struct ggml_backend_dev_props * props) {
    props->name        = cpu_dev_get_name(dev);
    props->description = cpu_dev_get_description(dev);
    props->type        = GGML_BACKEND_DEVICE_TYPE_CPU;
    cpu_dev_get_memory(dev, &props->memory_free, &props->memory_total);
    props->caps.async                = false;
    props->caps.host_buffer          = false;
    props->caps.buffer_from_host_ptr = true;
    props->caps.events               = false;
}

static ggml_backend_t cpu_dev_init_backend(ggml_backend_dev_t, const char *) {
    return ggml_backend_cpu_init();
}

static ggml_backend_buffer_type_t cpu_dev_get_buffer_type(ggml_backend_dev_t) {
    return ggml_backend_cpu_buffer_type();
}

static ggml_backend_buffer_t cpu_dev_buffer_from_host_ptr(ggml_backend_dev_t, void * ptr, size_t size, size_t) {
    return ggml_backend_cpu_buffer_from_ptr(ptr, size);
}

static bool cpu_dev_supports_op(ggml_backend_dev_t, const struct ggml_tensor * op) {
    // a tensor in a CPU_REPACK buffer is readable only as the packed weight of a mul_mat
    const ggml_backend_buffer_type_t repack = ggml_backend_cpu_repack_buffer_type();
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        const ggml_tensor * s = op->src[i];
        if (s && s->buffer && s->buffer->buft == repack) {
            if (op->op != GGML_OP_MUL_MAT || i != 0 || s->view_src || !ggml_repack_supports_tensor(s)) {
                return false;
            }
        }
    }
    if (ggml_backend_op_is_noop(op)) {
        return true;
    }
    return ggml_cpu_supports_op(op);
}

static bool cpu_dev_supports_buft(ggml_backend_dev_t, ggml_backend_buffer_type_t buft) {
    return ggml_backend_buft_is_host(buft) || buft == ggml_backend_cpu_repack_buffer_type();
}

static ggml_backend_buffer_type_t * cpu_dev_get_extra_bufts(ggml_backend_dev_t) {
    static ggml_backend_buffer_type_t list[] = {ggml_backend_cpu_repack_buffer_type(), nullptr};
    return ggml_repack_offered() ? list : list + 1;  // see ggml_repack_offered (cpu-repack.h)
}

static const char * cpu_reg_get_name(ggml_backend_reg_t) {
    return "CPU";
}

static size_t cpu_reg_get_device_count(ggml_backend_reg_t) {
    return 1;
}

static ggml_backend_dev_t cpu_reg_get_device(ggml_backend_reg_t reg, size_t index) {
    return index == 0 ? &g_cpu_device : nullptr;
}

static void * cpu_reg_get_proc_address(ggml_backend_reg_t, const char * name) {
    if (std::strcmp(name, "ggml_backend_set_n_threads") == 0) {
        ggml_backend_set_n_threads_t fn = ggml_backend_cpu_set_n_threads;
        return (void *) fn;
    }
    if (std::strcmp(name, "ggml_backend_dev_get_extra_bufts") == 0) {
        ggml_backend_dev_get_extra_bufts_t fn = cpu_dev_get_extra_bufts;
        return (void *) fn;
    }
    if (std::strcmp(name, "ggml_backend_set_abort_callback") == 0) {  // the scheduler's abort check
        void (*fn)(ggml_backend_t, ggml_abort_callback, void *) = ggml_backend_cpu_set_abort_callback;
        return (void *) fn;
    }
    return nullptr;
}

extern "C" {

ggml_backend_buffer_type_t ggml_backend_cpu_buffer_type(void) {
    static ggml_backend_buffer_type buft = [] {
        ggml_backend_buffer_type b = {};
        b.iface.get_name           = cpu_buft_get_name;
        b.iface.alloc_buffer       = cpu_buft_alloc_buffer;
        b.iface.get_alignment      = cpu_buft_get_alignment;
        b.iface.get_max_size       = nullptr;
        b.iface.get_alloc_size     = nullptr;
        b.iface.is_host            = cpu_buft_is_host;
        b.device                   = &g_cpu_device;
        b.context                  = nullptr;
        return b;
    }();
    return &buft;
}

ggml_backend_buffer_t ggml_backend_cpu_buffer_from_ptr(void * ptr, size_t size) {
    if (!ptr) {
        GGML_LOG_ERROR("%s: NULL pointer\n", __func__);
        return nullptr;
    }
    return ggml_backend_buffer_init(ggml_backend_cpu_buffer_type(), cpu_buffer_iface(false), ptr, size);
}

ggml_backend_reg_t ggml_backend_cpu_reg(void) {
    static bool init = [] {
        ggml_backend_device_i di = {};
        di.get_name              = cpu_dev_get_name;
        di.get_description       = cpu_dev_get_description;
        di.get_memory            = cpu_dev_get_memory;
        di.get_type              = cpu_dev_get_type;
        di.get_props             = cpu_dev_get_props;
        di.init_backend          = cpu_dev_init_backend;
        di.get_buffer_type       = cpu_dev_get_buffer_type;
        di.buffer_from_host_ptr  = cpu_dev_buffer_from_host_ptr;
        di.supports_op           = cpu_dev_supports_op;
        di.supports_buft         = cpu_dev_supports_buft;
        g_cpu_device             = {di, &g_cpu_reg, nullptr};

        ggml_backend_reg_i ri = {};
        ri.get_name           = cpu_reg_get_name;
        ri.get_device_count   = cpu_reg_get_device_count;
        ri.get_device         = cpu_reg_get_device;
        ri.get_proc_address   = cpu_reg_get_proc_address;
        g_cpu_reg             = {GGML_BACKEND_API_VERSION, ri, nullptr};
        return true;
    }();
    (void) init;
    return &g_cpu_reg;
}

ggml_backend_t ggml_backend_cpu_init(void) {
    ggml_backend_cpu_reg();  // makes sure the device is set up
    auto * ctx = new (std::nothrow) cpu_backend_context;
    if (!ctx) {
        GGML_LOG_ERROR("%s: out of memory\n", __func__);
        return nullptr;
    }
    ctx->n_threads = ggml_cpu_default_n_threads();
    ctx->tp        = ggml_cpu_threadpool_new(ctx->n_threads);
    if (!ctx->tp) {
        GGML_LOG_ERROR("%s: failed to start %d threads\n", __func__, ctx->n_threads);
        delete ctx;
        return nullptr;
    }
    auto * backend = new (std::nothrow) ggml_backend{cpu_backend_iface(), &g_cpu_device, ctx};
    if (!backend) {
        ggml_cpu_threadpool_free(ctx->tp);
        delete ctx;
        return nullptr;
    }
    return backend;
}

bool ggml_backend_is_cpu(ggml_backend_t backend) {
    return backend && backend->iface.get_name == cpu_backend_get_name;
}

void ggml_backend_cpu_set_n_threads(ggml_backend_t backend_cpu, int n_threads) {
    if (!ggml_backend_is_cpu(backend_cpu)) {
        GGML_LOG_ERROR("%s: not a CPU backend\n", __func__);
        return;
    }
    ((cpu_backend_context *) backend_cpu->context)->n_threads = std::max(1, n_threads);
}

void ggml_backend_cpu_set_threadpool(ggml_backend_t backend_cpu, ggml_threadpool_t threadpool) {
    if (!ggml_backend_is_cpu(backend_cpu)) {
        GGML_LOG_ERROR("%s: not a CPU backend\n", __func__);
        return;
    }
    ((cpu_backend_context *) backend_cpu->context)->ext = threadpool;
}

void ggml_backend_cpu_set_abort_callback(ggml_backend_t backend_cpu, ggml_abort_callback abort_callback,
                                         void * abort_callback_data) {
    if (!ggml_backend_is_cpu(backend_cpu)) {
        GGML_LOG_ERROR("%s: not a CPU backend\n", __func__);
        return;
    }
    auto * ctx      = (cpu_backend_context *) backend_cpu->context;
    ctx->abort_cb   = abort_callback;
    ctx->abort_data = abort_callback_data;
}

// ---- CPU features (cpu-features.cpp asks the CPU) ---------------------------------------------------

bool ggml_cpu_has_avx2(void) {
    return ggml_cpu_isa_available(GGML_CPU_ISA_AVX2);
}

bool ggml_cpu_has_fma(void) {
    return ggml_cpu_isa_available(GGML_CPU_ISA_AVX2);  // part of the AVX2 level
}

bool ggml_cpu_has_f16c(void) {
    return ggml_cpu_isa_available(GGML_CPU_ISA_AVX2);  // part of the AVX2 level
}

bool ggml_cpu_has_avx512(void) {
    return ggml_cpu_isa_available(GGML_CPU_ISA_AVX512);
}

bool ggml_cpu_has_avx512_vnni(void) {
    return ggml_cpu_isa_available(GGML_CPU_ISA_AVX512);  // the level includes VNNI
}

bool ggml_cpu_has_avx512_bf16(void) {
    return ggml_cpu_x86_has_avx512_bf16();
}

bool ggml_cpu_has_neon(void) {
    return ggml_cpu_arm_features_get()->neon;
}

bool ggml_cpu_has_dotprod(void) {
    return ggml_cpu_arm_features_get()->dotprod;
}

bool ggml_cpu_has_fp16_va(void) {
    return ggml_cpu_arm_features_get()->fp16;
}

bool ggml_cpu_has_matmul_int8(void) {
    return ggml_cpu_arm_features_get()->i8mm;
}

bool ggml_cpu_has_sve(void) {
    return ggml_cpu_arm_features_get()->sve;
}

int ggml_cpu_get_sve_cnt(void) {
    return ggml_cpu_arm_features_get()->sve_bytes;
}

}  // extern "C"
