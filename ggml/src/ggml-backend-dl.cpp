// ggml-backend-dl.cpp — backend modules: finding the files, opening them through the platform layer,
// checking that they are modules of this library, and handing their registries to the registry
// (ggml-backend-reg.cpp). Nothing here aborts: a file that cannot be used is skipped with one log line.
#include "ggml-backend-dl.h"
#include "ggml-backend-impl.h"
#include "ggml-impl.h"
#include "ggml-os.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

// Modules whose runtime needs a kind of device this machine may visibly lack: where the OS shows its
// GPU device nodes (Linux) and none of that kind exists, the module is not opened at all, so its
// runtime (for CUDA: libcudart and cuBLAS, ~200 MB mapped and ~50 ms of relocations) costs nothing.
struct module_need {
    const char * name;  // the <name> of [lib]ggml-<name>
    unsigned     node;  // a GGML_OS_GPU_* flag
    const char * what;  // for the log line
};
constexpr module_need k_needs[] = {
    {"cuda", GGML_OS_GPU_NVIDIA, "no NVIDIA device on this machine (no /dev/nvidiactl)"},
};

// Loading is serialised: two threads loading the same file must not both register it.
std::mutex & loader_mutex() {
    static std::mutex m;
    return m;
}

std::string file_name_of(const std::string & path) {
    const size_t slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "cuda" for ".../libggml-cuda.so" or "ggml-cuda.dll"; "" when the name is not a module's.
std::string module_name_of(const std::string & file) {
    const std::string suffix = ggml_os_dl_suffix();
    std::string       stem   = file;
    if (stem.size() <= suffix.size() || stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) != 0) {
        return "";
    }
    stem.resize(stem.size() - suffix.size());
    for (const char * prefix : {"libggml-", "ggml-"}) {
        const size_t n = std::strlen(prefix);
        if (stem.size() > n && stem.compare(0, n, prefix) == 0) {
            return stem.substr(n);
        }
    }
    return "";
}

bool env_flag(const char * name) {
    const char * v = std::getenv(name);
    return v && *v && std::strcmp(v, "0") != 0;
}

// Why a module of this name is not worth opening here, or nullptr.
const char * skip_reason(const std::string & name) {
    if (env_flag("GGML_BACKEND_LOAD_ALL")) {
        return nullptr;
    }
    for (const module_need & n : k_needs) {
        if (name == n.name) {
            const unsigned nodes = ggml_os_gpu_nodes();
            if (!(nodes & GGML_OS_GPU_UNKNOWN) && !(nodes & n.node)) {
                return n.what;
            }
        }
    }
    return nullptr;
}

ggml_backend_reg_t load_locked(const char * path, bool quiet_if_loaded) {
    const std::string file = file_name_of(path);
    std::string       other;
    if (ggml_backend_registry_has_module_file(file, other) && other != path) {
        // the same module from a later search folder: the first one found stays
        if (!quiet_if_loaded) {
            GGML_LOG_INFO("ggml_backend_load: %s: %s is loaded already (from %s); skipped\n", path, file.c_str(),
                          other.c_str());
        }
        return nullptr;
    }
    void * lib = ggml_os_dl_open(path);
    if (!lib) {
        GGML_LOG_WARN("ggml_backend_load: %s: cannot load: %s; skipped\n", path, ggml_os_error());
        return nullptr;
    }
    auto abi = (ggml_backend_module_abi_t) ggml_os_dl_sym(lib, "ggml_backend_module_abi");
    if (!abi || std::strcmp(abi(), GGML_BACKEND_MODULE_ABI) != 0) {
        GGML_LOG_WARN("ggml_backend_load: %s: not a backend module of this library (%s %s); skipped\n", path,
                      abi ? "module ABI" : "no ggml_backend_module_abi", abi ? abi() : "");
        ggml_os_dl_close(lib);
        return nullptr;
    }
    auto init  = (ggml_backend_init_t) ggml_os_dl_sym(lib, "ggml_backend_init");
    auto score = (ggml_backend_score_t) ggml_os_dl_sym(lib, "ggml_backend_score");
    if (score && score() == 0) {
        GGML_LOG_INFO("ggml_backend_load: %s: the module says it cannot run on this machine; skipped\n", path);
        ggml_os_dl_close(lib);
        return nullptr;
    }
    ggml_backend_reg_t reg = init ? init() : nullptr;
    if (!reg) {
        GGML_LOG_WARN("ggml_backend_load: %s: %s; skipped\n", path,
                      init ? "ggml_backend_init returned no registry" : "no ggml_backend_init");
        ggml_os_dl_close(lib);
        return nullptr;
    }
    const ggml_backend_add_result added = ggml_backend_registry_add_module(reg, lib, path, other);
    if (added != GGML_BACKEND_ADDED) {
        const bool same = added == GGML_BACKEND_ADDED_BEFORE;
        if (!same || !quiet_if_loaded) {
            GGML_LOG_INFO("ggml_backend_load: %s: %s is registered already (from %s)%s\n", path,
                          ggml_backend_reg_name(reg), other.empty() ? "?" : other.c_str(), same ? "" : "; skipped");
        }
        ggml_os_dl_close(lib);  // drops this load's reference: the first load keeps the library
        return same ? reg : nullptr;
    }
    GGML_LOG_INFO("ggml_backend_load: loaded %s from %s\n", ggml_backend_reg_name(reg), path);
    return reg;
}

