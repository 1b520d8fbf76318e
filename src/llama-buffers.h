// Backend buffers for the tensors of a ggml context, split to the buffer type's maximum size. Shared
// by the model loader (weights) and the KV cache (K/V rows); it sits below both, so the cache does
// not depend on the loader.
#pragma once

#include "ggml-backend.h"
#include "ggml.h"

#include <vector>

// Allocates every unallocated tensor of ctx in buffers of buft, as few as the buffer type's max
// size allows (a Vulkan buffer is limited to maxStorageBufferRange); appends them to out.
// Throws llama_error (naming `what`) when a tensor does not fit or an allocation fails.
void llama_alloc_ctx_tensors_chunked(ggml_context * ctx, ggml_backend_buffer_type_t buft,
                                     std::vector<ggml_backend_buffer_t> & out, const char * what);
