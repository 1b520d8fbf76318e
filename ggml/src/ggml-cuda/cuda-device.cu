// cuda-device.cu — CUDA device enumeration (once, without creating a context), the static facts of
// each device (ggml_cuda_device_info), the registry and device vtables, and supports_op, which sends
// each op to the family that implements it. No driver, no GPU, or a GPU this build has no code for:
// that device is left out with one log line; nothing aborts.
#include "cuda-context.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef GGML_CUDA_ARCH_LIST
#    define GGML_CUDA_ARCH_LIST ""
#endif

namespace {

// True if the code compiled in (GGML_CUDA_ARCH_LIST: CMAKE_CUDA_ARCHITECTURES with ',' for ';') can run
// on compute capability cc: machine code sm_XY runs on X.Y..X.9, PTX compute_XY on anything >= X.Y.
// Unknown entries ("all", "native") accept every device.
bool arch_list_runs_on(const char * list, int cc) {
    if (!list || !*list) {
        return true;
    }
    bool         ok = false;
    const char * p  = list;
    while (*p) {
        const char * end = std::strchr(p, ',');
        std::string  e(p, end ? (size_t) (end - p) : std::strlen(p));
        p               = end ? end + 1 : p + e.size();
        char *     rest = nullptr;
        const long a    = std::strtol(e.c_str(), &rest, 10);
        if (rest == e.c_str()) {
            return true;
        }
        const std::string kind = rest;  // "", "-real" or "-virtual"
        const bool        real = kind != "-virtual";
        const bool        virt = kind != "-real";
        ok                     = ok || (real && a / 10 == cc / 10 && a <= cc) || (virt && a <= cc);
    }
    return ok;
}

std::vector<cuda_device *> enumerate() {
    std::vector<cuda_device *> out;
    int                        n   = 0;
    const cudaError_t          err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        (void) cudaGetLastError();
        GGML_LOG_INFO("ggml-cuda: no CUDA devices (%s); 0 devices\n", cudaGetErrorString(err));
        return out;
    }
    for (int i = 0; i < n; i++) {
        cudaDeviceProp prop;
        if (CUDA_FAILED(cudaGetDeviceProperties(&prop, i))) {
            continue;
        }
        const int cc = prop.major * 10 + prop.minor;
        if (!arch_list_runs_on(GGML_CUDA_ARCH_LIST, cc)) {
            GGML_LOG_WARN(
                "ggml-cuda: device %d (%s) has compute capability %d.%d, which this build has no code "
                "for (built for %s); skipped\n",
                i, prop.name, prop.major, prop.minor, GGML_CUDA_ARCH_LIST);
            continue;
        }
        auto * d                     = new cuda_device();
        d->index                     = (int) out.size();
        d->name                      = GGML_CUDA_NAME + std::to_string(d->index);
        d->description               = prop.name;
        d->info.device               = i;
        d->info.cc                   = cc;
        d->info.sm_count             = prop.multiProcessorCount;
        d->info.warp_size            = prop.warpSize;
        d->info.smem_per_block_optin = prop.sharedMemPerBlockOptin;
        d->info.total_mem            = prop.totalGlobalMem;
        out.push_back(d);
    }
    return out;
}

// ---- registry and device vtables ---------------------------------------------------------------

cuda_device * dev_ctx(ggml_backend_dev_t d) {
    return (cuda_device *) d->context;
}

const char * dev_get_name(ggml_backend_dev_t d) {
    return dev_ctx(d)->name.c_str();
}

const char * dev_get_description(ggml_backend_dev_t d) {
    return dev_ctx(d)->description.c_str();
}

void device_memory(const cuda_device * dev, size_t * free, size_t * total) {
    *free    = 0;
    *total   = 0;
    size_t f = 0, t = 0;
    if (ggml_cuda_set_device(dev->info.device) && !CUDA_FAILED(cudaMemGetInfo(&f, &t))) {
        *free  = f;
        *total = t;
    }
}

void dev_get_memory(ggml_backend_dev_t d, size_t * free, size_t * total) {
    device_memory(dev_ctx(d), free, total);
}

enum ggml_backend_dev_type dev_get_type(ggml_backend_dev_t) {
    return GGML_BACKEND_DEVICE_TYPE_GPU;
}

void dev_get_props(ggml_backend_dev_t d, ggml_backend_dev_props * props) {
    props->name        = dev_get_name(d);
    props->description = dev_get_description(d);
    dev_get_memory(d, &props->memory_free, &props->memory_total);
    props->type = GGML_BACKEND_DEVICE_TYPE_GPU;
    props->caps = {/* async */ true, /* host_buffer */ true, /* buffer_from_host_ptr */ false, /* events */ true};
}

ggml_backend_t dev_init_backend(ggml_backend_dev_t d, const char *) {
    return ggml_cuda_backend_new(dev_ctx(d));
}

ggml_backend_buffer_type_t dev_get_buffer_type(ggml_backend_dev_t d) {
    return &dev_ctx(d)->buft;
}

ggml_backend_buffer_type_t dev_get_host_buffer_type(ggml_backend_dev_t) {
    return ggml_cuda_host_buffer_type_get();
}

bool dev_supports_op(ggml_backend_dev_t d, const ggml_tensor * op) {
    return ggml_cuda_dev_supports_op(dev_ctx(d), op);
}