// The folders searched by ggml_backend_load_all, in order, without repeats.
std::vector<std::string> search_dirs() {
    std::vector<std::string> dirs;
    auto                     add = [&](std::string d) {
        while (d.size() > 1 && (d.back() == '/' || d.back() == '\\')) {
            d.pop_back();
        }
        if (!d.empty() && std::find(dirs.begin(), dirs.end(), d) == dirs.end()) {
            dirs.push_back(d);
        }
    };
    if (const char * env = std::getenv("GGML_BACKEND_DIR")) {
        add(env);
    }
    char self[4096];
    if (ggml_os_dl_path_of((const void *) &ggml_backend_load_all, self, sizeof(self))) {
        const std::string p     = self;
        const size_t      slash = p.find_last_of("/\\");
        const std::string dir   = slash == std::string::npos ? "." : p.substr(0, slash);
        add(dir);
        add(dir + "/ggml-backends");
    }
    return dirs;
}

void load_dir(const std::string & dir) {
    std::vector<std::string> files;
    if (!ggml_os_list_dir(
            dir.c_str(),
            [](const char * name, void * ud) {
                if (!module_name_of(name).empty()) {
                    static_cast<std::vector<std::string> *>(ud)->push_back(name);
                }
            },
            &files)) {
        return;  // a search folder that does not exist is the usual case
    }
    std::sort(files.begin(), files.end());     // the same order on every run
    static std::vector<std::string> reported;  // each skipped file is reported once per process
    for (const std::string & f : files) {
        const std::string name = module_name_of(f);
        const std::string path = dir + "/" + f;
        std::string       loaded_from;
        if (ggml_backend_registry_has_module_file(f, loaded_from) && loaded_from == path) {
            continue;  // loaded by an earlier call
        }
        if (const char * why = skip_reason(name)) {
            if (std::find(reported.begin(), reported.end(), path) == reported.end()) {
                reported.push_back(path);
                GGML_LOG_INFO("ggml_backend_load: %s not loaded: %s (GGML_BACKEND_LOAD_ALL=1 loads it anyway)\n",
                              path.c_str(), why);
            }
            continue;
        }
        load_locked(path.c_str(), true);
    }
}

}  // namespace

extern "C" {

ggml_backend_reg_t ggml_backend_load(const char * path) {
    if (!path || !*path) {
        GGML_LOG_ERROR("ggml_backend_load: no path\n");
        return nullptr;
    }
    std::lock_guard<std::mutex> lock(loader_mutex());
    return load_locked(path, false);
}

void ggml_backend_unload(ggml_backend_reg_t reg) {
    if (!reg) {
        return;
    }
    std::lock_guard<std::mutex> lock(loader_mutex());
    if (void * lib = ggml_backend_registry_remove_module(reg)) {
        ggml_os_dl_close(lib);
    }
}

void ggml_backend_load_all(void) {
    ggml_backend_load_all_from_path(nullptr);
}

void ggml_backend_load_all_from_path(const char * dir_path) {
    std::lock_guard<std::mutex> lock(loader_mutex());
    if (dir_path) {
        load_dir(dir_path);
        return;
    }
    for (const std::string & d : search_dirs()) {
        load_dir(d);
    }
}

}  // extern "C"
