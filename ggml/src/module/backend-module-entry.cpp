// The entry points of a backend module (ggml-backend-impl.h, "backend modules"), compiled into each
// module with GGML_BACKEND_MODULE_REG naming its registry function (ggml/CMakeLists.txt). Only these are
// exported (cmake/ggml-module.map); the backend's own objects are shared with its test archive, which
// must not carry them (two backends' archives in one test would define them twice).
#include "ggml-backend-impl.h"

#ifndef GGML_BACKEND_MODULE_REG
#    error "GGML_BACKEND_MODULE_REG must name the module's registry function"
#endif

#if defined(_WIN32)
#    define GGML_BACKEND_MODULE_EXPORT __declspec(dllexport)
#else
#    define GGML_BACKEND_MODULE_EXPORT __attribute__((visibility("default")))
#endif

extern "C" {

GGML_BACKEND_MODULE_EXPORT const char * ggml_backend_module_abi(void) {
    return GGML_BACKEND_MODULE_ABI;
}

// Returns the registry without starting the GPU runtime: its devices are enumerated on first use.
GGML_BACKEND_MODULE_EXPORT ggml_backend_reg_t ggml_backend_init(void) {
    return GGML_BACKEND_MODULE_REG();
}

}  // extern "C"
