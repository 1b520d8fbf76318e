// Shared by the platform layer's files only.
#pragma once

#include <string>

#if defined(_MSC_VER) && !defined(__clang__)
#    include <intrin.h>
#endif

// Sets the calling thread's ggml_os_error() text.
void ggml_os_set_error(const std::string & msg);
