#include "llama-buffers.h"

#include "llama-log.h"

#include "ggml-alloc.h"

#include <algorithm>
#include <cstdint>

void llama_alloc_ctx_tensors_chunked(ggml_context * ctx, ggml_backend_buffer_type_t buft,
                                     std::vector<ggml_backend_buffer_t> & out, const char * what) {
    const size_t align    = std::max<size_t>(1, ggml_backend_buft_get_alignment(buft));
    size_t       max_size = ggml_backend_buft_get_max_size(buft);
    if (max_size == 0) {
        max_size = SIZE_MAX;
    }
    std::vector<ggml_tensor *> group;
    size_t                     group_size = 0;
    auto                       flush      = [&]() {
        if (group.empty()) {
            return;
        }
        // one alignment of slack for a base address the allocator has to round up
        const size_t          size = group_size > max_size - align ? max_size : group_size + align;
        ggml_backend_buffer_t buf  = ggml_backend_buft_alloc_buffer(buft, size);
        if (!buf) {
            throw llama_error(llama_format("cannot allocate a %s buffer of %zu bytes for the %s",
                                                                      ggml_backend_buft_name(buft), size, what));
        }
        out.push_back(buf);
        ggml_tallocr talloc = ggml_tallocr_new(buf);
        for (ggml_tensor * t : group) {
            if (!ggml_tallocr_alloc(&talloc, t)) {
                throw llama_error(
                                               llama_format("cannot place tensor '%s' in a %s buffer", t->name, ggml_backend_buft_name(buft)));
            }
        }
        group.clear();
        group_size = 0;
    };
    for (ggml_tensor * t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t)) {
        if (t->data || t->view_src) {
            continue;
        }
        const size_t sz = (ggml_backend_buft_get_alloc_size(buft, t) + align - 1) / align * align;
        if (sz > max_size) {
            throw llama_error(llama_format("tensor '%s' (%zu bytes) is larger than the %s maximum buffer size (%zu)",
                                           t->name, sz, ggml_backend_buft_name(buft), max_size));
        }
        if (group_size + sz > max_size - std::min(max_size, align) && !group.empty()) {
            flush();
        }
        group.push_back(t);
        group_size += sz;
    }
    flush();
}
