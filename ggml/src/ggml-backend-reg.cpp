// ggml-backend-reg.cpp — the global registry: the CPU, the families linked in (static builds), the
// modules loaded at run time (ggml-backend-dl.cpp; shared builds load what they find on first use) and
// families registered by programs (tests add fake backends), and the flattened device list the
// applications enumerate. A family's devices are enumerated only when a device function is first
// called, so loading a GPU module does not start its runtime.
#include "ggml-backend-dl.h"
#include "ggml-backend-impl.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct reg_entry {
    ggml_backend_reg_t reg;
    void *             module;  // the module's library handle; NULL for families not loaded from a file
    std::string        path;    // the module's file
};

struct backend_registry {
    std::vector<reg_entry>          regs;
    std::vector<ggml_backend_dev_t> devs;
    size_t                          n_enumerated = 0;  // regs[0, n) have their devices in devs

    backend_registry() {
        add(ggml_backend_cpu_reg(), nullptr, "");
#ifdef GGML_USE_VULKAN
        add(ggml_backend_vk_reg(), nullptr, "");
#endif
#ifdef GGML_USE_CUDA
        add(ggml_backend_cuda_reg(), nullptr, "");
#endif
    }

    const reg_entry * find(ggml_backend_reg_t reg) const {
        for (const reg_entry & e : regs) {
            if (e.reg == reg) {
                return &e;
            }
        }
        return nullptr;
    }

    // false when reg is refused (a wrong API version) or another family of its name is registered
    bool add(ggml_backend_reg_t reg, void * module, const char * path) {
        if (!reg) {
            return false;
        }
        if (reg->api_version != GGML_BACKEND_API_VERSION) {
            GGML_LOG_ERROR("ggml_backend_register: %s has API version %d, expected %d; ignored\n",
                           ggml_backend_reg_name(reg), reg->api_version, GGML_BACKEND_API_VERSION);
            return false;
        }
        if (find(reg)) {
            return true;
        }
        regs.push_back({reg, module, path ? path : ""});
        return true;
    }

    // the devices of the families registered since the last call, in registration order
    void enumerate() {
        for (; n_enumerated < regs.size(); n_enumerated++) {
            ggml_backend_reg_t reg = regs[n_enumerated].reg;
            const size_t       n   = ggml_backend_reg_dev_count(reg);
            for (size_t i = 0; i < n; i++) {
                if (ggml_backend_dev_t d = ggml_backend_reg_dev_get(reg, i)) {
                    devs.push_back(d);
                }
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

// Shared builds load the modules they find once, on the first use of the registry (outside its lock:
// loading registers through it).
void autoload() {
#ifdef GGML_BACKEND_DL
    static std::once_flag once;
    std::call_once(once, [] { ggml_backend_load_all(); });
#endif
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

ggml_backend_add_result ggml_backend_registry_add_module(ggml_backend_reg_t reg, void * module, const char * path,
                                                         std::string & existing_path) {
    std::lock_guard<std::mutex> lock(registry_mutex());
    backend_registry &          r = registry();
    if (const reg_entry * e = r.find(reg)) {
        existing_path = e->path.empty() ? "libggml" : e->path;
        return GGML_BACKEND_ADDED_BEFORE;
    }
    for (const reg_entry & e : r.regs) {
        if (iequals(ggml_backend_reg_name(e.reg), ggml_backend_reg_name(reg))) {
            existing_path = e.path.empty() ? "libggml" : e.path;
            return GGML_BACKEND_NAME_TAKEN;
        }
    }
    existing_path.clear();
    return r.add(reg, module, path) ? GGML_BACKEND_ADDED : GGML_BACKEND_NAME_TAKEN;
}

void * ggml_backend_registry_remove_module(ggml_backend_reg_t reg) {
    std::lock_guard<std::mutex> lock(registry_mutex());
    backend_registry &          r = registry();
    auto it = std::find_if(r.regs.begin(), r.regs.end(), [&](const reg_entry & e) { return e.reg == reg; });
    if (it == r.regs.end() || !it->module) {
        return nullptr;
    }
    void * module = it->module;
    if ((size_t) (it - r.regs.begin()) < r.n_enumerated) {
        r.n_enumerated--;
    }
    r.regs.erase(it);
    r.devs.erase(std::remove_if(r.devs.begin(), r.devs.end(),
                                [&](ggml_backend_dev_t d) { return ggml_backend_dev_backend_reg(d) == reg; }),
                 r.devs.end());
    return module;
}

bool ggml_backend_registry_has_module_file(const std::string & file_name, std::string & path) {
    std::lock_guard<std::mutex> lock(registry_mutex());
    for (const reg_entry & e : registry().regs) {
        const size_t slash = e.path.find_last_of("/\\");
        if (e.module && e.path.substr(slash == std::string::npos ? 0 : slash + 1) == file_name) {
            path = e.path;
            return true;
        }
    }
    return false;
}

extern "C" {

void ggml_backend_register(ggml_backend_reg_t reg) {
    autoload();
    std::lock_guard<std::mutex> lock(registry_mutex());
    registry().add(reg, nullptr, "");
}

size_t ggml_backend_reg_count(void) {
    autoload();
    std::lock_guard<std::mutex> lock(registry_mutex());
    return registry().regs.size();
}

ggml_backend_reg_t ggml_backend_reg_get(size_t index) {
    autoload();
    std::lock_guard<std::mutex> lock(registry_mutex());
    auto &                      r = registry();
    return index < r.regs.size() ? r.regs[index].reg : nullptr;
}

ggml_backend_reg_t ggml_backend_reg_by_name(const char * name) {
    if (!name) {
        return nullptr;
    }
    autoload();
    std::lock_guard<std::mutex> lock(registry_mutex());
    for (const reg_entry & e : registry().regs) {
        if (iequals(ggml_backend_reg_name(e.reg), name)) {
            return e.reg;
        }
    }
    return nullptr;
}

size_t ggml_backend_dev_count(void) {
    autoload();
    std::lock_guard<std::mutex> lock(registry_mutex());
    registry().enumerate();
    return registry().devs.size();
}

ggml_backend_dev_t ggml_backend_dev_get(size_t index) {
    autoload();
    std::lock_guard<std::mutex> lock(registry_mutex());
    auto &                      r = registry();
    r.enumerate();
    return index < r.devs.size() ? r.devs[index] : nullptr;
}

ggml_backend_dev_t ggml_backend_dev_by_name(const char * name) {
    if (!name) {
        return nullptr;
    }
    autoload();
    std::lock_guard<std::mutex> lock(registry_mutex());
    registry().enumerate();
    for (ggml_backend_dev_t dev : registry().devs) {
        if (iequals(ggml_backend_dev_name(dev), name)) {
            return dev;
        }
    }
    return nullptr;
}

ggml_backend_dev_t ggml_backend_dev_by_type(enum ggml_backend_dev_type type) {
    autoload();
    std::lock_guard<std::mutex> lock(registry_mutex());
    registry().enumerate();
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

}  // extern "C"
