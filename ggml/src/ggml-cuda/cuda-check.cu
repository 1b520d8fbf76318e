// cuda-check.cu — logging of failed CUDA runtime and cuBLAS calls (CUDA_FAILED / CUBLAS_FAILED in
// common.cuh). The error is cleared from the runtime's per-thread "last error" so that the next
// cudaGetLastError() after a kernel launch reports that launch, not this call.
#include "common.cuh"

bool ggml_cuda_check(cudaError_t err, const char * what, const char * func) {
    if (err == cudaSuccess) {
        return false;
    }
    (void) cudaGetLastError();
    GGML_LOG_ERROR("ggml-cuda: %s: %s failed: %s (%s, %d)\n", func, what, cudaGetErrorString(err),
                   cudaGetErrorName(err), (int) err);
    return true;
}

bool ggml_cuda_check_cublas(cublasStatus_t st, const char * what, const char * func) {
    if (st == CUBLAS_STATUS_SUCCESS) {
        return false;
    }
    GGML_LOG_ERROR("ggml-cuda: %s: %s failed: %s (%s, %d)\n", func, what, cublasGetStatusString(st),
                   cublasGetStatusName(st), (int) st);
    return true;
}
