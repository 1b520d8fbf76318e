// POST /v1/embeddings: a second context on the same model with embeddings on and mean pooling,
// used by one request at a time (the model is shared; contexts are per thread of use).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "llama.h"
#include "server-params.h"

namespace server {

class embedder {
public:
    embedder(llama_model * model, int n_ctx, int n_threads, enum llama_pooling_type pooling = LLAMA_POOLING_TYPE_MEAN)
        : model_(model), n_ctx_(n_ctx), n_threads_(n_threads), pooling_(pooling) {}
    ~embedder() { llama_free(ctx_); }

    // The L2-normalised mean of the text's token embeddings; n_tokens gets the token count.
    // Throws bad_request when the text is empty or longer than the context, runtime_error on failure.
    std::vector<float> embed(const std::string & text, int & n_tokens);

private:
    llama_model *           model_;
    int                     n_ctx_;
    int                     n_threads_;
    enum llama_pooling_type pooling_;        // --pooling
    llama_context *         ctx_ = nullptr;  // created on first use
    std::mutex              mutex_;
};

// The texts to embed: body[field], a string or an array of 1 to 256 strings; bad_request otherwise.
std::vector<std::string> embed_inputs(const json & body, const char * field);

}  // namespace server
