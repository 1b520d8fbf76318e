/*
 * ggml-vulkan.h — the Vulkan backend: every Vulkan physical device that can run our compute shaders
 * (storage-buffer 16-bit access, push descriptors) is one backend device "Vulkan<N>". Mesa's lavapipe
 * (a CPU implementation) counts too, so CI can run the backend for real.
 *
 * Devices are normally reached through the registry (ggml_backend_dev_by_name("Vulkan0"), or
 * ggml_backend_reg_by_name("Vulkan")). These functions are conveniences over it.
 * No Vulkan driver, no usable device: the registry simply has 0 Vulkan devices; nothing aborts.
 */
#pragma once

#include "ggml-backend.h"
#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GGML_VK_NAME "Vulkan"

/* The Vulkan registry (process lifetime; never NULL, possibly with 0 devices). */
GGML_API ggml_backend_reg_t ggml_backend_vk_reg(void);

/* Number of usable Vulkan devices (0 without a driver). */
GGML_API int ggml_backend_vk_get_device_count(void);

/* Writes the device's name (e.g. "llvmpipe (LLVM 15.0.6, 256 bits)") into description (always
 * NUL-terminated when description_size > 0). Out-of-range index: writes an empty string. */
GGML_API void ggml_backend_vk_get_device_description(int device, char * description, size_t description_size);

/* Device-local memory of the device in bytes (0, 0 for an out-of-range index). */
GGML_API void ggml_backend_vk_get_device_memory(int device, size_t * free, size_t * total);

/* A new backend (compute stream) on device dev_index. NULL (logged) if out of range or on failure.
 * Free with ggml_backend_free. */
GGML_API ggml_backend_t ggml_backend_vk_init(size_t dev_index);

/* True if backend was created by this family. */
GGML_API bool ggml_backend_is_vk(ggml_backend_t backend);

/* The buffer type for weights and activations on device dev_index (NULL if out of range). */
GGML_API ggml_backend_buffer_type_t ggml_backend_vk_buffer_type(size_t dev_index);

#ifdef __cplusplus
}
#endif
