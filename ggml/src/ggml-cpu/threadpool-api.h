// The public thread pool of ggml-cpu.h (ggml_threadpool_new): a ggml_cpu_threadpool with the
// thread count it computes with. The CPU backend computes with one when it is set on it.
#pragma once

#include "ggml-cpu-compute.h"
#include "ggml-cpu.h"

struct ggml_threadpool {
    ggml_cpu_threadpool * tp        = nullptr;
    int                   n_threads = 1;
    bool                  paused    = false;  // recorded only: a compute runs anyway
};
