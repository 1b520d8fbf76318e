// The CPU compute engine: a persistent thread pool and per-op kernels. The CPU backend glue
// (ggml-cpu-backend.cpp) wraps it into a ggml_backend; tests and benchmarks may call it directly.
#pragma once

#include "ggml-backend.h"
#include "ggml.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ggml_cpu_threadpool;

// Starts n_threads - 1 workers (the caller's thread is worker 0). NULL on failure.
struct ggml_cpu_threadpool * ggml_cpu_threadpool_new(int n_threads);
void                         ggml_cpu_threadpool_free(struct ggml_cpu_threadpool * tp);  // NULL ok

// Computes every node of gf in order on up to n_threads threads of tp (the pool grows if needed).
// All tensors must have host-accessible data. Returns GGML_STATUS_ABORTED if abort_cb returned true
// (checked between nodes), GGML_STATUS_FAILED if a kernel rejected its input (logged, e.g. a row id
// out of range), GGML_STATUS_ALLOC_FAILED if scratch memory could not be obtained.
enum ggml_status ggml_cpu_graph_compute(struct ggml_cpu_threadpool * tp, struct ggml_cgraph * gf, int n_threads,
                                        ggml_abort_callback abort_cb, void * abort_data);

// The threads ggml_cpu_graph_compute runs gf on when given n_threads (unless GGML_CPU_AUTO_THREADS=0):
// fewer when the graph's estimated work per node is too small to pay for a barrier per node and
// thread (1 for a small model's decode). 1 for a NULL graph or n_threads <= 1.
int ggml_cpu_graph_threads(const struct ggml_cgraph * gf, int n_threads);

// True iff the CPU kernels handle this node (types, shapes, strides).
bool ggml_cpu_supports_op(const struct ggml_tensor * op);

#ifdef __cplusplus
}
#endif
