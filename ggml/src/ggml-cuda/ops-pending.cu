// deleted at merge: placeholders so the core links before the op families (ops-*.cu, mm-*.cu, fa-*.cu)
// arrive; every op is refused (the scheduler keeps it on the CPU) and computing one fails cleanly.
#include "common.cuh"

bool ggml_cuda_supports_basic(const ggml_cuda_device_info &, const ggml_tensor *) {
    return false;
}

bool ggml_cuda_compute_basic(ggml_cuda_op_ctx &, ggml_tensor * node) {
    GGML_LOG_ERROR("ggml-cuda: %s: no CUDA kernel for %s in this build\n", __func__, ggml_op_name(node->op));
    return false;
}

bool ggml_cuda_supports_mm(const ggml_cuda_device_info &, const ggml_tensor *) {
    return false;
}

bool ggml_cuda_compute_mm(ggml_cuda_op_ctx &, ggml_tensor * node) {
    GGML_LOG_ERROR("ggml-cuda: %s: no CUDA kernel for %s in this build\n", __func__, ggml_op_name(node->op));
    return false;
}
