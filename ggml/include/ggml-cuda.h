/*
 * ggml-cuda.h — the CUDA backend: every NVIDIA GPU the CUDA runtime reports is one backend device
 * "CUDA<N>" of type GGML_BACKEND_DEVICE_TYPE_GPU, so n_gpu_layers, split_mode, main_gpu and
 * tensor_split place work on it like on any other GPU. Built with -DLLAMA_CUDA=ON (CUDA toolkit:
 * nvcc, cudart, cuBLAS); the machine code covers compute capability 8.0 (Ampere) and 9.0 (Hopper),
 * with PTX that the driver compiles for newer GPUs.
 *
 * Devices are normally reached through the registry (ggml_backend_dev_by_name("CUDA0"), or
 * ggml_backend_reg_by_name("CUDA")). These functions are conveniences over it.
 * No driver, no GPU, or a driver older than the runtime: the registry simply has 0 CUDA devices
 * (one informational log line says why); nothing aborts.
 *
 * Each backend (ggml_backend_cuda_init) owns one CUDA stream and one cuBLAS handle bound to it: graph
 * computes, async copies and events are ordered on that stream; ggml_backend_synchronize waits for it.
 * Environment: GGML_CUDA_DISABLE_GRAPHS=1 turns off CUDA-graph capture/replay of single-token graphs.
 */
#pragma once

#include "ggml-backend.h"
#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GGML_CUDA_NAME "CUDA"

/* The CUDA registry (process lifetime; never NULL, possibly with 0 devices). */
GGML_API ggml_backend_reg_t ggml_backend_cuda_reg(void);

/* Number of usable CUDA devices (0 without a driver or GPU). */
GGML_API int ggml_backend_cuda_get_device_count(void);

/* Writes the device's name (e.g. "NVIDIA H200") into description (always NUL-terminated when
 * description_size > 0). Out-of-range index: writes an empty string. */
GGML_API void ggml_backend_cuda_get_device_description(int device, char * description, size_t description_size);

/* Free and total device memory in bytes, as the driver reports them now (0, 0 for an out-of-range
 * index or when the query fails). Either pointer may be NULL. */
GGML_API void ggml_backend_cuda_get_device_memory(int device, size_t * free, size_t * total);

/* A new backend (one stream, one cuBLAS handle) on device dev_index. NULL (logged) if out of range
 * or on failure. Free with ggml_backend_free. */
GGML_API ggml_backend_t ggml_backend_cuda_init(int dev_index);

/* True if backend was created by this family. */
GGML_API bool ggml_backend_is_cuda(ggml_backend_t backend);

/* The buffer type for weights and activations in device memory of device dev_index (NULL if out of
 * range). Allocation failures (out of device memory) return NULL from ggml_backend_buft_alloc_buffer,
 * logged with the size asked for. */
GGML_API ggml_backend_buffer_type_t ggml_backend_cuda_buffer_type(int dev_index);

/* Pinned (page-locked) host memory: a host buffer type (the CPU backend computes on it) whose
 * transfers to and from any CUDA device run at full bus speed and can be asynchronous. NULL when
 * there is no CUDA device. Allocation failures return NULL (logged). */
GGML_API ggml_backend_buffer_type_t ggml_backend_cuda_host_buffer_type(void);

#ifdef __cplusplus
}
#endif
