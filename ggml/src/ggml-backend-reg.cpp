// ggml-backend-reg.cpp — the global registry: every backend family compiled in (the CPU first, then
// Vulkan and CUDA when built), plus families registered at run time (tests add fake backends), and the
// flattened device list the applications enumerate.
#include "ggml-backend-impl.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <vector>

namespace {

struct backend_registry {
    std::vector<ggml_backend_reg_t> regs;
    std::vector<ggml_backend_dev_t> devs;

    backend_registry() {
        add(ggml_backend_cpu_reg());
#ifdef GGML_USE_VULKAN
        add(ggml_backend_vk_reg());
#endif
#ifdef GGML_USE_CUDA
        add(ggml_backend_cuda_reg());
#endif
    }

    void add(ggml_backend_reg_t reg) {
        if (!reg) {
            return;
        }
        if (reg->api_version != GGML_BACKEND_API_VERSION) {
            GGML_LOG_ERROR("ggml_backend_register: %s has API version %d, expected %d; ignored\n",
                           ggml_backend_reg_name(reg), reg->api_version, GGML_BACKEND_API_VERSION);
            return;
        }
        if (std::find(regs.begin(), regs.end(), reg) != regs.end()) {
            return;
        }
        regs.push_back(reg);
        for (size_t i = 0; i < ggml_backend_reg_dev_count(reg); i++) {
            if (ggml_backend_dev_t d = ggml_backend_reg_dev_get(reg, i)) {
                devs.push_back(d);
            }
        }
    }
};

// Registration is rare and enumeration cheap; one mutex keeps runtime additions thread-safe.
std::mutex & registry_mutex() {
    static std::mutex m;
    return m;
}

backend_registry & registry() {
    static backend_registry r;
    return r;
}

bool iequals(const char * a, const char * b) {
    for (; *a && *b; a++, b++) {
        if (std::tolower((unsigned char) *a) != std::tolower((unsigned char) *b)) {
            return false;
        }
    }
    return *a == *b;
}

}  // namespace

extern "C" {

void ggml_backend_register(ggml_backend_reg_t reg) {
    std::lock_guard<std::mutex> lock(registry_mutex());
    registry().add(reg);
}

size_t ggml_backend_reg_count(void) {
    std::lock_guard<std::mutex> lock(registry_mutex());
    return registry().regs.size();
}

ggml_backend_reg_t ggml_backend_reg_get(size_t index) {
    std::lock_guard<std::mutex> lock(registry_mutex());
    auto &                      r = registry();
    return index < r.regs.size() ? r.regs[index] : nullptr;
}

ggml_backend_reg_t ggml_backend_reg_by_name(const char * name) {
    if (!name) {
        return nullptr;
    }
    std::lock_guard<std::mutex> lock(registry_mutex());
    for (ggml_backend_reg_t reg : registry().regs) {
        if (iequals(ggml_backend_reg_name(reg), name)) {
            return reg;
        }
    }
    return nullptr;
}

size_t ggml_backend_dev_count(void) {
    std::lock_guard<std::mutex> lock(registry_mutex());
    return registry().devs.size();
}

ggml_backend_dev_t ggml_backend_dev_get(size_t index) {
    std::lock_guard<std::mutex> lock(registry_mutex());
    auto &                      r = registry();
    return index < r.devs.size() ? r.devs[index] : nullptr;
}

ggml_backend_dev_t ggml_backend_dev_by_name(const char * name) {
    if (!name) {
        return nullptr;
    }
    std::lock_guard<std::mutex> lock(registry_mutex());
    for (ggml_backend_dev_t dev : registry().devs) {
        if (iequals(ggml_backend_dev_name(dev), name)) {
            return dev;
        }
    }
    return nullptr;
}

ggml_backend_dev_t ggml_backend_dev_by_type(enum ggml_backend_dev_type type) {
    std::lock_guard<std::mutex> lock(registry_mutex());
    for (ggml_backend_dev_t dev : registry().devs) {
        if (ggml_backend_dev_type(dev) == type) {
            return dev;
        }
    }
    return nullptr;
}

ggml_backend_t ggml_backend_init_by_name(const char * name, const char * params) {
    ggml_backend_dev_t dev = ggml_backend_dev_by_name(name);
    if (!dev) {
        GGML_LOG_ERROR("%s: no device named '%s'\n", __func__, name ? name : "(null)");
        return nullptr;
    }
    return ggml_backend_dev_init(dev, params);
}

ggml_backend_t ggml_backend_init_by_type(enum ggml_backend_dev_type type, const char * params) {
    ggml_backend_dev_t dev = ggml_backend_dev_by_type(type);
    if (!dev) {
        GGML_LOG_ERROR("%s: no device of type %d\n", __func__, (int) type);
        return nullptr;
    }
    return ggml_backend_dev_init(dev, params);
}

ggml_backend_t ggml_backend_init_best(void) {
    ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_GPU);
    if (!dev) {
        dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_IGPU);
    }
    if (!dev) {
        dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    }
    if (!dev) {
        GGML_LOG_ERROR("%s: no device available\n", __func__);
        return nullptr;
    }
    return ggml_backend_dev_init(dev, nullptr);
}

void ggml_backend_reg_set_abort_callback(ggml_backend_t backend, ggml_abort_callback callback, void * user_data) {
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(ggml_backend_get_device(backend));
    if (!reg) {
        return;
    }
    using set_abort_t = void (*)(ggml_backend_t, ggml_abort_callback, void *);
    if (auto fn = (set_abort_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_abort_callback")) {
        fn(backend, callback, user_data);
    }
}

void ggml_backend_load_all(void) {}

void ggml_backend_load_all_from_path(const char * dir_path) {
    (void) dir_path;
}

}  // extern "C"
