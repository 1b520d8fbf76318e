// Between the registry (ggml-backend-reg.cpp) and the module loader (ggml-backend-dl.cpp): the loader
// finds, opens and checks module files; the registry keeps what was loaded.
#pragma once

#include "ggml-backend.h"

#include <string>

// Registers a family loaded from module (its library handle) at path. When reg itself or a family of the
// same name is registered already, nothing is added and existing_path says where that one came from.
enum ggml_backend_add_result {
    GGML_BACKEND_ADDED,
    GGML_BACKEND_ADDED_BEFORE,  // reg itself: the OS handed out the same library again
    GGML_BACKEND_NAME_TAKEN,    // another family of that name (or a refused API version)
};
ggml_backend_add_result ggml_backend_registry_add_module(ggml_backend_reg_t reg, void * module, const char * path,
                                                         std::string & existing_path);

// Unregisters reg (and its devices) if it was loaded from a module; returns that module's handle for the
// caller to close, or NULL when reg is not a loaded module.
void * ggml_backend_registry_remove_module(ggml_backend_reg_t reg);

// True, with its path, when a module of this file name (e.g. "libggml-cuda.so") is loaded already.
bool ggml_backend_registry_has_module_file(const std::string & file_name, std::string & path);
