// cuda-buffer.cu — the CUDA buffer types.
//   Device buffers: one cudaMalloc each; tensor->data is the real device address. The synchronous
//   set/get/memset/copy run on the calling thread's per-thread stream and wait for it: they are not
//   ordered with a backend's stream, so (as for every backend) callers synchronize the backend before
//   touching tensors its queued work uses. Out of device memory: NULL from alloc, logged with the size.
//   Pinned host buffers: cudaHostAlloc'd (portable to every device) host memory; the CPU backend
//   computes on it directly and transfers from/to it run at full bus speed.
#include "cuda-context.cuh"

#include <algorithm>
#include <cstring>

namespace {

struct cuda_buffer {
    int    device = 0;  // CUDA ordinal
    void * ptr    = nullptr;
    size_t size   = 0;
};

constexpr size_t k_alignment = 256;  // cudaMalloc's own; also what vectorized kernels want

cuda_buffer * buf_ctx(ggml_backend_buffer_t b) {
    return (cuda_buffer *) b->context;
}

// Waits for the copy/memset just queued on the calling thread's per-thread stream (err: its enqueue status).
bool wait_thread_stream(cudaError_t err) {
    if (CUDA_FAILED(err)) {
        return false;
    }
    return !CUDA_FAILED(cudaStreamSynchronize(cudaStreamPerThread));
}

void buffer_free(ggml_backend_buffer_t b) {
    cuda_buffer * cb = buf_ctx(b);
    if (cb->ptr && ggml_cuda_set_device(cb->device)) {
        CUDA_FAILED(cudaFree(cb->ptr));
    }
    delete cb;
}

void * buffer_get_base(ggml_backend_buffer_t b) {
    return buf_ctx(b)->ptr;
}

void buffer_memset_tensor(ggml_backend_buffer_t b, ggml_tensor * t, uint8_t value, size_t offset, size_t size) {
    cuda_buffer * cb = buf_ctx(b);
    if (ggml_cuda_set_device(cb->device)) {
        wait_thread_stream(cudaMemsetAsync((uint8_t *) t->data + offset, value, size, cudaStreamPerThread));
    }
}

void buffer_set_tensor(ggml_backend_buffer_t b, ggml_tensor * t, const void * data, size_t offset, size_t size) {
    cuda_buffer * cb = buf_ctx(b);
    if (ggml_cuda_set_device(cb->device)) {
        wait_thread_stream(
            cudaMemcpyAsync((uint8_t *) t->data + offset, data, size, cudaMemcpyHostToDevice, cudaStreamPerThread));
    }
}

void buffer_get_tensor(ggml_backend_buffer_t b, const ggml_tensor * t, void * data, size_t offset, size_t size) {
    cuda_buffer * cb = buf_ctx(b);
    if (ggml_cuda_set_device(cb->device)) {
        wait_thread_stream(cudaMemcpyAsync(data, (const uint8_t *) t->data + offset, size, cudaMemcpyDeviceToHost,
                                           cudaStreamPerThread));
    }
}

// Device to device from any of our device buffers (same GPU or a peer); host sources are the core's job.
bool buffer_cpy_tensor(ggml_backend_buffer_t b, const ggml_tensor * src, ggml_tensor * dst) {
    ggml_backend_buffer_t sb = ggml_backend_tensor_buffer(src);
    if (!ggml_cuda_is_device_buffer(sb) || !src->data) {
        return false;
    }
    const int    sdev = buf_ctx(sb)->device, ddev = buf_ctx(b)->device;
    const size_t n = ggml_nbytes(src);
    if (!ggml_cuda_set_device(ddev)) {
        return false;
    }
    const cudaError_t err =
        sdev == ddev ? cudaMemcpyAsync(dst->data, src->data, n, cudaMemcpyDeviceToDevice, cudaStreamPerThread)
                     : cudaMemcpyPeerAsync(dst->data, ddev, src->data, sdev, n, cudaStreamPerThread);
    return wait_thread_stream(err);
}

void buffer_clear(ggml_backend_buffer_t b, uint8_t value) {
    cuda_buffer * cb = buf_ctx(b);
    if (ggml_cuda_set_device(cb->device)) {
        wait_thread_stream(cudaMemsetAsync(cb->ptr, value, cb->size, cudaStreamPerThread));
    }
}

const ggml_backend_buffer_i k_buffer_iface = {
    buffer_free,       buffer_get_base, nullptr, buffer_memset_tensor, buffer_set_tensor, buffer_get_tensor,
    buffer_cpy_tensor, buffer_clear,    nullptr,
};

cuda_device * buft_dev(ggml_backend_buffer_type_t buft) {
    return (cuda_device *) buft->context;
}

const char * buft_get_name(ggml_backend_buffer_type_t buft) {
    return buft_dev(buft)->name.c_str();
}

ggml_backend_buffer_t buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    cuda_device * dev = buft_dev(buft);
    if (!ggml_cuda_set_device(dev->info.device)) {
        return nullptr;
    }
    // never a NULL base, even for an empty buffer (a NULL tensor->data means "not allocated")
    const size_t alloc = std::max(size, k_alignment);
    void *       ptr   = nullptr;
    cudaError_t  err   = cudaMalloc(&ptr, alloc);
    if (err != cudaSuccess) {
        (void) cudaGetLastError();  // out of memory is not sticky: the device stays usable
        size_t free = 0, total = 0;
        cudaMemGetInfo(&free, &total);
        (void) cudaGetLastError();
        GGML_LOG_ERROR("ggml-cuda: %s: cannot allocate %.2f MiB of device memory (%.2f MiB free of %.2f MiB): %s\n",
                       dev->name.c_str(), size / 1048576.0, free / 1048576.0, total / 1048576.0,
                       cudaGetErrorString(err));
        return nullptr;
    }
    auto *                cb = new cuda_buffer{dev->info.device, ptr, size};
    ggml_backend_buffer_t b  = ggml_backend_buffer_init(buft, k_buffer_iface, cb, size);
    if (!b) {
        cudaFree(ptr);
        delete cb;
    }
    return b;
}

