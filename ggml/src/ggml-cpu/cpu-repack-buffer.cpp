// The CPU_REPACK buffer type: CPU memory whose Q4_0 / Q8_0 / Q4_K / Q6_K matrices are stored in the interleaved
// layout of cpu-repack.h. It is not a host buffer type (nobody but mul_mat may read t->data); every
// access goes through set_tensor / get_tensor, which convert from and to the GGUF bytes. Tensors the
// layout does not take are stored as they are.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cpu-repack.h"
#include "ggml-backend-impl.h"
#include "ggml-cpu.h"
#include "ggml-impl.h"
#include "ggml-os.h"

namespace {

constexpr size_t ALIGNMENT = 64;
constexpr size_t HUGE_PAGE = (size_t) 2 << 20;

// Weight buffers of 2 MiB or more start on a 2 MiB boundary, and with GGML_CPU_HUGE_PAGES=1 ask for
// transparent huge pages: the decode GEMVs stream them once per token, and with 4 KiB pages every page
// costs a TLB walk (bench-quants RepackGemv streamed: +5-10% read rate). Off by default: on the VMs
// here a huge page's first touch is slow (the host backs it on demand), which made loading a 1.1B
// Q4_0 / Q8_0 model 0.8-1.7 s / 1.6-4.8 s instead of 0.34-0.40 s / 0.63-0.74 s, while end-to-end decode
// showed no gain outside the noise (docs/benchmarks.md, session 7). Padding: under one huge page.
void * alloc_weights(size_t size) {
    const size_t padded = size == 0 ? ALIGNMENT : (size + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    if (padded < HUGE_PAGE || padded > SIZE_MAX - HUGE_PAGE) {
        return ggml_os_aligned_alloc(ALIGNMENT, padded);
    }
    const size_t      huge     = (padded + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *            mem      = ggml_os_aligned_alloc(HUGE_PAGE, huge);
    static const bool use_huge = [] {
        const char * e = std::getenv("GGML_CPU_HUGE_PAGES");
        return e && std::strcmp(e, "1") == 0;
    }();
    if (mem && use_huge) {
        ggml_os_advise_huge_pages(mem, huge);  // advice only: without THP the buffer still works
    }
    return mem;
}

void buf_free(ggml_backend_buffer_t buffer) {
    ggml_os_aligned_free(buffer->context);
}

void * buf_get_base(ggml_backend_buffer_t buffer) {
    return buffer->context;
}

void buf_memset_tensor(ggml_backend_buffer_t, ggml_tensor * t, uint8_t value, size_t offset, size_t size) {
    std::memset((char *) t->data + offset, value, size);
}

void buf_set_tensor(ggml_backend_buffer_t, ggml_tensor * t, const void * data, size_t offset, size_t size) {
    if (!ggml_repack_supports_tensor(t)) {
        std::memcpy((char *) t->data + offset, data, size);
        return;
    }
    const size_t n = ggml_nbytes(t);
    if (offset == 0 && size == n) {
        ggml_repack_pack(t->type, t->ne[0], t->ne[1], data, t->data);
        return;
    }
    // a partial write: through a GGUF copy of the whole tensor (rare: the loader writes whole tensors)
    std::vector<uint8_t> tmp(n);
    ggml_repack_unpack(t->type, t->ne[0], t->ne[1], t->data, tmp.data());
    std::memcpy(tmp.data() + offset, data, size);
    ggml_repack_pack(t->type, t->ne[0], t->ne[1], tmp.data(), t->data);
}

void buf_get_tensor(ggml_backend_buffer_t, const ggml_tensor * t, void * data, size_t offset, size_t size) {
    if (!ggml_repack_supports_tensor(t)) {
        std::memcpy(data, (const char *) t->data + offset, size);
        return;
    }
    const size_t n = ggml_nbytes(t);
    if (offset == 0 && size == n) {
        ggml_repack_unpack(t->type, t->ne[0], t->ne[1], t->data, data);
        return;
    }
    std::vector<uint8_t> tmp(n);
    ggml_repack_unpack(t->type, t->ne[0], t->ne[1], t->data, tmp.data());
    std::memcpy(data, tmp.data() + offset, size);
}

void buf_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    std::memset(buffer->context, value, buffer->size);
}

const char * buft_get_name(ggml_backend_buffer_type_t) {
    return "CPU_REPACK";
}

ggml_backend_buffer_t buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    if (size > SIZE_MAX - ALIGNMENT) {
        return nullptr;
    }
    // at least one line: a zero-size buffer is still a distinct allocation (probe buffers)
    void * mem = alloc_weights(size);
    if (!mem) {
        GGML_LOG_ERROR("%s: failed to allocate %zu bytes\n", __func__, size);
        return nullptr;
    }
    ggml_backend_buffer_i i = {};
    i.free_buffer           = buf_free;
    i.get_base              = buf_get_base;
    i.memset_tensor         = buf_memset_tensor;
    i.set_tensor            = buf_set_tensor;
    i.get_tensor            = buf_get_tensor;
    i.clear                 = buf_clear;
    ggml_backend_buffer_t b = ggml_backend_buffer_init(buft, i, mem, size);
    if (!b) {
        ggml_os_aligned_free(mem);
    }
    return b;
}

size_t buft_get_alignment(ggml_backend_buffer_type_t) {
    return ALIGNMENT;
}

}  // namespace

bool ggml_repack_is_packed(const ggml_tensor * t) {
    return t && t->buffer && t->buffer->buft == ggml_backend_cpu_repack_buffer_type() && !t->view_src &&
           ggml_repack_supports_tensor(t);
}

extern "C" ggml_backend_buffer_type_t ggml_backend_cpu_repack_buffer_type(void) {
    static ggml_backend_buffer_type buft = [] {
        ggml_backend_buffer_type b = {};
        b.iface.get_name           = buft_get_name;
        b.iface.alloc_buffer       = buft_alloc_buffer;
        b.iface.get_alignment      = buft_get_alignment;
        b.iface.is_host            = nullptr;  // the bytes are not in GGUF order
        b.device                   = ggml_backend_reg_dev_get(ggml_backend_cpu_reg(), 0);
        return b;
    }();
    return &buft;
}
