// vk-shaders.h — the SPIR-V modules embedded at build time (generated ggml-vulkan-shaders.cpp).
#pragma once

#include <cstddef>

struct vk_shader_blob {
    const char *          name;  // variant name, e.g. "mul_mat_q4_0" (see CMakeLists.txt)
    const unsigned char * data;  // SPIR-V words, 4-byte aligned
    size_t                size;  // bytes
};

extern const vk_shader_blob ggml_vk_shader_blobs[];
extern const size_t         ggml_vk_shader_blob_count;