bool dev_supports_buft(ggml_backend_dev_t d, ggml_backend_buffer_type_t buft) {
    return buft == &dev_ctx(d)->buft;
}

// Worth uploading host weights only for batches (prompt processing): a single token would spend more
// time on the copy than on the product.
bool dev_offload_op(ggml_backend_dev_t d, const ggml_tensor * op) {
    const int64_t batch = op->op == GGML_OP_MUL_MAT_ID ? op->ne[2] : op->ne[1];
    return (op->op == GGML_OP_MUL_MAT || op->op == GGML_OP_MUL_MAT_ID) && batch >= 32 &&
           ggml_cuda_dev_supports_op(dev_ctx(d), op);
}

const ggml_backend_device_i k_dev_iface = {
    dev_get_name,
    dev_get_description,
    dev_get_memory,
    dev_get_type,
    dev_get_props,
    dev_init_backend,
    dev_get_buffer_type,
    dev_get_host_buffer_type,
    nullptr,  // buffer_from_host_ptr
    dev_supports_op,
    dev_supports_buft,
    dev_offload_op,
    ggml_cuda_event_new,
    ggml_cuda_event_free,
    ggml_cuda_event_synchronize,
};

const char * reg_get_name(ggml_backend_reg_t) {
    return GGML_CUDA_NAME;
}

size_t reg_get_device_count(ggml_backend_reg_t) {
    return ggml_cuda_devices().size();
}

ggml_backend_dev_t reg_get_device(ggml_backend_reg_t, size_t i) {
    auto & devs = ggml_cuda_devices();
    return i < devs.size() ? &devs[i]->dev : nullptr;
}

// Internal hooks for tests and tools, reached without a header (the public ABI stays as documented):
//   "ggml_backend_cuda_graph_counts": void (*)(ggml_backend_t, uint64_t * captures, uint64_t * launches)
void * reg_get_proc_address(ggml_backend_reg_t, const char * name) {
    if (name && std::strcmp(name, "ggml_backend_cuda_graph_counts") == 0) {
        return (void *) ggml_cuda_graph_counts;
    }
    return nullptr;
}

const ggml_backend_reg_i k_reg_iface = {reg_get_name, reg_get_device_count, reg_get_device, reg_get_proc_address};

ggml_backend_reg g_reg = {GGML_BACKEND_API_VERSION, k_reg_iface, nullptr};

}  // namespace

std::vector<cuda_device *> & ggml_cuda_devices() {
    static std::vector<cuda_device *> devs = [] {
        std::vector<cuda_device *> v = enumerate();
        for (cuda_device * d : v) {
            d->dev  = {k_dev_iface, &g_reg, d};
            d->buft = {ggml_cuda_buffer_type_iface, &d->dev, d};
        }
        return v;
    }();
    return devs;
}

bool ggml_cuda_set_device(int device) {
    int cur = -1;
    if (cudaGetDevice(&cur) == cudaSuccess && cur == device) {
        return true;
    }
    return !CUDA_FAILED(cudaSetDevice(device));
}

bool ggml_cuda_dev_supports_op(const cuda_device * dev, const ggml_tensor * op) {
    if (ggml_backend_op_is_noop(op)) {
        return true;  // views: no kernel, the executor skips them
    }
    return ggml_cuda_op_supported(dev->info, op);  // cuda-op-table.cu
}

extern "C" {

// No CUDA call here: the runtime starts when the devices are first asked for (reg_get_device_count).
ggml_backend_reg_t ggml_backend_cuda_reg(void) {
    return &g_reg;
}

int ggml_backend_cuda_get_device_count(void) {
    return (int) ggml_cuda_devices().size();
}

void ggml_backend_cuda_get_device_description(int device, char * description, size_t description_size) {
    if (!description || description_size == 0) {
        return;
    }
    auto &            devs = ggml_cuda_devices();
    const std::string s    = device >= 0 && (size_t) device < devs.size() ? devs[(size_t) device]->description : "";
    std::snprintf(description, description_size, "%s", s.c_str());
}

void ggml_backend_cuda_get_device_memory(int device, size_t * free, size_t * total) {
    auto & devs = ggml_cuda_devices();
    size_t f = 0, t = 0;
    if (device >= 0 && (size_t) device < devs.size()) {
        device_memory(devs[(size_t) device], &f, &t);
    }
    if (free) {
        *free = f;
    }
    if (total) {
        *total = t;
    }
}

ggml_backend_t ggml_backend_cuda_init(int dev_index) {
    auto & devs = ggml_cuda_devices();
    if (dev_index < 0 || (size_t) dev_index >= devs.size()) {
        GGML_LOG_ERROR("%s: device %d out of range (%zu CUDA devices)\n", __func__, dev_index, devs.size());
        return nullptr;
    }
    return ggml_cuda_backend_new(devs[(size_t) dev_index]);
}

bool ggml_backend_is_cuda(ggml_backend_t backend) {
    return ggml_cuda_backend_is_ours(backend);
}

ggml_backend_buffer_type_t ggml_backend_cuda_buffer_type(int dev_index) {
    auto & devs = ggml_cuda_devices();
    return dev_index >= 0 && (size_t) dev_index < devs.size() ? &devs[(size_t) dev_index]->buft : nullptr;
}

ggml_backend_buffer_type_t ggml_backend_cuda_host_buffer_type(void) {
    return ggml_cuda_host_buffer_type_get();
}

}  // extern "C"
