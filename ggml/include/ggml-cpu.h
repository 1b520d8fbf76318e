/*
 * ggml-cpu.h — the CPU backend: a persistent thread pool and a kernel for every op.
 * Every op has a plain scalar implementation (the oracle for SIMD and GPU versions); faster
 * versions are selected once at run time from CPUID.
 */
#pragma once

#include "ggml-backend.h"
#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A new CPU backend with its own thread pool (n_threads defaults to the number of cores, max 4...
 * see ggml_backend_cpu_set_n_threads). NULL on failure. Free with ggml_backend_free. */
/* NUMA strategies (llama_numa_init). This CPU backend does not place threads or memory per NUMA
 * node: ggml_numa_init accepts any strategy and changes nothing, ggml_is_numa returns false. */
enum ggml_numa_strategy {
    GGML_NUMA_STRATEGY_DISABLED   = 0,
    GGML_NUMA_STRATEGY_DISTRIBUTE = 1,
    GGML_NUMA_STRATEGY_ISOLATE    = 2,
    GGML_NUMA_STRATEGY_NUMACTL    = 3,
    GGML_NUMA_STRATEGY_MIRROR     = 4,
    GGML_NUMA_STRATEGY_COUNT
};

GGML_API void ggml_numa_init(enum ggml_numa_strategy numa);
GGML_API bool ggml_is_numa(void);

/* A pool of params->n_threads threads (1..GGML_MAX_N_THREADS; the caller's thread is one of
 * them) for the CPU backend. NULL on bad params or if the threads cannot be started. Free with
 * ggml_threadpool_free (NULL is a no-op) after every backend using it let go of it. pause/resume
 * are accepted (a paused pool still computes when asked). */
GGML_API struct ggml_threadpool * ggml_threadpool_new(struct ggml_threadpool_params * params);
GGML_API void                     ggml_threadpool_free(struct ggml_threadpool * threadpool);
GGML_API int                      ggml_threadpool_get_n_threads(struct ggml_threadpool * threadpool);
GGML_API void                     ggml_threadpool_pause(struct ggml_threadpool * threadpool);
GGML_API void                     ggml_threadpool_resume(struct ggml_threadpool * threadpool);

GGML_API ggml_backend_t     ggml_backend_cpu_init(void);
GGML_API bool               ggml_backend_is_cpu(ggml_backend_t backend);
/* Threads used by the next graph computes (>= 1; values < 1 are clamped to 1). */
GGML_API void               ggml_backend_cpu_set_n_threads(ggml_backend_t backend_cpu, int n_threads);
/* Checked between nodes; returning true makes the compute return GGML_STATUS_ABORTED. */
GGML_API void               ggml_backend_cpu_set_abort_callback(ggml_backend_t backend_cpu,
                                                                ggml_abort_callback abort_callback,
                                                                void * abort_callback_data);
/* Computes with threadpool (all its threads) instead of the backend's own pool; NULL returns to
 * the own pool and the n_threads set with ggml_backend_cpu_set_n_threads. */
GGML_API void               ggml_backend_cpu_set_threadpool(ggml_backend_t backend_cpu, ggml_threadpool_t threadpool);
GGML_API ggml_backend_reg_t ggml_backend_cpu_reg(void);
/* CPU_REPACK: the CPU device's extra buffer type (also offered through the registry's
 * "ggml_backend_dev_get_extra_bufts" proc address). Q4_0 and Q8_0 matrices (2-D, rows a multiple of
 * 16) placed in it are stored row-interleaved for the int8 kernels; ggml_backend_tensor_set/get still
 * take and return the GGUF bytes. The CPU device runs only MUL_MAT with such a tensor as src0 and
 * refuses every other op reading from this buffer type (other tensors are stored as they are, for
 * get/set only). Not a host buffer type. Never NULL. */
GGML_API ggml_backend_buffer_type_t ggml_backend_cpu_repack_buffer_type(void);

/* The thread count the CPU backend and llama_context_default_params start with: the performance cores
 * where the OS tells them apart (the big cores of a big.LITTLE phone, Apple's P-cores; efficiency
 * cores would hold the others back at every barrier), else all cores, at most 4. Always >= 1. */
GGML_API int ggml_cpu_default_n_threads(void);

/* CPU features detected at run time (for system info strings and tests). Each is false on a CPU of
 * the other family, and in a build without that family's kernels (GGML_CPU_ARCH=generic). */
GGML_API bool ggml_cpu_has_avx2(void);
GGML_API bool ggml_cpu_has_fma(void);
GGML_API bool ggml_cpu_has_f16c(void);
GGML_API bool ggml_cpu_has_avx512(void);
GGML_API bool ggml_cpu_has_avx512_vnni(void);
GGML_API bool ggml_cpu_has_avx512_bf16(void);
/* arm64: Advanced SIMD, SDOT/UDOT, FP16 vector arithmetic, SMMLA (i8mm), SVE and its vector length in
 * bytes (0 without SVE). */
GGML_API bool ggml_cpu_has_neon(void);
GGML_API bool ggml_cpu_has_dotprod(void);
GGML_API bool ggml_cpu_has_fp16_va(void);
GGML_API bool ggml_cpu_has_matmul_int8(void);
GGML_API bool ggml_cpu_has_sve(void);
GGML_API int  ggml_cpu_get_sve_cnt(void);

#ifdef __cplusplus
}
#endif