size_t buft_get_alignment(ggml_backend_buffer_type_t) {
    return k_alignment;
}

// ---- pinned host memory -------------------------------------------------------------------------

void host_free(ggml_backend_buffer_t b) {
    if (b->context) {
        CUDA_FAILED(cudaFreeHost(b->context));
    }
}

void * host_get_base(ggml_backend_buffer_t b) {
    return b->context;
}

void host_memset_tensor(ggml_backend_buffer_t, ggml_tensor * t, uint8_t value, size_t offset, size_t size) {
    std::memset((uint8_t *) t->data + offset, value, size);
}

void host_set_tensor(ggml_backend_buffer_t, ggml_tensor * t, const void * data, size_t offset, size_t size) {
    std::memcpy((uint8_t *) t->data + offset, data, size);
}

void host_get_tensor(ggml_backend_buffer_t, const ggml_tensor * t, void * data, size_t offset, size_t size) {
    std::memcpy(data, (const uint8_t *) t->data + offset, size);
}

// From another host buffer: a memcpy; from a device buffer: the core's path (get_tensor into us).
bool host_cpy_tensor(ggml_backend_buffer_t, const ggml_tensor * src, ggml_tensor * dst) {
    if (!ggml_backend_buffer_is_host(ggml_backend_tensor_buffer(src))) {
        return false;
    }
    std::memcpy(dst->data, src->data, ggml_nbytes(src));
    return true;
}

void host_clear(ggml_backend_buffer_t b, uint8_t value) {
    std::memset(b->context, value, b->size);
}

const ggml_backend_buffer_i k_host_buffer_iface = {
    host_free,       host_get_base, nullptr, host_memset_tensor, host_set_tensor, host_get_tensor,
    host_cpy_tensor, host_clear,    nullptr,
};

const char * host_buft_get_name(ggml_backend_buffer_type_t) {
    return GGML_CUDA_NAME "_Host";
}

ggml_backend_buffer_t host_buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    void *            ptr = nullptr;
    const cudaError_t err = cudaHostAlloc(&ptr, std::max<size_t>(size, 64), cudaHostAllocPortable);
    if (err != cudaSuccess) {
        (void) cudaGetLastError();
        GGML_LOG_ERROR("ggml-cuda: cannot allocate %.2f MiB of pinned host memory: %s\n", size / 1048576.0,
                       cudaGetErrorString(err));
        return nullptr;
    }
    ggml_backend_buffer_t b = ggml_backend_buffer_init(buft, k_host_buffer_iface, ptr, size);
    if (!b) {
        cudaFreeHost(ptr);
    }
    return b;
}

size_t host_buft_get_alignment(ggml_backend_buffer_type_t) {
    return 64;  // the CPU backend's SIMD loads
}

bool host_buft_is_host(ggml_backend_buffer_type_t) {
    return true;
}

const ggml_backend_buffer_type_i k_host_buft_iface = {
    host_buft_get_name, host_buft_alloc_buffer, host_buft_get_alignment, nullptr, nullptr, host_buft_is_host,
};

}  // namespace

const ggml_backend_buffer_type_i ggml_cuda_buffer_type_iface = {
    buft_get_name, buft_alloc_buffer, buft_get_alignment, nullptr, nullptr, nullptr,
};

ggml_backend_buffer_type_t ggml_cuda_host_buffer_type_get() {
    auto & devs = ggml_cuda_devices();
    if (devs.empty()) {
        return nullptr;
    }
    static ggml_backend_buffer_type buft = {k_host_buft_iface, &devs[0]->dev, nullptr};
    return &buft;
}

bool ggml_cuda_is_device_buffer(ggml_backend_buffer_t buf) {
    return buf && buf->iface.get_base == buffer_get_base;
}

int ggml_cuda_buffer_device(ggml_backend_buffer_t buf) {
    return ggml_cuda_is_device_buffer(buf) ? buf_ctx(buf)->device : -1;
}
