// Backend modules for test-backend-modules (tests/unit): built as MODULE libraries into their own
// folder (tests/CMakeLists.txt), one per FAKE_KIND:
//   0  a well-formed module: family "FAKEMOD" with one device "FAKEMOD0", counting its enumerations
//   1  a foreign library: exports ggml_backend_init but not ggml_backend_module_abi (a plugin of another
//      ggml, say); the loader must refuse it without calling anything (init aborts if called)
//   2  a module whose runtime is missing: it links a library that is not on any search path
// They reach no libggml function, so they load into any test process, also under Wine.
#include "ggml-backend-impl.h"

#include <cstdlib>
#include <cstring>

#if defined(_WIN32)
#    define FAKE_EXPORT extern "C" __declspec(dllexport)
#else
#    define FAKE_EXPORT extern "C" __attribute__((visibility("default")))
#endif

#if FAKE_KIND == 2
extern "C" int fake_module_runtime_version(void);  // defined by the missing library
#endif

namespace {

int g_enumerations = 0;  // calls of get_device_count: the family's devices were asked for

const char * dev_name(ggml_backend_dev_t) {
    return "FAKEMOD0";
}

const char * dev_description(ggml_backend_dev_t) {
    return "a device of the test module";
}

void dev_memory(ggml_backend_dev_t, size_t * free, size_t * total) {
    *free = *total = 0;
}

enum ggml_backend_dev_type dev_type(ggml_backend_dev_t) {
    return GGML_BACKEND_DEVICE_TYPE_ACCEL;
}

bool dev_supports_op(ggml_backend_dev_t, const ggml_tensor *) {
    return false;
}

bool dev_supports_buft(ggml_backend_dev_t, ggml_backend_buffer_type_t) {
    return false;
}

const char * reg_name(ggml_backend_reg_t) {
    return "FAKEMOD";
}

ggml_backend_device g_dev;

size_t reg_device_count(ggml_backend_reg_t) {
    g_enumerations++;
    return 1;
}

ggml_backend_dev_t reg_device(ggml_backend_reg_t, size_t i) {
    return i == 0 ? &g_dev : nullptr;
}

int * enumerations() {
    return &g_enumerations;
}

void * reg_proc(ggml_backend_reg_t, const char * name) {
#if FAKE_KIND == 2
    if (std::strcmp(name, "runtime_version") == 0) {
        return (void *) fake_module_runtime_version;
    }
#endif
    return std::strcmp(name, "fake_enumerations") == 0 ? (void *) enumerations : nullptr;
}

ggml_backend_reg g_reg = {GGML_BACKEND_API_VERSION, {reg_name, reg_device_count, reg_device, reg_proc}, nullptr};

}  // namespace

#if FAKE_KIND != 1
FAKE_EXPORT const char * ggml_backend_module_abi(void) {
    return GGML_BACKEND_MODULE_ABI;
}
#endif

FAKE_EXPORT ggml_backend_reg_t ggml_backend_init(void) {
#if FAKE_KIND == 1
    std::abort();  // the loader must never get this far with a foreign library
#endif
    g_dev                       = {};
    g_dev.iface.get_name        = dev_name;
    g_dev.iface.get_description = dev_description;
    g_dev.iface.get_memory      = dev_memory;
    g_dev.iface.get_type        = dev_type;
    g_dev.iface.supports_op     = dev_supports_op;
    g_dev.iface.supports_buft   = dev_supports_buft;
    g_dev.reg                   = &g_reg;
    return &g_reg;
}
